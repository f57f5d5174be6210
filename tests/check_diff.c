/* Plan diff: what a person comparing two plans must see — noise normalised away, one
 * removed Filter as one removed node, a join strategy as a replacement, AQE's wrappers as
 * added without moving what they wrap, an accelerator's operators matched to Spark's — and
 * the command line's statuses, JSON and selections, on hand-made pairs and real ones. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonlint.h"
#include "sparkplan/diff.h"
#include "sparkplan/diffrows.h"
#include "sparkplan/sample.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static char *norm(const char *text, unsigned bits)
{
    static char buf[4][512];
    static int slot;
    char *b = buf[slot++ % 4];
    struct diff_idmap *m = diff_idmap_new();
    ck_assert_ptr_nonnull(m);
    diff_normalize(slice_cstr(text), bits, m, b, 512);
    diff_idmap_free(m);
    return b;
}

struct pair {
    struct document *a, *b;
    struct diff_side sa, sb;
    struct diff_result *r;
};

static void pair_diff_specs(struct pair *p, const char *ta, const char *spec_a, const char *tb,
                            const char *spec_b, unsigned bits)
{
    struct diag err = {0};
    p->a = tu_parse(ta);
    p->b = tb ? tu_parse(tb) : p->a;
    ck_assert_int_eq(diff_select(p->a, spec_a, &p->sa, &err), SP_OK);
    ck_assert_int_eq(diff_select(p->b, spec_b, &p->sb, &err), SP_OK);
    ck_assert_int_eq(diff_sides(&p->sa, &p->sb, bits, &p->r, &err), SP_OK);
}

static void pair_diff(struct pair *p, const char *ta, const char *tb, unsigned bits)
{
    pair_diff_specs(p, ta, "", tb, "", bits);
}

static void pair_free(struct pair *p)
{
    diff_free(p->r);
    diff_side_free(&p->sa);
    diff_side_free(&p->sb);
    if (p->b != p->a)
        document_free(p->b);
    document_free(p->a);
}

static uint32_t count(const struct pair *p, enum diff_change c)
{
    return p->r->summary.count[c];
}

/* The first entry whose node (B's, else A's) has a name starting with prefix. */
static const struct diff_entry *entry_named(const struct pair *p, const char *prefix)
{
    for (size_t k = 0; k < p->r->n; k++) {
        const struct diff_entry *e = &p->r->entries[k];
        const struct plan_node *n = e->b ? e->b : e->a;
        if (n && slice_starts_with(plan_node_name(n), prefix))
            return e;
    }
    return NULL;
}

static bool line_has(const char *p, size_t ll, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= ll; i++)
        if (memcmp(p + i, needle, n) == 0)
            return true;
    return false;
}

/* join-simple with its first Filter taken out (its subtree moved up one level) and every
 * id renumbered: "#N" -> "#N+1000", "[plan_id=N]" -> "[id=#N+7]" (the older form). */
static char *filter_removed_copy(const char *src)
{
    size_t len = strlen(src);
    char *out = malloc(len * 2 + 64), *o = out;
    ck_assert_ptr_nonnull(out);
    const char *p = src;
    long cut_col = -1;
    bool removed = false;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t ll = eol ? (size_t)(eol - p) : strlen(p);
        long col = -1;
        for (size_t i = 0; i + 2 < ll; i++) {
            if ((p[i] == '+' || p[i] == ':') && p[i + 1] == '-' && p[i + 2] == ' ') {
                col = (long)i;
                break;
            }
            if (p[i] != ' ' && p[i] != ':')
                break;
        }
        if (cut_col >= 0 && col <= cut_col)
            cut_col = -1;
        if (!removed && col >= 0 && line_has(p, ll, "Filter (")) {
            removed = true;
            cut_col = col;
            p += ll + (eol ? 1 : 0);
            continue;
        }
        size_t skip_at = cut_col >= 0 ? (size_t)cut_col : ll + 1;
        for (size_t i = 0; i < ll; i++) {
            if (i >= skip_at && i < skip_at + 3)
                continue;
            if (p[i] == '#' && i + 1 < ll && p[i + 1] >= '0' && p[i + 1] <= '9') {
                long v = strtol(p + i + 1, NULL, 10);
                while (i + 1 < ll && p[i + 1] >= '0' && p[i + 1] <= '9')
                    i++;
                o += sprintf(o, "#%ld", v + 1000);
                continue;
            }
            if (ll - i > 9 && memcmp(p + i, "[plan_id=", 9) == 0) {
                long v = strtol(p + i + 9, NULL, 10);
                i += 9;
                while (i < ll && p[i] != ']')
                    i++;
                o += sprintf(o, "[id=#%ld]", v + 7);
                continue;
            }
            *o++ = p[i];
        }
        *o++ = '\n';
        p += ll + (eol ? 1 : 0);
    }
    *o = '\0';
    ck_assert(removed);
    return out;
}

/* ---- normalisation ----------------------------------------------------------------------- */

