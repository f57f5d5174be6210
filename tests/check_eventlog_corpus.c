/* Event logs of the corpus (../shared/corpus-eventlogs, or SPARKPLAN_EVENTLOGS): every log
 * opens with one entry per SQL execution, and every node's metrics equal what a second,
 * deliberately naive replay of the History Server's algorithm (below: linear searches,
 * no hash tables, its own event handling) gives for the same log.  Skipped, never failed,
 * when the corpus is absent. */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sparkplan/evload.h"
#include "sparkplan/evsource.h"
#include "sparkplan/sqlmetric.h"

static const char *eventlog_dir(void)
{
    static int warned;
    const char *d = getenv("SPARKPLAN_EVENTLOGS");
    if (!d || !*d)
        d = "../shared/corpus-eventlogs";
    struct stat st;
    if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
        return d;
    if (!warned++)
        fprintf(stderr, "SKIP: event-log corpus not found at %s (set SPARKPLAN_EVENTLOGS); "
                        "its tests skipped\n", d);
    return NULL;
}

/* Each log (file or directory) and its SQL executions (SOURCES.md's SQL start counts). */
static const struct {
    const char *path;
    size_t execs;
    bool running;   /* an execution without its end */
} logs[] = {
    {"NVIDIA-spark-rapids-tools/spark-events-profiling/spark2-eventlog.zstd", 4, false},
    {"NVIDIA-spark-rapids-tools/spark-events-profiling/rapids_join_eventlog.zstd", 1, false},
    {"NVIDIA-spark-rapids-tools/spark-events-profiling/nds_q66_gpu.zstd", 25, false},
    {"NVIDIA-spark-rapids-tools/spark-events-profiling/gpu_oom_eventlog.zstd", 25, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/customshuffle_eventlog.zstd", 1, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/aqeshuffle_eventlog.zstd", 1, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/eventlog_complex_dec_nested", 5, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/cluster_information/"
     "eventlog_4nodes_8cores_dynamic_alloc.zstd", 5, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/nds_q72_dataproc_2_2.zstd", 25, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/nds_q88_photon_db_13_3.zstd", 27, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/db_subExecution_id.zstd", 12, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/xgboost_eventlog.zstd", 5, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/db_sim_eventlog", 1, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964", 1,
     false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/java_udf_eventlog", 3, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/python_udf_eventlog", 1, false},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/truncated_eventlog", 2, true},
    {"NVIDIA-spark-rapids-tools/spark-events-qualification/join_missing_sql_end", 1, true},
    {"NVIDIA-spark-rapids-tools/user_tools-e2e-event_logs/join_agg_on_yarn_eventlog.zstd", 1,
     false},
    {"kubeflow-mcp-apache-spark-history-server/eventlog_v2_spark-cc4d115f011443d787f03a71a476a745",
     3, false},
    {"apache-spark/spark-events/local-1642039451826", 2, false},
    {"apache-spark/spark-events/app-20200706201101-0003", 1, false},
    {"apache-spark/sql-spark-events/local-1596020211915", 24, false},
    {"apache-spark/spark-events-broken/last-attempt-incomplete/application_1656321732247_0006_2",
     0, false},
    {"apache-spark/spark-events/application_1506645932520_24630151", 3, false},
    {"apache-spark/spark-events-legacy-dir/local-1422981759269", 0, false},
    {"synccomputingcode-spark_log_parser/databricks.json.gz", 10, false},
    {"qubole-sparklens/local-1532512550423", 0, false},
};

static struct ev_app *open_log(const char *dir, const char *rel, struct ev_source *src)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    struct diag err = {0};
    ck_assert_msg(ev_source_resolve(path, src, &err) == SP_OK, "%s: %s", rel, err.message);
    ck_assert_msg(src->n_apps == 1, "%s: %zu applications", rel, src->n_apps);
    struct ev_app *app = NULL;
    ck_assert_msg(evload_app(&src->apps[0], &app, &err) == SP_OK, "%s: %s", rel, err.message);
    return app;
}

