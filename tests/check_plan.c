/* The plan model: building, walking and looking up nodes without recursion. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sparkplan/arena.h"
#include "sparkplan/build.h"

START_TEST(arena_hands_out_zeroed_aligned_memory_and_big_blocks)
{
    struct arena a;
    arena_init(&a);
    for (int i = 0; i < 1000; i++) {
        unsigned char *p = arena_alloc(&a, (size_t)(i % 97) + 1);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 8, 0);
        ck_assert_uint_eq(p[0], 0);
    }
    char *big = arena_alloc(&a, 5u << 20);
    ck_assert_ptr_nonnull(big);
    big[(5u << 20) - 1] = 'x';
    ck_assert_str_eq(arena_printf(&a, "%d-%s", 12, "x"), "12-x");
    arena_free(&a);
}
END_TEST

/* Chunks start at 64 KB and grow: every size, around each chunk size, must still get a block
   of its own length (ASan reports a write past a chunk). */
START_TEST(arena_blocks_fit_while_chunks_grow)
{
    struct arena a;
    arena_init(&a);
    size_t total = 0;
    for (size_t size = 1; size < (3u << 20); size = size * 3 / 2 + 7) {
        unsigned char *p = arena_alloc(&a, size);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq(p[size - 1], 0);
        memset(p, 0xab, size);
        total += size;
    }
    ck_assert_uint_ge(a.used_bytes, total);
    arena_free(&a);
}
END_TEST

static struct document *chain_document(uint32_t depth)
{
    char *bytes = malloc(1);
    bytes[0] = 0;
    struct document *doc = document_new("chain", bytes, 0);
    struct plan *p = document_add_plan(doc, 1);
    struct plan_section *s = plan_add_section(p, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 1);
    struct plan_node *prev = NULL;
    for (uint32_t i = 0; i < depth; i++) {
        struct plan_node *n = plan_node_new(s);
        n->line = i + 2;
        n->id = (int32_t)(depth - i);
        plan_node_set_text(n, slice_cstr("Project")), plan_node_set_name(n, plan_node_text(n));
        if (prev)
            plan_node_append_child(prev, n);
        else
            plan_section_append_root(s, n);
        prev = n;
    }
    ck_assert(document_finish(doc));
    return doc;
}

/* A node keeps its text as a 32-bit offset from its section's text and its name as a 16-bit
   offset and length in it (plan.h): a name longer than that, and a text or details block the
   offsets cannot reach (another buffer, 4 GB and more past the section's text), are kept aside
   and read back whole. */
START_TEST(a_name_past_64_kb_reads_back_whole)
{
    size_t long_len = 70000;
    char *name = malloc(long_len + 1);
    memcpy(name, "Scan parquet db.", 16);
    memset(name + 16, 't', long_len - 16);
    name[long_len] = 0;
    size_t cap = 2 * long_len + 256;
    char *text = malloc(cap);
    snprintf(text, cap,
             "== Physical Plan ==\n* Project (2)\n+- %s (1)\n\n\n(1) %s\nOutput [1]: [a#1]\n\n"
             "(2) Project [codegen id : 1]\nOutput [1]: [a#1]\n",
             name, name);
    struct document *doc = tu_parse(text);
    struct plan_node *project = tu_root(doc);
    struct plan_node *scan = plan_node_first_child(project);
    ck_assert_ptr_nonnull(scan);
    ck_assert_uint_eq(plan_node_name(scan).len, long_len);
    ck_assert(memcmp(plan_node_name(scan).ptr, name, long_len) == 0);
    ck_assert_uint_eq(plan_node_text(scan).len, long_len + 4);
    ck_assert_int_eq(scan->id, 1);
    ck_assert_uint_eq(scan->n_details, 1);
    ck_assert_uint_eq(plan_node_details_line(scan), 6);
    ck_assert_ptr_eq(plan_node_find_by_id(doc->first_plan, 1), scan);
    /* The common case stays on the offsets: only the long name was kept aside. */
    tu_assert_slice_is(plan_node_name(project), "Project");
    ck_assert_uint_ne(project->name_len_, PLAN_NAME_FAR);
    ck_assert_uint_eq(doc->n_far, 1);
    document_free(doc);
    free(text);
    free(name);
}
END_TEST

