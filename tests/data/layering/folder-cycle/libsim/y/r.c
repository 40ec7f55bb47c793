#include "x/s.h"
