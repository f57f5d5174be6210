/* The workspace without a terminal: documents and their tabs (sections, AQE sub-plans),
 * jumps and the way back, pastes, searches between frames, each document's analysis. */
#include "testutil.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/workspace.h"

/* A sample loaded as the explorer loads its files; the workspace borrows it. */
static struct document *load_sample(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "samples/%s", name);
    size_t len = 0;
    char *bytes = tu_read_file(path, &len);
    ck_assert_msg(bytes != NULL, "cannot read %s", path);
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_msg(load_bytes(name, bytes, len, &doc, &err) == SP_OK, "%s: %s", name, err.message);
    return doc;
}

static void assert_labels(const struct doc_view *dv, const char *const *want, size_t n)
{
    ck_assert_uint_eq(dv->n_tabs, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(strcmp(dv->tabs[i].label, want[i]) == 0, "tab %zu is \"%s\", not \"%s\"",
                      i, dv->tabs[i].label, want[i]);
}

/* The first node of tab whose text starts with word. */
static struct plan_node *node_in(struct tab *tab, const char *word)
{
    struct plan_section *s = tab->section;
    uint32_t from = tab->scope ? plan_node_preorder(tab->scope) : 0;
    uint32_t to = tab->scope ? from + tab->scope->subtree_size + 1 : s->n_nodes;
    for (uint32_t i = from; i < to && i < s->n_nodes; i++) {
        struct slice t = slice_trim(plan_node_text(plan_section_node(s, i)));
        if (t.len >= strlen(word) && memcmp(t.ptr, word, strlen(word)) == 0)
            return plan_section_node(s, i);
    }
    ck_abort_msg("no %s in tab %s", word, tab->label);
    return NULL;
}

START_TEST(an_adaptive_plan_gets_a_tab_per_section_and_per_sub_plan)
{
    struct document *doc = load_sample("aqe-initial-final.txt");
    struct workspace ws;
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, doc, true));
    static const char *const want[] = {"1:Physical", "2:Physical", "2:Final", "2:Initial"};
    assert_labels(ws_doc_c(&ws), want, 4);
    const struct doc_view *dv = ws_doc_c(&ws);
    ck_assert_int_eq(dv->tabs[0].kind, SUBJECT_SECTION);
    ck_assert_int_eq(dv->tabs[2].kind, SUBJECT_SUBPLAN);
    ck_assert_ptr_nonnull(dv->tabs[2].scope);
    ck_assert_str_eq(ws_tab(&ws)->label, "1:Physical"); /* opens on the (first) physical plan */
    ck_assert(ws_tab(&ws)->ready);
    ck_assert_ptr_nonnull(ws_tab(&ws)->rows.sel);
    ws_free(&ws);
}
END_TEST

/* Each section kind names its tab: codegen subtrees "Codegen i/n", a subquery by its entry's
 * first word, every tab of a document of several plans led by its plan's number. */
START_TEST(tabs_are_named_by_section_kind_and_plan_number)
{
    struct workspace ws;
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, load_sample("join-codegen.txt"), true));
    static const char *const codegen[] = {"Codegen 1/2", "Codegen 2/2"};
    assert_labels(ws_doc_c(&ws), codegen, 2);
    ws_free(&ws);

    static const char two_plans[] =
        "== Physical Plan ==\n"
        "* Filter (2)\n"
        "+- * ColumnarToRow (1)\n"
        "\n"
        "(1) ColumnarToRow [codegen id : 1]\n"
        "Input [1]: [a#1]\n"
        "\n"
        "(2) Filter [codegen id : 1]\n"
        "Input [1]: [a#1]\n"
        "Condition : (a#1 > Subquery scalar-subquery#3, [id=#10])\n"
        "\n"
        "===== Subqueries =====\n"
        "\n"
        "Subquery:1 Hosting operator id = 2 Hosting Expression = Subquery scalar-subquery#3, [id=#10]\n"
        "* HashAggregate (4)\n"
        "+- * ColumnarToRow (3)\n"
        "\n"
        "(3) ColumnarToRow [codegen id : 1]\n"
        "Input [1]: [b#2]\n"
        "\n"
        "(4) HashAggregate [codegen id : 1]\n"
        "Input [1]: [b#2]\n"
        "\n"
        "\n"
        "== Parsed Logical Plan ==\n"
        "'Project ['a]\n"
        "+- 'UnresolvedRelation [t], [], false\n"
        "\n"
        "== Physical Plan ==\n"
        "*(1) Project [a#1]\n"
        "+- *(1) ColumnarToRow\n";
    char *bytes = malloc(sizeof two_plans);
    ck_assert_ptr_nonnull(bytes);
    memcpy(bytes, two_plans, sizeof two_plans);
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_msg(load_bytes("two", bytes, sizeof two_plans - 1, &doc, &err) == SP_OK, "%s",
                  err.message);
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, doc, true));
    static const char *const named[] = {"1:Physical", "1:Subquery:1", "2:Parsed", "2:Physical"};
    assert_labels(ws_doc_c(&ws), named, 4);
    ws_free(&ws);
}
END_TEST