START_TEST(texts_and_blocks_out_of_reach_read_back)
{
    char *bytes = malloc(8);
    memcpy(bytes, "x\n", 3);
    struct document *doc = document_new("far", bytes, 2);
    struct plan *p = document_add_plan(doc, 1);
    struct plan_section *s = plan_add_section(p, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 1);

    /* Another buffer: before or after the document's text, never within its offsets. */
    char other[] = "Filter (isnotnull(a#1))\n  AND more\n(1) Filter\nInput [1]: [a#1]";
    struct plan_node *root = plan_node_new(s);
    plan_node_set_text(root, slice_make(other, 23));
    plan_node_set_name(root, slice_make(other, 6));
    plan_node_set_text(root, slice_make(other, 34)); /* a continuation line: the name stays */
    plan_section_append_root(s, root);
    ck_assert(plan_node_set_details(root, slice_make(other + 35, 27), 3));

    /* A text 4 GB and more past its section's text: address space only (PROT_NONE), with one
       page at 4.5 GB made readable for the node's text and block. */
    size_t span = (size_t)5 << 30, at = (size_t)9 << 29;
    char *far = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_ptr_ne(far, MAP_FAILED);
    ck_assert_int_eq(mprotect(far + at, 4096, PROT_READ | PROT_WRITE), 0);
    memcpy(far + at, "Scan parquet db.far (2)\n(2) Scan parquet db.far\nOutput [1]: [a#1]\n", 66);
    struct plan_section *s2 = plan_add_section(p, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 5);
    s2->text_ = far; /* as if the document's text were 5 GB long */
    struct plan_node *scan = plan_node_new(s2);
    plan_node_set_text(scan, slice_make(far + at, 23));
    plan_node_set_name(scan, slice_make(far + at, 19));
    scan->id = 2;
    plan_section_append_root(s2, scan);
    ck_assert(plan_node_set_details(scan, slice_make(far + at + 24, 41), 7));
    scan->n_details = 1;
    /* And one within reach of that text (1 GB on): still on the offsets. */
    size_t in_reach = (size_t)1 << 30;
    ck_assert_int_eq(mprotect(far + in_reach, 4096, PROT_READ | PROT_WRITE), 0);
    memcpy(far + in_reach, "Scan parquet db.near", 20);
    struct plan_node *near = plan_node_new(s2);
    plan_node_set_text(near, slice_make(far + in_reach, 20));
    plan_node_set_name(near, slice_make(far + in_reach, 7));
    plan_section_append_root(s2, near);
    ck_assert(document_finish(doc));

    ck_assert_ptr_eq(plan_node_text(root).ptr, other);
    ck_assert_uint_eq(plan_node_text(root).len, 34);
    tu_assert_slice_is(plan_node_name(root), "Filter");
    tu_assert_slice_is(plan_node_details_text(root), "(1) Filter\nInput [1]: [a#1]");
    ck_assert_uint_eq(plan_node_details_text_line(root), 3);
    ck_assert_ptr_eq(plan_node_text(scan).ptr, far + at);
    tu_assert_slice_is(plan_node_name(scan), "Scan parquet db.far");
    tu_assert_slice_is(plan_node_details_text(scan), "(2) Scan parquet db.far\nOutput [1]: [a#1]");
    ck_assert_ptr_eq(plan_node_find_by_id(p, 2), scan);
    ck_assert_ptr_eq(plan_node_text(near).ptr, far + in_reach);
    tu_assert_slice_is(plan_node_name(near), "Scan pa");
    ck_assert_uint_eq(near->text_off_, in_reach + 1);
    struct plan_detail d;
    ck_assert(plan_node_detail(scan, "Output", &d));
    tu_assert_slice_is(d.value, "[1]: [a#1]");
    document_free(doc);
    munmap(far, span);
}
END_TEST

