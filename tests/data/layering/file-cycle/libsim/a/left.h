/* Two headers of no source that include each other. */
#include "a/right.h"