START_TEST(every_log_opens_with_one_entry_per_sql_execution)
{
    const char *dir = eventlog_dir();
    if (!dir)
        return;
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
        struct ev_source src;
        struct ev_app *app = open_log(dir, logs[i].path, &src);
        ck_assert_msg(app->n_execs == logs[i].execs, "%s: %zu executions, expected %zu",
                      logs[i].path, app->n_execs, logs[i].execs);
        bool running = false;
        for (size_t k = 0; k < app->n_execs; k++)
            running = running || app->execs[k].status == EV_RUNNING;
        ck_assert_msg(running == logs[i].running, "%s: running %d", logs[i].path, running);
        /* a running query in a log without its application's end: in progress */
        ck_assert_msg(!running || app->end >= 0 || app->in_progress, "%s: not in progress",
                      logs[i].path);
        ev_app_free(app);
        ev_source_free(&src);
    }
}
END_TEST

/* ---- the naive replay ------------------------------------------------------------------------- */

struct nv_type { int64_t acc; enum sqlm_type type; bool spark2; };
struct nv_vals { int64_t acc; int64_t *v; };
struct nv_max { int64_t acc, value, task; };
struct nv_exec {
    int64_t id;
    struct nv_type types[16384];
    size_t n_types;
    int32_t stages[512];
    size_t n_stages;
    int64_t drv[1024][2];
    size_t n_drv;
    bool done;
    struct sqlm_value *out;   /* n_types of them at most, each text malloc'd */
    size_t n_out;
};
struct nv_table {
    int32_t stage, attempt;
    int n_tasks;
    struct nv_exec *exec;
    size_t n_types;
    struct nv_vals vals[512];
    size_t n_vals;
    struct nv_max max[512];
    size_t n_max;
    bool done[16384];
    bool live;
};
struct nv {
    struct nv_exec *execs[64];
    size_t n_execs;
    struct nv_table *tables[512];
    size_t n_tables;
};

static struct nv_exec *nv_exec(struct nv *r, int64_t id, bool create)
{
    for (size_t i = 0; i < r->n_execs; i++)
        if (r->execs[i]->id == id)
            return r->execs[i];
    if (!create || r->n_execs == 64)
        return NULL;
    struct nv_exec *e = calloc(1, sizeof *e);
    e->id = id;
    return r->execs[r->n_execs++] = e;
}

static const struct nv_type *nv_type_of(const struct nv_exec *e, size_t limit, int64_t acc)
{
    for (size_t i = 0; i < e->n_types && i < limit; i++)
        if (e->types[i].acc == acc)
            return &e->types[i];
    return NULL;
}

static void nv_add_type(struct nv_exec *e, int64_t acc, const char *type, const char *name)
{
    for (size_t i = 0; i < e->n_types; i++)
        if (e->types[i].acc == acc) {
            e->types[i].type = sqlm_type_parse(type);
            return;
        }
    ck_assert(e->n_types < 16384);
    e->types[e->n_types++] = (struct nv_type){acc, sqlm_type_parse(type),
                                                  sqlm_name_is_spark2(name)};
}

static void nv_plan(struct nv_exec *e, const cJSON *info)
{
    const cJSON *stack[4096];
    size_t top = 0;
    stack[top++] = info;
    while (top) {
        const cJSON *n = stack[--top], *c, *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(n, "metrics"))
            nv_add_type(e, (int64_t)cJSON_GetObjectItem(m, "accumulatorId")->valuedouble,
                        cJSON_GetObjectItem(m, "metricType")->valuestring,
                        cJSON_GetObjectItem(m, "name")->valuestring);
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(n, "children"))
            if (top < 4096)
                stack[top++] = c;
    }
}

static struct nv_table *nv_table(struct nv *r, int32_t stage)
{
    for (size_t i = 0; i < r->n_tables; i++)
        if (r->tables[i]->live && r->tables[i]->stage == stage)
            return r->tables[i];
    return NULL;
}

static void nv_new_table(struct nv *r, int32_t stage, int32_t attempt, int n, struct nv_exec *e,
                         size_t n_types)
{
    struct nv_table *old = nv_table(r, stage);
    if (old)
        old->live = false;
    ck_assert(r->n_tables < 512 && n <= 16384);
    struct nv_table *t = calloc(1, sizeof *t);
    *t = (struct nv_table){.stage = stage, .attempt = attempt, .n_tasks = n, .exec = e,
                           .n_types = n_types, .live = true};
    r->tables[r->n_tables++] = t;
}

