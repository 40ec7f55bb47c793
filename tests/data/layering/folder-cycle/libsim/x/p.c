#include "y/q.h"
