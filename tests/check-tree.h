/* check-tree.h: removing what a test wrote under a directory of its own. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* Removes @dir and everything under it (nothing if it does not exist):
 * a test's teardown then leaves nothing behind whatever its runs wrote,
 * or a failed assertion left. */
static inline void
check_remove_tree (const char *dir)
{
  g_autoptr(GDir) d = NULL;
  const char *name;

  if (dir == NULL || (d = g_dir_open (dir, 0, NULL)) == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        check_remove_tree (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}
