/* Shared test helpers (see testutil.h) — lives in a check_ file so the build picks it up. */
#include "testutil.h"

#include "sparkplan/emit.h"

#include <dirent.h>
#include <ftw.h>
#include <stdint.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum sp_status tu_try_parse(const char *text, size_t len, struct document **doc)
{
    char *copy = malloc(len + 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, text, len);
    copy[len] = '\0';
    struct diag err = {0};
    return load_bytes("test", copy, len, doc, &err);
}

struct document *tu_parse(const char *text)
{
    struct document *doc = NULL;
    enum sp_status s = tu_try_parse(text, strlen(text), &doc);
    ck_assert_msg(s == SP_OK, "parse failed with status %d", (int)s);
    return doc;
}

char *tu_union_plan(unsigned n, bool padded, const char *tail, size_t *len)
{
    size_t cap = (size_t)n * (padded ? 240 : 120) + strlen(tail) + 256, used = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    used += (size_t)snprintf(text + used, cap - used, "== Physical Plan ==\nUnion (%u)\n", n + 1);
    for (unsigned i = 1; i <= n; i++)
        used += (size_t)snprintf(text + used, cap - used, "%s%s t%u (%u)\n",
                                 i < n ? ":- " : "+- ", i % 3 ? "Scan parquet" : "Exchange", i, i);
    text[used++] = '\n';
    for (unsigned i = 1; i <= n; i++) {
        const char *name = i % 3 ? "Scan parquet" : "Exchange";
        if (padded)
            used += (size_t)snprintf(text + used, cap - used,
                                     "(%u) %s t%u\nOutput [2]: [a#%u, b#%u]\nArguments: pad %0120u\n\n",
                                     i, name, i, i, i, i);
        else
            used += (size_t)snprintf(text + used, cap - used, "(%u) %s t%u\nOutput [1]: [a#%u]\n\n",
                                     i, name, i, i);
    }
    used += (size_t)snprintf(text + used, cap - used, "(%u) Union\n%s", n + 1, tail);
    *len = used;
    return text;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

const char *tu_corpus_dir(void)
{
    static int warned;
    const char *d = getenv("SPARKPLAN_CORPUS");
    if (!d || !*d)
        d = "../shared/corpus";
    struct stat st;
    if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
        return d;
    if (!warned++)
        fprintf(stderr, "SKIP: corpus not found at %s (set SPARKPLAN_CORPUS); corpus tests skipped\n", d);
    return NULL;
}

const char *tu_binary(void)
{
    const char *b = getenv("SPARKPLAN_BIN");
    return b && *b ? b : "./sparkplan";
}

void tu_san_env(char *buf, size_t cap, const char *prefix)
{
    snprintf(buf, cap, "ASAN_OPTIONS=detect_leaks=1:log_path=%s "
             "UBSAN_OPTIONS=print_stacktrace=1:log_path=%s", prefix, prefix);
}

/* Calls found(path, ctx) for every report under prefix (PREFIX.PID); stops when it returns
 * false. */
static void each_san_report(const char *prefix, bool (*found)(const char *path, void *ctx),
                            void *ctx)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", prefix);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    const char *base = slash + 1;
    size_t base_len = strlen(base);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) { /* a run directory holds a few files */
        if (strncmp(e->d_name, base, base_len) != 0 || e->d_name[base_len] != '.')
            continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!found(path, ctx))
            break;
    }
    if (d)
        closedir(d);
}

static bool note_report(const char *path, void *ctx)
{
    (void)path;
    *(bool *)ctx = true;
    return false;
}

bool tu_san_reported(const char *prefix)
{
    bool any = false;
    each_san_report(prefix, note_report, &any);
    return any;
}

/* Keeps the first report's text, removes every report. */
static bool take_report(const char *path, void *ctx)
{
    char **report = ctx;
    size_t len = 0;
    char *text = *report ? NULL : tu_read_file(path, &len);
    if (text && len > 16384)
        text[16384] = '\0';
    if (!*report && !text)
        text = strdup(path); /* unreadable: name it at least */
    if (text)
        *report = text;
    unlink(path);
    return true;
}

char *tu_san_report(const char *prefix)
{
    char *report = NULL;
    each_san_report(prefix, take_report, &report);
    return report;
}

