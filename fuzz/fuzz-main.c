/* fuzz-main.c: the libFuzzer entry point of one target, chosen when it is
 * compiled (-DFUZZ_TARGET=fuzz_swf); built with clang by `make fuzz`. */
#include "config.h"
#include "fuzz.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return FUZZ_TARGET (data, size);
}
