/* gpusim-keys.c: `gpusim keys [SECTION] [--markdown]`, every key a
 * scenario section takes, printed from the tables the scenario reader
 * checks keys against (sim_scenario_dup_key_reference()), so that it cannot
 * drift from what is accepted.  docs/keys.md is `gpusim keys --markdown`.
 */
#include "config.h"

#include "gpusim-cli.h"

#include <stdio.h>
#include <string.h>

/* Above the sections in docs/keys.md. */
static const char markdown_head[] =
  "# Scenario keys\n"
  "\n"
  "Every section a scenario file may hold and every key of each, with its type, unit, range,\n"
  "default and meaning. A default such as \"node model's\" means the value comes from there;\n"
  "\"(required)\" marks a key the section needs. Sizes, durations, powers and bandwidths take\n"
  "a unit (\"80GB\", \"90s\", \"700W\", \"400Gb/s\").\n"
  "\n"
  "This file is the output of `gpusim keys --markdown` (`make docs-keys` writes it); the test\n"
  "suite fails when the two differ.\n"
  "\n";

int
gpusim_cmd_keys (int argc, char **argv)
{
  gboolean markdown = FALSE, help = FALSE;
  GOptionEntry entries[] = {
    { "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown,
      "Print a Markdown reference (docs/keys.md) instead of text", NULL },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("[SECTION]");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len;

  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Lists every key of every scenario section, or of one: its type, unit,\n"
    "range, default and what it does.  A default such as \"node model's\"\n"
    "means the value comes from there; \"(required)\" marks a key the\n"
    "section needs.");
  g_option_context_set_description (ctx,
    "Examples:\n"
    "  gpusim keys\n"
    "  gpusim keys power\n"
    "  gpusim keys --markdown > docs/keys.md\n");

  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return gpusim_usage_error (ctx, "%s", error->message);
  if (help)
    {
      g_autofree char *usage = g_option_context_get_help (ctx, TRUE, NULL);
      g_print ("%s", usage);
      return 0;
    }
  if (argc > 2)
    return gpusim_usage_error (ctx, "keys takes at most one SECTION");

  text = sim_scenario_dup_key_reference (argc == 2 ? argv[1] : NULL, markdown, &error);
  if (text == NULL)
    return gpusim_input_error (error);
  if (markdown && argc == 1)
    fputs (markdown_head, stdout);
  /* A Markdown file ends with one newline, not a blank line. */
  len = strlen (text);
  if (markdown && len >= 2 && text[len - 1] == '\n' && text[len - 2] == '\n')
    len--;
  fwrite (text, 1, len, stdout);
  return 0;
}
