/* Through core's private header, user depends on core. */
#include "a/core-private.h"
