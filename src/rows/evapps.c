/* evapps.c: a History Server directory's application list, its briefs read on a thread
 * (evapps.h). */
#include "sparkplan/evapps.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sparkplan/sqlmetric.h"
#include "sparkplan/thread.h"

static void *read_briefs(void *arg)
{
    struct evapps *a = arg;
    for (size_t i = 0; i < a->src->n_apps; i++) {
        if (atomic_load(&a->stop))
            break;
        struct diag err = {0};
        if (evload_brief(&a->src->apps[i], &a->stop, &a->briefs[i], &err) != SP_OK) {
            a->failed[i] = true;
            snprintf(a->briefs[i].name, sizeof a->briefs[i].name, "%.90s", err.message);
        }
        atomic_store_explicit(&a->ready, i + 1, memory_order_release);
        char byte = 1;
        ssize_t w = write(a->wake[1], &byte, 1); /* a full pipe already says "look" */
        (void)w;
    }
    return NULL;
}

bool evapps_start(struct evapps *a, const struct ev_source *src)
{
    memset(a, 0, sizeof *a);
    a->src = src;
    a->wake[0] = a->wake[1] = -1;
    size_t n = src->n_apps ? src->n_apps : 1;
    a->briefs = calloc(n, sizeof *a->briefs);
    a->failed = calloc(n, sizeof *a->failed);
    if (!a->briefs || !a->failed || pipe(a->wake) != 0) {
        evapps_stop(a);
        return false;
    }
    fcntl(a->wake[0], F_SETFL, fcntl(a->wake[0], F_GETFL) | O_NONBLOCK);
    fcntl(a->wake[1], F_SETFL, fcntl(a->wake[1], F_GETFL) | O_NONBLOCK);
    a->running = thread_start_quiet(&a->thread, read_briefs, a);
    if (!a->running) {
        evapps_stop(a);
        return false;
    }
    return true;
}

void evapps_stop(struct evapps *a)
{
    atomic_store(&a->stop, true);
    if (a->running)
        pthread_join(a->thread, NULL);
    a->running = false;
    for (int i = 0; i < 2; i++)
        if (a->wake[i] >= 0)
            close(a->wake[i]);
    a->wake[0] = a->wake[1] = -1;
    free(a->briefs);
    free(a->failed);
    a->briefs = NULL;
    a->failed = NULL;
}

size_t evapps_ready(const struct evapps *a)
{
    return atomic_load_explicit(&((struct evapps *)a)->ready, memory_order_acquire);
}

int evapps_wake_fd(const struct evapps *a)
{
    return a->src && evapps_ready(a) < a->src->n_apps ? a->wake[0] : -1;
}

void evapps_drain(struct evapps *a)
{
    char buf[64];
    while (a->wake[0] >= 0 && read(a->wake[0], buf, sizeof buf) > 0)
        ;
}

static void cut(char *s, size_t width)
{
    if (strlen(s) <= width)
        return;
    while (width > 0 && ((unsigned char)s[width] & 0xc0) == 0x80)
        width--;
    s[width] = '\0';
}

#define ROW_FORMAT "%-28s  %-20s  %-16s  %-16s  %9s  %7s"

void evapps_header(char *buf, size_t cap, size_t width)
{
    snprintf(buf, cap, ROW_FORMAT, "application", "name", "Spark", "start (UTC)", "duration",
             "queries");
    cut(buf, width);
}

/* s with control bytes made spaces and cut to n bytes (a column). */
static void column(char *dst, size_t n, const char *s)
{
    snprintf(dst, n + 1, "%s", s);
    for (char *p = dst; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = ' ';
    cut(dst, n);
}

void evapps_line(const struct evapps *a, size_t i, char *buf, size_t cap, size_t width)
{
    char id[29], name[21], version[17], start[17] = "-", dur[32] = "-", queries[16] = "-";
    const char *file = a->src->apps[i].name;
    const char *base = strrchr(file, '/');
    base = base && base[1] ? base + 1 : file;
    if (i >= evapps_ready(a)) {
        column(id, 28, base);
        snprintf(buf, cap, ROW_FORMAT, id, "reading...", "", "", "", "");
        cut(buf, width);
        return;
    }
    const struct ev_brief *b = &a->briefs[i];
    column(id, 28, b->id[0] && !a->failed[i] ? b->id : base);
    column(name, 20, b->name);
    column(version, 16, b->version[0] ? b->version : "?");
    if (b->start >= 0) {
        time_t s = (time_t)(b->start / 1000);
        struct tm tm;
        if (gmtime_r(&s, &tm))
            strftime(start, sizeof start, "%Y-%m-%d %H:%M", &tm);
    }
    if (a->failed[i])
        snprintf(dur, sizeof dur, "unreadable");
    else if (b->start >= 0 && b->end >= b->start)
        sqlm_ms_string(b->end - b->start, dur, sizeof dur);
    else if (b->in_progress)
        snprintf(dur, sizeof dur, "running");
    if (!a->failed[i])
        snprintf(queries, sizeof queries, "%zu", b->n_queries);
    snprintf(buf, cap, ROW_FORMAT, id, name, version, start, dur, queries);
    cut(buf, width);
}
