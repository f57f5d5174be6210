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
 * On two cores (two): a second thread builds the index of the text's second half (from the
 * line after its middle) into arrays of its own, assuming the state its first line shows (in
 * a tree, or in a details list after it); this thread builds the first half's, then appends
 * the second's, its parents before the cut taken from this half's open operators.  When the
 * first half ends in another state than the one assumed, or the second half saw a header,
 * this thread reads the second half again itself: the index is the same either way.
 * With scan, the loader's own quick paste scan (clean.h, in 1 MB pieces) runs beside it on
 * both cores, each thread taking pieces once its half is done (the second from the front,
 * this one from the back), as the loader shares it: the design with today's paste checks.
 * Owns what it maps and allocates and frees it before returning.  Never recurses.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, MADV_HUGEPAGE */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "bench.h"
#include "sparkplan/blank.h"
#include "sparkplan/clean.h"
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
    size_t reserved;        /* the arrays' room: operators the text can hold */
    uint32_t *stack;        /* the open operators by depth */
    uint32_t stack_cap;
    int in_tree, after_tree;
    /* A second half's part (part): stack_set[d] says an operator at depth d was added in the
       part, so stack[d] is the part's own; a parent before the cut is PI_OUTSIDE | its depth.
       Its details go to a list of (id, offset) pairs (ids), the first made when the part had
       n_at_details operators; saw_header: a "==" line (another plan: the part is not used). */
    int part, saw_header;
    int part_in_tree, part_after_tree; /* the state the part assumed at its start */
    unsigned char *stack_set;
    uint32_t *ids;          /* part: id, offset, id, offset, ... */
    uint32_t n_pairs, cap_pairs, n_at_details;
};

#define PI_OUTSIDE 0x80000000u

/* The arrays of at most x->reserved operators (a line of at least two bytes each), as address
 * space asked for as 2 MB pages and made present as they are written: no copy when they grow
 * (a realloc doubling from 64 K operators copied 24 MB and faulted in 4 KB pages, a third of
 * the prototype's time on the formatted plan). */
static void *pi_reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

static int grow(struct pi *x)
{
    if (x->cap || !x->reserved)
        return 0; /* the reservation holds every operator the text can have */
    x->v = pi_reserve(x->reserved * sizeof *x->v);
    x->parent = pi_reserve(x->reserved * 4);
    x->end = pi_reserve(x->reserved * 4);
    if (!x->v || !x->parent || !x->end)
        return 0;
    x->cap = (uint32_t)x->reserved;
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
        if (x->part) {
            unsigned char *set = realloc(x->stack_set, cap);
            if (!set)
                return;
            memset(set + x->stack_cap, 0, cap - x->stack_cap);
            x->stack_set = set;
        }
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
    x->parent[k] = !depth                                    ? UINT32_MAX
                   : !x->part || x->stack_set[depth - 1]     ? x->stack[depth - 1]
                                                              : PI_OUTSIDE | (depth - 1);
    x->end[k] = 0;
    x->stack[depth] = k;
    if (x->part)
        x->stack_set[depth] = 1;
}

/* The tree prefix of the line s[0..n): blanks and ':' bars, then "+- " or ":- ".  *at is
 * where the blanks and bars end; true when the marker follows there. */
static int pi_marker_at(const char *s, size_t n, size_t *at)
{
    size_t i = 0;
    for (;;) { /* bound: i only moves forward */
        i = blank_skip_spaces(s, i, n);
        if (i + 1 < n && s[i] == ':' && s[i + 1] != '-') {
            i++;
            continue;
        }
        break;
    }
    *at = i;
    return i + 2 < n && (s[i] == '+' || s[i] == ':') && s[i + 1] == '-' && s[i + 2] == ' ';
}

