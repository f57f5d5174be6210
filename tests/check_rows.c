/* Row model: what the tree pane shows after folds, moves, jumps and searches. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/opclass.h"
#include "sparkplan/plan.h"
#include "sparkplan/rows.h"
#include "testutil.h"

/* Build a document from an outline: two spaces of indentation per level; a line may start
 * with "*N " (codegen stage N) and "#N " (formatted id N); text after " | " is the node's
 * details block.  The parser is not involved, so these tests pin the row model alone. */
static struct document *outline(const char *spec)
{
    size_t len = strlen(spec);
    char *bytes = malloc(len + 1);
    ck_assert_ptr_nonnull(bytes);
    memcpy(bytes, spec, len + 1);
    struct document *doc = document_new("outline", bytes, len);
    ck_assert_ptr_nonnull(doc);
    struct plan *p = document_add_plan(doc, 1);
    struct plan_section *s = plan_add_section(p, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 1);
    ck_assert_ptr_nonnull(s);
    struct plan_node *stack[64], *last_child[64];
    char *line = bytes;
    uint32_t lineno = 0;
    while (*line) {
        char *nl = strchr(line, '\n');
        char *end = nl ? nl : line + strlen(line);
        lineno++;
        unsigned depth = 0;
        char *t = line;
        while (t + 1 < end && t[0] == ' ' && t[1] == ' ')
            t += 2, depth++;
        ck_assert_uint_lt(depth, 64);
        struct plan_node *n = plan_node_new(s);
        ck_assert_ptr_nonnull(n);
        for (;;) {
            if (*t == '*' && t[1] >= '0' && t[1] <= '9')
                n->stage = (int32_t)strtol(t + 1, &t, 10);
            else if (*t == '#' && t[1] >= '0' && t[1] <= '9')
                n->id = (int32_t)strtol(t + 1, &t, 10);
            else
                break;
            while (*t == ' ')
                t++;
        }
        char *bar = NULL;
        for (char *q = t; q + 2 < end; q++)
            if (q[0] == ' ' && q[1] == '|' && q[2] == ' ') {
                bar = q;
                break;
            }
        char *text_end = bar ? bar : end;
        plan_node_set_text(n, slice_make(t, (size_t)(text_end - t)));
        char *w = t;
        while (w < text_end && *w != ' ')
            w++;
        plan_node_set_name(n, slice_make(t, (size_t)(w - t)));
        if (bar)
            plan_node_set_details(n, slice_make(bar + 3, (size_t)(end - bar - 3)), 0);
        n->line = lineno;
        if (depth == 0) {
            plan_section_append_root(s, n);
        } else {
            /* The builder knows the last child: wide plans stay linear to build. */
            plan_node_append_child_after(stack[depth - 1], last_child[depth - 1], n);
            last_child[depth - 1] = n;
        }
        stack[depth] = n;
        last_child[depth] = NULL;
        line = nl ? nl + 1 : end;
    }
    ck_assert(document_finish(doc));
    return doc;
}

static struct plan_section *first_section(struct document *doc)
{
    return doc->first_plan->first_section;
}

/* The pane as a person sees it: height rows from the top, "> " marking the selection. */
static char screen[8192];
static const char *render(struct rows *r)
{
    size_t len = 0;
    screen[0] = '\0';
    unsigned lines = 0;
    for (struct plan_node *n = r->top; n && lines < r->height; n = rows_next(r, n), lines++) {
        struct rows_prefix pf;
        rows_prefix(r, n, true, 0, 20, &pf);
        len += (size_t)snprintf(screen + len, sizeof screen - len, "%s%s%s%s%s%.*s\n",
                                n == r->sel ? "> " : "  ", pf.hint, pf.guides, pf.glyph,
                                pf.marker, (int)plan_node_text(n).len, plan_node_text(n).ptr);
    }
    return screen;
}

static struct plan_node *by_text(struct document *doc, const char *text)
{
    struct plan_section *s = first_section(doc);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        if (tu_slice_is(plan_node_text(plan_section_node(s, i)), text))
            return plan_section_node(s, i);
    ck_abort_msg("no node %s", text);
    return NULL;
}

static const char join_plan[] =
    "#9 Project\n"
    "  *2 #8 SortMergeJoin\n"
    "    *2 #4 Sort\n"
    "      #3 Exchange hashpartitioning(a)\n"
    "        *1 #2 Filter | (2) Filter [codegen id : 1] Condition : isnotnull(a)\n"
    "          *1 #1 Scan parquet a\n"
    "    *2 #7 Sort\n"
    "      #6 Exchange hashpartitioning(b)\n"
    "        #5 Scan parquet b | Location: InMemoryFileIndex [file:/tmp/B]\n";

