#include "a/left.h"
