/* The parser: each explain mode and each trap of the format, as small stories. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sparkplan/lex.h"
#include "sparkplan/parse.h"

static struct plan_section *section_n(struct document *doc, unsigned plan, unsigned sec)
{
    struct plan *p = doc->first_plan;
    while (p && plan--)
        p = p->next;
    ck_assert_ptr_nonnull(p);
    struct plan_section *s = p->first_section;
    while (s && sec--)
        s = s->next;
    ck_assert_ptr_nonnull(s);
    return s;
}

/* "name@depth" of every node in pre-order, for compact tree assertions. */
static void outline(const struct plan_section *s, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (const struct plan_node *n = s->first_root; n; n = plan_node_next_preorder(n)) {
        int k = snprintf(out + used, cap - used, "%s%.*s@%u", used ? " " : "",
                         (int)plan_node_name(n).len, plan_node_name(n).ptr, n->depth);
        ck_assert(k > 0 && (size_t)k < cap - used);
        used += (size_t)k;
    }
}

static bool ends_with(struct slice s, const char *c)
{
    size_t k = strlen(c);
    return s.len >= k && memcmp(s.ptr + s.len - k, c, k) == 0;
}

static bool has_warning(struct document *doc, uint32_t line, const char *needle)
{
    for (struct plan_warning *w = doc->first_warning; w; w = w->next)
        if ((line == 0 || w->line == line) && strstr(w->message, needle))
            return true;
    return false;
}

START_TEST(simple_mode_builds_the_tree_with_stages)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "*(2) HashAggregate(keys=[k#33], functions=[sum(v#34)])\n"
                                    "+- Exchange hashpartitioning(k#33, 200), true, [id=#59]\n"
                                    "   +- *(1) HashAggregate(keys=[k#33], functions=[partial_sum(v#34)])\n"
                                    "      +- *(1) LocalTableScan [k#33, v#34]\n");
    ck_assert_uint_eq(doc->n_plans, 1);
    struct plan_section *s = section_n(doc, 0, 0);
    ck_assert_int_eq(s->kind, SECTION_PHYSICAL);
    tu_assert_slice_is(s->title, "== Physical Plan ==");
    char buf[512];
    outline(s, buf, sizeof buf);
    ck_assert_str_eq(buf, "HashAggregate@0 Exchange@1 HashAggregate@2 LocalTableScan@3");
    struct plan_node *r = s->first_root;
    ck_assert_int_eq(r->stage, 2);
    ck_assert_int_eq(tu_child(r, 0)->stage, -1);
    ck_assert_int_eq(plan_section_node(s, 3)->stage, 1);
    ck_assert_int_eq(r->id, -1);
    ck_assert_uint_eq(r->line, 2);
    tu_assert_slice_is(plan_node_text(plan_section_node(s, 3)), "LocalTableScan [k#33, v#34]");
    document_free(doc);
}
END_TEST

START_TEST(extended_mode_gives_four_sections_and_the_schema_line)
{
    struct document *doc = tu_parse(
        "== Parsed Logical Plan ==\n"
        "'Project [unresolvedalias('sum(distinct 'val))]\n"
        "+- 'UnresolvedRelation [explain_temp1], [], false\n"
        "\n"
        "== Analyzed Logical Plan ==\n"
        "sum(DISTINCT val): bigint\n"
        "Aggregate [sum(distinct val#x) AS sum(DISTINCT val)#xL]\n"
        "+- SubqueryAlias spark_catalog.default.explain_temp1\n"
        "   +- Relation spark_catalog.default.explain_temp1[key#x,val#x] parquet\n"
        "\n"
        "== Optimized Logical Plan ==\n"
        "Aggregate [sum(distinct val#x) AS sum(DISTINCT val)#xL]\n"
        "+- Project [val#x]\n"
        "   +- Relation spark_catalog.default.explain_temp1[key#x,val#x] parquet\n"
        "\n"
        "== Physical Plan ==\n"
        "*HashAggregate(keys=[], functions=[sum(distinct val#x)])\n"
        "+- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=x]\n");
    ck_assert_uint_eq(doc->n_plans, 1);
    ck_assert_uint_eq(doc->first_plan->n_sections, 4);
    struct plan_section *parsed = section_n(doc, 0, 0), *an = section_n(doc, 0, 1);
    ck_assert_int_eq(parsed->kind, SECTION_PARSED);
    tu_assert_slice_is(plan_node_name(parsed->first_root), "Project");
    tu_assert_slice_is(plan_node_text(parsed->first_root),
                          "'Project [unresolvedalias('sum(distinct 'val))]");
    ck_assert_int_eq(an->kind, SECTION_ANALYZED);
    tu_assert_slice_is(an->schema, "sum(DISTINCT val): bigint");
    tu_assert_slice_is(plan_node_name(an->first_root), "Aggregate");
    ck_assert_uint_eq(an->first_root->line, 7);
    ck_assert_uint_eq(an->n_nodes, 3);
    ck_assert_int_eq(section_n(doc, 0, 2)->kind, SECTION_OPTIMIZED);
    struct plan_section *ph = section_n(doc, 0, 3);
    ck_assert_int_eq(ph->kind, SECTION_PHYSICAL);
    /* The SQL test harness rewrites "*(N) " to "*": a bare star, stage unknown. */
    ck_assert_int_eq(ph->first_root->stage, 0);
    tu_assert_slice_is(plan_node_name(ph->first_root), "HashAggregate");
    document_free(doc);
}
END_TEST

START_TEST(analyzed_plan_without_schema_keeps_its_root)
{
    struct document *doc = tu_parse("== Analyzed Logical Plan ==\n"
                                    "SetCommand (spark.sql.x,Some(1))\n"
                                    "\n"
                                    "== Physical Plan ==\n"
                                    "Execute SetCommand\n"
                                    "   +- SetCommand (spark.sql.x,Some(1))\n");
    struct plan_section *an = section_n(doc, 0, 0);
    ck_assert_uint_eq(an->schema.len, 0);
    ck_assert_uint_eq(an->n_nodes, 1);
    tu_assert_slice_is(plan_node_name(an->first_root), "SetCommand");
    struct plan_section *ph = section_n(doc, 0, 1);
    tu_assert_slice_is(plan_node_name(ph->first_root), "Execute SetCommand");
    /* A command hangs its inner child two levels down. */
    struct plan_node *inner = tu_child(ph->first_root, 0);
    ck_assert(inner->flags & NODE_INNER);
    tu_assert_slice_is(plan_node_name(inner), "SetCommand");
    document_free(doc);
}
END_TEST

START_TEST(prefix_units_not_colons_inside_expressions)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "Union\n"
        ":- Project [concat(a#1, :- ) AS x#3, b#2]\n"
        ":  +- Filter (a#1 = +- :  )\n"
        ":     +- Scan ExistingRDD[a#1,b#2]\n"
        "+- Project [map(k:  v) AS m#4]\n"
        "   +- Range (0, 5, step=1, splits=8)\n");
    char buf[512];
    outline(section_n(doc, 0, 0), buf, sizeof buf);
    ck_assert_str_eq(buf,
                     "Union@0 Project@1 Filter@2 Scan ExistingRDD@3 Project@1 Range@2");
    struct plan_node *f = plan_section_node(section_n(doc, 0, 0), 2);
    tu_assert_slice_is(plan_node_text(f), "Filter (a#1 = +- :  )");
    document_free(doc);
}
END_TEST

START_TEST(prefix_reader_counts_units_in_long_mixed_prefixes)
{
    char line[256];
    for (unsigned k = 0; k < 40; k++) {
        size_t n = 0;
        for (unsigned u = 0; u < k; u++) {
            const char *unit = (u * 7 + k) % 3 == 0 ? ":  " : "   ";
            memcpy(line + n, unit, 3);
            n += 3;
        }
        memcpy(line + n, "+- Project [a:  b]", 18);
        struct lex_prefix pf;
        lex_tree_prefix(line, n + 18, &pf);
        ck_assert_uint_eq(pf.units, k + 1);
        ck_assert(pf.branch);
        ck_assert(!pf.spaces_only);
        lex_tree_prefix(line, n, &pf);
        ck_assert_uint_eq(pf.units, k);
        ck_assert(!pf.branch);
        bool bars = memchr(line, ':', n) != NULL;
        ck_assert(pf.spaces_only == !bars);
    }
    struct lex_prefix pf;
    lex_tree_prefix(" +- x", 5, &pf); /* one space is not a unit */
    ck_assert_uint_eq(pf.units, 0);
    lex_tree_prefix("+-x", 3, &pf);
    ck_assert_uint_eq(pf.units, 0);
}
END_TEST

START_TEST(inner_children_hang_two_levels_below_their_node)
{
    struct document *doc = tu_parse(
        "== Optimized Logical Plan ==\n"
        "Project [c#x], Statistics(sizeInBytes=1.0 B)\n"
        "+- Filter (d#x > scalar-subquery#x []), Statistics(sizeInBytes=1.0 B)\n"
        "   :  +- Aggregate [max(c#x) AS m#xL], Statistics(sizeInBytes=16.0 B, rowCount=1)\n"
        "   :     +- Relation t[c#x] parquet, Statistics(sizeInBytes=1.0 B)\n"
        "   +- Relation u[c#x,d#x] parquet, Statistics(sizeInBytes=1.0 B)\n"
        "\n"
        "== Physical Plan ==\n"
        "*(1) Filter (d#x > Subquery subquery#x, [id=#x])\n"
        "+- FileScan parquet u[c#x,d#x] Batched: true\n"
        "      +- Subquery subquery#x, [id=#x]\n"
        "         +- *(2) HashAggregate(keys=[], functions=[max(c#x)])\n");
    struct plan_section *opt = section_n(doc, 0, 0);
    struct plan_node *filter = tu_child(opt->first_root, 0);
    ck_assert_uint_eq(plan_node_n_children(filter), 2);
    struct plan_node *agg = tu_child(filter, 0), *rel = tu_child(filter, 1);
    tu_assert_slice_is(plan_node_name(agg), "Aggregate");
    ck_assert(agg->flags & NODE_INNER);
    ck_assert(!(rel->flags & NODE_INNER));
    tu_assert_slice_is(plan_node_name(rel), "Relation");
    tu_assert_slice_is(plan_node_name(tu_child(agg, 0)), "Relation");
    ck_assert(!(tu_child(agg, 0)->flags & NODE_INNER));
    /* A leaf shows its inner child under "   " rather than ":  ". */
    struct plan_section *ph = section_n(doc, 0, 1);
    struct plan_node *scan = tu_child(ph->first_root, 0);
    tu_assert_slice_is(plan_node_name(scan), "FileScan parquet u");
    struct plan_node *sub = tu_child(scan, 0);
    ck_assert(sub->flags & NODE_INNER);
    tu_assert_slice_is(plan_node_name(sub), "Subquery");
    ck_assert_int_eq(tu_child(sub, 0)->stage, 2);
    document_free(doc);
}
END_TEST

