#include "config.h"
#include "engine.h"
#include "error.h"
