/* A header of no source between one.c and two.h. */
#include "a/two.h"