START_TEST(a_deep_chain_finishes_without_recursion)
{
    struct document *doc = chain_document(200000);
    struct plan_section *s = doc->first_plan->first_section;
    ck_assert_uint_eq(s->n_nodes, 200000);
    ck_assert_uint_eq(s->first_root->subtree_size, 199999);
    ck_assert_uint_eq(plan_section_node(s, 199999)->depth, 199999);
    struct plan_node *n = plan_node_find_by_id(doc->first_plan, 1);
    ck_assert_ptr_nonnull(n);
    ck_assert_uint_eq(n->depth, 199999);
    ck_assert_ptr_eq(document_node_at_line(doc, 5), plan_section_node(s, 3));
    document_free(doc);
}
END_TEST

/* A reader without a stack of its own (an event log's nested children) builds through
 * build_enter / build_leave; what --print and the explorer read comes out the same as from
 * the text parser: parents, children in order, depths, pre-order.  A plan ended with keep =
 * false leaves the document. */
START_TEST(a_plan_built_by_enter_and_leave_has_its_tree)
{
    struct document *doc = document_new("events", NULL, 0);
    ck_assert_ptr_nonnull(doc);
    struct plan_builder b;
    build_init(&b, doc);
    static const char *const names[] = {"SortMergeJoin", "Sort", "Exchange", "Sort"};
    ck_assert_ptr_nonnull(build_plan(&b, 1));
    struct slice title = slice_cstr("== Physical Plan ==");
    ck_assert_ptr_nonnull(build_section(&b, SECTION_PHYSICAL, title, 1));
    struct plan_node *n[4];
    /* SortMergeJoin ( Sort ( Exchange ), Sort ) */
    n[0] = build_enter(&b);
    n[1] = build_enter(&b);
    n[2] = build_enter(&b);
    build_leave(&b);
    build_leave(&b);
    n[3] = build_enter(&b);
    build_leave(&b);
    build_leave(&b);
    for (int i = 0; i < 4; i++) {
        ck_assert_ptr_nonnull(n[i]);
        plan_node_set_text(n[i], slice_cstr(names[i])),
            plan_node_set_name(n[i], plan_node_text(n[i]));
        n[i]->line = (uint32_t)i + 2;
    }
    build_details_start(n[2], slice_cstr("(3) Exchange"), 9, 9);
    build_details_end(n[2], slice_cstr("(3) Exchange\nInput [1]: [a#1]"), 1);
    build_end_section(&b);
    build_end_plan(&b, true);
    ck_assert_ptr_nonnull(build_plan(&b, 20)); /* prose, not a plan */
    build_end_plan(&b, false);
    ck_assert(!b.nomem);
    build_free(&b);
    ck_assert(document_finish(doc));

    ck_assert_uint_eq(doc->n_plans, 1);
    const struct plan_section *sec = doc->first_plan->first_section;
    ck_assert_uint_eq(sec->n_roots, 1);
    ck_assert_ptr_eq(sec->first_root, n[0]);
    ck_assert_uint_eq(plan_node_n_children(n[0]), 2);
    ck_assert_ptr_eq(plan_node_first_child(n[0]), n[1]);
    ck_assert_ptr_eq(plan_node_next_sibling(n[1]), n[3]);
    ck_assert_ptr_eq(plan_node_parent(n[2]), n[1]);
    ck_assert_uint_eq(n[2]->depth, 2);
    ck_assert_uint_eq(n[0]->subtree_size, 3);
    for (uint32_t i = 0; i < 4; i++)
        ck_assert_ptr_eq(plan_section_node(sec, i), n[i]);
    struct plan_detail d;
    ck_assert(plan_node_detail(n[2], "Input", &d));
    ck_assert_msg(tu_slice_is(d.value, "[1]: [a#1]"), "Input is \"%.*s\"", (int)d.value.len,
                  d.value.ptr);
    document_free(doc);
}
END_TEST

