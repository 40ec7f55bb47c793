/* sim-diagram-graphviz.c: Graphviz plumbing of the diagrams (see
 * sim-diagram-private.h): ordered ids, attributes, rendering. */
#include "config.h"

#include "report/sim-diagram.h"
#include "report/sim-diagram-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "400 Gb/s" and "450 GB/s" from bytes/s (sim-diagram-private.h). */
char *
sim__diagram_gbps (double bytes_per_s)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf ("%s Gb/s", g_ascii_formatd (buf, sizeof buf, "%.4g",
                                                      bytes_per_s * 8 / 1e9));
}

char *
sim__diagram_gBps (double bytes_per_s)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf ("%s GB/s", g_ascii_formatd (buf, sizeof buf, "%.4g",
                                                      bytes_per_s / 1e9));
}

void
sim__diagram_set (void *obj, const char *name, const char *value)
{
  agsafeset (obj, (char *) name, (char *) value, (char *) "");
}

/* ------------------------------------------------------------------------ */
/* Object ids.  cgraph's default id discipline makes a named object's id the
 * address of its interned name, and orders subgraphs by id: Graphviz would
 * then lay clusters out, and number them in SVG, in an order that changes
 * from run to run.  This discipline numbers names in the order they are
 * first seen (even ids, as cgraph expects of named objects; odd ones for
 * anonymous objects), so the same graph gives the same bytes.             */

typedef struct {
  Agraph_t   *g;
  GHashTable *ids;     /* name -> id */
  GPtrArray  *names;   /* id / 2 - 1 -> name, interned in the graph (cgraph reads the
                        * header of an interned string to tell HTML-like names) */
  IDTYPE      anonymous;
} IdState;

static void *
id_open (Agraph_t *g, Agdisc_t *disc)
{
  IdState *st = g_new0 (IdState, 1);
  st->g = g;
  st->ids = g_hash_table_new (g_str_hash, g_str_equal);
  st->names = g_ptr_array_new ();
  st->anonymous = 1;
  return st;
}

static long
id_map (void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
  IdState *st = state;
  gpointer found;

  if (str == NULL)
    {
      *id = st->anonymous;
      st->anonymous += 2;
      return TRUE;
    }
  if (g_hash_table_lookup_extended (st->ids, str, NULL, &found))
    {
      *id = (IDTYPE) GPOINTER_TO_SIZE (found);
      return TRUE;
    }
  if (!createflag)
    return FALSE;
  g_ptr_array_add (st->names, agstrdup (st->g, str));
  *id = (IDTYPE) st->names->len * 2;
  g_hash_table_insert (st->ids, st->names->pdata[st->names->len - 1],
                       GSIZE_TO_POINTER ((gsize) *id));
  return TRUE;
}

static long
id_alloc (void *state, int objtype, IDTYPE request)
{
  return FALSE;
}

static void
id_free (void *state, int objtype, IDTYPE id)
{
}

static char *
id_print (void *state, int objtype, IDTYPE id)
{
  IdState *st = state;
  if (id % 2 != 0 || id == 0 || id / 2 > st->names->len)
    return NULL;
  return st->names->pdata[id / 2 - 1];
}

static void
id_close (void *state)
{
  IdState *st = state;
  g_hash_table_unref (st->ids);
  g_ptr_array_unref (st->names);
  g_free (st);
}

static void
id_register (void *state, int objtype, void *obj)
{
}

static Agiddisc_t ordered_ids = {
  id_open, id_map, id_alloc, id_free, id_print, id_close, id_register
};

static Agdisc_t ordered_disc = { &AgMemDisc, &ordered_ids, &AgIoDisc };

Agraph_t *
sim__diagram_new_graph (const char *name)
{
  return agopen ((char *) name, Agundirected, &ordered_disc);
}

/* ------------------------------------------------------------------------ */
/* Rendering.                                                                */