START_TEST(unfolded_tree_shows_every_node_with_guides)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 20);
    ck_assert_str_eq(render(&r),
                     "> - Project\n"
                     "  \\-- SortMergeJoin\n"
                     "    |-- Sort\n"
                     "    | \\-- Exchange hashpartitioning(a)\n"
                     "    |   \\-- Filter\n"
                     "    |     \\-- Scan parquet a\n"
                     "    \\-- Sort\n"
                     "      \\-- Exchange hashpartitioning(b)\n"
                     "        \\-- Scan parquet b\n");
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(utf8_guides_use_box_drawing)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    struct rows_prefix pf;
    rows_prefix(&r, by_text(doc, "Exchange hashpartitioning(a)"), false, 0, 20, &pf);
    /* SortMergeJoin has no sibling below, Sort has: "  │ └─" */
    ck_assert_str_eq(pf.guides, "  \xE2\x94\x82 \xE2\x94\x94\xE2\x94\x80");
    ck_assert_uint_eq(pf.guide_cols, 6);
    ck_assert_str_eq(pf.glyph, "\xE2\x96\xBE "); /* ▾ open */
    rows_set_folded(&r, by_text(doc, "Exchange hashpartitioning(a)"), true);
    rows_prefix(&r, by_text(doc, "Exchange hashpartitioning(a)"), false, 0, 20, &pf);
    ck_assert_str_eq(pf.glyph, "\xE2\x96\xB8 "); /* ▸ folded */
    ck_assert_str_eq(pf.marker, "[+2] ");
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(fold_hides_subtree_and_shows_hidden_count)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 20);
    rows_move(&r, 2); /* the first Sort */
    rows_toggle(&r);
    ck_assert_str_eq(render(&r),
                     "  - Project\n"
                     "  \\-- SortMergeJoin\n"
                     ">   |-+ [+3] Sort\n"
                     "    \\-- Sort\n"
                     "      \\-- Exchange hashpartitioning(b)\n"
                     "        \\-- Scan parquet b\n");
    /* Moving down skips the hidden rows; up comes back to the folded one. */
    rows_move(&r, 1);
    tu_assert_slice_is(plan_node_text(r.sel), "Sort");
    ck_assert_int_eq(r.sel->id, 7);
    rows_move(&r, -1);
    ck_assert_int_eq(r.sel->id, 4);
    rows_toggle(&r);
    ck_assert(!rows_is_folded(&r, r.sel));
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(left_folds_then_goes_to_parent_right_unfolds_then_enters)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 20);
    rows_select(&r, by_text(doc, "Filter"));
    rows_left(&r); /* Filter has a child: fold it */
    ck_assert(rows_is_folded(&r, r.sel));
    tu_assert_slice_is(plan_node_text(r.sel), "Filter");
    rows_left(&r); /* already folded: go to the parent */
    tu_assert_slice_is(plan_node_text(r.sel), "Exchange hashpartitioning(a)");
    rows_select(&r, by_text(doc, "Filter"));
    rows_right(&r); /* folded: unfold */
    ck_assert(!rows_is_folded(&r, r.sel));
    tu_assert_slice_is(plan_node_text(r.sel), "Filter");
    rows_right(&r); /* open: go to the first child */
    tu_assert_slice_is(plan_node_text(r.sel), "Scan parquet a");
    rows_right(&r); /* a leaf: nothing happens */
    tu_assert_slice_is(plan_node_text(r.sel), "Scan parquet a");
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(fold_all_levels_and_unfold_all)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 20);
    rows_select(&r, by_text(doc, "Scan parquet b"));
    rows_fold_all(&r);
    /* The selection climbs to the row that is still visible. */
    ck_assert_str_eq(render(&r), "> + [+8] Project\n");
    rows_show_levels(&r, 3);
    ck_assert_str_eq(render(&r),
                     "> - Project\n"
                     "  \\-- SortMergeJoin\n"
                     "    |-+ [+3] Sort\n"
                     "    \\-+ [+2] Sort\n");
    rows_unfold_all(&r);
    ck_assert_uint_eq((unsigned)strlen(render(&r)) > 0, 1);
    unsigned n = 0;
    for (struct plan_node *m = rows_first(&r); m; m = rows_next(&r, m))
        n++;
    ck_assert_uint_eq(n, 9);
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(scrolling_keeps_selection_on_screen)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 3);
    rows_move(&r, 3); /* past the bottom: the view follows */
    ck_assert_str_eq(render(&r),
                     "  \\-- SortMergeJoin\n"
                     "    |-- Sort\n"
                     ">   | \\-- Exchange hashpartitioning(a)\n");
    rows_move(&r, -2); /* still on screen: the view stays */
    tu_assert_slice_is(plan_node_text(r.top), "SortMergeJoin");
    ck_assert_ptr_eq(r.sel, r.top);
    rows_move(&r, -1);
    ck_assert_str_eq(render(&r),
                     "> - Project\n"
                     "  \\-- SortMergeJoin\n"
                     "    |-- Sort\n");
    rows_go_last(&r);
    tu_assert_slice_is(plan_node_text(r.sel), "Scan parquet b");
    ck_assert(strstr(render(&r), "> ") != NULL);
    rows_go_first(&r);
    tu_assert_slice_is(plan_node_text(r.sel), "Project");
    rows_page(&r, 2);
    tu_assert_slice_is(plan_node_text(r.top), "Exchange hashpartitioning(a)");
    tu_assert_slice_is(plan_node_text(r.sel), "Exchange hashpartitioning(a)");
    rows_page(&r, 100); /* far past the end: clamps, the screen stays full */
    tu_assert_slice_is(plan_node_text(r.sel), "Scan parquet b");
    tu_assert_slice_is(plan_node_text(r.top), "Sort");
    rows_scroll(&r, -2); /* the wheel drags the selection along when it leaves */
    tu_assert_slice_is(plan_node_text(r.top), "Filter");
    ck_assert_int_eq(r.sel->id, 7); /* the last row still on screen */
    rows_free(&r);
    document_free(doc);
}
END_TEST

/* Wrapped rows take several lines: the selection still has to fit on screen. */
static unsigned two_lines_for_sort(const struct plan_node *n, void *ctx)
{
    (void)ctx;
    return tu_slice_is(plan_node_text(n), "Sort") ? 2 : 1;
}

START_TEST(tall_rows_scroll_by_their_height)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 3);
    rows_set_height_fn(&r, two_lines_for_sort, NULL);
    rows_move(&r, 2); /* Sort takes lines 3-4 with top at Project: scroll by one */
    tu_assert_slice_is(plan_node_text(r.top), "SortMergeJoin");
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(goto_node_unfolds_what_hides_it)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 20);
    rows_fold_all(&r);
    struct plan_node *target = plan_node_find_by_id(doc->first_plan, 5);
    ck_assert_ptr_nonnull(target);
    rows_select_centered(&r, target);
    ck_assert_ptr_eq(r.sel, target);
    ck_assert_str_eq(render(&r),
                     "  - Project\n"
                     "  \\-- SortMergeJoin\n"
                     "    |-+ [+3] Sort\n"
                     "    \\-- Sort\n"
                     "      \\-- Exchange hashpartitioning(b)\n"
                     ">       \\-- Scan parquet b\n");
    rows_free(&r);
    document_free(doc);
}
END_TEST

/* A jump to a node the tab does not hold (outside a sub-plan tab's scope, or of another
 * section) is no jump: the selection and the folds stay as they are. */
START_TEST(goto_node_outside_the_tab_is_ignored)
{
    struct document *doc = outline(join_plan), *other = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), by_text(doc, "Sort")));
    rows_set_height(&r, 20);
    rows_fold_all(&r);
    const char *before = "> + [+3] Sort\n";
    ck_assert_str_eq(render(&r), before);
    struct plan_node *sel = r.sel;
    rows_select_centered(&r, by_text(doc, "Scan parquet b"));
    rows_select_centered(&r, by_text(doc, "Project"));
    rows_select_centered(&r, by_text(other, "Scan parquet a"));
    rows_select_centered(&r, NULL);
    ck_assert_ptr_eq(r.sel, sel);
    ck_assert_str_eq(render(&r), before);
    /* The same jump inside the scope unfolds and selects. */
    rows_select_centered(&r, by_text(doc, "Scan parquet a"));
    ck_assert_ptr_eq(r.sel, by_text(doc, "Scan parquet a"));
    rows_free(&r);
    document_free(other);
    document_free(doc);
}
END_TEST