static const char *aqe_formatted =
    "== Physical Plan ==\n"
    "AdaptiveSparkPlan (13)\n"
    "+- == Final Plan ==\n"
    "   * HashAggregate (8)\n"
    "   +- ShuffleQueryStage (7), Statistics(sizeInBytes=32.0 B, rowCount=2)\n"
    "      +- Exchange (6)\n"
    "         +- * Project (2)\n"
    "            +- * Range (1)\n"
    "+- == Initial Plan ==\n"
    "   HashAggregate (12)\n"
    "   +- Exchange (11)\n"
    "      +- Project (2)\n"
    "         +- Range (1)\n"
    "\n"
    "\n"
    "(1) Range [codegen id : 1]\n"
    "Output [1]: [id#0L]\n"
    "Arguments: Range (0, 10, step=1, splits=Some(2))\n"
    "\n"
    "(2) Project [codegen id : 1]\n"
    "Output [1]: [id#0L]\n"
    "Input [1]: [id#0L]\n"
    "\n"
    "(6) Exchange\n"
    "Input [1]: [id#0L]\n"
    "Arguments: SinglePartition, ENSURE_REQUIREMENTS, [plan_id=20]\n"
    "\n"
    "(7) ShuffleQueryStage\n"
    "Output [1]: [id#0L]\n"
    "Arguments: 0\n"
    "\n"
    "(8) HashAggregate [codegen id : 2]\n"
    "Input [1]: [id#0L]\n"
    "\n"
    "(13) AdaptiveSparkPlan\n"
    "Output [1]: [id#0L]\n"
    "Arguments: isFinalPlan=true\n"
    "\n";

START_TEST(aqe_final_plan_label_holds_its_subplan)
{
    struct document *doc = tu_parse(aqe_formatted);
    struct plan *p = doc->first_plan;
    ck_assert(p->adaptive);
    ck_assert_int_eq(p->is_final, 1);
    struct plan_section *s = section_n(doc, 0, 0);
    char buf[512];
    outline(s, buf, sizeof buf);
    ck_assert_str_eq(buf, "AdaptiveSparkPlan@0 Final Plan@1 HashAggregate@2 ShuffleQueryStage@3 "
                          "Exchange@4 Project@5 Range@6 Initial Plan@1 HashAggregate@2 "
                          "Exchange@3 Project@4 Range@5");
    struct plan_node *aqe = s->first_root;
    ck_assert_uint_eq(plan_node_n_children(aqe), 2);
    struct plan_node *final = tu_child(aqe, 0), *initial = tu_child(aqe, 1);
    ck_assert(final->flags & NODE_LABEL);
    ck_assert(initial->flags & NODE_LABEL);
    tu_assert_slice_is(plan_node_text(final), "== Final Plan ==");
    ck_assert_int_eq(final->id, -1);
    ck_assert_uint_eq(plan_node_n_children(final), 1);
    ck_assert_int_eq(tu_child(final, 0)->id, 8);
    ck_assert_int_eq(tu_child(final, 0)->stage, 2);
    ck_assert_int_eq(tu_child(initial, 0)->id, 12);
    ck_assert_int_eq(tu_child(initial, 0)->stage, -1);
    document_free(doc);
}
END_TEST

START_TEST(aqe_initial_plan_shares_details_of_reused_ids)
{
    struct document *doc = tu_parse(aqe_formatted);
    struct plan *p = doc->first_plan;
    struct plan_node *first = plan_node_find_by_id(p, 2);
    ck_assert_ptr_nonnull(first);
    ck_assert_uint_eq(first->line, 7); /* the first printed one, under the Final Plan */
    ck_assert_int_eq(first->stage, 1);
    struct plan_section *s = section_n(doc, 0, 0);
    struct plan_node *dup = plan_section_node(s, 10);
    ck_assert_int_eq(dup->id, 2);
    ck_assert_uint_eq(dup->line, 12);
    ck_assert_ptr_eq(plan_node_details_text(dup).ptr, plan_node_details_text(first).ptr);
    ck_assert_uint_eq(dup->n_details, first->n_details);
    ck_assert_uint_eq(dup->n_details, 2);
    tu_assert_slice_is(tu_detail(dup, 1).value, "[1]: [id#0L]"); /* Input */
    ck_assert_uint_eq(tu_detail(dup, 1).line, 22);
    ck_assert_uint_eq(plan_node_details_line(dup), 20);
    ck_assert_int_eq(dup->stage, -1); /* not in a codegen stage in the initial plan */
    /* Nodes without a details block have none; nothing points at a stranger's block. */
    ck_assert_uint_eq(plan_node_find_by_id(p, 12)->n_details, 0);
    ck_assert_uint_eq(plan_node_details_text(plan_node_find_by_id(p, 12)).len, 0);
    document_free(doc);
}
END_TEST

/* Fields are split from the block when asked (plan_details_next), the way the parser
   counted them: values over several lines, an empty value continued on the next line, a
   CRLF line, an indented line the parser skips, a blank line followed by a field (still the
   same block). */
START_TEST(details_fields_read_on_demand_as_the_parser_reads_them)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "* Project (2)\n"
                                    "+- Scan t (1)\n"
                                    "\n"
                                    "\n"
                                    "(1) Scan t\n"
                                    "Output [1]: [a#1]\r\n"
                                    "Location: InMemoryFileIndex [file:/tmp/a,\n"
                                    "file:/tmp/b]\n"
                                    "PartitionFilters: \n"
                                    "[x]\n"
                                    "   not a field: x\n"
                                    "ReadSchema: struct<a:int>\n"
                                    "\n"
                                    "Batched: true\n"
                                    "\n"
                                    "(2) Project [codegen id : 1]\n"
                                    "Output [1]: [a#1]\n"
                                    "Input [1]: [a#1]\n");
    struct plan_node *scan = plan_node_find_by_id(doc->first_plan, 1);
    ck_assert_uint_eq(scan->n_details, 5);
    static const char *const keys[] = {"Output", "Location", "PartitionFilters", "ReadSchema",
                                       "Batched"};
    static const char *const values[] = {"[1]: [a#1]", "InMemoryFileIndex [file:/tmp/a,\nfile:/tmp/b]",
                                         "[x]", "struct<a:int>", "true"};
    static const uint32_t lines[] = {7, 8, 10, 13, 15};
    struct plan_details it;
    struct plan_detail d;
    plan_details_init(&it, scan);
    for (int i = 0; i < 5; i++) {
        ck_assert(plan_details_next(&it, &d));
        ck_assert_msg(tu_slice_is(d.key, keys[i]), "field %d: %.*s", i, (int)d.key.len, d.key.ptr);
        ck_assert_msg(tu_slice_is(d.value, values[i]), "field %d: %.*s", i, (int)d.value.len,
                      d.value.ptr);
        ck_assert_uint_eq(d.line, lines[i]);
    }
    ck_assert(!plan_details_next(&it, &d));
    ck_assert(!plan_details_next(&it, &d)); /* stays at the end */
    ck_assert(plan_node_detail(scan, "ReadSchema", &d) && d.line == 13);
    ck_assert(!plan_node_detail(scan, "Condition", &d));
    struct plan_node *project = plan_node_find_by_id(doc->first_plan, 2);
    ck_assert_uint_eq(project->n_details, 2);
    tu_assert_slice_is(tu_detail(project, 1).value, "[1]: [a#1]");
    document_free(doc);
}
END_TEST

/* lex_is_details_field_memo keeps a line's first 16 bytes and its verdict; every line after
   must get lex_is_details_field's verdict, whatever the memo holds: lines that share a kept
   line's key and differ just after it (the count's digits, "]:", the blank after ':'),
   lines of 16 bytes and near it, the "Location [" rewrite, long keys, bytes that are no key
   bytes at every place.  One memo over all of them, so that most lines meet a kept one. */
START_TEST(details_field_memo_gives_the_plain_verdict)
{
    static const char *const bases[] = {
        "Input [2]: [a#1, b#2, c#3]", "Input [12]: [a#1, b#2]", "Input [2]:[a#1, b#2, c#3]",
        "Input [2] : [a#1, b#2]",     "Input [2]: ",            "Input [2]:",
        "Input []: [a#1, b#2, c#3]",  "Output [2]: [x#1, y#2]", "Condition : (isnotnull(x#1))",
        "Condition :(isnotnull(x#1))", "Condition : ",          "Arguments: hashpartitioning(a)",
        "Arguments:hashpartitioning", "Aggregate Attributes [1]: [sum#1L]",
        "Location: InMemoryFileIndex [file:/x]", "Location [not included in comparison]/x/y",
        "Location [not", "Location  [x]: [a, b, c, d]", "PushedFilters: [IsNotNull(x)]",
        "Join type: Inner", "Join condition: None", "Right keys [1]: [a#1, b#2]",
        "Found 3 rows in the table", "ReadSchema: struct<a:int>", "Results [2]: [a#1, b#2]",
        "Keys [1]: [ws_item_sk#1]", "Abc-def_g h: value is here", "A(b): something long",
        "Zz\t: a tab before the colon", "lower [1]: [a#1, b#2, c#3]", "Input [2]]: [a#1, b#2]",
        "Input [2]:: [a#1, b#2]", "Input [1234567890123]: [a]", "Output [2]:  [x#1, y#2, z#3]"};
    static const char mutations[] = " :[]0123456789Aaz(-_\t.#\xc3";
    struct lex_key_memo memo;
    memset(&memo, 0, sizeof memo);
    uint32_t seed = 12345;
    char line[64];
    size_t hits = 0;
    for (int round = 0; round < 200000; round++) {
        seed = seed * 1103515245u + 12345u;
        const char *b = bases[(seed >> 8) % (sizeof bases / sizeof bases[0])];
        size_t n = strlen(b);
        memcpy(line, b, n);
        /* Filler after the base: lengths around 16 and beyond. */
        size_t want = (seed >> 20) % 40;
        for (; n < want; n++)
            line[n] = (char)('a' + n % 26);
        if (n > want && (seed & 3) == 0)
            n = want;
        seed = seed * 1103515245u + 12345u;
        int changes = (int)(seed >> 28) % 3;
        for (int c = 0; c < changes && n; c++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % (n < 20 ? n : 20);
            line[at] = mutations[(seed >> 20) % (sizeof mutations - 1)];
        }
        bool plain = lex_is_details_field(line, n);
        if (n >= 16) {
            size_t slot = lex_key_memo_slot(line);
            unsigned need = memo.need[slot];
            bool known = need != 0;
            for (int k = 0; k < 16; k++)
                known &= !(need >> k & 1) || line[k] == (char)memo.head[slot][k];
            hits += known;
        }
        ck_assert_msg(lex_is_details_field_memo(line, n, &memo) == plain, "\"%.*s\": %d", (int)n,
                      line, (int)plain);
    }
    ck_assert_uint_gt(hits, 30000); /* the memo was met, not just filled */
}
END_TEST