START_TEST(normalisation_removes_each_kind_of_noise_and_each_can_be_switched_off)
{
    unsigned all = DIFF_NORM_DEFAULT;
    /* Expression ids: per name, by first appearance; a second id of a name counts on. */
    ck_assert_str_eq(norm("Project [amount#11, b#3L, amount#40]", all),
                     "Project [amount#1, b#1L, amount#2]");
    ck_assert_str_eq(norm("Project [amount#x, b#X]", all), "Project [amount#1, b#1]");
    ck_assert_str_eq(norm("Project [amount#11]", all & ~DIFF_NORM_EXPRIDS), "Project [amount#11]");
    /* Both forms of plan ids become one. */
    ck_assert_str_eq(norm("Exchange hashpartitioning(a#1, 200), ENSURE_REQUIREMENTS, [plan_id=92]",
                          all),
                     norm("Exchange hashpartitioning(a#5, 200), ENSURE_REQUIREMENTS, [id=#7]", all));
    ck_assert_str_eq(norm("[plan_id=92]", all & ~DIFF_NORM_PLANIDS), "[plan_id=92]");
    /* Formatted ids, operator ids, query stage ids, subquery numbers, codegen ids. */
    ck_assert_str_eq(norm("Scan parquet default.t (12)", all), "Scan parquet default.t ");
    ck_assert_str_eq(norm("Scan parquet default.t (12)", all & ~DIFF_NORM_OPIDS),
                     "Scan parquet default.t (12)");
    ck_assert_str_eq(norm("ShuffleQueryStage 3", all), "ShuffleQueryStage #");
    ck_assert_str_eq(norm("Reuses operator id: 27", all), "Reuses operator id: #");
    ck_assert_str_eq(norm("Subquery:2 Hosting operator id = 5", all),
                     "Subquery:# Hosting operator id = #");
    ck_assert_str_eq(norm("Subquery:2", all & ~DIFF_NORM_SUBQUERY), "Subquery:2");
    ck_assert_str_eq(norm("[codegen id : 4]", all), "[codegen id : #]");
    ck_assert_str_eq(norm("scalar-subquery#42 dynamicpruning#9", all),
                     "scalar-subquery#1 dynamicpruning#1");
    /* Statistics, locations, hashes, the catalog prefix. */
    ck_assert_str_eq(norm("Relation t, Statistics(sizeInBytes=1.0 KiB, rowCount=3)", all),
                     "Relation t");
    ck_assert_str_eq(norm("Relation t, Statistics(sizeInBytes=1.0 KiB)", all & ~DIFF_NORM_STATS),
                     "Relation t, Statistics(sizeInBytes=1.0 KiB)");
    ck_assert_str_eq(norm("Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/a/b], "
                          "PushedFilters: []", all),
                     "Format: Parquet, Location: ..., PushedFilters: []");
    ck_assert_str_eq(norm("Location: InMemoryFileIndex[file:/a]", all & ~DIFF_NORM_LOCATION),
                     "Location: InMemoryFileIndex[file:/a]");
    ck_assert_str_eq(norm("org.apache.Foo@3f2a1b", all), "org.apache.Foo@#");
    ck_assert_str_eq(norm("org.apache.Foo@3f2a1b", all & ~DIFF_NORM_HASHES), "org.apache.Foo@3f2a1b");
    ck_assert_str_eq(norm("Scan parquet spark_catalog.default.t", all), "Scan parquet default.t");
    ck_assert_str_eq(norm("Scan parquet spark_catalog.default.t", all & ~DIFF_NORM_CATALOG),
                     "Scan parquet spark_catalog.default.t");
    /* --strict: nothing touched. */
    ck_assert_str_eq(norm("Project [a#1], [plan_id=3] (4)", 0), "Project [a#1], [plan_id=3] (4)");
}
END_TEST

START_TEST(ignore_lists_parse_into_bits_and_unknown_words_are_errors)
{
    unsigned bits = 0;
    struct diag err = {0};
    ck_assert_int_eq(diff_norm_parse("ids,catalog", &bits, &err), SP_OK);
    ck_assert_uint_eq(bits, DIFF_NORM_IDS | DIFF_NORM_CATALOG);
    ck_assert_int_eq(diff_norm_parse("all", &bits, &err), SP_OK);
    ck_assert_uint_eq(bits, DIFF_NORM_DEFAULT);
    ck_assert_int_eq(diff_norm_parse("none", &bits, &err), SP_OK);
    ck_assert_uint_eq(bits, 0);
    ck_assert_int_eq(diff_norm_parse("stats,idz", &bits, &err), SP_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.message, "idz"));
    char buf[128];
    ck_assert_str_eq(diff_norm_format(DIFF_NORM_STATS | DIFF_NORM_CATALOG, buf, sizeof buf),
                     "stats,catalog");
    ck_assert_str_eq(diff_norm_format(0, buf, sizeof buf), "none");
}
END_TEST

/* ---- matching and classification -------------------------------------------------------- */

START_TEST(a_plan_against_itself_is_equal)
{
    const struct sample_file *s = sample_find("join-formatted.txt");
    struct pair p;
    pair_diff(&p, s->data, s->data, DIFF_NORM_DEFAULT);
    ck_assert(p.r->equal);
    ck_assert_uint_eq(count(&p, DIFF_SAME), p.r->n);
    ck_assert_uint_gt(p.r->n, 10);
    char buf[256];
    diff_summary_format(&p.r->summary, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "no differences");
    pair_free(&p);
}
END_TEST

START_TEST(one_filter_removed_and_ids_renumbered_is_exactly_one_removed_node)
{
    const struct sample_file *s = sample_find("join-simple.txt");
    char *copy = filter_removed_copy(s->data);
    struct pair p;
    pair_diff(&p, s->data, copy, DIFF_NORM_DEFAULT);
    ck_assert(!p.r->equal);
    ck_assert_uint_eq(count(&p, DIFF_REMOVED), 1);
    ck_assert_uint_eq(count(&p, DIFF_ADDED), 0);
    ck_assert_uint_eq(count(&p, DIFF_CHANGED), 0);
    ck_assert_uint_eq(count(&p, DIFF_REPLACED), 0);
    ck_assert_uint_eq(count(&p, DIFF_MOVED), 0);
    const struct diff_entry *e = entry_named(&p, "Filter");
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->change, DIFF_REMOVED);
    ck_assert_ptr_null(e->b);
    /* The removed Filter sits above what it filtered in the merged tree. */
    ck_assert_uint_eq((e + 1)->depth, e->depth + 1);
    ck_assert(slice_starts_with(plan_node_name((e + 1)->b), "ColumnarToRow"));
    pair_free(&p);
    /* --strict sees every renumbered id. */
    pair_diff(&p, s->data, copy, 0);
    ck_assert_uint_gt(count(&p, DIFF_CHANGED), 5);
    pair_free(&p);
    free(copy);
}
END_TEST

