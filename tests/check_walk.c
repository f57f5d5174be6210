/* The guided walk runs a plan bottom-up, a stage at a time; the flipped order is post-order. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "sparkplan/sample.h"
#include "sparkplan/walk.h"

static struct walk walk_of(struct document *doc, const struct plan_section *s)
{
    (void)doc;
    struct walk w;
    struct diag err = {0};
    ck_assert_int_eq(walk_section(s, NULL, &w, &err), SP_OK);
    return w;
}

static bool step_is(const struct walk *w, size_t i, const char *prefix)
{
    return i < w->n && slice_starts_with(plan_node_name(w->steps[i].node), prefix);
}

/* join-simple: orders stage, customers stage, then the join stage. */
START_TEST(walk_starts_at_a_scan_and_runs_a_stage_at_a_time)
{
    const struct sample_file *s = sample_find("join-simple.txt");
    struct document *doc = tu_parse(s->data);
    struct walk w = walk_of(doc, doc->first_plan->first_section);
    ck_assert_uint_eq(w.n, 12);
    ck_assert_uint_eq(w.n_stages, 3);
    ck_assert(step_is(&w, 0, "FileScan"));
    ck_assert(step_is(&w, 1, "ColumnarToRow"));
    ck_assert(step_is(&w, 2, "Filter"));
    ck_assert(step_is(&w, 3, "Exchange"));
    ck_assert(w.steps[3].ends_stage);
    /* The customers scan starts a stage of its own: it reads no exchange (QA #8). */
    ck_assert(step_is(&w, 4, "FileScan"));
    ck_assert(w.steps[4].starts_stage && !w.steps[4].crosses_exchange);
    ck_assert_ptr_null(w.steps[4].reads);
    ck_assert_uint_eq(w.steps[4].stage, 2);
    ck_assert(step_is(&w, 7, "Exchange"));
    /* The join stage reads both shuffles: both sorts, then the join, then the project. */
    ck_assert(step_is(&w, 8, "Sort") && step_is(&w, 9, "Sort"));
    /* Each sort consumes an Exchange: each step crosses a stage boundary, and says which. */
    ck_assert(w.steps[8].crosses_exchange && w.steps[8].starts_stage);
    ck_assert_ptr_eq(w.steps[8].reads, w.steps[3].node);
    ck_assert_uint_eq(w.steps[8].reads_stage, 1);
    ck_assert(w.steps[9].crosses_exchange && !w.steps[9].starts_stage);
    ck_assert_ptr_eq(w.steps[9].reads, w.steps[7].node);
    ck_assert_uint_eq(w.steps[9].reads_stage, 2);
    ck_assert(!w.steps[10].crosses_exchange);
    ck_assert(step_is(&w, 10, "SortMergeJoin"));
    ck_assert(step_is(&w, 11, "Project"));
    ck_assert_uint_eq(w.steps[11].stage, 3);
    ck_assert_int_eq(walk_find(&w, w.steps[10].node), 10);
    ck_assert_int_eq(walk_find(&w, NULL), -1);
    walk_free(&w);
    document_free(doc);
}
END_TEST

START_TEST(walk_of_an_aqe_plan_skips_the_initial_plan_and_stage_wrappers)
{
    const struct sample_file *s = sample_find("join-aqe-final.txt");
    struct document *doc = tu_parse(s->data);
    struct walk w = walk_of(doc, doc->first_plan->first_section);
    for (size_t i = 0; i < w.n; i++) {
        ck_assert(!slice_starts_with(plan_node_name(w.steps[i].node), "ShuffleQueryStage"));
        ck_assert(!slice_starts_with(plan_node_name(w.steps[i].node), "AdaptiveSparkPlan"));
        ck_assert(!(w.steps[i].node->flags & NODE_LABEL));
        ck_assert_uint_lt(w.steps[i].node->line, 20);  /* the Initial Plan label is on line 20 */
    }
    ck_assert_uint_eq(w.n_stages, 3);
    ck_assert(step_is(&w, 0, "FileScan"));
    ck_assert(step_is(&w, w.n - 1, "Project"));
    /* The shuffle readers reach their Exchange through the query stage wrapper. */
    size_t readers = 0;
    for (size_t i = 0; i < w.n; i++) {
        if (!w.steps[i].crosses_exchange)
            continue;
        readers++;
        ck_assert(slice_starts_with(plan_node_name(w.steps[i].reads), "Exchange"));
        ck_assert_uint_gt(w.steps[i].reads_stage, 0);
        ck_assert_uint_lt(w.steps[i].reads_stage, w.steps[i].stage);
    }
    ck_assert_uint_eq(readers, 2);
    walk_free(&w);

    /* Scoped to the Initial Plan (the explorer's "Initial" tab): only its nodes. */
    const struct plan_section *sec = doc->first_plan->first_section;
    const struct plan_node *initial = NULL;
    for (uint32_t i = 0; i < sec->n_nodes; i++)
        if ((plan_section_node(sec, i)->flags & NODE_LABEL) &&
            slice_find(plan_node_text(plan_section_node(sec, i)), "Initial") >= 0)
            initial = plan_section_node(sec, i);
    ck_assert_ptr_nonnull(initial);
    struct diag err = {0};
    ck_assert_int_eq(walk_section(sec, initial, &w, &err), SP_OK);
    ck_assert_uint_eq(w.n, 10);  /* Project, join, and per side Sort, Exchange, Filter, scan */
    for (size_t i = 0; i < w.n; i++)
        ck_assert_uint_gt(w.steps[i].node->line, 20);  /* the label is on line 20 */
    walk_free(&w);
    document_free(doc);
}
END_TEST

