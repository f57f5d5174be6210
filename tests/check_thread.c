/* thread.h: the signals a worker takes, and the turns of threads writing one stream in order
 * (--print and --summary of a big plan put their chunks together on two threads; check_emit
 * and check_analyze compare their bytes with one thread's, this suite the turns alone). */
#define _GNU_SOURCE /* sched_getcpu, CPU_* */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/thread.h"

/* ---- the signals a worker takes ------------------------------------------------------------- */

struct mask_seen {
    int pipe_blocked, int_blocked, segv_blocked;
};

static void *report_mask(void *arg)
{
    struct mask_seen *m = arg;
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    m->pipe_blocked = sigismember(&now, SIGPIPE);
    m->int_blocked = sigismember(&now, SIGINT);
    m->segv_blocked = sigismember(&now, SIGSEGV);
    return NULL;
}

static struct mask_seen mask_of(bool writer)
{
    struct mask_seen m = {-1, -1, -1};
    pthread_t th;
    ck_assert(writer ? thread_start_writer(&th, report_mask, &m)
                     : thread_start_quiet(&th, report_mask, &m));
    pthread_join(th, NULL);
    return m;
}

/* A quiet worker takes no terminal signal; a writer takes SIGPIPE as its caller does (so
 * `sparkplan --print BIG | head` ends as the one-thread write would), and the caller's own
 * mask is as it was. */
START_TEST(a_writer_takes_sigpipe_as_its_caller_does)
{
    sigset_t pipe, before, after;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_UNBLOCK, &pipe, &before);

    struct mask_seen q = mask_of(false), w = mask_of(true);
    ck_assert_int_eq(q.pipe_blocked, 1);
    ck_assert_int_eq(q.int_blocked, 1);
    ck_assert_int_eq(q.segv_blocked, 0);
    ck_assert_int_eq(w.pipe_blocked, 0);
    ck_assert_int_eq(w.int_blocked, 1);
    ck_assert_int_eq(w.segv_blocked, 0);

    pthread_sigmask(SIG_BLOCK, &pipe, NULL);
    w = mask_of(true);
    ck_assert_int_eq(w.pipe_blocked, 1);
    pthread_sigmask(SIG_SETMASK, NULL, &after);
    ck_assert_int_eq(sigismember(&after, SIGPIPE), 1);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}
END_TEST

/* ---- turns ---------------------------------------------------------------------------------- */

#define ITEMS 20000u
#define MAX_THREADS 4

/* A team writing the items' numbers into one log in its turns: chunk ends from a fixed
 * sequence of sizes (1 to 37 items), a turn failing at fail_ticket with fail_error. */
struct team {
    struct turns turns;
    unsigned *log;         /* the "stream": item numbers in the order written */
    size_t n_log;
    atomic_int writing;    /* threads between turns_wait and turns_pass */
    atomic_int overlaps;   /* times a thread found another one writing */
    unsigned seed;         /* for the chunk sizes, under the team's lock */
    uint64_t fail_ticket;  /* UINT64_MAX: none */
    int fail_error;
    atomic_uint stopped_after;  /* chunks a thread got from turns_wait with an error */
    bool starve_one;            /* the second thread takes nothing and stops the team */
    atomic_int n_started;
};

static size_t team_chunk_end(void *ctx, size_t first)
{
    struct team *t = ctx;
    t->seed = t->seed * 1103515245u + 12345u;
    size_t end = first + 1 + (t->seed >> 16) % 37;
    return end < ITEMS ? end : ITEMS;
}

