/* sim-sweep-db.c: the SQLite store of a sweep (see sim-sweep-db.h).
 *
 * Every statement's result is checked; SQLite's messages are turned into
 * SIM_ERROR_IO naming the file.  Column names (metrics, axis keys) are
 * quoted as SQL identifiers, with quotes doubled, so no name can change a
 * statement.  The known columns are cached and re-read when a write finds
 * one missing.
 */
#include "config.h"

#include "sweep/sim-sweep-db.h"
#include "sweep/sim-sweep-db-private.h"
#include "core/sim-error.h"

#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#define SIM_SWEEP_DB_FORMAT "1"

/* SQLite's application id (PRAGMA application_id) of gpusim's databases:
 * "GPUS" in ASCII.  A database is gpusim's if it has this id, or (written
 * before the id was set) if it has gpusim's `sweep` table with its format
 * row; an empty file becomes one.  Any other database is refused before
 * anything in it is changed: its journal mode, its tables, its id. */
#define SIM_SWEEP_DB_APPLICATION_ID 1196447059  /* 0x47505553 */

struct _SimSweepDb {
  GObject     parent_instance;

  char       *path;
  sqlite3    *db;
  /* What the database needs of its sweep, as plain values: the sweep's
   * module (sim-sweep.c) opens the database, not the other way round. */
  SimPlan    *plan;
  char       *hash_text;
  GStrv       axis_keys;
  guint       n_axes;
  GStrv       point_values; /* [point * n_axes + axis] */
  GHashTable *columns;   /* column names of `runs` */
  GMutex      lock;
};

G_DEFINE_FINAL_TYPE (SimSweepDb, sim_sweep_db, G_TYPE_OBJECT)

static void
sim_sweep_db_finalize (GObject *object)
{
  SimSweepDb *self = SIM_SWEEP_DB (object);

  if (self->db != NULL)
    sqlite3_close (self->db);
  g_free (self->path);
  g_clear_object (&self->plan);
  g_free (self->hash_text);
  g_strfreev (self->axis_keys);
  g_strfreev (self->point_values);
  g_hash_table_unref (self->columns);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (sim_sweep_db_parent_class)->finalize (object);
}

static void
sim_sweep_db_class_init (SimSweepDbClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_sweep_db_finalize;
}

static void
sim_sweep_db_init (SimSweepDb *self)
{
  self->columns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_mutex_init (&self->lock);
}

static gboolean
db_error (SimSweepDb *self, sqlite3 *db, const char *what, GError **error)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: %s: %s", self->path, what,
               sqlite3_errmsg (db));
  return FALSE;
}

static gboolean
exec (SimSweepDb *self, const char *sql, GError **error)
{
  char *msg = NULL;

  if (sqlite3_exec (self->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: %s", self->path,
                   msg ? msg : sqlite3_errmsg (self->db));
      sqlite3_free (msg);
      return FALSE;
    }
  return TRUE;
}

/* NAME as an SQL identifier: "name", quotes doubled. */
static char *
quote_identifier (const char *name)
{
  GString *out = g_string_new ("\"");

  for (const char *p = name; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
  return g_string_free (out, FALSE);
}

/* The columns of `runs` in DB (the file PATH, for messages). */
static gboolean
read_columns (const char *path, sqlite3 *db, GHashTable *columns, GError **error)
{
  sqlite3_stmt *st = NULL;
  int rc;

  g_hash_table_remove_all (columns);
  if (sqlite3_prepare_v2 (db, "PRAGMA table_info(runs)", -1, &st, NULL) != SQLITE_OK)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: reading the columns: %s", path,
                   sqlite3_errmsg (db));
      return FALSE;
    }
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    g_hash_table_add (columns, g_strdup ((const char *) sqlite3_column_text (st, 1)));
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: reading the columns: %s", path,
                   sqlite3_errmsg (db));
      return FALSE;
    }
  return TRUE;
}

