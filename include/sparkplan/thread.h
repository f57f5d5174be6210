/* thread: starting a worker thread the terminal's signals never reach, and the turns of
 * threads that write one stream in order.
 *
 * The explorer watches for resize, stop and quit on its main thread; a worker (the quick
 * scan beside a parse, a search's second half, the insight analysis) must not take them.
 * Faults (SIGBUS from mapfile's guard, SIGSEGV, SIGFPE, SIGILL) stay deliverable.
 * Owns nothing: the caller joins the thread.
 */
#ifndef SPARKPLAN_THREAD_H
#define SPARKPLAN_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* pthread_create with every signal but the faults blocked in the new thread; false when no
 * thread can be had. */
bool thread_start_quiet(pthread_t *thread, void *(*run)(void *), void *arg);

/* The same, but SIGPIPE as the calling thread has it: a worker that writes to the caller's
 * output (--print, --summary on two threads) then ends the program on a closed pipe as the
 * caller's own write would, instead of failing with EPIPE. */
bool thread_start_writer(pthread_t *thread, void *(*run)(void *), void *arg);

/* Both start the thread away from the core its creator runs on when another core is allowed
 * (thread_place_away), as the kernel does not always. */

/* The calling thread moved off creator_cpu when it runs there and its affinity allows another
 * core; the affinity is as before once it returns.  1 when it moved it, 0 otherwise
 * (creator_cpu < 0, another core, one allowed core, a failed call). */
int thread_place_away(int creator_cpu);

/* The size, in bytes, from which some work is shared with a second thread, as the
 * environment variable name sets it for the tests (SPARKPLAN_PARSE_TAIL_MIN and the like,
 * man page): true, *min set, when the variable is a whole decimal number; false when it is
 * unset, empty or anything else (the caller's default holds).  What 0 means is the
 * caller's. */
bool thread_split_min_from_env(const char *name, size_t *min);

/* memchr(s, c, n), the back half searched by a second thread at the same time from
 * THREAD_MEMCHR_MIN bytes on (a line of an event log is one line of hundreds of megabytes,
 * its end the only '\n': one core took 5-6 ms to find it in the benchmark's 100 MB line).
 * The first match, as memchr finds it. */
#define THREAD_MEMCHR_MIN ((size_t)8 << 20)
const void *thread_memchr(const void *s, int c, size_t n);

/* ---- turns: chunks made on several threads, written in the order they were taken ----------
 *
 * A big output (--print's section, --summary's scan lines) is cut into chunks of consecutive
 * items.  Each thread takes a chunk (turns_take: its items and a ticket, handed out in item
 * order), puts it together in a buffer of its own, waits until every chunk taken before it
 * has been written (turns_wait), writes it, and passes the turn while it takes its next
 * chunk (turns_pass).  So the
 * stream gets the chunks in item order, the bytes one thread would write, while one thread
 * writes and the other works on its next chunk.  Between turns_wait and turns_pass the
 * thread is the only one writing the stream.
 *
 * An error stops the taking: passed with turns_pass (a failed write, by the thread whose turn
 * it was) or turns_stop (a thread that cannot work: no memory for its buffer), the first one
 * is kept; no chunk is taken after it, and the chunks already taken still get their turns,
 * in order, turns_wait telling each the error (write nothing then), so no thread waits
 * forever.  A caller that takes no error (passes 0) gets every chunk taken.
 *
 * Owns: its lock and condition, made by turns_init and given back by turns_destroy, both by
 * the thread that runs the team, the others joined.  The items, the buffers and the stream
 * are the caller's.  After the join, next is the first item no thread took (items a thread
 * could not take, left to the caller) and error the first error passed on (0: none). */
struct turns {
    pthread_mutex_t mu;
    pthread_cond_t turn;
    size_t next;      /* the first item no thread has taken yet */
    size_t n;         /* the items: [0, n) */
    uint64_t taken;   /* tickets handed out */
    uint64_t passed;  /* turns passed: the ticket whose turn it is */
    int error;        /* the first error passed on; stops the taking */
};

/* A chunk taken: items [first, end) and its place in the writing order. */
struct turn {
    size_t first, end;
    uint64_t ticket;
};

/* The turns of n items, none taken yet. */
void turns_init(struct turns *t, size_t n);
void turns_destroy(struct turns *t);

/* Takes the next chunk into *c: from t->next up to chunk_end(ctx, first), which is called
 * under the team's lock (so chunks are cut in order) and returns an end past first and at
 * most n.  False when no item is left or an error stopped the taking. */
bool turns_take(struct turns *t, size_t (*chunk_end)(void *ctx, size_t first), void *ctx,
                struct turn *c);
/* Waits for c's turn (every chunk taken before it passed); returns the error that stopped
 * the team, or 0: the caller writes c only on 0, then passes the turn either way. */
int turns_wait(struct turns *t, const struct turn *c);
/* Ends the turn of c, the chunk turns_wait waited for (error != 0: its write failed, passed
 * on as above), and takes the next chunk into c as turns_take does, under one hold of the
 * lock; false when none is left. */
bool turns_pass(struct turns *t, int error, size_t (*chunk_end)(void *ctx, size_t first),
                void *ctx, struct turn *c);
/* Passes error on without a turn (error != 0): a thread that takes no chunk at all. */
void turns_stop(struct turns *t, int error);

/* run(arg) on this thread and, at the same time, on a second one started by
 * thread_start_writer (when none can be had, on this thread alone); returns when both are
 * done.  A team's run takes chunks until none is left, so either thread may do them all. */
void turns_run_two(void *(*run)(void *), void *arg);

/* ---- a hand-over: "the second part is ready" -------------------------------------------
 *
 * A big parse cut in two (parse.h: parse_split, parse_tail, parse_graft): the second thread
 * reads its part and says so once (handoff_done); the first, at the cut, waits for that
 * (handoff_wait) before it takes the part.  What the part holds is the caller's; the
 * hand-over only orders the two: everything the second thread wrote before handoff_done is
 * seen by the first after handoff_wait.
 *
 * While it waits, the first thread may do other work of the load instead of sleeping:
 * idle(ctx) is called again and again until the part is ready or it returns false (no work
 * left: the thread sleeps then).  Each call should be a short piece (a megabyte of the
 * quick scan), so the part is taken soon after it is ready.
 *
 * Owns: its lock and condition (handoff_init, given back by handoff_destroy once neither
 * thread uses it). */
struct handoff {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done; /* under mu */
};

/* False when no lock or condition can be had (nothing to destroy then). */
bool handoff_init(struct handoff *h);
void handoff_destroy(struct handoff *h);
/* The second thread: its part is ready (called once). */
void handoff_done(struct handoff *h);
/* The first thread: returns once handoff_done was called, running idle(ctx) meanwhile as
 * above (idle NULL: it sleeps at once). */
void handoff_wait(struct handoff *h, bool (*idle)(void *ctx), void *ctx);

#endif
