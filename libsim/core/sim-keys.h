/* sim-keys.h: the keys of a scenario's sections, one table per section.
 *
 * Each section of a scenario file declares its keys in a table, next to
 * the code that reads the section: the name, the type of value, its unit,
 * the range it may take, the default (as the text a user would write) and
 * one line of documentation.  From these tables come the unknown-key check
 * and its "did you mean" suggestion, the defaults of the sections read
 * through the tables, `gpusim keys` and the key reference in docs/keys.md,
 * so that the four cannot disagree.  The catalogue's key descriptions
 * (cluster/sim-catalogue.c) work the same way for model files.
 *
 * A key with a parse function and an offset is read by the generic reader
 * (sim__keys_read_group()) into the section's configuration structure, and
 * its default is set from the table (sim__keys_apply_defaults()).  A
 * module that reads its section key by key with a setter of its own gets
 * its defaults from the table through that setter
 * (sim__keys_apply_defaults_with()).  Where a default cannot be a value
 * (the node model's, the mode's, "not given"), SIM_KEY_DEFAULT_DESCRIBED
 * marks its text as a description and the code applies it; check-keys
 * holds every default to what a run does.
 *
 * Private: not installed.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The type of a key's value, as `gpusim keys` names it. */
typedef enum {
  SIM_KEY_STRING,      /* any text */
  SIM_KEY_INT,         /* an integer */
  SIM_KEY_NUMBER,      /* a real number */
  SIM_KEY_SHARE,       /* a share: "0.3" or "30%" */
  SIM_KEY_TIME,        /* a duration with a unit: "90s", "2h" */
  SIM_KEY_RATE,        /* events per time: "4/h" */
  SIM_KEY_BYTES,       /* a size: "80GB" */
  SIM_KEY_BANDWIDTH,   /* bytes or bits per second: "2TB/s", "400Gb/s" */
  SIM_KEY_POWER,       /* "700W", "1.2MW" */
  SIM_KEY_LENGTH,      /* "3m" */
  SIM_KEY_TEMPERATURE, /* degrees C: "25" or "25C" */
  SIM_KEY_BOOL,        /* true or false */
  SIM_KEY_CHOICE,      /* one of the names in the range column */
  SIM_KEY_LIST,        /* values separated by commas */
  SIM_KEY_PATH,        /* a file, relative to the scenario's folder */
  SIM_KEY_EXPRESSION,  /* a small expression: a distribution, a mix, a curve */
  SIM_KEY_N_TYPES
} SimKeyType;

typedef enum {
  SIM_KEY_FLAGS_NONE = 0,
  /* The section needs this key. */
  SIM_KEY_REQUIRED = 1 << 0,
  /* The default text describes where the value comes from ("the node
   * model's"): it is not a value to parse. */
  SIM_KEY_DEFAULT_DESCRIBED = 1 << 1,
} SimKeyFlags;

/* Parses TEXT (stripped) into OUT, or sets ERROR saying what was expected.
 * The reader prefixes the message with the file, line, section and key. */
typedef gboolean (*SimKeyParseFunc) (const char *text, gpointer out, GError **error);

typedef struct {
  const char     *name;
  SimKeyType      type;
  const char     *unit;   /* NULL: none (a count, a share, a name) */
  const char     *range;  /* NULL: any value of the type; for choices, the names */
  const char     *def;    /* the default as text; NULL: none */
  const char     *doc;    /* one line, a sentence without its full stop */
  SimKeyFlags     flags;
  SimKeyParseFunc parse;  /* NULL: read by the section's own code */
  gsize           offset; /* where parse writes, in the section's configuration */
} SimKey;

/* Whether KEY, not in a table, is still a key of the section (the open
 * part of [policy], [sweep] and [variant NAME]). */
typedef gboolean (*SimKeyAcceptFunc) (const char *key);

