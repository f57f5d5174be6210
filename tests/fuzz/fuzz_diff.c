/* libFuzzer target for the plan diff: bytes -> two plans -> normalised, matched, printed.
 *
 * The input's first byte picks the normalisations (its low bits, over DIFF_NORM_DEFAULT's
 * nine); the rest is cut in two at the first line "----" (else at the middle line break),
 * each half loaded as a document.  Besides crashes and sanitizer reports it traps on broken
 * invariants of the merged tree: no node of either side appears twice, depths
 * step down by one at most, subtrees stay inside the list, the summary counts every entry,
 * `equal` means nothing but same, and a plan against itself is equal.  Built by
 * `make fuzz-diff`; not part of the Check runner (no main here).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/diff.h"
#include "sparkplan/diffout.h"
#include "sparkplan/load.h"

#include "fuzz.h"

/* Where the second plan starts: after a line "----", else after the line break nearest the
 * middle, else the middle. */
static size_t cut_point(const char *d, size_t n, size_t *second)
{
    const char *sep = NULL;
    for (const char *p = d; p + 6 <= d + n; p++)
        if (p[0] == '\n' && memcmp(p + 1, "----\n", 5) == 0) {
            sep = p;
            break;
        }
    if (sep) {
        *second = (size_t)(sep - d) + 6;
        return (size_t)(sep - d) + 1;
    }
    size_t mid = n / 2;
    while (mid < n && d[mid] != '\n')
        mid++;
    *second = mid;
    return mid;
}

static struct document *load_part(const char *d, size_t n)
{
    char *copy = fuzz_text((const uint8_t *)d, n);
    if (!copy)
        return NULL;
    struct document *doc = NULL;
    struct diag err = {0};
    enum sp_status s = load_bytes("fuzz", copy, n, &doc, &err);
    check(s == SP_OK || s == SP_ERR_NO_PLAN);
    return s == SP_OK ? doc : NULL;
}

static size_t side_nodes(const struct diff_side *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_parts; i++)
        for (const struct plan_node *r = s->parts[i].first_root; r; r = plan_node_next_sibling(r))
            n += r->subtree_size + 1;
    return n;
}

static int by_address(const void *x, const void *y)
{
    uintptr_t a = (uintptr_t)*(const void *const *)x, b = (uintptr_t)*(const void *const *)y;
    return (a > b) - (a < b);
}

/* No node of side B (b) or A (!b) stands in two entries. */
static int each_once(const struct diff_result *r, int b)
{
    const void **seen = malloc((r->n ? r->n : 1) * sizeof *seen);
    if (!seen)
        return 1;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const void *p = b ? (const void *)r->entries[i].b : (const void *)r->entries[i].a;
        if (p)
            seen[n++] = p;
    }
    qsort(seen, n, sizeof *seen, by_address);
    int ok = 1;
    for (size_t i = 1; i < n; i++)
        ok = ok && seen[i] != seen[i - 1];
    free(seen);
    return ok;
}

/* The merged tree's shape and its bookkeeping. */
static void check_result(const struct diff_result *r, const struct diff_side *a,
                         const struct diff_side *b)
{
    size_t from_a = 0, from_b = 0, counted = 0, not_same = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct diff_entry *e = &r->entries[i];
        check(i + 1 + e->subtree_size <= r->n);
        if (i + 1 < r->n)
            check(r->entries[i + 1].depth <= e->depth + 1);
        else
            check(e->subtree_size == 0);
        check(e->heading ? !e->a && !e->b : e->a || e->b);
        if (e->heading)
            continue;
        from_a += e->a != NULL;
        from_b += e->b != NULL;
        check(e->change != DIFF_ADDED || !e->a);
        check(e->change != DIFF_REMOVED || !e->b);
        not_same += e->change != DIFF_SAME;
        counted++;
    }
    /* At most every node (a whole AQE plan leaves out the Initial Plan a Final replaced),
     * none twice. */
    check(each_once(r, 0) && each_once(r, 1));
    check(from_a <= side_nodes(a) && from_b <= side_nodes(b));
    size_t sum = 0;
    for (int c = DIFF_SAME; c <= DIFF_MOVED; c++)
        sum += r->summary.count[c];
    check(sum == r->n); /* headings count too (as same or changed parts) */
    check(counted <= r->n);
    check(!r->equal || not_same == 0);
}

static void diff_and_check(const struct document *da, const struct document *db,
                           unsigned norm, int want_equal)
{
    struct diff_side a = {0}, b = {0};
    struct diag err = {0};
    if (diff_select(da, "", &a, &err) != SP_OK)
        return;
    if (diff_select(db, "", &b, &err) != SP_OK) {
        diff_side_free(&a);
        return;
    }
    struct diff_result *r = NULL;
    if (diff_sides(&a, &b, norm, &r, &err) == SP_OK) {
        check_result(r, &a, &b);
        if (want_equal)
            check(r->equal);
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            struct diffout_options o = {.utf8 = norm & 1, .fold = norm & 2};
            diffout_text(out, r, &o, &err);
            diffout_json(out, r, &err);
            fclose(out);
        }
        diff_free(r);
    }
    diff_side_free(&a);
    diff_side_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned norm = DIFF_NORM_DEFAULT & ~((unsigned)data[0] & 0x1ffu);
    const char *d = (const char *)data + 1;
    size_t n = size - 1, second;
    size_t first_len = cut_point(d, n, &second);
    struct document *da = load_part(d, first_len);
    struct document *db = load_part(d + second, n - second);
    if (da)
        diff_and_check(da, da, norm, 1);
    if (da && db)
        diff_and_check(da, db, norm, 0);
    if (da)
        document_free(da);
    if (db)
        document_free(db);
    return 0;
}
