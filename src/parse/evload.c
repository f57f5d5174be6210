/* evload.c: event log -> application model, one event at a time (evload.h). */
#include "sparkplan/evload.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/load.h"
#include "evtask.h"

/* Execution ids below this are looked up in an array; larger ones by a linear search. */
#define DIRECT_IDS (1u << 20)

struct loader {
    struct ev_app *app;
    struct sqll *sqll;
    struct ev_lines *lines;
    const char *const *files;
    struct evtask task;        /* TaskEnd fields, reused line after line */
    int32_t *by_id;            /* exec id -> index + 1 (0: none) */
    size_t by_id_cap;
    bool nomem;
    bool brief;                /* evload_brief: the application's events, SQL starts counted */
    size_t n_sql_starts;
    const atomic_bool *stop;   /* evload_brief: set from another thread to stop reading */
};

static const char *file_of(const struct loader *L)
{
    return L->files ? L->files[ev_lines_file(L->lines)] : L->app->name_shown;
}

static void warn(struct loader *L, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warn(struct loader *L, uint64_t line, const char *fmt, ...)
{
    struct ev_app *app = L->app;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (app->n_warnings >= 1000) /* a log of garbage: the first thousand say enough */
        return;
    if (app->n_warnings == app->cap_warnings) {
        size_t cap = app->cap_warnings ? app->cap_warnings * 2 : 8;
        struct ev_warning *nb = realloc(app->warnings, cap * sizeof *nb);
        if (!nb) {
            L->nomem = true;
            return;
        }
        app->warnings = nb, app->cap_warnings = cap;
    }
    struct ev_warning *w = &app->warnings[app->n_warnings++];
    w->file = arena_strdup(&app->arena, file_of(L));
    w->line = line;
    w->message = arena_strdup(&app->arena, msg);
}

/* ---- JSON helpers ------------------------------------------------------------------------------ */

static const cJSON *get(const cJSON *o, const char *key)
{
    return o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static int64_t get_i64(const cJSON *o, const char *key, int64_t dflt)
{
    const cJSON *v = get(o, key);
    if (cJSON_IsNumber(v))
        return (int64_t)v->valuedouble;
    if (cJSON_IsString(v) && v->valuestring[0]) {
        char *end;
        long long x = strtoll(v->valuestring, &end, 10);
        return *end ? dflt : (int64_t)x;
    }
    return dflt;
}

static bool get_bool(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(get(o, key));
}

static const char *get_str(struct loader *L, const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    if (!cJSON_IsString(v))
        return NULL;
    const char *s = arena_strdup(&L->app->arena, v->valuestring);
    if (!s)
        L->nomem = true;
    return s;
}

/* ---- executions ------------------------------------------------------------------------------- */

static struct ev_exec *exec_find(struct loader *L, int64_t id)
{
    if (id >= 0 && (uint64_t)id < DIRECT_IDS) {
        if ((size_t)id < L->by_id_cap && L->by_id[id])
            return &L->app->execs[L->by_id[id] - 1];
        return NULL;
    }
    for (size_t i = 0; i < L->app->n_execs; i++)
        if (L->app->execs[i].id == id)
            return &L->app->execs[i];
    return NULL;
}

static struct ev_exec *exec_new(struct loader *L, int64_t id)
{
    struct ev_app *app = L->app;
    if (id >= 0 && (uint64_t)id < DIRECT_IDS && (size_t)id >= L->by_id_cap) {
        size_t cap = L->by_id_cap ? L->by_id_cap : 64;
        while (cap <= (size_t)id)
            cap *= 2;
        int32_t *nb = realloc(L->by_id, cap * sizeof *nb);
        if (!nb)
            return L->nomem = true, NULL;
        memset(nb + L->by_id_cap, 0, (cap - L->by_id_cap) * sizeof *nb);
        L->by_id = nb, L->by_id_cap = cap;
    }
    if (app->n_execs == app->cap_execs) {
        size_t cap = app->cap_execs ? app->cap_execs * 2 : 16;
        struct ev_exec *nb = realloc(app->execs, cap * sizeof *nb);
        if (!nb)
            return L->nomem = true, NULL;
        app->execs = nb, app->cap_execs = cap;
    }
    struct ev_exec *e = &app->execs[app->n_execs++];
    memset(e, 0, sizeof *e);
    e->id = id;
    e->root_id = -1;
    e->start = e->end = -1;
    if (id >= 0 && (uint64_t)id < DIRECT_IDS)
        L->by_id[id] = (int32_t)app->n_execs;
    return e;
}

/* ---- sparkPlanInfo ------------------------------------------------------------------------------ */

static bool info_metrics(struct loader *L, struct ev_info *n, const cJSON *metrics, int64_t exec)
{
    int count = cJSON_GetArraySize(metrics);
    if (count <= 0)
        return true;
    n->metrics = arena_alloc(&L->app->arena, (size_t)count * sizeof *n->metrics);
    if (!n->metrics)
        return false;
    const cJSON *m;
    cJSON_ArrayForEach(m, metrics) {
        struct ev_metric *d = &n->metrics[n->n_metrics];
        d->name = get_str(L, m, "name");
        d->type_name = get_str(L, m, "metricType");
        d->acc_id = get_i64(m, "accumulatorId", -1);
        if (!d->name || !d->type_name || d->acc_id < 0)
            continue;
        d->type = sqlm_type_parse(d->type_name);
        if (!sqll_exec_metric(L->sqll, exec, d->acc_id, d->type, sqlm_name_is_spark2(d->name)))
            return false;
        n->n_metrics++;
    }
    return true;
}

/* Builds the info tree without recursion: a queue of (JSON node, its model node). */
static struct ev_info *info_tree(struct loader *L, const cJSON *root, int64_t exec)
{
    if (!cJSON_IsObject(root))
        return NULL;
    size_t cap = 64, head = 0, tail = 0;
    const cJSON **q = malloc(cap * sizeof *q);
    struct ev_info **qn = malloc(cap * sizeof *qn);
    struct ev_info *top = arena_alloc(&L->app->arena, sizeof *top);
    bool ok = q && qn && top;
    if (ok)
        q[tail] = root, qn[tail++] = top;
    while (ok && head < tail) {
        const cJSON *j = q[head];
        struct ev_info *n = qn[head++];
        const char *name = get_str(L, j, "nodeName");
        n->node_name = name ? name : "";
        n->simple = get_str(L, j, "simpleString");
        ok = info_metrics(L, n, get(j, "metrics"), exec);
        struct ev_info *last = NULL;
        const cJSON *c;
        cJSON_ArrayForEach(c, get(j, "children")) {
            if (!ok)
                break;
            struct ev_info *k = arena_alloc(&L->app->arena, sizeof *k);
            if (!k || !cJSON_IsObject(c)) {
                ok = k != NULL;
                continue;
            }
            k->parent = n;
            if (last)
                last->next_sibling = k;
            else
                n->first_child = k;
            last = k;
            if (tail == cap) {
                cap *= 2;
                const cJSON **nq = realloc(q, cap * sizeof *q);
                if (nq)
                    q = nq;
                struct ev_info **nn = realloc(qn, cap * sizeof *qn);
                if (nn)
                    qn = nn;
                if (!nq || !nn) {
                    ok = false;
                    break;
                }
            }
            q[tail] = c, qn[tail++] = k;
        }
    }
    free(q);
    free(qn);
    if (!ok)
        L->nomem = true;
    return ok ? top : NULL;
}

/* ---- plan versions ---------------------------------------------------------------------------- */

static struct ev_plan *plan_add(struct loader *L, struct ev_exec *e)
{
    if (e->n_plans == e->cap_plans) {
        size_t cap = e->cap_plans ? e->cap_plans * 2 : 2;
        struct ev_plan *nb = realloc(e->plans, cap * sizeof *nb);
        if (!nb)
            return L->nomem = true, NULL;
        e->plans = nb, e->cap_plans = cap;
    }
    for (size_t i = 0; i < e->n_plans; i++)
        e->plans[i].final = false;
    struct ev_plan *p = &e->plans[e->n_plans];
    memset(p, 0, sizeof *p);
    p->index = (uint32_t)e->n_plans++;
    p->kind = p->index ? EV_PLAN_UPDATE : EV_PLAN_START;
    p->final = true;
    p->log_line = ev_lines_lineno(L->lines);
    return p;
}

static void plan_fill(struct loader *L, struct ev_exec *e, struct ev_plan *p, const cJSON *ev)
{
    const cJSON *text = get(ev, "physicalPlanDescription");
    p->info = info_tree(L, get(ev, "sparkPlanInfo"), e->id);
    if (!cJSON_IsString(text) || !text->valuestring[0])
        return;
    size_t len = strlen(text->valuestring);
    char *bytes = malloc(len + 1);
    if (!bytes) {
        L->nomem = true;
        return;
    }
    memcpy(bytes, text->valuestring, len + 1);
    char name[96];
    if (p->index == 0)
        snprintf(name, sizeof name, "query %lld", (long long)e->id);
    else
        snprintf(name, sizeof name, "query %lld update %u", (long long)e->id, p->index);
    struct diag err = {0};
    enum sp_status s = load_bytes(arena_strdup(&L->app->arena, name), bytes, len, &p->doc, &err);
    if (s == SP_ERR_NOMEM)
        L->nomem = true;
    else if (s != SP_OK)
        warn(L, p->log_line, "%s: plan text not read: %s", name, err.message);
    if (p->doc && !ev_plan_align(p, &L->app->arena))
        L->nomem = true;
}

/* ---- events ------------------------------------------------------------------------------------ */

static void on_sql_start(struct loader *L, const cJSON *ev)
{
    int64_t id = get_i64(ev, "executionId", -1);
    if (id < 0)
        return warn(L, ev_lines_lineno(L->lines), "SQLExecutionStart without an executionId");
    struct ev_exec *e = exec_find(L, id);
    if (!e && !(e = exec_new(L, id)))
        return;
    e->description = get_str(L, ev, "description");
    e->details = get_str(L, ev, "details");
    e->start = get_i64(ev, "time", -1);
    e->root_id = get_i64(ev, "rootExecutionId", -1);
    e->log_line = ev_lines_lineno(L->lines);
    e->log_file = ev_lines_file(L->lines);
    struct ev_plan *p = plan_add(L, e);
    if (p)
        plan_fill(L, e, p, ev);
}

static void on_aqe_update(struct loader *L, const cJSON *ev)
{
    int64_t id = get_i64(ev, "executionId", -1);
    struct ev_exec *e = exec_find(L, id);
    if (!e && (id < 0 || !(e = exec_new(L, id))))
        return;
    struct ev_plan *p = plan_add(L, e);
    if (p)
        plan_fill(L, e, p, ev);
}

static void on_aqe_metrics(struct loader *L, const cJSON *ev)
{
    int64_t id = get_i64(ev, "executionId", -1);
    const cJSON *m;
    cJSON_ArrayForEach(m, get(ev, "sqlPlanMetrics")) {
        int64_t acc = get_i64(m, "accumulatorId", -1);
        const cJSON *t = get(m, "metricType"), *name = get(m, "name");
        if (acc >= 0 && cJSON_IsString(t) &&
            !sqll_exec_metric(L->sqll, id, acc, sqlm_type_parse(t->valuestring),
                              cJSON_IsString(name) && sqlm_name_is_spark2(name->valuestring)))
            L->nomem = true;
    }
}

static void on_driver_updates(struct loader *L, const cJSON *ev)
{
    int64_t id = get_i64(ev, "executionId", -1);
    const cJSON *pair;
    cJSON_ArrayForEach(pair, get(ev, "accumUpdates")) {
        const cJSON *a = cJSON_GetArrayItem(pair, 0), *v = cJSON_GetArrayItem(pair, 1);
        if (cJSON_IsNumber(a) && cJSON_IsNumber(v) &&
            !sqll_driver_update(L->sqll, id, (int64_t)a->valuedouble, (int64_t)v->valuedouble))
            L->nomem = true;
    }
}

static void finish_exec(struct loader *L, struct ev_exec *e)
{
    bool nomem;
    e->values = sqll_exec_finish(L->sqll, e->id, &L->app->arena, &e->n_values, &nomem);
    size_t n;
    const int32_t *st = sqll_exec_stages(L->sqll, e->id, &n);
    if (st && !e->stages) {
        e->stages = malloc(n * sizeof *st);
        if (e->stages)
            memcpy(e->stages, st, n * sizeof *st), e->n_stages = n;
    }
    if (nomem)
        L->nomem = true;
    ev_exec_find_hottest(e);
}

static void on_sql_end(struct loader *L, const cJSON *ev)
{
    struct ev_exec *e = exec_find(L, get_i64(ev, "executionId", -1));
    if (!e)
        return;
    e->end = get_i64(ev, "time", -1);
    const char *err = get_str(L, ev, "errorMessage");
    bool job_failed = false;
    for (size_t i = 0; i < e->n_jobs; i++)
        job_failed = job_failed || e->job_failed[i];
    e->status = (err && *err) || job_failed ? EV_FAILED : EV_SUCCEEDED;
    e->error = err && *err ? err : NULL;
    finish_exec(L, e);
}

static void on_job_start(struct loader *L, const cJSON *ev)
{
    const cJSON *props = get(ev, "Properties");
    int64_t id = get_i64(props, "spark.sql.execution.id", -1);
    if (id < 0)
        return;
    struct ev_exec *e = exec_find(L, id);
    if (!e && !(e = exec_new(L, id)))
        return;
    int n = cJSON_GetArraySize(get(ev, "Stage Infos"));
    int32_t *ids = malloc(((size_t)n + 1) * sizeof *ids);
    uint32_t *tasks = malloc(((size_t)n + 1) * sizeof *tasks);
    int64_t *jobs = realloc(e->jobs, (e->n_jobs + 1) * sizeof *jobs);
    if (jobs)
        e->jobs = jobs;
    bool *failed = realloc(e->job_failed, (e->n_jobs + 1) * sizeof *failed);
    if (failed)
        e->job_failed = failed;
    if (!ids || !tasks || !jobs || !failed) {
        free(ids), free(tasks);
        L->nomem = true;
        return;
    }
    e->jobs[e->n_jobs] = get_i64(ev, "Job ID", -1);
    e->job_failed[e->n_jobs++] = false;
    size_t k = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, get(ev, "Stage Infos")) {
        int64_t sid = get_i64(s, "Stage ID", -1), nt = get_i64(s, "Number of Tasks", 0);
        if (sid >= 0 && nt >= 0 && nt < (1 << 28))
            ids[k] = (int32_t)sid, tasks[k++] = (uint32_t)nt;
    }
    if (!sqll_job_start(L->sqll, id, ids, tasks, k))
        L->nomem = true;
    free(ids);
    free(tasks);
}

static void on_job_end(struct loader *L, const cJSON *ev)
{
    int64_t job = get_i64(ev, "Job ID", -1);
    const cJSON *res = get(get(ev, "Job Result"), "Result");
    bool failed = cJSON_IsString(res) && strcmp(res->valuestring, "JobSucceeded") != 0;
    /* the latest executions first: a job belongs to one that is still running */
    for (size_t i = L->app->n_execs; i-- > 0;) {
        struct ev_exec *e = &L->app->execs[i];
        for (size_t j = 0; j < e->n_jobs; j++)
            if (e->jobs[j] == job) {
                e->job_failed[j] = failed;
                return;
            }
    }
}

static void on_task_end(struct loader *L, const cJSON *ev)
{
    const cJSON *info = get(ev, "Task Info");
    const cJSON *accs = get(info, "Accumulables");
    int n = cJSON_GetArraySize(accs);
    if (n <= 0)
        return;
    int64_t ids_buf[64], upd_buf[64];
    int64_t *ids = n <= 64 ? ids_buf : malloc((size_t)n * sizeof *ids);
    int64_t *upd = n <= 64 ? upd_buf : malloc((size_t)n * sizeof *upd);
    if (!ids || !upd) {
        if (ids != ids_buf)
            free(ids);
        if (upd != upd_buf)
            free(upd);
        L->nomem = true;
        return;
    }
    size_t k = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, accs) {
        int64_t id = get_i64(a, "ID", -1);
        const cJSON *u = get(a, "Update");
        if (id < 0 || !u)
            continue;
        int64_t v;
        if (cJSON_IsString(u)) {
            char *end;
            v = strtoll(u->valuestring, &end, 10);
            if (end == u->valuestring || *end)
                continue;
        } else if (cJSON_IsNumber(u)) {
            v = (int64_t)u->valuedouble;
        } else {
            continue;
        }
        ids[k] = id, upd[k++] = v;
    }
    int64_t index = get_i64(info, "Index", -1);
    bool ok_task = get_i64(info, "Finish Time", 0) != 0 && !get_bool(info, "Failed") &&
                   !get_bool(info, "Killed");
    if (index >= 0 && index <= UINT32_MAX &&
        !sqll_task_end(L->sqll, (int32_t)get_i64(ev, "Stage ID", -1),
                       (int32_t)get_i64(ev, "Stage Attempt ID", 0), get_i64(info, "Task ID", -1),
                       (uint32_t)index, ok_task, ids, upd, k))
        L->nomem = true;
    if (ids != ids_buf)
        free(ids);
    if (upd != upd_buf)
        free(upd);
}