static int64_t num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    if (cJSON_IsString(v))
        return strtoll(v->valuestring, NULL, 10);
    return v ? (int64_t)v->valuedouble : 0;
}

static void nv_task(struct nv *r, const cJSON *ev)
{
    struct nv_table *t = nv_table(r, (int32_t)num(ev, "Stage ID"));
    const cJSON *info = cJSON_GetObjectItem(ev, "Task Info"), *a;
    int idx = (int)num(info, "Index");
    if (!t || t->attempt != num(ev, "Stage Attempt ID") || t->exec->done || idx >= t->n_tasks ||
        t->done[idx])
        return;
    cJSON_ArrayForEach(a, cJSON_GetObjectItem(info, "Accumulables")) {
        const cJSON *u = cJSON_GetObjectItem(a, "Update");
        int64_t acc = num(a, "ID");
        const struct nv_type *ty = nv_type_of(t->exec, t->n_types, acc);
        char *end = "";
        int64_t v = cJSON_IsString(u) ? strtoll(u->valuestring, &end, 10)
                                      : u ? (int64_t)u->valuedouble : -1;
        if (!u || !ty || *end || v < 0 || (cJSON_IsString(u) && !*u->valuestring))
            continue;
        struct nv_vals *slot = NULL;
        for (size_t i = 0; i < t->n_vals; i++)
            if (t->vals[i].acc == acc)
                slot = &t->vals[i];
        if (!slot) {
            ck_assert(t->n_vals < 512);
            slot = &t->vals[t->n_vals++];
            slot->acc = acc;
            slot->v = calloc((size_t)t->n_tasks + 1, sizeof *slot->v);
        }
        slot->v[idx] = v;
        if (ty->type == SQLM_SUM)
            continue;
        struct nv_max *m = NULL;
        for (size_t i = 0; i < t->n_max; i++)
            if (t->max[i].acc == acc)
                m = &t->max[i];
        if (!m) {
            ck_assert(t->n_max < 512);
            t->max[t->n_max++] = (struct nv_max){acc, v, num(info, "Task ID")};
        } else if (v > m->value) {
            m->value = v, m->task = num(info, "Task ID");
        }
    }
    if (num(info, "Finish Time") != 0 && !cJSON_IsTrue(cJSON_GetObjectItem(info, "Failed")) &&
        !cJSON_IsTrue(cJSON_GetObjectItem(info, "Killed")))
        t->done[idx] = true;
}

static int cmp32(const void *a, const void *b)
{
    return *(const int32_t *)a - *(const int32_t *)b;
}

static void nv_finish(struct nv *r, struct nv_exec *e)
{
    if (e->done)
        return;
    int32_t st[512];
    memcpy(st, e->stages, e->n_stages * sizeof *st);
    qsort(st, e->n_stages, sizeof *st, cmp32);
    static int64_t vals[1 << 20];
    e->out = calloc(e->n_types + 1, sizeof *e->out);
    for (size_t k = 0; k < e->n_types; k++) {
        int64_t acc = e->types[k].acc, max[4];
        size_t n = 0;
        bool have_max = false, any = false;
        for (size_t s = 0; s < e->n_stages; s++) {
            struct nv_table *t = nv_table(r, st[s]);
            for (size_t i = 0; t && i < t->n_vals; i++)
                if (t->vals[i].acc == acc) {
                    memcpy(vals + n, t->vals[i].v, (size_t)t->n_tasks * sizeof *vals);
                    n += (size_t)t->n_tasks;
                    any = true;
                }
            for (size_t i = 0; t && i < t->n_max; i++)
                if (t->max[i].acc == acc && (!have_max || t->max[i].value > max[0])) {
                    max[0] = t->max[i].value, max[1] = t->stage, max[2] = t->attempt;
                    max[3] = t->max[i].task;
                    have_max = true;
                }
        }
        for (size_t i = 0; i < e->n_drv; i++)
            if (e->drv[i][0] == acc) {
                if (have_max && any && e->drv[i][1] > max[0])
                    have_max = false;
                vals[n++] = e->drv[i][1];
                any = true;
            }
        if (!any)
            continue;
        struct sqlm_value *o = &e->out[e->n_out];
        memset(o, 0, sizeof *o);
        o->acc_id = acc;
        char text[256];
        sqlm_format(e->types[k].type, e->types[k].spark2, vals, n, have_max ? max : NULL, o,
                    text, sizeof text);
        o->text = strdup(text);
        e->n_out++;
    }
    for (size_t s = 0; s < e->n_stages; s++) {
        bool shared = false;
        for (size_t j = 0; j < r->n_execs; j++) {
            const struct nv_exec *o = r->execs[j];
            for (size_t k = 0; o != e && !o->done && k < o->n_stages; k++)
                shared = shared || o->stages[k] == e->stages[s];
        }
        struct nv_table *t = shared ? NULL : nv_table(r, e->stages[s]);
        if (t)
            t->live = false;
    }
    e->done = true;
}

