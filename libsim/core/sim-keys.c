/* sim-keys.c: the key tables of a scenario's sections: checking a section
 * against its table, reading it, its defaults, and printing the table. */
#include "config.h"

#include "core/sim-keys.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "core/sim-units.h"

#include <string.h>

static const char * const type_names[SIM_KEY_N_TYPES] = {
  [SIM_KEY_STRING] = "string",
  [SIM_KEY_INT] = "integer",
  [SIM_KEY_NUMBER] = "number",
  [SIM_KEY_SHARE] = "share",
  [SIM_KEY_TIME] = "time",
  [SIM_KEY_RATE] = "rate",
  [SIM_KEY_BYTES] = "bytes",
  [SIM_KEY_BANDWIDTH] = "bandwidth",
  [SIM_KEY_POWER] = "power",
  [SIM_KEY_LENGTH] = "length",
  [SIM_KEY_TEMPERATURE] = "temperature",
  [SIM_KEY_BOOL] = "bool",
  [SIM_KEY_CHOICE] = "choice",
  [SIM_KEY_LIST] = "list",
  [SIM_KEY_PATH] = "path",
  [SIM_KEY_EXPRESSION] = "expression",
};

const char *
sim__keys_type_name (SimKeyType type)
{
  g_return_val_if_fail ((guint) type < SIM_KEY_N_TYPES, "?");
  return type_names[type];
}

const SimKey *
sim__keys_find (const SimKeyTable *table, const char *name)
{
  for (guint i = 0; i < table->n_keys; i++)
    if (strcmp (table->keys[i].name, name) == 0)
      return &table->keys[i];
  return NULL;
}

/* The closest known key to NAME, by sim__closest() (a key NAME begins,
 * else the nearest within a few edits), or NULL.  Time complexity:
 * O(n * |NAME| * |key|) over the n keys of the table. */
const char *
sim__keys_closest (const SimKeyTable *table, const char *name)
{
  g_autofree const char **names = g_new (const char *, table->n_keys + 1);

  for (guint i = 0; i < table->n_keys; i++)
    names[i] = table->keys[i].name;
  return sim__closest (name, names, table->n_keys);
}

/* The table's keys, "a, b, c", newly allocated. */
char *
sim__keys_names (const SimKeyTable *table)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < table->n_keys; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", table->keys[i].name);
  return g_string_free (s, FALSE);
}

/* The one message for a key that no table knows, with the closest known
 * key, for every section. */
void
sim__keys_set_unknown (const SimKeyTable *table, const char *key, GError **error)
{
  g_autofree char *list = sim__keys_names (table);

  g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY, "unknown key%s (known: %s%s%s)",
               sim__did_you_mean (sim__keys_closest (table, key)), list,
               table->others != NULL ? "; " : "", table->others != NULL ? table->others : "");
}

void
sim__keys_locate (const SimKeyReader *reader, const char *group, const char *key,
                  GError **error)
{
  if (reader->locate != NULL)
    reader->locate (reader, group, key, error);
}

/* Refuses the first key of GROUP that TABLE does not know (nor accepts),
 * naming it with the closest known key.  Time complexity: O(k * n) for k
 * keys in the group and n in the table. */
gboolean
sim__keys_check_group (const SimKeyReader *reader, const SimKeyTable *table, const char *group,
                       GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys (reader->kf, group, NULL, NULL);

  for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
    {
      if (sim__keys_find (table, keys[k]) != NULL ||
          (table->accept != NULL && table->accept (keys[k])))
        continue;
      sim__keys_set_unknown (table, keys[k], error);
      sim__keys_locate (reader, group, keys[k], error);
      return FALSE;
    }
  return TRUE;
}

/* Sets every key of TABLE that has a parser and a default to its default,
 * in CONFIG.  A default that does not parse is a mistake in the table, not
 * in a user's file (check-keys parses every one). */
void
sim__keys_apply_defaults (const SimKeyTable *table, gpointer config)
{
  for (guint i = 0; i < table->n_keys; i++)
    {
      const SimKey *k = &table->keys[i];
      g_autoptr(GError) local = NULL;

      if (k->parse == NULL || k->def == NULL || (k->flags & SIM_KEY_DEFAULT_DESCRIBED))
        continue;
      if (!k->parse (k->def, (char *) config + k->offset, &local))
        g_error ("[%s] %s: the default \"%s\" does not parse: %s", table->section, k->name,
                 k->def, local->message);
    }
}