START_TEST(plan_id_forms_and_ids_alone_compare_equal_unless_asked_not_to)
{
    /* The same plan with every id renumbered and the older [id=#N] form. */
    const char *plain = "== Physical Plan ==\n"
                        "*(1) Project [a#1, b#2]\n"
                        "+- Exchange hashpartitioning(a#1, 200), ENSURE_REQUIREMENTS, [plan_id=92]\n"
                        "   +- LocalTableScan [a#1, b#2]\n";
    const char *older = "== Physical Plan ==\n"
                        "*(1) Project [a#71, b#72]\n"
                        "+- Exchange hashpartitioning(a#71, 200), ENSURE_REQUIREMENTS, [id=#5]\n"
                        "   +- LocalTableScan [a#71, b#72]\n";
    struct pair p;
    pair_diff(&p, plain, older, DIFF_NORM_DEFAULT);
    ck_assert(p.r->equal);
    pair_free(&p);
    pair_diff(&p, plain, older, DIFF_NORM_DEFAULT & ~DIFF_NORM_PLANIDS);
    ck_assert(!p.r->equal);
    ck_assert_uint_eq(count(&p, DIFF_CHANGED), 1);
    const struct diff_entry *e = entry_named(&p, "Exchange");
    ck_assert_int_eq(e->change, DIFF_CHANGED);
    ck_assert_uint_eq(e->n_fields, 1);
    pair_free(&p);
}
END_TEST

START_TEST(sort_merge_against_broadcast_is_a_replaced_join_with_its_sorts_and_shuffles)
{
    const struct sample_file *s = sample_find("broadcast-vs-sortmerge.txt");
    struct pair p;
    pair_diff_specs(&p, s->data, "#1", NULL, "#2", DIFF_NORM_DEFAULT);
    ck_assert_uint_eq(count(&p, DIFF_REPLACED), 1);
    ck_assert_str_eq(p.r->summary.replaced[0].a, "SortMergeJoin");
    ck_assert_str_eq(p.r->summary.replaced[0].b, "BroadcastHashJoin");
    ck_assert_uint_eq(count(&p, DIFF_MOVED), 0);
    char buf[512];
    diff_summary_format(&p.r->summary, 1, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "SortMergeJoin\xe2\x86\x92" "BroadcastHashJoin \xc3\x97" "1"));
    ck_assert_ptr_nonnull(strstr(buf, "\xe2\x88\x92" "2 Sort"));
    ck_assert_ptr_nonnull(strstr(buf, "+1 BroadcastExchange"));
    /* The orders Exchange went, the customers one became the BroadcastExchange. */
    diff_summary_format(&p.r->summary, 0, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "SortMergeJoin->BroadcastHashJoin x1"));
    const struct diff_entry *e = entry_named(&p, "BroadcastHashJoin");
    ck_assert_int_eq(e->change, DIFF_REPLACED);
    ck_assert(slice_starts_with(plan_node_name(e->a), "SortMergeJoin"));
    pair_free(&p);
}
END_TEST

START_TEST(aqe_wrappers_are_added_without_moving_what_they_wrap)
{
    const struct sample_file *s = sample_find("aqe-initial-final.txt");
    struct pair p;
    pair_diff_specs(&p, s->data, "#2@initial", NULL, "#2@final", DIFF_NORM_DEFAULT);
    ck_assert_uint_eq(count(&p, DIFF_MOVED), 0);
    ck_assert_uint_eq(count(&p, DIFF_REPLACED), 1);
    for (size_t k = 0; k < p.r->n; k++) {
        const struct diff_entry *e = &p.r->entries[k];
        if (e->change == DIFF_ADDED)
            ck_assert_msg(slice_starts_with(plan_node_name(e->b), "AQEShuffleRead") ||
                              slice_starts_with(plan_node_name(e->b), "ShuffleQueryStage") ||
                              slice_starts_with(plan_node_name(e->b), "BroadcastQueryStage") ||
                              slice_starts_with(plan_node_name(e->b), "ColumnarToRow") ||
                              slice_starts_with(plan_node_name(e->b), "BroadcastExchange"),
                          "unexpected added node %.*s", (int)plan_node_name(e->b).len,
                          plan_node_name(e->b).ptr);
        /* Both shuffles are still there, the same, below their new query stages. */
        if (e->b && slice_starts_with(plan_node_name(e->b), "Exchange"))
            ck_assert_int_eq(e->change, DIFF_SAME);
    }
    pair_free(&p);
}
END_TEST

START_TEST(changed_fields_name_what_differs_with_both_values)
{
    const char *a = "== Physical Plan ==\n"
                    "*(1) Filter (isnotnull(status#3) AND (status#3 = PAID))\n"
                    "+- *(1) ColumnarToRow\n"
                    "   +- FileScan parquet db.orders[id#1,status#3] Batched: true, "
                    "DataFilters: [isnotnull(status#3), (status#3 = PAID)], Format: Parquet, "
                    "PushedFilters: [IsNotNull(status), EqualTo(status,PAID)], "
                    "ReadSchema: struct<id:int,status:string>\n";
    const char *b = "== Physical Plan ==\n"
                    "*(1) Filter (isnotnull(status#9) AND (upper(status#9) = PAID))\n"
                    "+- *(1) ColumnarToRow\n"
                    "   +- FileScan parquet db.orders[id#8,status#9] Batched: true, "
                    "DataFilters: [isnotnull(status#9), (upper(status#9) = PAID)], "
                    "Format: Parquet, PushedFilters: [IsNotNull(status)], "
                    "ReadSchema: struct<id:int,status:string>\n";
    struct pair p;
    pair_diff(&p, a, b, DIFF_NORM_DEFAULT);
    ck_assert_uint_eq(count(&p, DIFF_CHANGED), 2);
    const struct diff_entry *e = entry_named(&p, "FileScan");
    ck_assert_int_eq(e->change, DIFF_CHANGED);
    ck_assert_uint_eq(e->n_fields, 2);
    ck_assert(tu_slice_is(e->fields[0].key, "DataFilters"));
    ck_assert(tu_slice_is(e->fields[1].key, "PushedFilters"));
    ck_assert(tu_slice_is(e->fields[1].a, "[IsNotNull(status), EqualTo(status,PAID)]"));
    ck_assert(tu_slice_is(e->fields[1].b, "[IsNotNull(status)]"));
    pair_free(&p);
}
END_TEST

