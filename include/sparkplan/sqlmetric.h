/* sqlmetric: SQL metrics the way Spark's History Server computes and prints them.
 *
 * Two halves.  Formatting: MetricUtils.stringValue (Spark 3+, and Spark 2's form when the
 * metric's name carries "(min, med, max)"), Utils.bytesToString, Utils.msDurationToString,
 * Java's US number formats.  The listener: SQLAppStatusListener's bookkeeping, fed event by
 * event (job start, stage submitted, task end, driver updates) and asked for an execution's
 * values at its end: per stage and latest attempt, one slot per task index, a slot a
 * successful task filled never overwritten, the max's stage / attempt / task kept, driver
 * values appended.  See docs/eventlogs.md and ../shared/docs/spark-eventlog.md.
 * Owns: a struct sqll owns every table it keeps (freed when an execution ends and by
 * sqll_free); the values sqll_exec_finish returns live in the caller's arena.
 * Never: prints, aborts on odd events (an unknown stage or index is ignored, as Spark does).
 */
#ifndef SPARKPLAN_SQLMETRIC_H
#define SPARKPLAN_SQLMETRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/arena.h"

enum sqlm_type { SQLM_SUM, SQLM_SIZE, SQLM_TIMING, SQLM_NS_TIMING, SQLM_AVERAGE, SQLM_OTHER };

/* "sum", "size", "timing", "nsTiming", "average"; anything else (a v2Custom_ class, a
 * Databricks "count") is SQLM_OTHER, which the History Server prints "N/A". */
enum sqlm_type sqlm_type_parse(const char *s);
const char *sqlm_type_name(enum sqlm_type t);

/* Utils.bytesToString: "100.0 B", "1.5 KiB", "2.0 GiB" (HALF_UP at one decimal). */
void sqlm_bytes_string(int64_t bytes, char *buf, size_t cap);
/* Utils.msDurationToString: "12 ms", "1.5 s", "2.3 m", "1.25 h" (Java float formatting). */
void sqlm_ms_string(int64_t ms, char *buf, size_t cap);
/* NumberFormat.getIntegerInstance(Locale.US): "1,234,567". */
void sqlm_count_string(int64_t v, char *buf, size_t cap);

/* One accumulator's aggregated value, as the UI shows it. */
struct sqlm_value {
    int64_t acc_id;
    enum sqlm_type type;
    int64_t total;          /* sum of the values counted (sum: all; size/timing: >= 0) */
    int64_t min, med, max;  /* of the values counted (average: > 0), 0 when none */
    uint32_t n;             /* values counted */
    bool max_from_task;     /* false: "(driver)" */
    int32_t max_stage, max_attempt;
    int64_t max_task;
    const char *text;       /* exactly what the Spark UI prints (arena string) */
};

/* stringValue over values[0..n) (unsorted; they are sorted in place).  max_task NULL:
 * "(driver)"; else {value, stage, attempt, task}.  spark2: the older form. */
void sqlm_format(enum sqlm_type t, bool spark2, int64_t *values, size_t n,
                 const int64_t *max_task, struct sqlm_value *out, char *buf, size_t cap);

/* Spark 2 named its non-sum metrics "... total (min, med, max)" / "... (min, med, max)". */
bool sqlm_name_is_spark2(const char *name);

/* ---- the listener ------------------------------------------------------------------------- */

struct sqll;
struct sqll *sqll_new(void);
void sqll_free(struct sqll *l);

/* A metric of execution exec's plans (start plan, every AQE update, AQE metric updates). */
bool sqll_exec_metric(struct sqll *l, int64_t exec, int64_t acc, enum sqlm_type type,
                      bool spark2);
/* JobStart of an execution: every listed stage gets a fresh table (one slot per task) for
 * the metrics the execution has now.  Also records the stages as the execution's. */
bool sqll_job_start(struct sqll *l, int64_t exec, const int32_t *stage_ids,
                    const uint32_t *num_tasks, size_t n);
void sqll_stage_submitted(struct sqll *l, int32_t stage, int32_t attempt);
/* TaskEnd: updates[i] for accumulator acc_ids[i] (negative values are dropped). */
bool sqll_task_end(struct sqll *l, int32_t stage, int32_t attempt, int64_t task_id,
                   uint32_t index, bool successful, const int64_t *acc_ids,
                   const int64_t *updates, size_t n);
bool sqll_driver_update(struct sqll *l, int64_t exec, int64_t acc, int64_t value);
/* The execution's stages (ids in the order jobs listed them), NULL when none. */
const int32_t *sqll_exec_stages(const struct sqll *l, int64_t exec, size_t *n);
/* Aggregates execution exec now (its end, or the log's end), drops the tables only it used,
 * and returns its values sorted by accumulator id (in arena a; *n of them).  NULL with
 * *n = 0 when it has none; NULL with *nomem on allocation failure. */
struct sqlm_value *sqll_exec_finish(struct sqll *l, int64_t exec, struct arena *a, size_t *n,
                                    bool *nomem);
/* A value of a finished list, by accumulator id (binary search); NULL when absent. */
const struct sqlm_value *sqlm_find(const struct sqlm_value *v, size_t n, int64_t acc);

#endif