void tu_san_fail_on_report(const char *prefix)
{
    char *report = tu_san_report(prefix);
    if (!report)
        return;
    fprintf(stderr, "== sanitizer report ==\n%s", report);
    static char msg[3000];
    snprintf(msg, sizeof msg, "%s", report);
    free(report);
    ck_abort_msg("the sanitized program reported (whole above):\n%s", msg);
}

/* The wait status of a zombie (field 52 of /proc/PID/stat, after the state 'Z'), or -1. */
static int zombie_status(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    char *stat = tu_read_file(path, NULL);
    if (!stat)
        return -1;
    int status = -1;
    const char *p = strrchr(stat, ')'); /* the command name may hold anything but this */
    if (p && p[1] == ' ' && p[2] == 'Z') {
        for (int field = 3; field < 52 && p; field++) /* 49 fields */
            p = strchr(p + 1, ' ');
        if (p)
            status = atoi(p + 1);
    }
    free(stat);
    return status;
}

bool tu_pane_exit(const char *format_out, int *status)
{
    if (format_out[0] != '1' || format_out[1] != ':')
        return false;
    const char *code = format_out + 2;
    const char *sig = strchr(code, ':');
    const char *pid = sig ? strchr(sig + 1, ':') : NULL;
    if (!pid)
        return false;
    sig++, pid++;
    if (*code >= '0' && *code <= '9') {
        *status = atoi(code);
        return true;
    }
    if (*sig >= '0' && *sig <= '9') {
        *status = 128 + atoi(sig);
        return true;
    }
    int ws = zombie_status(atol(pid));
    if (ws < 0)
        return false;
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return true;
}

char *tu_run(const char *cmd, int *status)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 4096, n = 0, r;
    char *buf = malloc(cap + 1);
    while (buf && (r = fread(buf + n, 1, cap - n, p)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int st = pclose(p);
    if (status)
        *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    if (buf)
        buf[n] = '\0';
    return buf;
}

char *tu_runf(int *status, const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char *out = tu_run(cmd, status);
    ck_assert_msg(out != NULL, "could not run %s", cmd);
    return out;
}

struct plan_node *tu_root(struct document *doc)
{
    ck_assert_ptr_nonnull(doc->first_plan);
    ck_assert_ptr_nonnull(doc->first_plan->first_section);
    return doc->first_plan->first_section->first_root;
}

struct plan_node *tu_child(struct plan_node *n, unsigned i)
{
    ck_assert_ptr_nonnull(n);
    struct plan_node *c = plan_node_first_child(n);
    while (c && i--)
        c = plan_node_next_sibling(c);
    ck_assert_msg(c != NULL, "node has no child %u", i);
    return c;
}

bool tu_slice_is(struct slice s, const char *c)
{
    return slice_eq_cstr(s, c);
}

struct plan_detail tu_detail(const struct plan_node *n, unsigned i)
{
    struct plan_details it;
    struct plan_detail d;
    plan_details_init(&it, n);
    for (unsigned k = 0;; k++) {
        ck_assert_msg(plan_details_next(&it, &d), "node has no details field %u", i);
        if (k == i)
            return d;
    }
}

static char scratch_dir[64];

void tu_tmpdir_make(const char *tag)
{
    snprintf(scratch_dir, sizeof scratch_dir, "/tmp/sparkplan-%.16s-XXXXXX", tag);
    ck_assert_ptr_nonnull(mkdtemp(scratch_dir));
}

const char *tu_tmpdir(void)
{
    return scratch_dir;
}

void tu_tmpdir_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
    ck_assert_int_eq(system(cmd), 0);
}

const char *tu_tmp_write(const char *name, const char *bytes, size_t len)
{
    static char path[4][256];
    static int slot;
    char *p = path[slot++ % 4];
    snprintf(p, 256, "%s/%s", scratch_dir, name);
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
    return p;
}

/* ---- the two ways to finish a model ------------------------------------------------------ */

static long index_of(const struct document *doc, const struct plan_node *n)
{
    if (!n)
        return -1;
    for (size_t i = 0; i < doc->n_all_nodes; i++) /* only asked where a pointer differs */
        if (document_node(doc, i) == n)
            return (long)i;
    return -2;
}

/* The place of a node in its document: plan, section and pre-order number. */
static bool same_place(const struct plan_node *a, const struct plan_node *b)
{
    if (!a || !b)
        return a == b;
    return plan_node_preorder(a) == plan_node_preorder(b) && a->line == b->line &&
           a->depth == b->depth && a->section->kind == b->section->kind &&
           a->section->line == b->section->line;
}

