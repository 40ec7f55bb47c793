/* fuzz.h: the fuzzing harnesses of gpusim (not installed).
 *
 * Each harness takes one input, as bytes, through one of the library's
 * parsers the way a user's file would go, and returns 0.  What it checks
 * is only that the library neither crashes, nor trips a sanitizer, nor
 * logs a GLib critical or warning (made fatal by fuzz_init()), nor leaks:
 * to the fuzzer a refused input is as good a result as an accepted one.
 * It counts the refusals (fuzz_note_refusal()), which fuzz-replay holds
 * to what the seed files' names say they are.
 *
 * The same functions are driven two ways:
 *
 * - by libFuzzer (fuzz-main.c, built with clang by `make fuzz`), one
 *   program per target, which searches for inputs that break them;
 * - by fuzz-replay (fuzz-replay.c, built with the normal compiler and run
 *   by `make check`), which passes every file of the seed corpora in
 *   tests/fuzz/TARGET/, and the reproducers of what fuzzing found there,
 *   so that what was fixed stays fixed.
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <stddef.h>

G_BEGIN_DECLS

typedef int (*FuzzFunc) (const uint8_t *data, size_t size);

typedef struct {
  const char *name;   /* the target, and its corpus folder under tests/fuzz/ */
  FuzzFunc    func;
} FuzzTarget;

/* Every target, ending with { NULL, NULL }. */
extern const FuzzTarget fuzz_targets[];

/* Counts an input's refusal: every harness calls it where a parser (or
 * the run the input builds) gives an error.  fuzz_take_refusals() returns
 * the count since it was last called, and resets it: fuzz-replay checks
 * that every invalid-* input of a corpus is refused by at least one of
 * its harness's passes (a trace reader's output without a job counts as
 * refused, as `gpusim run` refuses it). */
void fuzz_note_refusal (void);
guint fuzz_take_refusals (void);

/* Once per process: a fixed environment (no GPUSIM_MODEL_PATH), GLib
 * criticals and warnings fatal.  Every harness calls it first. */
void fuzz_init (void);

/* Writes @data to a scratch file (in memory where the system allows) and
 * returns its path, valid until the next call.  Readers that take a path
 * are fed through it. */
const char *fuzz_write_file (const uint8_t *data, size_t size);

/* The directory that relative paths in fuzzed scenarios resolve against
 * (tests/data of the source tree, which holds trace excerpts). */
const char *fuzz_sandbox_dir (void);

int fuzz_scenario (const uint8_t *data, size_t size);
int fuzz_catalogue (const uint8_t *data, size_t size);
int fuzz_swf (const uint8_t *data, size_t size);
int fuzz_philly (const uint8_t *data, size_t size);
int fuzz_helios (const uint8_t *data, size_t size);
int fuzz_slurm (const uint8_t *data, size_t size);
int fuzz_openb_nodes (const uint8_t *data, size_t size);
int fuzz_openb_pods (const uint8_t *data, size_t size);
int fuzz_pai (const uint8_t *data, size_t size);
int fuzz_gavel (const uint8_t *data, size_t size);
int fuzz_native (const uint8_t *data, size_t size);
int fuzz_transfers (const uint8_t *data, size_t size);
int fuzz_plan (const uint8_t *data, size_t size);
int fuzz_results (const uint8_t *data, size_t size);
int fuzz_sweep_summary (const uint8_t *data, size_t size);
int fuzz_weather (const uint8_t *data, size_t size);
int fuzz_prices (const uint8_t *data, size_t size);
int fuzz_failure_log (const uint8_t *data, size_t size);

G_END_DECLS