START_TEST(a_jump_switches_to_the_sub_plan_holding_the_node_and_back_returns)
{
    struct workspace ws;
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, load_sample("aqe-initial-final.txt"), true));
    struct doc_view *dv = ws_doc(&ws);
    struct plan_node *start = ws_tab(&ws)->rows.sel;
    ws_tab_ready(&ws, &dv->tabs[3]);
    struct plan_node *smj = node_in(&dv->tabs[3], "SortMergeJoin");
    ck_assert(ws_jump_to(&ws, smj, true));
    ck_assert_str_eq(ws_tab(&ws)->label, "2:Initial"); /* the sub-plan, not 2:Physical */
    ck_assert_ptr_eq(ws_tab(&ws)->rows.sel, smj);
    ck_assert_uint_eq(ws.n_hist, 1);
    ws_go_back(&ws);
    ck_assert_str_eq(ws_tab(&ws)->label, "1:Physical");
    ck_assert_ptr_eq(ws_tab(&ws)->rows.sel, start);
    ws_go_back(&ws);
    ck_assert(ws.msg_error);
    ck_assert_str_eq(ws.msg, "no earlier position");
    ws_free(&ws);
}
END_TEST

static unsigned shown_calls;
static void count_shown(void *ctx, struct tab *tab)
{
    (void)ctx;
    ck_assert_ptr_nonnull(tab);
    shown_calls++;
}

START_TEST(goto_id_finds_the_node_and_calls_the_show_hook_before_selecting)
{
    struct workspace ws;
    ws_init(&ws);
    ws.show = count_shown;
    shown_calls = 0;
    ck_assert(ws_add_document(&ws, load_sample("join-formatted.txt"), true));
    ck_assert(ws_goto_id(&ws, 8));
    ck_assert_uint_eq(shown_calls, 1);
    ck_assert_int_eq(ws_tab(&ws)->rows.sel->id, 8);
    ck_assert_str_eq(ws.msg, "went to (8); Backspace goes back");
    ck_assert(!ws_goto_id(&ws, 999));
    ck_assert_str_eq(ws.msg, "no node (999) in this plan");
    ws_free(&ws);
}
END_TEST

START_TEST(a_paste_becomes_a_document_and_back_returns_to_the_first)
{
    struct workspace ws;
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, load_sample("join-formatted.txt"), true));
    char *junk = strdup("hello\n");
    ck_assert(!ws_open_paste(&ws, junk, strlen(junk), 0, 64u << 20));
    ck_assert(ws.msg_error);
    ck_assert_uint_eq(ws.n_docs, 1);
    size_t len = 0;
    char *plan = tu_read_file("samples/aqe-initial-final.txt", &len);
    ck_assert(ws_open_paste(&ws, plan, len, 0, 64u << 20));
    ck_assert_uint_eq(ws.n_docs, 2);
    ck_assert_uint_eq(ws.cur_doc, 1);
    ck_assert_str_eq(ws_doc(&ws)->doc->name, "paste 1");
    ws_go_back(&ws);
    ck_assert_uint_eq(ws.cur_doc, 0);
    ws_free(&ws);
}
END_TEST

