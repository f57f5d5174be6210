/* emit: --print outline and --json, on documents built by hand (independent of the parser). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonlint.h"
#include "sparkplan/emit.h"
#include "sparkplan/plan.h"
#include "sparkplan/sample.h"
#include "testutil.h"

/* An empty document with one plan and one section titled title. */
static struct plan_section *new_section(struct document **doc, const char *title)
{
    char *bytes = malloc(1);
    ck_assert_ptr_nonnull(bytes);
    bytes[0] = '\0';
    *doc = document_new("hand-made", bytes, 0);
    ck_assert_ptr_nonnull(*doc);
    struct plan *p = document_add_plan(*doc, 1);
    ck_assert_ptr_nonnull(p);
    struct plan_section *s = plan_add_section(p, SECTION_PHYSICAL, slice_cstr(title), 1);
    ck_assert_ptr_nonnull(s);
    return s;
}

static struct plan_node *new_node(struct plan_section *s, struct plan_node *parent,
                                  const char *name, const char *text, uint32_t line)
{
    struct plan_node *n = plan_node_new(s);
    ck_assert_ptr_nonnull(n);
    plan_node_set_text(n, slice_cstr(text));
    plan_node_set_name(n, slice_cstr(name));
    n->line = line;
    if (parent)
        plan_node_append_child(parent, n);
    else
        plan_section_append_root(s, n);
    return n;
}

/* Runs emit_print or emit_json into a malloc'd string. */
static char *emit_to_string(const struct document *doc, bool json, size_t *len)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    struct diag err = {0};
    enum sp_status s = json ? emit_json(f, doc, &err) : emit_print(f, doc, &err);
    ck_assert_msg(s == SP_OK, "emit failed: %s", err.message);
    return tu_stream_text(f, len);
}

static void assert_json_valid(const char *json, size_t len)
{
    size_t at = 0;
    const char *msg = jsonlint_check(json, len, &at);
    ck_assert_msg(msg == NULL, "invalid JSON at byte %zu: %s", at, msg ? msg : "");
}

START_TEST(print_shows_stage_id_and_depth)
{
    struct document *doc;
    struct plan_section *s = new_section(&doc, "== Physical Plan ==");
    struct plan_node *join = new_node(s, NULL, "SortMergeJoin", "SortMergeJoin Inner (7)", 2);
    join->stage = 5;
    join->id = 7;
    struct plan_node *sort = new_node(s, join, "Sort", "Sort [a#1 ASC NULLS FIRST], false, 0", 3);
    sort->stage = 2;
    sort->id = 4; /* not in the text: printed after it */
    new_node(s, sort, "Exchange", "Exchange hashpartitioning(a#1, 200)", 4);
    ck_assert(document_finish(doc));
    char *out = emit_to_string(doc, false, NULL);
    ck_assert_str_eq(out, "== Physical Plan ==\n"
                          "*(5) SortMergeJoin Inner (7)\n"
                          "  *(2) Sort [a#1 ASC NULLS FIRST], false, 0 (4)\n"
                          "    Exchange hashpartitioning(a#1, 200)\n");
    free(out);
    document_free(doc);
}
END_TEST

/* "(id)" counts only as the exact number in parentheses, at the end or elsewhere. */
START_TEST(print_appends_id_unless_text_shows_exactly_it)
{
    struct document *doc;
    struct plan_section *s = new_section(&doc, "== Physical Plan ==");
    struct plan_node *a = new_node(s, NULL, "Scan", "Scan t (70)", 1);
    a->id = 7; /* "(70)" is not "(7)" */
    struct plan_node *b = new_node(s, a, "Scan", "Scan t (17)", 2);
    b->id = 7; /* nor is "(17)" */
    struct plan_node *c = new_node(s, b, "Scan", "Scan (12) x (0)", 3);
    c->id = 12; /* shown in the middle */
    struct plan_node *d = new_node(s, c, "Scan", "Scan (", 4);
    d->id = 0;
    struct plan_node *e = new_node(s, d, "Scan", "Scan (2147483647)", 5);
    e->id = 2147483647;
    ck_assert(document_finish(doc));
    char *out = emit_to_string(doc, false, NULL);
    ck_assert_str_eq(out, "== Physical Plan ==\n"
                          "Scan t (70) (7)\n"
                          "  Scan t (17) (7)\n"
                          "    Scan (12) x (0)\n"
                          "      Scan ( (0)\n"
                          "        Scan (2147483647)\n");
    free(out);
    document_free(doc);
}
END_TEST

