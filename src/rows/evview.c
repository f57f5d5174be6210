/* evview.c: an event log's side of the explorer, curses-free (evview.h). */
#include "sparkplan/evview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool evview_init(struct evview *v, const struct ev_app *app)
{
    memset(v, 0, sizeof *v);
    v->app = app;
    size_t n = 0;
    for (size_t i = 0; i < app->n_execs; i++)
        n += app->execs[i].n_plans;
    v->docs = calloc(n ? n : 1, sizeof *v->docs);
    struct diag err = {0};
    if (!v->docs || analyze_runtime(app, &v->rt, &err) != SP_OK) {
        free(v->docs);
        v->docs = NULL;
        return false;
    }
    for (size_t i = 0; i < app->n_execs; i++) {
        const struct ev_exec *e = &app->execs[i];
        for (size_t k = 0; k < e->n_plans; k++) {
            if (!e->plans[k].doc)
                continue;
            v->docs[v->n_docs++] = (struct evview_doc){e->plans[k].doc, e, &e->plans[k],
                                                       ev_plan_max_time_ms(e, &e->plans[k])};
        }
    }
    return true;
}

void evview_free(struct evview *v)
{
    rt_findings_free(v->rt);
    free(v->docs);
    memset(v, 0, sizeof *v);
}

const struct evview_doc *evview_find(const struct evview *v, const struct document *doc)
{
    for (size_t i = 0; i < v->n_docs; i++) /* a few hundred at most: queries x versions */
        if (v->docs[i].doc == doc)
            return &v->docs[i];
    return NULL;
}

static const struct evview_doc *doc_of(const struct evview *v, const struct plan_node *n)
{
    return n && n->section && n->section->plan ? evview_find(v, n->section->plan->doc) : NULL;
}

/* "12,345 rows" below 100,000, else "123.4K rows", "29.5M rows", "1.2G rows". */
static void rows_text(int64_t rows, char *buf, size_t cap)
{
    static const char units[] = "KMGT";
    if (rows < 100000) {
        char n[32];
        sqlm_count_string(rows, n, sizeof n);
        snprintf(buf, cap, "%s rows", n);
        return;
    }
    double x = (double)rows;
    int u = -1;
    while (x >= 1000.0 && u < 3)
        x /= 1000.0, u++;
    snprintf(buf, cap, "%.1f%c rows", x, units[u]);
}

static const struct sqlm_value *first_of(const struct evview_doc *d, const struct plan_node *n,
                                         const char *const *names)
{
    for (; *names; names++) {
        const struct sqlm_value *v = ev_node_metric(d->exec, d->plan, n, *names);
        if (v)
            return v;
    }
    return NULL;
}

static int worst_finding(const struct evview *v, const struct plan_node *n)
{
    int worst = -1;
    for (size_t i = 0; v->rt && i < v->rt->n; i++)
        if (v->rt->items[i].node == n && (int)v->rt->items[i].severity > worst)
            worst = (int)v->rt->items[i].severity;
    return worst;
}

void evview_row(const struct evview *v, const struct plan_node *n, char *right, size_t cap,
                size_t width, int *heat, int *severity)
{
    static const char *const rows[] = {"number of output rows", "records read", NULL};
    static const char *const sizes[] = {"data size", "size of files read",
                                        "shuffle bytes written", "partition data size", NULL};
    static const char *const spills[] = {"spill size", NULL};
    const struct evview_doc *d = doc_of(v, n);
    right[0] = '\0';
    *heat = 0;
    *severity = -1;
    if (!d)
        return;
    char piece[4][48];
    int k = 0;
    const struct sqlm_value *x = first_of(d, n, rows);
    if (x)
        rows_text(x->total, piece[k++], sizeof piece[0]);
    int64_t ms = ev_node_time_ms(d->exec, d->plan, n);
    if (ms > 0)
        sqlm_ms_string(ms, piece[k++], sizeof piece[0]);
    if ((x = first_of(d, n, sizes)) != NULL)
        sqlm_bytes_string(x->total, piece[k++], sizeof piece[0]);
    if ((x = first_of(d, n, spills)) != NULL && x->total > 0) {
        char b[32];
        sqlm_bytes_string(x->total, b, sizeof b);
        snprintf(piece[k++], sizeof piece[0], "spill %s", b);
    }
    /* as many pieces as fit, in order */
    size_t len = 0;
    for (int i = 0; i < k; i++) {
        size_t add = strlen(piece[i]) + (len ? 2 : 0);
        if (len + add > width || len + add + 1 > cap)
            break;
        len += (size_t)snprintf(right + len, cap - len, "%s%s", len ? "  " : "", piece[i]);
    }
    *heat = ev_node_heat(d->exec, d->plan, n, d->hottest_ms);
    *severity = worst_finding(v, n);
}

size_t evview_details(const struct evview *v, const struct plan_node *n,
                      void (*add)(void *ctx, size_t key_len, const char *line), void *ctx)
{
    const struct evview_doc *d = doc_of(v, n);
    if (!d)
        return 0;
    struct ev_shown_metric m[128];
    size_t k = ev_node_metrics(d->exec, d->plan, n, m, 128), lines = 0;
    char buf[512];
    for (size_t i = 0; i < k && i < 128; i++) {
        ev_metric_label(&m[i], buf, sizeof buf);
        /* the value's second line ("1.2 s (...)") is its own line */
        char *nl = strchr(buf, '\n');
        size_t key = strlen(m[i].def->name) + (m[i].codegen ? 14 : 0);
        if (nl) {
            *nl = '\0';
            add(ctx, key, buf);
            add(ctx, 0, nl + 1);
            lines += 2;
        } else {
            add(ctx, key, buf);
            lines++;
        }
    }
    for (size_t i = 0; v->rt && i < v->rt->n; i++) {
        const struct rt_finding *f = &v->rt->items[i];
        if (f->node != n)
            continue;
        const struct rule *r = &analyze_rules[f->rule];
        snprintf(buf, sizeof buf, "%s %s: %s. %s", r->id, severity_name(f->severity),
                 f->message, r->todo);
        add(ctx, strlen(r->id), buf);
        lines++;
    }
    return lines;
}