START_TEST(accelerator_operators_match_the_spark_ones_they_stand_for)
{
    const char *spark = "== Physical Plan ==\n"
                        "*(1) Project [a#1]\n"
                        "+- *(1) Filter (a#1 > 3)\n"
                        "   +- *(1) ColumnarToRow\n"
                        "      +- FileScan parquet db.t[a#1] Batched: true\n";
    const char *comet = "== Physical Plan ==\n"
                        "CometColumnarToRow\n"
                        "+- CometProject [a#5]\n"
                        "   +- CometFilter (a#5 > 3)\n"
                        "      +- CometScan parquet db.t[a#5] Batched: true\n";
    struct pair p;
    pair_diff(&p, spark, comet, DIFF_NORM_DEFAULT);
    ck_assert_uint_eq(count(&p, DIFF_REPLACED), 0);
    ck_assert_uint_eq(count(&p, DIFF_MOVED), 0);
    const struct diff_entry *e = entry_named(&p, "CometProject");
    ck_assert_ptr_nonnull(e->a);
    ck_assert(slice_starts_with(plan_node_name(e->a), "Project"));
    e = entry_named(&p, "CometFilter");
    ck_assert_ptr_nonnull(e->a);
    ck_assert_int_eq(e->change, DIFF_SAME);
    e = entry_named(&p, "CometScan");
    ck_assert_ptr_nonnull(e->a);
    ck_assert(slice_starts_with(plan_node_name(e->a), "FileScan"));
    ck_assert_str_eq(diff_canonical_op(e->b).ptr, "FileScan");
    pair_free(&p);
}
END_TEST

START_TEST(a_subtree_under_another_parent_is_moved)
{
    const char *a = "== Physical Plan ==\n"
                    "Union\n"
                    ":- Union\n"
                    ":  :- Filter (x#1 > 1)\n"
                    ":  :  +- LocalTableScan [x#1]\n"
                    ":  :- LocalTableScan [b#2]\n"
                    ":  :- LocalTableScan [c#3]\n"
                    ":  +- LocalTableScan [g#4]\n"
                    "+- Union\n"
                    "   :- LocalTableScan [d#5]\n"
                    "   +- LocalTableScan [e#6]\n";
    const char *b = "== Physical Plan ==\n"
                    "Union\n"
                    ":- Union\n"
                    ":  :- LocalTableScan [b#2]\n"
                    ":  :- LocalTableScan [c#3]\n"
                    ":  +- LocalTableScan [g#4]\n"
                    "+- Union\n"
                    "   :- LocalTableScan [d#5]\n"
                    "   :- LocalTableScan [e#6]\n"
                    "   +- Filter (x#1 > 1)\n"
                    "      +- LocalTableScan [x#1]\n";
    struct pair p;
    pair_diff(&p, a, b, DIFF_NORM_DEFAULT);
    ck_assert_uint_eq(count(&p, DIFF_MOVED), 1);
    ck_assert_uint_eq(count(&p, DIFF_ADDED) + count(&p, DIFF_REMOVED) + count(&p, DIFF_CHANGED), 0);
    const struct diff_entry *e = entry_named(&p, "Filter");
    ck_assert_int_eq(e->change, DIFF_MOVED);
    /* What it holds moved with it: the scan below is the same, not moved. */
    ck_assert_int_eq((e + 1)->change, DIFF_SAME);
    pair_free(&p);
}
END_TEST

/* Found by tests/fuzz/fuzz_diff.c: a subtree paired whole in the second identical-subtree
 * round while other passes had already paired nodes inside it showed those nodes twice
 * (moved under one parent, same under another). */
START_TEST(no_node_stands_in_two_rows_of_the_merged_tree)
{
    const char *a = "== Parsed Logical Plan ==\n"
                    "CreateViewCommand `v`, false, true, LocalTempView\n"
                    "   +- Barrier\n"
                    "         +- Aggregate [k#1], [k#1, count(1) AS n#2]\n"
                    "            +- Project [k#1]\n"
                    "               +- Relation[k#1] parquet\n"
                    "\n"
                    "== Analyzed Logical Plan ==\n"
                    "CreateViewCommand `v`, false, true, LocalTempView\n"
                    "   +- Barrier\n"
                    "         +- Aggregate [k#1], [k#1, count(1) AS n#2]\n"
                    "            +- Project [k#1]\n"
                    "               +- Relation[k#1] parquet\n"
                    "\n"
                    "== Optimized Logical Plan ==\n"
                    "CreateViewCommand `v`, false, true, LocalTempView\n";
    const char *b = "== Analyzed Logical Plan ==\n"
                    "   +- Barrier\n"
                    "         +- Aggregate [k#1], [k#1, count(1) AS n#2]\n"
                    "            +- Project [k#1]\n"
                    "               +- Relation[k#1] parquet\n"
                    "\n"
                    "== Physical Plan ==\n"
                    "Execute CreateViewCommand\n"
                    "   +- CreateViewCommand `v`, false, true, LocalTempView\n"
                    "         +- Barrier\n"
                    "               +- Aggregate [k#1], [k#1, count(1) AS n#2]\n"
                    "                  +- Project [k#1]\n"
                    "                     +- Relation[k#1] parquet\n";
    struct pair p;
    pair_diff(&p, a, b, DIFF_NORM_DEFAULT);
    for (size_t i = 0; i < p.r->n; i++)
        for (size_t j = i + 1; j < p.r->n; j++) {
            const struct diff_entry *x = &p.r->entries[i], *y = &p.r->entries[j];
            ck_assert_msg(!x->a || x->a != y->a, "A's line %u in rows %zu and %zu",
                          (unsigned)x->a->line, i, j);
            ck_assert_msg(!x->b || x->b != y->b, "B's line %u in rows %zu and %zu",
                          (unsigned)x->b->line, i, j);
        }
    pair_free(&p);
}
END_TEST

