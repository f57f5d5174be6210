/* thread.c: worker threads the terminal's signals never reach (see thread.h). */
#include "sparkplan/thread.h"

#include <signal.h>

bool thread_start_quiet(pthread_t *thread, void *(*run)(void *), void *arg)
{
    /* The new thread inherits the mask in force when it is created. */
    sigset_t block, old;
    sigfillset(&block);
    sigdelset(&block, SIGBUS);
    sigdelset(&block, SIGSEGV);
    sigdelset(&block, SIGFPE);
    sigdelset(&block, SIGILL);
    pthread_sigmask(SIG_SETMASK, &block, &old);
    int rc = pthread_create(thread, NULL, run, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0;
}