START_TEST(formatted_details_attach_by_id)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "* Filter (3)\n"
        "+- * ColumnarToRow (2)\n"
        "   +- Scan parquet spark_catalog.default.t (1)\n"
        "\n"
        "\n"
        "(1) Scan parquet spark_catalog.default.t\n"
        "Output [2]: [key#1, val#2]\n"
        "Batched: true\n"
        "Location: InMemoryFileIndex [file:/tmp/t]\n"
        "PushedFilters: [IsNotNull(key), GreaterThan(key,0)]\n"
        "ReadSchema: struct<key:int,val:int>\n"
        "\n"
        "(2) ColumnarToRow [codegen id : 1]\n"
        "Input [2]: [key#1, val#2]\n"
        "\n"
        "(3) Filter [codegen id : 1]\n"
        "Input [2]: [key#1, val#2]\n"
        "Condition : (isnotnull(key#1) AND (key#1 > 0))\n"
        "\n");
    struct plan *p = doc->first_plan;
    struct plan_node *scan = plan_node_find_by_id(p, 1);
    tu_assert_slice_is(plan_node_name(scan), "Scan parquet spark_catalog.default.t");
    ck_assert_uint_eq(scan->n_details, 5);
    tu_assert_slice_is(tu_detail(scan, 0).key, "Output");
    tu_assert_slice_is(tu_detail(scan, 0).value, "[2]: [key#1, val#2]");
    tu_assert_slice_is(tu_detail(scan, 2).key, "Location");
    tu_assert_slice_is(tu_detail(scan, 2).value, "InMemoryFileIndex [file:/tmp/t]");
    ck_assert_uint_eq(tu_detail(scan, 4).line, 12);
    ck_assert_uint_eq(plan_node_details_line(scan), 7);
    ck_assert(slice_starts_with(plan_node_details_text(scan),
                                "(1) Scan parquet spark_catalog.default.t\n"));
    ck_assert(ends_with(plan_node_details_text(scan), "\nReadSchema: struct<key:int,val:int>"));
    ck_assert_int_eq(scan->stage, -1);
    struct plan_node *filter = plan_node_find_by_id(p, 3);
    ck_assert_int_eq(filter->stage, 1); /* "* " + "[codegen id : 1]" */
    struct plan_detail cond;
    ck_assert(plan_node_detail(filter, "Condition", &cond));
    tu_assert_slice_is(cond.value, "(isnotnull(key#1) AND (key#1 > 0))");
    ck_assert_int_eq(plan_node_find_by_id(p, 2)->stage, 1);
    document_free(doc);
}
END_TEST

START_TEST(formatted_names_drop_join_type_and_build_side)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "* BroadcastHashJoin Inner BuildRight (4)\n"
                                    ":- * SortMergeJoin LeftOuter (2)\n"
                                    ":  +- Scan parquet  (1)\n"
                                    "+- BroadcastExchange (3)\n"
                                    "\n"
                                    "\n"
                                    "(1) Scan parquet \n"
                                    "Output [1]: [a#1]\n");
    char buf[512];
    outline(section_n(doc, 0, 0), buf, sizeof buf);
    ck_assert_str_eq(buf, "BroadcastHashJoin@0 SortMergeJoin@1 Scan parquet@2 BroadcastExchange@1");
    struct plan_node *r = tu_root(doc);
    tu_assert_slice_is(plan_node_text(r), "BroadcastHashJoin Inner BuildRight (4)");
    ck_assert_int_eq(r->id, 4);
    ck_assert_uint_eq(plan_node_find_by_id(doc->first_plan, 1)->n_details, 1);
    document_free(doc);
}
END_TEST

START_TEST(formatted_subqueries_become_sections)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "* Project (2)\n"
        "+- * Range (1)\n"
        "\n"
        "\n"
        "(1) Range [codegen id : 1]\n"
        "Output [1]: [id#0L]\n"
        "\n"
        "(2) Project [codegen id : 1]\n"
        "Output [2]: [id#0L, Subquery scalar-subquery#4, [id=#10] AS s#5]\n"
        "Input [1]: [id#0L]\n"
        "\n"
        "===== Subqueries =====\n"
        "\n"
        "Subquery:1 Hosting operator id = 2 Hosting Expression = Subquery scalar-subquery#4, [id=#10]\n"
        "* HashAggregate (4)\n"
        "+- * LocalTableScan (3)\n"
        "\n"
        "\n"
        "(3) LocalTableScan [codegen id : 1]\n"
        "Output [1]: [c#1]\n"
        "\n"
        "(4) HashAggregate [codegen id : 1]\n"
        "Input [1]: [c#1]\n"
        "\n"
        "Subquery:2 Hosting operator id = 2 Hosting Expression = ReusedSubquery Subquery scalar-subquery#4, [id=#10]\n"
        "\n"
        "===== Adaptively Optimized Out Exchanges =====\n"
        "\n"
        "Subplan:1\n"
        "Exchange (6)\n"
        "+- Range (5)\n"
        "\n"
        "\n"
        "(5) Range\n"
        "Output [1]: [id#7L]\n"
        "\n"
        "(6) Exchange\n"
        "Input [1]: [id#7L]\n");
    struct plan *p = doc->first_plan;
    ck_assert_uint_eq(doc->n_plans, 1);
    ck_assert_uint_eq(p->n_sections, 4);
    struct plan_section *sq1 = section_n(doc, 0, 1), *sq2 = section_n(doc, 0, 2);
    struct plan_section *sp = section_n(doc, 0, 3);
    ck_assert_int_eq(sq1->kind, SECTION_SUBQUERY);
    ck_assert(slice_starts_with(sq1->title, "Subquery:1 Hosting operator id = 2"));
    ck_assert_uint_eq(sq1->n_nodes, 2);
    ck_assert_int_eq(sq1->first_root->id, 4);
    ck_assert_int_eq(sq1->first_root->stage, 1);
    ck_assert_uint_eq(plan_node_find_by_id(p, 3)->n_details, 1);
    /* A reused subquery prints no body. */
    ck_assert_int_eq(sq2->kind, SECTION_SUBQUERY);
    ck_assert_uint_eq(sq2->n_roots, 0);
    ck_assert_int_eq(sp->kind, SECTION_SUBQUERY);
    tu_assert_slice_is(sp->title, "Subplan:1");
    ck_assert_int_eq(sp->first_root->id, 6);
    ck_assert_uint_eq(plan_node_find_by_id(p, 6)->n_details, 1);
    document_free(doc);
}
END_TEST

START_TEST(cost_statistics_become_numbers)
{
    struct document *doc = tu_parse(
        "== Optimized Logical Plan ==\n"
        "Aggregate [k#1], [k#1], Statistics(sizeInBytes=1837.4 GiB, rowCount=1.23E+6)\n"
        "+- Project [k#1], Statistics(sizeInBytes=2.0 KiB)\n"
        "   +- Relation t[k#1] parquet, Statistics(sizeInBytes=1536.0 B, rowCount=0)\n"
        "\n"
        "== Physical Plan ==\n"
        "ShuffleQueryStage (3), Statistics(X)\n");
    struct plan_section *s = section_n(doc, 0, 0);
    struct plan_node *a = plan_section_node(s, 0), *pr = plan_section_node(s, 1),
                     *r = plan_section_node(s, 2);
    struct plan_stats as, ps, rs, qs;
    ck_assert(plan_node_stats(a, &as) && plan_node_stats(pr, &ps) && plan_node_stats(r, &rs));
    ck_assert(as.has_size && as.has_rows);
    ck_assert_double_eq_tol(as.size_bytes, 1837.4 * 1073741824.0, 1.0);
    ck_assert_double_eq(as.row_count, 1230000.0);
    ck_assert(ps.has_size && !ps.has_rows);
    ck_assert_double_eq(ps.size_bytes, 2048.0);
    ck_assert_double_eq(rs.size_bytes, 1536.0);
    ck_assert(rs.has_rows);
    ck_assert_double_eq(rs.row_count, 0.0);
    tu_assert_slice_is(plan_node_name(a), "Aggregate");
    /* Normalized statistics say nothing. */
    struct plan_node *q = section_n(doc, 0, 1)->first_root;
    ck_assert(!plan_node_stats(q, &qs));
    ck_assert(!qs.has_size && !qs.has_rows);
    tu_assert_slice_is(plan_node_name(q), "ShuffleQueryStage");
    document_free(doc);
    /* The group closes the line, however long the node string before it is. */
    char line[3000];
    memset(line, 'x', sizeof line);
    memcpy(line, "Relation t[", 11);
    const char *tail = "] parquet, Statistics(sizeInBytes=1.0 KiB, rowCount=7)";
    memcpy(line + sizeof line - strlen(tail), tail, strlen(tail));
    struct plan_stats st;
    size_t at;
    ck_assert(lex_statistics(line, sizeof line, &st, &at));
    ck_assert_uint_eq(at, sizeof line - strlen(tail) + 11);
    ck_assert_double_eq(st.row_count, 7.0);
    /* "Statistics(" inside an expression that does not end the line is just text. */
    const char *expr = "Filter (name#1 = Statistics(x)) AND isnotnull(name#1) OR true";
    ck_assert(!lex_statistics(expr, strlen(expr), &st, &at));
}
END_TEST

START_TEST(codegen_subtrees_keep_generated_code)
{
    struct document *doc = tu_parse(
        "Found 2 WholeStageCodegen subtrees.\n"
        "== Subtree 1 / 2 (maxMethodCodeSize:282; maxConstantPoolSize:175(0.27% used); numInnerClasses:0) ==\n"
        "*(1) Project [id#0L]\n"
        "+- *(1) Range (0, 5, step=1, splits=8)\n"
        "\n"
        "Generated code:\n"
        "/* 001 */ public Object generate(Object[] references) {\n"
        "/* 002 */   return new GeneratedIteratorForCodegenStage1(references);\n"
        "/* 003 */ }\n"
        "/* 004 */\n"
        "/* 005 */ /**\n"
        " * Codegend pipeline for stage (id=1)\n"
        " * *(1) Project [id#0L]\n"
        " * +- *(1) Range (0, 5, step=1, splits=8)\n"
        " */\n"
        "/* 006 */ final class GeneratedIteratorForCodegenStage1 {\n"
        "\n"
        "== Subtree 2 / 2 (maxMethodCodeSize:-1; maxConstantPoolSize:-1; numInnerClasses:-1) ==\n"
        "*(2) Filter (id#0L > 1)\n"
        "+- *(2) Range (0, 5, step=1, splits=8)\n"
        "\n"
        "Generated code:\n"
        "/* 001 */ public Object generate(Object[] references) {\n"
        "/* 002 */ }\n");
    ck_assert_uint_eq(doc->n_plans, 1);
    ck_assert_uint_eq(doc->first_plan->n_sections, 2);
    struct plan_section *s1 = section_n(doc, 0, 0), *s2 = section_n(doc, 0, 1);
    ck_assert_int_eq(s1->kind, SECTION_CODEGEN);
    ck_assert(slice_starts_with(s1->title, "== Subtree 1 / 2 (maxMethodCodeSize:282"));
    ck_assert_uint_eq(s1->n_nodes, 2);
    ck_assert_int_eq(s1->first_root->stage, 1);
    ck_assert(slice_starts_with(s1->code, "/* 001 */ public Object generate"));
    ck_assert(slice_find(s1->code, " * +- *(1) Range") > 0);
    ck_assert(s1->code.ptr[s1->code.len - 1] == '{');
    ck_assert_uint_eq(s2->n_nodes, 2);
    ck_assert_int_eq(s2->first_root->stage, 2);
    tu_assert_slice_is(s2->code, "/* 001 */ public Object generate(Object[] references) {\n"
                                    "/* 002 */ }");
    document_free(doc);
}
END_TEST

