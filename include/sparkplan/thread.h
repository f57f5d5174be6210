/* thread: starting a worker thread the terminal's signals never reach.
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

/* pthread_create with every signal but the faults blocked in the new thread; false when no
 * thread can be had. */
bool thread_start_quiet(pthread_t *thread, void *(*run)(void *), void *arg);

/* The same, but SIGPIPE as the calling thread has it: a worker that writes to the caller's
 * output (--print, --summary on two threads) then ends the program on a closed pipe as the
 * caller's own write would, instead of failing with EPIPE. */
bool thread_start_writer(pthread_t *thread, void *(*run)(void *), void *arg);

#endif
