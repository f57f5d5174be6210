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

#include <stddef.h>

#include "sparkplan/eventlog.h"
#include "sparkplan/evsource.h"
#include "sparkplan/status.h"

/* One application: its files in order.  name: what people see. */
enum sp_status evload_app(const struct ev_app_files *files, struct ev_app **out,
                          struct diag *err);
/* A log held in memory (tests): one file's bytes, any codec. */
enum sp_status evload_bytes(const char *name, const void *bytes, size_t len, struct ev_app **out,
                            struct diag *err);

#endif