/* Sets every key of TABLE that has no parser of its own but a default to
 * that default, in CONFIG, through the module's own SET: for modules that
 * read their sections key by key.  A default SET refuses is a mistake in
 * the table (check-keys runs every one). */
void
sim__keys_apply_defaults_with (const SimKeyTable *table, SimKeySetFunc set, gpointer config)
{
  for (guint i = 0; i < table->n_keys; i++)
    {
      const SimKey *k = &table->keys[i];
      g_autoptr(GError) local = NULL;

      if (k->parse != NULL || k->def == NULL || (k->flags & SIM_KEY_DEFAULT_DESCRIBED))
        continue;
      if (!set (config, k->name, k->def, &local))
        g_error ("[%s] %s: the default \"%s\" is refused: %s", table->section, k->name,
                 k->def, local->message);
    }
}

/* Parses every key of TABLE that has a parser and is in GROUP into CONFIG,
 * in the table's order; absent keys keep CONFIG's values. */
gboolean
sim__keys_read_group (const SimKeyReader *reader, const SimKeyTable *table, const char *group,
                      gpointer config, GError **error)
{
  for (guint i = 0; i < table->n_keys; i++)
    {
      const SimKey *k = &table->keys[i];

      if (k->parse == NULL)
        continue;
      if (!sim__keys_get_parsed (reader, group, k->name, k->parse, (char *) config + k->offset,
                                 error))
        return FALSE;
    }
  return TRUE;
}

gboolean
sim__keys_has (const SimKeyReader *reader, const char *group, const char *key)
{
  return g_key_file_has_key (reader->kf, group, key, NULL);
}

/* The raw value, stripped, or NULL if absent (not an error). */
char *
sim__keys_get (const SimKeyReader *reader, const char *group, const char *key)
{
  char *raw;

  if (!g_key_file_has_key (reader->kf, group, key, NULL))
    return NULL;
  raw = g_key_file_get_value (reader->kf, group, key, NULL);
  return raw != NULL ? g_strstrip (raw) : NULL;
}

gboolean
sim__keys_read_each (const SimKeyReader *reader, const char *group, SimKeySetFunc set,
                     gpointer config, GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys (reader->kf, group, NULL, NULL);

  for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
    {
      g_autofree char *value = sim__keys_get (reader, group, keys[k]);
      if (!set (config, keys[k], value, error))
        {
          sim__keys_locate (reader, group, keys[k], error);
          return FALSE;
        }
    }
  return TRUE;
}

/* Parses an optional key with PARSE; leaves OUT untouched if absent. */
gboolean
sim__keys_get_parsed (const SimKeyReader *reader, const char *group, const char *key,
                      SimKeyParseFunc parse, gpointer out, GError **error)
{
  g_autofree char *raw = sim__keys_get (reader, group, key);

  if (raw == NULL)
    return TRUE;
  if (!parse (raw, out, error))
    {
      sim__keys_locate (reader, group, key, error);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Printing                                                                  */

/* TEXT for a Markdown table cell: "|" would end the cell. */
static void
append_cell (GString *out, const char *text)
{
  g_string_append (out, " ");
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '|')
        g_string_append (out, "\\|");
      else
        g_string_append_c (out, *p);
    }
  g_string_append (out, " |");
}

static const char *
or_dash (const char *text)
{
  return text != NULL && *text != '\0' ? text : "-";
}

/* The default column: "(required)" for a required key. */
static const char *
default_text (const SimKey *k)
{
  if (k->flags & SIM_KEY_REQUIRED)
    return "(required)";
  return or_dash (k->def);
}

/* Appends TABLE to OUT: as plain text, a line per key (name, type, unit,
 * range, default) and its documentation below it; or as a Markdown section
 * with a table. */