/* A part's "(id) Name" line: its pair for the merge (pi_merge). */
static void pi_pair(struct pi *x, const char *s, const char *e, const char *base)
{
    if (!x->n_pairs && !x->cap_pairs)
        x->n_at_details = x->n;
    uint32_t id = 0;
    const char *d = s + 1;
    while (d < e && *d >= '0' && *d <= '9')
        id = id * 10 + (uint32_t)(*d++ - '0');
    if (d >= e || *d != ')')
        return;
    if (x->n_pairs + 2 > x->cap_pairs) {
        uint32_t cap = x->cap_pairs ? x->cap_pairs * 2 : 1u << 16;
        uint32_t *v = realloc(x->ids, (size_t)cap * sizeof *v);
        if (!v)
            return;
        x->ids = v;
        x->cap_pairs = cap;
    }
    x->ids[x->n_pairs++] = id;
    x->ids[x->n_pairs++] = (uint32_t)(s - base);
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
        x->saw_header = 1;
        return;
    }
    if (x->in_tree) {
        size_t i, n = (size_t)(e - s);
        if (pi_marker_at(s, n, &i))
            add_node(x, base, s, e, (uint32_t)(i / 3 + 1), (uint32_t)(i + 3));
        else if (i == 0)
            add_node(x, base, s, e, 0, 0); /* the root */
        return;                            /* else a node's continuation line */
    }
    if (x->after_tree && s[0] == '(' && x->part) {
        pi_pair(x, s, e, base);
        return;
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

/* The lines of p[from, to) (from a line's start; to the text's end or right after a '\n'),
 * offsets from p. */
static void pi_lines(struct pi *x, const char *p, size_t from, size_t to)
{
    const char *line = p + from;
    size_t i = from;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    for (; i + 64 <= to; i += 64) { /* bound: 64 bytes a round */
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
    for (; i < to; i++) /* bound: the tail */
        if (p[i] == '\n') {
            pi_line(x, p, line, p + i);
            line = p + i + 1;
        }
    if (line < p + to)
        pi_line(x, p, line, p + to);
}

static void pi_build(struct pi *x, const char *p, size_t len)
{
    x->reserved = len / 2 + 16;
    pi_lines(x, p, 0, len);
    pi_ends(x);
}

static void pi_free(struct pi *x)
{
    if (x->v)
        munmap(x->v, x->reserved * sizeof *x->v);
    if (x->parent)
        munmap(x->parent, x->reserved * 4);
    if (x->end)
        munmap(x->end, x->reserved * 4);
    free(x->details);
    free(x->stack);
    free(x->stack_set);
    free(x->ids);
    memset(x, 0, sizeof *x);
}

/* ---- on two cores ------------------------------------------------------------------- */

struct pi_half {
    struct pi x;
    const char *p;
    size_t from, to;
    struct clean_quick_parts *scan; /* the paste's quick scan beside the index (NULL: none) */
};

static void *pi_half_main(void *arg)
{
    struct pi_half *h = arg;
    pi_lines(&h->x, h->p, h->from, h->to);
    /* Bound: one piece a round, each taken once. */
    while (h->scan && clean_quick_parts_step(h->scan, true))
        ;
    return NULL;
}

/* Does the line at p[from..) start with a tree prefix?  The part's first line says which
 * state it starts in. */
static int pi_tree_line_at(const char *p, size_t from, size_t len)
{
    const char *e = memchr(p + from, '\n', len - from);
    size_t i;
    return pi_marker_at(p + from, e ? (size_t)(e - (p + from)) : len - from, &i);
}

/* The part h (built from h->from on) appended to x (built up to there): 1, or 0 when the
 * part cannot be used (x must then read h's lines itself). */
static int pi_merge(struct pi *x, struct pi_half *h)
{
    struct pi *y = &h->x;
    if (y->saw_header || x->in_tree != y->part_in_tree || x->after_tree != y->part_after_tree)
        return 0;
    if (x->details && y->n)
        return 0; /* operators after a details list: not one plan */
    if (!x->cap && y->n && !grow(x))
        return 0;
    if (x->cap < x->n + y->n)
        return 0;
    uint32_t base = x->n;
    if (y->n_pairs && !x->details) {
        /* made where the sequential pass makes it, at the first block after the tree; made
           before anything is appended, so that a failure leaves x as it was */
        x->n_ids = (base + y->n_at_details) * 2 + 16;
        x->details = calloc(x->n_ids, sizeof *x->details);
        if (!x->details)
            return 0;
    }
    memcpy(x->v + base, y->v, (size_t)y->n * sizeof *y->v);
    for (uint32_t k = 0; k < y->n; k++) { /* bound: the part's operators */
        uint32_t q = y->parent[k];
        if (q == UINT32_MAX)
            x->parent[base + k] = UINT32_MAX;
        else if (q & PI_OUTSIDE)
            x->parent[base + k] = (q & ~PI_OUTSIDE) < x->stack_cap ? x->stack[q & ~PI_OUTSIDE] : UINT32_MAX;
        else
            x->parent[base + k] = base + q;
    }
    x->n += y->n;
    if (y->n_pairs) {
        for (uint32_t k = 0; k < y->n_pairs; k += 2) /* bound: the part's blocks */
            if (y->ids[k] < x->n_ids) {
                x->details[y->ids[k]] = y->ids[k + 1];
                x->details_found++;
            }
    }
    return 1;
}

/* Whether the last pi_build_two used its second half's index (0: read again, or one core),
 * and what its quick scan said (1: the text needs clean-up; -1: none ran). */
static int pi_merged, pi_dirty = -1;

/* The pieces of the loader's quick scan (clean.h) are this long (load.c's SCAN_PIECE). */
#define PI_SCAN_PIECE ((size_t)1 << 20)

static void pi_build_two(struct pi *x, const char *p, size_t len, bool scan)
{
    pi_merged = 0;
    pi_dirty = -1;
    const char *mid = len > 1 << 20 ? memchr(p + len / 2, '\n', len - len / 2) : NULL;
    if (!mid) {
        pi_build(x, p, len);
        return;
    }
    struct pi_half h = {.p = p, .from = (size_t)(mid + 1 - p), .to = len,
                        .scan = scan ? clean_quick_parts_new(p, len, PI_SCAN_PIECE) : NULL};
    x->reserved = len / 2 + 16;
    h.x.reserved = (len - h.from) / 2 + 16;
    h.x.part = 1;
    if (h.from < len && pi_tree_line_at(p, h.from, len))
        h.x.in_tree = 1;
    else
        h.x.after_tree = 1;
    h.x.part_in_tree = h.x.in_tree;
    h.x.part_after_tree = h.x.after_tree;
    pthread_t th;
    int two = pthread_create(&th, NULL, pi_half_main, &h) == 0;
    pi_lines(x, p, 0, h.from);
    /* This thread's share of the scan: pieces from the back, as the loader's first thread
       takes them once its parse is done.  Bound: one piece a round, each taken once. */
    while (h.scan && clean_quick_parts_step(h.scan, false))
        ;
    if (two)
        pthread_join(th, NULL);
    if (h.scan) {
        pi_dirty = clean_quick_parts_verdict(h.scan);
        clean_quick_parts_free(h.scan);
    }
    if (two && pi_merge(x, &h))
        pi_merged = 1;
    else
        pi_lines(x, p, h.from, len);
    pi_free(&h.x);
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

int bench_index(const char *path, int runs, bool check, bool two, bool scan)
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
        if (!p || !t) {
            fprintf(stderr, "spbench index: %s: not mapped (below %u bytes?)\n", path,
                    MAPFILE_MIN_SIZE);
            return 1;
        }
        if (two || scan)
            pi_build_two(&x, p, len, scan);
        else
            pi_build(&x, p, len);
        t[r] = bench_now() - t0;
        if (check && r + 1 == runs) {
            size_t bad = pi_check(&x, path);
            printf("check: %zu of %u operators differ from the loader's model\n", bad, x.n);
        }
        mapfile_close(p, len);
        if (r + 1 < runs)
            pi_free(&x);
    }
    close(fd);
    printf("time=%.6f nodes=%u index_mb=%.1f arrays_mb=%.1f details=%u root_end=%u halves=%d "
           "scan=%s\n",
           bench_median(t, (size_t)runs), x.n, x.n * 16.0 / 1048576,
           (x.n * 24.0 + x.n_ids * 4.0) / 1048576, x.details_found, x.n ? x.end[0] : 0,
           (two || scan) && pi_merged ? 2 : 1,
           pi_dirty < 0 ? "none" : pi_dirty ? "dirty" : "clean");
    pi_free(&x);
    free(t);
    return 0;
}