static void *team_run(void *arg)
{
    struct team *t = arg;
    if (t->starve_one && atomic_fetch_add(&t->n_started, 1) == 1) {
        turns_stop(&t->turns, ENOMEM);
        return NULL;
    }
    unsigned buf[64];
    struct turn c;
    bool more = turns_take(&t->turns, team_chunk_end, t, &c);
    while (more) {
        ck_assert_uint_lt(c.first, c.end);
        size_t n = 0;
        for (size_t i = c.first; i < c.end; i++)
            buf[n++] = (unsigned)i;
        int pass = 0, error = turns_wait(&t->turns, &c);
        /* This thread's turn: nobody else is between turns_wait and turns_pass. */
        if (atomic_fetch_add(&t->writing, 1) != 0)
            atomic_fetch_add(&t->overlaps, 1);
        if (error) {
            atomic_fetch_add(&t->stopped_after, 1); /* write nothing, pass the turn */
        } else if (c.ticket == t->fail_ticket) {
            pass = t->fail_error;
        } else {
            memcpy(t->log + t->n_log, buf, n * sizeof *buf);
            t->n_log += n;
        }
        atomic_fetch_sub(&t->writing, 1);
        more = turns_pass(&t->turns, pass, team_chunk_end, t, &c);
    }
    return NULL;
}

/* Runs a team of n_threads (this one among them) over ITEMS items. */
static void team_go(struct team *t, int n_threads)
{
    turns_init(&t->turns, ITEMS);
    pthread_t th[MAX_THREADS];
    for (int i = 1; i < n_threads; i++)
        ck_assert(thread_start_quiet(&th[i], team_run, t));
    team_run(t);
    for (int i = 1; i < n_threads; i++)
        pthread_join(th[i], NULL);
}

static struct team *team_new(unsigned seed)
{
    struct team *t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    t->log = malloc(ITEMS * sizeof *t->log);
    ck_assert_ptr_nonnull(t->log);
    t->seed = seed;
    t->fail_ticket = UINT64_MAX;
    return t;
}

static void team_free(struct team *t)
{
    turns_destroy(&t->turns);
    free(t->log);
    free(t);
}

/* Chunks taken by 1 to 4 threads are written one at a time, in the order of their items:
 * the log is every item once, in order. */
START_TEST(chunks_are_written_one_at_a_time_in_item_order)
{
    for (int threads = 1; threads <= MAX_THREADS; threads++) {
        for (unsigned seed = 1; seed <= 5; seed++) {
            struct team *t = team_new(seed);
            team_go(t, threads);
            ck_assert_int_eq(atomic_load(&t->overlaps), 0);
            ck_assert_uint_eq(t->n_log, ITEMS);
            for (unsigned i = 0; i < ITEMS; i++)
                ck_assert_msg(t->log[i] == i, "%d threads, seed %u: item %u is %u", threads,
                              seed, i, t->log[i]);
            ck_assert_uint_eq(t->turns.next, ITEMS);
            ck_assert_int_eq(t->turns.error, 0);
            ck_assert_uint_eq(t->turns.passed, t->turns.taken);
            team_free(t);
        }
    }
    /* As --print and --summary run their teams: this thread and a writer. */
    struct team *t = team_new(99);
    turns_init(&t->turns, ITEMS);
    turns_run_two(team_run, t);
    ck_assert_int_eq(atomic_load(&t->overlaps), 0);
    ck_assert_uint_eq(t->n_log, ITEMS);
    for (unsigned i = 0; i < ITEMS; i++)
        ck_assert_uint_eq(t->log[i], i);
    team_free(t);
}
END_TEST

/* A failed write stops the taking: what was written before it is whole and in order, nothing
 * after it is written, the chunks taken already still get (and pass) their turns, told the
 * error, and the first error is the one kept. */
START_TEST(a_failed_write_stops_the_team_without_a_hang)
{
    for (int threads = 1; threads <= MAX_THREADS; threads++) {
        for (uint64_t fail = 0; fail < 40; fail += 13) {
            struct team *t = team_new((unsigned)fail + 7);
            t->fail_ticket = fail;
            t->fail_error = EPIPE;
            team_go(t, threads);
            ck_assert_int_eq(atomic_load(&t->overlaps), 0);
            ck_assert_int_eq(t->turns.error, EPIPE);
            ck_assert_uint_eq(t->turns.passed, t->turns.taken);
            ck_assert_uint_le(t->turns.taken, fail + (uint64_t)threads);
            ck_assert_uint_eq(atomic_load(&t->stopped_after), t->turns.taken - fail - 1);
            ck_assert_uint_lt(t->n_log, ITEMS);
            for (size_t i = 0; i < t->n_log; i++)
                ck_assert_uint_eq(t->log[i], i);
            team_free(t);
        }
    }
    /* The first error stays. */
    struct turns tu;
    turns_init(&tu, 10);
    turns_stop(&tu, ENOMEM);
    turns_stop(&tu, EIO);
    turns_stop(&tu, 0);
    ck_assert_int_eq(tu.error, ENOMEM);
    struct turn c;
    ck_assert(!turns_take(&tu, team_chunk_end, &(struct team){.seed = 1}, &c));
    ck_assert_uint_eq(tu.next, 0);
    turns_destroy(&tu);
}
END_TEST