START_TEST(exchange_and_stage_jumps_wrap_around)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 20);
    rows_fold_all(&r);
    bool wrapped = true;
    ck_assert(rows_next_exchange(&r, +1, &wrapped));
    ck_assert_int_eq(r.sel->id, 3);
    ck_assert(!wrapped);
    ck_assert(rows_next_exchange(&r, +1, &wrapped));
    ck_assert_int_eq(r.sel->id, 6);
    ck_assert(rows_next_exchange(&r, +1, &wrapped));
    ck_assert_int_eq(r.sel->id, 3);
    ck_assert(wrapped);
    ck_assert(rows_next_exchange(&r, -1, &wrapped));
    ck_assert_int_eq(r.sel->id, 6);
    ck_assert(wrapped);
    /* Stages: the entries of *2 (SortMergeJoin) and *1 (Filter). */
    rows_go_first(&r);
    ck_assert(rows_next_stage(&r, +1, NULL));
    ck_assert_int_eq(r.sel->id, 8);
    ck_assert(rows_next_stage(&r, +1, NULL));
    ck_assert_int_eq(r.sel->id, 2);
    ck_assert(rows_next_stage(&r, -1, NULL));
    ck_assert_int_eq(r.sel->id, 8);
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(search_counts_matches_in_text_and_details_and_unfolds)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 20);
    rows_fold_all(&r);
    ck_assert_int_eq(rows_search(&r, "scan"), 2);      /* smart case: any case */
    ck_assert_int_eq(rows_search(&r, "Scan"), 2);
    ck_assert_int_eq(rows_search(&r, "SCAN"), 0);      /* an upper-case letter: exact */
    ck_assert_int_eq(rows_search(&r, "isnotnull"), 1); /* found in a details block only */
    ck_assert_int_eq(rows_search(&r, "file:/tmp/b"), 1);
    ck_assert_int_eq(rows_search(&r, "sort"), 3);      /* Sort x2, SortMergeJoin */
    ck_assert_int_eq(rows_search(&r, "parquet"), 2);
    ck_assert_uint_eq(rows_match_index(&r), 0);
    ck_assert(rows_search_step(&r, +1, NULL));
    tu_assert_slice_is(plan_node_text(r.sel), "Scan parquet a");
    ck_assert_uint_eq(rows_match_index(&r), 1);
    ck_assert_ptr_eq(rows_prev(&r, r.sel), by_text(doc, "Filter")); /* unfolded */
    ck_assert(rows_search_step(&r, +1, NULL));
    ck_assert_uint_eq(rows_match_index(&r), 2);
    bool wrapped = false;
    ck_assert(rows_search_step(&r, +1, &wrapped));
    ck_assert(wrapped);
    ck_assert_uint_eq(rows_match_index(&r), 1);
    ck_assert_int_eq(rows_search(&r, "no such thing"), 0);
    ck_assert(!rows_search_step(&r, +1, NULL));
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(a_subtree_tab_shows_only_that_subtree)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    struct plan_node *sort = plan_node_find_by_id(doc->first_plan, 4);
    ck_assert(rows_init(&r, first_section(doc), sort));
    rows_set_height(&r, 20);
    ck_assert_str_eq(render(&r),
                     "> - Sort\n"
                     "  \\-- Exchange hashpartitioning(a)\n"
                     "    \\-- Filter\n"
                     "      \\-- Scan parquet a\n");
    rows_go_last(&r);
    tu_assert_slice_is(plan_node_text(r.sel), "Scan parquet a");
    rows_left(&r);
    rows_left(&r);
    rows_left(&r);
    rows_left(&r);
    rows_left(&r); /* stops at the tab's root */
    ck_assert_ptr_eq(r.sel, sort);
    ck_assert(!rows_contains(&r, plan_node_find_by_id(doc->first_plan, 7)));
    ck_assert_int_eq(rows_search(&r, "scan"), 1);
    rows_free(&r);
    document_free(doc);
}
END_TEST

/* A plan big enough that anything linear per key would show in the step counter. */
static struct document *wide_plan(unsigned n_children, unsigned grandchildren)
{
    size_t cap = (size_t)n_children * (grandchildren + 1) * 24 + 64;
    char *spec = malloc(cap);
    ck_assert_ptr_nonnull(spec);
    size_t len = (size_t)snprintf(spec, cap, "Root\n");
    for (unsigned i = 0; i < n_children; i++) {
        len += (size_t)snprintf(spec + len, cap - len, "  %sNode%u\n",
                                i % 100 == 0 ? "Exchange" : "", i);
        for (unsigned j = 0; j < grandchildren; j++)
            len += (size_t)snprintf(spec + len, cap - len, "    Leaf\n");
    }
    struct document *doc = outline(spec);
    free(spec);
    return doc;
}

static unsigned big_count(void)
{
    return getenv("SPARKPLAN_SANITIZED") ? 20000 : 200000;
}

START_TEST(keys_cost_does_not_grow_with_the_plan)
{
    unsigned n = big_count();
    struct document *doc = wide_plan(n / 2, 1);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    rows_set_height(&r, 50);
    struct {
        const char *what;
        uint64_t steps;
    } cost[8];
    int k = 0;
#define COST(label, stmt)                                                                  \
    do {                                                                                   \
        uint64_t before = r.steps;                                                         \
        stmt;                                                                              \
        cost[k].what = label, cost[k].steps = r.steps - before, k++;                       \
    } while (0)
    COST("j", rows_move(&r, 1));
    COST("PgDn", rows_page(&r, 2));
    COST("G", rows_go_last(&r));
    COST("k", rows_move(&r, -1));
    COST("Space", rows_toggle(&r));
    COST("g", rows_go_first(&r));
    COST("Space on the root", rows_toggle(&r));
    COST("Space again", rows_toggle(&r));
#undef COST
    for (int i = 0; i < k; i++)
        ck_assert_msg(cost[i].steps < 1000, "%s visited %llu rows on a %u-node plan",
                      cost[i].what, (unsigned long long)cost[i].steps, n);
    /* Jumps use an index built once; after that each costs a screen of rows at most. */
    ck_assert(rows_next_exchange(&r, +1, NULL));
    uint64_t before = r.steps;
    ck_assert(rows_next_exchange(&r, +1, NULL));
    ck_assert_uint_lt(r.steps - before, 1000);
    rows_free(&r);
    document_free(doc);
}
END_TEST

/* A chain 100,000 levels deep: rows show the depth and the nearest levels only. */
START_TEST(deep_chain_rows_are_compressed)
{
    unsigned n = getenv("SPARKPLAN_SANITIZED") ? 10000 : 100000;
    char *bytes = malloc(16);
    memcpy(bytes, "Chain", 6);
    struct document *doc = document_new("deep", bytes, 5);
    struct plan *p = document_add_plan(doc, 1);
    struct plan_section *s = plan_add_section(p, SECTION_PHYSICAL, slice_cstr(""), 1);
    struct plan_node *prev = NULL;
    for (unsigned i = 0; i < n; i++) {
        struct plan_node *m = plan_node_new(s);
        plan_node_set_text(m, slice_make(bytes, 5)), plan_node_set_name(m, plan_node_text(m));
        if (prev)
            plan_node_append_child(prev, m);
        else
            plan_section_append_root(s, m);
        prev = m;
    }
    ck_assert(document_finish(doc));
    struct rows r;
    ck_assert(rows_init(&r, s, NULL));
    rows_set_height(&r, 40);
    uint64_t before = r.steps;
    rows_go_last(&r); /* O(depth) once: walks down the chain */
    ck_assert_ptr_eq(r.sel, prev);
    uint64_t go_last = r.steps - before;
    ck_assert_uint_le(go_last, 4ull * n);
    struct rows_prefix pf;
    before = r.steps;
    rows_prefix(&r, prev, false, 0, 10, &pf);
    ck_assert_uint_le(r.steps - before, 10);
    char want[64];
    snprintf(want, sizeof want, "\xE2\x80\xA6(depth %u) ", n - 1);
    ck_assert_str_eq(pf.hint, want);
    ck_assert_uint_eq(pf.guide_cols, 4); /* the nearest 10/4 = 2 levels */
    before = r.steps;
    rows_move(&r, -1);
    ck_assert_uint_lt(r.steps - before, 1000u + 3u * 40u);
    rows_free(&r);
    document_free(doc);
}
END_TEST