static char *compare_models(const struct document *a, const struct document *b)
{
    char msg[300];
    if (a->n_all_nodes != b->n_all_nodes || a->n_plans != b->n_plans) {
        snprintf(msg, sizeof msg, "%zu nodes / %u plans against %zu / %u", a->n_all_nodes,
                 a->n_plans, b->n_all_nodes, b->n_plans);
        return strdup(msg);
    }
    for (size_t i = 0; i < a->n_all_nodes; i++) {
        const struct plan_node *x = document_node(a, i), *y = document_node(b, i);
        if (x->depth != y->depth || plan_node_preorder(x) != plan_node_preorder(y) ||
            x->subtree_size != y->subtree_size || x->line != y->line || x->id != y->id ||
            plan_node_n_children(x) != plan_node_n_children(y) ||
            !same_place(plan_node_parent(x), plan_node_parent(y)) ||
            x->section->kind != y->section->kind || x->section->n_nodes != y->section->n_nodes) {
            snprintf(msg, sizeof msg,
                     "node %zu (line %u): depth %u/%u preorder %u/%u subtree %u/%u id %d/%d", i,
                     x->line, x->depth, y->depth, plan_node_preorder(x), plan_node_preorder(y),
                     x->subtree_size, y->subtree_size, x->id, y->id);
            return strdup(msg);
        }
    }
    const struct plan *p = a->first_plan, *q = b->first_plan;
    for (; p && q; p = p->next, q = q->next) {
        if (p->by_id_len != q->by_id_len) {
            snprintf(msg, sizeof msg, "plan at line %u: by_id_len %u/%u", p->line, p->by_id_len,
                     q->by_id_len);
            return strdup(msg);
        }
        for (uint32_t k = 0; k < p->by_id_len; k++)
            if (index_of(a, plan_node_find_by_id(p, (int32_t)k)) !=
                index_of(b, plan_node_find_by_id(q, (int32_t)k))) {
                snprintf(msg, sizeof msg, "plan at line %u: id %u points elsewhere", p->line, k);
                return strdup(msg);
            }
        const struct plan_section *s = p->first_section, *t = q->first_section;
        for (; s && t; s = s->next, t = t->next) {
            if (s->n_nodes != t->n_nodes)
                return strdup("a section's node count differs");
            for (uint32_t k = 0; k < s->n_nodes; k++)
                if (!same_place(plan_section_node(s, k), plan_section_node(t, k)) ||
                    plan_node_preorder(plan_section_node(s, k)) != k)
                    return strdup("a section's pre-order differs");
        }
    }
    return NULL;
}

char *tu_finish_differs(const char *path, size_t *nodes)
{
    struct document *a = NULL, *b = NULL;
    struct diag err = {0};
    enum sp_status sa = load_path(path, &a, &err);
    plan_order_enable(false);
    enum sp_status sb = load_path(path, &b, &err);
    plan_order_enable(true);
    char *why = NULL;
    if (sa != sb)
        why = strdup("the load's status differs");
    else if (sa == SP_OK)
        why = compare_models(a, b);
    if (nodes)
        *nodes = a ? a->n_all_nodes : 0;
    document_free(a);
    document_free(b);
    return why;
}