static void on_stage_submitted(struct loader *L, const cJSON *ev)
{
    const cJSON *info = get(ev, "Stage Info");
    sqll_stage_submitted(L->sqll, (int32_t)get_i64(info, "Stage ID", -1),
                         (int32_t)get_i64(info, "Stage Attempt ID", 0));
}

static void set_version(struct loader *L, const char *v, bool databricks)
{
    if (!v || !*v || (L->app->spark_version && !databricks))
        return;
    L->app->spark_version = arena_strdup(&L->app->arena, v);
    L->app->databricks = databricks;
}

static void on_environment(struct loader *L, const cJSON *ev)
{
    const cJSON *v = get(get(ev, "Spark Properties"), "spark.databricks.clusterUsageTags.sparkVersion");
    if (cJSON_IsString(v))
        set_version(L, v->valuestring, true);
}

/* ---- dispatch --------------------------------------------------------------------------------- */

enum ev_kind {
    K_SKIP, K_LOG_START, K_APP_START, K_APP_END, K_ENV, K_DBC_META, K_JOB_START, K_JOB_END,
    K_STAGE_SUBMITTED, K_TASK_END, K_SQL_START, K_SQL_END, K_AQE_UPDATE, K_AQE_METRICS,
    K_DRIVER_UPDATES,
};

