/* evload: reads an application's event log into the eventlog model (eventlog.h).
 *
 * Streams the log's lines (evsource.h), parses each event it needs with cJSON and folds task
 * events into the metric tables as they pass (sqlmetric.h), so memory holds what is kept
 * (executions, plans, per-stage metric arrays), never the log.  Each plan version is parsed
 * by the plan parser (load.h) and aligned with its sparkPlanInfo.
 * A malformed line is skipped with a warning naming it; a log that ends inside an event (cut
 * or still being written) is read up to its last complete event, with a warning.
 * Owns nothing once it returns: the struct ev_app is the caller's (ev_app_free).
 */
#ifndef SPARKPLAN_EVLOAD_H
#define SPARKPLAN_EVLOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/eventlog.h"
#include "sparkplan/evsource.h"
#include "sparkplan/status.h"

/* One application: its files in order.  name: what people see. */
enum sp_status evload_app(const struct ev_app_files *files, struct ev_app **out,
                          struct diag *err);
/* What an application list shows of one application, read without its executions: the
 * events that name the application, the SQL executions counted, not parsed (so it costs
 * the decompression and little else, and keeps nothing).  stop (may be NULL), set from
 * another thread, ends the reading early (the brief then holds what was read). */
struct ev_brief {
    char id[96], name[96], version[64];
    bool databricks;
    int64_t start, end;        /* -1 when unknown */
    size_t n_queries;
    bool in_progress, truncated;
};
enum sp_status evload_brief(const struct ev_app_files *files, const atomic_bool *stop,
                            struct ev_brief *out, struct diag *err);
/* A log held in memory (tests): one file's bytes, any codec. */
enum sp_status evload_bytes(const char *name, const void *bytes, size_t len, struct ev_app **out,
                            struct diag *err);

#endif
