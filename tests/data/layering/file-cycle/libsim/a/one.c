#include "a/one.h"
#include "a/bridge.h"
