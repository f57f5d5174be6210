/* thread.c: worker threads the terminal's signals never reach (see thread.h). */
#include "sparkplan/thread.h"

#include <signal.h>

static bool start_blocking(pthread_t *thread, void *(*run)(void *), void *arg, bool keep_pipe)
{
    /* The new thread inherits the mask in force when it is created. */
    sigset_t block, old;
    pthread_sigmask(SIG_SETMASK, NULL, &old);
    sigfillset(&block);
    sigdelset(&block, SIGBUS);
    sigdelset(&block, SIGSEGV);
    sigdelset(&block, SIGFPE);
    sigdelset(&block, SIGILL);
    if (keep_pipe && sigismember(&old, SIGPIPE) != 1)
        sigdelset(&block, SIGPIPE);
    pthread_sigmask(SIG_SETMASK, &block, NULL);
    int rc = pthread_create(thread, NULL, run, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0;
}

bool thread_start_quiet(pthread_t *thread, void *(*run)(void *), void *arg)
{
    return start_blocking(thread, run, arg, false);
}

bool thread_start_writer(pthread_t *thread, void *(*run)(void *), void *arg)
{
    return start_blocking(thread, run, arg, true);
}
