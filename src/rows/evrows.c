/* evrows.c: the query list's rows (evrows.h). */
#include "sparkplan/evrows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool evrows_init(struct evrows *r, const struct ev_app *app)
{
    memset(r, 0, sizeof *r);
    r->app = app;
    r->n = app->n_execs;
    r->order = malloc((r->n ? r->n : 1) * sizeof *r->order);
    if (!r->order)
        return false;
    for (size_t i = 0; i < r->n; i++)
        r->order[i] = i;
    return true;
}

void evrows_free(struct evrows *r)
{
    free(r->order);
    r->order = NULL;
    r->n = 0;
}

/* Duration for sorting: running queries last of all in ascending order. */
static int64_t duration_key(const struct ev_exec *e)
{
    return e->end >= 0 && e->start >= 0 ? e->end - e->start : INT64_MAX;
}

struct sort_key {
    int64_t key, id;   /* key: the duration, or the id again */
    size_t index;
};

static int cmp_keys(const void *a, const void *b)
{
    const struct sort_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

void evrows_sort(struct evrows *r, enum evrows_sort by, bool descending)
{
    size_t keep = r->n ? r->order[r->sel] : 0;
    struct sort_key *k = malloc((r->n ? r->n : 1) * sizeof *k);
    if (!k)
        return; /* the order stays as it was */
    for (size_t i = 0; i < r->n; i++) {
        const struct ev_exec *e = &r->app->execs[i];
        k[i] = (struct sort_key){by == EVROWS_BY_DURATION ? duration_key(e) : e->id, e->id, i};
    }
    qsort(k, r->n, sizeof *k, cmp_keys);
    for (size_t i = 0; i < r->n; i++)
        r->order[i] = k[descending ? r->n - 1 - i : i].index;
    free(k);
    r->sort = by;
    r->descending = descending;
    for (size_t i = 0; i < r->n; i++)
        if (r->order[i] == keep)
            r->sel = i;
}

const struct ev_exec *evrows_exec(const struct evrows *r, size_t row)
{
    return row < r->n ? &r->app->execs[r->order[row]] : NULL;
}

void evrows_move(struct evrows *r, long delta, size_t height)
{
    if (r->n == 0)
        return;
    long to = (long)r->sel + delta;
    r->sel = to < 0 ? 0 : (size_t)to >= r->n ? r->n - 1 : (size_t)to;
    if (height == 0)
        height = 1;
    if (r->sel < r->top)
        r->top = r->sel;
    else if (r->sel >= r->top + height)
        r->top = r->sel - height + 1;
}

/* Cuts s to width bytes at a UTF-8 boundary. */
static void cut(char *s, size_t width)
{
    size_t n = strlen(s);
    if (n <= width)
        return;
    while (width > 0 && ((unsigned char)s[width] & 0xc0) == 0x80)
        width--;
    s[width] = '\0';
}

void evrows_header(char *buf, size_t cap, size_t width)
{
    snprintf(buf, cap, "%5s  %9s  %-9s  %4s  %-26s  %s", "query", "duration", "status", "jobs",
             "hottest operator", "description");
    cut(buf, width);
}

void evrows_line(const struct evrows *r, size_t row, char *buf, size_t cap, size_t width)
{
    const struct ev_exec *e = evrows_exec(r, row);
    if (!e) {
        buf[0] = '\0';
        return;
    }
    char dur[32], hot[128] = "-", ms[32], desc[160];
    if (e->end >= 0 && e->start >= 0)
        sqlm_ms_string(e->end - e->start, dur, sizeof dur);
    else
        snprintf(dur, sizeof dur, "-");
    if (e->hottest) {
        sqlm_ms_string(e->hottest_ms, ms, sizeof ms);
        snprintf(hot, sizeof hot, "%.*s %s", (int)(plan_node_name(e->hottest).len > 16 ? 16 :
                 plan_node_name(e->hottest).len), plan_node_name(e->hottest).ptr, ms);
    }
    const char *d = e->description ? e->description : "";
    size_t dn = strcspn(d, "\r\n");
    snprintf(desc, sizeof desc, "%.*s", (int)(dn < sizeof desc - 1 ? dn : sizeof desc - 1), d);
    cut(hot, 26);
    snprintf(buf, cap, "%5lld  %9s  %-9s  %4zu  %-26s  %s", (long long)e->id, dur,
             ev_status_name(e->status), e->n_jobs, hot, desc);
    cut(buf, width);
}

void evrows_plan_label(const struct ev_exec *e, size_t i, char *buf, size_t cap)
{
    if (e->n_plans <= 1)
        snprintf(buf, cap, "Plan");
    else if (i == 0)
        snprintf(buf, cap, "Initial");
    else if (i + 1 == e->n_plans)
        snprintf(buf, cap, "Final");
    else
        snprintf(buf, cap, "Update %zu", i);
}