START_TEST(sections_pair_by_heading_and_selections_say_what_is_wrong)
{
    const struct sample_file *s = sample_find("join-extended.txt");
    struct pair p;
    pair_diff(&p, s->data, s->data, DIFF_NORM_DEFAULT);
    ck_assert(p.r->equal);
    ck_assert(p.r->entries[0].heading);
    ck_assert_ptr_nonnull(p.r->entries[0].part_a);
    pair_free(&p);
    /* Analyzed against optimized: Catalyst's rewrites. */
    pair_diff_specs(&p, s->data, "@analyzed", NULL, "@optimized", DIFF_NORM_DEFAULT);
    ck_assert(!p.r->equal);
    ck_assert(!p.r->entries[0].heading);
    pair_free(&p);

    struct document *doc = tu_parse(s->data);
    struct diff_side side;
    struct diag err = {0};
    ck_assert_int_eq(diff_select(doc, "#3", &side, &err), SP_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.message, "fewer plans"));
    ck_assert_int_eq(diff_select(doc, "@bogus", &side, &err), SP_ERR_USAGE);
    ck_assert_int_eq(diff_select(doc, "@final", &side, &err), SP_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.message, "adaptive"));
    ck_assert_int_eq(diff_select(doc, "2", &side, &err), SP_ERR_USAGE);
    ck_assert_int_eq(diff_select(doc, "#1@4", &side, &err), SP_OK);
    ck_assert_uint_eq(side.n_parts, 1);
    ck_assert_int_eq(side.parts[0].section->kind, SECTION_PHYSICAL);
    diff_side_free(&side);
    document_free(doc);
}
END_TEST

/* A chain built in memory, depth nodes: Filter / ColumnarToRow, one Exchange in 1,000;
 * the node at `odd` says "(a#1 > 7)". */
static struct document *chain_doc(uint32_t depth, uint32_t odd)
{
    char *bytes = malloc(1);
    bytes[0] = 0;
    struct document *doc = document_new("chain", bytes, 0);
    struct plan *pl = document_add_plan(doc, 1);
    struct plan_section *sec =
        plan_add_section(pl, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 1);
    struct plan_node *prev = NULL;
    for (uint32_t i = 0; i < depth; i++) {
        struct plan_node *nd = plan_node_new(sec);
        nd->line = i + 2;
        nd->stage = nd->id = -1;
        const char *text = i == odd             ? "Filter (a#1 > 7)"
                           : i % 1000 == 999    ? "Exchange SinglePartition, [plan_id=1]"
                           : i % 3 == 0         ? "ColumnarToRow"
                                                : "Filter (a#1 > 0)";
        plan_node_set_text(nd, slice_cstr(text)), plan_node_set_name(nd, plan_node_text(nd));
        if (prev)
            plan_node_append_child_after(prev, NULL, nd);
        else
            plan_section_append_root(sec, nd);
        prev = nd;
    }
    ck_assert(document_finish(doc));
    return doc;
}

/* 100,000 levels (50,000 under the sanitizers), one node changed in the middle: no
 * recursion anywhere, and exactly one change. */
START_TEST(deep_chains_diff_without_recursion)
{
    uint32_t depth = getenv("SPARKPLAN_SANITIZED") ? 50000 : 100000;
    uint32_t odd = depth / 2 + 1; /* a Filter: not a ColumnarToRow, not an Exchange */
    while (odd % 3 == 0 || odd % 1000 == 999)
        odd++;
    struct document *a = chain_doc(depth, UINT32_MAX), *b = chain_doc(depth, odd);
    struct diff_side sa, sb;
    struct diff_result *r = NULL;
    struct diag err = {0};
    ck_assert_int_eq(diff_select(a, "", &sa, &err), SP_OK);
    ck_assert_int_eq(diff_select(b, "", &sb, &err), SP_OK);
    ck_assert_int_eq(diff_sides(&sa, &sb, DIFF_NORM_DEFAULT, &r, &err), SP_OK);
    char sum[512];
    diff_summary_format(&r->summary, 0, sum, sizeof sum);
    ck_assert_msg(r->n == depth, "%zu entries: %s", r->n, sum);
    ck_assert_uint_eq(r->summary.count[DIFF_CHANGED], 1);
    ck_assert_uint_eq(r->summary.count[DIFF_SAME], depth - 1);
    ck_assert_uint_eq(r->entries[depth - 1].depth, depth - 1);
    diff_free(r);
    diff_side_free(&sa);
    diff_side_free(&sb);
    document_free(a);
    document_free(b);
}
END_TEST

/* ---- the view's model (src/rows/diffrows.c) ---------------------------------------------- */

static char *span_text(struct slice s, struct diff_span sp)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)(sp.end - sp.start), s.ptr + sp.start);
    return buf;
}

START_TEST(differing_words_are_the_ones_the_other_value_lacks)
{
    struct diff_span sp[8];
    struct slice a = slice_cstr("[IsNotNull(status), EqualTo(status,PAID)]");
    struct slice b = slice_cstr("[IsNotNull(status)]");
    ck_assert_uint_eq(diff_words(a, b, sp, 8), 1);
    ck_assert_str_eq(span_text(a, sp[0]), "EqualTo(status,PAID)");
    ck_assert_uint_eq(diff_words(b, a, sp, 8), 0);
    /* Reordered words are not differences; a changed number is. */
    a = slice_cstr("hashpartitioning(a#1, b#2, 200)");
    b = slice_cstr("hashpartitioning(b#2, a#1, 5)");
    ck_assert_uint_eq(diff_words(a, b, sp, 8), 1);
    ck_assert_str_eq(span_text(a, sp[0]), "200");
    /* Two separate differences, and more than the caller has room for is still counted. */
    a = slice_cstr("Inner BuildRight false");
    b = slice_cstr("LeftOuter BuildRight true");
    ck_assert_uint_eq(diff_words(a, b, sp, 8), 2);
    ck_assert_str_eq(span_text(a, sp[0]), "Inner");
    ck_assert_str_eq(span_text(a, sp[1]), "false");
    ck_assert_uint_eq(diff_words(a, b, sp, 1), 2);
    ck_assert_uint_eq(diff_words(slice_cstr(""), b, sp, 8), 0);
}
END_TEST

