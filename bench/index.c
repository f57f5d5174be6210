/* index.c: `spbench index FILE [RUNS]`, a measuring prototype of the compact plan index
 * (BENCHMARKS.md, finding 10).  Not the loader: it reads only Spark's own output of one plan
 * (simple or formatted, no paste clean-up, no subqueries), and the loader does not use it.
 *
 * One pass over the mapped bytes finds every line end 64 bytes a step with an SSE2 bitmask and
 * classifies each line by its first bytes, filling
 *   - one 16-byte entry per operator: line offset, length, depth, name offset, and the
 *     operator id of a formatted plan ("(12)") or the codegen stage of a simple one ("*(3)");
 *   - parent and subtree-end arrays (a stack of the open operators by depth);
 *   - the id -> details-block line map of a formatted plan.
 * Names, statistics and details fields stay in the bytes, to be decoded when asked.  It
 * prints the median time of RUNS builds (the mapping included) and the sizes, so the design's
 * cost can be set beside wc -l and the loader in the same run.
 * Owns what it maps and allocates and frees it before returning.  Never recurses.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "bench.h"
#include "sparkplan/blank.h"
#include "sparkplan/load.h"
#include "sparkplan/mapfile.h"
#include "sparkplan/plan.h"

struct pi_node {
    uint32_t off;      /* the line's first byte */
    uint32_t len;      /* the line's length */
    uint16_t depth;    /* 0: the root */
    uint16_t name_off; /* the operator's name, from the line's start */
    uint32_t id;       /* formatted: the operator id; simple: the codegen stage; 0: none */
};
_Static_assert(sizeof(struct pi_node) == 16, "the index is 16 bytes an operator");

struct pi {
    struct pi_node *v;
    uint32_t *parent, *end; /* end: the first operator after the subtree */
    uint32_t *details;      /* formatted: id -> offset of its "(id) Name" line, 0: none */
    uint32_t n, cap, n_ids, details_found;
    uint32_t *stack;        /* the open operators by depth */
    uint32_t stack_cap;
    int in_tree, after_tree;
};

static int grow(struct pi *x)
{
    uint32_t cap = x->cap ? x->cap * 2 : 1u << 16;
    struct pi_node *v = realloc(x->v, (size_t)cap * sizeof *v);
    uint32_t *p = v ? realloc(x->parent, (size_t)cap * 4) : NULL;
    if (v)
        x->v = v;
    if (p)
        x->parent = p;
    uint32_t *e = p ? realloc(x->end, (size_t)cap * 4) : NULL;
    if (e)
        x->end = e;
    if (!v || !p || !e)
        return 0;
    x->cap = cap;
    return 1;
}

/* "(123)" ending the line at e: 123, or 0. */
static uint32_t trailing_id(const char *s, const char *e)
{
    if (e - s < 3 || e[-1] != ')')
        return 0;
    const char *d = e - 1;
    uint32_t id = 0, mul = 1;
    while (d > s && d[-1] >= '0' && d[-1] <= '9') {
        id += (uint32_t)(d[-1] - '0') * mul;
        mul *= 10;
        d--;
    }
    return d > s && d[-1] == '(' && d < e - 1 ? id : 0;
}

static void add_node(struct pi *x, const char *base, const char *s, const char *e, uint32_t depth,
                     uint32_t name)
{
    if (x->n == x->cap && !grow(x))
        return;
    if (depth > 0xFFFF)
        depth = 0xFFFF; /* deeper plans (they exist) need a wider field: not measured here */
    if (depth >= x->stack_cap) {
        uint32_t cap = x->stack_cap ? x->stack_cap * 2 : 256;
        while (cap <= depth)
            cap *= 2;
        uint32_t *st = realloc(x->stack, (size_t)cap * sizeof *st);
        if (!st)
            return;
        x->stack = st;
        x->stack_cap = cap;
    }
    uint32_t k = x->n++;
    const char *nm = s + name;
    uint32_t id = trailing_id(nm, e);
    if (e - nm >= 2 && nm[0] == '*' && nm[1] == ' ') {
        name += 2;
    } else if (e - nm >= 4 && nm[0] == '*' && nm[1] == '(') {
        /* "*(3) Project": the stage */
        id = 0;
        const char *d = nm + 2;
        while (d < e && *d >= '0' && *d <= '9')
            id = id * 10 + (uint32_t)(*d++ - '0');
        name = (uint32_t)(d + 2 - s);
    }
    x->v[k] = (struct pi_node){(uint32_t)(s - base), (uint32_t)(e - s), (uint16_t)depth,
                               (uint16_t)(name > 0xFFFF ? 0xFFFF : name), id};
    x->parent[k] = depth ? x->stack[depth - 1] : UINT32_MAX;
    x->end[k] = 0;
    x->stack[depth] = k;
}

/* One line [s, e) of the plan. */
static void pi_line(struct pi *x, const char *base, const char *s, const char *e)
{
    if (s == e) {
        if (x->in_tree) {
            x->in_tree = 0;
            x->after_tree = 1;
        }
        return;
    }
    if (s[0] == '=') {
        x->in_tree = 1;
        return;
    }
    if (x->in_tree) {
        /* the prefix: blanks and ':' bars, then "+- " or ":- " */
        size_t i = 0, n = (size_t)(e - s);
        for (;;) { /* bound: i only moves forward */
            i = blank_skip_spaces(s, i, n);
            if (i + 1 < n && s[i] == ':' && s[i + 1] != '-') {
                i++;
                continue;
            }
            break;
        }
        if (i + 2 < n && (s[i] == '+' || s[i] == ':') && s[i + 1] == '-' && s[i + 2] == ' ')
            add_node(x, base, s, e, (uint32_t)(i / 3 + 1), (uint32_t)(i + 3));
        else if (i == 0)
            add_node(x, base, s, e, 0, 0); /* the root */
        return;                            /* else a node's continuation line */
    }
    if (x->after_tree && s[0] == '(') {
        if (!x->details) {
            /* the tree is done: ids are at most one per operator */
            x->n_ids = x->n * 2 + 16;
            x->details = calloc(x->n_ids, sizeof *x->details);
            if (!x->details)
                return;
        }
        uint32_t id = 0;
        const char *d = s + 1;
        while (d < e && *d >= '0' && *d <= '9')
            id = id * 10 + (uint32_t)(*d++ - '0');
        if (d < e && *d == ')' && id < x->n_ids) {
            x->details[id] = (uint32_t)(s - base);
            x->details_found++;
        }
    }
}

