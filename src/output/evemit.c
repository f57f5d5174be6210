/* evemit.c: --json, --print, --summary and --lint of an event log (evemit.h). */
#include "sparkplan/evemit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/analyze.h"
#include "sparkplan/emit.h"
#include "sparkplan/insight.h"
#include "sparkplan/sanitize.h"

static enum sp_status write_status(FILE *out, struct diag *err)
{
    if (ferror(out) || fflush(out) != 0) {
        diag_set(err, 0, "write error: %s", strerror(errno ? errno : EIO));
        return SP_ERR_IO;
    }
    return SP_OK;
}

/* Length of the valid UTF-8 sequence at p (1-4), 0 when invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (k == 0 || k > n || (k == 2 && c < 0xc2))
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (k == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
        return 0;
    if (k == 4 && ((c == 0xf0 && p[1] < 0x90) || c > 0xf4 || (c == 0xf4 && p[1] >= 0x90)))
        return 0;
    return k;
}

static void json_str(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out), fputc((int)c, out), i++;
        } else if (c == '\n') {
            fputs("\\n", out), i++;
        } else if (c == '\t') {
            fputs("\\t", out), i++;
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(out, "\\u%04x", c), i++;
        } else {
            size_t k = utf8_len(p + i, n - i);
            if (k == 0)
                fputs("\\ufffd", out), i++;
            else
                fwrite(p + i, 1, k, out), i += k;
        }
    }
    fputc('"', out);
}

static void json_i64(FILE *out, int64_t v, bool null_if_negative)
{
    if (v < 0 && null_if_negative)
        fputs("null", out);
    else
        fprintf(out, "%lld", (long long)v);
}

void evemit_duration(const struct ev_exec *e, char *buf, size_t cap)
{
    if (e->end < 0 || e->start < 0)
        snprintf(buf, cap, "-");
    else
        sqlm_ms_string(e->end - e->start, buf, cap);
}

/* ---- --json ------------------------------------------------------------------------------------- */

struct node_ctx {
    const struct ev_exec *e;
    const struct ev_plan *p;
};

static void metric_json(struct emit_json *w, const struct ev_shown_metric *m)
{
    char num[32];
    const struct sqlm_value *v = m->value;
    emit_json_raw(w, "{\"name\":");
    emit_json_string(w, slice_cstr(m->def->name));
    emit_json_raw(w, ",\"type\":");
    emit_json_string(w, slice_cstr(m->def->type_name));
    snprintf(num, sizeof num, ",\"accumulatorId\":%lld", (long long)m->def->acc_id);
    emit_json_raw(w, num);
    if (v->type == SQLM_SUM) {
        snprintf(num, sizeof num, ",\"value\":%lld}", (long long)v->total);
        emit_json_raw(w, num);
        return;
    }
    int64_t f[4] = {v->total, v->min, v->med, v->max};
    static const char *const keys[4] = {",\"total\":", ",\"min\":", ",\"med\":", ",\"max\":"};
    for (int i = 0; i < 4; i++) {
        snprintf(num, sizeof num, "%s%lld", keys[i], (long long)f[i]);
        emit_json_raw(w, num);
    }
    emit_json_raw(w, ",\"maxStage\":");
    emit_json_int(w, v->max_from_task ? v->max_stage : -1);
    emit_json_raw(w, ",\"maxTask\":");
    emit_json_int(w, v->max_from_task ? v->max_task : -1);
    emit_json_raw(w, ",\"text\":");
    emit_json_string(w, slice_cstr(v->text));
    emit_json_raw(w, "}");
}

static void node_metrics_json(struct emit_json *w, const struct plan_node *n, void *ctx)
{
    const struct node_ctx *c = ctx;
    struct ev_shown_metric m[128];
    size_t k = ev_node_metrics(c->e, c->p, n, m, 128);
    if (!ev_plan_side(c->p, n) || !ev_plan_side(c->p, n)->info)
        return;
    emit_json_raw(w, ",\"metrics\":[");
    for (size_t i = 0; i < k && i < 128; i++) {
        if (i)
            emit_json_raw(w, ",");
        metric_json(w, &m[i]);
    }
    emit_json_raw(w, "]");
}

static void app_json(FILE *out, const struct ev_app *app)
{
    fputs("\"application\":{\"id\":", out);
    json_str(out, app->app_id);
    fputs(",\"name\":", out);
    json_str(out, app->app_name);
    fputs(",\"sparkVersion\":", out);
    json_str(out, app->spark_version);
    fprintf(out, ",\"databricks\":%s,\"user\":", app->databricks ? "true" : "false");
    json_str(out, app->user);
    fputs(",\"start\":", out);
    json_i64(out, app->start, true);
    fputs(",\"end\":", out);
    json_i64(out, app->end, true);
    fputs(",\"codec\":", out);
    json_str(out, app->codec);
    fputs(",\"layout\":", out);
    json_str(out, app->layout);
    fprintf(out, ",\"inProgress\":%s,\"truncated\":%s}", app->in_progress ? "true" : "false",
            app->truncated ? "true" : "false");
}

