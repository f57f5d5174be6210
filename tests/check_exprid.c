/* Expression ids: what a node mentions, who else mentions an id, and who produces it. */
#include "testutil.h"

#include <string.h>

#include "sparkplan/exprid.h"
#include "sparkplan/sample.h"

static bool ref_is(const struct exprid_ref *r, const char *text, const char *name, uint64_t id)
{
    return slice_eq_cstr(r->text, text) && slice_eq_cstr(r->name, name) && r->id == id;
}

START_TEST(ids_in_text_keep_their_names_and_skip_plan_ids)
{
    struct exprid_ref r[8];
    size_t n = exprid_scan(slice_cstr("Project [customer_id#10L, amount#11, sum(DISTINCT val)#12L, "
                                      "count(1)#9L AS n#13L, amount#11] [id=#55]"), r, 8);
    ck_assert_uint_eq(n, 5);  /* amount#11 once; [id=#55] is not an expression id */
    ck_assert(ref_is(&r[0], "customer_id#10L", "customer_id", 10));
    ck_assert(ref_is(&r[1], "amount#11", "amount", 11));
    ck_assert(ref_is(&r[2], "sum(DISTINCT val)#12L", "sum(DISTINCT val)", 12));
    ck_assert(ref_is(&r[3], "count(1)#9L", "count(1)", 9));
    ck_assert(ref_is(&r[4], "n#13L", "n", 13));

    n = exprid_scan(slice_cstr("Filter (isnotnull(key#x) AND (key#x > 0)), [plan_id=x]"), r, 8);
    ck_assert_uint_eq(n, 1);
    ck_assert(r[0].normalized);
    ck_assert(slice_eq_cstr(r[0].name, "key"));

    /* More ids than room: the count says so. */
    n = exprid_scan(slice_cstr("[a#1, b#2, c#3]"), r, 2);
    ck_assert_uint_eq(n, 3);

    ck_assert(exprid_mentions(slice_cstr("hashpartitioning(customer_id#13L, 200)"), 13));
    ck_assert(!exprid_mentions(slice_cstr("hashpartitioning(customer_id#135L, 200)"), 13));
    ck_assert(!exprid_mentions(slice_cstr("Subquery scalar-subquery#5, [id=#13]"), 13));
    uint64_t id;
    ck_assert(exprid_parse("customer_id#13L", &id) && id == 13);
    ck_assert(exprid_parse("#7", &id) && id == 7);
    ck_assert(!exprid_parse("key#x", &id));
}
END_TEST

/* join-formatted: customer_id#13L comes from the orders scan and meets customer_id#16L. */
START_TEST(every_node_mentioning_an_id_is_found_and_the_scan_produces_it)
{
    const struct sample_file *s = sample_find("join-formatted.txt");
    struct document *doc = tu_parse(s->data);
    struct exprid_hits h;
    struct diag err = {0};
    ck_assert_int_eq(exprid_find(doc, NULL, NULL, 13, &h, &err), SP_OK);
    ck_assert_uint_ge(h.n, 5);  /* scan, filter, exchange, sort, join, project (input) */
    ck_assert_ptr_nonnull(h.producer);
    ck_assert(
        slice_starts_with(plan_node_name(h.producer), "Scan parquet spark_catalog.default.orders"));
    bool join_seen = false;
    for (size_t i = 0; i < h.n; i++) {
        join_seen = join_seen || slice_starts_with(plan_node_name(h.nodes[i]), "SortMergeJoin");
        if (i)
            ck_assert_uint_lt(h.nodes[i - 1]->line, h.nodes[i]->line);  /* input order */
    }
    ck_assert(join_seen);
    exprid_hits_free(&h);

    /* Every id the join mentions: both keys. */
    const struct plan_node *join = NULL;
    for (size_t i = 0; i < doc->n_all_nodes; i++)
        if (slice_starts_with(plan_node_name(document_node(doc, i)), "SortMergeJoin"))
            join = document_node(doc, i);
    ck_assert_ptr_nonnull(join);
    struct exprid_ref r[16];
    size_t n = exprid_node_refs(join, r, 16);
    ck_assert_uint_eq(n, 2);
    ck_assert(ref_is(&r[0], "customer_id#13L", "customer_id", 13));
    ck_assert(ref_is(&r[1], "customer_id#16L", "customer_id", 16));
    document_free(doc);
}
END_TEST

START_TEST(an_alias_produces_its_id)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "*(1) Filter (doubled#20 > 10.0)\n"
        "+- *(1) Project [(amount#11 * 2.0) AS doubled#20]\n"
        "   +- *(1) LocalTableScan [amount#11]\n");
    struct exprid_hits h;
    struct diag err = {0};
    ck_assert_int_eq(exprid_find(doc, doc->first_plan, NULL, 20, &h, &err), SP_OK);
    ck_assert_uint_eq(h.n, 2);
    ck_assert_ptr_nonnull(h.producer);
    ck_assert(slice_eq_cstr(plan_node_name(h.producer), "Project"));
    exprid_hits_free(&h);

    ck_assert_int_eq(exprid_find(doc, doc->first_plan, NULL, 11, &h, &err), SP_OK);
    ck_assert_uint_eq(h.n, 2);
    ck_assert(slice_eq_cstr(plan_node_name(h.producer), "LocalTableScan"));
    exprid_hits_free(&h);

    ck_assert_int_eq(exprid_find(doc, NULL, NULL, 999, &h, &err), SP_OK);
    ck_assert_uint_eq(h.n, 0);
    ck_assert_ptr_null(h.producer);
    exprid_hits_free(&h);
    document_free(doc);
}
END_TEST

Suite *exprid_suite(void)
{
    Suite *s = suite_create("exprid");
    TCase *tc = tcase_create("ids");
    tcase_add_test(tc, ids_in_text_keep_their_names_and_skip_plan_ids);
    tcase_add_test(tc, every_node_mentioning_an_id_is_found_and_the_scan_produces_it);
    tcase_add_test(tc, an_alias_produces_its_id);
    suite_add_tcase(s, tc);
    return s;
}