START_TEST(print_sanitizes_escape_sequences)
{
    struct document *doc;
    struct plan_section *s = new_section(&doc, "== Physical \x1b]0;pwned\a ==");
    new_node(s, NULL, "Project", "Project [\x1b[31mred#1]\nnext line\xff", 1);
    ck_assert(document_finish(doc));
    char *out = emit_to_string(doc, false, NULL);
    ck_assert_str_eq(out, "== Physical ^[]0;pwned^G ==\nProject [^[[31mred#1]^Jnext line\\xFF\n");
    ck_assert_ptr_null(strchr(out, '\x1b'));
    free(out);
    document_free(doc);
}
END_TEST

START_TEST(print_marks_labels_inner_plans_and_untitled_sections)
{
    struct document *doc;
    struct plan_section *s = new_section(&doc, "");
    struct plan_node *aqe = new_node(s, NULL, "AdaptiveSparkPlan", "AdaptiveSparkPlan isFinalPlan=true", 1);
    struct plan_node *label = new_node(s, aqe, "== Final Plan ==", "== Final Plan ==", 2);
    label->flags |= NODE_LABEL;
    new_node(s, label, "ShuffleQueryStage", "ShuffleQueryStage 0", 3)->stage = -1;
    new_node(s, aqe, "Subquery", "Subquery subquery#5, [id=#7]", 4)->flags |= NODE_INNER;
    ck_assert(document_finish(doc));
    char *out = emit_to_string(doc, false, NULL);
    ck_assert_str_eq(out, "== physical plan (no header) ==\n"
                          "AdaptiveSparkPlan isFinalPlan=true\n"
                          "  [label] == Final Plan ==\n"
                          "    ShuffleQueryStage 0\n"
                          "  [inner] Subquery subquery#5, [id=#7]\n");
    free(out);
    out = emit_to_string(doc, true, NULL);
    ck_assert_ptr_nonnull(strstr(out, "\"text\":\"== Final Plan ==\",\"line\":2,\"stage\":null,"
                                      "\"id\":null,\"label\":true,"));
    /* only the header carries "label" */
    ck_assert_ptr_null(strstr(strstr(out, "\"label\":true") + 1, "\"label\""));
    ck_assert_ptr_nonnull(strstr(out, "\"id\":null,\"inner\":true,"));
    free(out);
    document_free(doc);
}
END_TEST

