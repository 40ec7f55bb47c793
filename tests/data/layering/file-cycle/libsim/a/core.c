#include "a/core-private.h"
#include "a/user.h"