/* A comb 40 levels deep: node i has node i+1 and then a leaf as children, so every
 * level's guide column runs down past the deep rows (QA #5). */
static struct document *comb(unsigned depth)
{
    static char spec[8192];
    size_t len = 0;
    for (unsigned i = 0; i < depth; i++)
        len += (size_t)snprintf(spec + len, sizeof spec - len, "%*sNode%u\n", (int)(2 * i), "", i);
    for (unsigned i = depth - 1; i-- > 0;)
        len += (size_t)snprintf(spec + len, sizeof spec - len, "%*sLeaf%u\n", (int)(2 * i + 2), "", i);
    return outline(spec);
}

/* The screen of `lines` rows from top, as hint + guides in ASCII, with the window the
 * view would choose; returns the window. */
static unsigned screen_prefixes(struct rows *r, struct plan_node *top, unsigned lines,
                                struct rows_fit fit, unsigned prev, char out[][256])
{
    uint32_t dmin = UINT32_MAX, dmax = 0;
    struct plan_node *n = top;
    for (unsigned i = 0; i < lines && n; i++, n = rows_next(r, n)) {
        uint32_t d = rows_rel_depth(r, n);
        dmin = d < dmin ? d : dmin;
        dmax = d > dmax ? d : dmax;
    }
    unsigned skip = rows_window_skip(dmin, dmax, fit, prev);
    n = top;
    for (unsigned i = 0; i < lines && n; i++, n = rows_next(r, n)) {
        struct rows_prefix pf;
        rows_prefix(r, n, true, skip, fit.hard, &pf);
        size_t h = strlen(pf.hint), g = strlen(pf.guides);
        ck_assert_uint_lt(h + g, 256);
        memcpy(out[i], pf.hint, h);
        memcpy(out[i] + h, pf.guides, g + 1);
    }
    return skip;
}

START_TEST(a_screen_of_deep_rows_keeps_its_guides_in_line)
{
    struct document *doc = comb(40);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    struct rows_fit fit = {10, 8, 12}; /* a 40-column pane */
    char rows_text[9][256];
    /* Shallow screens are not compressed at all. */
    ck_assert_uint_eq(screen_prefixes(&r, rows_first(&r), 9, fit, 0, rows_text), 0);
    ck_assert_str_eq(rows_text[0], "");
    ck_assert_str_eq(rows_text[8], "| | | | | | | |-");
    unsigned prev = 0, changes = 0;
    struct plan_node *top = rows_first(&r);
    for (unsigned step = 0; step < 31; step++, top = rows_next(&r, top)) {
        unsigned skip = screen_prefixes(&r, top, 9, fit, prev, rows_text);
        changes += skip != prev;
        prev = skip;
        for (unsigned i = 0; i + 1 < 9; i++) {
            const char *a = rows_text[i], *b = rows_text[i + 1];
            /* The same hint on every row, so columns mean the same levels. */
            size_t ha = strcspn(a, "|\\"), hb = strcspn(b, "|\\");
            ck_assert_msg(ha == hb && strncmp(a, b, ha) == 0, "step %u: hints '%s' / '%s'",
                          step, a, b);
            /* Every column going down on a row goes on on the next one. */
            for (size_t c = 0; a[c] && c < strlen(b) + 1; c++)
                if (a[c] == '|')
                    ck_assert_msg(b[c] == '|' || b[c] == '\\', "step %u, rows %u-%u col %zu:\n%s\n%s",
                                  step, i, i + 1, c, a, b);
            /* And a row 2 levels deep leaves room: no row compresses on its own here. */
            ck_assert_ptr_null(strstr(b, "depth"));
        }
    }
    /* Scrolling a row at a time through 30 levels moves the window seldom. */
    ck_assert_uint_gt(prev, 0);
    ck_assert_uint_le(changes, 10);
    rows_free(&r);
    document_free(doc);
}
END_TEST

START_TEST(the_window_of_hidden_levels)
{
    struct rows_fit fit = {10, 8, 12};
    ck_assert_uint_eq(rows_window_skip(3, 10, fit, 0), 0);    /* the deepest row fits */
    ck_assert_uint_eq(rows_window_skip(3, 10, fit, 5), 0);    /* also after a deep screen */
    unsigned s = rows_window_skip(14, 22, fit, 0);
    ck_assert_uint_ge(s, 22 - 12);                            /* the deepest keeps room */
    ck_assert_uint_le(s, 13);                                 /* the shallowest its connector */
    ck_assert_uint_eq(rows_window_skip(15, 23, fit, s), s);   /* kept while it works */
    ck_assert_uint_eq(rows_window_skip(4, 30, fit, 9), 3);    /* too many levels: dmin - 1 */
}
END_TEST

START_TEST(summary_counts_exchanges_stages_and_joins)
{
    struct document *doc = outline(join_plan);
    struct op_summary sum;
    struct plan_section *s = first_section(doc);
    ck_assert(op_summary_compute(&sum, s, 0, s->n_nodes));
    ck_assert_uint_eq(sum.nodes, 9);
    ck_assert_uint_eq(sum.shuffles, 2);
    ck_assert_uint_eq(sum.broadcasts, 0);
    ck_assert_uint_eq(sum.stages, 2);
    char buf[256];
    op_summary_format(&sum, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "9 nodes | 2 shuffles | 0 broadcasts | 2 codegen stages | "
                          "joins: SortMergeJoinx1");
    ck_assert_int_eq(op_class_of(by_text(doc, "Scan parquet a")), OP_SCAN);
    ck_assert_int_eq(op_class_of(by_text(doc, "SortMergeJoin")), OP_JOIN);
    document_free(doc);
}
END_TEST