/* A thread that cannot work (no memory for its buffer) stops the team without a turn: the
 * other thread's chunks taken already pass their turns, and no more are taken. */
START_TEST(a_thread_that_stops_leaves_no_one_waiting)
{
    for (int round = 0; round < 20; round++) {
        struct team *t = team_new((unsigned)round + 1);
        t->starve_one = true;
        team_go(t, 2);
        ck_assert_int_eq(t->turns.error, ENOMEM);
        ck_assert_uint_eq(t->turns.passed, t->turns.taken);
        for (size_t i = 0; i < t->n_log; i++)
            ck_assert_uint_eq(t->log[i], i);
        team_free(t);
    }
}
END_TEST

/* The tests' size knobs (SPARKPLAN_PARSE_TAIL_MIN and the like): a whole decimal number is
 * taken, 0 too (what it means is the caller's); anything else leaves the default. */
START_TEST(a_split_size_is_read_only_from_a_whole_number)
{
    const char *name = "SPARKPLAN_TEST_SPLIT_MIN";
    size_t min = 7;
    unsetenv(name);
    ck_assert(!thread_split_min_from_env(name, &min));
    static const char *const refused[] = {"", "12a", "-", " 5", "-5", "+5", "0x10", "1.5"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        setenv(name, refused[i], 1);
        ck_assert_msg(!thread_split_min_from_env(name, &min), "'%s' taken", refused[i]);
    }
    ck_assert_uint_eq(min, 7);
    setenv(name, "0", 1);
    ck_assert(thread_split_min_from_env(name, &min));
    ck_assert_uint_eq(min, 0);
    setenv(name, "8388608", 1);
    ck_assert(thread_split_min_from_env(name, &min));
    ck_assert_uint_eq(min, 8388608);
    unsetenv(name);
}
END_TEST

/* The hand-over of a cut parse (parse_split, parse_tail, parse_graft): the first thread
 * waits for the second's part, doing the load's other work meanwhile, and returns only once
 * the part is ready, with what the second thread wrote before saying so in view. */
struct handoff_case {
    struct handoff ho;
    atomic_int go;       /* the second thread may finish */
    int part;            /* written by the second thread before handoff_done */
    atomic_int pieces;   /* idle calls */
    int pieces_left;     /* idle's work: false once none is left (-1: never runs out) */
};

static void *handoff_second(void *arg)
{
    struct handoff_case *c = arg;
    /* Bound: until the first thread lets it go (at once when it has no idle work). */
    while (!atomic_load(&c->go))
        sched_yield();
    c->part = 42;
    handoff_done(&c->ho);
    return NULL;
}

static bool handoff_piece(void *arg)
{
    struct handoff_case *c = arg;
    int n = atomic_fetch_add(&c->pieces, 1) + 1;
    /* the second thread finishes only after the first has done some work while waiting */
    if (n == 3)
        atomic_store(&c->go, 1);
    return c->pieces_left < 0 || n < c->pieces_left;
}

START_TEST(a_cut_parse_waits_for_its_part_doing_other_work_meanwhile)
{
    for (int mode = 0; mode < 3; mode++) {
        /* 0: work until the part is ready; 1: one piece only, then sleep; 2: no work */
        struct handoff_case c = {.part = 0, .pieces_left = mode == 0 ? -1 : 1};
        atomic_init(&c.go, mode != 0);
        atomic_init(&c.pieces, 0);
        ck_assert(handoff_init(&c.ho));
        pthread_t th;
        ck_assert(thread_start_quiet(&th, handoff_second, &c));
        handoff_wait(&c.ho, mode == 2 ? NULL : handoff_piece, &c);
        ck_assert_int_eq(c.part, 42);
        if (mode == 0)
            ck_assert_int_ge(atomic_load(&c.pieces), 3);
        else
            ck_assert_int_eq(atomic_load(&c.pieces), mode == 1 ? 1 : 0);
        pthread_join(th, NULL);
        handoff_destroy(&c.ho);
    }
}
END_TEST

