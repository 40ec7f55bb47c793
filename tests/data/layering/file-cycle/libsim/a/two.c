#include "a/two.h"
#include "a/one.h"
