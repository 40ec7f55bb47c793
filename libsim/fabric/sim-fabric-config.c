/* sim-fabric-config.c: a scenario's [fabric] section, key by key.
 *
 * The scenario parser owns the file, its line numbers and its error
 * prefixes; this file only knows the keys and what their values may be,
 * so messages here say what was wrong and what was expected, and the
 * parser prefixes them with "FILE:LINE: [fabric] KEY: ".
 */
#include "config.h"

#include "sim-topology.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "core/sim-keys.h"
#include "core/sim-units.h"

#include <string.h>

static const SimKey fabric_keys[] = {
  { "topology", SIM_KEY_CHOICE, NULL,
    "none, single-switch, fat-tree, fat-tree-3, rail-optimized, rail-optimized-3, dragonfly",
    "none",
    "how the nodes are connected (none: no network is modelled)", 0, NULL, 0 },
  { "switch", SIM_KEY_STRING, NULL, NULL, NULL,
    "a [switch] model of the catalogue, such as Quantum-2-QM9700 (without one, radix is "
    "needed and the switches take the NIC link's speed and no latency)", 0, NULL, 0 },
  { "link", SIM_KEY_STRING, NULL, NULL, "node model's",
    "the [link] model of every NIC, such as IB-NDR (switch-to-switch links too, at the "
    "switch's port speed)", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "oversubscription", SIM_KEY_NUMBER, NULL, "at least 1", "1:1",
    "bandwidth down over bandwidth up at the leaves, \"2:1\" or \"2\"", 0, NULL, 0 },
  { "radix", SIM_KEY_INT, NULL, "0 to 1000000", "switch model's",
    "the ports per switch", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "groups", SIM_KEY_INT, NULL, "0 to 1000000", "fitted",
    "dragonfly: the number of groups", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "routers_per_group", SIM_KEY_INT, NULL, "0 to 1000000", "fitted",
    "dragonfly: the routers in each group", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "global_links", SIM_KEY_INT, NULL, "0 to 1000000", "fitted",
    "dragonfly: the global links of each router", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "transport_latency", SIM_KEY_TIME, "s", "at most 1 s", "link model's",
    "the end-to-end software latency of one message", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "switch_latency", SIM_KEY_TIME, "s", "at most 1 s", "switch model's",
    "the latency of one switch hop", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "link_latency", SIM_KEY_TIME, "s", "at most 1 s", "link model's",
    "the latency of one link, besides its cable", SIM_KEY_DEFAULT_DESCRIBED, NULL, 0 },
  { "access_cable_length", SIM_KEY_LENGTH, "m", "at most 10 km", NULL,
    "the length of a cable from a node to its leaf (not given: no propagation delay, "
    "length class unspecified)", 0, NULL, 0 },
  { "cable_length", SIM_KEY_LENGTH, "m", "at most 10 km", NULL,
    "the length of a cable between switches (not given: no propagation delay, length "
    "class unspecified)", 0, NULL, 0 },
  { "routing", SIM_KEY_CHOICE, NULL, "default, dmodk, ecmp, adaptive, spray", "default",
    "how a flow's path is chosen among equal-cost ones", 0, NULL, 0 },
  { "sharing", SIM_KEY_CHOICE, NULL, "demand, always-on, phases", "demand",
    "when a job's collectives load the network", 0, NULL, 0 },
};

const SimKeyTable sim__fabric_key_table = {
  "fabric", FALSE, "The network between the nodes", fabric_keys, G_N_ELEMENTS (fabric_keys),
  NULL, NULL,
};

/* Indexed by SimFabricKind. */
static const char * const kind_names[] = {
  "none", "single-switch", "fat-tree", "fat-tree-3", "rail-optimized", "dragonfly",
  "rail-optimized-3",
};

/* Indexed by SimRouting. */
static const char * const routing_names[] = {
  "default", "dmodk", "ecmp", "adaptive", "spray",
};

const char *
sim_routing_to_string (SimRouting routing)
{
  g_return_val_if_fail ((guint) routing < G_N_ELEMENTS (routing_names), "default");
  return routing_names[routing];
}