START_TEST(json_has_the_contract_shape)
{
    struct document *doc;
    struct plan_section *s = new_section(&doc, "== Physical Plan ==");
    struct plan_node *scan = new_node(
        s, NULL, "Scan parquet spark_catalog.default.orders",
        "Scan parquet spark_catalog.default.orders (1), Statistics(sizeInBytes=1234.0 B, rowCount=5)",
        3);
    scan->id = 1;
    plan_node_set_details(scan, slice_cstr("(1) Scan parquet spark_catalog.default.orders\n"
                                           "Output [2]: [a#1, b#2]\n"
                                           "Batched: true"),
                          6);
    scan->n_details = 2;
    ck_assert(document_finish(doc));
    document_warn(doc, 12, "field list truncated: raise spark.sql.debug.maxToStringFields");
    document_warn(doc, 0, "no line");
    size_t len;
    char *out = emit_to_string(doc, true, &len);
    assert_json_valid(out, len);
    ck_assert_str_eq(out,
        "{\"file\":\"hand-made\",\"plans\":[{\"line\":1,\"adaptive\":false,\"isFinalPlan\":null,"
        "\"sections\":[{\"kind\":\"physical\",\"title\":\"== Physical Plan ==\",\"line\":1,"
        "\"roots\":[{\"name\":\"Scan parquet spark_catalog.default.orders\","
        "\"text\":\"Scan parquet spark_catalog.default.orders (1), Statistics(sizeInBytes=1234.0 B, "
        "rowCount=5)\",\"line\":3,\"stage\":null,"
        "\"id\":1,\"details\":[[\"Output\",\"[2]: [a#1, b#2]\"],[\"Batched\",\"true\"]],"
        "\"stats\":{\"sizeInBytes\":1234.0,\"rowCount\":5},\"children\":[]}]}]}],"
        "\"warnings\":[{\"line\":12,\"message\":\"field list truncated: raise "
        "spark.sql.debug.maxToStringFields\"},{\"line\":null,\"message\":\"no line\"}]}\n");
    free(out);
    document_free(doc);
}
END_TEST

START_TEST(json_escapes_controls_and_invalid_utf8)
{
    struct document *doc;
    struct plan_section *s = new_section(&doc, "t");
    /* ESC, quote, backslash, SOH, newline, a stray 0xFF, a valid é, a C1 CSI (U+009B),
     * a truncated 3-byte sequence at the end. */
    new_node(s, NULL, "n", "\x1b[1m \" \\ \x01\n\xff \xc3\xa9 \xc2\x9b \xe2\x82", 1);
    ck_assert(document_finish(doc));
    size_t len;
    char *out = emit_to_string(doc, true, &len);
    assert_json_valid(out, len);
    ck_assert_ptr_nonnull(strstr(out, "\"text\":\"\\u001b[1m \\\" \\\\ \\u0001\\n\\ufffd "
                                      "\xc3\xa9 \\u009b \\ufffd\\ufffd\""));
    free(out);
    document_free(doc);
}
END_TEST

START_TEST(json_numbers_keep_their_value)
{
    struct document *doc;
    struct plan_section *s = new_section(&doc, "t");
    /* 4.7 GiB: not integral */
    new_node(s, NULL, "a", "a, Statistics(sizeInBytes=4.7 GiB)", 1);
    struct plan_node *b = new_node(s, NULL, "b", "b, Statistics(rowCount=2.84E+7)", 2);
    b->stage = 0; /* Spark 2's bare '*' */
    ck_assert(document_finish(doc));
    size_t len;
    char *out = emit_to_string(doc, true, &len);
    assert_json_valid(out, len);
    ck_assert_ptr_nonnull(strstr(out, "\"stats\":{\"sizeInBytes\":5046586572.8}"));
    ck_assert_ptr_nonnull(strstr(out, "\"stage\":0,"));
    ck_assert_ptr_nonnull(strstr(out, "\"stats\":{\"rowCount\":28400000}"));
    free(out);
    document_free(doc);
}
END_TEST

/* The writers scan eight bytes at a time: put each special byte at every offset of a long
 * run and check that it is still caught. */
