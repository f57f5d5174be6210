/* jobs.c: each document's analysis on a thread of its own (see jobs.h).
 *
 * Every document is analysed as soon as it is shown, whatever its size: the analysis costs
 * no key any time (it runs on its own thread, and quitting stops it within a millisecond),
 * and little memory: on the 1,000,000-node formatted plan (233 MB) it holds about 11 MB
 * (one byte a node of scratch, a table index, at most 5,000 findings a rule) next to the
 * document's 367 MB, and takes about 2 s of the second core. */
#include "sparkplan/jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sparkplan/thread.h"

/* For the tests: SPARKPLAN_TEST_ANALYSIS_GATE=FILE holds the analysis back until FILE
 * exists, so a test can show that keys are answered while it runs, however fast or slow
 * the machine is. */
#define GATE_ENV "SPARKPLAN_TEST_ANALYSIS_GATE"

static struct job_doc *entry_of(struct jobs *j, const struct document *doc)
{
    for (size_t i = 0; i < j->n_docs; i++)  /* a handful of documents */
        if (j->docs[i].doc == doc)
            return &j->docs[i];
    if (j->n_docs == j->cap_docs) {
        size_t cap = j->cap_docs ? j->cap_docs * 2 : 4;
        struct job_doc *nd = realloc(j->docs, cap * sizeof *nd);
        if (!nd)
            return NULL;
        j->docs = nd;
        j->cap_docs = cap;
    }
    j->docs[j->n_docs] = (struct job_doc){doc, NULL, AN_NONE};
    return &j->docs[j->n_docs++];
}

static const struct job_doc *find(const struct jobs *j, const struct document *doc)
{
    for (size_t i = 0; i < j->n_docs; i++)  /* a handful of documents */
        if (j->docs[i].doc == doc)
            return &j->docs[i];
    return NULL;
}

static void *analysis_thread(void *arg)
{
    struct job *j = arg;
#ifdef __linux__
    /* Below the explorer and the terminal: on a machine of two cores the analysis would
     * otherwise take the CPU the terminal needs to show the first screen.  On Linux the
     * nice value is the thread's own (elsewhere it would be the whole process's). */
    setpriority(PRIO_PROCESS, 0, 10);
#endif
    while (j->gate && access(j->gate, F_OK) != 0 &&
           !atomic_load_explicit(&j->cancel, memory_order_relaxed)) { /* tests only; quit ends it */
        struct timespec ts = {0, 5000000L};
        nanosleep(&ts, NULL);
    }
    j->status = analyze_document_cancellable(j->doc, &j->cancel, &j->result, &j->err);
    ssize_t w;
    do
        w = write(j->wake_fd, "", 1);
    while (w < 0 && errno == EINTR);
    return NULL;
}

static bool open_wake_pipe(struct jobs *j)
{
    if (j->wake_open)
        return true;
    if (pipe(j->wake) != 0)
        return false;
    for (int i = 0; i < 2; i++)
        fcntl(j->wake[i], F_SETFD, FD_CLOEXEC);
    fcntl(j->wake[0], F_SETFL, fcntl(j->wake[0], F_GETFL) | O_NONBLOCK);
    j->wake_open = true;
    return true;
}

/* Starts the thread on d; false when no thread can be had. */
static bool job_start(struct jobs *js, struct job_doc *d)
{
    if (!open_wake_pipe(js))
        return false;
    struct job *j = &js->job;
    j->doc = d->doc;
    j->result = NULL;
    j->status = SP_OK;
    memset(&j->err, 0, sizeof j->err);
    atomic_store(&j->cancel, 0);
    j->gate = getenv(GATE_ENV);
    j->wake_fd = js->wake[1];
    if (!thread_start_quiet(&j->thread, analysis_thread, j))
        return false;
    j->running = true;
    d->state = AN_RUNNING;
    return true;
}

static void say_error(struct jobs_news *news, const char *message)
{
    if (news)
        snprintf(news->error, sizeof news->error, "%s", message);
}

/* Waits for the thread (it has written its byte, or was cancelled) and takes its result. */
static void job_finish(struct jobs *js, struct jobs_news *news)
{
    struct job *j = &js->job;
    pthread_join(j->thread, NULL);
    j->running = false;
    struct job_doc *d = entry_of(js, j->doc);
    if (!d) {
        analysis_free(j->result);
        return;
    }
    d->state = AN_DONE;
    d->a = j->result;
    if (j->status != SP_OK && j->status != SP_ERR_CANCELLED)
        say_error(news, j->err.message);
}

/* Starts the next analysis when the thread is free: the shown document's first.  When no
 * thread can be had, analyses it here and now (the old way: the key waits) and says so in
 * news. */
static void pump(struct jobs *j, const struct document *shown, struct jobs_news *news)
{
    if (j->held || j->job.running)
        return;
    struct job_doc *next = NULL;
    for (size_t i = 0; i < j->n_docs; i++)  /* a handful of documents */
        if (j->docs[i].state == AN_QUEUED && (!next || j->docs[i].doc == shown))
            next = &j->docs[i];
    if (!next || job_start(j, next))
        return;
    struct diag err = {0};
    next->state = AN_DONE;
    if (analyze_document(next->doc, &next->a, &err) != SP_OK)
        say_error(news, err.message);
    if (news->n_done < 2)
        news->done[news->n_done++] = next->doc;
}

void jobs_hold(struct jobs *j)
{
    j->held = true;
}

void jobs_ask(struct jobs *j, const struct document *doc, const struct document *shown,
              struct jobs_news *news)
{
    struct job_doc *d = entry_of(j, doc);
    if (d && d->state == AN_NONE) {
        d->state = AN_QUEUED;
        pump(j, shown, news);
    }
}

void jobs_release(struct jobs *j, const struct document *shown, struct jobs_news *news)
{
    j->held = false;
    struct job_doc *d = entry_of(j, shown);
    if (d && d->state == AN_NONE)
        d->state = AN_QUEUED;
    pump(j, shown, news);
}

int jobs_wake_fd(const struct jobs *j)
{
    return j->job.running ? j->wake[0] : -1;
}

void jobs_collect(struct jobs *j, const struct document *shown, struct jobs_news *news)
{
    char drain[16];
    while (read(j->wake[0], drain, sizeof drain) > 0) /* bounded: one byte a job */
        ;
    if (!j->job.running)
        return;
    const struct document *doc = j->job.doc;
    job_finish(j, news);
    news->done[news->n_done++] = doc;
    pump(j, shown, news); /* the next shown document, if any, then */
}

const struct analysis *jobs_known(const struct jobs *j, const struct document *doc)
{
    const struct job_doc *d = find(j, doc);
    return d ? d->a : NULL;
}

bool jobs_analysing(const struct jobs *j, const struct document *doc)
{
    const struct job_doc *d = find(j, doc);
    return d && (d->state == AN_QUEUED || d->state == AN_RUNNING);
}

void jobs_forget_key(struct jobs *j)
{
    j->pending = KA_NONE;
    j->pending_doc = NULL;
}

void jobs_free(struct jobs *j)
{
    if (j->job.running) {
        atomic_store(&j->job.cancel, 1);
        job_finish(j, NULL);
    }
    if (j->wake_open) {
        close(j->wake[0]);
        close(j->wake[1]);
    }
    for (size_t i = 0; i < j->n_docs; i++)
        analysis_free(j->docs[i].a);
    free(j->docs);
    memset(j, 0, sizeof *j);
}
