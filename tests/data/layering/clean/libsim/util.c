#include "config.h"
#include "util.h"
