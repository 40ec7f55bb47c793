/* fuzz-inputs.c: the harnesses of the data files a scenario names: the
 * outdoor temperatures of [cooling] outdoor_csv, the time-of-use prices of
 * [cost] energy_price_file and the failure log of [failures] log.
 *
 * Each input is the whole file.  A small scenario (one DGX A100, two
 * jobs) names it, and a simulation is built from it, which reads the file
 * as `gpusim validate` does; when it is accepted, the run goes to its end
 * (two hours of simulated time), so that what the file says is used too.
 * A refused file must be refused with an error.  Beside that, the harness
 * looks for crashes, sanitizer reports, GLib criticals and leaks, as the
 * others do (fuzz.h).
 */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <sim.h>

#define SCENARIO_HEAD \
  "[scenario]\nname = fuzz\nhorizon = 2h\n[pool a]\nmodel = DGX-A100\ncount = 1\n" \
  "[workload]\nsource = synthetic\nrate = 1/h\njobs = 2\ngpus = 8\nduration = constant(1h)\n"

static int
build_and_run (const char *sections, const uint8_t *data, size_t size)
{
  const char *path;
  g_autofree char *text = NULL;
  GError *error = NULL;
  SimScenario *sc;
  SimSimulation *sim;

  fuzz_init ();
  path = fuzz_write_file (data, size);
  /* SECTIONS ends with the key that names the file: the path follows. */
  text = g_strdup_printf (SCENARIO_HEAD "%s%s\n", sections, path);
  sc = sim_scenario_load_from_data (text, -1, "fuzz.ini", fuzz_sandbox_dir (), NULL, &error);
  if (sc == NULL)
    {
      /* The file is read when the simulation is built, not here. */
      fprintf (stderr, "fuzz: the harness's scenario was refused: %s\n",
               error ? error->message : "without an error");
      abort ();
    }
  sim = sim_simulation_new (sc, &error);
  if (sim == NULL)
    {
      if (error == NULL)
        {
          fprintf (stderr, "fuzz: a refused file without an error\n");
          abort ();
        }
      fuzz_note_refusal ();
      g_error_free (error);
    }
  else
    {
      if (!sim_simulation_run (sim, &error))
        {
          if (error == NULL)
            {
              fprintf (stderr, "fuzz: a failed run without an error\n");
              abort ();
            }
          fuzz_note_refusal ();
          g_error_free (error);
        }
      g_object_unref (sim);
    }
  sim_scenario_unref (sc);
  return 0;
}

int
fuzz_weather (const uint8_t *data, size_t size)
{
  return build_and_run ("[power]\n[cooling]\noutdoor_csv = ", data, size);
}

int
fuzz_prices (const uint8_t *data, size_t size)
{
  return build_and_run ("[power]\n[cost]\nenergy_price_file = ", data, size);
}

int
fuzz_failure_log (const uint8_t *data, size_t size)
{
  return build_and_run ("[failures]\nprofile = none\nlog = ", data, size);
}