static enum sp_status exec_json(FILE *out, const struct ev_exec *e, struct diag *err)
{
    fputs("{\"id\":", out);
    json_i64(out, e->id, false);
    fputs(",\"rootId\":", out);
    json_i64(out, e->root_id, true);
    fputs(",\"description\":", out);
    json_str(out, e->description);
    fputs(",\"details\":", out);
    json_str(out, e->details);
    fputs(",\"start\":", out);
    json_i64(out, e->start, true);
    fputs(",\"end\":", out);
    json_i64(out, e->end, true);
    fputs(",\"durationMs\":", out);
    json_i64(out, e->end >= 0 && e->start >= 0 ? e->end - e->start : -1, true);
    fputs(",\"status\":", out);
    json_str(out, ev_status_name(e->status));
    fputs(",\"error\":", out);
    json_str(out, e->error);
    fputs(",\"jobs\":[", out);
    for (size_t i = 0; i < e->n_jobs; i++)
        fprintf(out, "%s%lld", i ? "," : "", (long long)e->jobs[i]);
    fputs("],\"stages\":[", out);
    for (size_t i = 0; i < e->n_stages; i++)
        fprintf(out, "%s%d", i ? "," : "", e->stages[i]);
    fputs("],\"hottest\":", out);
    if (e->hottest) {
        fprintf(out, "{\"name\":");
        char *name = strndup(plan_node_name(e->hottest).ptr, plan_node_name(e->hottest).len);
        json_str(out, name ? name : "");
        free(name);
        fprintf(out, ",\"line\":%lu,\"timeMs\":%lld}", (unsigned long)e->hottest->line,
                (long long)e->hottest_ms);
    } else {
        fputs("null", out);
    }
    fputs(",\"plans\":[", out);
    bool first = true;
    for (size_t i = 0; i < e->n_plans; i++) {
        struct node_ctx c = {e, &e->plans[i]};
        enum sp_status s = emit_json_plans(out, e->plans[i].doc, node_metrics_json, &c, &first,
                                           err);
        if (s != SP_OK)
            return s;
    }
    fputs("]}", out);
    return SP_OK;
}

enum sp_status evemit_json(FILE *out, const struct ev_app *app, struct diag *err)
{
    fputs("{\"file\":", out);
    json_str(out, app->name_shown);
    fputc(',', out);
    app_json(out, app);
    fputs(",\"executions\":[", out);
    for (size_t i = 0; i < app->n_execs; i++) {
        if (i)
            fputc(',', out);
        enum sp_status s = exec_json(out, &app->execs[i], err);
        if (s != SP_OK)
            return s;
    }
    fputs("],\"plans\":[],\"warnings\":[", out);
    for (size_t i = 0; i < app->n_warnings; i++) {
        const struct ev_warning *w = &app->warnings[i];
        fputs(i ? ",{\"file\":" : "{\"file\":", out);
        json_str(out, w->file);
        fputs(",\"line\":", out);
        json_i64(out, w->line ? (int64_t)w->line : -1, true);
        fputs(",\"message\":", out);
        json_str(out, w->message);
        fputc('}', out);
    }
    fputs("]}\n", out);
    return write_status(out, err);
}

/* ---- text ----------------------------------------------------------------------------------------- */

static void text(FILE *out, const char *s)
{
    sanitize_fwrite(out, slice_cstr(s ? s : ""));
}