gboolean
sim_routing_from_string (const char *text, SimRouting *routing, GError **error)
{
  g_return_val_if_fail (text != NULL && routing != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (routing_names); i++)
    if (g_ascii_strcasecmp (text, routing_names[i]) == 0)
      {
        *routing = (SimRouting) i;
        return TRUE;
      }
  if (g_ascii_strcasecmp (text, "d-mod-k") == 0 || g_ascii_strcasecmp (text, "d_mod_k") == 0)
    {
      *routing = SIM_ROUTING_DMODK;
      return TRUE;
    }
  {
    const char *guess = sim__closest (text, routing_names, G_N_ELEMENTS (routing_names));
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                 "unknown routing \"%s\"%s: expected one of default, dmodk, ecmp, adaptive, "
                 "spray", text, sim__did_you_mean (guess));
  }
  return FALSE;
}

gboolean
sim_fabric_kind_from_string (const char *text, SimFabricKind *kind, GError **error)
{
  g_return_val_if_fail (text != NULL && kind != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (kind_names); i++)
    if (g_ascii_strcasecmp (text, kind_names[i]) == 0)
      {
        *kind = (SimFabricKind) i;
        return TRUE;
      }
  {
    const char *guess = sim__closest (text, kind_names, G_N_ELEMENTS (kind_names));
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                 "unknown topology \"%s\"%s: expected one of none, single-switch, "
                 "fat-tree, fat-tree-3, rail-optimized, rail-optimized-3, dragonfly", text,
                 sim__did_you_mean (guess));
  }
  return FALSE;
}

/* Indexed by SimFabricSharing. */
static const char * const sharing_names[] = { "demand", "always-on", "phases" };

const char *
sim_fabric_sharing_to_string (SimFabricSharing sharing)
{
  g_return_val_if_fail ((guint) sharing < G_N_ELEMENTS (sharing_names), "demand");
  return sharing_names[sharing];
}

gboolean
sim_fabric_sharing_from_string (const char *text, SimFabricSharing *sharing, GError **error)
{
  g_return_val_if_fail (text != NULL && sharing != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (sharing_names); i++)
    if (g_ascii_strcasecmp (text, sharing_names[i]) == 0)
      {
        *sharing = (SimFabricSharing) i;
        return TRUE;
      }
  if (g_ascii_strcasecmp (text, "always_on") == 0)
    {
      *sharing = SIM_FABRIC_SHARING_ALWAYS_ON;
      return TRUE;
    }
  {
    const char *guess = sim__closest (text, sharing_names, G_N_ELEMENTS (sharing_names));
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                 "unknown sharing \"%s\"%s: expected demand (flows take their average need), "
                 "always-on (flows hold their share all the time) or phases (flows on only "
                 "while the job communicates)", text,
                 sim__did_you_mean (guess));
  }
  return FALSE;
}

const char *
sim_fabric_kind_to_string (SimFabricKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (kind_names), "none");
  return kind_names[kind];
}

const char * const *
sim_fabric_config_keys (void)
{
  static const char **names;

  /* The names of the table's keys, NULL-terminated, made once. */
  if (g_once_init_enter (&names))
    {
      const char **n = g_new0 (const char *, G_N_ELEMENTS (fabric_keys) + 1);
      for (guint i = 0; i < G_N_ELEMENTS (fabric_keys); i++)
        n[i] = fabric_keys[i].name;
      g_once_init_leave (&names, n);
    }
  return names;
}

/* Parses "2:1", "3:2" or "2" as a ratio of at least 1. */
static gboolean
parse_oversubscription (const char *value, double *out, GError **error)
{
  const char *colon = strchr (value, ':');
  double down, up = 1;
  g_autoptr(GError) local = NULL;

  if (colon != NULL)
    {
      g_autofree char *left = g_strstrip (g_strndup (value, (gsize) (colon - value)));
      g_autofree char *right = g_strstrip (g_strdup (colon + 1));

      if (!sim_parse_number (left, 0, 1e6, &down, &local)
          || !sim_parse_number (right, 0, 1e6, &up, &local) || up == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "\"%s\" is not a ratio: expected down:up such as \"2:1\", or a number "
                       "such as \"2\"", value);
          return FALSE;
        }
    }
  else if (!sim_parse_number (value, 0, 1e6, &down, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "\"%s\" is not a ratio: expected down:up such as \"2:1\", or a number such "
                   "as \"2\"", value);
      return FALSE;
    }
  if (down / up < 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is below 1: expected at least 1:1 (1:1 is non-blocking; 2:1 has "
                   "twice as much bandwidth down as up)", value);
      return FALSE;
    }
  *out = down / up;
  return TRUE;
}