static const char *kind(const cJSON *ev)
{
    const char *k = cJSON_GetObjectItem(ev, "Event")->valuestring, *dot = strrchr(k, '.');
    return dot ? dot + 1 : k;
}

static void nv_event(struct nv *r, const cJSON *ev)
{
    const char *k = kind(ev);
    if (!strcmp(k, "SparkListenerSQLExecutionStart") ||
        !strcmp(k, "SparkListenerSQLAdaptiveExecutionUpdate")) {
        nv_plan(nv_exec(r, num(ev, "executionId"), true), cJSON_GetObjectItem(ev, "sparkPlanInfo"));
    } else if (!strcmp(k, "SparkListenerSQLAdaptiveSQLMetricUpdates")) {
        struct nv_exec *e = nv_exec(r, num(ev, "executionId"), true);
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(ev, "sqlPlanMetrics"))
            nv_add_type(e, num(m, "accumulatorId"),
                        cJSON_GetObjectItem(m, "metricType")->valuestring,
                        cJSON_GetObjectItem(m, "name")->valuestring);
    } else if (!strcmp(k, "SparkListenerJobStart")) {
        const cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "Properties"),
                                             "spark.sql.execution.id"), *s;
        if (!p)
            return;
        struct nv_exec *e = nv_exec(r, strtoll(p->valuestring, NULL, 10), true);
        cJSON_ArrayForEach(s, cJSON_GetObjectItem(ev, "Stage Infos")) {
            int32_t id = (int32_t)num(s, "Stage ID");
            bool known = false;
            for (size_t i = 0; i < e->n_stages; i++)
                known = known || e->stages[i] == id;
            if (!known && e->n_stages < 512)
                e->stages[e->n_stages++] = id;
            if (e->n_types)
                nv_new_table(r, id, 0, (int)num(s, "Number of Tasks"), e, e->n_types);
        }
    } else if (!strcmp(k, "SparkListenerStageSubmitted")) {
        const cJSON *s = cJSON_GetObjectItem(ev, "Stage Info");
        struct nv_table *t = nv_table(r, (int32_t)num(s, "Stage ID"));
        if (t && t->attempt != num(s, "Stage Attempt ID"))
            nv_new_table(r, t->stage, (int32_t)num(s, "Stage Attempt ID"), t->n_tasks, t->exec,
                         t->n_types);
    } else if (!strcmp(k, "SparkListenerTaskEnd")) {
        nv_task(r, ev);
    } else if (!strcmp(k, "SparkListenerDriverAccumUpdates")) {
        struct nv_exec *e = nv_exec(r, num(ev, "executionId"), false);
        const cJSON *pr;
        cJSON_ArrayForEach(pr, cJSON_GetObjectItem(ev, "accumUpdates"))
            if (e && !e->done && e->n_drv < 1024) {
                e->drv[e->n_drv][0] = (int64_t)cJSON_GetArrayItem(pr, 0)->valuedouble;
                e->drv[e->n_drv++][1] = (int64_t)cJSON_GetArrayItem(pr, 1)->valuedouble;
            }
    } else if (!strcmp(k, "SparkListenerSQLExecutionEnd")) {
        struct nv_exec *e = nv_exec(r, num(ev, "executionId"), false);
        if (e)
            nv_finish(r, e);
    }
}

static void nv_free(struct nv *r)
{
    for (size_t i = 0; i < r->n_tables; i++) {
        for (size_t k = 0; k < r->tables[i]->n_vals; k++)
            free(r->tables[i]->vals[k].v);
        free(r->tables[i]);
    }
    for (size_t i = 0; i < r->n_execs; i++) {
        for (size_t k = 0; k < r->execs[i]->n_out; k++)
            free((char *)r->execs[i]->out[k].text);
        free(r->execs[i]->out);
        free(r->execs[i]);
    }
    free(r);
}