/* The event's kind from its name: the line's start, without parsing the JSON. */
static enum ev_kind event_kind(struct slice line, bool *is_event)
{
    static const struct { const char *name; enum ev_kind kind; } kinds[] = {
        {"SparkListenerTaskEnd", K_TASK_END},
        {"SparkListenerStageSubmitted", K_STAGE_SUBMITTED},
        {"SparkListenerJobStart", K_JOB_START},
        {"SparkListenerJobEnd", K_JOB_END},
        {"SparkListenerLogStart", K_LOG_START},
        {"SparkListenerApplicationStart", K_APP_START},
        {"SparkListenerApplicationEnd", K_APP_END},
        {"SparkListenerEnvironmentUpdate", K_ENV},
        {"DBCEventLoggingListenerMetadata", K_DBC_META},
        {"SparkListenerSQLExecutionStart", K_SQL_START},
        {"SparkListenerSQLExecutionEnd", K_SQL_END},
        {"SparkListenerSQLAdaptiveExecutionUpdate", K_AQE_UPDATE},
        {"SparkListenerSQLAdaptiveSQLMetricUpdates", K_AQE_METRICS},
        {"SparkListenerDriverAccumUpdates", K_DRIVER_UPDATES},
    };
    static const char head[] = "{\"Event\":\"";
    *is_event = slice_starts_with(line, head);
    if (!*is_event)
        return K_SKIP;
    const char *name = line.ptr + sizeof head - 1;
    const char *end = memchr(name, '"', line.len - (sizeof head - 1));
    if (!end)
        return *is_event = false, K_SKIP;
    const char *dot = name;
    for (const char *p = name; p < end; p++) /* the last dotted part */
        if (*p == '.')
            dot = p + 1;
    size_t n = (size_t)(end - dot);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strlen(kinds[i].name) == n && memcmp(kinds[i].name, dot, n) == 0)
            return kinds[i].kind;
    return K_SKIP;
}

