/* sim-sharing.c: the speed of jobs on shared GPUs (see sim-sharing.h). */
#include "config.h"

#include "cluster/sim-sharing.h"
#include "core/sim-error.h"

#include <string.h>

void
sim_sharing_config_init (SimSharingConfig *config)
{
  g_return_if_fail (config != NULL);
  config->mode = SIM_SHARING_TIME_SLICE;
  config->timeslice_overhead = SIM_SHARING_TIMESLICE_OVERHEAD_DEFAULT;
  config->mps_overhead = SIM_SHARING_MPS_OVERHEAD_DEFAULT;
}

gboolean
sim_sharing_mode_parse (const char *text, SimSharingMode *mode, GError **error)
{
  g_return_val_if_fail (text != NULL && mode != NULL, FALSE);
  if (strcmp (text, "time-slice") == 0)
    *mode = SIM_SHARING_TIME_SLICE;
  else if (strcmp (text, "mps") == 0)
    *mode = SIM_SHARING_MPS;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_PARSE,
                   "unknown sharing mode \"%s\": expected time-slice or mps", text);
      return FALSE;
    }
  return TRUE;
}

const char *
sim_sharing_mode_to_string (SimSharingMode mode)
{
  return mode == SIM_SHARING_MPS ? "mps" : "time-slice";
}

double
sim_sharing_capacity (const SimSharingConfig *config, SimSharingMode mode, guint jobs)
{
  g_return_val_if_fail (config != NULL, 1.0);
  if (jobs < 2)
    return 1.0;
  return 1.0 - (mode == SIM_SHARING_MPS ? config->mps_overhead : config->timeslice_overhead);
}

double
sim_sharing_factor (double demand, double capacity)
{
  return demand > capacity ? capacity / demand : 1.0;
}

double
sim_sharing_mig_factor (double activity, double capacity)
{
  return activity > capacity ? capacity / activity : 1.0;
}