START_TEST(sql_out_file_gives_one_plan_per_explain)
{
    struct document *doc = tu_parse("-- Automatically generated by SQLQueryTestSuite\n"
                                    "-- !query\n"
                                    "CREATE TABLE Orders (id INT) USING PARQUET\n"
                                    "-- !query schema\n"
                                    "struct<>\n"
                                    "-- !query output\n"
                                    "\n"
                                    "\n"
                                    "\n"
                                    "-- !query\n"
                                    "EXPLAIN SELECT * FROM Orders\n"
                                    "-- !query schema\n"
                                    "struct<plan:string>\n"
                                    "-- !query output\n"
                                    "== Physical Plan ==\n"
                                    "*ColumnarToRow\n"
                                    "+- FileScan parquet default.orders[id#x] Batched: true\n"
                                    "\n"
                                    "\n"
                                    "-- !query\n"
                                    "EXPLAIN SELECT * FROM Orders\n"
                                    "-- !query schema\n"
                                    "struct<plan:string>\n"
                                    "-- !query output\n"
                                    "== Physical Plan ==\n"
                                    "*ColumnarToRow\n"
                                    "+- FileScan parquet default.orders[id#x] Batched: true\n"
                                    "\n"
                                    "\n"
                                    "-- !query\n"
                                    "SELECT 1\n"
                                    "-- !query analysis\n"
                                    "Project [1 AS 1#x]\n"
                                    "+- OneRowRelation\n");
    ck_assert_uint_eq(doc->n_plans, 3);
    ck_assert_uint_eq(doc->first_plan->line, 15);
    ck_assert_uint_eq(doc->first_plan->next->line, 25);
    struct plan_section *a = section_n(doc, 2, 0);
    ck_assert_int_eq(a->kind, SECTION_ANALYZED);
    ck_assert_uint_eq(a->n_nodes, 2);
    ck_assert_uint_eq(a->title.len, 0);
    ck_assert_uint_eq(doc->n_all_nodes, 6);
    document_free(doc);
}
END_TEST

START_TEST(headerless_one_line_relation_is_a_plan)
{
    struct document *doc = tu_parse("Relation [id#0L,name#1] parquet\n");
    ck_assert_uint_eq(doc->n_plans, 1);
    struct plan_section *s = section_n(doc, 0, 0);
    ck_assert_int_eq(s->kind, SECTION_ANALYZED);
    tu_assert_slice_is(plan_node_name(s->first_root), "Relation");
    document_free(doc);
    doc = tu_parse("'Project [*]\n+- 'UnresolvedRelation [t], [], false\n");
    ck_assert_int_eq(section_n(doc, 0, 0)->kind, SECTION_PARSED);
    document_free(doc);
}
END_TEST

START_TEST(simplified_tree_nests_by_indentation)
{
    struct document *doc = tu_parse("TakeOrderedAndProject [c_customer_id]\n"
                                    "  WholeStageCodegen (9)\n"
                                    "    Project [c_customer_id]\n"
                                    "      BroadcastHashJoin [ctr_customer_sk,c_customer_sk]\n"
                                    "        InputAdapter\n"
                                    "          Scan parquet spark_catalog.default.store [s_store_sk]\n"
                                    "        InputAdapter\n"
                                    "          ReusedExchange [d_date_sk] #2\n");
    char buf[512];
    outline(section_n(doc, 0, 0), buf, sizeof buf);
    ck_assert_str_eq(buf, "TakeOrderedAndProject@0 WholeStageCodegen@1 Project@2 "
                          "BroadcastHashJoin@3 InputAdapter@4 Scan parquet "
                          "spark_catalog.default.store@5 InputAdapter@4 ReusedExchange@5");
    /* "WholeStageCodegen (9)" is a name and a stage number, not a formatted id. */
    ck_assert_int_eq(plan_section_node(section_n(doc, 0, 0), 1)->id, -1);
    document_free(doc);
}
END_TEST

START_TEST(one_line_command_in_an_analysis_block_is_a_plan)
{
    struct document *doc = tu_parse("-- !query\n"
                                    "DROP VIEW t\n"
                                    "-- !query analysis\n"
                                    "DropTempViewCommand t\n"
                                    "\n"
                                    "\n"
                                    "-- !query\n"
                                    "SELECT x\n"
                                    "-- !query analysis\n"
                                    "[Analyzer test output redacted due to nondeterminism]\n");
    ck_assert_uint_eq(doc->n_plans, 1);
    tu_assert_slice_is(plan_node_name(tu_root(doc)), "DropTempViewCommand");
    ck_assert_int_eq(doc->first_plan->first_section->kind, SECTION_ANALYZED);
    document_free(doc);
}
END_TEST

START_TEST(prose_and_code_around_plans_are_skipped)
{
    struct document *doc = tu_parse(
        "Hello World, here is what I ran:\n"
        "  df.groupBy(\"k\").count().explain()\n"
        "24/01/02 10:11:12 INFO SparkContext: Running Spark version 3.5.0\n"
        "== Physical Plan ==\n"
        "*(1) Project [id#0L]\n"
        "+- *(1) Range (0, 5, step=1, splits=8)\n"
        "\n"
        "scala> spark.range(3).explain()\n"
        "== Physical Plan ==\n"
        "*(1) Range (0, 3, step=1, splits=8)\n"
        "scala> :quit\n"
        "Why is there no Exchange?\n"
        "Thanks!\n");
    ck_assert_uint_eq(doc->n_plans, 2);
    ck_assert_uint_eq(doc->n_all_nodes, 3);
    ck_assert_uint_eq(tu_root(doc)->line, 5);
    tu_assert_slice_is(plan_node_text(doc->first_plan->next->first_section->first_root),
                          "Range (0, 3, step=1, splits=8)");
    document_free(doc);
    doc = tu_parse("My plan looks like:\n"
                   "Project [a#1]\n"
                   "+- Range (0, 1, step=1, splits=1)\n");
    ck_assert_uint_eq(doc->n_plans, 1);
    tu_assert_slice_is(plan_node_text(tu_root(doc)), "Project [a#1]");
    ck_assert_uint_eq(plan_node_n_children(tu_root(doc)), 1);
    document_free(doc);
}
END_TEST

/* QA #2 (11-Advanced-Spark-Optimization.ipynb): the notebook prints a caption before each
   explain and timings after them.  They start with operator names but are not plans. */
START_TEST(notebook_captions_and_timings_are_not_plans)
{
    struct document *doc = tu_parse(
        "Join with broadcast (no shuffle):\n"
        "== Physical Plan ==\n"
        "*(2) Project [customer_id#6370, name#6698]\n"
        "+- *(2) BroadcastHashJoin [customer_id#6370], [customer_id#6697], Inner, BuildRight, "
        "false\n"
        "   :- *(2) Filter isnotnull(customer_id#6370)\n"
        "   :  +- *(2) ColumnarToRow\n"
        "   :     +- FileScan parquet t[customer_id#6370] Batched: true\n"
        "   +- BroadcastExchange HashedRelationBroadcastMode(List(cast(input[0, int, false] as "
        "bigint)),false), [plan_id=4788]\n"
        "      +- *(1) Filter isnotnull(customer_id#6697)\n"
        "         +- FileScan parquet c[customer_id#6697] Batched: true\n"
        "\n"
        "\n"
        "Repartition Plan (full shuffle):\n"
        "== Physical Plan ==\n"
        "Exchange RoundRobinPartitioning(10), REPARTITION_BY_NUM, [plan_id=5200]\n"
        "+- *(1) ColumnarToRow\n"
        "   +- FileScan parquet t[transaction_id#6369] Batched: true\n"
        "\n"
        "\n"
        "Join with shuffle executed in 0.1828 seconds\n"
        "Join with broadcast executed in 0.1400 seconds\n"
        "Repartition executed in 0.4703 seconds\n"
        "\n"
        "Performance comparison: Coalesce is 0.91x faster than repartition\n");
    ck_assert_uint_eq(doc->n_plans, 2);
    ck_assert_uint_eq(doc->n_all_nodes, 11);
    tu_assert_slice_is(plan_node_name(tu_root(doc)), "Project");
    ck_assert_uint_eq(tu_root(doc)->line, 3);
    struct plan_node *second = doc->first_plan->next->first_section->first_root;
    tu_assert_slice_is(plan_node_name(second), "Exchange");
    ck_assert_uint_eq(second->line, 15);
    document_free(doc);
    /* A caption right above a tree printed without a header: the tree starts below it. */
    doc = tu_parse("Join with broadcast (no shuffle):\n"
                   "Project [a#1]\n"
                   "+- Range (0, 1, step=1, splits=1)\n");
    ck_assert_uint_eq(doc->n_plans, 1);
    tu_assert_slice_is(plan_node_text(tu_root(doc)), "Project [a#1]");
    ck_assert_uint_eq(tu_root(doc)->line, 2);
    document_free(doc);
}
END_TEST

/* A whole plan on one line is one leaf as Spark prints it (spark-connect explain goldens);
   a line that only starts with an operator name is prose. */
START_TEST(one_line_plans_are_leaves_not_sentences)
{
    static const char *const plans[] = {
        "Relation [name#0,age#0,job#0] csv",
        "Relation [A#0,B#0,C#0] JDBCRelation(TEST.TIMETYPES) [numPartitions=1]",
        "LocalRelation <empty>, [id#0L, a#0, b#0]",
        "LogicalRDD [c1#0, c2#0], false",
        "Range (1, 10, step=1, splits=Some(2))",
        "OneRowRelation",
        "Project [a#1]",
        "*(1) Scan ExistingRDD[a#1,b#2]",
    };
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        struct document *doc = tu_parse(plans[i]);
        ck_assert_msg(doc->n_plans == 1, "not a plan: %s", plans[i]);
        ck_assert_uint_eq(doc->n_all_nodes, 1);
        document_free(doc);
    }
    static const char *const prose[] = {
        "Join with broadcast (no shuffle):",
        "Join with shuffle executed in 0.1828 seconds",
        "Repartition Plan (full shuffle):",
        "Repartition executed in 0.4703 seconds",
        "Range of values:",
        "Relation between the two tables is shown below.",
        "Sort the output",
        "Filter",
        "Exchange rate conversion done!",
    };
    for (size_t i = 0; i < sizeof prose / sizeof prose[0]; i++) {
        struct document *doc = NULL;
        ck_assert_msg(tu_try_parse(prose[i], strlen(prose[i]), &doc) == SP_ERR_NO_PLAN,
                      "prose read as a plan: %s", prose[i]);
    }
}
END_TEST