static void dispatch(struct loader *L, enum ev_kind k, const cJSON *ev)
{
    struct ev_app *app = L->app;
    switch (k) {
    case K_LOG_START: set_version(L, get_str(L, ev, "Spark Version"), false); break;
    case K_DBC_META: set_version(L, get_str(L, ev, "Spark Version"), false); break;
    case K_APP_START:
        app->app_name = get_str(L, ev, "App Name");
        app->app_id = get_str(L, ev, "App ID");
        app->user = get_str(L, ev, "User");
        app->start = get_i64(ev, "Timestamp", -1);
        break;
    case K_APP_END: app->end = get_i64(ev, "Timestamp", -1); break;
    case K_ENV: on_environment(L, ev); break;
    case K_JOB_START: on_job_start(L, ev); break;
    case K_JOB_END: on_job_end(L, ev); break;
    case K_STAGE_SUBMITTED: on_stage_submitted(L, ev); break;
    case K_TASK_END: on_task_end(L, ev); break;
    case K_SQL_START: on_sql_start(L, ev); break;
    case K_SQL_END: on_sql_end(L, ev); break;
    case K_AQE_UPDATE: on_aqe_update(L, ev); break;
    case K_AQE_METRICS: on_aqe_metrics(L, ev); break;
    case K_DRIVER_UPDATES: on_driver_updates(L, ev); break;
    case K_SKIP: break;
    }
}

