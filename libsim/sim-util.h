/* sim-util.h: small helpers shared inside the library (not installed). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Levenshtein distance between two ASCII strings, ignoring case. */
guint sim__edit_distance (const char *a, const char *b);

/* The candidate closest to @word, or NULL if none is within a third of
 * @word's length (at least 2 edits).  For "did you mean" suggestions. */
const char *sim__closest (const char *word, const char * const *candidates, gsize n);

/* Writes @contents to @path atomically: a temporary file in the same
 * directory, then a rename.  Errors name the path (SIM_ERROR_IO). */
gboolean sim__write_file_atomic (const char *path, const char *contents, gssize len,
                                 GError **error);

G_END_DECLS