/* One node with a details block in buf (n_fields fields), in a document of its own. */
static struct document *one_node_with_details(const char *buf, uint32_t n_fields,
                                              struct plan_node **out)
{
    struct document *doc = document_new("details", NULL, 0);
    ck_assert_ptr_nonnull(doc);
    struct plan_builder b;
    build_init(&b, doc);
    ck_assert_ptr_nonnull(build_plan(&b, 1));
    ck_assert_ptr_nonnull(build_section(&b, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 1));
    struct plan_node *n = build_enter(&b);
    ck_assert_ptr_nonnull(n);
    build_leave(&b);
    plan_node_set_text(n, slice_cstr("Exchange")), plan_node_set_name(n, plan_node_text(n));
    n->line = 2;
    const char *nl = strchr(buf, '\n');
    build_details_start(n, slice_make(buf, (size_t)(nl - buf)), 9, 9);
    build_details_end(n, slice_cstr(buf), n_fields);
    build_end_section(&b);
    build_end_plan(&b, true);
    ck_assert(!b.nomem);
    build_free(&b);
    ck_assert(document_finish(doc));
    *out = n;
    return doc;
}

static void assert_detail(const struct plan_node *n, const char *key, const char *value)
{
    struct plan_detail d;
    ck_assert_msg(plan_node_detail(n, key, &d), "no %s", key);
    ck_assert_msg(tu_slice_is(d.value, value), "%s is \"%.*s\", not \"%s\"", key,
                  (int)d.value.len, d.value.ptr, value);
}

START_TEST(details_asked_key_after_key_and_after_the_document_is_gone)
{
    char buf[64] = "(3) Exchange\nInput [1]: [a#1]\nArguments: hashpartitioning(a)";
    struct plan_node *n;
    struct document *doc = one_node_with_details(buf, 2, &n);
    assert_detail(n, "Arguments", "hashpartitioning(a)");
    assert_detail(n, "Input", "[1]: [a#1]");
    struct plan_detail d;
    ck_assert(!plan_node_detail(n, "Output", &d));
    document_free(doc);

    /* The same bytes rewritten and a new document built the same way: its node usually
     * lands where the old one was, with its block at the same place and of the same length
     * but its fields elsewhere in it; the answers must be the new block's. */
    strcpy(buf, "(3) Exchange\nInput [2]: [b#2, c#3]\nArguments: roundrobin(42)");
    doc = one_node_with_details(buf, 2, &n);
    assert_detail(n, "Input", "[2]: [b#2, c#3]");
    assert_detail(n, "Arguments", "roundrobin(42)");
    document_free(doc);

    /* A block of 40 fields: every one of them is found. */
    char big[40 * 16 + 16];
    size_t used = (size_t)snprintf(big, sizeof big, "(3) Exchange");
    for (int i = 0; i < 40; i++)
        used += (size_t)snprintf(big + used, sizeof big - used, "\nKey%d: v%d", i, i);
    doc = one_node_with_details(big, 40, &n);
    assert_detail(n, "Key39", "v39");
    assert_detail(n, "Key0", "v0");
    document_free(doc);
}
END_TEST

/* The model finished from the builder's record (the parser makes nodes in pre-order) is the
   one the walk over every node gives: over the samples, and over shapes that leave the
   record behind (inner children two levels down, a plan dropped as prose, ids dropped from a
   section with few of them, a node placed after its section seemed done). */