typedef struct {
  const char      *section; /* "power"; "class" for [class NAME] */
  gboolean         named;   /* the section takes a name: [class NAME] */
  const char      *doc;     /* one line: what the section is for */
  const SimKey    *keys;
  guint            n_keys;
  SimKeyAcceptFunc accept;  /* NULL: only the keys of the table */
  const char      *others;  /* with accept: what the other keys are, in a sentence */
} SimKeyTable;

/* Where the keys are read from: the scenario's key file, and how an error
 * is prefixed with the place of a key (the scenario knows its lines and
 * overrides).  Modules that read their own sections get one of these. */
typedef struct _SimKeyReader SimKeyReader;
struct _SimKeyReader {
  GKeyFile   *kf;
  const char *base_dir;
  void      (*locate) (const SimKeyReader *reader, const char *group, const char *key,
                       GError **error);
};

const char   *sim__keys_type_name (SimKeyType type);
const SimKey *sim__keys_find (const SimKeyTable *table, const char *name);
const char   *sim__keys_closest (const SimKeyTable *table, const char *name);
char         *sim__keys_names (const SimKeyTable *table);
void          sim__keys_set_unknown (const SimKeyTable *table, const char *key, GError **error);
gboolean      sim__keys_check_group (const SimKeyReader *reader, const SimKeyTable *table,
                                     const char *group, GError **error);
void          sim__keys_apply_defaults (const SimKeyTable *table, gpointer config);

/* Sets KEY of CONFIG from the text VALUE, as a module's own reader does. */
typedef gboolean (*SimKeySetFunc) (gpointer config, const char *key, const char *value,
                                   GError **error);
void          sim__keys_apply_defaults_with (const SimKeyTable *table, SimKeySetFunc set,
                                             gpointer config);
/* Reads every key of GROUP (absent: none) through SET into CONFIG; an error
 * is located at the key. */
gboolean      sim__keys_read_each (const SimKeyReader *reader, const char *group,
                                   SimKeySetFunc set, gpointer config, GError **error);
gboolean      sim__keys_read_group (const SimKeyReader *reader, const SimKeyTable *table,
                                    const char *group, gpointer config, GError **error);

gboolean      sim__keys_has (const SimKeyReader *reader, const char *group, const char *key);
char         *sim__keys_get (const SimKeyReader *reader, const char *group, const char *key);
gboolean      sim__keys_get_parsed (const SimKeyReader *reader, const char *group,
                                    const char *key, SimKeyParseFunc parse, gpointer out,
                                    GError **error);
void          sim__keys_locate (const SimKeyReader *reader, const char *group, const char *key,
                                GError **error);

void          sim__keys_print (GString *out, const SimKeyTable *table, gboolean markdown);

/* Defines NAME, a static SimKeyParseFunc that reads a whole number in [LO,
 * HI] into a guint (sim_parse_integer(), core/sim-units.h, says what was
 * expected): the tables' counts and degrees, each with its own range. */
#define SIM_KEYS_UINT_PARSER(name, lo, hi)                                    \
  static gboolean                                                             \
  name (const char *text, gpointer out, GError **error)                       \
  {                                                                           \
    gint64 v;                                                                 \
                                                                              \
    if (!sim_parse_integer (text, lo, hi, &v, error))                         \
      return FALSE;                                                           \
    *(guint *) out = (guint) v;                                               \
    return TRUE;                                                              \
  }

/* Parsers shared by the sections' tables. */
gboolean sim__keys_parse_bool (const char *text, gpointer out, GError **error);
gboolean sim__keys_parse_duration (const char *text, gpointer out, GError **error);
gboolean sim__keys_parse_positive_duration (const char *text, gpointer out, GError **error);
gboolean sim__keys_parse_share (const char *text, gpointer out, GError **error);
gboolean sim__keys_parse_unit_share (const char *text, gpointer out, GError **error);
gboolean sim__keys_parse_share_percent (const char *text, double low, gboolean open_low,
                                        const char *what, gpointer out, GError **error);
gboolean sim__keys_parse_bounded (const char *text, double lo, double hi, gpointer out,
                                  const char *expected, GError **error);


G_END_DECLS