START_TEST(postorder_puts_children_before_parents_and_survives_deep_chains)
{
    const struct sample_file *s = sample_find("join-simple.txt");
    struct document *doc = tu_parse(s->data);
    const struct plan_node **v;
    size_t n;
    struct diag err = {0};
    ck_assert_int_eq(walk_postorder(doc->first_plan->first_section, &v, &n, &err), SP_OK);
    ck_assert_uint_eq(n, 12);
    ck_assert(slice_starts_with(plan_node_name(v[0]), "FileScan"));
    ck_assert(slice_starts_with(plan_node_name(v[n - 1]), "Project"));
    for (size_t i = 0; i < n; i++)
        for (const struct plan_node *c = plan_node_first_child(v[i]); c;
             c = plan_node_next_sibling(c)) {
            size_t j = 0;
            while (j < n && v[j] != c)
                j++;
            ck_assert_uint_lt(j, i);
        }
    free(v);
    document_free(doc);

    /* 200,000 nested nodes built directly in the model: no recursion anywhere. */
    uint32_t depth = getenv("SPARKPLAN_SANITIZED") ? 50000 : 200000;
    char *bytes = malloc(1);
    bytes[0] = 0;
    doc = document_new("chain", bytes, 0);
    struct plan *pl = document_add_plan(doc, 1);
    struct plan_section *sec = plan_add_section(pl, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 1);
    struct plan_node *prev = NULL;
    for (uint32_t i = 0; i < depth; i++) {
        struct plan_node *nd = plan_node_new(sec);
        nd->line = i + 2;
        plan_node_set_text(
            nd, slice_cstr(i == depth / 2 ? "Exchange SinglePartition" : "Project [a#1]")),
            plan_node_set_name(nd, plan_node_text(nd));
        if (prev)
            plan_node_append_child(prev, nd);
        else
            plan_section_append_root(sec, nd);
        prev = nd;
    }
    ck_assert(document_finish(doc));
    ck_assert_int_eq(walk_postorder(sec, &v, &n, &err), SP_OK);
    ck_assert_uint_eq(n, depth);
    ck_assert_ptr_eq(v[0], prev);                /* the deepest node first */
    ck_assert_ptr_eq(v[n - 1], sec->first_root);
    free(v);
    struct walk w = walk_of(doc, sec);
    ck_assert_uint_eq(w.n, depth);
    ck_assert_uint_eq(w.n_stages, 2);
    ck_assert(w.steps[depth / 2].crosses_exchange);  /* right after the Exchange */
    ck_assert(w.steps[depth / 2 - 1].ends_stage);
    walk_free(&w);
    document_free(doc);
}
END_TEST

Suite *walk_suite(void)
{
    Suite *s = suite_create("walk");
    TCase *tc = tcase_create("order");
    tcase_add_test(tc, walk_starts_at_a_scan_and_runs_a_stage_at_a_time);
    tcase_add_test(tc, walk_of_an_aqe_plan_skips_the_initial_plan_and_stage_wrappers);
    tcase_add_test(tc, postorder_puts_children_before_parents_and_survives_deep_chains);
    suite_add_tcase(s, tc);
    return s;
}
