/* runtime.c: lint rules over an event log's metrics (runtime.h). */
#include "sparkplan/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/nodeinfo.h"

struct rt_ctx {
    struct rt_findings *f;
    size_t cap;
    const struct ev_exec *e;
    const struct ev_plan *p;
    bool nomem;
};

static void add(struct rt_ctx *c, enum rule_id rule, const struct plan_node *n,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add(struct rt_ctx *c, enum rule_id rule, const struct plan_node *n,
                const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct rt_findings *f = c->f;
    if (f->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct rt_finding *nb = realloc(f->items, cap * sizeof *nb);
        if (!nb) {
            c->nomem = true;
            return;
        }
        f->items = nb, c->cap = cap;
    }
    struct rt_finding *x = &f->items[f->n++];
    x->rule = rule;
    x->severity = analyze_rules[rule].severity;
    x->exec = c->e;
    x->node = n;
    x->message = arena_strdup(&f->arena, msg);
    if (!x->message)
        c->nomem = true;
    if (x->severity == SEVERITY_WARNING)
        f->n_warnings++;
}

static bool name_is(const struct plan_node *n, const char *prefix)
{
    return slice_starts_with(plan_node_name(n), prefix);
}

static const struct sqlm_value *metric(const struct rt_ctx *c, const struct plan_node *n,
                                       const char *name)
{
    return ev_node_metric(c->e, c->p, n, name);
}

/* Rows a node produced: its own row count, else (Sort, Project, a query stage...) the first
 * node below it that has one.  -1 when none is known. */
static int64_t rows_out(const struct rt_ctx *c, const struct plan_node *n)
{
    for (; n; n = plan_node_first_child(n)) {
        const struct sqlm_value *v = metric(c, n, "number of output rows");
        if (!v)
            v = metric(c, n, "records read");
        if (v)
            return v->total;
    }
    return -1;
}

static void fmt_metric(enum sqlm_type t, int64_t v, char *buf, size_t cap)
{
    if (t == SQLM_SIZE)
        sqlm_bytes_string(v, buf, cap);
    else if (t == SQLM_TIMING || t == SQLM_NS_TIMING)
        sqlm_ms_string(t == SQLM_NS_TIMING ? v / 1000000 : v, buf, cap);
    else
        sqlm_count_string(v, buf, cap);
}

/* SP080: the worst metric whose max task is RT_SKEW_RATIO x its median and big enough. */
static void rule_skew(struct rt_ctx *c, const struct plan_node *n)
{
    struct ev_shown_metric m[64];
    size_t k = ev_node_metrics(c->e, c->p, n, m, 64);
    const struct ev_shown_metric *worst = NULL;
    double worst_ratio = 0;
    for (size_t i = 0; i < k && i < 64; i++) {
        const struct sqlm_value *v = m[i].value;
        bool time = v->type == SQLM_TIMING || v->type == SQLM_NS_TIMING;
        if (m[i].codegen || !v->max_from_task || v->n < 2 || (!time && v->type != SQLM_SIZE))
            continue;
        if (strstr(m[i].def->name, "spill") || strstr(m[i].def->name, "peak memory"))
            continue;
        int64_t mx = v->type == SQLM_NS_TIMING ? v->max / 1000000 : v->max;
        int64_t md = v->type == SQLM_NS_TIMING ? v->med / 1000000 : v->med;
        if (time ? mx < RT_SKEW_MIN_MS : mx < RT_SKEW_MIN_BYTES)
            continue;
        double ratio = md > 0 ? (double)mx / (double)md : 1e18;
        if (ratio >= RT_SKEW_RATIO && ratio > worst_ratio)
            worst = &m[i], worst_ratio = ratio;
    }
    if (!worst)
        return;
    const struct sqlm_value *v = worst->value;
    char mx[48], md[48];
    fmt_metric(v->type, v->max, mx, sizeof mx);
    fmt_metric(v->type, v->med, md, sizeof md);
    add(c, RULE_RT_SKEW, n,
        "%.*s: %s: the largest task (stage %d.%d, task %lld) has %s, the "
        "median task %s",
        (int)plan_node_name(n).len, plan_node_name(n).ptr, worst->def->name, v->max_stage,
        v->max_attempt, (long long)v->max_task, mx, md);
}

static void rule_spill(struct rt_ctx *c, const struct plan_node *n)
{
    const struct sqlm_value *v = metric(c, n, "spill size");
    if (!v || v->total <= 0)
        return;
    char b[48];
    sqlm_bytes_string(v->total, b, sizeof b);
    add(c, RULE_RT_SPILL, n, "%.*s spilled %s to disk", (int)plan_node_name(n).len,
        plan_node_name(n).ptr, b);
}

static void rule_join(struct rt_ctx *c, const struct plan_node *n)
{
    if (slice_find(plan_node_name(n), "Join") < 0 && !name_is(n, "CartesianProduct"))
        return;
    const struct sqlm_value *out = metric(c, n, "number of output rows");
    if (!out || out->total < RT_JOIN_MIN_ROWS)
        return;
    int64_t in_max = -1;
    for (const struct plan_node *ch = plan_node_first_child(n); ch;
         ch = plan_node_next_sibling(ch)) {
        int64_t r = rows_out(c, ch);
        if (r < 0)
            return; /* an input we cannot count: say nothing */
        if (r > in_max)
            in_max = r;
    }
    if (in_max < 0 || (double)out->total < (double)in_max * RT_JOIN_RATIO)
        return;
    char o[48], i[48];
    sqlm_count_string(out->total, o, sizeof o);
    sqlm_count_string(in_max, i, sizeof i);
    add(c, RULE_RT_JOIN_EXPLOSION, n, "%.*s produced %s rows from inputs of at most %s rows",
        (int)plan_node_name(n).len, plan_node_name(n).ptr, o, i);
}

static void rule_filter(struct rt_ctx *c, const struct plan_node *n)
{
    if (!name_is(n, "Filter") || !plan_node_first_child(n))
        return;
    const struct sqlm_value *out = metric(c, n, "number of output rows");
    int64_t in = rows_out(c, plan_node_first_child(n));
    if (!out || in < RT_FILTER_MIN_ROWS || (double)out->total < RT_FILTER_KEPT * (double)in)
        return;
    char o[48], i[48];
    sqlm_count_string(out->total, o, sizeof o);
    sqlm_count_string(in, i, sizeof i);
    add(c, RULE_RT_FILTER_KEPT_ALL, n, "Filter kept %s of %s rows (%.1f %%)", o, i,
        100.0 * (double)out->total / (double)in);
}

/* The shuffle's partition count before AQE read it: the Exchange below a reader. */
static int64_t partitions_below(const struct rt_ctx *c, const struct plan_node *n)
{
    for (n = plan_node_first_child(n); n; n = plan_node_first_child(n)) {
        const struct sqlm_value *v = metric(c, n, "number of partitions");
        if (v && name_is(n, "Exchange"))
            return v->total;
    }
    return -1;
}

static void rule_partitions(struct rt_ctx *c, const struct plan_node *n)
{
    if (name_is(n, "Exchange")) {
        const struct sqlm_value *v = metric(c, n, "records read");
        if (v && v->n >= RT_EMPTY_MIN_TASKS && v->med == 0 && v->total > 0)
            add(c, RULE_RT_EMPTY_PARTITIONS, n, "Exchange: at least half of its %u reduce "
                "tasks read no record (the median task read 0, the largest %lld)", v->n,
                (long long)v->max);
        return;
    }
    if (!name_is(n, "AQEShuffleRead") && !name_is(n, "CustomShuffleReader"))
        return;
    const struct sqlm_value *to = metric(c, n, "number of partitions");
    int64_t from = partitions_below(c, n);
    if (to && from > 0 && to->total < from)
        add(c, RULE_RT_COALESCED, n, "%.*s: AQE coalesced %lld shuffle partitions into %lld",
            (int)plan_node_name(n).len, plan_node_name(n).ptr, (long long)from,
            (long long)to->total);
}

static void rule_broadcast(struct rt_ctx *c, const struct plan_node *n)
{
    if (!name_is(n, "BroadcastExchange"))
        return;
    const struct sqlm_value *v = metric(c, n, "data size");
    if (!v || v->total < RT_BROADCAST_BYTES)
        return;
    char b[48];
    sqlm_bytes_string(v->total, b, sizeof b);
    add(c, RULE_RT_BROADCAST_SIZE, n, "BroadcastExchange broadcast %s", b);
}

static void rule_scan(struct rt_ctx *c, const struct plan_node *n)
{
    const struct sqlm_value *parts = metric(c, n, "number of partitions read");
    const struct sqlm_value *files = metric(c, n, "number of files read");
    const struct sqlm_value *stat = metric(c, n, "static number of files read");
    struct slice pf = node_field(n, "PartitionFilters");
    bool has_pf = pf.ptr && !node_list_is_empty(pf);
    if (parts && parts->total >= RT_SCAN_MANY_PARTITIONS) {
        add(c, RULE_RT_SCAN_PRUNING, n, "%.*s read %lld partitions%s", (int)plan_node_name(n).len,
            plan_node_name(n).ptr, (long long)parts->total,
            has_pf ? " although it has PartitionFilters" : " and has no PartitionFilters");
        return;
    }
    if (stat && files && stat->total > 0 && files->total >= stat->total &&
        slice_find(pf, "dynamicpruning") >= 0) {
        add(c, RULE_RT_SCAN_PRUNING, n, "%.*s: dynamic partition pruning left all %lld files",
            (int)plan_node_name(n).len, plan_node_name(n).ptr, (long long)files->total);
        return;
    }
    if (files && files->total >= RT_SCAN_MANY_FILES)
        add(c, RULE_RT_SCAN_PRUNING, n, "%.*s read %lld files", (int)plan_node_name(n).len,
            plan_node_name(n).ptr, (long long)files->total);
}

enum sp_status analyze_runtime(const struct ev_app *app, struct rt_findings **out,
                               struct diag *err)
{
    struct rt_findings *f = calloc(1, sizeof *f);
    *out = NULL;
    if (!f) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    arena_init(&f->arena);
    struct rt_ctx c = {f, 0, NULL, NULL, false};
    for (size_t i = 0; i < app->n_execs && !c.nomem; i++) {
        c.e = &app->execs[i];
        c.p = ev_exec_final(c.e);
        if (!c.p || !c.p->section || !c.e->n_values)
            continue;
        for (uint32_t k = 0; k < c.p->section->n_nodes && !c.nomem; k++) {
            const struct plan_node *n = plan_section_node(c.p->section, k);
            if (!c.p->side[k].info)
                continue;
            rule_skew(&c, n);
            rule_spill(&c, n);
            rule_join(&c, n);
            rule_filter(&c, n);
            rule_partitions(&c, n);
            rule_broadcast(&c, n);
            if (slice_starts_with(plan_node_name(n), "Scan") ||
                slice_starts_with(plan_node_name(n), "FileScan"))
                rule_scan(&c, n);
        }
    }
    if (c.nomem) {
        rt_findings_free(f);
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    *out = f;
    return SP_OK;
}

void rt_findings_free(struct rt_findings *f)
{
    if (!f)
        return;
    free(f->items);
    arena_free(&f->arena);
    free(f);
}
