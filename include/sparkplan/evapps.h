/* evapps: the explorer's application list of a History Server directory, without curses —
 * one row per application (id, name, Spark version, start, duration, SQL queries), its
 * brief read on a thread of its own, one application after the other, so the list shows at
 * once and fills in; nothing of an application's executions is kept (the explorer loads
 * them when it is opened, evload_app).
 * Call order: evapps_start; the loop polls evapps_wake_fd beside the terminal and calls
 * evapps_drain when it is readable (then redraws); evapps_ready says how many briefs are in;
 * evapps_stop last (stops the thread within a line of the log and joins it).
 * Owns: the briefs, the thread and its wake pipe.  Borrows the ev_source, which must outlive
 * evapps_stop.  Never: draws, prints.
 */
#ifndef SPARKPLAN_EVAPPS_H
#define SPARKPLAN_EVAPPS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/evload.h"
#include "sparkplan/evsource.h"

struct evapps {
    const struct ev_source *src;
    struct ev_brief *briefs;    /* one per application; [i] is read once i < ready */
    bool *failed;               /* the brief could not be read (its error in briefs[i].name) */
    atomic_size_t ready;        /* briefs written by the thread (release), read (acquire) */
    atomic_bool stop;
    pthread_t thread;
    bool running;
    int wake[2];                /* the thread writes a byte per brief into wake[1] */
    size_t sel, top;            /* the list's selection and first row shown */
    size_t current;             /* the application open in the explorer */
};

/* false without memory, a pipe or a thread (then the list is empty). */
bool evapps_start(struct evapps *a, const struct ev_source *src);
void evapps_stop(struct evapps *a);
int evapps_wake_fd(const struct evapps *a);   /* -1 once every brief is in */
void evapps_drain(struct evapps *a);
size_t evapps_ready(const struct evapps *a);

/* The header and row i, cut to width bytes (UTF-8 safe), no newline.  Columns:
 * "application  name  Spark  start (UTC)  duration  queries"; a brief still being read
 * shows its file name and "reading...". */
void evapps_header(char *buf, size_t cap, size_t width);
void evapps_line(const struct evapps *a, size_t i, char *buf, size_t cap, size_t width);

#endif