START_TEST(input_without_a_plan_says_so)
{
    struct document *doc = NULL;
    const char *text = "Just some words.\nNothing Else\n\n== Physical Plan ==\n";
    char *copy = strdup(text);
    struct diag err = {0};
    enum sp_status s = load_bytes("x", copy, strlen(copy), &doc, &err);
    ck_assert_int_eq(s, SP_ERR_NO_PLAN);
    ck_assert_str_eq(err.message, "no Spark plan found");
    ck_assert_ptr_null(doc);
    ck_assert_int_eq(tu_try_parse("", 0, &doc), SP_ERR_NO_PLAN);
    ck_assert_int_eq(tu_try_parse("\n\n\n", 3, &doc), SP_ERR_NO_PLAN);
}
END_TEST

START_TEST(truncation_warns_with_setting_name)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "Project [a#1, b#2, c#3, ... 22 more fields]\n"
        "+- Filter (a#1 > 0)\n"
        "   +- Scan ExistingRDD[a#1, b#2, c#3, ... 22 more fields]\n"
        "      +- LocalTableScan [a#1, b#2... 1024 more characters");
    ck_assert(has_warning(doc, 2, "spark.sql.debug.maxToStringFields"));
    ck_assert(has_warning(doc, 2, "22 more fields"));
    ck_assert(has_warning(doc, 4, "spark.sql.debug.maxToStringFields"));
    ck_assert(has_warning(doc, 5, "spark.sql.maxPlanStringLength"));
    ck_assert(tu_root(doc)->flags & NODE_TRUNCATED);
    ck_assert(!(tu_child(tu_root(doc), 0)->flags & NODE_TRUNCATED));
    document_free(doc);
    doc = tu_parse("== Physical Plan ==\nTruncated plan of 1234567 characters\n");
    ck_assert(has_warning(doc, 2, "spark.sql.maxPlanStringLength"));
    document_free(doc);
}
END_TEST

START_TEST(multi_line_node_text_is_joined)
{
    const char *text = "== Physical Plan ==\n"
                       "Project [line one\n"
                       "line two AS s#1]\n"
                       ":  more continuation text\n"
                       "+- Range (0, 1, step=1, splits=1)\n";
    struct document *doc = tu_parse(text);
    struct plan_node *r = tu_root(doc);
    ck_assert_uint_eq(plan_node_n_children(r), 1);
    tu_assert_slice_is(plan_node_text(r),
                       "Project [line one\nline two AS s#1]\n:  more continuation text");
    tu_assert_slice_is(plan_node_name(r), "Project");
    ck_assert_uint_eq(tu_child(r, 0)->line, 5);
    ck_assert(r->flags & NODE_MULTILINE);
    ck_assert(!(tu_child(r, 0)->flags & NODE_MULTILINE));
    document_free(doc);
    /* The statistics of a node with continuation lines are read at its first line's end. */
    doc = tu_parse("== Optimized Logical Plan ==\n"
                   "Filter (a#1 > 1), Statistics(sizeInBytes=8.0 B)\n"
                   "and more of its condition\n"
                   "+- LocalRelation [a#1], Statistics(sizeInBytes=16.0 B)\n");
    r = tu_root(doc);
    ck_assert(r->flags & NODE_MULTILINE);
    struct plan_stats st;
    ck_assert(plan_node_stats(r, &st) && st.has_size);
    ck_assert(st.size_bytes == 8.0);
    ck_assert(plan_node_stats(tu_child(r, 0), &st) && st.size_bytes == 16.0);
    document_free(doc);
}
END_TEST

START_TEST(markers_of_other_engines_and_versions)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "*Project [a#1]\n"
                                    "+- ^(3) ProjectExecTransformer [a#1]\n"
                                    "   +- ^ FilterExecTransformer (2)\n"
                                    "      +- !GpuProject [a#1]\n"
                                    "         +- PhotonShuffleExchangeSource\n");
    struct plan_section *s = section_n(doc, 0, 0);
    ck_assert_int_eq(plan_section_node(s, 0)->stage, 0);
    tu_assert_slice_is(plan_node_name(plan_section_node(s, 0)), "Project");
    ck_assert_int_eq(plan_section_node(s, 1)->stage, 3);
    tu_assert_slice_is(plan_node_name(plan_section_node(s, 1)), "ProjectExecTransformer");
    ck_assert_int_eq(plan_section_node(s, 2)->stage, 0);
    tu_assert_slice_is(plan_node_name(plan_section_node(s, 3)), "GpuProject");
    tu_assert_slice_is(plan_node_text(plan_section_node(s, 3)), "!GpuProject [a#1]");
    tu_assert_slice_is(plan_node_name(plan_section_node(s, 4)), "PhotonShuffleExchangeSource");
    document_free(doc);
}
END_TEST

START_TEST(comet_summary_sentence_is_not_a_node)
{
    struct document *doc = tu_parse(
        "CometColumnarToRow\n"
        "+- CometProject\n"
        "   +- CometScan [native_iceberg_compat] parquet spark_catalog.default.customer\n"
        "\n"
        "Comet accelerated 46 out of 49 eligible operators (93%). Final plan contains 2 "
        "transitions between Spark and Comet.");
    ck_assert_uint_eq(doc->n_plans, 1);
    ck_assert_uint_eq(doc->n_all_nodes, 3);
    tu_assert_slice_is(plan_node_name(plan_section_node(section_n(doc, 0, 0), 2)),
                          "CometScan [native_iceberg_compat] parquet spark_catalog.default.customer");
    ck_assert_int_eq(section_n(doc, 0, 0)->kind, SECTION_PHYSICAL);
    document_free(doc);
}
END_TEST

START_TEST(odd_ids_and_details_never_crash)
{
    /* Duplicate ids, ids pointing nowhere, a huge id, a details block without a tree. */
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "Union (3)\n"
                                    ":- LocalTableScan (1)\n"
                                    ":- LocalTableScan (1)\n"
                                    "+- Range (unknown)\n"
                                    "\n"
                                    "\n"
                                    "(1) LocalTableScan\n"
                                    "Output [1]: [a#1]\n"
                                    "\n"
                                    "(1) LocalTableScan\n"
                                    "Output [1]: [b#2]\n"
                                    "\n"
                                    "(77) Ghost\n"
                                    "Output [1]: [c#3]\n"
                                    "\n"
                                    "(2147483647) Huge\n"
                                    "Arguments: x\n");
    struct plan_section *s = section_n(doc, 0, 0);
    ck_assert_int_eq(plan_section_node(s, 3)->id, -1);
    tu_assert_slice_is(plan_node_name(plan_section_node(s, 3)), "Range");
    tu_assert_slice_is(tu_detail(plan_section_node(s, 1), 0).value, "[1]: [a#1]");
    ck_assert_ptr_eq(plan_node_details_text(plan_section_node(s, 2)).ptr,
                     plan_node_details_text(plan_section_node(s, 1)).ptr);
    tu_assert_slice_is(tu_detail(plan_section_node(s, 2), 0).value, "[1]: [a#1]");
    ck_assert_ptr_null(plan_node_find_by_id(doc->first_plan, 77));
    document_free(doc);
    /* An id far beyond what the input could number densely still gets its block. */
    doc = tu_parse("== Physical Plan ==\n"
                   "Project (999999999)\n"
                   "+- Range (3)\n"
                   "\n"
                   "(3) Range\n"
                   "Output [1]: [id#0L]\n"
                   "\n"
                   "(999999999) Project\n"
                   "Output [1]: [id#0L]\n"
                   "Input [1]: [id#0L]\n");
    ck_assert_uint_eq(tu_root(doc)->n_details, 2);
    ck_assert_uint_eq(plan_node_details_line(tu_root(doc)), 8);
    ck_assert_uint_eq(tu_child(tu_root(doc), 0)->n_details, 1);
    document_free(doc);
    /* A stray "(3)" in a simple plan is text, not an id: a later "(3)" block is not its. */
    doc = tu_parse("== Physical Plan ==\n"
                   "Project [a#1]\n"
                   "+- Filter (a#1 > 3)\n"
                   "   +- Scan t (3)\n"
                   "\n"
                   "(3) Scan t\n"
                   "Output [1]: [a#1]\n");
    struct plan_node *scan = tu_child(tu_child(tu_root(doc), 0), 0);
    ck_assert_int_eq(scan->id, -1);
    ck_assert_uint_eq(scan->n_details, 0);
    ck_assert_ptr_null(plan_node_details_text(scan).ptr);
    tu_assert_slice_is(plan_node_name(scan), "Scan t");
    document_free(doc);
    struct document *none = NULL;
    const char *only = "(1) Scan parquet t\nOutput [1]: [a#1]\n";
    ck_assert_int_eq(tu_try_parse(only, strlen(only), &none), SP_ERR_NO_PLAN);
}
END_TEST