START_TEST(special_bytes_are_caught_at_every_offset)
{
    static const char specials[] = {'\x1b', '"', '\\', '\x7f', '\x01', '\xff'};
    static const char *const json_forms[] = {"\\u001b", "\\\"", "\\\\", "\\u007f", "\\u0001", "\\ufffd"};
    static const char *const print_forms[] = {"^[", "\"", "\\", "^?", "^A", "\\xFF"};
    /* Offsets past 128: plain bytes are passed 64 a round, then 16, then one by one. */
    for (size_t k = 0; k < sizeof specials; k++) {
        for (size_t off = 0; off < 140; off++) {
            char text[192], want[256];
            memset(text, 'a', off);
            text[off] = specials[k];
            memset(text + off + 1, 'b', 20);
            text[off + 21] = '\0';
            struct document *doc;
            struct plan_section *s = new_section(&doc, "t");
            new_node(s, NULL, "n", text, 1);
            ck_assert(document_finish(doc));
            char *out = emit_to_string(doc, true, NULL);
            snprintf(want, sizeof want, "\"text\":\"%.*s%sbbbbbbbbbbbbbbbbbbbb\"", (int)off, text,
                     json_forms[k]);
            ck_assert_msg(strstr(out, want), "json, byte %zu at %zu: %s", k, off, out);
            free(out);
            out = emit_to_string(doc, false, NULL);
            snprintf(want, sizeof want, "\n%.*s%sbbbbbbbbbbbbbbbbbbbb\n", (int)off, text, print_forms[k]);
            ck_assert_msg(strstr(out, want), "print, byte %zu at %zu: %s", k, off, out);
            free(out);
            document_free(doc);
        }
    }
}
END_TEST

/* A chain far deeper than any stack: JSON must nest it fully and stay valid; the outline
 * must stay linear in size. */
START_TEST(deep_chain_emits_without_recursion)
{
    const uint32_t depth = getenv("SPARKPLAN_SANITIZED") ? 30000 : 100000;
    struct document *doc;
    struct plan_section *s = new_section(&doc, "== Physical Plan ==");
    struct plan_node *parent = NULL;
    for (uint32_t i = 0; i < depth; i++)
        parent = new_node(s, parent, "Project", "Project [a#1]", i + 1);
    ck_assert(document_finish(doc));
    size_t len;
    char *out = emit_to_string(doc, true, &len);
    assert_json_valid(out, len);
    /* Counted with memcmp, not a strstr loop: ASan's strstr measures the whole rest of the
       string on every call, which made this test quadratic (40 s of the sanitizer pass). */
    static const char key[] = "\"children\":[";
    size_t children = 0;
    for (size_t i = 0; i + sizeof key - 1 <= len; i++)
        if (out[i] == '"' && memcmp(out + i, key, sizeof key - 1) == 0)
            children++;
    ck_assert_uint_eq(children, depth);
    /* the deepest node closes every level: depth "]}" pairs, then the section/plan/doc */
    ck_assert(len > 2 * depth);
    free(out);

    out = emit_to_string(doc, false, &len);
    ck_assert_uint_lt(len, (size_t)depth * (2 * EMIT_PRINT_MAX_INDENT + 40));
    char want[64];
    snprintf(want, sizeof want, "[depth %u] Project [a#1]\n", depth - 1);
    ck_assert_ptr_nonnull(strstr(out, want));
    free(out);
    document_free(doc);
}
END_TEST

/* ---- --print on two threads: the same bytes as on one ------------------------------------ */

static char *print_text(void *doc, size_t *len)
{
    return emit_to_string(doc, false, len);
}

/* emit_print of doc on one thread, then in chunks of chunk operators on two; fails the test
 * at the first byte where they differ. */
static void expect_two_thread_print_same(const struct document *doc, size_t chunk,
                                         const char *what)
{
    char label[512];
    snprintf(label, sizeof label, "--print of %s", what);
    tu_expect_two_threads_same(emit_set_print_parallel, print_text, (void *)doc, chunk, label);
}

START_TEST(two_thread_print_is_the_one_thread_print_on_every_sample)
{
    for (size_t i = 0; i < n_sample_files; i++) {
        struct document *doc = tu_parse(sample_files[i].data);
        /* chunks of 1, 2 and 3 operators: every chunk boundary lands somewhere new */
        for (size_t chunk = 1; chunk <= 3; chunk++)
            expect_two_thread_print_same(doc, chunk, sample_files[i].name);
        document_free(doc);
    }
}
END_TEST