static struct nv *nv_replay(const struct ev_app *app)
{
    struct nv *r = calloc(1, sizeof *r);
    struct ev_lines *lines;
    struct diag err = {0};
    ck_assert(ev_lines_open(app->files, app->n_files, &lines, &err) == SP_OK);
    for (;;) {
        struct slice line;
        bool last, eof;
        ck_assert(ev_lines_next(lines, &line, &last, &eof, &err) == SP_OK);
        if (eof)
            break;
        cJSON *ev = cJSON_ParseWithLength(line.ptr, line.len);
        if (ev && cJSON_IsString(cJSON_GetObjectItem(ev, "Event")))
            nv_event(r, ev);
        cJSON_Delete(ev);
    }
    ev_lines_close(lines);
    for (size_t i = 0; i < r->n_execs; i++)
        nv_finish(r, r->execs[i]);
    return r;
}

START_TEST(every_metric_equals_a_naive_replay_of_the_history_server)
{
    const char *dir = eventlog_dir();
    if (!dir)
        return;
    size_t checked = 0;
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
        struct ev_source src;
        struct ev_app *app = open_log(dir, logs[i].path, &src);
        struct nv *r = nv_replay(app);
        for (size_t k = 0; k < app->n_execs; k++) {
            const struct ev_exec *e = &app->execs[k];
            struct nv_exec *x = nv_exec(r, e->id, false);
            size_t want = x ? x->n_out : 0;
            ck_assert_msg(e->n_values == want, "%s: query %lld: %zu values, the replay %zu",
                          logs[i].path, (long long)e->id, e->n_values, want);
            for (size_t v = 0; v < want; v++) {
                const struct sqlm_value *got = sqlm_find(e->values, e->n_values,
                                                         x->out[v].acc_id);
                ck_assert_msg(got && strcmp(got->text, x->out[v].text) == 0,
                              "%s: query %lld accumulator %lld: '%s', the replay '%s'",
                              logs[i].path, (long long)e->id, (long long)x->out[v].acc_id,
                              got ? got->text : "(none)", x->out[v].text);
                checked++;
            }
        }
        nv_free(r);
        ev_app_free(app);
        ev_source_free(&src);
    }
    ck_assert_uint_gt(checked, 5000);
}
END_TEST

/* What the Spark UI prints for a few nodes, checked by hand against the log's events. */
START_TEST(a_few_values_checked_by_hand)
{
    const char *dir = eventlog_dir();
    if (!dir)
        return;
    struct ev_source src;
    struct ev_app *app = open_log(dir, "apache-spark/spark-events/local-1642039451826", &src);
    const struct ev_exec *e = &app->execs[0];
    const struct ev_plan *p = ev_exec_final(e);
    ck_assert_uint_eq(e->n_plans, 4); /* the start plan and three AQE updates */
    /* Range (1): spark.range(0, 100, 1, 8): 100 rows output */
    const struct plan_node *range = NULL, *agg = NULL;
    for (uint32_t i = 0; i < p->section->n_nodes; i++) {
        const struct plan_node *n = plan_section_node(p->section, i);
        if (n->id == 1 && !range)
            range = n;
        if (n->id == 5)
            agg = n;
    }
    ck_assert(range && agg);
    ck_assert_str_eq(ev_node_metric(e, p, range, "number of output rows")->text, "100");
    /* HashAggregate (5), the partial count of codegen stage 2: 10 tasks, one row each */
    ck_assert_str_eq(ev_node_metric(e, p, agg, "number of output rows")->text, "10");
    ev_app_free(app);
    ev_source_free(&src);
}
END_TEST

Suite *eventlog_corpus_suite(void)
{
    Suite *s = suite_create("eventlog_corpus");
    TCase *t = tcase_create("corpus");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, every_log_opens_with_one_entry_per_sql_execution);
    tcase_add_test(t, every_metric_equals_a_naive_replay_of_the_history_server);
    tcase_add_test(t, a_few_values_checked_by_hand);
    suite_add_tcase(s, t);
    return s;
}
