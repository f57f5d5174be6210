/* thread.c: worker threads the terminal's signals never reach, and the turns of threads
 * writing one stream in order (see thread.h). */
#define _GNU_SOURCE /* sched_getcpu, sched_setaffinity, CPU_* */
#include "sparkplan/thread.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ---- where a new thread starts ------------------------------------------------------------
 *
 * A worker is started to run beside its creator, on the other core.  The kernel of the
 * benchmark's VM packs threads onto a vCPU that is already busy while it has room
 * (sched_vcpu_pack on its command line: the host can then leave the other vCPU idle), and a
 * thread that has just started has no history that says it needs a core of its own: the
 * load's worker ran on the loading thread's core, the two taking 4 ms turns for 26 ms of a
 * 133 ms load, the other core idle (perf sched timehist of spbench parse, the
 * million-operator formatted plan; BENCHMARKS.md finding 13).  So a worker that finds itself
 * on its creator's core moves to another one it may run on, then lets the scheduler move it
 * as it likes again. */

int thread_place_away(int creator_cpu)
{
    if (creator_cpu < 0 || sched_getcpu() != creator_cpu)
        return 0;
    cpu_set_t allowed, away;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || !CPU_ISSET(creator_cpu, &allowed) ||
        CPU_COUNT(&allowed) < 2)
        return 0;
    away = allowed;
    CPU_CLR(creator_cpu, &away);
    /* The kernel moves the thread before sched_setaffinity returns (its core is no longer
       allowed); giving the whole set back moves nothing. */
    if (sched_setaffinity(0, sizeof away, &away) != 0)
        return 0;
    (void)sched_setaffinity(0, sizeof allowed, &allowed);
    return 1;
}

struct placed_start {
    void *(*run)(void *);
    void *arg;
    int creator_cpu;
};

static void *placed_main(void *p)
{
    struct placed_start st = *(struct placed_start *)p;
    free(p);
    (void)thread_place_away(st.creator_cpu);
    return st.run(st.arg);
}

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
    /* Without memory for the note, the thread starts where the kernel puts it. */
    struct placed_start *st = malloc(sizeof *st);
    int rc;
    if (st) {
        *st = (struct placed_start){run, arg, sched_getcpu()};
        rc = pthread_create(thread, NULL, placed_main, st);
        if (rc != 0)
            free(st);
    } else {
        rc = pthread_create(thread, NULL, run, arg);
    }
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

/* ---- turns ------------------------------------------------------------------------------- */

void turns_init(struct turns *t, size_t n)
{
    *t = (struct turns){.n = n};
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->turn, NULL);
}

void turns_destroy(struct turns *t)
{
    pthread_cond_destroy(&t->turn);
    pthread_mutex_destroy(&t->mu);
}

/* turns_take under the lock. */
static bool take(struct turns *t, size_t (*chunk_end)(void *ctx, size_t first), void *ctx,
                 struct turn *c)
{
    bool ok = t->next < t->n && !t->error;
    if (ok) {
        c->first = t->next;
        c->end = chunk_end(ctx, c->first);
        c->ticket = t->taken++;
        t->next = c->end;
    }
    return ok;
}

bool turns_take(struct turns *t, size_t (*chunk_end)(void *ctx, size_t first), void *ctx,
                struct turn *c)
{
    pthread_mutex_lock(&t->mu);
    bool ok = take(t, chunk_end, ctx, c);
    pthread_mutex_unlock(&t->mu);
    return ok;
}

int turns_wait(struct turns *t, const struct turn *c)
{
    pthread_mutex_lock(&t->mu);
    while (t->passed != c->ticket) /* bound: the chunks taken before c, one a turn */
        pthread_cond_wait(&t->turn, &t->mu);
    int error = t->error;
    pthread_mutex_unlock(&t->mu);
    return error;
}

bool turns_pass(struct turns *t, int error, size_t (*chunk_end)(void *ctx, size_t first),
                void *ctx, struct turn *c)
{
    pthread_mutex_lock(&t->mu);
    if (error && !t->error)
        t->error = error;
    t->passed++;
    pthread_cond_broadcast(&t->turn);
    /* The next chunk is taken before the lock is let go: taking it again after letting go
       made this thread and the one just woken trade the lock through the kernel at every
       chunk (--print of the simple plan, in process: 50-65 -> 125 ms on the benchmark VM). */
    bool ok = take(t, chunk_end, ctx, c);
    pthread_mutex_unlock(&t->mu);
    return ok;
}

void turns_stop(struct turns *t, int error)
{
    pthread_mutex_lock(&t->mu);
    if (error && !t->error)
        t->error = error;
    pthread_mutex_unlock(&t->mu);
}

void turns_run_two(void *(*run)(void *), void *arg)
{
    pthread_t th;
    bool two = thread_start_writer(&th, run, arg);
    run(arg);
    if (two)
        pthread_join(th, NULL);
}

bool thread_split_min_from_env(const char *name, size_t *min)
{
    const char *e = getenv(name);
    if (!e || *e < '0' || *e > '9') /* strtoull would take blanks and a sign first */
        return false;
    char *endp;
    unsigned long long v = strtoull(e, &endp, 10);
    if (*endp != '\0')
        return false;
    *min = (size_t)v;
    return true;
}

/* ---- hand-over ------------------------------------------------------------------------ */

bool handoff_init(struct handoff *h)
{
    h->done = false;
    if (pthread_mutex_init(&h->mu, NULL) != 0)
        return false;
    if (pthread_cond_init(&h->cv, NULL) != 0) {
        pthread_mutex_destroy(&h->mu);
        return false;
    }
    return true;
}

void handoff_destroy(struct handoff *h)
{
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
}

void handoff_done(struct handoff *h)
{
    pthread_mutex_lock(&h->mu);
    h->done = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

static bool handoff_is_done(struct handoff *h)
{
    pthread_mutex_lock(&h->mu);
    bool done = h->done;
    pthread_mutex_unlock(&h->mu);
    return done;
}

void handoff_wait(struct handoff *h, bool (*idle)(void *ctx), void *ctx)
{
    /* Bound: each round runs one piece of the caller's work, of which there is a finite
       amount (idle returns false once it is all done), or stops. */
    while (idle && !handoff_is_done(h))
        if (!idle(ctx))
            break;
    pthread_mutex_lock(&h->mu);
    /* Bound: the second thread signals once, when it stops. */
    while (!h->done)
        pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

/* ---- memchr on two threads ---------------------------------------------------------- */

struct memchr_half {
    const char *s;
    int c;
    size_t n;
    const char *hit;
};

static void *memchr_half_main(void *arg)
{
    struct memchr_half *h = arg;
    h->hit = memchr(h->s, h->c, h->n);
    return NULL;
}

const void *thread_memchr(const void *s, int c, size_t n)
{
    pthread_t th;
    size_t half = n / 2;
    struct memchr_half back = {(const char *)s + half, c, n - half, NULL};
    if (n < THREAD_MEMCHR_MIN || !thread_start_quiet(&th, memchr_half_main, &back))
        return memchr(s, c, n);
    const void *hit = memchr(s, c, half);
    pthread_join(th, NULL);
    return hit ? hit : back.hit;
}