START_TEST(names_follow_spark_node_names)
{
    static const struct {
        const char *text, *name;
    } cases[] = {
        {"FileScan parquet db.t[a#1,b#2] Batched: true, DataFilters: []", "FileScan parquet db.t"},
        {"FileScan parquet [a#1] Batched: true", "FileScan parquet"},
        {"Scan hive db.t [a#1], HiveTableRelation [`db`.`t`]", "Scan hive db.t"},
        {"Scan ExistingRDD[a#1,b#2]", "Scan ExistingRDD"},
        {"Scan In-memory table t [a#1]", "Scan In-memory table t"},
        {"BatchScan cat.db.t[a#1] ParquetScan DataFilters: []", "BatchScan cat.db.t"},
        {"InMemoryTableScan [a#1], [isnotnull(a#1)]", "InMemoryTableScan"},
        {"CometScan [native_iceberg_compat] parquet db.t", "CometScan [native_iceberg_compat] parquet db.t"},
        {"CometScan parquet db.t[a#1] Batched: true", "CometScan parquet db.t"},
        {"LocalTableScan <empty>, [a#1]", "LocalTableScan"},
        {"HashAggregate(keys=[a#1], functions=[])", "HashAggregate"},
        {"SortMergeJoin(skew=true) [a#1], [b#2], Inner", "SortMergeJoin(skew=true)"},
        {"Execute InsertIntoHadoopFsRelationCommand file:/x, false", "Execute InsertIntoHadoopFsRelationCommand"},
        {"'UnresolvedRelation [t], [], false", "UnresolvedRelation"},
        {"Union", "Union"},
        {"AdaptiveSparkPlan isFinalPlan=false", "AdaptiveSparkPlan"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct slice n = lex_node_name(cases[i].text, strlen(cases[i].text), SIZE_MAX);
        ck_assert_msg(tu_slice_is(n, cases[i].name), "%s -> %.*s", cases[i].text, (int)n.len,
                      n.ptr);
    }
}
END_TEST

START_TEST(several_plans_in_a_log)
{
    struct document *doc = tu_parse("INFO first query\n"
                                    "== Physical Plan ==\n"
                                    "*(1) Range (0, 1, step=1, splits=1)\n"
                                    "INFO second query\n"
                                    "== Physical Plan ==\n"
                                    "AdaptiveSparkPlan isFinalPlan=false\n"
                                    "+- Range (0, 2, step=1, splits=1)\n"
                                    "\n"
                                    "== Parsed Logical Plan ==\n"
                                    "'Project [*]\n"
                                    "+- 'UnresolvedRelation [t], [], false\n");
    ck_assert_uint_eq(doc->n_plans, 3);
    ck_assert_uint_eq(doc->first_plan->line, 2);
    /* No blank line, but a log record cannot be more text of the Range node. */
    ck_assert_uint_eq(section_n(doc, 0, 0)->n_nodes, 1);
    tu_assert_slice_is(plan_node_text(tu_root(doc)), "Range (0, 1, step=1, splits=1)");
    ck_assert(doc->first_plan->next->adaptive);
    ck_assert_int_eq(doc->first_plan->next->is_final, 0);
    ck_assert_int_eq(section_n(doc, 2, 0)->kind, SECTION_PARSED);
    document_free(doc);
}
END_TEST

START_TEST(lines_are_original_input_lines)
{
    /* Clean-up rewrote the text and dropped two lines; nodes report the input's lines. */
    const char *clean = "== Physical Plan ==\nProject [a#1]\n+- Range (0, 1, step=1, splits=1)\n";
    char *bytes = strdup("x");
    struct document *doc = document_new("mapped", bytes, 1);
    static const uint32_t map[] = {0, 3, 4, 6};
    doc->src.text = clean;
    doc->src.text_len = strlen(clean);
    doc->src.line_map = map;
    doc->src.n_text_lines = 3;
    struct diag err = {0};
    ck_assert_int_eq(parse_document(doc, &err), SP_OK);
    ck_assert(document_finish(doc));
    struct plan_node *r = tu_root(doc);
    ck_assert_uint_eq(r->line, 4);
    ck_assert_uint_eq(tu_child(r, 0)->line, 6);
    ck_assert_uint_eq(doc->first_plan->line, 3);
    document_free(doc);
}
END_TEST

START_TEST(indented_tree_and_stray_blank_lines)
{
    struct document *doc = tu_parse("    \n"
                                    "   Project [a#1]\n"
                                    "   +- Filter (a#1 > 0)\n"
                                    "\n"
                                    "      +- Range (0, 1, step=1, splits=1)\n");
    char buf[256];
    outline(section_n(doc, 0, 0), buf, sizeof buf);
    ck_assert_str_eq(buf, "Project@0 Filter@1 Range@2");
    document_free(doc);
}
END_TEST

/* Deeper trees only come from clean-up, which then hands the depths over in line_depth
   (the indentation of a 100,000-deep chain would be 15 GB). */
START_TEST(a_100000_deep_tree_from_line_depths_parses)
{
    const uint32_t depth = 100000;
    size_t cap = 32 + (size_t)depth * 20, n = 0;
    char *text = malloc(cap);
    uint32_t *units = malloc(((size_t)depth + 2) * sizeof *units);
    ck_assert(text && units);
    n += (size_t)sprintf(text, "== Physical Plan ==\n");
    units[0] = 0;
    units[1] = CLEAN_OWN_PREFIX;
    for (uint32_t d = 0; d < depth; d++) {
        n += (size_t)sprintf(text + n, "%s*(1) Project\n", d ? "+- " : "");
        units[d + 2] = d;
    }
    char *bytes = strdup("x");
    struct document *doc = document_new("deep", bytes, 1);
    doc->src.text = text;
    doc->src.text_len = n;
    doc->src.n_text_lines = depth + 1;
    doc->src.line_depth = units;
    struct diag err = {0};
    ck_assert_int_eq(parse_document(doc, &err), SP_OK);
    ck_assert(document_finish(doc));
    struct plan_section *s = section_n(doc, 0, 0);
    ck_assert_uint_eq(s->n_nodes, depth);
    ck_assert_uint_eq(plan_section_node(s, depth - 1)->depth, depth - 1);
    ck_assert_int_eq(plan_section_node(s, depth - 1)->stage, 1);
    ck_assert_uint_eq(s->first_root->subtree_size, depth - 1);
    document_free(doc);
    free(text);
    free(units);
}
END_TEST

/* Random soups of the format's own tokens: never a crash, a hang or a slice outside the
   text; parents are always one level up. */
START_TEST(random_token_soup_never_breaks_the_model)
{
    static const char *tok[] = {
        "== Physical Plan ==\n", "== Analyzed Logical Plan ==\n", "== Parsed Logical Plan ==\n",
        "+- ", ":- ", ":  ", "   ", "*(1) ", "* ", "^ ", "*", "Project [a#1]", "Filter (a#1 > 0)",
        "(1) Scan parquet t\n", "Output [2]: [a#1, b#2]\n", "Condition : x\n", "\n", "\n\n",
        "+- == Final Plan ==\n", "+- == Initial Plan ==\n", "===== Subqueries =====\n",
        "Subquery:1 Hosting operator id = 1 Hosting Expression = x\n", "Subplan:1\n",
        "Found 1 WholeStageCodegen subtrees.\n", "== Subtree 1 / 1 ==\n", "Generated code:\n",
        "/* 001 */ x\n", "-- !query\n", "-- !query output\n", "-- !query analysis\n", " (3)",
        " (unknown)", ", Statistics(sizeInBytes=1.0 KiB, rowCount=1.2E+3)", "... 3 more fields",
        "... 9 more characters", "Truncated plan of 5 characters", "Relation [a#1] parquet",
        "AdaptiveSparkPlan isFinalPlan=true", "  Child", " ", "(", ")", "[", "]", ":", "\r",
        "\t", "x", "Statistics(", "(99999999999) Big\n", "Location [x]\n"};
    unsigned seed = 12345;
    size_t nt = sizeof tok / sizeof tok[0];
    for (int it = 0; it < 3000; it++) {
        char buf[4096];
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        int k = (int)(seed >> 16) % 80;
        for (int j = 0; j < k; j++) {
            seed = seed * 1103515245u + 12345u;
            const char *t = tok[(seed >> 16) % nt];
            size_t l = strlen(t);
            if (n + l + 2 >= sizeof buf)
                break;
            memcpy(buf + n, t, l);
            n += l;
            if ((seed >> 8) % 4 == 0)
                buf[n++] = '\n';
        }
        struct document *doc = NULL;
        if (tu_try_parse(buf, n, &doc) != SP_OK)
            continue;
        for (size_t i = 0; i < doc->n_all_nodes; i++) {
            const struct plan_node *x = document_node(doc, i);
            const struct source *src = &doc->src;
            ck_assert(plan_node_text(x).len == 0 ||
                      (plan_node_text(x).ptr >= src->text &&
                       plan_node_text(x).ptr + plan_node_text(x).len <= src->text + src->text_len));
            ck_assert(!plan_node_parent(x) || x->depth == plan_node_parent(x)->depth + 1);
            ck_assert(x->line >= 1 && x->line <= n + 1);
        }
        document_free(doc);
    }
}
END_TEST

/* A chain "Project\n+- Project\n   +- Project ..." depth levels deep, 3*depth^2/2 bytes. */
static char *deep_chain(size_t depth, size_t *len)
{
    size_t cap = 3 * depth * (depth + 1) / 2 + 64 * depth + 64;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    size_t n = 0;
    n += (size_t)sprintf(buf, "== Physical Plan ==\n*(1) Project [id#0L]\n");
    for (size_t d = 1; d < depth; d++) {
        memset(buf + n, ' ', 3 * (d - 1));
        n += 3 * (d - 1);
        n += (size_t)sprintf(buf + n, "+- *(1) Filter (id#0L > %zu)\n", d);
    }
    *len = n;
    return buf;
}

/* A formatted outline of n scans under one Union, each with a 3-field details block. */
static char *wide_formatted(size_t n, size_t *len)
{
    size_t cap = 160 * (n + 2), used = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    used += (size_t)snprintf(buf + used, cap - used, "== Physical Plan ==\nUnion (%zu)\n", n + 1);
    for (size_t i = 1; i <= n; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s LocalTableScan (%zu)\n",
                                 i < n ? ":-" : "+-", i);
    for (size_t i = 1; i <= n; i++)
        used += (size_t)snprintf(buf + used, cap - used,
                                 "\n(%zu) LocalTableScan\nOutput [1]: [a#%zu]\n"
                                 "Arguments: [a#%zu]\nRows: %zu\n",
                                 i, i, i, i);
    *len = used;
    return buf;
}

/* Issue 6: the model of a formatted plan is what loading it costs on a machine where fresh
   memory is slow.  Per operator: the node (64 bytes), its details block's place (16) and its
   by-id entry (4); no pre-order or by-line arrays (the nodes are made in that order), nothing
   per details field (they are split on demand) (424 bytes, then 286, then 136 before). */
START_TEST(formatted_model_stays_under_96_bytes_per_operator)
{
    size_t n = getenv("SPARKPLAN_SANITIZED") ? 20000 : 100000, len;
    char *buf = wide_formatted(n, &len);
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_bytes("wide", buf, len, &doc, &err), SP_OK);
    struct plan_section *s = section_n(doc, 0, 0);
    ck_assert_uint_eq(s->n_nodes, n + 1);
    for (size_t i = 1; i <= n; i++) {
        struct plan_node *scan = plan_section_node(s, i);
        ck_assert_int_eq(scan->id, (int32_t)i);
        ck_assert_uint_eq(scan->n_details, 3);
        ck_assert_uint_eq(plan_node_details_line(scan), n + 4 + 5 * (i - 1));
    }
    struct plan_detail rows = tu_detail(plan_section_node(s, n), 2);
    tu_assert_slice_is(rows.key, "Rows");
    ck_assert_uint_eq(strtoul(rows.value.ptr, NULL, 10), n);
    ck_assert_uint_eq(rows.line, n + 4 + 5 * (n - 1) + 3);
    double per_node = (double)document_model_bytes(doc) / (double)(n + 1);
    fprintf(stderr, "parse: formatted model %.0f bytes per operator\n", per_node);
    ck_assert_double_le(per_node, 96.0);
    document_free(doc);
}
END_TEST

START_TEST(a_10000_deep_plan_parses_in_linear_time)
{
    size_t depth = getenv("SPARKPLAN_SANITIZED") ? 3000 : 10000;
    size_t len;
    char *buf = deep_chain(depth, &len);
    struct document *doc = NULL;
    struct diag err = {0};
    clock_t t0 = clock();
    ck_assert_int_eq(load_bytes("deep", buf, len, &doc, &err), SP_OK);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    struct plan_section *s = section_n(doc, 0, 0);
    ck_assert_uint_eq(s->n_nodes, depth);
    ck_assert_uint_eq(plan_section_node(s, depth - 1)->depth, depth - 1);
    ck_assert_int_eq(plan_section_node(s, depth - 1)->stage, 1);
    ck_assert_uint_eq(plan_section_node(s, depth - 1)->line, depth + 1);
    ck_assert_uint_eq(s->first_root->subtree_size, depth - 1);
    fprintf(stderr, "parse: %zu-deep plan (%.0f MB) in %.2f s\n", depth, (double)len / 1e6, secs);
    document_free(doc);
}
END_TEST

/* One table names the section lines for the parser and the clean-up: a sentence that merely
 * starts like one is text to both. */
