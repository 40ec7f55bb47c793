/* sim-scenario-private.h: what the library's modules need of a parsed
 * scenario beyond the public fields (not installed). */
#pragma once

#include "scenario/sim-scenario.h"
#include "core/sim-keys.h"

G_BEGIN_DECLS

/* Prefixes @error with "FILE:LINE: [group] key: " for a key of @scenario
 * (internal: for errors found after parsing). */
void sim__scenario_locate (const SimScenario *scenario, const char *group, const char *key,
                           GError **error);

/* Checks that every directory of [scenario] models is one, before the
 * catalogue is read from them; an error names the models key's line. */
gboolean sim__scenario_check_models (const SimScenario *scenario, GError **error);

/* Refuses an output that would overwrite a file @scenario reads: the
 * scenario itself, its trace and task table, its pools' node lists, its
 * policy plugin, and its price, carbon and outdoor temperature files.
 * @output is a file, or with @names (NULL-terminated) a directory into
 * which those files are written.  @option names the output in the message
 * ("--report"; sim__check_output()). */
gboolean sim__scenario_check_output (const SimScenario *scenario, const char *option,
                                     const char *output, const char * const *names,
                                     GError **error);

/* The group of an override or a swept key as the key file spells it
 * (newly allocated): "pool h100" for "pool.h100", "class small" for
 * "class.small", "comm ring" for "comm.ring"; other groups as they are.
 * The one spelling rule of `run --set`, `seek --vary` and [sweep] keys,
 * which all reach the scenario through its overrides. */
char *sim__scenario_key_group (const char *group);

/* Splits the override @o, "SECTION.KEY=VALUE", into its group (as
 * sim__scenario_key_group() spells it) and key, each stripped, the value
 * being what follows the first '='.  SIM_ERROR_PARSE, naming @o and the
 * form expected, if @o is not of that form. */
gboolean sim__scenario_split_override (const char *o, char **group, char **key, GError **error);

/* The sections a module of the simulation owns (kernel/sim-kernel.h): their
 * key tables (NULL-terminated), for the unknown-key checks and `gpusim
 * keys`; how they are read into the scenario (@read, nullable: the default
 * values too, section or not), after the scenario's own sections; what
 * of them the scenario frees (@clear, nullable); and how a module settles
 * the classes it derives (@settle_class, nullable).  The parser reaches
 * them only through sim__scenario_section_owners(), so that it names no
 * module. */
typedef struct {
  const char               *module;
  const SimKeyTable * const *tables;
  gboolean (*read)  (const SimKeyReader *reader, SimScenario *scenario, GError **error);
  void     (*clear) (SimScenario *scenario);
  /* (nullable) settles a [class NAME] (@group) just read, from keys of the
   * module's own in it; on error, *@key names the key at fault (or NULL). */
  gboolean (*settle_class) (const SimKeyReader *reader, const char *group,
                            const SimScenario *scenario, SimJobClassConfig *cls,
                            const char **key, GError **error);
} SimSectionOwner;

/* Every module's sections, in the order they are read (defined with the
 * module table, sim-modules.c). */
const SimSectionOwner * const *sim__scenario_section_owners (guint *n_owners);

/* The workload source named @name ("swf"); FALSE if none is. */
gboolean    sim__scenario_source_from_name (const char *name, SimWorkloadSource *source);
/* The closest source name to @name, for a suggestion, or NULL. */
const char *sim__scenario_source_closest (const char *name);
/* "synthetic, swf, ... or native", for messages. */
char       *sim__scenario_source_names (void);

/* Every section a scenario may hold, in the order `gpusim keys` lists them. */
const SimKeyTable * const *sim__scenario_key_tables (guint *n_tables);

G_END_DECLS
