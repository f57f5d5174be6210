/* evview: what the explorer shows of an event log beside the plans, without curses — which
 * execution and plan version a document is, a node's metrics column (right-aligned text),
 * its heat (share of the plan's time), its runtime findings, and the lines its details
 * list (every metric as the Spark UI labels it, then the findings).
 * Owns: the document table and the runtime findings (evview_free).  Borrows the
 * application (which owns the documents).
 * Never: draws, prints.
 */
#ifndef SPARKPLAN_EVVIEW_H
#define SPARKPLAN_EVVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/eventlog.h"
#include "sparkplan/runtime.h"

struct evview_doc {
    const struct document *doc;
    const struct ev_exec *exec;
    const struct ev_plan *plan;
    int64_t hottest_ms;         /* the plan's largest own time (heat's scale) */
};

struct evview {
    const struct ev_app *app;
    struct rt_findings *rt;
    struct evview_doc *docs;    /* every plan version's document */
    size_t n_docs;
};

bool evview_init(struct evview *v, const struct ev_app *app);
void evview_free(struct evview *v);
/* The plan version a document is, NULL when it is none of the log's. */
const struct evview_doc *evview_find(const struct evview *v, const struct document *doc);

/* The row of node n: its metrics column cut to width columns (pieces that do not fit are
 * left out, last first: spill, size, time, rows; "1.2M rows  3.4 s  12.0 MiB"), its heat
 * (0-3, ev_node_heat) and the worst runtime finding on it (-1 none, else enum severity). */
void evview_row(const struct evview *v, const struct plan_node *n, char *right, size_t cap,
                size_t width, int *heat, int *severity);
/* The details' lines of node n, handed one by one to add (key_len: the bytes of the line
 * that name the metric).  Returns how many. */
size_t evview_details(const struct evview *v, const struct plan_node *n,
                      void (*add)(void *ctx, size_t key_len, const char *line), void *ctx);

#endif