/* An empty paste opens nothing and says so; a cut one is marked in its name (the document
 * list shows it) and the message says how much was dropped and how much was kept. */
START_TEST(an_empty_paste_opens_nothing_and_a_cut_one_is_marked)
{
    struct workspace ws;
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, load_sample("join-formatted.txt"), true));
    ck_assert(!ws_open_paste(&ws, malloc(1), 0, 0, 64u << 20));
    ck_assert_str_eq(ws.msg, "empty paste: nothing to open");
    ck_assert_uint_eq(ws.n_docs, 1);
    size_t len = 0;
    char *plan = tu_read_file("samples/aqe-initial-final.txt", &len);
    ck_assert(ws_open_paste(&ws, plan, len, 12345, 64u << 20));
    ck_assert_uint_eq(ws.n_docs, 2);
    ck_assert_str_eq(ws_doc(&ws)->doc->name, "paste 1 [cut: 12345 bytes dropped]");
    ck_assert(ws.msg_error);
    ck_assert_msg(strncmp(ws.msg, "paste cut at 64 MiB: 12345 bytes dropped (", 42) == 0 &&
                      strstr(ws.msg, " nodes kept)"),
                  "%s", ws.msg);
    char *junk = strdup("hello\n");
    ck_assert(!ws_open_paste(&ws, junk, strlen(junk), 7, 2000));
    ck_assert_str_eq(ws.msg, "paste 2 [cut: 7 bytes dropped]: no Spark plan found; "
                             "paste cut at 2000 bytes: 7 bytes dropped");
    ws_free(&ws);
}
END_TEST

START_TEST(a_search_runs_in_slices_and_says_how_many_it_found)
{
    struct workspace ws;
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, load_sample("join-formatted.txt"), true));
    ck_assert(ws_search_start(&ws, "Filter"));
    ck_assert(ws_search_busy(&ws));
    for (int i = 0; i < 1000 && ws_search_busy(&ws); i++)
        ws_search_slice(&ws);
    ck_assert(!ws_search_busy(&ws));
    ck_assert_msg(strstr(ws.msg, "match") != NULL, "message: %s", ws.msg);
    ck_assert_uint_gt(ws_tab(&ws)->rows.n_matches, 0);
    ws_free(&ws);
}
END_TEST

START_TEST(each_document_keeps_its_own_analysis)
{
    struct workspace ws;
    ws_init(&ws);
    struct document *a = load_sample("join-formatted.txt");
    struct document *b = load_sample("aqe-initial-final.txt");
    ck_assert(ws_add_document(&ws, a, true));
    ck_assert(ws_add_document(&ws, b, true));
    struct jobs_news news = {0};
    jobs_ask(&ws.jobs, a, a, &news);
    ws_take_news(&ws, &news);
    for (int i = 0; i < 2000 && !jobs_known(&ws.jobs, a); i++) { /* 20 s at most */
        int fd = jobs_wake_fd(&ws.jobs);
        struct pollfd p = {fd, POLLIN, 0};
        if (fd >= 0)
            poll(&p, 1, 10);
        memset(&news, 0, sizeof news);
        jobs_collect(&ws.jobs, a, &news);
        ws_take_news(&ws, &news);
    }
    ck_assert_ptr_nonnull(jobs_known(&ws.jobs, a));
    ck_assert_ptr_null(jobs_known(&ws.jobs, b)); /* never asked for */
    ck_assert(!jobs_analysing(&ws.jobs, b));
    ws_free(&ws);
}
END_TEST