void tu_check_derived(const struct document *doc)
{
    const char *text = doc->src.text;
    size_t made = 0;
    for (const struct plan *p = doc->first_plan; p; p = p->next)
        for (const struct plan_section *s = p->first_section; s; s = s->next) {
            uint32_t *kids = calloc((size_t)s->n_nodes + 1, sizeof *kids);
            ck_assert_ptr_nonnull(kids);
            for (uint32_t k = 0; k < s->n_nodes; k++) {
                const struct plan_node *n = plan_section_node(s, k);
                ck_assert_ptr_eq(n->section, s);
                ck_assert_uint_eq(plan_node_preorder(n), k);
                const struct plan_node *up = plan_node_parent(n);
                if (up) {
                    ck_assert_ptr_eq(up->section, s);
                    ck_assert_uint_lt(plan_node_preorder(up), k);
                    kids[plan_node_preorder(up)]++;
                }
                struct slice t = plan_node_text(n), name = plan_node_name(n);
                if (name.len)
                    ck_assert_msg(name.ptr >= t.ptr && name.ptr + name.len <= t.ptr + t.len,
                                  "line %u: the name is not inside the text", n->line);
                struct slice d = plan_node_details_text(n);
                uint32_t tl = plan_node_details_text_line(n);
                if (d.len) {
                    ck_assert_ptr_nonnull(text);
                    ck_assert(d.ptr >= text && d.ptr + d.len <= text + doc->src.text_len);
                    uint32_t line = 1;
                    for (const char *c = text; c < d.ptr; c++) /* bound: small documents */
                        line += *c == '\n';
                    ck_assert_uint_eq(tl, line);
                    ck_assert_uint_eq(plan_node_details_line(n), document_original_line(doc, line));
                    if (!doc->src.line_map && !doc->src.line_from)
                        ck_assert_uint_eq(plan_node_details_line(n), line);
                } else {
                    ck_assert_uint_eq(n->n_details, 0);
                }
            }
            for (uint32_t k = 0; k < s->n_nodes; k++)
                ck_assert_uint_eq(plan_node_n_children(plan_section_node(s, k)), kids[k]);
            made += s->n_nodes;
            free(kids);
        }
    ck_assert_uint_eq(doc->n_all_nodes, made);
    for (size_t i = 1; i < doc->n_all_nodes; i++)
        ck_assert_uint_le(document_node(doc, i - 1)->line, document_node(doc, i)->line);
    for (size_t i = 0; i < doc->n_all_nodes; i++)
        ck_assert_ptr_eq(
            document_node_at_line(doc, document_node(doc, i)->line)->section->plan->doc, doc);
}

char *tu_stream_text(FILE *f, size_t *len)
{
    long size = ftell(f);
    ck_assert_int_ge(size, 0);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    buf[size] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)size;
    return buf;
}

void tu_expect_two_threads_same(void (*set)(size_t min, size_t chunk),
                                char *(*render)(void *ctx, size_t *len), void *ctx, size_t chunk,
                                const char *what)
{
    size_t len1, len2;
    set(SIZE_MAX, 0);
    char *one = render(ctx, &len1);
    set(1, chunk);
    char *two = render(ctx, &len2);
    set(0, 0);
    size_t at = 0;
    while (at < len1 && at < len2 && one[at] == two[at]) /* bound: the text */
        at++;
    ck_assert_msg(len1 == len2 && at == len1, "%s (chunks of %zu): two threads differ at byte "
                  "%zu of %zu / %zu", what, chunk, at, len1, len2);
    free(one);
    free(two);
}

static void (*each_fn)(const char *path, struct document *doc);
static size_t each_n;

static int each_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (type != FTW_F || !strstr(path, ".txt"))
        return 0;
    struct document *doc;
    struct diag err = {0};
    if (load_path(path, &doc, &err) != SP_OK)
        return 0;
    each_fn(path, doc);
    document_free(doc);
    each_n++;
    return 0;
}

bool tu_each_corpus_plan(const char *test, void (*fn)(const char *path, struct document *doc),
                         size_t *n)
{
    *n = 0;
    const char *dir = tu_corpus_dir();
    if (!dir) {
        fprintf(stderr, "%s: no corpus, skipped\n", test);
        return false;
    }
    each_fn = fn;
    each_n = 0;
    ck_assert_int_eq(nftw(dir, each_visit, 16, FTW_PHYS), 0);
    *n = each_n;
    return true;
}

char *tu_emitted(const struct document *doc, bool json, size_t *len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    ck_assert_ptr_nonnull(f);
    struct diag err = {0};
    ck_assert_int_eq(json ? emit_json(f, doc, &err) : emit_print(f, doc, &err), SP_OK);
    fclose(f);
    return out;
}

void tu_assert_same_document(const struct document *a, const struct document *b)
{
    ck_assert_uint_eq(a->src.text_len, b->src.text_len);
    ck_assert(memcmp(a->src.text, b->src.text, a->src.text_len) == 0);
    ck_assert_uint_eq(a->n_plans, b->n_plans);
    ck_assert_uint_eq(a->n_all_nodes, b->n_all_nodes);
    ck_assert_uint_eq(a->n_warnings, b->n_warnings);
    for (int json = 0; json < 2; json++) {
        size_t la, lb;
        char *ea = tu_emitted(a, json, &la), *eb = tu_emitted(b, json, &lb);
        ck_assert_msg(la == lb && memcmp(ea, eb, la) == 0, "%s differs",
                      json ? "--json" : "--print");
        free(ea);
        free(eb);
    }
}