/* One line: its event handled, or a warning. */
static void handle_line(struct loader *L, struct slice line, bool last)
{
    uint64_t lno = ev_lines_lineno(L->lines);
    if (line.len == 0)
        return;
    if (lno == 1 && line.len >= 3 && memcmp(line.ptr, "\xef\xbb\xbf", 3) == 0)
        line.ptr += 3, line.len -= 3;
    bool is_event;
    enum ev_kind k = event_kind(line, &is_event);
    if (!is_event) {
        if (last)
            warn(L, lno, "the log ends inside an event (cut, or still being written): read "
                         "up to the line before");
        else
            warn(L, lno, "not an event (skipped): the line does not start with {\"Event\":");
        return;
    }
    if (k == K_SKIP && !last)
        return;
    if (L->brief && k == K_SQL_START) { /* counted, not parsed: its plan is the costly part */
        L->n_sql_starts++;
        return;
    }
    if (L->brief && k != K_LOG_START && k != K_DBC_META && k != K_APP_START && k != K_APP_END &&
        k != K_ENV)
        return;
    if (k == K_TASK_END && evtask_scan(line.ptr, line.len, &L->task)) {
        const struct evtask *t = &L->task;
        bool ok_task = t->finish_time != 0 && !t->failed && !t->killed;
        if (t->index >= 0 && t->index <= UINT32_MAX &&
            !sqll_task_end(L->sqll, (int32_t)t->stage, (int32_t)t->attempt, t->task_id,
                           (uint32_t)t->index, ok_task, t->acc_ids, t->updates, t->n))
            L->nomem = true;
        return;
    }
    cJSON *ev = cJSON_ParseWithLength(line.ptr, line.len);
    if (!ev) {
        if (last)
            warn(L, lno, "the log ends inside an event (cut, or still being written): read "
                         "up to the line before");
        else
            warn(L, lno, "malformed event (skipped): not valid JSON");
        L->app->truncated = L->app->truncated || last;
        return;
    }
    dispatch(L, k, ev);
    cJSON_Delete(ev);
}

