/* jobs: the explorer's background work, with one wake-up descriptor for its loop.  Core
 * (no curses): the workspace (workspace.h) holds one `struct jobs`, and the tests drive it
 * without a terminal.
 *
 * Two kinds of background work, one loop:
 *   - On a thread: each document's analysis (lint findings), so no key waits for it.  One
 *     thread at a time, the shown document first; the others wait their turn.  The thread
 *     only reads the document, which nothing changes once it is loaded, and writes nothing
 *     but its job; the main thread reads the job after pthread_join.  Later thread work
 *     (loading an event log, matching a diff) is one more job kind here, reporting through
 *     the same wake pipe and jobs_news.
 *   - In slices between frames, on the main thread: indexing big tabs and a search reading
 *     the text (ws_index_slice, ws_search_slice in workspace.h).  The loop runs one slice
 *     when poll times out with nothing to read.
 *
 * Call order (the loop, ui.c):
 *   jobs_hold before the first frame (no analysis until it is drawn); jobs_release after
 *   it; jobs_ask(doc) when a document is shown (queued once, started when the thread is
 *   free); each turn poll jobs_wake_fd (-1 while nothing runs: poll ignores it) beside the
 *   terminal, and when it is readable call jobs_collect; hand every jobs_news filled by
 *   jobs_release / jobs_ask / jobs_collect to ws_take_news (and redraw); jobs_free last,
 *   before the documents are freed (it stops a running analysis within a millisecond and
 *   joins it).  A ! f F pressed while the findings are to come is kept as `pending` and
 *   done when they are in, unless another key comes first (jobs_forget_key).
 *
 * Who frees what: the analyses are the jobs' (jobs_known lends them; jobs_free frees
 * them), and so is the wake pipe.  jobs_news holds borrowed document pointers and a copied
 * message: nothing to free.  The documents are borrowed and must outlive jobs_free.
 * Never: curses, the explorer's tabs or views (the caller updates them from jobs_news).
 */
#ifndef SPARKPLAN_JOBS_H
#define SPARKPLAN_JOBS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/analyze.h"
#include "sparkplan/keys.h"
#include "sparkplan/status.h"

enum analysis_state {
    AN_NONE,      /* not asked for yet */
    AN_QUEUED,    /* shown: to be analysed when the thread is free (or the first frame is out) */
    AN_RUNNING,   /* the thread is at it */
    AN_DONE,      /* a holds the findings, or NULL when the analysis failed */
};

struct job_doc {
    const struct document *doc;
    struct analysis *a;
    enum analysis_state state;
};

/* The one background analysis.  The thread reads doc, cancel and gate and writes result,
 * status and err, then a byte into wake_fd; the main thread reads them after joining it. */
struct job {
    bool running;
    pthread_t thread;
    const struct document *doc;
    atomic_int cancel;            /* set on quit: the analysis stops within a millisecond */
    const char *gate;             /* tests: start only once this file exists */
    int wake_fd;
    struct analysis *result;
    enum sp_status status;
    struct diag err;
};

struct jobs {
    struct job_doc *docs;
    size_t n_docs, cap_docs;
    bool held;                    /* the first frame is being drawn */
    struct job job;
    int wake[2];
    bool wake_open;
    enum key_action pending;      /* ! f F waiting for the findings of pending_doc */
    const struct document *pending_doc;
};

/* What arrived: the documents whose findings came in (0 to 2), an error to show. */
struct jobs_news {
    const struct document *done[2];
    size_t n_done;
    char error[256];
};

void jobs_hold(struct jobs *j);
/* Starts the held analysis of `shown` (queued first). */
void jobs_release(struct jobs *j, const struct document *shown, struct jobs_news *news);
/* Queues doc (once) and starts the next analysis when the thread is free. */
void jobs_ask(struct jobs *j, const struct document *doc, const struct document *shown,
              struct jobs_news *news);
int jobs_wake_fd(const struct jobs *j);
void jobs_collect(struct jobs *j, const struct document *shown, struct jobs_news *news);
/* The findings of doc, or NULL while not known.  Never starts an analysis. */
const struct analysis *jobs_known(const struct jobs *j, const struct document *doc);
bool jobs_analysing(const struct jobs *j, const struct document *doc);
void jobs_forget_key(struct jobs *j);
void jobs_free(struct jobs *j);

#endif