START_TEST(operator_classes_cover_plugins_and_reuse)
{
    struct document *doc = outline("AdaptiveSparkPlan\n"
                                   "  BroadcastHashJoin\n"
                                   "    BroadcastQueryStage 0\n"
                                   "      #7 CometBroadcastExchange HashedRelationBroadcastMode\n"
                                   "    ShuffleQueryStage 1\n"
                                   "      ColumnarExchange hashpartitioning\n"
                                   "    ReusedExchange | (9) ReusedExchange [Reuses operator id: 7]\n"
                                   "    ReusedExchange [a#1], Exchange hashpartitioning\n"
                                   "    Join Inner, (a = b)\n"
                                   "    Relation [a#1] parquet\n");
    ck_assert_int_eq(op_class_of(by_text(doc, "BroadcastHashJoin")), OP_JOIN);
    ck_assert_int_eq(op_class_of(by_text(doc, "BroadcastQueryStage 0")), OP_BROADCAST_STAGE);
    ck_assert_int_eq(op_class_of(by_text(doc, "ShuffleQueryStage 1")), OP_SHUFFLE_STAGE);
    ck_assert_int_eq(op_class_of(by_text(doc, "CometBroadcastExchange HashedRelationBroadcastMode")),
                     OP_BROADCAST);
    ck_assert_int_eq(op_class_of(by_text(doc, "ColumnarExchange hashpartitioning")), OP_SHUFFLE);
    ck_assert_int_eq(op_class_of(by_text(doc, "ReusedExchange")), OP_BROADCAST_REUSED);
    ck_assert_int_eq(op_class_of(by_text(doc, "ReusedExchange [a#1], Exchange hashpartitioning")),
                     OP_SHUFFLE_REUSED);
    ck_assert_int_eq(op_class_of(by_text(doc, "Relation [a#1] parquet")), OP_SCAN);
    struct op_summary sum;
    struct plan_section *s = first_section(doc);
    op_summary_compute(&sum, s, 0, s->n_nodes);
    ck_assert_uint_eq(sum.n_join_kinds, 2);
    ck_assert_str_eq(sum.joins[1].name, "Join Inner");
    ck_assert_uint_eq(sum.reused, 2);
    document_free(doc);
}
END_TEST


/* The text-scanning search must find exactly the nodes a node-by-node search finds. */
static bool naive_has(struct slice s, const char *pat, bool fold)
{
    size_t m = strlen(pat);
    for (size_t i = 0; i + m <= s.len; i++) {
        size_t j = 0;
        while (j < m) {
            unsigned char c = (unsigned char)s.ptr[i + j];
            if (fold && c >= 'A' && c <= 'Z')
                c = (unsigned char)(c + 32);
            if (c != (unsigned char)pat[j])
                break;
            j++;
        }
        if (j == m)
            return true;
    }
    return false;
}

/* The same search read 13 bytes at a time finds the same nodes; meanwhile the count only
 * grows and n goes to a node that matches, with its rank in the counter. */
static void check_sliced_search(struct rows *r, const char *pattern, const char *low, bool fold)
{
    size_t n = r->n_matches;
    uint32_t *want = malloc((n ? n : 1) * sizeof *want);
    ck_assert_ptr_nonnull(want);
    if (n) /* matches is NULL when nothing matched */
        memcpy(want, r->matches, n * sizeof *want);
    ck_assert(rows_search_start(r, pattern));
    size_t seen = 0;
    int done, slices = 0;
    while ((done = rows_search_more(r, 13)) == 0) {
        ck_assert(rows_searching(r));
        ck_assert_uint_ge(r->n_matches, seen);
        seen = r->n_matches;
        if (seen && slices++ % 50 == 0) {
            bool wrapped;
            ck_assert(rows_search_step(r, slices % 2 ? 1 : -1, &wrapped));
            const struct plan_node *m = r->sel;
            ck_assert(naive_has(plan_node_text(m).len ? plan_node_text(m) : plan_node_name(m), low,
                                fold) ||
                      naive_has(plan_node_details_text(m), low, fold));
            ck_assert_uint_ge(rows_match_index(r), 1);
            ck_assert_uint_le(rows_match_index(r), seen);
        }
    }
    ck_assert_int_eq(done, 1);
    ck_assert(!rows_searching(r));
    ck_assert_uint_eq(r->n_matches, n);
    ck_assert(n == 0 || memcmp(r->matches, want, n * sizeof *want) == 0);
    free(want);
}

static void check_search_like_naive(struct document *doc, const char *name)
{
    static const char *patterns[] = {"exchange", "Exchange", "#", "a", "(1)", "isnotnull",
                                     "codegen id", "Output [", "X", "zzzz", "]", "sort",
                                     /* two anchor bytes apart, either case; '@' and '`'
                                        differ from each other by the case bit only */
                                     "broadcast", "buildright", "plan_id=", "id : 1", "@",
                                     "`", "(2) "};
    for (struct plan *p = doc->first_plan; p; p = p->next)
        for (struct plan_section *s = p->first_section; s; s = s->next) {
            struct rows r;
            ck_assert(rows_init(&r, s, NULL));
            /* split_min 1: every search reads its second half on a thread of its own, as
               the searches of a big plan do */
            size_t n_pat = sizeof patterns / sizeof patterns[0];
            for (size_t round = 0; round < 2 * n_pat; round++) {
                size_t k = round % n_pat;
                r.split_min = round >= n_pat;
                char low[32];
                bool fold = true;
                for (size_t i = 0; patterns[k][i]; i++)
                    fold &= !(patterns[k][i] >= 'A' && patterns[k][i] <= 'Z');
                snprintf(low, sizeof low, "%s", patterns[k]);
                long want = 0;
                for (uint32_t i = 0; i < s->n_nodes; i++) {
                    const struct plan_node *n = plan_section_node(s, i);
                    want += naive_has(plan_node_text(n).len ? plan_node_text(n) : plan_node_name(n),
                                      low, fold) ||
                            naive_has(plan_node_details_text(n), low, fold);
                }
                long got = rows_search(&r, patterns[k]);
                ck_assert_msg(got == want, "%s: section %s: '%s' found in %ld nodes, not %ld",
                              name, section_kind_name(s->kind), patterns[k], got, want);
                check_sliced_search(&r, patterns[k], low, fold);
            }
            rows_free(&r);
        }
}

/* A sample plan parsed, or NULL when samples/ is not in this checkout. */
static struct document *load_sample(const char *path)
{
    size_t len;
    char *text = tu_read_file(path, &len);
    if (!text)
        return NULL;
    struct document *doc = NULL;
    ck_assert_int_eq(tu_try_parse(text, len, &doc), SP_OK);
    free(text);
    return doc;
}

START_TEST(search_finds_what_a_node_by_node_search_finds)
{
    struct document *own = outline(join_plan);
    check_search_like_naive(own, "outline");
    document_free(own);
    const char *samples[] = {"samples/join-formatted.txt", "samples/join-extended.txt",
                             "samples/join-aqe-final.txt", "samples/join-codegen.txt"};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        struct document *doc = load_sample(samples[i]);
        if (!doc)
            continue; /* samples/ not in this checkout */
        check_search_like_naive(doc, samples[i]);
        document_free(doc);
    }
    const char *corpus = tu_corpus_dir();
    const char *files[] = {"spark-tpcds-v1_4/q14a.explain.txt", "spark-tpcds-v1_4/q1.explain.txt",
                           "spark-sql-tests/explain-aqe.sql.out"};
    for (size_t i = 0; corpus && i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", corpus, files[i]);
        size_t len;
        char *text = tu_read_file(path, &len);
        if (!text)
            continue;
        struct document *doc = NULL;
        if (tu_try_parse(text, len, &doc) == SP_OK)
            check_search_like_naive(doc, files[i]);
        document_free(doc);
        free(text);
    }
}
END_TEST