START_TEST(the_view_folds_unchanged_subtrees_and_steps_between_differences)
{
    const struct sample_file *s = sample_find("broadcast-vs-sortmerge.txt");
    struct pair p;
    pair_diff_specs(&p, s->data, "#1", NULL, "#2", DIFF_NORM_DEFAULT);
    struct diffrows dr;
    ck_assert(diffrows_init(&dr, p.r, true));
    /* Both Filter subtrees (Filter, ColumnarToRow, scan) fold into one row each. */
    ck_assert_uint_eq(dr.n_rows, p.r->n - 4);
    size_t first = diffrows_next_change(&dr, SIZE_MAX, 1);
    ck_assert_uint_eq(first, 1);
    const struct diff_entry *e = &p.r->entries[dr.rows[first]];
    ck_assert_int_eq(e->change, DIFF_REPLACED);
    char buf[160];
    diff_describe(e, buf, sizeof buf);
    ck_assert_str_eq(buf, "Replaced: SortMergeJoin became BroadcastHashJoin: arguments");
    size_t second = diffrows_next_change(&dr, first, 1);
    diff_describe(&p.r->entries[dr.rows[second]], buf, sizeof buf);
    ck_assert_str_eq(buf, "Removed: Sort");
    ck_assert_uint_eq(diffrows_next_change(&dr, second, -1), first);
    ck_assert_uint_eq(diffrows_next_change(&dr, first, -1), SIZE_MAX);
    size_t last = diffrows_next_change(&dr, dr.n_rows, -1);
    diff_describe(&p.r->entries[dr.rows[last]], buf, sizeof buf);
    ck_assert_str_eq(buf, "Added: BroadcastExchange");
    ck_assert_uint_eq(diffrows_next_change(&dr, last, 1), SIZE_MAX);
    /* The folded Filter row hides two rows; unfolding shows one level, the next folded. */
    size_t row = last + 1;
    ck_assert_uint_eq(diffrows_hidden(&dr, row), 2);
    diffrows_toggle(&dr, row);
    ck_assert_uint_eq(diffrows_hidden(&dr, row), 0);
    ck_assert_uint_eq(diffrows_hidden(&dr, row + 1), 1);
    ck_assert_uint_eq(dr.n_rows, p.r->n - 3);
    diffrows_toggle(&dr, row + 1);
    ck_assert_uint_eq(diffrows_row_of(&dr, dr.rows[row] + 2), row + 2);
    diffrows_toggle(&dr, row);
    ck_assert_uint_eq(diffrows_row_of(&dr, dr.rows[row] + 2), SIZE_MAX);
    diffrows_free(&dr);
    pair_free(&p);
}
END_TEST

Suite *diff_suite(void)
{
    Suite *s = suite_create("diff");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, normalisation_removes_each_kind_of_noise_and_each_can_be_switched_off);
    tcase_add_test(tc, ignore_lists_parse_into_bits_and_unknown_words_are_errors);
    tcase_add_test(tc, a_plan_against_itself_is_equal);
    tcase_add_test(tc, no_node_stands_in_two_rows_of_the_merged_tree);
    tcase_add_test(tc, one_filter_removed_and_ids_renumbered_is_exactly_one_removed_node);
    tcase_add_test(tc, plan_id_forms_and_ids_alone_compare_equal_unless_asked_not_to);
    tcase_add_test(tc, sort_merge_against_broadcast_is_a_replaced_join_with_its_sorts_and_shuffles);
    tcase_add_test(tc, aqe_wrappers_are_added_without_moving_what_they_wrap);
    tcase_add_test(tc, changed_fields_name_what_differs_with_both_values);
    tcase_add_test(tc, accelerator_operators_match_the_spark_ones_they_stand_for);
    tcase_add_test(tc, a_subtree_under_another_parent_is_moved);
    tcase_add_test(tc, sections_pair_by_heading_and_selections_say_what_is_wrong);
    tcase_add_test(tc, deep_chains_diff_without_recursion);
    tcase_add_test(tc, differing_words_are_the_ones_the_other_value_lacks);
    tcase_add_test(tc, the_view_folds_unchanged_subtrees_and_steps_between_differences);
    suite_add_tcase(s, tc);
    return s;
}

/* ---- the command line ---------------------------------------------------------------------- */

static bool json_ok(const char *s)
{
    size_t at = 0;
    const char *msg = jsonlint_check(s, strlen(s), &at);
    if (msg)
        fprintf(stderr, "JSON: %s at %zu\n", msg, at);
    return msg == NULL;
}