/* Adds a column of TYPE to `runs` unless it is there. */
static gboolean
ensure_column (SimSweepDb *self, const char *name, const char *type, GError **error)
{
  g_autofree char *q = NULL, *sql = NULL;

  if (g_hash_table_contains (self->columns, name))
    return TRUE;
  q = quote_identifier (name);
  sql = g_strdup_printf ("ALTER TABLE runs ADD COLUMN %s %s", q, type);
  if (!exec (self, sql, error))
    return FALSE;
  g_hash_table_add (self->columns, g_strdup (name));
  return TRUE;
}

/* The integer a one-row, one-column query gives, or -1 on failure. */
static gint64
query_int (sqlite3 *db, const char *sql)
{
  sqlite3_stmt *st = NULL;
  gint64 v = -1;

  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW)
    v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return v;
}

/* Whether the open database is gpusim's (or empty, and now made so). */
static gboolean
check_owner (SimSweepDb *self, GError **error)
{
  gint64 id = query_int (self->db, "PRAGMA application_id");
  gint64 n_objects = query_int (self->db, "SELECT count(*) FROM sqlite_master");
  gboolean ours = id == SIM_SWEEP_DB_APPLICATION_ID;

  if (id < 0 || n_objects < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: not an SQLite database (%s): expected "
                   "a database written by gpusim sweep --db, or a new file", self->path,
                   sqlite3_errmsg (self->db));
      return FALSE;
    }
  if (!ours && id == 0 && n_objects > 0 &&
      query_int (self->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                 "name = 'sweep'") == 1)
    ours = query_int (self->db, "SELECT count(*) FROM sweep WHERE name = 'format' AND "
                      "value = '" SIM_SWEEP_DB_FORMAT "'") == 1;
  if (!ours && !(id == 0 && n_objects == 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: not a gpusim database (its "
                   "application id is %" G_GINT64_FORMAT " and it holds %" G_GINT64_FORMAT
                   " tables or indexes gpusim did not make): left as it was; expected a "
                   "database written by gpusim sweep --db, or a new file", self->path, id,
                   n_objects);
      return FALSE;
    }
  return id == SIM_SWEEP_DB_APPLICATION_ID ||
         exec (self, "PRAGMA application_id = " G_STRINGIFY (SIM_SWEEP_DB_APPLICATION_ID), error);
}

char *
sim__sweep_db_hash_run (const char *hash_text, SimPlan *plan, guint run)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_auto(GStrv) overrides = sim_plan_dup_run_overrides (plan, run);

  g_checksum_update (sum, (const guchar *) hash_text, (gssize) strlen (hash_text));
  g_checksum_update (sum, (const guchar *) "", 1);
  for (guint i = 0; overrides[i] != NULL; i++)
    {
      g_checksum_update (sum, (const guchar *) overrides[i], -1);
      g_checksum_update (sum, (const guchar *) "\n", 1);
    }
  return g_strdup (g_checksum_get_string (sum));
}