START_TEST(section_lines_are_named_from_one_table)
{
    static const struct {
        const char *line;
        enum head_kind kind;
    } cases[] = {
        {"Found 3 WholeStageCodegen subtrees.", HEAD_FOUND_CODEGEN},
        {"Found 3 files in the table", HEAD_NONE},
        {"== Physical Plan ==  ", HEAD_PHYSICAL},
        {"  == Parsed Logical Plan ==", HEAD_PARSED},
        {"== Subtree 1 / 2 (maxMethodCodeSize:282) ==", HEAD_SUBTREE},
        {"== Final Plan ==", HEAD_AQE_LABEL},
        {"== Whole Stage Codegen ==", HEAD_OTHER_HEADER},
        {"===== Subqueries =====", HEAD_SUBQUERIES},
        {"Generated code:", HEAD_GENERATED_CODE},
        {"Generated code: none", HEAD_NONE},
        {"Subquery:1 Hosting operator id = 4", HEAD_SUBQUERY_ENTRY},
        {"Subquery: none", HEAD_NONE},
        {"-- !query analysis", HEAD_QUERY_ANALYSIS},
        {"Filter (a > 1)", HEAD_NONE},
        /* each rule's first bytes let its lines through, and turn away look-alikes */
        {"Subplan:2", HEAD_SUBPLAN_ENTRY},
        {"/* 001 */ public Object generate(Object[] references) {", HEAD_CODE_LINE},
        {"-- !query output", HEAD_QUERY_OUTPUT},
        {"Functions [1]: [sum(ws_ext_sales_price#2)]", HEAD_NONE},
        {"Grouping Attributes [1]: [a#1]", HEAD_NONE},
        {"Sort [a#1 ASC NULLS FIRST], true, 0", HEAD_NONE},
        {"-- a comment", HEAD_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(headline_kind(cases[i].line, strlen(cases[i].line)) == cases[i].kind,
                      "\"%s\": kind %d, expected %d", cases[i].line,
                      (int)headline_kind(cases[i].line, strlen(cases[i].line)),
                      (int)cases[i].kind);
    /* The parser's details lines and the clean-up's facts skip a line led by a capital when
       headline_capital_may_start says no: it must say yes for every line the table names,
       whatever its first two bytes (each case's tail after every capital and second byte). */
    char probe[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i].line);
        if (n < 2 || n >= sizeof probe)
            continue;
        memcpy(probe, cases[i].line, n);
        for (int c0 = 'A'; c0 <= 'Z'; c0++)
            for (int c1 = 1; c1 < 256; c1++) {
                probe[0] = (char)c0;
                probe[1] = (char)c1;
                for (size_t len = 1; len <= n; len++)
                    if (headline_kind(probe, len) != HEAD_NONE)
                        ck_assert_msg(headline_capital_may_start(probe, len),
                                      "\"%.*s\" names a section but may_start says no",
                                      (int)len, probe);
            }
    }
    /* The parser acts on the sections, and reads AQE labels at column 0 as text. */
    ck_assert_int_eq(lex_header("== Final Plan ==", 16), HEAD_NONE);
    const char *found = "Found 2 WholeStageCodegen subtrees.";
    ck_assert_int_eq(lex_header(found, strlen(found)), HEAD_FOUND_CODEGEN);
}
END_TEST

/* Ids and stages are read eight bytes at a time (lex.c): every length, leading zeros, the
   bytes on either side of '0'..'9' (':' and '/' share a digit's high or low nibble), at the
   end of the line and far from it, read as a digit at a time would. */
START_TEST(ids_and_stages_of_every_length_read_as_digits)
{
    static const char after[] = {')', ':', '/', ';', '?', '@', ' ', '\x80', '\xb5', '\xf9'};
    for (int len = 1; len <= 12; len++)
        for (int lead = 0; lead < 2; lead++)
            for (size_t a = 0; a < sizeof after; a++)
                for (int pad = 0; pad < 10; pad += 9) {
                    char num[16], line[96];
                    for (int i = 0; i < len; i++)
                        num[i] = (char)('0' + (lead && i == 0 ? 0 : (len * 7 + i * 3) % 10));
                    num[len] = '\0';
                    unsigned long long want = strtoull(num, NULL, 10);
                    int32_t want_id = want > INT32_MAX ? LEX_NUMBER_TOO_BIG : (int32_t)want;
                    /* A details header, the number right after its '(' ... */
                    int n = snprintf(line, sizeof line, "(%s%c X%*s", num, after[a], pad, "");
                    int32_t id = 0, cg = 0;
                    struct slice name;
                    bool ok = lex_details_header(line, (size_t)n, &id, &name, &cg);
                    ck_assert_msg(ok == (after[a] == ')'), "header %s", line);
                    if (ok)
                        ck_assert_msg(id == want_id, "%s: %d", line, id);
                    /* ... a stage at the end of one, walked back from its ']' ... */
                    n = snprintf(line, sizeof line, "(4) X%*s [codegen id : %s]", pad, "", num);
                    ck_assert(lex_details_header(line, (size_t)n, &id, &name, &cg));
                    ck_assert_msg(cg == want_id, "%s: %d", line, cg);
                    n = snprintf(line, sizeof line, "(4) X [codegen id : %s%c]", num, after[a]);
                    ck_assert(lex_details_header(line, (size_t)n, &id, &name, &cg));
                    ck_assert_msg(cg == want_id, "%s: %d", line, cg);
                    /* ... an outline's id, walked back from the line's end ... */
                    n = snprintf(line, sizeof line, "%*sFilter %c(%s)", pad, "", after[a], num);
                    size_t name_end = 0;
                    ok = lex_formatted_id(line, (size_t)n, SIZE_MAX, &id, &name_end);
                    ck_assert_msg(ok == (after[a] == ' '), "outline %s", line);
                    if (ok)
                        ck_assert_msg(id == want_id && name_end == (size_t)pad + 8, "%s: %d",
                                      line, id);
                    /* ... and a simple plan's "*(N) " marker. */
                    n = snprintf(line, sizeof line, "*(%s) Project%*s", num, pad, "");
                    size_t skip = 0;
                    ck_assert_int_eq(lex_codegen_marker(line, (size_t)n, &skip), want_id);
                    ck_assert_uint_eq(skip, (size_t)len + 4);
                }
}
END_TEST

/* lex_line_formatted_id reads a lone " (N)" at once: every line here gets the verdict, id
   and name end of lex_formatted_id with the Statistics( place lex_statistics_at finds.  The
   lines are built so that each condition of the quick read (the blank before the '(', no
   other '(' before it, digits before the ')') is the one that sends some of them on to the
   general rules. */
START_TEST(outline_ids_read_at_once_as_the_general_rules_read_them)
{
    static const char *const names[] = {"Exchange", "X", "", "Scan parquet t(a)", "A(b",
                                        "ShuffleQueryStage (4), Statistics(rowCount=5)",
                                        "Stage (3), Statistics(sizeInBytes=1.0 B, rowCount=2)",
                                        "Filter (isnotnull(a#1))", "Exchange //", "f(x)",
                                        "A, Statistics(x)", "AB, Statistics(rowCount=1)"};
    static const char *const groups[] = {" (12)", "(12)", " (123456789012)", " (unknown)",
                                         " (7a)", " (0)", "  (5)", " ()", " (1) // note",
                                         " (2) (columnarIn=false, columnarOut=true)", " 5)"};
    static const char *const tails[] = {"", " ", "\r", " \r ", "\t"};
    for (size_t a = 0; a < sizeof names / sizeof names[0]; a++)
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
            for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++)
                for (int pad = 0; pad < 20; pad += 3) {
                    char line[256];
                    int n = snprintf(line, sizeof line, "%*s%s%s%s", pad, "", names[a],
                                     groups[g], tails[t]);
                    int32_t id = -7, want_id = -7;
                    size_t end = 99, want_end = 99;
                    bool want = lex_formatted_id(line, (size_t)n, lex_statistics_at(line, (size_t)n),
                                                 &want_id, &want_end);
                    bool got = lex_line_formatted_id(line, (size_t)n, &id, &end);
                    ck_assert_msg(got == want, "%s: %d", line, got);
                    if (want)
                        ck_assert_msg(id == want_id && end == want_end, "%s: %d %zu, not %d %zu",
                                      line, id, end, want_id, want_end);
                }
}
END_TEST

/* An outline's name ends at its first blank when that word names a join (the join type
   and build side follow): words of every length, the blank found 16 bytes a compare. */
START_TEST(outline_join_names_end_at_their_first_word_of_any_length)
{
    for (int len = 4; len <= 40; len++)
        for (int join = 0; join < 2; join++) {
            char line[128], word[64];
            memset(word, 'A', (size_t)len);
            memcpy(word + len - 4, join ? "Join" : "Scan", 4);
            word[len] = '\0';
            int n = snprintf(line, sizeof line, "%s Inner BuildRight (7)", word);
            int32_t id;
            size_t name_end;
            ck_assert(lex_formatted_id(line, (size_t)n, SIZE_MAX, &id, &name_end));
            struct slice nm = lex_node_name(line, (size_t)n, name_end);
            size_t want = join ? (size_t)len : (size_t)len + 17; /* + " Inner BuildRight" */
            ck_assert_msg(nm.ptr == line && nm.len == want, "%s: %zu", line, nm.len);
        }
}
END_TEST

/* A scan's table name is read 16 bytes a round up to its first ' ', '[' or ',': names of
   every length, each end, at the line's end or not; the names are what a byte loop finds. */
START_TEST(scan_table_names_end_where_a_byte_loop_ends_them)
{
    static const char *const tails[] = {"", "[a#1,b#2] Batched: true", ", [a#1]",
                                        " Batched: true, DataFilters: []", " [a#1]"};
    for (int len = 1; len <= 70; len++)
        for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
            char table[80], line[200];
            for (int k = 0; k < len; k++)
                table[k] = "ab.c_d#1-x:y"[k % 12];
            table[len] = '\0';
            if (table[len - 1] == ':')
                table[len - 1] = 'z'; /* (a word ending with ':' starts the metadata) */
            int n = snprintf(line, sizeof line, "FileScan parquet %s%s", table, tails[t]);
            struct slice nm = lex_node_name(line, (size_t)n, SIZE_MAX);
            size_t want = strlen("FileScan parquet ") + (size_t)len;
            ck_assert_msg(nm.ptr == line && nm.len == want, "%s: %zu", line, nm.len);
        }
}
END_TEST

/* A node string's state prefix (', !, ~: at most 3) is told by a table: every first byte. */
START_TEST(state_prefixes_are_the_three_marks_only)
{
    for (int c = 1; c < 256; c++) {
        char line[32];
        int n = snprintf(line, sizeof line, "%cProject [a#1]", c);
        struct slice nm = lex_node_name(line, (size_t)n, SIZE_MAX);
        bool mark = c == '\'' || c == '!' || c == '~';
        ck_assert_msg(nm.ptr == line + (mark ? 1 : 0), "byte %d", c);
    }
    struct slice nm = lex_node_name("'!~'Project", 11, SIZE_MAX);
    ck_assert(nm.len == 8 && memcmp(nm.ptr, "'Project", 8) == 0);
}
END_TEST

/* The ", Statistics(...)" group is found from the line's end, 16 bytes a compare: at every
   place of lines of every length, only within the last 512 bytes before the closing ')',
   the last group of several, as a search of the whole tail would find it. */
