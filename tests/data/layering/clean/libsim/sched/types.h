/* A header of no source: whoever includes it depends on what it includes. */
#include "core/engine.h"