SimSweepDb *
sim__sweep_db_open (const char *path, const SimSweepDbSpec *spec, GError **error)
{
  g_autoptr(SimSweepDb) self = NULL;
  sqlite3_stmt *st = NULL;
  gboolean ok;

  g_return_val_if_fail (path != NULL && spec != NULL, NULL);
  g_return_val_if_fail (SIM_IS_PLAN (spec->plan), NULL);
  g_return_val_if_fail (spec->n_points == sim_plan_get_n_entries (spec->plan), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (SIM_TYPE_SWEEP_DB, NULL);
  self->path = g_strdup (path);
  self->plan = g_object_ref (spec->plan);
  self->hash_text = g_strdup (spec->hash_text);
  self->n_axes = spec->n_axes;
  self->axis_keys = g_new0 (char *, spec->n_axes + 1);
  for (guint k = 0; k < spec->n_axes; k++)
    self->axis_keys[k] = g_strdup (spec->axis_keys[k]);
  self->point_values = g_new0 (char *, (gsize) spec->n_points * spec->n_axes + 1);
  for (gsize i = 0; i < (gsize) spec->n_points * spec->n_axes; i++)
    self->point_values[i] = g_strdup (spec->point_values[i]);
  if (sqlite3_open_v2 (path, &self->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                       SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK)
    {
      db_error (self, self->db, "cannot open", error);
      return NULL;
    }
  sqlite3_busy_timeout (self->db, 60000);
  if (!check_owner (self, error))
    return NULL;
  /* WAL: a commit is one append to the log, durable against the process
   * being killed; NORMAL syncs at checkpoints only (a power cut may lose the
   * last commits, never corrupt the file). */
  if (!exec (self, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", error))
    return NULL;
  if (!exec (self,
             "CREATE TABLE IF NOT EXISTS sweep (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
             "CREATE TABLE IF NOT EXISTS units (metric TEXT PRIMARY KEY, unit TEXT);"
             "CREATE TABLE IF NOT EXISTS runs (label TEXT NOT NULL, seed INTEGER NOT NULL, "
             "point INTEGER NOT NULL, scenario_hash TEXT NOT NULL, "
             "PRIMARY KEY (label, seed));"
             "INSERT OR IGNORE INTO sweep VALUES ('format', '" SIM_SWEEP_DB_FORMAT "');",
             error))
    return NULL;
  if (sqlite3_prepare_v2 (self->db, "SELECT value FROM sweep WHERE name = 'format'", -1, &st,
                          NULL) != SQLITE_OK)
    {
      db_error (self, self->db, "not a sweep database", error);
      return NULL;
    }
  ok = sqlite3_step (st) == SQLITE_ROW &&
       g_strcmp0 ((const char *) sqlite3_column_text (st, 0), SIM_SWEEP_DB_FORMAT) == 0;
  sqlite3_finalize (st);
  if (!ok)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO,
                   "%s: not a sweep database of format " SIM_SWEEP_DB_FORMAT, path);
      return NULL;
    }
  if (!read_columns (self->path, self->db, self->columns, error))
    return NULL;
  for (guint k = 0; k < self->n_axes; k++)
    if (!ensure_column (self, self->axis_keys[k], "TEXT", error))
      return NULL;
  {
    g_autofree char *sql = NULL;
    char *q = sqlite3_mprintf ("INSERT OR REPLACE INTO sweep VALUES ('scenario', %Q)",
                               spec->scenario_path);
    sql = g_strdup (q);
    sqlite3_free (q);
    if (!exec (self, sql, error))
      return NULL;
  }
  return g_steal_pointer (&self);
}

gint
sim_sweep_db_resume (SimSweepDb *self, SimPlanResults *results, GError **error)
{
  SimPlan *plan;
  g_autoptr(GHashTable) points = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GString) sql = g_string_new ("SELECT label, seed, scenario_hash");
  g_autofree double *values = NULL;
  g_autofree char **units = NULL;
  guint n_metrics, n_seeds;
  guint64 first_seed;
  sqlite3_stmt *st = NULL;
  gint n = 0;
  int rc;

  g_return_val_if_fail (SIM_IS_SWEEP_DB (self), -1);
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (results), -1);
  plan = self->plan;
  g_return_val_if_fail (sim_plan_results_get_plan (results) == plan, -1);

  n_metrics = sim_plan_get_n_metrics (plan);
  n_seeds = sim_plan_get_n_seeds (plan);
  first_seed = sim_plan_get_seed (plan, 0);
  for (guint m = 0; m < n_metrics; m++)
    if (!g_hash_table_contains (self->columns, sim_plan_get_metric (plan, m)))
      return 0;  /* no row has that metric: nothing to resume */
  for (guint m = 0; m < n_metrics; m++)
    {
      g_autofree char *q = quote_identifier (sim_plan_get_metric (plan, m));
      g_string_append_printf (sql, ", %s", q);
    }
  g_string_append (sql, " FROM runs");
  for (guint p = 0; p < sim_plan_get_n_entries (plan); p++)
    g_hash_table_insert (points, (gpointer) sim_plan_get_entry_label (plan, p),
                         GUINT_TO_POINTER (p + 1));

  values = g_new (double, MAX (n_metrics, 1));
  units = g_new0 (char *, MAX (n_metrics, 1));
  g_mutex_lock (&self->lock);
  /* Units first, for the summaries. */
  if (sqlite3_prepare_v2 (self->db, "SELECT unit FROM units WHERE metric = ?", -1, &st,
                          NULL) == SQLITE_OK)
    {
      for (guint m = 0; m < n_metrics; m++)
        {
          sqlite3_bind_text (st, 1, sim_plan_get_metric (plan, m), -1, SQLITE_STATIC);
          if (sqlite3_step (st) == SQLITE_ROW && sqlite3_column_type (st, 0) != SQLITE_NULL)
            units[m] = g_strdup ((const char *) sqlite3_column_text (st, 0));
          sqlite3_reset (st);
        }
    }
  sqlite3_finalize (st);
  st = NULL;
  if (sqlite3_prepare_v2 (self->db, sql->str, -1, &st, NULL) != SQLITE_OK)
    {
      for (guint m = 0; m < n_metrics; m++)
        g_free (units[m]);
      g_mutex_unlock (&self->lock);
      db_error (self, self->db, "reading the runs", error);
      return -1;
    }
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      guint point = GPOINTER_TO_UINT (g_hash_table_lookup (points, sqlite3_column_text (st, 0)));
      guint64 seed = (guint64) sqlite3_column_int64 (st, 1);
      guint run;
      g_autofree char *hash = NULL;
      gboolean complete = TRUE;

      if (point == 0 || seed - first_seed >= n_seeds)
        continue;
      run = (point - 1) * n_seeds + (guint) (seed - first_seed);
      hash = sim__sweep_db_hash_run (self->hash_text, plan, run);
      if (g_strcmp0 (hash, (const char *) sqlite3_column_text (st, 2)) != 0)
        continue;
      for (guint m = 0; m < n_metrics; m++)
        {
          if (sqlite3_column_type (st, 3 + (int) m) == SQLITE_NULL)
            complete = FALSE;
          values[m] = sqlite3_column_double (st, 3 + (int) m);
        }
      if (!complete)
        continue;
      sim_plan_results_record_values (results, run, values, n_metrics,
                                      (const char * const *) units, NULL);
      n++;
    }
  sqlite3_finalize (st);
  for (guint m = 0; m < n_metrics; m++)
    g_free (units[m]);
  if (rc != SQLITE_DONE)
    {
      g_mutex_unlock (&self->lock);
      db_error (self, self->db, "reading the runs", error);
      return -1;
    }
  g_mutex_unlock (&self->lock);
  return n;
}