START_TEST(a_subject_added_by_hand_keeps_its_kind_and_a_clean_label)
{
    struct workspace ws;
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, load_sample("join-formatted.txt"), true));
    struct doc_view *dv = ws_doc(&ws);
    size_t before = dv->n_tabs;
    struct tab *t = ws_add_subject(dv, SUBJECT_PLAN_VERSION, dv->tabs[0].section, NULL,
                                   "v2\x1b[31m");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(dv->n_tabs, before + 1);
    ck_assert_int_eq(t->kind, SUBJECT_PLAN_VERSION);
    ck_assert_str_eq(t->label, "v2?[31m");
    ws_free(&ws);
}
END_TEST

/* A plan of two sections, each a Union over n scans: tabs too big to index at once. */
static struct document *wide_union(unsigned n)
{
    size_t cap = 64 + (size_t)n * 64, len = 0;
    char *b = malloc(cap);
    ck_assert_ptr_nonnull(b);
    static const char *const heads[] = {"== Optimized Logical Plan ==\nUnion\n",
                                        "\n== Physical Plan ==\nUnion\n"};
    static const char *const leaves[] = {"LocalRelation [a#1]", "LocalTableScan [a#1]"};
    for (int s = 0; s < 2; s++) {
        len += (size_t)sprintf(b + len, "%s", heads[s]);
        for (unsigned i = 0; i < n; i++)
            len += (size_t)sprintf(b + len, "%s %s\n", i + 1 < n ? ":-" : "+-", leaves[s]);
    }
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_msg(load_bytes("wide", b, len, &doc, &err) == SP_OK, "%s", err.message);
    return doc;
}

START_TEST(a_big_tab_is_indexed_between_frames_and_then_left_alone)
{
    struct workspace ws;
    ws_init(&ws);
    ck_assert(ws_add_document(&ws, wide_union(6000), true));
    struct doc_view *dv = ws_doc(&ws);
    ck_assert_uint_eq(dv->n_tabs, 2);
    ck_assert_ptr_null(ws_background_tab(&ws)); /* nothing shown yet: nothing to index */
    struct tab *shown = ws_tab(&ws);
    ck_assert_ptr_eq(ws_background_tab(&ws), shown);
    ck_assert(!shown->indexed);
    for (int i = 0; i < 10000 && ws_background_tab(&ws); i++)
        ws_index_slice(&ws);
    ck_assert(shown->indexed);
    ck_assert_ptr_null(ws_background_tab(&ws));
    /* The other tab, shown later, is indexed too. */
    dv->cur = dv->cur == 0 ? 1 : 0;
    struct tab *other = ws_tab(&ws);
    ck_assert_ptr_ne(other, shown);
    ck_assert_ptr_eq(ws_background_tab(&ws), other);
    for (int i = 0; i < 10000 && ws_background_tab(&ws); i++)
        ws_index_slice(&ws);
    ck_assert(other->indexed);
    ck_assert_ptr_null(ws_background_tab(&ws));
    ck_assert_msg(strstr(ws_tab_summary_text(other), "6001 nodes"), "summary: %s",
                  ws_tab_summary_text(other));
    ws_free(&ws);
}
END_TEST

Suite *workspace_suite(void)
{
    Suite *s = suite_create("workspace");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, an_adaptive_plan_gets_a_tab_per_section_and_per_sub_plan);
    tcase_add_test(tc, tabs_are_named_by_section_kind_and_plan_number);
    tcase_add_test(tc, a_jump_switches_to_the_sub_plan_holding_the_node_and_back_returns);
    tcase_add_test(tc, goto_id_finds_the_node_and_calls_the_show_hook_before_selecting);
    tcase_add_test(tc, a_paste_becomes_a_document_and_back_returns_to_the_first);
    tcase_add_test(tc, an_empty_paste_opens_nothing_and_a_cut_one_is_marked);
    tcase_add_test(tc, a_search_runs_in_slices_and_says_how_many_it_found);
    tcase_add_test(tc, each_document_keeps_its_own_analysis);
    tcase_add_test(tc, a_subject_added_by_hand_keeps_its_kind_and_a_clean_label);
    tcase_add_test(tc, a_big_tab_is_indexed_between_frames_and_then_left_alone);
    suite_add_tcase(s, tc);
    return s;
}