/* The subtree ends: each operator's subtree ends where the next operator at its depth or
 * above starts.  One backward pass with a stack would do; a forward pass over the parents
 * closes each operator once. */
static void pi_ends(struct pi *x)
{
    for (uint32_t k = 0; k < x->n; k++) /* bound: each operator once */
        x->end[k] = x->n;
    for (uint32_t k = 1; k < x->n; k++) {
        /* the operators closed by k: from k - 1 up its parents while deeper than k */
        uint32_t j = k - 1;
        while (j != UINT32_MAX && x->v[j].depth >= x->v[k].depth && x->end[j] == x->n) {
            x->end[j] = k; /* bound: each operator is closed once */
            j = x->parent[j];
        }
    }
}

static void pi_build(struct pi *x, const char *p, size_t len)
{
    const char *line = p;
    size_t i = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    for (; i + 64 <= len; i += 64) { /* bound: 64 bytes a round */
        uint64_t m = 0;
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16 * (size_t)k));
            m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) << (16 * k);
        }
        for (; m; m &= m - 1) { /* bound: the block's newlines */
            const char *e = p + i + (size_t)__builtin_ctzll(m);
            pi_line(x, p, line, e);
            line = e + 1;
        }
    }
#endif
    for (; i < len; i++) /* bound: the tail */
        if (p[i] == '\n') {
            pi_line(x, p, line, p + i);
            line = p + i + 1;
        }
    if (line < p + len)
        pi_line(x, p, line, p + len);
    pi_ends(x);
}

/* The index against the loader's model of the same file, operator by operator (input order,
 * one plan): depth, parent, subtree end, name, id or stage, details block.  Returns the number
 * of operators that differ, printing the first few. */
static size_t pi_check(const struct pi *x, const char *path)
{
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_path(path, &doc, &err) != SP_OK || doc->src.text != doc->src.bytes) {
        fprintf(stderr, "spbench index: %s: not read in place by the loader\n", path);
        if (doc)
            document_free(doc);
        return 1;
    }
    size_t bad = doc->n_all_nodes != x->n;
    const char *t = doc->src.text;
    for (uint32_t i = 0; i < x->n && i < doc->n_all_nodes; i++) { /* bound: every operator */
        const struct plan_node *n = document_node(doc, i);
        const struct pi_node *e = &x->v[i];
        uint32_t parent =
            plan_node_parent(n) ? plan_node_preorder(plan_node_parent(n)) : UINT32_MAX;
        int32_t want_id = n->id >= 0 ? n->id : n->stage >= 0 ? n->stage : 0;
        const char *why = n->depth != e->depth                   ? "depth"
                          : parent != x->parent[i]               ? "parent"
                          : i + 1 + n->subtree_size != x->end[i] ? "subtree end"
                          : plan_node_name(n).ptr - t != (long)(e->off + e->name_off) ? "name"
                          : (uint32_t)want_id != e->id ? "id"
                          : plan_node_details_text(n).len &&
                                  (n->id < 0 || (uint32_t)n->id >= x->n_ids ||
                                   plan_node_details_text(n).ptr - t != (long)x->details[n->id])
                              ? "details"
                              : NULL;
        if (why && bad++ < 5)
            fprintf(stderr, "spbench index: operator %u (line %u): %s differs\n", i, n->line, why);
    }
    document_free(doc);
    return bad;
}

int bench_index(const char *path, int runs, bool check)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size >= UINT32_MAX) {
        perror(path);
        return 1;
    }
    size_t len = (size_t)st.st_size;
    double *t = calloc((size_t)runs, sizeof *t);
    struct pi x;
    memset(&x, 0, sizeof x);
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        char *p = mapfile_open(fd, len);
        memset(&x, 0, sizeof x);
        if (!p || !t) {
            fprintf(stderr, "spbench index: %s: not mapped (below %u bytes?)\n", path,
                    MAPFILE_MIN_SIZE);
            return 1;
        }
        pi_build(&x, p, len);
        t[r] = bench_now() - t0;
        if (check && r + 1 == runs) {
            size_t bad = pi_check(&x, path);
            printf("check: %zu of %u operators differ from the loader's model\n", bad, x.n);
        }
        mapfile_close(p, len);
        if (r + 1 < runs) {
            free(x.v);
            free(x.parent);
            free(x.end);
            free(x.details);
            free(x.stack);
        }
    }
    close(fd);
    printf("time=%.6f nodes=%u index_mb=%.1f arrays_mb=%.1f details=%u root_end=%u\n",
           bench_median(t, (size_t)runs), x.n, x.n * 16.0 / 1048576,
           (x.n * 24.0 + x.n_ids * 4.0) / 1048576, x.details_found, x.n ? x.end[0] : 0);
    free(x.v);
    free(x.parent);
    free(x.end);
    free(x.details);
    free(x.stack);
    free(t);
    return 0;
}