START_TEST(the_record_and_the_walk_finish_the_same_model)
{
    static const char *const texts[] = {
        "== Physical Plan ==\n* Project (3)\n+- * Filter (2)\n   +- Scan parquet t (1)\n\n"
        "(1) Scan parquet t\nOutput [1]: [a#1]\n\n(2) Filter [codegen id : 1]\nInput [1]: [a#1]\n"
        "Condition : (a#1 > 1)\n\n(3) Project [codegen id : 1]\nOutput [1]: [a#1]\n",
        "Some prose that names Filter once.\n\n== Physical Plan ==\nProject [a#1]\n"
        "+- Filter (a#1 > 1)\n   :  +- Subquery subquery#5\n   :     +- Scan x\n"
        "   +- Scan parquet t\n",
        "== Analyzed Logical Plan ==\nProject [a#1]\n+- Relation t[a#1] parquet\n\n"
        "== Physical Plan ==\nAdaptiveSparkPlan isFinalPlan=true\n+- == Final Plan ==\n"
        "   Project (3)\n   +- Scan (1)\n+- == Initial Plan ==\n   Project (3)\n"
        "   +- Scan (1)\n",
        "== Physical Plan ==\nProject [a#1]\n+- Window (2) stray\n   +- Filter x\n      +- Scan t\n",
        "Filter (a > 1)\n+- Scan t\n\nunrelated text\n\nProject [b#2]\n+- Scan u\n",
        /* by_id comes from the parser's id index (parse.c, give_by_id) but for an id far
           past what the text can number (its table) and ids too sparse for any table */
        "== Physical Plan ==\n* Project (3)\n+- Scan parquet t (999999999)\n\n(3) Project\n"
        "Output [1]: [a#1]\n\n(999999999) Scan parquet t\nOutput [1]: [a#1]\n",
        "== Physical Plan ==\n* Project (3)\n+- Scan parquet t (90)\n\n(3) Project\n"
        "Output [1]: [a#1]\n\n(90) Scan parquet t\nOutput [1]: [a#1]\n",
    };
    tu_tmpdir_make("finish");
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        const char *path = tu_tmp_write("plan.txt", texts[i], strlen(texts[i]));
        char *why = tu_finish_differs(path, NULL);
        ck_assert_msg(why == NULL, "text %zu: %s", i, why ? why : "");
    }
    /* Past 8 MB the parse runs beside the quick scan (load.c): the same there. */
    size_t len;
    char *big = tu_union_plan(70000, true, "", &len);
    ck_assert_uint_gt(len, 8u << 20);
    size_t nodes;
    char *why = tu_finish_differs(tu_tmp_write("big.txt", big, len), &nodes);
    ck_assert_msg(why == NULL, "big plan: %s", why ? why : "");
    ck_assert_uint_eq(nodes, 70001);
    free(big);
    tu_tmpdir_remove();
    static const char *const samples[] = {
        "aqe-initial-final.txt", "broadcast-vs-sortmerge.txt", "cache.txt",
        "cost-misleading.txt", "diff-analyzed-optimized.txt", "diff-pushdown.txt",
        "join-aqe-final.txt", "join-codegen.txt", "join-cost.txt", "join-extended.txt",
        "join-formatted.txt", "join-simple.txt", "partition-pruning.txt",
        "python-udf-vs-native.txt", "window-partitioning.txt",
    };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "samples/%s", samples[i]);
        why = tu_finish_differs(path, &nodes);
        ck_assert_msg(why == NULL, "%s: %s", path, why ? why : "");
        ck_assert_uint_gt(nodes, 0);
    }
}
END_TEST

/* What the model derives instead of storing (a node's child count, name, details lines,
 * pre-order number) is what the parser saw: on a formatted plan, a simple one with AQE
 * labels, and a pasted one the clean-up moves lines in. */