void
sim__keys_print (GString *out, const SimKeyTable *table, gboolean markdown)
{
  const char *name_suffix = table->named ? " NAME" : "";

  if (markdown)
    {
      g_string_append_printf (out, "## [%s%s]\n\n%s.\n\n", table->section, name_suffix,
                              table->doc);
      if (table->others != NULL)
        g_string_append_printf (out, "Other keys: %s.\n\n", table->others);
      if (table->n_keys == 0)
        return;
      g_string_append (out, "| Key | Type | Unit | Range | Default | Description |\n"
                            "|-----|------|------|-------|---------|-------------|\n");
      for (guint i = 0; i < table->n_keys; i++)
        {
          const SimKey *k = &table->keys[i];
          g_autofree char *name = g_strdup_printf ("`%s`", k->name);
          g_string_append (out, "|");
          append_cell (out, name);
          append_cell (out, sim__keys_type_name (k->type));
          append_cell (out, or_dash (k->unit));
          append_cell (out, or_dash (k->range));
          append_cell (out, default_text (k));
          append_cell (out, k->doc);
          g_string_append (out, "\n");
        }
      g_string_append (out, "\n");
      return;
    }

  g_string_append_printf (out, "[%s%s]  %s\n", table->section, name_suffix, table->doc);
  if (table->others != NULL)
    g_string_append_printf (out, "  Other keys: %s.\n", table->others);
  for (guint i = 0; i < table->n_keys; i++)
    {
      const SimKey *k = &table->keys[i];
      g_string_append_printf (out, "  %-22s %-11s %-6s %-26s %s\n", k->name,
                              sim__keys_type_name (k->type), or_dash (k->unit),
                              or_dash (k->range), default_text (k));
      g_string_append_printf (out, "      %s\n", k->doc);
    }
}

/* ------------------------------------------------------------------------- */
/* Parsers                                                                   */

gboolean
sim__keys_parse_bool (const char *text, gpointer out, GError **error)
{
  if (g_ascii_strcasecmp (text, "true") == 0 || g_ascii_strcasecmp (text, "yes") == 0 ||
      strcmp (text, "1") == 0)
    *(gboolean *) out = TRUE;
  else if (g_ascii_strcasecmp (text, "false") == 0 || g_ascii_strcasecmp (text, "no") == 0 ||
           strcmp (text, "0") == 0)
    *(gboolean *) out = FALSE;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a boolean: expected true or false", text);
      return FALSE;
    }
  return TRUE;
}

/* A duration from 0, with a unit, into a SimTime. */
gboolean
sim__keys_parse_duration (const char *text, gpointer out, GError **error)
{
  return sim_parse_duration (text, out, error);
}

gboolean
sim__keys_parse_positive_duration (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_duration (text, out, error))
    return FALSE;
  if (*(SimTime *) out <= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is zero: expected a positive duration", text);
      return FALSE;
    }
  return TRUE;
}

/* A share in [0, 1]. */
gboolean
sim__keys_parse_share (const char *text, gpointer out, GError **error)
{
  return sim_parse_number (text, 0, 1, out, error);
}

/* A share in (0, 1], such as an efficiency. */
gboolean
sim__keys_parse_unit_share (const char *text, gpointer out, GError **error)
{
  if (!sim_parse_number (text, 0, 1, out, error) || *(double *) out <= 0)
    {
      g_clear_error (error);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\": expected a number above 0 and at most 1", text);
      return FALSE;
    }
  return TRUE;
}

/* "0.2" or "20%": a share of one, in [LOW, 1] (LOW excluded if OPEN_LOW),
 * into the double at OUT; WHAT names it in the error. */
gboolean
sim__keys_parse_share_percent (const char *text, double low, gboolean open_low,
                               const char *what, gpointer out, GError **error)
{
  gsize n = strlen (text);
  g_autofree char *number = g_strdup (text);
  double v, scale = 1;

  if (n > 0 && text[n - 1] == '%')
    {
      number[n - 1] = '\0';
      g_strstrip (number);
      scale = 100;
    }
  if (!sim_parse_number (number, -G_MAXDOUBLE, G_MAXDOUBLE, &v, NULL) ||
      (open_low ? v / scale <= low : v / scale < low) || v / scale > 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "\"%s\": expected %s, %s %g and at "
                   "most 1 (or 100%%), such as \"0.2\" or \"20%%\"", text, what,
                   open_low ? "above" : "at least", low);
      return FALSE;
    }
  *(double *) out = v / scale;
  return TRUE;
}

/* A number from LO to HI into the double at OUT; an error says what was
 * EXPECTED first. */
gboolean
sim__keys_parse_bounded (const char *text, double lo, double hi, gpointer out,
                         const char *expected, GError **error)
{
  if (sim_parse_number (text, lo, hi, out, error))
    return TRUE;
  g_prefix_error (error, "expected %s: ", expected);
  return FALSE;
}
