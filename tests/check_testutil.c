/* Shared test helpers (see testutil.h) — lives in a check_ file so the build picks it up. */
#include "testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

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
    struct plan_node *c = n->first_child;
    while (c && i--)
        c = c->next_sibling;
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
