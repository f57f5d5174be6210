/* evrows: the explorer's query list of an event log, without curses — one row per SQL
 * execution (id, duration, status, jobs, hottest operator, description), like the Spark UI's
 * SQL tab, sortable by id or duration, with a selection and a first row on screen.
 * Owns: the row order (malloc'd; evrows_free).  Borrows the application.
 * Never: draws, prints.
 */
#ifndef SPARKPLAN_EVROWS_H
#define SPARKPLAN_EVROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/eventlog.h"

enum evrows_sort { EVROWS_BY_ID, EVROWS_BY_DURATION };

struct evrows {
    const struct ev_app *app;
    size_t *order;              /* row -> index in app->execs */
    size_t n;
    enum evrows_sort sort;
    bool descending;
    size_t sel, top;            /* selected row, first row on screen */
};

bool evrows_init(struct evrows *r, const struct ev_app *app);
void evrows_free(struct evrows *r);
/* Sorts (keeping the selected execution selected).  Ids ascend by default, durations
 * descend (longest first); running queries count as the longest. */
void evrows_sort(struct evrows *r, enum evrows_sort by, bool descending);
const struct ev_exec *evrows_exec(const struct evrows *r, size_t row);
/* Moves the selection by delta rows (clamped) and keeps it within height rows of top. */
void evrows_move(struct evrows *r, long delta, size_t height);

/* The header and one row, both cut to width bytes (UTF-8 safe), no newline.  Columns:
 * "query  duration  status     jobs  hottest operator          description". */
void evrows_header(char *buf, size_t cap, size_t width);
void evrows_line(const struct evrows *r, size_t row, char *buf, size_t cap, size_t width);

/* The tab label of execution e's plan version i: "Plan" when it has one, else "Initial",
 * "Update 1", ..., "Final". */
void evrows_plan_label(const struct ev_exec *e, size_t i, char *buf, size_t cap);

#endif