/* A latency key: a duration with a unit, at most SIM_FABRIC_MAX_LATENCY. */
static gboolean
parse_latency (const char *value, SimTime *out, gboolean *set, GError **error)
{
  SimTime t;

  if (!sim_parse_duration (value, &t, error))
    return FALSE;
  if (t > SIM_FABRIC_MAX_LATENCY)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is longer than 1 s: expected a network latency such as \"20us\" or "
                   "\"150ns\" (\"m\" means minutes)", value);
      return FALSE;
    }
  *out = t;
  *set = TRUE;
  return TRUE;
}

/* A cable length key: a length with a unit, at most
 * SIM_FABRIC_MAX_CABLE_LENGTH. */
static gboolean
parse_cable (const char *value, double *out, GError **error)
{
  double metres;

  if (!sim_parse_length (value, &metres, error))
    return FALSE;
  if (metres > SIM_FABRIC_MAX_CABLE_LENGTH)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "\"%s\" is longer than 10 km: expected a cable length such as \"3m\" or "
                   "\"30m\"", value);
      return FALSE;
    }
  *out = metres;
  return TRUE;
}

static gboolean
parse_count (const char *value, guint *out, GError **error)
{
  gint64 v;

  if (!sim_parse_integer (value, 0, 1000000, &v, error))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

gboolean
sim_fabric_config_set (SimFabricConfig *config, const char *key, const char *value,
                       GError **error)
{
  g_autofree char *v = NULL;

  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  v = g_strstrip (g_strdup (value));
  if (strcmp (key, "topology") == 0)
    return sim_fabric_kind_from_string (v, &config->kind, error);
  if (strcmp (key, "switch") == 0 || strcmp (key, "link") == 0)
    {
      char **field = key[0] == 's' ? &config->switch_model : &config->link_model;
      if (*v == '\0')
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                       "empty value: expected the name of a [%s] model in the catalogue, such "
                       "as \"%s\"", key, key[0] == 's' ? "Quantum-2-QM9700" : "IB-NDR");
          return FALSE;
        }
      g_free (*field);
      *field = g_steal_pointer (&v);
      return TRUE;
    }
  if (strcmp (key, "oversubscription") == 0)
    return parse_oversubscription (v, &config->oversubscription, error);
  if (strcmp (key, "radix") == 0)
    return parse_count (v, &config->radix, error);
  if (strcmp (key, "groups") == 0)
    return parse_count (v, &config->dragonfly_groups, error);
  if (strcmp (key, "routers_per_group") == 0)
    return parse_count (v, &config->dragonfly_routers_per_group, error);
  if (strcmp (key, "global_links") == 0)
    return parse_count (v, &config->dragonfly_global_links, error);
  if (strcmp (key, "transport_latency") == 0)
    return parse_latency (v, &config->transport_latency, &config->set_transport_latency, error);
  if (strcmp (key, "switch_latency") == 0)
    return parse_latency (v, &config->switch_latency, &config->set_switch_latency, error);
  if (strcmp (key, "link_latency") == 0)
    return parse_latency (v, &config->link_latency, &config->set_link_latency, error);
  if (strcmp (key, "access_cable_length") == 0)
    return parse_cable (v, &config->access_cable_length, error);
  if (strcmp (key, "cable_length") == 0)
    return parse_cable (v, &config->cable_length, error);
  if (strcmp (key, "routing") == 0)
    return sim_routing_from_string (v, &config->routing, error);
  if (strcmp (key, "sharing") == 0)
    return sim_fabric_sharing_from_string (v, &config->sharing, error);

  sim__keys_set_unknown (&sim__fabric_key_table, key, error);
  return FALSE;
}

void
sim_fabric_config_clear (SimFabricConfig *config)
{
  if (config == NULL)
    return;
  g_free (config->switch_model);
  g_free (config->link_model);
  memset (config, 0, sizeof *config);
}

void
sim_fabric_config_copy (SimFabricConfig *dest, const SimFabricConfig *src)
{
  g_return_if_fail (dest != NULL);
  g_return_if_fail (src != NULL);

  *dest = *src;
  dest->switch_model = g_strdup (src->switch_model);
  dest->link_model = g_strdup (src->link_model);
}