/* Something else setting the pattern and matches (a trace, *) ends a scan in progress,
 * and the scan leaves them alone. */
START_TEST(a_trace_ends_a_search_in_progress)
{
    struct document *doc = outline(join_plan);
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    ck_assert(rows_search_start(&r, "s"));
    ck_assert_int_eq(rows_search_more(&r, 5), 0);
    ck_assert(rows_searching(&r));
    free(r.pattern);
    r.pattern = strdup("a#1");
    r.matches = malloc(sizeof *r.matches);
    r.matches[0] = 3;
    r.n_matches = 1;
    ck_assert(!rows_searching(&r));
    ck_assert_int_eq(rows_search_more(&r, 0), 1);
    ck_assert_uint_eq(r.n_matches, 1);
    ck_assert_uint_eq(r.matches[0], 3);
    ck_assert_str_eq(r.pattern, "a#1");
    rows_free(&r);
    document_free(doc);
}
END_TEST

/* ---- the sliced index pass (the explorer indexes big tabs between frames) ------------ */

static void assert_same_u32(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                            const char *what, const char *where)
{
    ck_assert_msg(na == nb, "%s: %s: %zu entries sliced, %zu whole", where, what, na, nb);
    for (size_t i = 0; i < na; i++)
        ck_assert_msg(a[i] == b[i], "%s: %s[%zu]: %u sliced, %u whole", where, what, i, a[i],
                      b[i]);
}

static void assert_same_summary(const struct op_summary *a, const struct op_summary *b,
                                const char *where)
{
    ck_assert_msg(a->nodes == b->nodes && a->shuffles == b->shuffles &&
                      a->broadcasts == b->broadcasts && a->reused == b->reused &&
                      a->stages == b->stages && a->n_join_kinds == b->n_join_kinds &&
                      a->other_joins == b->other_joins,
                  "%s: sliced counts %u nodes %u stages, whole %u nodes %u stages", where,
                  a->nodes, a->stages, b->nodes, b->stages);
    for (unsigned k = 0; k < a->n_join_kinds; k++) {
        ck_assert_str_eq(a->joins[k].name, b->joins[k].name);
        ck_assert_uint_eq(a->joins[k].count, b->joins[k].count);
    }
}

/* The tab [scope] of section s indexed and counted budget nodes at a time gives what the
 * whole pass gives, whatever the budget (an AQE Initial Plan skipped across a slice's end
 * included). */
static void check_sliced_like_whole(struct plan_section *s, struct plan_node *scope,
                                    const char *where)
{
    struct rows whole;
    struct op_summary whole_sum;
    ck_assert(rows_init(&whole, s, scope));
    ck_assert(rows_build_indexes(&whole, &whole_sum));
    static const size_t budgets[] = {1, 2, 3, 5, 64};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
        struct rows r;
        ck_assert(rows_init(&r, s, scope));
        struct op_summary_run run;
        op_summary_start(&run, s, r.begin, r.end);
        int rows_done = 0, sum_done = 0;
        size_t slices = 0;
        while (rows_done == 0 || sum_done == 0) { /* bounded below */
            if (rows_done == 0) {
                ck_assert(!rows_indexed(&r));
                rows_done = rows_index_more(&r, budgets[b]);
            }
            if (sum_done == 0)
                sum_done = op_summary_more(&run, (uint32_t)budgets[b]);
            /* a slice reads >= 1 node, or sorts >= 2 spans in one of 6 steps (2 per node) */
            ck_assert_uint_le(++slices, (size_t)(r.end - r.begin) * 8 + 16);
        }
        ck_assert_int_eq(rows_done, 1);
        ck_assert_int_eq(sum_done, 1);
        ck_assert(rows_indexed(&r));
        assert_same_u32(r.exchanges, r.n_exchanges, whole.exchanges, whole.n_exchanges,
                        "exchanges", where);
        assert_same_u32(r.stage_starts, r.n_stage_starts, whole.stage_starts,
                        whole.n_stage_starts, "stage starts", where);
        assert_same_u32(r.loose, r.n_loose, whole.loose, whole.n_loose, "loose", where);
        ck_assert_uint_eq(r.n_spans, whole.n_spans);
        for (size_t i = 0; i < r.n_spans; i++) {
            ck_assert_uint_eq(r.spans[i].start, whole.spans[i].start);
            ck_assert_uint_eq(r.spans[i].preorder, whole.spans[i].preorder);
            ck_assert(i == 0 || r.spans[i - 1].start <= r.spans[i].start);
        }
        ck_assert_mem_eq(r.depth8, whole.depth8, r.end - r.begin);
        assert_same_summary(&run.sum, &whole_sum, where);
        rows_free(&r);
    }
    rows_free(&whole);
}

START_TEST(indexing_in_slices_gives_the_whole_pass)
{
    const char *samples[] = {"samples/join-formatted.txt", "samples/aqe-initial-final.txt",
                             "samples/join-aqe-final.txt", "samples/join-codegen.txt",
                             "samples/join-extended.txt"};
    size_t checked = 0;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        struct document *doc = load_sample(samples[i]);
        if (!doc)
            continue; /* samples/ not in this checkout */
        for (struct plan *p = doc->first_plan; p; p = p->next)
            for (struct plan_section *s = p->first_section; s; s = s->next) {
                check_sliced_like_whole(s, NULL, samples[i]);
                checked++;
                for (uint32_t k = 0; k < s->n_nodes; k++) /* the Final / Initial tabs */
                    if (plan_section_node(s, k)->flags & NODE_LABEL)
                        check_sliced_like_whole(s, plan_section_node(s, k), samples[i]);
            }
        document_free(doc);
    }
    struct document *own = outline(join_plan);
    check_sliced_like_whole(first_section(own), NULL, "outline");
    document_free(own);
    ck_assert_uint_gt(checked, 0);
}
END_TEST