gboolean
sim__diagram_check_format (const char *format, gboolean dot_allowed, GError **error)
{
  static const char *formats[] = { "dot", "svg", "png", "pdf", NULL };

  for (guint i = dot_allowed ? 0 : 1; formats[i] != NULL; i++)
    if (g_ascii_strcasecmp (formats[i], format) == 0)
      return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
               "diagram format \"%s\": expected %ssvg, png or pdf", format,
               dot_allowed ? "dot, " : "");
  return FALSE;
}

/* Writes or lays out and renders @g, then closes it. */
/* One Graphviz context for the process, never freed.  Graphviz's text
 * layout plugin keeps a pointer to the last font name it measured, a
 * string the context owns: with a context per diagram, the next diagram's
 * first label is measured against freed memory (AddressSanitizer finds it
 * after a few renders in one process).  Layouts are not reentrant, so one
 * at a time. */
static GMutex render_lock;

static GVC_t *
shared_context (void)
{
  static GVC_t *gvc;

  if (g_once_init_enter (&gvc))
    g_once_init_leave (&gvc, gvContext ());
  return gvc;
}

gboolean
sim__diagram_render_graph (Agraph_t *g, const char *format, char **data, gsize *length,
                           GError **error)
{
  if (g_ascii_strcasecmp (format, "dot") == 0)
    {
      char *buf = NULL;
      size_t len = 0;
      FILE *fp = open_memstream (&buf, &len);
      gboolean ok = fp != NULL && agwrite (g, fp) == 0;
      if (fp != NULL)
        ok &= fclose (fp) == 0;
      agclose (g);
      if (!ok)
        {
          free (buf);
          g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot write the DOT text");
          return FALSE;
        }
      *data = g_strndup (buf, len);
      *length = len;
      free (buf);
      return TRUE;
    }
  {
    GVC_t *gvc = shared_context ();
    char *buf = NULL;
    unsigned int len = 0;
    g_autofree char *lower = g_ascii_strdown (format, -1);
    gboolean ok;

    g_mutex_lock (&render_lock);
    ok = gvLayout (gvc, g, "dot") == 0;
    if (ok)
      ok = gvRenderData (gvc, g, lower, &buf, &len) == 0;
    if (ok)
      {
        /* NUL-terminated too, so that SVG can be read as text. */
        *data = g_malloc (len + 1);
        memcpy (*data, buf, len);
        (*data)[len] = '\0';
        *length = len;
      }
    if (buf != NULL)
      gvFreeRenderData (buf);
    gvFreeLayout (gvc, g);
    agclose (g);
    g_mutex_unlock (&render_lock);
    if (!ok)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_IO,
                     "Graphviz could not lay out or render the diagram as %s (is the "
                     "graphviz plugin set installed?)", format);
        return FALSE;
      }
    return TRUE;
  }
}

static const char *
format_of (const char *path)
{
  const char *dot = strrchr (path, '.');
  return dot != NULL ? dot + 1 : "";
}

gboolean
sim_diagram_write_data (const char *path, const char *format,
                        gboolean (*render) (gpointer user_data, const char *format,
                                            char **data, gsize *length, GError **error),
                        gpointer user_data, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL && render != NULL, FALSE);
  if (!render (user_data, format ? format : format_of (path), &data, &len, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  return sim__write_file_atomic (path, data, (gssize) len, error);
}

gboolean
sim_diagram_render_dot (const char *dot, const char *format, char **data, gsize *length,
                        GError **error)
{
  Agraph_t *g;

  g_return_val_if_fail (dot != NULL && format != NULL && data != NULL && length != NULL, FALSE);
  if (!sim__diagram_check_format (format, FALSE, error))
    return FALSE;
  {
    FILE *fp = fmemopen ((void *) dot, strlen (dot), "r");
    g = fp != NULL ? agread (fp, &ordered_disc) : NULL;
    if (fp != NULL)
      fclose (fp);
  }
  if (g == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "Graphviz cannot read the DOT text");
      return FALSE;
    }
  return sim__diagram_render_graph (g, format, data, length, error);
}

