/* evemit: the non-interactive outputs of an event log — --json (the application, its
 * executions, every plan version with each node's metrics), --print (the query list, then
 * each query's final plan with a metrics column), --summary (queries by duration with their
 * hottest operator) and --lint (each final plan's static findings and the runtime rules).
 * Owns nothing; writes to a stream.  Plan text and log strings go through the sanitizer
 * (text) or JSON escaping.  Errors are values (a write error: SP_ERR_IO).
 */
#ifndef SPARKPLAN_EVEMIT_H
#define SPARKPLAN_EVEMIT_H

#include <stdio.h>

#include "sparkplan/eventlog.h"
#include "sparkplan/runtime.h"
#include "sparkplan/status.h"

/* One JSON object on one line:
 *   {"file", "application": {"id", "name", "sparkVersion", "databricks", "user", "start",
 *    "end", "codec", "layout", "inProgress", "truncated"},
 *    "executions": [{"id", "rootId", "description", "details", "start", "end", "durationMs",
 *    "status", "error", "jobs", "stages", "hottest", "plans": [PLAN...]}],
 *    "plans": [], "warnings": [{"file", "line", "message"}]}
 * PLAN as emit_json's, each NODE with "metrics": [{"name", "type", "accumulatorId",
 * "value"}] for sum metrics, {"name", "type", "accumulatorId", "total", "min", "med", "max",
 * "maxStage", "maxTask", "text"} for the others. */
enum sp_status evemit_json(FILE *out, const struct ev_app *app, struct diag *err);
enum sp_status evemit_print(FILE *out, const struct ev_app *app, struct diag *err);
enum sp_status evemit_summary(FILE *out, const struct ev_app *app, struct diag *err);
/* *warned: a warning was printed (static or runtime).  The static findings come from
 * analyze_document over each execution's final plan. */
enum sp_status evemit_lint(FILE *out, const struct ev_app *app, bool *warned, struct diag *err);

/* A History Server directory's application list, one row an application (kept small: the
 * applications themselves are freed one after the other). */
struct evemit_app_row {
    char id[96], name[96], version[64];
    size_t n_execs, n_failed, n_running;
    int64_t start, end;
    bool in_progress, truncated;
};
void evemit_app_row(const struct ev_app *app, struct evemit_app_row *row);
enum sp_status evemit_app_list(FILE *out, const char *dir, const struct evemit_app_row *rows,
                               size_t n, struct diag *err);

/* "1.2 s" style duration of an execution, "-" while it runs. */
void evemit_duration(const struct ev_exec *e, char *buf, size_t cap);

#endif
