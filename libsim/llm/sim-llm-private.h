/* sim-llm-private.h: what the training model's files share (not
 * installed). */
#pragma once

#include "llm/sim-llm.h"
#include "core/sim-keys.h"
#include "core/sim-util.h"
#include "scenario/sim-scenario.h"
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The keys of a model, in a catalogue file's [llm] group or a scenario's
 * [llm NAME] section (sim-llm-model.c). */
extern const SimKeyTable sim__llm_key_table;

/* The keys of a layout, as sim_llm_layout_set() reads them (sim-llm-step.c);
 * printed by `gpusim llm --help` and docs/llm.md. */
extern const SimKey sim__llm_layout_keys[];
extern const guint  sim__llm_layout_n_keys;

/* Reads GROUP of KF as a model (every key checked against the table).
 * WHERE prefixes messages ("FILE" or the scenario's name) and LINES, when
 * not NULL, gives the line of each key.  NAME, if not NULL, is the model's
 * name when the group does not give one (an [llm NAME] section). */
SimLlmModel *sim__llm_model_read (GKeyFile *kf, const char *group, const char *where,
                                  const SimKeyLines *lines, const char *name, GError **error);

/* A copy of MODEL. */
SimLlmModel *sim__llm_model_copy (const SimLlmModel *model);

/* The system's GPUs, and the most any node has. */
guint sim__llm_system_n_gpus (const SimLlmSystem *system);
guint sim__llm_system_gpus_per_node (const SimLlmSystem *system);

/* Adds the members of ESTIMATE (and LAYOUT's degrees) to the object B is
 * building: what `gpusim llm --json` and sim_llm_plan_json() print. */
void sim__llm_estimate_to_json (JsonBuilder *b, const SimLlmLayout *layout,
                                const SimLlmEstimate *estimate);

/* What a token budget costs and risks on a scenario's cluster. */
typedef struct {
  double owned_usd;          /* amortized capex, maintenance and energy; 0 if unknown */
  double owned_usd_per_gpu_hour;
  double cloud_usd;          /* at the matched cloud instance's on-demand price; 0 if none */
  double cloud_usd_per_gpu_hour;
  char  *cloud;              /* the instance's name, or NULL */
  double interruptions;      /* expected failures that stop the job */
  char  *failure_profile;
} SimLlmBudget;

void     sim__llm_budget_clear (SimLlmBudget *budget);
gboolean sim__llm_budget (const SimScenario *scenario, const SimCatalogue *catalogue,
                          const SimCluster *cluster, const SimLlmEstimate *estimate,
                          SimLlmBudget *budget, GError **error);
void     sim__llm_budget_to_json (JsonBuilder *b, const SimLlmBudget *budget);

/* The model NAME: the scenario file's [llm NAME] section if it has one,
 * else the catalogue's (with the scenario's model folders). */
SimLlmModel *sim__llm_model_for_scenario (const SimScenario *scenario, const char *name,
                                          GError **error);

/* A scenario's cluster and network, as `gpusim collective` builds them:
 * without a [fabric], nodes share one non-blocking switch. */
typedef struct {
  SimScenario  *scenario;
  SimCatalogue *catalogue;
  SimCluster   *cluster;
  SimTopology  *topology;
  SimLlmSystem *system;
} SimLlmSetup;

gboolean sim__llm_setup (SimLlmSetup *setup, const char *path, const char * const *sets,
                         GError **error);
void     sim__llm_setup_clear (SimLlmSetup *setup);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SimLlmSetup, sim__llm_setup_clear)

/* A [class] that names llm_model (and llm_layout, llm_tokens): sets the
 * class's GPUs, its duration (from the token budget) and its communication
 * profile from the training model on the first pool it may run on
 * (sim-llm-class.c).  TRUE and nothing changed without llm_model.  On
 * error, *KEY names the key to blame. */
gboolean sim__llm_class_derive (GKeyFile *kf, const char *group, const SimScenario *scenario,
                                SimJobClassConfig *cls, const char **key, GError **error);

/* sim__llm_class_derive() for the scenario parser (SimSectionOwner). */
gboolean sim__llm_settle_class (const SimKeyReader *reader, const char *group,
                                const SimScenario *scenario, SimJobClassConfig *cls,
                                const char **key, GError **error);

G_END_DECLS