static int compare_start(const void *a, const void *b)
{
    const struct rows_span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* A formatted plan puts every details block after the tree, so the search's spans come in
 * two interleaved runs; over 4 MB of text every digit of the sort matters.  Search must
 * still find a node by its details at the far end of the text, and a key that needs the
 * index in the middle of the pass finishes it. */
START_TEST(a_big_formatted_plan_sorts_its_spans_and_finishes_on_demand)
{
    unsigned n = getenv("SPARKPLAN_SANITIZED") ? 12000 : 30000; /* ~2 MB / ~5 MB */
    size_t len;
    char *text = tu_union_plan(n, true, "Input: needle#1\n", &len);
    struct document *doc = NULL;
    ck_assert_int_eq(tu_try_parse(text, len, &doc), SP_OK);
    struct plan_section *s = first_section(doc);
    ck_assert_uint_eq(s->n_nodes, n + 1);
    if (n == 30000)
        ck_assert_uint_gt(doc->src.text_len, 1u << 22); /* offsets use the sort's third digit */

    struct rows r;
    ck_assert(rows_init(&r, s, NULL));
    ck_assert_int_eq(rows_index_more(&r, 1000), 0);
    ck_assert(!rows_indexed(&r));
    /* x in the middle of the pass: the rest is indexed then, and the jump lands. */
    ck_assert(rows_next_exchange(&r, 1, NULL));
    ck_assert(rows_indexed(&r));
    tu_assert_slice_is(plan_node_name(r.sel), "Exchange t3");
    ck_assert_uint_eq(r.n_exchanges, n / 3);
    ck_assert(!r.ix.sorted); /* the spans did need sorting */

    /* The sorted spans are every node's text and details block, in text order. */
    struct rows_span *want = malloc((size_t)(2 * n + 2) * sizeof *want);
    size_t k = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        const struct plan_node *m = plan_section_node(s, i);
        want[k++] = (struct rows_span){(uint32_t)(plan_node_text(m).ptr - doc->src.text), 0, i};
        if (plan_node_details_text(m).len)
            want[k++] =
                (struct rows_span){(uint32_t)(plan_node_details_text(m).ptr - doc->src.text), 0, i};
    }
    qsort(want, k, sizeof *want, compare_start);
    ck_assert_uint_eq(r.n_spans, k);
    for (size_t i = 0; i < k; i++) {
        ck_assert_uint_eq(r.spans[i].start, want[i].start);
        ck_assert_uint_eq(r.spans[i].preorder, want[i].preorder);
    }
    free(want);
    /* The same sort in slices between frames. */
    struct rows sliced;
    ck_assert(rows_init(&sliced, s, NULL));
    int done;
    while ((done = rows_index_more(&sliced, 777)) == 0) /* bounded: 777 nodes or spans each */
        ;
    ck_assert_int_eq(done, 1);
    ck_assert_uint_eq(sliced.n_spans, r.n_spans);
    ck_assert_mem_eq(sliced.spans, r.spans, r.n_spans * sizeof *r.spans);
    rows_free(&sliced);
    /* The root's details block is the last thing in the text. */
    ck_assert_int_eq(rows_search(&r, "needle#1"), 1);
    ck_assert(rows_search_step(&r, 1, NULL));
    ck_assert_ptr_eq(r.sel, plan_section_node(s, 0));
    rows_free(&r);
    document_free(doc);
    free(text);
}
END_TEST

/* ---- the keys' fast paths ----------------------------------------------------------- */

static unsigned one_line(const struct plan_node *n, void *ctx)
{
    (void)n, (void)ctx;
    return 1;
}

/* A tree of n nodes, each under a random earlier node of the path (deep and bushy parts). */
static struct document *random_outline(unsigned n, unsigned *seed)
{
    size_t cap = (size_t)n * 160 + 1, len = 0;
    char *spec = malloc(cap);
    unsigned depth = 0;
    for (unsigned i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        unsigned rnd = (*seed >> 8) % 8;
        if (i > 0)
            depth = rnd < 4 ? (depth + 1 < 40 ? depth + 1 : depth) : rnd < 6 ? depth : depth / 2 + 1;
        for (unsigned d = 0; d < depth; d++)
            spec[len++] = ' ', spec[len++] = ' ';
        len += (size_t)snprintf(spec + len, cap - len, "%s n%u\n",
                                rnd == 3 ? "Exchange" : "Project", i);
    }
    spec[len] = '\0';
    struct document *doc = outline(spec);
    free(spec); /* outline copied it */
    return doc;
}

/* The fast paths (j/k in O(1), a jump or a fold walking only what it shows) leave the
 * selection and the screen exactly where the full walks leave them: the same random keys
 * on two row models of one tab, one of them forced onto the full walks (a row-height
 * function makes every fast path step aside). */
START_TEST(fast_paths_agree_with_the_full_walks)
{
    unsigned seed = 7;
    struct document *doc = random_outline(600, &seed);
    struct plan_section *s = first_section(doc);
    static const unsigned heights[] = {1, 2, 5, 38, 700};
    for (size_t hi = 0; hi < sizeof heights / sizeof heights[0]; hi++) {
        struct rows fast, full;
        ck_assert(rows_init(&fast, s, NULL));
        ck_assert(rows_init(&full, s, NULL));
        rows_set_height_fn(&full, one_line, NULL);
        rows_set_height(&fast, heights[hi]);
        rows_set_height(&full, heights[hi]);
        ck_assert_int_gt(rows_search(&fast, "n1"), 0); /* n/N step through n1, n10..n19, ... */
        ck_assert_int_gt(rows_search(&full, "n1"), 0);
        for (unsigned k = 0; k < 4000; k++) {
            seed = seed * 1103515245u + 12345u;
            unsigned key = (seed >> 8) % 21, arg = (seed >> 16) % s->n_nodes;
            struct rows *both[2] = {&fast, &full};
            for (int b = 0; b < 2; b++) {
                struct rows *r = both[b];
                switch (key) {
                case 0: case 1: case 2: case 3: rows_move(r, 1); break;
                case 4: case 5: case 6: rows_move(r, -1); break;
                case 7: rows_move(r, (int)(arg % 7) - 3); break;
                case 8: case 9: rows_toggle(r); break;
                case 10: rows_select_centered(r, plan_section_node(s, arg)); break;
                case 11: rows_select(r, plan_section_node(s, arg)); break;
                case 12: rows_left(r); break;
                case 13: rows_right(r); break;
                case 14: rows_page(r, arg % 2 ? 2 : -1); break;
                case 15: rows_scroll(r, arg % 2 ? 3 : -3); break;
                case 16: if (arg % 8 == 0) rows_fold_all(r); else rows_unfold_all(r); break;
                case 17: rows_show_levels(r, 1 + arg % 9); break;
                case 18: rows_next_exchange(r, arg % 2 ? 1 : -1, NULL); break;
                case 19: rows_search_step(r, arg % 3 ? 1 : -1, NULL); break;
                default: if (arg % 2) rows_go_last(r); else rows_go_first(r); break;
                }
            }
            ck_assert_msg(fast.sel == full.sel && fast.top == full.top,
                          "height %u, key %u (%u) at step %u: sel %u/%u top %u/%u", heights[hi],
                          key, arg, k, plan_node_preorder(fast.sel), plan_node_preorder(full.sel),
                          plan_node_preorder(fast.top), plan_node_preorder(full.top));
            /* and the hidden bound holds */
            if (fast.hidden != ROWS_HIDDEN_UNKNOWN) {
                uint64_t hidden = 0;
                for (uint32_t i = 0; i < s->n_nodes; i++)
                    if (rows_is_folded(&fast, plan_section_node(s, i)))
                        hidden += plan_section_node(s, i)->subtree_size;
                ck_assert_uint_eq(fast.hidden, hidden);
            }
        }
        rows_free(&fast);
        rows_free(&full);
    }
    document_free(doc);
}
END_TEST