gboolean
sim_sweep_db_add_values (SimSweepDb *self, guint run, guint n_metrics,
                         const char * const *names, const double *values,
                         const char * const *units, GError **error)
{
  SimPlan *plan;
  guint point, n_axes;
  g_autofree char *hash = NULL;
  g_autoptr(GString) sql = g_string_new ("INSERT OR REPLACE INTO runs (label, seed, point, "
                                         "scenario_hash");
  sqlite3_stmt *st = NULL;
  gboolean ok = FALSE;
  int col = 1;

  g_return_val_if_fail (SIM_IS_SWEEP_DB (self), FALSE);
  g_return_val_if_fail (names != NULL || n_metrics == 0, FALSE);
  g_return_val_if_fail (values != NULL || n_metrics == 0, FALSE);
  plan = self->plan;
  g_return_val_if_fail (run < sim_plan_get_n_runs (plan), FALSE);

  point = sim_plan_get_run_entry (plan, run);
  n_axes = self->n_axes;
  hash = sim__sweep_db_hash_run (self->hash_text, plan, run);

  g_mutex_lock (&self->lock);
  if (!exec (self, "BEGIN IMMEDIATE", error))
    goto out;
  for (guint m = 0; m < n_metrics; m++)
    if (!ensure_column (self, names[m], "REAL", error))
      goto rollback;
  for (guint k = 0; k < n_axes; k++)
    {
      g_autofree char *q = quote_identifier (self->axis_keys[k]);
      g_string_append_printf (sql, ", %s", q);
    }
  for (guint m = 0; m < n_metrics; m++)
    {
      g_autofree char *q = quote_identifier (names[m]);
      g_string_append_printf (sql, ", %s", q);
    }
  g_string_append (sql, ") VALUES (?, ?, ?, ?");
  for (guint i = 0; i < n_axes + n_metrics; i++)
    g_string_append (sql, ", ?");
  g_string_append (sql, ")");
  if (sqlite3_prepare_v2 (self->db, sql->str, -1, &st, NULL) != SQLITE_OK)
    {
      db_error (self, self->db, "writing a run", error);
      goto rollback;
    }
  sqlite3_bind_text (st, col++, sim_plan_get_entry_label (plan, point), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, col++, (sqlite3_int64) sim_plan_get_run_seed (plan, run));
  sqlite3_bind_int64 (st, col++, point);
  sqlite3_bind_text (st, col++, hash, -1, SQLITE_TRANSIENT);
  for (guint k = 0; k < n_axes; k++)
    sqlite3_bind_text (st, col++, self->point_values[(gsize) point * n_axes + k], -1,
                       SQLITE_TRANSIENT);
  for (guint m = 0; m < n_metrics; m++)
    {
      if (isfinite (values[m]))
        sqlite3_bind_double (st, col++, values[m]);
      else
        sqlite3_bind_null (st, col++);
    }
  if (sqlite3_step (st) != SQLITE_DONE)
    {
      db_error (self, self->db, "writing a run", error);
      goto rollback;
    }
  sqlite3_finalize (st);
  st = NULL;
  if (sqlite3_prepare_v2 (self->db, "INSERT OR IGNORE INTO units VALUES (?, ?)", -1, &st,
                          NULL) != SQLITE_OK)
    {
      db_error (self, self->db, "writing the units", error);
      goto rollback;
    }
  for (guint m = 0; units != NULL && m < n_metrics; m++)
    {
      sqlite3_bind_text (st, 1, names[m], -1, SQLITE_STATIC);
      if (units[m] != NULL)
        sqlite3_bind_text (st, 2, units[m], -1, SQLITE_STATIC);
      else
        sqlite3_bind_null (st, 2);
      if (sqlite3_step (st) != SQLITE_DONE)
        {
          db_error (self, self->db, "writing the units", error);
          goto rollback;
        }
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);
  st = NULL;
  ok = exec (self, "COMMIT", error);
  if (!ok)
    goto rollback;
  goto out;

rollback:
  if (st != NULL)
    sqlite3_finalize (st);
  sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
  /* A column added in the rolled-back transaction is gone again. */
  read_columns (self->path, self->db, self->columns, NULL);
out:
  g_mutex_unlock (&self->lock);
  return ok;
}