/* Several sections of thousands of operators, long node texts among short ones (a text of
 * 1 MB and more is a chunk of its own, written straight to the stream), special bytes, and
 * deep nodes: the chunked two-thread path against the one-thread loop. */
START_TEST(two_thread_print_keeps_order_across_chunks_and_long_texts)
{
    struct document *doc;
    struct plan_section *s = new_section(&doc, "== Physical Plan ==");
    size_t long_len = (1u << 20) + 17;
    char *long_text = malloc(long_len + 1);
    ck_assert_ptr_nonnull(long_text);
    for (size_t i = 0; i < long_len; i++)
        long_text[i] = (char)('a' + i % 26);
    long_text[long_len / 2] = '\x1b'; /* sanitized in the middle of a long run */
    long_text[long_len] = '\0';
    struct plan_node *parent = NULL;
    char text[64];
    for (uint32_t i = 0; i < 20000; i++) {
        const char *t = text;
        if (i == 7 || i == 8 || i == 12345 || i == 19999)
            t = long_text;
        else
            snprintf(text, sizeof text, "Project [c%u#%u]%s", i, i, i % 97 ? "" : " \x07" "bell");
        struct plan_node *n = new_node(s, i % 5 ? parent : NULL, "Project", t, i + 1);
        n->stage = i % 3 ? (int32_t)(i % 1000) : -1;
        n->id = i % 4 ? (int32_t)i : -1;
        parent = i % 300 ? n : NULL;
    }
    struct plan_section *s2 = plan_add_section(doc->first_plan, SECTION_OPTIMIZED,
                                               slice_cstr(""), 30000);
    ck_assert_ptr_nonnull(s2);
    for (uint32_t i = 0; i < 5000; i++)
        new_node(s2, NULL, "Filter", "Filter (a#1 > 1)", 30000 + i);
    ck_assert(document_finish(doc));
    expect_two_thread_print_same(doc, 0, "default chunks");
    expect_two_thread_print_same(doc, 1, "chunks of one");
    expect_two_thread_print_same(doc, 1000, "chunks of 1000");
    document_free(doc);
    free(long_text);
}
END_TEST

static void print_two_threads(const char *path, struct document *doc)
{
    expect_two_thread_print_same(doc, 7, path);
}

START_TEST(two_thread_print_is_the_one_thread_print_on_the_corpus)
{
    size_t n;
    if (tu_each_corpus_plan("two_thread_print_is_the_one_thread_print_on_the_corpus",
                            print_two_threads, &n))
        ck_assert_uint_gt(n, 100);
}
END_TEST

Suite *emit_suite(void)
{
    Suite *s = suite_create("emit");
    TCase *tc = tcase_create("emit");
    tcase_add_test(tc, print_shows_stage_id_and_depth);
    tcase_add_test(tc, print_appends_id_unless_text_shows_exactly_it);
    tcase_add_test(tc, print_sanitizes_escape_sequences);
    tcase_add_test(tc, print_marks_labels_inner_plans_and_untitled_sections);
    tcase_add_test(tc, json_has_the_contract_shape);
    tcase_add_test(tc, json_escapes_controls_and_invalid_utf8);
    tcase_add_test(tc, json_numbers_keep_their_value);
    tcase_add_test(tc, special_bytes_are_caught_at_every_offset);
    tcase_add_test(tc, deep_chain_emits_without_recursion);
    tcase_add_test(tc, two_thread_print_is_the_one_thread_print_on_every_sample);
    tcase_add_test(tc, two_thread_print_keeps_order_across_chunks_and_long_texts);
    suite_add_tcase(s, tc);
    TCase *corpus = tcase_create("corpus");
    tcase_set_timeout(corpus, 300);
    tcase_add_test(corpus, two_thread_print_is_the_one_thread_print_on_the_corpus);
    suite_add_tcase(s, corpus);
    return s;
}
