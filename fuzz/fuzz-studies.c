/* fuzz-studies.c: the harnesses of the JSON files of studies: a plan
 * (`compare --plan-out`, sim_plan_new_from_json()), its results
 * (`compare --results-out`, sim_plan_results_new_from_json()) and a
 * sweep's summary (`sweep --format json`, read by `report --sweep` through
 * sim_html_sweep_report_render()).
 *
 * Each input is the whole file, bytes as they are (a NUL byte ends the text
 * the way a C string does; the file readers refuse NUL bytes before the
 * parsers see them, see sim-read.h).  An accepted plan is checked
 * (sim_plan_check()) and written back to JSON, which must read again; an
 * accepted results file must give its plan.  Nothing is run.  Beside that,
 * the harness looks for crashes, sanitizer reports (a stack overflow on
 * deep nesting among them), GLib criticals and leaks, as the others do
 * (fuzz.h).
 */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sim.h>

static char *
text_of (const uint8_t *data, size_t size)
{
  char *text = g_malloc (size + 1);

  memcpy (text, data, size);
  text[size] = '\0';
  return text;
}

static void
refused (gboolean ok, GError *error, const char *what)
{
  if (!ok && error == NULL)
    {
      fprintf (stderr, "fuzz: %s failed without an error\n", what);
      abort ();
    }
  if (!ok)
    fuzz_note_refusal ();
}

int
fuzz_plan (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;
  GError *error = NULL;
  SimPlan *plan;

  fuzz_init ();
  text = text_of (data, size);
  plan = sim_plan_new_from_json (text, "fuzz.json", &error);
  refused (plan != NULL, error, "sim_plan_new_from_json");
  g_clear_error (&error);
  if (plan != NULL)
    {
      g_autofree char *again = NULL;
      SimPlan *copy;

      if (!sim_plan_check (plan, &error))
        {
          refused (FALSE, error, "sim_plan_check");
          g_clear_error (&error);
        }
      again = sim_plan_to_json (plan);
      copy = sim_plan_new_from_json (again, "again.json", &error);
      if (copy == NULL)
        {
          fprintf (stderr, "fuzz: a plan written back does not read again: %s\n",
                   error ? error->message : "without an error");
          abort ();
        }
      g_object_unref (copy);
      g_object_unref (plan);
    }
  return 0;
}

int
fuzz_results (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;
  GError *error = NULL;
  SimPlanResults *results;

  fuzz_init ();
  text = text_of (data, size);
  results = sim_plan_results_new_from_json (text, "fuzz.json", &error);
  refused (results != NULL, error, "sim_plan_results_new_from_json");
  g_clear_error (&error);
  if (results != NULL)
    {
      if (sim_plan_results_get_plan (results) == NULL)
        {
          fprintf (stderr, "fuzz: results without their plan\n");
          abort ();
        }
      g_object_unref (results);
    }
  return 0;
}

int
fuzz_sweep_summary (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;
  g_autofree char *html = NULL;
  GError *error = NULL;

  fuzz_init ();
  text = text_of (data, size);
  html = sim_html_sweep_report_render (text, "fuzz.json", NULL, &error);
  refused (html != NULL, error, "sim_html_sweep_report_render");
  g_clear_error (&error);
  return 0;
}