START_TEST(derived_fields_read_what_the_parser_saw)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "* SortMergeJoin Inner (5)\n"
        ":- * Sort (2)\n"
        ":  +- Scan parquet db.a (1)\n"
        "+- * Sort (4)\n"
        "   +- Scan parquet db.b (3)\n"
        "\n"
        "\n"
        "(1) Scan parquet db.a\n"
        "Output [1]: [x#1]\n"
        "\n"
        "(2) Sort [codegen id : 1]\n"
        "Input [1]: [x#1]\n"
        "Arguments: [x#1 ASC NULLS FIRST], false, 0\n"
        "\n"
        "(3) Scan parquet db.b\n"
        "Output [1]: [y#2]\n"
        "\n"
        "(4) Sort [codegen id : 2]\n"
        "Input [1]: [y#2]\n"
        "\n"
        "(5) SortMergeJoin [codegen id : 3]\n"
        "Left keys [1]: [x#1]\n"
        "Right keys [1]: [y#2]\n"
        "Join type: Inner\n");
    struct plan_node *join = tu_root(doc);
    tu_assert_slice_is(plan_node_name(join), "SortMergeJoin");
    ck_assert_uint_eq(plan_node_n_children(join), 2);
    ck_assert_uint_eq(plan_node_details_line(join), 22);
    ck_assert_uint_eq(join->n_details, 3);
    struct plan_node *scan = plan_node_find_by_id(doc->first_plan, 3);
    tu_assert_slice_is(plan_node_name(scan), "Scan parquet db.b");
    ck_assert_uint_eq(plan_node_n_children(scan), 0);
    ck_assert_uint_eq(plan_node_details_line(scan), 16);
    ck_assert_uint_eq(plan_node_preorder(scan), 4);
    ck_assert_ptr_eq(plan_node_parent(scan), plan_node_find_by_id(doc->first_plan, 4));
    tu_check_derived(doc);
    document_free(doc);

    doc = tu_parse("== Physical Plan ==\n"
                   "AdaptiveSparkPlan isFinalPlan=true\n"
                   "+- == Final Plan ==\n"
                   "   *(2) Project [a#1]\n"
                   "   +- 'Filter (a#1 > 1)\n"
                   "      +- Scan parquet t[a#1]\n"
                   "+- == Initial Plan ==\n"
                   "   Project [a#1]\n"
                   "   +- Filter (a#1 > 1)\n"
                   "      +- Scan parquet t[a#1]\n");
    struct plan_node *root = tu_root(doc);
    ck_assert_uint_eq(plan_node_n_children(root), 2);
    struct plan_node *final = tu_child(root, 0);
    ck_assert(final->flags & NODE_LABEL);
    tu_assert_slice_is(plan_node_name(final), "Final Plan");
    tu_assert_slice_is(plan_node_name(tu_child(final, 0)), "Project");
    tu_assert_slice_is(plan_node_name(tu_child(tu_child(final, 0), 0)), "Filter");
    tu_assert_slice_is(plan_node_text(tu_child(tu_child(final, 0), 0)), "'Filter (a#1 > 1)");
    ck_assert_uint_eq(plan_node_details_line(root), 0);
    tu_check_derived(doc);
    document_free(doc);

    /* A markdown quote: the clean-up rewrites the lines, the map takes them back. */
    doc = tu_parse("Here is the plan:\n\n"
                   "> == Physical Plan ==\n"
                   "> * Project (2)\n"
                   "> +- Scan parquet t (1)\n"
                   ">\n"
                   ">\n"
                   "> (1) Scan parquet t\n"
                   "> Output [1]: [a#1]\n"
                   ">\n"
                   "> (2) Project [codegen id : 1]\n"
                   "> Output [1]: [a#1]\n");
    struct plan_node *project = plan_node_find_by_id(doc->first_plan, 2);
    ck_assert_ptr_nonnull(project);
    ck_assert_uint_eq(plan_node_details_line(project), 11);
    ck_assert_uint_eq(plan_node_details_line(plan_node_find_by_id(doc->first_plan, 1)), 8);
    tu_check_derived(doc);
    document_free(doc);
}
END_TEST

/* Nodes made out of pre-order (a section's nodes are then not one stretch of the store, and
 * its pre-order is kept in an array) or out of input order still read back in pre-order and
 * by line; a dropped plan's nodes are taken back and the store is the input order again. */