gboolean
sim_sweep_db_add_report (SimSweepDb *self, guint run, SimReport *report, GError **error)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autofree double *values = NULL;
  g_autofree const char **units = NULL;

  g_return_val_if_fail (SIM_IS_SWEEP_DB (self), FALSE);
  g_return_val_if_fail (report != NULL, FALSE);

  names = sim_report_list_metrics (report);
  values = g_new (double, MAX (names->len, 1));
  units = g_new0 (const char *, MAX (names->len, 1));
  for (guint m = 0; m < names->len; m++)
    {
      if (!sim_report_get_value (report, names->pdata[m], &values[m]))
        values[m] = NAN;
      units[m] = sim_report_get_unit (report, names->pdata[m]);
    }
  return sim_sweep_db_add_values (self, run, names->len, (const char * const *) names->pdata,
                                  values, units, error);
}

gint
sim_sweep_db_merge (SimSweepDb *self, const char *other_path, GError **error)
{
  g_autofree char *sql = NULL;
  g_autoptr(GHashTable) other_columns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GString) cols = g_string_new (NULL);
  sqlite3 *other = NULL;
  sqlite3_stmt *st = NULL;
  gint n = -1;
  int rc;
  GHashTableIter it;
  gpointer key;

  g_return_val_if_fail (SIM_IS_SWEEP_DB (self), -1);
  g_return_val_if_fail (other_path != NULL, -1);

  /* A database merged into itself would wait on its own lock for the
   * busy timeout, then fail "database is locked". */
  {
    GStatBuf a, b;

    if (g_stat (self->path, &a) == 0 && g_stat (other_path, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%s: is the database merged into "
                     "(--db): expected another sweep's database", other_path);
        return -1;
      }
  }
  /* Its columns, read with a connection of its own. */
  if (!g_file_test (other_path, G_FILE_TEST_IS_REGULAR) ||
      sqlite3_open_v2 (other_path, &other, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: cannot open: %s", other_path,
                   other ? sqlite3_errmsg (other) : "no such file");
      sqlite3_close (other);
      return -1;
    }
  {
    gboolean ok = read_columns (other_path, other, other_columns, error);
    sqlite3_close (other);
    if (!ok)
      return -1;
  }
  if (!g_hash_table_contains (other_columns, "scenario_hash"))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "%s: not a sweep database (no runs table)",
                   other_path);
      return -1;
    }

  g_mutex_lock (&self->lock);
  {
    char *q = sqlite3_mprintf ("ATTACH DATABASE %Q AS part", other_path);
    sql = g_strdup (q);
    sqlite3_free (q);
  }
  if (!exec (self, sql, error))
    goto out;
  if (!exec (self, "BEGIN IMMEDIATE", error))
    goto detach;
  g_hash_table_iter_init (&it, other_columns);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!ensure_column (self, key, "", error))
      goto rollback;
  /* In file order of the other's columns, the same list on both sides. */
  g_hash_table_iter_init (&it, other_columns);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      g_autofree char *q = quote_identifier (key);
      g_string_append_printf (cols, "%s%s", cols->len ? ", " : "", q);
    }

  /* Rows in both must agree: the same hash and, for every column of the
   * part, the same value (IS compares NULLs as equal). */
  {
    g_autoptr(GString) check = g_string_new ("SELECT p.label, p.seed FROM part.runs p JOIN "
                                             "main.runs m ON m.label = p.label AND m.seed = p.seed "
                                             "WHERE NOT (1");
    g_hash_table_iter_init (&it, other_columns);
    while (g_hash_table_iter_next (&it, &key, NULL))
      {
        g_autofree char *q = quote_identifier (key);
        g_string_append_printf (check, " AND m.%s IS p.%s", q, q);
      }
    g_string_append (check, ") LIMIT 1");
    if (sqlite3_prepare_v2 (self->db, check->str, -1, &st, NULL) != SQLITE_OK)
      {
        db_error (self, self->db, "comparing runs", error);
        goto rollback;
      }
    rc = sqlite3_step (st);
    if (rc == SQLITE_ROW)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "%s: the run \"%s\", seed %lld, differs from the one in %s (another "
                     "scenario, or other results)", other_path,
                     (const char *) sqlite3_column_text (st, 0),
                     (long long) sqlite3_column_int64 (st, 1), self->path);
        sqlite3_finalize (st);
        st = NULL;
        goto rollback;
      }
    sqlite3_finalize (st);
    st = NULL;
    if (rc != SQLITE_DONE)
      {
        db_error (self, self->db, "comparing runs", error);
        goto rollback;
      }
  }
  g_free (sql);
  sql = g_strdup_printf ("INSERT OR IGNORE INTO main.runs (%s) SELECT %s FROM part.runs",
                         cols->str, cols->str);
  if (!exec (self, sql, error))
    goto rollback;
  n = sqlite3_changes (self->db);
  if (!exec (self, "INSERT OR IGNORE INTO main.units SELECT * FROM part.units", error))
    goto rollback;
  if (!exec (self, "COMMIT", error))
    {
      n = -1;
      goto rollback;
    }
  goto detach;

rollback:
  sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
  read_columns (self->path, self->db, self->columns, NULL);
  n = -1;
detach:
  sqlite3_exec (self->db, "DETACH DATABASE part", NULL, NULL, NULL);
out:
  g_mutex_unlock (&self->lock);
  return n;
}
