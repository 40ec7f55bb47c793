/* fuzz-scenario.c: the harness of the scenario parser.
 *
 * An input is the text of a scenario file (NUL bytes included), optionally
 * followed by a line "--set" and then one override per line ("group.key=value", as
 * `gpusim run --set` passes them).  The scenario is parsed with
 * sim_scenario_load_from_data(); when it parses, a simulation is built
 * from it (catalogue, cluster, fabric, workload, policy) and its size
 * estimated, as `gpusim validate` does, and so is every [variant] (at most
 * eight), with its own overrides after the user's.  Nothing is run.
 *
 * Relative paths resolve in tests/data of the source tree, which holds
 * trace excerpts.  A scenario that names a file outside it (a trace or a
 * model directory by absolute path or through "..") or a policy plugin is
 * parsed but not built: the fuzzer must not read the whole file system or
 * load arbitrary shared objects into itself.
 */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sim.h>

#define MAX_VARIANTS 8

static gboolean
inside_sandbox (const char *path)
{
  g_autofree char *canon = g_canonicalize_filename (path, NULL);
  const char *dir = fuzz_sandbox_dir ();
  size_t n = strlen (dir);

  return strncmp (canon, dir, n) == 0 && (canon[n] == '/' || canon[n] == '\0');
}

static gboolean
may_build (const SimScenario *sc)
{
  if (sc->plugin != NULL)
    return FALSE;
  if (sc->trace_path != NULL && !inside_sandbox (sc->trace_path))
    return FALSE;
  for (guint i = 0; sc->model_dirs != NULL && sc->model_dirs[i] != NULL; i++)
    if (!inside_sandbox (sc->model_dirs[i]))
      return FALSE;
  return TRUE;
}

static void
expect_error (gboolean ok, GError *error, const char *what)
{
  if (!ok && error == NULL)
    {
      fprintf (stderr, "fuzz: %s failed without an error\n", what);
      abort ();
    }
  if (ok && error != NULL)
    {
      fprintf (stderr, "fuzz: %s succeeded but set an error: %s\n", what, error->message);
      abort ();
    }
}

/* Parses, and builds what parses. */
static SimScenario *
load_and_build (const char *text, gsize len, const char * const *overrides)
{
  GError *error = NULL;
  SimScenario *sc;
  SimSimulation *sim;
  SimRunEstimate estimate;

  sc = sim_scenario_load_from_data (text, (gssize) len, "fuzz.ini", fuzz_sandbox_dir (),
                                    overrides, &error);
  expect_error (sc != NULL, error, "sim_scenario_load_from_data");
  if (sc == NULL)
    {
      fuzz_note_refusal ();
      g_error_free (error);
      return NULL;
    }
  if (!may_build (sc))
    return sc;
  sim = sim_simulation_new (sc, &error);
  expect_error (sim != NULL, error, "sim_simulation_new");
  if (sim == NULL)
    {
      fuzz_note_refusal ();
      g_error_free (error);
      return sc;
    }
  sim_simulation_estimate (sim, &estimate);
  if (!sim_simulation_check_limits (sim, &error))
    {
      expect_error (FALSE, error, "sim_simulation_check_limits");
      fuzz_note_refusal ();
      g_error_free (error);
    }
  g_object_unref (sim);
  return sc;
}

/* The first "\n--set\n" in @text (which may hold NUL bytes), or NULL. */
static const char *
find_mark (const char *text, size_t size)
{
  for (size_t i = 0; i + 7 <= size; i++)
    if (text[i] == '\n' && memcmp (text + i, "\n--set\n", 7) == 0)
      return text + i;
  return NULL;
}

int
fuzz_scenario (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) overrides = g_ptr_array_new_with_free_func (g_free);
  gsize text_len;
  SimScenario *sc;

  fuzz_init ();
  /* The scenario, up to a line "--set"; overrides after it. */
  /* The text is passed with its length, NUL bytes and all; it is also
   * nul-terminated so that the overrides can be split as strings. */
  text = g_malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';
  text_len = size;
  {
    const char *rest = NULL;
    const char *mark = find_mark (text, size);

    if (size >= 6 && memcmp (text, "--set\n", 6) == 0)
      {
        rest = text + 6;
        text_len = 0;
      }
    else if (mark != NULL)
      {
        rest = mark + 7;
        text_len = (gsize) (mark + 1 - text);   /* its newline kept */
      }
    if (rest != NULL)
      {
        g_auto(GStrv) lines = g_strsplit (rest, "\n", 64);
        for (guint i = 0; lines[i] != NULL; i++)
          if (*lines[i] != '\0')
            g_ptr_array_add (overrides, g_strdup (lines[i]));
      }
  }
  g_ptr_array_add (overrides, NULL);

  sc = load_and_build (text, text_len, overrides->len > 1
                                        ? (const char * const *) overrides->pdata : NULL);
  if (sc == NULL)
    return 0;

  for (guint v = 0; v < sc->n_variants && v < MAX_VARIANTS; v++)
    {
      g_autoptr(GPtrArray) all = g_ptr_array_new ();
      SimScenario *vsc;

      for (guint i = 0; i + 1 < overrides->len; i++)
        g_ptr_array_add (all, g_ptr_array_index (overrides, i));
      for (guint i = 0; sc->variants[v].overrides[i] != NULL; i++)
        g_ptr_array_add (all, sc->variants[v].overrides[i]);
      g_ptr_array_add (all, NULL);
      vsc = load_and_build (text, text_len, (const char * const *) all->pdata);
      if (vsc != NULL)
        sim_scenario_unref (vsc);
    }
  sim_scenario_unref (sc);
  return 0;
}