START_TEST(nodes_made_out_of_order_read_back_in_order)
{
    struct document *doc = document_new("hand", NULL, 0);
    ck_assert_ptr_nonnull(doc);
    struct plan *p = document_add_plan(doc, 1);
    struct plan_section *s = plan_add_section(p, SECTION_PHYSICAL, slice_cstr("t"), 1);
    struct plan_section *s2 = plan_add_section(p, SECTION_SUBQUERY, slice_cstr("u"), 9);
    struct plan_node *root = plan_node_new(s), *b = plan_node_new(s), *other = plan_node_new(s2),
                     *a = plan_node_new(s);
    static const char *const names[] = {"Join", "B", "Other", "A"};
    struct plan_node *all[] = {root, b, other, a};
    for (int i = 0; i < 4; i++) {
        plan_node_set_text(all[i], slice_cstr(names[i]));
        plan_node_set_name(all[i], plan_node_text(all[i]));
    }
    root->line = 2, a->line = 3, b->line = 4, other->line = 10;
    plan_section_append_root(s, root);
    plan_node_append_child(root, a); /* made last, printed first */
    plan_node_append_child(root, b);
    plan_section_append_root(s2, other);
    ck_assert(document_finish(doc));
    ck_assert_uint_eq(s->n_nodes, 3);
    ck_assert_ptr_eq(plan_section_node(s, 1), a);
    ck_assert_ptr_eq(plan_section_node(s, 2), b);
    ck_assert_uint_eq(plan_node_preorder(a), 1);
    ck_assert_uint_eq(plan_node_preorder(b), 2);
    ck_assert_uint_eq(plan_node_preorder(other), 0);
    ck_assert_uint_eq(plan_node_n_children(root), 2);
    ck_assert_ptr_eq(document_node(doc, 1), a);
    ck_assert_ptr_eq(document_node(doc, 3), other);
    ck_assert_ptr_eq(document_node_at_line(doc, 3), a);
    tu_check_derived(doc);
    document_free(doc);

    /* A plan the builder drops gives its nodes back: the next plan's nodes take their
     * place, and the store is all_nodes. */
    doc = document_new("dropped", NULL, 0);
    ck_assert_ptr_nonnull(doc);
    struct plan_builder bld;
    build_init(&bld, doc);
    ck_assert_ptr_nonnull(build_plan(&bld, 1));
    ck_assert_ptr_nonnull(build_section(&bld, SECTION_PHYSICAL, slice_cstr("x"), 1));
    struct plan_node *gone = build_enter(&bld);
    ck_assert_ptr_nonnull(gone);
    build_leave(&bld);
    build_end_section(&bld);
    build_end_plan(&bld, false);
    ck_assert_uint_eq(doc->n_nodes_made, 0);
    ck_assert_ptr_nonnull(build_plan(&bld, 5));
    ck_assert_ptr_nonnull(build_section(&bld, SECTION_PHYSICAL, slice_cstr("y"), 5));
    struct plan_node *kept = build_enter(&bld);
    ck_assert_ptr_eq(kept, gone);
    plan_node_set_text(kept, slice_cstr("Scan t"));
    plan_node_set_name(kept, slice_make(plan_node_text(kept).ptr, 4));
    kept->line = 6;
    build_leave(&bld);
    build_end_section(&bld);
    build_end_plan(&bld, true);
    build_free(&bld);
    ck_assert(document_finish(doc));
    ck_assert_uint_eq(doc->n_all_nodes, 1);
    ck_assert_ptr_eq(document_node(doc, 0), kept);
    tu_assert_slice_is(plan_node_name(kept), "Scan");
    ck_assert_uint_eq(kept->depth, 0);
    ck_assert_uint_eq(plan_node_details_line(kept), 0);
    tu_check_derived(doc);
    document_free(doc);
}
END_TEST

Suite *plan_suite(void)
{
    Suite *s = suite_create("plan");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, arena_hands_out_zeroed_aligned_memory_and_big_blocks);
    tcase_add_test(tc, arena_blocks_fit_while_chunks_grow);
    tcase_add_test(tc, a_deep_chain_finishes_without_recursion);
    tcase_add_test(tc, the_record_and_the_walk_finish_the_same_model);
    tcase_add_test(tc, a_plan_built_by_enter_and_leave_has_its_tree);
    tcase_add_test(tc, details_asked_key_after_key_and_after_the_document_is_gone);
    tcase_add_test(tc, derived_fields_read_what_the_parser_saw);
    tcase_add_test(tc, nodes_made_out_of_order_read_back_in_order);
    tcase_add_test(tc, a_name_past_64_kb_reads_back_whole);
    tcase_add_test(tc, texts_and_blocks_out_of_reach_read_back);
    suite_add_tcase(s, tc);
    return s;
}
