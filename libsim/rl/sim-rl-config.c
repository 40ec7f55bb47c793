/* sim-rl-config.c: a scenario's [rl] section, the set-up of the
 * reinforcement-learning environment (rl/sim-rl-env.h): its key table and
 * its reader.
 *
 * The section only fills in what sim_rl_env_new() leaves to the scenario,
 * so the configuration keeps "not given" (-1, 0, NULL) for absent keys and
 * the environment applies its own defaults; the table's defaults document
 * those (check-keys holds them to the environment's constants).  The
 * placement names are checked by the environment, which knows the
 * policies.
 */
#include "config.h"

#include "rl/sim-rl-config.h"
#include "rl/sim-rl-env.h"
#include "rl/sim-rl-env-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "core/sim-units.h"
#include "sched/sim-policy-private.h"

#include <string.h>

/* The reward names, in #SimRlReward order (NULL: not a reward). */
static const char * const rl_rewards[] = { "jobs", "utilization", "slowdown", NULL, "energy",
                                           "cost" };
G_STATIC_ASSERT (G_N_ELEMENTS (rl_rewards) == SIM_RL_REWARD_COST + 1);

static gboolean
parse_rl_reward (const char *text, gpointer out, GError **error)
{
  const char *names[G_N_ELEMENTS (rl_rewards)];
  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (rl_rewards); i++)
    if (rl_rewards[i] != NULL)
      {
        if (strcmp (text, rl_rewards[i]) == 0)
          {
            *(gint *) out = (gint) i;
            return TRUE;
          }
        names[n++] = rl_rewards[i];
      }
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
               "\"%s\" is not a reward%s (expected jobs, slowdown, utilization, energy or cost)",
               text, sim__did_you_mean (sim__closest (text, names, n)));
  return FALSE;
}

SIM_KEYS_UINT_PARSER (parse_rl_window, 1, SIM_RL_MAX_WINDOW)

SIM_KEYS_UINT_PARSER (parse_rl_slots, 1, SIM_RL_MAX_SLOTS)

/* true or false into the gint at OUT, whose -1 says "not given". */
static gboolean
parse_tristate (const char *text, gpointer out, GError **error)
{
  gboolean b;

  if (!sim__keys_parse_bool (text, &b, error))
    return FALSE;
  *(gint *) out = b ? 1 : 0;
  return TRUE;
}

#define RL(field) offsetof (SimRlConfig, field)

/* The defaults are applied by the environment (SIM_KEY_DEFAULT_DESCRIBED):
 * an argument of sim_rl_env_new() comes before the scenario's key. */
static const SimKey rl_keys[] = {
  { "reward", SIM_KEY_CHOICE, NULL, "jobs, utilization, slowdown, energy, cost", "jobs",
    "what the agent is rewarded for (energy needs [power], cost needs [cost])",
    SIM_KEY_DEFAULT_DESCRIBED, parse_rl_reward, RL (reward) },
  { "window", SIM_KEY_INT, NULL, "1 to 1024", "16",
    "the waiting jobs the observation shows and actions may start",
    SIM_KEY_DEFAULT_DESCRIBED, parse_rl_window, RL (window) },
  { "node_slots", SIM_KEY_INT, NULL, "1 to 4096", "32",
    "the nodes the observation describes one by one", SIM_KEY_DEFAULT_DESCRIBED,
    parse_rl_slots, RL (node_slots) },
  { "placements", SIM_KEY_LIST, NULL, "1 to 16 names", "first-fit, best-fit",
    "the placements an action may choose from, by name", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "node_actions", SIM_KEY_BOOL, NULL, NULL, "false",
    "also offer \"start job k at node slot s\" actions", SIM_KEY_DEFAULT_DESCRIBED,
    parse_tristate, RL (node_actions) },
};

const SimKeyTable sim__rl_key_table = {
  "rl", FALSE, "The reinforcement-learning environment's set-up (sim_rl_env_new())",
  rl_keys, G_N_ELEMENTS (rl_keys), NULL, NULL,
};

gboolean
sim__rl_config_read (const SimKeyReader *reader, SimRlConfig *rl, GError **error)
{
  g_autofree char *raw = NULL;

  rl->reward = -1;
  rl->node_actions = -1;
  if (!g_key_file_has_group (reader->kf, "rl"))
    return TRUE;
  if (!sim__keys_read_group (reader, &sim__rl_key_table, "rl", rl, error))
    return FALSE;
  raw = sim__keys_get (reader, "rl", "placements");
  if (raw != NULL)
    {
      g_auto(GStrv) names = g_strsplit (raw, ",", -1);
      g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; names[i] != NULL; i++)
        {
          char *name = g_strstrip (names[i]);
          if (*name != '\0')
            g_ptr_array_add (list, g_strdup (name));
        }
      if (list->len == 0 || list->len > SIM_RL_MAX_PLACEMENTS)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%u placements: expected 1 to %u names, separated by commas", list->len,
                       SIM_RL_MAX_PLACEMENTS);
          sim__keys_locate (reader, "rl", "placements", error);
          return FALSE;
        }
      g_ptr_array_add (list, NULL);
      rl->placements = (char **) g_ptr_array_steal (list, NULL);
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The section in a scenario.                                                */

/* What the environment would refuse when it is made, refused when the
 * scenario is read, so that `gpusim validate` finds it: a reward whose
 * model is missing, a placement that is not registered.  The modules
 * before [rl] in the module table (power, cost) have been read. */
static gboolean
check_section (const SimKeyReader *reader, const SimScenario *sc, GError **error)
{
  gboolean cost_key;

  if (sc->rl.reward >= 0)
    {
      g_autofree char *what = g_strdup_printf ("the %s reward", rl_rewards[sc->rl.reward]);
      if (!sim__rl_check_reward (sc, (SimRlReward) sc->rl.reward, what, &cost_key, error))
        {
          if (cost_key)
            sim__keys_locate (reader, "cost", "capacity_basis", error);
          else
            sim__keys_locate (reader, "rl", "reward", error);
          return FALSE;
        }
    }
  /* A [policy] plugin may register placements of its own when it is
   * loaded, which validation does not do: its names are checked when the
   * environment is made. */
  if (sc->rl.placements == NULL || sc->plugin != NULL)
    return TRUE;
  sim__policy_register_builtins ();
  for (guint p = 0; sc->rl.placements[p] != NULL; p++)
    if (sim__policy_table_find_placement (sc->rl.placements[p], error) == NULL)
      {
        g_prefix_error (error, "placement %u of the environment: ", p);
        sim__keys_locate (reader, "rl", "placements", error);
        return FALSE;
      }
  return TRUE;
}

gboolean
sim__rl_sections_read (const SimKeyReader *reader, SimScenario *sc, GError **error)
{
  return sim__rl_config_read (reader, &sc->rl, error) && check_section (reader, sc, error);
}

void
sim__rl_sections_clear (SimScenario *sc)
{
  g_clear_pointer (&sc->rl.placements, g_strfreev);
}