static enum sp_status read_all(struct loader *L, struct diag *err)
{
    for (;;) {
        struct slice line;
        bool last, eof;
        enum sp_status s = ev_lines_next(L->lines, &line, &last, &eof, err);
        if (s != SP_OK) {
            if (s == SP_ERR_NOMEM)
                return s;
            /* a corrupt block: keep what was read, say where it stopped */
            warn(L, ev_lines_lineno(L->lines), "%s; read up to here", err->message);
            L->app->truncated = true;
            return SP_OK;
        }
        if (eof || (L->stop && atomic_load_explicit(L->stop, memory_order_relaxed)))
            return SP_OK;
        L->app->n_lines++;
        handle_line(L, line, last);
        if (L->nomem) {
            diag_set(err, 0, "out of memory");
            return SP_ERR_NOMEM;
        }
    }
}

/* Executions without an end: their metrics so far, marked running. */
static void finish_running(struct loader *L)
{
    size_t running = 0;
    for (size_t i = 0; i < L->app->n_execs; i++) {
        struct ev_exec *e = &L->app->execs[i];
        if (e->end >= 0 || e->status != EV_RUNNING)
            continue;
        running++;
        finish_exec(L, e);
    }
    if (running && L->app->end < 0)
        L->app->in_progress = true;
}

static int cmp_exec(const void *a, const void *b)
{
    int64_t x = ((const struct ev_exec *)a)->id, y = ((const struct ev_exec *)b)->id;
    return (x > y) - (x < y);
}