/* A long line's end found on two threads (thread_memchr, from 8 MB on): the first match
   whichever half holds it, the one in front when both do, none when there is none. */
START_TEST(a_search_on_two_threads_finds_the_first_match)
{
    size_t n = (20u << 20) + 7, half = n / 2;
    char *buf = malloc(n);
    ck_assert_ptr_nonnull(buf);
    memset(buf, 'a', n);
    ck_assert_ptr_null(thread_memchr(buf, '\n', n));
    const size_t at[] = {0, 1, half - 1, half, half + 1, n - 1};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        buf[at[k]] = '\n';
        ck_assert_ptr_eq(thread_memchr(buf, '\n', n), buf + at[k]);
        buf[n - 1] = '\n'; /* a second one behind it: the first still wins */
        ck_assert_ptr_eq(thread_memchr(buf, '\n', n), buf + at[k]);
        buf[n - 1] = 'a';
        buf[at[k]] = 'a';
    }
    free(buf);
}
END_TEST

/* ---- where a worker starts ------------------------------------------------------------------ */

static void *report_affinity(void *arg)
{
    cpu_set_t *set = arg;
    if (sched_getaffinity(0, sizeof *set, set) != 0)
        CPU_ZERO(set);
    return NULL;
}

/* A worker found on its creator's core moves to another one (the kernel left the second
   thread of a load on the first one's core for 26 ms), and then may run wherever its
   creator may: a `taskset` the user gave still holds, nothing is left pinned. */
START_TEST(a_worker_on_its_creators_core_moves_and_keeps_the_creators_affinity)
{
    cpu_set_t mine, its;
    ck_assert_int_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
    pthread_t th;
    ck_assert(thread_start_quiet(&th, report_affinity, &its));
    pthread_join(th, NULL);
    ck_assert(CPU_EQUAL(&mine, &its));
    ck_assert_int_eq(thread_place_away(-1), 0);
    if (CPU_COUNT(&mine) < 2 || sched_getcpu() < 0) {
        fprintf(stderr, "check_thread: one core allowed here: the move is not tried\n");
        return;
    }
    /* The thread may be moved between the two calls: a few tries. */
    int moved = 0;
    for (int k = 0; k < 20 && !moved; k++) {
        int cpu = sched_getcpu();
        if (thread_place_away(cpu) && sched_getcpu() != cpu)
            moved = 1;
    }
    ck_assert_int_eq(moved, 1);
    ck_assert_int_eq(sched_getaffinity(0, sizeof its, &its), 0);
    ck_assert(CPU_EQUAL(&mine, &its));
    /* Not on that core (no thread runs on a core past the set's end): nothing to do. */
    ck_assert_int_eq(thread_place_away(CPU_SETSIZE + 1), 0);
}
END_TEST

Suite *thread_suite(void)
{
    Suite *s = suite_create("thread");
    TCase *tc = tcase_create("thread");
    tcase_add_test(tc, a_writer_takes_sigpipe_as_its_caller_does);
    tcase_add_test(tc, chunks_are_written_one_at_a_time_in_item_order);
    tcase_add_test(tc, a_failed_write_stops_the_team_without_a_hang);
    tcase_add_test(tc, a_thread_that_stops_leaves_no_one_waiting);
    tcase_add_test(tc, a_split_size_is_read_only_from_a_whole_number);
    tcase_add_test(tc, a_cut_parse_waits_for_its_part_doing_other_work_meanwhile);
    tcase_add_test(tc, a_search_on_two_threads_finds_the_first_match);
    tcase_add_test(tc, a_worker_on_its_creators_core_moves_and_keeps_the_creators_affinity);
    suite_add_tcase(s, tc);
    return s;
}