/* The first line of a description, cut to width bytes (at a UTF-8 boundary). */
static void text_cut(FILE *out, const char *s, size_t width)
{
    if (!s)
        s = "";
    size_t n = strcspn(s, "\r\n");
    if (n > width) {
        n = width;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    sanitize_fwrite(out, slice_make(s, n));
}

static void app_header(FILE *out, const struct ev_app *app)
{
    text(out, app->app_id ? app->app_id : app->name_shown);
    if (app->app_name) {
        fputs(" \"", out);
        text(out, app->app_name);
        fputc('"', out);
    }
    if (app->spark_version) {
        fputs(app->databricks ? ", Databricks runtime " : ", Spark ", out);
        text(out, app->spark_version);
    }
    fprintf(out, ", %zu SQL quer%s%s%s\n", app->n_execs, app->n_execs == 1 ? "y" : "ies",
            app->in_progress ? ", in progress" : "", app->truncated ? ", log cut short" : "");
}

static void hottest_name(FILE *out, const struct ev_exec *e)
{
    if (!e->hottest) {
        fputs("-", out);
        return;
    }
    sanitize_fwrite(out, plan_node_name(e->hottest));
    if (e->hottest->id >= 0)
        fprintf(out, " (%d)", e->hottest->id);
    char ms[32];
    sqlm_ms_string(e->hottest_ms, ms, sizeof ms);
    fprintf(out, " %s", ms);
}

static void exec_row(FILE *out, const struct ev_exec *e)
{
    char dur[32];
    evemit_duration(e, dur, sizeof dur);
    fprintf(out, "%5lld  %9s  %-9s  %4zu  ", (long long)e->id, dur, ev_status_name(e->status),
            e->n_jobs);
    hottest_name(out, e);
    fputs("  ", out);
    text_cut(out, e->description, 60);
    fputc('\n', out);
}

static const char table_head[] = "query   duration  status     jobs  hottest operator  description\n";

/* One node line of the outline: indentation, *(stage), the text's first line, metrics. */
static void outline_node(FILE *out, const struct ev_exec *e, const struct ev_plan *p,
                         const struct plan_node *n)
{
    uint32_t depth = n->depth < 60 ? n->depth : 60;
    for (uint32_t i = 0; i < depth; i++)
        fputs("  ", out);
    if (n->flags & NODE_LABEL)
        fputs("[label] ", out);
    if (n->stage >= 0)
        fprintf(out, "*(%d) ", n->stage);
    struct slice t = plan_node_text(n);
    const char *nl = memchr(t.ptr, '\n', t.len);
    if (nl)
        t.len = (size_t)(nl - t.ptr);
    if (t.len > 100)
        t.len = 100;
    sanitize_fwrite(out, t);
    char brief[256];
    ev_node_brief(e, p, n, brief, sizeof brief);
    if (brief[0])
        fprintf(out, "   [%s]", brief);
    fputc('\n', out);
}

enum sp_status evemit_print(FILE *out, const struct ev_app *app, struct diag *err)
{
    app_header(out, app);
    fputs(table_head, out);
    for (size_t i = 0; i < app->n_execs; i++)
        exec_row(out, &app->execs[i]);
    for (size_t i = 0; i < app->n_execs; i++) {
        const struct ev_exec *e = &app->execs[i];
        const struct ev_plan *p = ev_exec_final(e);
        fprintf(out, "\n== query %lld: ", (long long)e->id);
        text_cut(out, e->description, 80);
        fprintf(out, " (%s plan of %zu) ==\n", e->n_plans > 1 ? "final" : "only", e->n_plans);
        if (!p || !p->section) {
            fputs("(no physical plan)\n", out);
            continue;
        }
        for (uint32_t k = 0; k < p->section->n_nodes; k++)
            outline_node(out, e, p, plan_section_node(p->section, k));
        for (uint32_t s = 0; s < p->n_sub; s++) { /* formatted text's subquery sections */
            fputc('\n', out);
            sanitize_fwrite(out, p->sub_sections[s]->title);
            fputc('\n', out);
            for (uint32_t k = 0; k < p->sub_sections[s]->n_nodes; k++)
                outline_node(out, e, p, plan_section_node(p->sub_sections[s], k));
        }
    }
    return write_status(out, err);
}

static int by_duration(const void *a, const void *b)
{
    const struct ev_exec *x = *(const struct ev_exec *const *)a;
    const struct ev_exec *y = *(const struct ev_exec *const *)b;
    int64_t dx = x->end >= 0 ? x->end - x->start : -1, dy = y->end >= 0 ? y->end - y->start : -1;
    if (dx != dy)
        return dx < dy ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

enum sp_status evemit_summary(FILE *out, const struct ev_app *app, struct diag *err)
{
    app_header(out, app);
    const struct ev_exec **order = malloc((app->n_execs + 1) * sizeof *order);
    if (!order) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < app->n_execs; i++)
        order[i] = &app->execs[i];
    qsort(order, app->n_execs, sizeof *order, by_duration);
    fputs("queries by duration:\n", out);
    fputs(table_head, out);
    for (size_t i = 0; i < app->n_execs; i++)
        exec_row(out, order[i]);
    free(order);
    struct rt_findings *rt = NULL;
    if (analyze_runtime(app, &rt, err) != SP_OK)
        return SP_ERR_NOMEM;
    size_t per_rule[RULE_COUNT] = {0};
    for (size_t i = 0; i < rt->n; i++)
        per_rule[rt->items[i].rule]++;
    fprintf(out, "runtime findings: %zu (%zu warnings)", rt->n, rt->n_warnings);
    bool first = true;
    for (size_t r = 0; r < RULE_COUNT; r++)
        if (per_rule[r]) {
            fprintf(out, "%s%s %s x%zu", first ? " (" : ", ", analyze_rules[r].id,
                    analyze_rules[r].title, per_rule[r]);
            first = false;
        }
    fputs(first ? "\n" : ")\n", out);
    rt_findings_free(rt);
    for (size_t i = 0; i < app->n_warnings; i++) {
        fputs("warning: ", out);
        text(out, app->warnings[i].file);
        if (app->warnings[i].line)
            fprintf(out, ":%llu", (unsigned long long)app->warnings[i].line);
        fputs(": ", out);
        text(out, app->warnings[i].message);
        fputc('\n', out);
    }
    return write_status(out, err);
}

/* "LOG[query N]:LINE: SPnnn severity: message" */
static void lint_line(FILE *out, const struct ev_app *app, const struct ev_exec *e,
                      uint32_t line, enum rule_id rule, enum severity sev, const char *msg)
{
    text(out, app->name_shown);
    fprintf(out, "[query %lld]:%lu: %s %s: ", (long long)e->id, (unsigned long)line,
            analyze_rules[rule].id, severity_name(sev));
    text(out, msg);
    fputc('\n', out);
}

enum sp_status evemit_lint(FILE *out, const struct ev_app *app, bool *warned, struct diag *err)
{
    struct rt_findings *rt = NULL;
    *warned = false;
    if (analyze_runtime(app, &rt, err) != SP_OK)
        return SP_ERR_NOMEM;
    size_t next_rt = 0;
    enum sp_status s = SP_OK;
    for (size_t i = 0; i < app->n_execs && s == SP_OK; i++) {
        const struct ev_exec *e = &app->execs[i];
        const struct ev_plan *p = ev_exec_final(e);
        struct analysis *a = NULL;
        if (p && p->doc && (s = analyze_document(p->doc, &a, err)) == SP_OK) {
            for (size_t k = 0; k < a->n_findings; k++) {
                const struct finding *f = &a->findings[k];
                lint_line(out, app, e, f->line, f->rule, f->severity, f->message);
            }
            *warned = *warned || a->summary.n_warnings > 0;
        }
        analysis_free(a);
        for (; next_rt < rt->n && rt->items[next_rt].exec == e; next_rt++) {
            const struct rt_finding *f = &rt->items[next_rt];
            lint_line(out, app, e, f->node->line, f->rule, f->severity, f->message);
        }
    }
    *warned = *warned || rt->n_warnings > 0;
    rt_findings_free(rt);
    return s == SP_OK ? write_status(out, err) : s;
}

/* ---- a History Server directory's applications --------------------------------------------- */

void evemit_app_row(const struct ev_app *app, struct evemit_app_row *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", app->app_id ? app->app_id : app->name_shown);
    snprintf(row->name, sizeof row->name, "%s", app->app_name ? app->app_name : "");
    snprintf(row->version, sizeof row->version, "%s%s", app->databricks ? "DBR " : "",
             app->spark_version ? app->spark_version : "?");
    row->n_execs = app->n_execs;
    for (size_t i = 0; i < app->n_execs; i++) {
        row->n_failed += app->execs[i].status == EV_FAILED;
        row->n_running += app->execs[i].status == EV_RUNNING;
    }
    row->start = app->start;
    row->end = app->end;
    row->in_progress = app->in_progress;
    row->truncated = app->truncated;
}

enum sp_status evemit_app_list(FILE *out, const char *dir, const struct evemit_app_row *rows,
                               size_t n, struct diag *err)
{
    fprintf(out, "%zu application%s in ", n, n == 1 ? "" : "s");
    text(out, dir);
    fputs(":\n", out);
    fprintf(out, "%-36s  %9s  %-11s  %7s  %-20s  %s\n", "application", "duration", "state",
            "queries", "version", "name");
    for (size_t i = 0; i < n; i++) {
        const struct evemit_app_row *r = &rows[i];
        char dur[32], q[48];
        if (r->start >= 0 && r->end >= r->start)
            sqlm_ms_string(r->end - r->start, dur, sizeof dur);
        else
            snprintf(dur, sizeof dur, "-");
        snprintf(q, sizeof q, "%zu", r->n_execs);
        fputs("", out);
        char idc[40];
        snprintf(idc, sizeof idc, "%.36s", r->id);
        text(out, idc);
        fprintf(out, "%*s  %9s  %-11s  %7s  ", (int)(36 - strlen(idc)), "", dur,
                r->truncated ? "cut short" : r->in_progress ? "in progress"
                : r->end < 0 ? "no end" : "complete", q);
        char ver[24];
        snprintf(ver, sizeof ver, "%.20s", r->version);
        text(out, ver);
        fprintf(out, "%*s  ", (int)(20 - strlen(ver)), "");
        text(out, r->name);
        if (r->n_failed || r->n_running)
            fprintf(out, "  (%zu failed, %zu running)", r->n_failed, r->n_running);
        fputc('\n', out);
    }
    return write_status(out, err);
}
