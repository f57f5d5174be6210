/* runtime: lint rules over what actually happened — an event log's metrics on each node of
 * each execution's final plan (skew, spill, join explosion, a filter that kept nearly every
 * row, mostly empty or coalesced shuffle partitions, a large broadcast, a scan that read
 * more than pruning should have left).  Rule ids and texts are in the one rule table
 * (analyze.h, RULE_RT_*).
 * Owns: struct rt_findings and its messages (one arena); rt_findings_free() releases it.
 * Borrows the application: free the findings first.
 * Never: prints, recursion on tree depth.
 */
#ifndef SPARKPLAN_RUNTIME_H
#define SPARKPLAN_RUNTIME_H

#include <stddef.h>

#include "sparkplan/analyze.h"
#include "sparkplan/eventlog.h"

/* When a rule fires (documented in docs/eventlogs.md). */
#define RT_SKEW_RATIO 5              /* a task's max over the median */
#define RT_SKEW_MIN_MS 10000         /* ... and the max task took 10 s or more */
#define RT_SKEW_MIN_BYTES (256ll << 20) /* ... or handled 256 MiB or more */
#define RT_JOIN_RATIO 10             /* output rows over the larger input */
#define RT_JOIN_MIN_ROWS 1000000
#define RT_FILTER_KEPT 0.99          /* a filter kept at least 99 % of its input rows */
#define RT_FILTER_MIN_ROWS 100000
#define RT_EMPTY_MIN_TASKS 20        /* a shuffle read by at least 20 tasks, the median empty */
#define RT_BROADCAST_BYTES (100ll << 20)
#define RT_SCAN_MANY_PARTITIONS 100
#define RT_SCAN_MANY_FILES 10000

struct rt_finding {
    enum rule_id rule;
    enum severity severity;
    const struct ev_exec *exec;
    const struct plan_node *node;   /* in the execution's final plan */
    const char *message;            /* may hold plan text: print through sanitize */
};

struct rt_findings {
    struct arena arena;
    struct rt_finding *items;       /* by execution, then plan order */
    size_t n, n_warnings;
};

enum sp_status analyze_runtime(const struct ev_app *app, struct rt_findings **out,
                               struct diag *err);
void rt_findings_free(struct rt_findings *f);

#endif