static enum sp_status run(struct loader *L, struct ev_app **out, struct diag *err)
{
    enum sp_status s = read_all(L, err);
    if (s == SP_OK) {
        finish_running(L);
        if (ev_lines_truncated(L->lines)) {
            L->app->truncated = true;
            warn(L, 0, "the log ends inside a compressed block (cut, or still being written): "
                       "read up to its last complete event");
        }
        L->app->n_bytes = ev_lines_bytes(L->lines);
        L->app->codec = ev_codec_name(ev_lines_codec(L->lines));
        if (L->app->n_execs > 1)
            qsort(L->app->execs, L->app->n_execs, sizeof *L->app->execs, cmp_exec);
        if (L->nomem)
            s = SP_ERR_NOMEM, diag_set(err, 0, "out of memory");
    }
    ev_lines_close(L->lines);
    sqll_free(L->sqll);
    evtask_free(&L->task);
    free(L->by_id);
    if (s != SP_OK) {
        ev_app_free(L->app);
        return s;
    }
    *out = L->app;
    return SP_OK;
}

static enum sp_status loader_init(struct loader *L, const char *name, struct diag *err)
{
    memset(L, 0, sizeof *L);
    L->app = calloc(1, sizeof *L->app);
    L->sqll = sqll_new();
    if (!L->app || !L->sqll) {
        free(L->app);
        sqll_free(L->sqll);
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    arena_init(&L->app->arena);
    L->app->start = L->app->end = -1;
    L->app->name_shown = arena_strdup(&L->app->arena, name);
    return SP_OK;
}

/* The loader of an application's files, its lines open. */
static enum sp_status loader_files(struct loader *L, const struct ev_app_files *files,
                                   struct diag *err)
{
    enum sp_status s = loader_init(L, files->name, err);
    if (s != SP_OK)
        return s;
    L->app->layout = ev_layout_name(files->layout);
    L->app->in_progress = files->in_progress;
    if (files->version_hint)
        L->app->spark_version = arena_strdup(&L->app->arena, files->version_hint);
    char **copy = arena_alloc(&L->app->arena, (files->n_files + 1) * sizeof *copy);
    for (size_t i = 0; copy && i < files->n_files; i++)
        copy[i] = arena_strdup(&L->app->arena, files->files[i]);
    L->app->files = (const char *const *)copy;
    L->app->n_files = files->n_files;
    L->files = L->app->files;
    if (!copy || ev_lines_open(L->files, files->n_files, &L->lines, err) != SP_OK) {
        ev_app_free(L->app);
        sqll_free(L->sqll);
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

enum sp_status evload_app(const struct ev_app_files *files, struct ev_app **out,
                          struct diag *err)
{
    struct loader L;
    *out = NULL;
    enum sp_status s = loader_files(&L, files, err);
    return s != SP_OK ? s : run(&L, out, err);
}

static void brief_copy(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

enum sp_status evload_brief(const struct ev_app_files *files, const atomic_bool *stop,
                            struct ev_brief *out, struct diag *err)
{
    struct loader L;
    struct ev_app *app = NULL;
    memset(out, 0, sizeof *out);
    out->start = out->end = -1;
    enum sp_status s = loader_files(&L, files, err);
    if (s != SP_OK)
        return s;
    L.brief = true;
    L.stop = stop;
    s = run(&L, &app, err);
    if (s != SP_OK)
        return s;
    brief_copy(out->id, sizeof out->id, app->app_id);
    brief_copy(out->name, sizeof out->name, app->app_name);
    brief_copy(out->version, sizeof out->version, app->spark_version);
    out->databricks = app->databricks;
    out->start = app->start;
    out->end = app->end;
    out->n_queries = L.n_sql_starts;
    out->in_progress = app->in_progress || app->end < 0;
    out->truncated = app->truncated;
    ev_app_free(app);
    return SP_OK;
}

enum sp_status evload_bytes(const char *name, const void *bytes, size_t len, struct ev_app **out,
                            struct diag *err)
{
    struct loader L;
    *out = NULL;
    enum sp_status s = loader_init(&L, name, err);
    if (s != SP_OK)
        return s;
    L.app->layout = ev_layout_name(EV_LAYOUT_FILE);
    if (ev_lines_open_mem(bytes, len, &L.lines, err) != SP_OK) {
        ev_app_free(L.app);
        sqll_free(L.sqll);
        return SP_ERR_NOMEM;
    }
    return run(&L, out, err);
}