START_TEST(cli_exit_status_is_0_equal_1_different_2_error)
{
    int st = -1;
    char *out = tu_runf(&st, "%s --diff samples/join-simple.txt samples/join-simple.txt",
                        tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "diff: no differences"));
    /* An unchanged tree folds to one line. */
    ck_assert_ptr_nonnull(strstr(out, "[=11]"));
    free(out);
    out = tu_runf(&st, "LANG=C.UTF-8 %s --diff 'samples/broadcast-vs-sortmerge.txt#1' "
                       "'samples/broadcast-vs-sortmerge.txt#2'", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert_ptr_nonnull(strstr(out, "\xe2\x87\x84   *(2) BroadcastHashJoin"));
    ck_assert_ptr_nonnull(strstr(out, "[was: SortMergeJoin"));
    ck_assert_ptr_nonnull(strstr(out, "\n-     *(2) Sort"));
    /* The customers shuffle became the broadcast: it shows below the removed Exchange. */
    ck_assert_ptr_nonnull(strstr(out, "\n-       Exchange hashpartitioning(customer_id#16L"));
    ck_assert_ptr_nonnull(strstr(out, "\n+         BroadcastExchange"));
    ck_assert_ptr_nonnull(strstr(out, "diff: SortMergeJoin\xe2\x86\x92" "BroadcastHashJoin"));
    free(out);
    out = tu_runf(&st, "LANG=C %s --diff --ascii 'samples/broadcast-vs-sortmerge.txt#1' "
                       "'samples/broadcast-vs-sortmerge.txt#2'", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert_ptr_nonnull(strstr(out, "\n!   *(2) BroadcastHashJoin"));
    ck_assert_ptr_nonnull(strstr(out, "diff: SortMergeJoin->BroadcastHashJoin x1"));
    free(out);
    out = tu_runf(&st, "%s --diff samples/join-simple.txt /nonexistent/plan.txt 2>&1",
                  tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(out, "sparkplan: /nonexistent/plan.txt: "));
    free(out);
    out = tu_runf(&st, "%s --diff 'samples/join-simple.txt#7' samples/join-simple.txt 2>&1",
                  tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(out, "fewer plans"));
    free(out);
    out = tu_runf(&st, "%s --diff a b c 2>&1", tu_binary());
    ck_assert_int_eq(st, 2);
    free(out);
    out = tu_runf(&st, "%s --diff --ignore=idz a b 2>&1", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(out, "unknown normalisation 'idz'"));
    free(out);
}
END_TEST

START_TEST(cli_one_adaptive_file_compares_initial_with_final)
{
    int st = -1;
    char *out = tu_runf(&st, "%s --diff --json samples/join-aqe-final.txt", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert(json_ok(out));
    ck_assert_ptr_nonnull(strstr(out, "\"moved\":0"));
    ck_assert_ptr_nonnull(strstr(out, "\"added_ops\":[{\"name\":"));
    ck_assert_ptr_null(strstr(out, "\"change\":\"moved\""));
    free(out);
    /* --strict sees the ids and codegen stages the default does not. */
    out = tu_runf(&st, "%s --diff samples/join-extended.txt samples/join-extended.txt --strict",
                  tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "ignoring none"));
    free(out);
}
END_TEST

START_TEST(cli_json_has_the_documented_shape)
{
    int st = -1;
    char *out = tu_runf(&st, "%s --diff --json 'samples/broadcast-vs-sortmerge.txt#1' "
                             "'samples/broadcast-vs-sortmerge.txt#2'", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert(json_ok(out));
    const char *head = "{\"equal\":false,\"summary\":{\"same\":7,\"changed\":0,\"replaced\":1,"
                       "\"added\":1,\"removed\":4,\"moved\":0,\"text\":\"SortMergeJoin\xe2\x86\x92"
                       "BroadcastHashJoin \xc3\x97" "1 \xc2\xb7 \xe2\x88\x92" "2 Exchange \xc2\xb7 "
                       "\xe2\x88\x92" "2 Sort \xc2\xb7 +1 BroadcastExchange\",";
    ck_assert_msg(strncmp(out, head, strlen(head)) == 0, "%.300s", out);
    ck_assert_ptr_nonnull(strstr(out, "\"replacements\":[{\"a\":\"SortMergeJoin\","
                                      "\"b\":\"BroadcastHashJoin\",\"count\":1}]"));
    ck_assert_ptr_nonnull(strstr(out, ",\"nodes\":[{\"change\":\"same\",\"a\":{\"line\":2,"
                                      "\"name\":\"Project\",\"id\":null},\"b\":{\"line\":17,"));
    ck_assert_ptr_nonnull(strstr(out, "{\"change\":\"removed\",\"a\":{\"line\":4,\"name\":\"Sort\","
                                      "\"id\":null},\"b\":null,\"fields\":[]}"));
    ck_assert_ptr_nonnull(strstr(out, "\"fields\":[{\"key\":\"arguments\",\"a\":"));
    free(out);
    out = tu_runf(&st, "%s --diff --json samples/join-formatted.txt samples/join-formatted.txt",
                  tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert(json_ok(out));
    ck_assert(strncmp(out, "{\"equal\":true,", 14) == 0);
    free(out);
}
END_TEST

START_TEST(cli_sample_pairs_show_their_lesson)
{
    int st = -1;
    char *out = tu_runf(&st, "LANG=C.UTF-8 %s --diff samples/diff-pushdown.txt", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert_ptr_nonnull(strstr(out, "- PushedFilters: [IsNotNull(country), EqualTo(country,DE)]\n"));
    ck_assert_ptr_nonnull(strstr(out, "+ PushedFilters: [IsNotNull(country)]\n"));
    ck_assert_ptr_nonnull(strstr(out, "diff: 2 changed (2 same, 2 changed,"));
    free(out);
    out = tu_runf(&st, "LANG=C.UTF-8 %s --diff samples/diff-analyzed-optimized.txt", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert_ptr_nonnull(strstr(out, "diff: \xe2\x88\x92" "4 SubqueryAlias \xc2\xb7 \xe2\x88\x92"
                                      "1 Filter \xc2\xb7 +3 Project \xc2\xb7 +2 Filter ("));
    /* The join stays; the filter above it went, one below each side came. */
    ck_assert_ptr_nonnull(strstr(out, "\n        Join Inner, (customer_id#13L = customer_id#16L)\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n-   Filter (((amount#14 > cast(100 as double))"));
    free(out);
    out = tu_runf(&st, "%s --diff samples/broadcast-vs-sortmerge.txt --json", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert_ptr_nonnull(strstr(out, "\"replaced\":1,\"added\":1,\"removed\":4,\"moved\":0,"));
    free(out);
}
END_TEST

/* ---- real pairs from the corpus ------------------------------------------------------------ */

static char *corpus_diff(int *st, const char *opts, const char *a, const char *b)
{
    const char *dir = tu_corpus_dir();
    if (!dir)
        return NULL;
    return tu_runf(st, "%s --diff %s '%s/%s' %s%s%s%s", tu_binary(), opts, dir, a, b ? "'" : "",
                   b ? dir : "", b ? "/" : "", b ? b : "");
}

START_TEST(corpus_the_same_query_across_spark_versions_is_equal)
{
    static const char *const pairs[][2] = {
        {"spark-tpcds-v1_4/q95.explain.txt", "spark3.4-snapshot-tpcds-v1_4/q95.explain.txt'"},
        {"spark-tpcds-v1_4/q64.explain.txt", "spark3.5-snapshot-tpcds-v1_4/q64.explain.txt'"},
        {"spark-tpcds-v1_4/q14a.explain.txt", "spark3.4-snapshot-tpcds-v1_4/q14a.explain.txt'"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        int st = -1;
        char *out = corpus_diff(&st, "", pairs[i][0], pairs[i][1]);
        if (!out)
            return;
        ck_assert_msg(st == 0, "%s: exit %d\n%s", pairs[i][0], st, out);
        free(out);
        /* The files do differ as printed: in their ids. */
        out = corpus_diff(&st, "--strict", pairs[i][0], pairs[i][1]);
        ck_assert_int_eq(st, 1);
        free(out);
    }
}
END_TEST

START_TEST(corpus_the_catalog_prefix_is_noise_unless_asked)
{
    /* Spark 3.2 printed "default.item" where 4.x prints "spark_catalog.default.item". */
    int st = -1;
    char *out = corpus_diff(&st, "", "spark3.2-tpcds-v1_4/q72.simplified.txt",
                            "spark-tpcds-v1_4/q72.simplified.txt'");
    if (!out)
        return;
    ck_assert_int_eq(st, 0);
    free(out);
    out = corpus_diff(&st, "--ignore=ids,stats,location,hashes --diff-full",
                      "spark3.2-tpcds-v1_4/q72.simplified.txt",
                      "spark-tpcds-v1_4/q72.simplified.txt'");
    ck_assert_int_eq(st, 1);
    ck_assert_ptr_nonnull(strstr(out, "\n~ "));
    ck_assert_ptr_nonnull(strstr(out, "Scan parquet spark_catalog.default.item"));
    ck_assert_ptr_nonnull(strstr(out, "ignoring exprids,planids,opids,codegen,subquery,stats,"
                                      "location,hashes)"));
    /* --diff-full: no folded subtree. */
    ck_assert_ptr_null(strstr(out, "[="));
    free(out);
}
END_TEST

START_TEST(corpus_sf100_q72_replaces_broadcast_joins_with_sort_merge_joins)
{
    int st = -1;
    char *out = corpus_diff(&st, "--json", "spark-tpcds-v1_4/q72.explain.txt",
                            "spark-tpcds-v1_4-sf100/q72.explain.txt'");
    if (!out)
        return;
    ck_assert_int_eq(st, 1);
    ck_assert(json_ok(out));
    ck_assert_ptr_nonnull(strstr(out, "{\"a\":\"BroadcastHashJoin\",\"b\":\"SortMergeJoin\""));
    ck_assert_ptr_nonnull(strstr(out, "{\"name\":\"Sort\",\"count\":4}"));
    ck_assert_ptr_nonnull(strstr(out, "{\"name\":\"Exchange\",\"count\":4}"));
    ck_assert_ptr_nonnull(strstr(out, "{\"change\":\"replaced\",\"a\":{\"line\":13,"
                                      "\"name\":\"BroadcastHashJoin\",\"id\":49},\"b\":{\"line\":13,"
                                      "\"name\":\"SortMergeJoin\",\"id\":49}"));
    free(out);
    /* In the tree, the sort-merge join's added Sort and Exchange sit right below it. */
    out = corpus_diff(&st, "--ascii", "spark-tpcds-v1_4/q72.explain.txt",
                      "spark-tpcds-v1_4-sf100/q72.explain.txt'");
    const char *smj = strstr(out, "! ");
    ck_assert_ptr_nonnull(smj);
    ck_assert_ptr_nonnull(strstr(smj, "SortMergeJoin Inner (49)  [was: BroadcastHashJoin"));
    const char *sort = strstr(smj, "\n+ ");
    ck_assert_ptr_nonnull(sort);
    ck_assert(strncmp(strstr(sort, "*("), "*(11) Sort (37)", 15) == 0);
    ck_assert(strncmp(strstr(strchr(sort + 1, '\n'), "Exchange"), "Exchange (36)", 13) == 0);
    free(out);
}
END_TEST

START_TEST(corpus_aqe_initial_against_final_adds_query_stages_and_moves_nothing)
{
    static const char *const files[] = {
        "eventlogs-rapids-tools/spark3.2.1-aqeshuffleread.exec0.003.aqe-update.txt",
        "eventlogs-rapids-tools/dataproc-spark3.5.3-nds-q72.exec24.028.aqe-update.txt",
        "eventlogs-rapids-tools/emr-spark3.3.0-amzn-aqe.exec0.003.aqe-update.txt",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        int st = -1;
        char *out = corpus_diff(&st, "--json", files[i], NULL);
        if (!out)
            return;
        ck_assert_int_eq(st, 1);
        ck_assert(json_ok(out));
        ck_assert_msg(strstr(out, "\"changed\":0,\"replaced\":0,") &&
                          strstr(out, "\"removed\":0,\"moved\":0,"),
                      "%s: %.300s", files[i], out);
        ck_assert_ptr_nonnull(strstr(out, "QueryStage\",\"count\":"));
        free(out);
    }
}
END_TEST

START_TEST(corpus_gluten_plan_matches_its_vanilla_counterpart)
{
    int st = -1;
    char *out = corpus_diff(&st, "--json", "gluten-velox-tpch/v1-spark35.q1.txt",
                            "spark-tpch/q1.explain.txt'");
    if (!out)
        return;
    ck_assert_int_eq(st, 1);
    ck_assert(json_ok(out));
    ck_assert_ptr_nonnull(strstr(out, "\"replaced\":0,"));
    /* Each Velox operator is paired with the Spark one it stands for. */
    ck_assert_ptr_nonnull(strstr(out, "\"name\":\"FilterExecTransformer\",\"id\":2},"
                                      "\"b\":{\"line\":"));
    ck_assert_ptr_nonnull(strstr(out, "\"name\":\"FlushableHashAggregateExecTransformer\","
                                      "\"id\":4},\"b\":{"));
    ck_assert_ptr_nonnull(strstr(out, "\"name\":\"Scan parquet spark_catalog.default.lineitem\""));
    free(out);
    /* And a Gluten file's own Initial plan (Spark's operators) against its Final one. */
    out = corpus_diff(&st, "", "gluten-velox-tpch/v1-spark35.q12.txt", NULL);
    ck_assert_int_eq(st, 1);
    ck_assert_ptr_nonnull(strstr(out, "SortMergeJoin\xe2\x86\x92ShuffledHashJoinExecTransformer"));
    free(out);
}
END_TEST

Suite *diff_cli_suite(void)
{
    Suite *s = suite_create("diff_cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, cli_exit_status_is_0_equal_1_different_2_error);
    tcase_add_test(tc, cli_one_adaptive_file_compares_initial_with_final);
    tcase_add_test(tc, cli_json_has_the_documented_shape);
    tcase_add_test(tc, cli_sample_pairs_show_their_lesson);
    tcase_add_test(tc, corpus_the_same_query_across_spark_versions_is_equal);
    tcase_add_test(tc, corpus_the_catalog_prefix_is_noise_unless_asked);
    tcase_add_test(tc, corpus_sf100_q72_replaces_broadcast_joins_with_sort_merge_joins);
    tcase_add_test(tc, corpus_aqe_initial_against_final_adds_query_stages_and_moves_nothing);
    tcase_add_test(tc, corpus_gluten_plan_matches_its_vanilla_counterpart);
    suite_add_tcase(s, tc);
    return s;
}
