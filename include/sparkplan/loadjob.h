/* loadjob: a big input loaded on a thread while the explorer shows its beginning.
 *
 * A plan file of several MB takes longer to load than the first screen needs: the explorer
 * reads a preview (the input's first MB cut at a line end, through the same loader:
 * loadjob_preview), starts the whole load on a thread (loadjob_start) and shows
 * that until the whole document is in (loadjob_wake_fd readable, then loadjob_finish).  A
 * preview is only made when its first screen is the whole document's: one plan, not
 * adaptive, whose first section is its physical plan and has more nodes than the explorer
 * reads to decide on its stage gutter.  Core (no curses): tests drive it directly.
 *
 * Make the preview before starting the job: the loader sets its limits on first use.
 * Who frees what: the job owns the path copy and, once finished, the whole document
 * (loadjob_free frees both, after joining the thread); a preview is the caller's
 * (document_free).  Never: prints, touches the terminal; the preview's warnings (a cut tree)
 * are its own and never shown.
 */
#ifndef SPARKPLAN_LOADJOB_H
#define SPARKPLAN_LOADJOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

/* Inputs from this size on are shown from a preview while they load; smaller ones load
 * before the first screen as before. */
#define LOADJOB_MIN_BYTES ((size_t)4 << 20)
/* The preview: at most this much of the input's beginning. */
#define LOADJOB_PREVIEW_BYTES ((size_t)1 << 20)

struct loadjob {
    char *path;
    pthread_t thread;
    bool running;                 /* started and not joined yet */
    bool finished;                /* joined: doc, status and err hold the outcome */
    int wake[2];                  /* a byte in wake[1] when the load ended */
    atomic_int cancel;            /* quit before the load began (tests' gate) */
    const char *gate;             /* tests: load only once this file exists */
    struct document *doc;
    enum sp_status status;
    struct diag err;
};

/* path names a regular file of LOADJOB_MIN_BYTES or more, within the input limit (load.h;
 * "-" and pipes never). */
bool loadjob_wanted(const char *path);
/* Starts loading path on a thread; false (nothing started) when no thread or pipe can be
 * had.  SPARKPLAN_TEST_LOAD_GATE=FILE (tests) holds the load until FILE exists. */
bool loadjob_start(struct loadjob *j, const char *path);
/* The preview of path, or NULL when there is none that shows what the whole document will
 * (see above), or on any error. */
struct document *loadjob_preview(const char *path);
/* Readable once the load ended; -1 when no load runs. */
int loadjob_wake_fd(const struct loadjob *j);
/* Joins the thread (waits for the load to end; a load still held by the tests' gate is
 * given up) and gives its outcome: *doc (still the job's) or the error. */
enum sp_status loadjob_finish(struct loadjob *j, struct document **doc, struct diag *err);
/* Finishes the job if need be, then frees the document and the rest. */
void loadjob_free(struct loadjob *j);

#endif