/* On a big plan with nothing folded, j/k, Space and a jump touch a handful of nodes, not
 * the rows of the screen: what the view draws afterwards is the only screen-sized walk. */
START_TEST(keys_on_a_full_screen_do_not_walk_it)
{
    unsigned seed = 11;
    struct document *doc = random_outline(5000, &seed);
    struct plan_section *s = first_section(doc);
    struct rows r;
    ck_assert(rows_init(&r, s, NULL));
    rows_set_height(&r, 38);
    struct plan_node *mid = plan_section_node(s, 2500);
    while (!plan_node_first_child(mid))
        mid = plan_section_node(s, plan_node_preorder(mid) + 1);
    rows_select_centered(&r, mid);
    uint64_t before = r.steps;
    for (int i = 0; i < 100; i++)
        rows_move(&r, i % 2 ? -1 : 1);
    ck_assert_uint_le(r.steps - before, 100 * 2);
    before = r.steps;
    for (int i = 0; i < 100; i++)
        rows_toggle(&r);
    ck_assert_uint_le(r.steps - before, 100 * 2);
    before = r.steps;
    for (int i = 0; i < 100; i++)
        rows_select_centered(&r, plan_section_node(s, i % 2 ? 1000 : 4000));
    ck_assert_uint_le(r.steps - before, 100 * 2);
    rows_free(&r);
    document_free(doc);
}
END_TEST

/* Walking up is the walk down reversed, whatever is folded and whatever the tab's scope
   (rows_prev and rows_last find the row above from the pre-order: nodes keep no previous
   sibling or last child). */
static void assert_up_is_down_reversed(struct rows *r)
{
    struct plan_node *down[32], *up[32];
    unsigned nd = 0, nu = 0;
    for (struct plan_node *n = rows_first(r); n; n = rows_next(r, n)) {
        ck_assert_uint_lt(nd, 32);
        down[nd++] = n;
    }
    for (struct plan_node *n = rows_last(r); n; n = rows_prev(r, n)) {
        ck_assert_uint_lt(nu, 32);
        up[nu++] = n;
    }
    ck_assert_uint_eq(nd, nu);
    for (unsigned i = 0; i < nd; i++)
        ck_assert_msg(down[i] == up[nd - 1 - i], "row %u: %.*s going down, %.*s going up", i,
                      (int)plan_node_text(down[i]).len, plan_node_text(down[i]).ptr,
                      (int)plan_node_text(up[nd - 1 - i]).len, plan_node_text(up[nd - 1 - i]).ptr);
}

START_TEST(moving_up_is_moving_down_reversed_under_any_fold)
{
    struct document *doc = outline("A\n"
                                   "  B\n"
                                   "    C\n"
                                   "      D\n"
                                   "    C2\n"
                                   "  E\n"
                                   "    F\n"
                                   "      F2\n"
                                   "G\n"
                                   "  H\n"
                                   "    I\n");
    static const char *const names[] = {"A", "B", "C", "E", "F", "G", "H"};
    struct plan_node *scopes[3] = {NULL, by_text(doc, "B"), by_text(doc, "G")};
    for (int sc = 0; sc < 3; sc++) {
        /* Every set of folded nodes among the ones with children: 2^7 combinations. */
        for (unsigned mask = 0; mask < 128; mask++) {
            struct rows r;
            ck_assert(rows_init(&r, first_section(doc), scopes[sc]));
            for (unsigned k = 0; k < 7; k++) {
                struct plan_node *n = by_text(doc, names[k]);
                if ((mask >> k) & 1 && rows_contains(&r, n) && n != scopes[sc])
                    rows_set_folded(&r, n, true);
            }
            assert_up_is_down_reversed(&r);
            rows_free(&r);
        }
    }
    /* The row above G with E folded is E; with E open, the last of F's subtree. */
    struct rows r;
    ck_assert(rows_init(&r, first_section(doc), NULL));
    ck_assert_ptr_eq(rows_prev(&r, by_text(doc, "G")), by_text(doc, "F2"));
    rows_set_folded(&r, by_text(doc, "E"), true);
    ck_assert_ptr_eq(rows_prev(&r, by_text(doc, "G")), by_text(doc, "E"));
    ck_assert_ptr_eq(rows_last(&r), by_text(doc, "I"));
    rows_set_folded(&r, by_text(doc, "G"), true);
    ck_assert_ptr_eq(rows_last(&r), by_text(doc, "G"));
    rows_free(&r);
    document_free(doc);
}
END_TEST

Suite *rows_suite(void)
{
    Suite *s = suite_create("rows");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, unfolded_tree_shows_every_node_with_guides);
    tcase_add_test(tc, moving_up_is_moving_down_reversed_under_any_fold);
    tcase_add_test(tc, utf8_guides_use_box_drawing);
    tcase_add_test(tc, fold_hides_subtree_and_shows_hidden_count);
    tcase_add_test(tc, left_folds_then_goes_to_parent_right_unfolds_then_enters);
    tcase_add_test(tc, fold_all_levels_and_unfold_all);
    tcase_add_test(tc, scrolling_keeps_selection_on_screen);
    tcase_add_test(tc, tall_rows_scroll_by_their_height);
    tcase_add_test(tc, goto_node_unfolds_what_hides_it);
    tcase_add_test(tc, goto_node_outside_the_tab_is_ignored);
    tcase_add_test(tc, exchange_and_stage_jumps_wrap_around);
    tcase_add_test(tc, search_counts_matches_in_text_and_details_and_unfolds);
    tcase_add_test(tc, a_subtree_tab_shows_only_that_subtree);
    tcase_add_test(tc, keys_cost_does_not_grow_with_the_plan);
    tcase_add_test(tc, deep_chain_rows_are_compressed);
    tcase_add_test(tc, a_screen_of_deep_rows_keeps_its_guides_in_line);
    tcase_add_test(tc, the_window_of_hidden_levels);
    tcase_add_test(tc, summary_counts_exchanges_stages_and_joins);
    tcase_add_test(tc, operator_classes_cover_plugins_and_reuse);
    tcase_add_test(tc, search_finds_what_a_node_by_node_search_finds);
    tcase_add_test(tc, a_trace_ends_a_search_in_progress);
    tcase_add_test(tc, indexing_in_slices_gives_the_whole_pass);
    tcase_add_test(tc, a_big_formatted_plan_sorts_its_spans_and_finishes_on_demand);
    tcase_add_test(tc, fast_paths_agree_with_the_full_walks);
    tcase_add_test(tc, keys_on_a_full_screen_do_not_walk_it);
    suite_add_tcase(s, tc);
    return s;
}