START_TEST(statistics_groups_found_from_the_end_as_a_search_finds_them)
{
    static char line[1200];
    for (size_t len = 11; len < sizeof line; len += len < 80 ? 1 : 37)
        for (size_t at = 0; at + 11 < len; at += at < 40 || at + 560 > len ? 1 : 29)
            for (int twice = 0; twice < 2; twice++) {
                memset(line, 'x', len);
                for (size_t i = 3; i < len; i += 7)
                    line[i] = '('; /* parens that close no "Statistics" */
                memcpy(line + at, "Statistics(", 11);
                if (twice && at >= 22)
                    memcpy(line + at / 2 - 11, "Statistics(", 11);
                line[len - 1] = ')';
                size_t end = len, from = end > 512 ? end - 512 : 0, want = SIZE_MAX;
                /* the last whole "Statistics(" in [from, len) */
                for (size_t i = from; i + 11 <= len; i++)
                    if (memcmp(line + i, "Statistics(", 11) == 0)
                        want = i;
                ck_assert_msg(lex_statistics_at(line, len) == want, "len %zu at %zu: %zu, want %zu",
                              len, at, lex_statistics_at(line, len), want);
            }
}
END_TEST

/* Details lines led by a capital are read as block lines at once, but for the few a
   section line starts with ("Found ", "Subquery:"): those end the block even with no blank
   line before them, and look-alikes ("Subplan ok", "Generated by") stay in it.  A line led
   by '(' is a details header or text, never asked whether it is a section line. */
/* A line the details list's verdicts leave to the general rules (a header, a tree after a
   blank line) ends the parser's knowing it is still in plain details (one_line's
   still_plain), and so does a plan's end (close_plan): the lines after it are read by the
   state they changed.  Two formatted plans in a row, the second's header right after a
   block line, its tree right after the header (formatted_subqueries_become_sections has a
   "Subquery:" line, which opens a section, right after a block line). */
START_TEST(plain_details_end_where_the_general_rules_take_a_line)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "* Project (2)\n"
                                    "+- Scan parquet t (1)\n"
                                    "\n"
                                    "\n"
                                    "(1) Scan parquet t\n"
                                    "Output [1]: [a#1]\n"
                                    "\n"
                                    "(2) Project [codegen id : 1]\n"
                                    "Output [1]: [a#1]\n"
                                    "== Physical Plan ==\n"
                                    "* Filter (2)\n"
                                    "+- Scan parquet u (1)\n"
                                    "\n"
                                    "\n"
                                    "(1) Scan parquet u\n"
                                    "Output [1]: [b#2]\n"
                                    "\n"
                                    "(2) Filter [codegen id : 1]\n"
                                    "Input [1]: [b#2]\n"
                                    "Condition : isnotnull(b#2)\n");
    ck_assert_uint_eq(doc->n_plans, 2);
    const struct plan_section *s2 = section_n(doc, 1, 0);
    ck_assert_uint_eq(s2->n_nodes, 2);
    ck_assert(tu_slice_is(plan_node_name(s2->first_root), "Filter"));
    ck_assert_uint_eq(s2->first_root->n_details, 2);
    ck_assert_uint_eq(tu_root(doc)->n_details, 1);
    document_free(doc);
}
END_TEST

START_TEST(details_lines_told_at_a_glance_end_a_block_where_they_did)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "* Project (2)\n"
                                    "+- Scan parquet t (1)\n"
                                    "\n"
                                    "\n"
                                    "(1) Scan parquet t\n"
                                    "Output [1]: [a#1]\n"
                                    "Subquery:1 Hosting operator id = 1 Hosting Expression = x\n"
                                    "* Filter (4)\n"
                                    "+- Scan parquet u (3)\n"
                                    "\n"
                                    "\n"
                                    "(2) Project [codegen id : 1]\n"
                                    "Output [1]: [a#1]\n"
                                    "Statistics gathered: none\n"
                                    "Generated by hand\n"
                                    "Subplan ok\n"
                                    "Found 1 WholeStageCodegen subtrees.\n"
                                    "== Subtree 1 / 1 (maxMethodCodeSize:1) ==\n"
                                    "*(1) Project [a#1]\n"
                                    "+- *(1) Range (0, 1, step=1, splits=1)\n");
    ck_assert_uint_eq(doc->n_plans, 2);
    ck_assert_uint_eq(doc->first_plan->n_sections, 2);
    ck_assert_int_eq(section_n(doc, 0, 1)->kind, SECTION_SUBQUERY);
    const struct plan_node *root = tu_root(doc);
    ck_assert_uint_eq(root->n_details, 2);
    ck_assert(ends_with(plan_node_details_text(root), "\nSubplan ok"));
    ck_assert_uint_eq(plan_section_node(section_n(doc, 0, 0), 1)->n_details, 1);
    ck_assert_int_eq(section_n(doc, 1, 0)->kind, SECTION_CODEGEN);
    document_free(doc);
    /* A line led by '(' that is no details header: more of the block right after one of
       its lines, the end of the list after a blank line. */
    doc = tu_parse("== Physical Plan ==\n"
                   "* Project (2)\n"
                   "+- Scan parquet t (1)\n"
                   "\n"
                   "\n"
                   "(1) Scan parquet t\n"
                   "Output [1]: [a#1]\n"
                   "\n"
                   "(2) Project [codegen id : 1]\n"
                   "Output [1]: [a#1]\n"
                   "(a#1 + 1) AS b#2\n"
                   "\n"
                   "(see above) for the plan\n"
                   "Output [1]: [c#3]\n");
    root = tu_root(doc);
    ck_assert_uint_eq(root->n_details, 1);
    ck_assert(ends_with(plan_node_details_text(root), "[a#1]\n(a#1 + 1) AS b#2"));
    ck_assert_uint_eq(plan_section_node(section_n(doc, 0, 0), 1)->n_details, 1);
    document_free(doc);
}
END_TEST

/* The line number a second thread starts from (the paste's tail, the tree's graft, the
 * clean-up's second half) is the '\n's before its cut: counted 64 bytes a step, the sum of
 * every byte lane taken before it can wrap, the same as one byte at a time at every length,
 * offset and density, a run of 70,000 newlines (lanes full past 255) among them. */
START_TEST(newlines_before_a_cut_are_counted_at_every_length)
{
    size_t cap = 70000;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    unsigned seed = 7;
    for (int density = 1; density <= 4; density++) {
        for (size_t i = 0; i < cap; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = density == 4 || (seed >> 16) % (size_t)(1u << (2 * density)) == 0 ? '\n' : 'x';
        }
        for (size_t off = 0; off < 16; off++)
            for (size_t n = 0; off + n <= cap; n += n < 300 ? 1 : 4093) {
                size_t want = 0;
                for (size_t i = 0; i < n; i++)
                    want += buf[off + i] == '\n';
                ck_assert_msg(slice_count_newlines(buf + off, n) == want,
                              "density %d, offset %zu, length %zu", density, off, n);
            }
        ck_assert_uint_eq(slice_count_newlines(buf, cap),
                          slice_count_newlines(buf, cap / 2) +
                              slice_count_newlines(buf + cap / 2, cap - cap / 2));
    }
    free(buf);
}
END_TEST

Suite *parse_suite(void)
{
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("modes");
    tcase_add_test(tc, simple_mode_builds_the_tree_with_stages);
    tcase_add_test(tc, newlines_before_a_cut_are_counted_at_every_length);
    tcase_add_test(tc, section_lines_are_named_from_one_table);
    tcase_add_test(tc, extended_mode_gives_four_sections_and_the_schema_line);
    tcase_add_test(tc, analyzed_plan_without_schema_keeps_its_root);
    tcase_add_test(tc, aqe_final_plan_label_holds_its_subplan);
    tcase_add_test(tc, aqe_initial_plan_shares_details_of_reused_ids);
    tcase_add_test(tc, formatted_details_attach_by_id);
    tcase_add_test(tc, details_fields_read_on_demand_as_the_parser_reads_them);
    tcase_add_test(tc, formatted_names_drop_join_type_and_build_side);
    tcase_add_test(tc, formatted_subqueries_become_sections);
    tcase_add_test(tc, cost_statistics_become_numbers);
    tcase_add_test(tc, codegen_subtrees_keep_generated_code);
    tcase_add_test(tc, sql_out_file_gives_one_plan_per_explain);
    tcase_add_test(tc, several_plans_in_a_log);
    tcase_add_test(tc, ids_and_stages_of_every_length_read_as_digits);
    tcase_add_test(tc, outline_join_names_end_at_their_first_word_of_any_length);
    tcase_add_test(tc, outline_ids_read_at_once_as_the_general_rules_read_them);
    tcase_add_test(tc, scan_table_names_end_where_a_byte_loop_ends_them);
    tcase_add_test(tc, state_prefixes_are_the_three_marks_only);
    tcase_add_test(tc, statistics_groups_found_from_the_end_as_a_search_finds_them);
    tcase_add_test(tc, details_lines_told_at_a_glance_end_a_block_where_they_did);
    tcase_add_test(tc, plain_details_end_where_the_general_rules_take_a_line);
    suite_add_tcase(s, tc);
    TCase *traps = tcase_create("traps");
    tcase_add_test(traps, prefix_units_not_colons_inside_expressions);
    tcase_add_test(traps, prefix_reader_counts_units_in_long_mixed_prefixes);
    tcase_add_test(traps, inner_children_hang_two_levels_below_their_node);
    tcase_add_test(traps, headerless_one_line_relation_is_a_plan);
    tcase_add_test(traps, simplified_tree_nests_by_indentation);
    tcase_add_test(traps, one_line_command_in_an_analysis_block_is_a_plan);
    tcase_add_test(traps, prose_and_code_around_plans_are_skipped);
    tcase_add_test(traps, notebook_captions_and_timings_are_not_plans);
    tcase_add_test(traps, one_line_plans_are_leaves_not_sentences);
    tcase_add_test(traps, input_without_a_plan_says_so);
    tcase_add_test(traps, truncation_warns_with_setting_name);
    tcase_add_test(traps, multi_line_node_text_is_joined);
    tcase_add_test(traps, markers_of_other_engines_and_versions);
    tcase_add_test(traps, comet_summary_sentence_is_not_a_node);
    tcase_add_test(traps, odd_ids_and_details_never_crash);
    tcase_add_test(traps, names_follow_spark_node_names);
    tcase_add_test(traps, lines_are_original_input_lines);
    tcase_add_test(traps, indented_tree_and_stray_blank_lines);
    suite_add_tcase(s, traps);
    TCase *big = tcase_create("big");
    tcase_set_timeout(big, 600);
    tcase_add_test(big, a_10000_deep_plan_parses_in_linear_time);
    tcase_add_test(big, formatted_model_stays_under_96_bytes_per_operator);
    tcase_add_test(big, details_field_memo_gives_the_plain_verdict);
    tcase_add_test(big, a_100000_deep_tree_from_line_depths_parses);
    tcase_add_test(big, random_token_soup_never_breaks_the_model);
    suite_add_tcase(s, big);
    return s;
}
