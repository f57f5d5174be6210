/* Clean-up: plans as people paste them give the tree Spark printed.
 *
 * Unit stories per transformation, then the key test: real corpus plans, mangled in each way
 * a paste mangles them, must parse to the same tree (names, depths, stages, ids of every
 * node) as the plan Spark printed.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sparkplan/clean.h"
#include "sparkplan/load.h"
#include "sparkplan/parse.h"
#include "qscan_ref.h"
#include "testutil.h"

/* ---- a growable string ------------------------------------------------------------------ */

struct sb {
    char *p;
    size_t n, cap;
};

static void sb_put(struct sb *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        b->p = realloc(b->p, cap);
        ck_assert_ptr_nonnull(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_str(struct sb *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void sb_ch(struct sb *b, char c)
{
    sb_put(b, &c, 1);
}

static void sb_printf(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    ck_assert_int_ge(n, 0);
    char *tmp = malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(tmp, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_put(b, tmp, (size_t)n);
    free(tmp);
}

/* ---- documents as comparable text ------------------------------------------------------- */

/* One line per plan, section and node: what the key test compares. */
static char *tree_signature(const struct document *doc)
{
    struct sb b = {0};
    sb_str(&b, "");
    for (const struct plan *p = doc->first_plan; p; p = p->next) {
        sb_str(&b, "plan\n");
        for (const struct plan_section *s = p->first_section; s; s = s->next) {
            sb_printf(&b, "section %s\n", section_kind_name(s->kind));
            for (uint32_t i = 0; i < s->n_nodes; i++) {
                const struct plan_node *n = plan_section_node(s, i);
                sb_printf(&b, "%u stage=%d id=%d%s ", n->depth, n->stage, n->id,
                          (n->flags & NODE_LABEL) ? " label" : "");
                sb_put(&b, plan_node_name(n).ptr, plan_node_name(n).len);
                sb_ch(&b, '\n');
            }
        }
    }
    return b.p;
}

static struct document *load_text(const char *text, size_t len, enum sp_status *status)
{
    struct document *doc = NULL;
    *status = tu_try_parse(text, len, &doc);
    return doc;
}

/* The first line where two signatures differ, for the failure message. */
static void first_difference(const char *a, const char *b, char *out, size_t cap)
{
    size_t line = 1;
    const char *la = a, *lb = b;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++;
        b++;
    }
    const char *ea = strchr(la, '\n'), *eb = strchr(lb, '\n');
    int na = ea ? (int)(ea - la) : (int)strlen(la), nb = eb ? (int)(eb - lb) : (int)strlen(lb);
    snprintf(out, cap, "line %zu: want [%.*s] got [%.*s]", line, na > 120 ? 120 : na, la,
             nb > 120 ? 120 : nb, lb);
}

/* The cleaned text of a document (after clean-up alone, no parse). */
static char *cleaned(const char *text)
{
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    memcpy(copy, text, len + 1);
    struct document *doc = document_new("test", copy, len);
    ck_assert_ptr_nonnull(doc);
    struct diag err = {0};
    ck_assert_int_eq(clean_document(doc, &err), SP_OK);
    char *out = malloc(doc->src.text_len + 1);
    memcpy(out, doc->src.text, doc->src.text_len);
    out[doc->src.text_len] = '\0';
    document_free(doc);
    return out;
}

static bool has_warning(const struct document *doc, const char *needle)
{
    for (const struct plan_warning *w = doc->first_warning; w; w = w->next)
        if (strstr(w->message, needle))
            return true;
    return false;
}

/* ---- unit stories ------------------------------------------------------------------------ */

static const char PLAN[] = "== Physical Plan ==\n"
                           "*(2) HashAggregate(keys=[k#33], functions=[sum(v#34)])\n"
                           "+- Exchange hashpartitioning(k#33, 200), true, [id=#59]\n"
                           "   +- *(1) HashAggregate(keys=[k#33], functions=[partial_sum(v#34)])\n"
                           "      +- *(1) LocalTableScan [k#33, v#34]\n";

/* Each story: a pasted form of PLAN must clean up to exactly PLAN (modulo a trailing blank
   line). */
static void assert_cleans_to_plan(const char *pasted)
{
    char *out = cleaned(pasted);
    size_t n = strlen(out);
    while (n >= 2 && out[n - 1] == '\n' && out[n - 2] == '\n')
        out[--n] = '\0';
    ck_assert_str_eq(out, PLAN);
    free(out);
}

START_TEST(spark_output_is_read_in_place)
{
    char *copy = strdup(PLAN);
    struct document *doc = document_new("t", copy, strlen(copy));
    struct diag err = {0};
    ck_assert_int_eq(clean_document(doc, &err), SP_OK);
    ck_assert_ptr_eq(doc->src.text, doc->src.bytes); /* no copy */
    ck_assert_ptr_null(doc->src.line_map);
    ck_assert(!clean_quick_scan(PLAN, strlen(PLAN)));
    document_free(doc);
}
END_TEST

/* Issue 6, peak memory: a cleaned text no longer than the input is written over the input's
   buffer (the document then owns it as text_buf, and the input is gone); a longer one goes
   to the arena, and the loader frees the input.  Either way the plan reads the same. */
START_TEST(cleaned_text_takes_the_inputs_place)
{
    /* CRLF line ends: the clean text is shorter. */
    size_t n = 0;
    char crlf[512];
    for (const char *p = PLAN; *p; p++) {
        if (*p == '\n')
            crlf[n++] = '\r';
        crlf[n++] = *p;
    }
    char *copy = malloc(n + 1);
    memcpy(copy, crlf, n);
    copy[n] = '\0';
    struct document *doc = document_new("crlf", copy, n);
    struct diag err = {0};
    ck_assert_int_eq(clean_document(doc, &err), SP_OK);
    ck_assert_ptr_null(doc->src.bytes);
    ck_assert_ptr_eq(doc->src.text, copy);
    ck_assert_ptr_eq(doc->src.over, copy);
    ck_assert_uint_eq(doc->src.text_len, strlen(PLAN));
    ck_assert(memcmp(doc->src.text, PLAN, strlen(PLAN)) == 0);
    ck_assert_uint_eq(doc->src.len, n); /* the input's size is still known */
    /* Cleaning again changes nothing. */
    ck_assert_int_eq(clean_document(doc, &err), SP_OK);
    ck_assert_int_eq(clean_document_full(doc, &err), SP_OK);
    ck_assert_ptr_eq(doc->src.text, copy);
    document_free(doc);

    /* A tab in the leading blanks becomes 8 spaces: the text grows and goes to the arena. */
    static const char tabbed[] = "== Physical Plan ==\n"
                                 "*(1) Project [a#1]\n"
                                 "+- *(1) Filter (a#1 > 0)\n"
                                 "\t+- *(1) Range (0, 10, step=1, splits=2)\n";
    struct document *loaded = NULL;
    ck_assert_int_eq(load_bytes("tabs", strdup(tabbed), strlen(tabbed), &loaded, &err), SP_OK);
    ck_assert_ptr_null(loaded->src.over);
    ck_assert_ptr_null(loaded->src.bytes); /* freed by the loader: nothing points into it */
    ck_assert_uint_gt(loaded->src.text_len, strlen(tabbed));
    tu_assert_slice_is(plan_node_name(tu_root(loaded)), "Project");
    struct plan_node *filter = document_node_at_line(loaded, 3);
    tu_assert_slice_is(plan_node_name(filter), "Filter");
    ck_assert_ptr_nonnull(
        strstr(plan_node_text(filter).ptr, "        +- *(1) Range")); /* 8 columns */
    document_free(loaded);
}
END_TEST

/* emit() tests a run of lines that follow each other in the input once, where it starts: a
   run of empty lines only is never written over before it is read (nothing of it is read),
   as when each line was tested.  Here the empty line lies behind where the text reaches
   (the tab's 8 columns), the lines after it in scratch or far enough on: the text still goes
   over the input. */
START_TEST(an_empty_line_behind_the_text_keeps_it_in_place)
{
    static const char pasted[] = "== Physical Plan ==\n"
                                 "*(1) Project [a#1]\n"
                                 "\t+- *(1) Filter (a#1 > 0)\n"
                                 "\n"
                                 "\t+- *(1) Range (0, 10, step=1, splits=2)"
                                 "                                        \n"
                                 "x\n";
    static const char want[] = "== Physical Plan ==\n"
                               "*(1) Project [a#1]\n"
                               "        +- *(1) Filter (a#1 > 0)\n"
                               "\n"
                               "        +- *(1) Range (0, 10, step=1, splits=2)\n"
                               "x\n";
    char *copy = strdup(pasted);
    struct document *doc = document_new("empty", copy, strlen(copy));
    struct diag err = {0};
    ck_assert_int_eq(clean_document(doc, &err), SP_OK);
    ck_assert_uint_eq(doc->src.text_len, strlen(want));
    ck_assert(memcmp(doc->src.text, want, strlen(want)) == 0);
    ck_assert_ptr_eq(doc->src.text, copy); /* over the input */
    document_free(doc);
}
END_TEST

/* The split marks the lines the tabs step and the steps after it look at (cleaner.loud);
   lines the literal step decodes are new, marked again by the tabs step, however many of
   them there are (here as many as the input had: the run ends the input). */
START_TEST(decoded_lines_are_marked_again)
{
    char *out = cleaned("{\"outputs\": [{\"text\": [\n"
                        "\"== Physical Plan ==\\n\",\n"
                        "\"*(1) Project [a#1]\\n\",\n"
                        "\"+- *(1) Filter (a#1 > 0)\\n\",\n"
                        "\"\\t+- *(1) Range (0, 10, step=1, splits=2)\\n\"\n");
    ck_assert_ptr_nonnull(strstr(out, "\n        +- *(1) Range (0, 10, step=1, splits=2)\n"));
    free(out);
}
END_TEST

/* The literal step passes over the lines inside a stretch of the input without a backslash
   in a loop of its own: a line that starts inside the stretch but goes on past it (into the
   64-byte block of its first backslash, here the third) is looked at. */
START_TEST(a_line_that_leaves_a_clean_stretch_is_decoded)
{
    char *out = cleaned("a line of text, long enough to fill the first block of sixty-four bytes\n"
                        "{\"padding\": \"some words before the plan, to the third block\", "
                        "\"plan\": \"== Physical Plan ==\\n*(1) Project [a#1]\\n"
                        "+- *(1) Range (0, 10, step=1, splits=2)\\n\"}\n");
    ck_assert_ptr_nonnull(strstr(out, "\n+- *(1) Range (0, 10, step=1, splits=2)\n"));
    free(out);
}
END_TEST

/* The first pass finds the end of a stretch's lines by steps that double and then halve
   (cl_input_lacks_skip_ordered): every number of short lines before the line that leaves
   the stretch (1 to 300: the steps end at each place of the doubling and the halving) has
   that line decoded, and the lines after it too. */
START_TEST(the_end_of_a_long_clean_stretch_is_found)
{
    for (int k = 1; k <= 300; k++) {
        struct sb o = {0};
        sb_str(&o, "");
        for (int m = 0; m < k; m++)
            sb_str(&o, m % 3 ? "ab\n" : "x\n");
        sb_str(&o, "\n");
        for (int m = 0; m < k; m++)
            sb_str(&o, "line\n");
        sb_str(&o, "{\"plan\": \"== Physical Plan ==\\n*(1) Project [a#1]\\n"
                   "+- *(1) Range (0, 10, step=1, splits=2)\\n\"}\n");
        char *out = cleaned(o.p);
        ck_assert_msg(strstr(out, "\n+- *(1) Range (0, 10, step=1, splits=2)\n") != NULL,
                      "not decoded after %d lines", k);
        free(out);
        free(o.p);
    }
}
END_TEST

START_TEST(show_table_is_unwrapped)
{
    /* show(truncate=False): the padding and the closing bar end up on the last line. */
    assert_cleans_to_plan(
        "+--------------------------------------------------+\n"
        "|plan                                              |\n"
        "+--------------------------------------------------+\n"
        "|== Physical Plan ==\n"
        "*(2) HashAggregate(keys=[k#33], functions=[sum(v#34)])\n"
        "+- Exchange hashpartitioning(k#33, 200), true, [id=#59]\n"
        "   +- *(1) HashAggregate(keys=[k#33], functions=[partial_sum(v#34)])\n"
        "      +- *(1) LocalTableScan [k#33, v#34]\n"
        "|\n"
        "+--------------------------------------------------+\n");
    /* Spark's docs: the header right-aligned, every line indented by one space. */
    assert_cleans_to_plan(
        "+----------------------------------------------------+\n"
        "|                                                plan|\n"
        "+----------------------------------------------------+\n"
        "| == Physical Plan ==\n"
        " *(2) HashAggregate(keys=[k#33], functions=[sum(v#34)])\n"
        " +- Exchange hashpartitioning(k#33, 200), true, [id=#59]\n"
        "    +- *(1) HashAggregate(keys=[k#33], functions=[partial_sum(v#34)])\n"
        "       +- *(1) LocalTableScan [k#33, v#34]   |\n"
        "+----------------------------------------------------+\n");
}
END_TEST

START_TEST(row_repr_is_decoded)
{
    assert_cleans_to_plan(
        "[Row(plan='== Physical Plan ==\\n*(2) HashAggregate(keys=[k#33], functions=[sum(v#34)])"
        "\\n+- Exchange hashpartitioning(k#33, 200), true, [id=#59]\\n   +- *(1) HashAggregate("
        "keys=[k#33], functions=[partial_sum(v#34)])\\n      +- *(1) LocalTableScan [k#33, v#34]"
        "\\n\\n')]\n");
    /* Out[3]: prompt, double quotes because the text holds a quote. */
    char *out = cleaned("Out[3]: Row(plan=\"== Physical Plan ==\\n'Project [*]\\n+- 'UnresolvedRelation [t]\\n\")\n");
    ck_assert_str_eq(out, "== Physical Plan ==\n'Project [*]\n+- 'UnresolvedRelation [t]\n");
    free(out);
}
END_TEST

START_TEST(json_string_and_notebook_output_are_decoded)
{
    assert_cleans_to_plan(
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
        "\"executionId\":3,\"description\":\"count at <console>:23\",\"physicalPlanDescription\":"
        "\"== Physical Plan ==\\n*(2) HashAggregate(keys=[k#33], functions=[sum(v#34)])\\n+- "
        "Exchange hashpartitioning(k#33, 200), true, [id=#59]\\n   +- *(1) HashAggregate(keys="
        "[k#33], functions=[partial_sum(v#34)])\\n      +- *(1) LocalTableScan [k#33, v#34]\\n\","
        "\"time\":1}\n");
    /* A notebook cell's stream output, as the .ipynb file stores it. */
    char *out = cleaned("  {\n   \"cell_type\": \"code\",\n   \"outputs\": [\n    {\n"
                        "     \"name\": \"stdout\",\n     \"text\": [\n"
                        "      \"== Physical Plan ==\\n\",\n"
                        "      \"*(1) Project [id#0L]\\n\",\n"
                        "      \"+- *(1) Range (0, 10, step=1, splits=8)\"\n"
                        "     ]\n    }\n   ]\n  }\n");
    ck_assert_ptr_nonnull(strstr(out, "\n== Physical Plan ==\n*(1) Project [id#0L]\n+- *(1) Range (0, 10, step=1, splits=8)\n"));
    free(out);
    /* The notebook showing a repr: escaped twice. */
    out = cleaned("\"text/plain\": [\n \"[Row(plan='== Physical Plan ==\\\\n*(1) Range (0, 1, step=1, splits=2)\\\\n')]\"\n]\n");
    ck_assert_ptr_nonnull(strstr(out, "== Physical Plan ==\n*(1) Range (0, 1, step=1, splits=2)\n"));
    free(out);
}
END_TEST

START_TEST(codegen_strings_are_not_decoded)
{
    const char *code = "Generated code:\n"
                       "/* 001 */ public Object generate(Object[] references) {\n"
                       "/* 002 */   System.out.println(\"a\\nb\");\n"
                       "/* 003 */ }\n";
    char *out = cleaned(code);
    ck_assert_str_eq(out, code);
    free(out);
}
END_TEST

START_TEST(comment_and_quote_prefixes_are_removed)
{
    struct sb b = {0}, q = {0}, s = {0}, d = {0};
    const char *p = PLAN;
    while (*p) {
        const char *e = strchr(p, '\n');
        sb_str(&b, "# ");
        sb_put(&b, p, (size_t)(e - p + 1));
        sb_str(&q, "> > ");
        sb_put(&q, p, (size_t)(e - p + 1));
        sb_str(&s, "// ");
        sb_put(&s, p, (size_t)(e - p + 1));
        sb_str(&d, "-- ");
        sb_put(&d, p, (size_t)(e - p + 1));
        p = e + 1;
    }
    assert_cleans_to_plan(b.p);
    assert_cleans_to_plan(q.p);
    assert_cleans_to_plan(s.p);
    assert_cleans_to_plan(d.p);
    free(b.p);
    free(q.p);
    free(s.p);
    free(d.p);
}
END_TEST

START_TEST(sql_test_comments_are_not_prefixes)
{
    const char *golden = "-- !query\nEXPLAIN SELECT 1\n-- !query schema\nstruct<plan:string>\n"
                         "-- !query output\n== Physical Plan ==\n*(1) Project [1 AS 1#x]\n"
                         "+- *(1) Scan OneRowRelation[]\n";
    char *out = cleaned(golden);
    ck_assert_str_eq(out, golden);
    free(out);
}
END_TEST

START_TEST(code_block_indentation_is_removed)
{
    assert_cleans_to_plan("    == Physical Plan ==\n"
                          "    *(2) HashAggregate(keys=[k#33], functions=[sum(v#34)])\n"
                          "    +- Exchange hashpartitioning(k#33, 200), true, [id=#59]\n"
                          "       +- *(1) HashAggregate(keys=[k#33], functions=[partial_sum(v#34)])\n"
                          "          +- *(1) LocalTableScan [k#33, v#34]\n");
    /* Prose around a fenced block stays; the block loses its indentation. */
    char *out = cleaned("The plan:\n\n  Project [a#1]\n  +- Filter (a#1 > 1)\n     +- Range (0, 3)\n\nDone.\n");
    ck_assert_str_eq(out, "The plan:\n\nProject [a#1]\n+- Filter (a#1 > 1)\n   +- Range (0, 3)\n\nDone.\n");
    free(out);
}
END_TEST

START_TEST(crlf_tabs_bom_and_trailing_blanks_are_normalized)
{
    assert_cleans_to_plan("\xEF\xBB\xBF== Physical Plan ==  \r\n"
                          "*(2) HashAggregate(keys=[k#33], functions=[sum(v#34)])\r\n"
                          "+- Exchange hashpartitioning(k#33, 200), true, [id=#59]   \r\n"
                          "   +- *(1) HashAggregate(keys=[k#33], functions=[partial_sum(v#34)])\r\n"
                          "      +- *(1) LocalTableScan [k#33, v#34]\t\r\n");
    /* unexpand: nine spaces are a tab and a space. */
    char *out = cleaned("Project [a#1]\r\n+- Filter (a#1 > 0)\r\n   +- Sort [a#1 ASC]\r\n"
                        "      +- Exchange SinglePartition\r\n\t +- Range (0, 3)\r\n");
    ck_assert_str_eq(out, "Project [a#1]\n+- Filter (a#1 > 0)\n   +- Sort [a#1 ASC]\n"
                          "      +- Exchange SinglePartition\n         +- Range (0, 3)\n");
    free(out);
}
END_TEST

START_TEST(utf16_input_is_read)
{
    /* A PowerShell redirect writes UTF-16LE with a byte-order mark. */
    const char *plan = "Project [a#1]\n+- Range (0, 3)\n";
    size_t n = strlen(plan);
    char *buf = malloc(2 + 2 * n);
    buf[0] = (char)0xFF;
    buf[1] = (char)0xFE;
    for (size_t i = 0; i < n; i++) {
        buf[2 + 2 * i] = plan[i];
        buf[3 + 2 * i] = 0;
    }
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_bytes("t", buf, 2 + 2 * n, &doc, &err), SP_OK);
    struct plan_node *r = tu_root(doc);
    tu_assert_slice_is(plan_node_name(r), "Project");
    tu_assert_slice_is(plan_node_name(tu_child(r, 0)), "Range");
    document_free(doc);
}
END_TEST

START_TEST(hard_wrapped_lines_are_joined)
{
    /* fold -w 40: every long line cut at exactly 40 columns. */
    assert_cleans_to_plan("== Physical Plan ==\n"
                          "*(2) HashAggregate(keys=[k#33], function\n"
                          "s=[sum(v#34)])\n"
                          "+- Exchange hashpartitioning(k#33, 200),\n"
                          " true, [id=#59]\n"
                          "   +- *(1) HashAggregate(keys=[k#33], fu\n"
                          "nctions=[partial_sum(v#34)])\n"
                          "      +- *(1) LocalTableScan [k#33, v#34\n"
                          "]\n");
    /* Wrapped by hand, continuation lines indented past the marker. */
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "Exchange RoundRobinPartitioning(100), false, [id=#121]\n"
        "+- *(1) ColumnarToRow\n"
        "   +- FileScan parquet default.t[name#29,c#30] Batched: true, DataFilters: [],\n"
        "      Location: CatalogFileIndex[file:/spark/spark-warehouse/t], PartitionFilters: [],\n"
        "      PushedFilters: [], ReadSchema: struct<name:string>\n");
    struct plan_node *scan = tu_child(tu_child(tu_root(doc), 0), 0);
    tu_assert_slice_is(plan_node_name(scan), "FileScan parquet default.t");
    ck_assert_ptr_null(memchr(plan_node_text(scan).ptr, '\n', plan_node_text(scan).len));
    ck_assert(has_warning(doc, "joined"));
    document_free(doc);
}
END_TEST

/* When lines were joined, the wrap step's last pass over the lines cuts their trailing
   blanks too (the trailing blanks' step): a joined line's last piece, a tree line's, a
   blank line's. */
START_TEST(trailing_blanks_go_in_the_wrap_steps_last_pass)
{
    char *out = cleaned("== Physical Plan ==\n"
                        "Exchange RoundRobinPartitioning(100), false, [id=#121]  \n"
                        "+- *(1) ColumnarToRow \t\n"
                        "   +- FileScan parquet default.t[name#29,c#30] Batched: true, DataFilters: [],\n"
                        "      PushedFilters: [], ReadSchema: struct<name:string>   \n"
                        "   \n"
                        "x\n");
    ck_assert_str_eq(out, "== Physical Plan ==\n"
                          "Exchange RoundRobinPartitioning(100), false, [id=#121]\n"
                          "+- *(1) ColumnarToRow\n"
                          "   +- FileScan parquet default.t[name#29,c#30] Batched: true, "
                          "DataFilters: [], PushedFilters: [], ReadSchema: struct<name:string>\n"
                          "\n"
                          "x\n");
    free(out);
}
END_TEST

/* Cuts each line of text after every `width` characters (UTF-8 sequences count as one, as a
   terminal shows them), as fold -w does, into out. */
static void fold_chars(const char *text, int width, char *out)
{
    int col = 0;
    for (const char *p = text; *p; p++) {
        bool starts_char = ((unsigned char)*p & 0xC0) != 0x80;
        if (*p == '\n') {
            col = 0;
        } else if (starts_char && col == width) {
            *out++ = '\n';
            col = 0;
        }
        if (*p != '\n' && starts_char)
            col++;
        *out++ = *p;
    }
    *out = '\0';
}

/* A terminal counts a line's width in characters, not bytes: a plan with accented names cut at
   40 columns (the cut lines hold one or two of them) is joined back wherever in the paste it
   lies (the clean-up tells a line without
   such characters by where they are in the input, in blocks of 64 bytes: the text before the
   plan moves the characters across those blocks). */
START_TEST(lines_cut_by_a_terminal_are_joined_whatever_their_characters)
{
    static const char plan[] =
        "== Physical Plan ==\n"
        "*(2) HashAggregate(keys=[región#33, año#34], functions=[sum(v#35)])\n"
        "+- Exchange hashpartitioning(región#33, año#34, 200), true, [id=#59]\n"
        "   +- *(1) HashAggregate(keys=[k#33, año#34], functions=[partial_sum(v#35)])\n"
        "      +- *(1) LocalTableScan [k#33, año#34, v#35]\n";
    char folded[512], text[1024];
    fold_chars(plan, 40, folded);
    /* The note before the plan: lines of 30 bytes at most, narrower than the cut. */
    for (int pad = 0; pad < 140; pad++) {
        int n = 0;
        for (int left = pad; left > 0; left -= 30)
            n += snprintf(text + n, sizeof text - (size_t)n, "%.*s\n", left < 30 ? left : 30,
                          "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        n += snprintf(text + n, sizeof text - (size_t)n, "\n%s", folded);
        ck_assert_int_lt(n, (int)sizeof text);
        char *out = cleaned(text);
        const char *at = strstr(out, "== Physical Plan ==");
        ck_assert_msg(at && strcmp(at, plan) == 0, "pad %d: %s", pad, out);
        free(out);
    }
}
END_TEST

/* A plan in an HTML block whose lines are <br> tags: the block's first line becomes several,
   the text around it stays (the block is rewritten over the lines it reads until a <br>
   makes more lines than were read). */
START_TEST(html_break_lines_become_plan_lines)
{
    char *out = cleaned("text\n"
                        "<pre>== Physical Plan ==<br>*(1) Project [a#1]<br>"
                        "+- *(1) Range (0, 10, step=1, splits=2)</pre>\n"
                        "more\n");
    ck_assert_str_eq(out, "text\n"
                          "== Physical Plan ==\n"
                          "*(1) Project [a#1]\n"
                          "+- *(1) Range (0, 10, step=1, splits=2)\n"
                          "more\n");
    free(out);
}
END_TEST

/* Email wrap of an extended explain (real plans from notebooks, not in the corpus): the
 * analyzed plan's schema line broken after ',' or ':' is joined back even when it is the only
 * broken line, and the root after it, "Project [...", is a line to join like any plan line. */
START_TEST(email_wrap_of_the_analyzed_schema_and_its_root)
{
    static const char plan[] =
        "== Analyzed Logical Plan ==\n"
        "cust_id: string, start_date: string, end_date: string, txn_id: string, date: string, city: string\n"
        "Repartition 24, true\n"
        "+- Relation[cust_id#0,start_date#1,end_date#2,txn_id#3,date#4,city#10] parquet\n";
    static const char one_break[] =
        "== Analyzed Logical Plan ==\n"
        "cust_id: string, start_date: string, end_date: string, txn_id: string, date:\n"
        "string, city: string\n"
        "Repartition 24, true\n"
        "+- Relation[cust_id#0,start_date#1,end_date#2,txn_id#3,date#4,city#10] parquet\n";
    char *out = cleaned(one_break);
    ck_assert_str_eq(out, plan);
    free(out);
    static const char wrapped[] =
        "== Parsed Logical Plan ==\n"
        "'Project [unresolvedalias('policy, None), unresolvedalias('make, None),\n"
        "cast('vehicle_age as int) AS vehicle_age#148, cast('sum_insured as int) AS\n"
        "sum_insured#149]\n"
        "+- Relation[policy#132,make#133,vehicle_age#134,sum_insured#135] csv\n"
        "\n"
        "== Analyzed Logical Plan ==\n"
        "policy: string, make: string, vehicle_age: int, sum_insured: int, inception:\n"
        "int\n"
        "Project [policy#132, make#133, cast(vehicle_age#134 as int) AS\n"
        "vehicle_age#148, cast(sum_insured#135 as int) AS sum_insured#149, make#133 AS\n"
        "inception#150]\n"
        "+- Relation[policy#132,make#133,vehicle_age#134,sum_insured#135] csv\n";
    struct document *doc = tu_parse(wrapped);
    const struct plan_section *an = doc->first_plan->first_section->next;
    ck_assert_int_eq(an->kind, SECTION_ANALYZED);
    const struct plan_node *root = an->first_root;
    tu_assert_slice_is(plan_node_name(root), "Project");
    ck_assert_ptr_null(
        memchr(plan_node_text(root).ptr, '\n', plan_node_text(root).len)); /* one line again */
    ck_assert_uint_eq(plan_node_n_children(root), 1);
    const struct plan_node *parsed = doc->first_plan->first_section->first_root;
    ck_assert_ptr_null(memchr(plan_node_text(parsed).ptr, '\n', plan_node_text(parsed).len));
    document_free(doc);
    /* explain("codegen") with its subtree header broken: still a codegen section. */
    doc = tu_parse("Found 1 WholeStageCodegen subtrees.\n"
                   "== Subtree 1 / 1 (maxMethodCodeSize:324; maxConstantPoolSize:160(0.24%\n"
                   "used); numInnerClasses:0) ==\n"
                   "*(1) Project [id#0L]\n"
                   "+- *(1) Range (0, 5, step=1, splits=2)\n"
                   "\n"
                   "Generated code:\n"
                   "/* 001 */ public Object generate(Object[] references) {\n"
                   "/* 002 */   return new GeneratedIteratorForCodegenStage1(references);\n"
                   "/* 003 */ }\n");
    const struct plan_section *cg = doc->first_plan->first_section;
    ck_assert_int_eq(cg->kind, SECTION_CODEGEN);
    tu_assert_slice_is(plan_node_name(cg->first_root), "Project");
    document_free(doc);
    /* A table name too long to break moved down whole, the only broken line of the plan:
       by an email client (column 0) or by hand (indented past the marker). */
    static const char *const moved[] = {
        "== Physical Plan ==\n"
        "*(1) ColumnarToRow\n"
        "+- FileScan parquet\n"
        "spark_catalog.default.partitioned_employees[id#10174,name#10175,salary#10176] Batched: true, DataFilters: [], Format: Parquet\n",
        "== Physical Plan ==\n"
        "*(1) ColumnarToRow\n"
        "+- FileScan parquet\n"
        "      spark_catalog.default.partitioned_employees[id#10174,name#10175,salary#10176] Batched: true, DataFilters: [], Format: Parquet\n",
    };
    for (size_t k = 0; k < 2; k++) {
        doc = tu_parse(moved[k]);
        const struct plan_node *scan = tu_child(tu_root(doc), 0);
        tu_assert_slice_is(plan_node_name(scan),
                           "FileScan parquet spark_catalog.default.partitioned_employees");
        ck_assert_ptr_null(memchr(plan_node_text(scan).ptr, '\n', plan_node_text(scan).len));
        document_free(doc);
    }
}
END_TEST

/* The width an email client wrapped at is estimated from the widest line that may head a
   word-wrapped group, the analyzed plan's root too (a root after the schema line, not after
   a header: the wrap step asks it apart from the evidence's word pairs, which it is none
   of).  Here it is the widest: estimated from the others, it would stay broken. */
START_TEST(an_analyzed_root_can_be_the_widest_word_wrapped_line)
{
    /* The schema line and the root are a word pair of their own: the root, 96 columns,
       is more than 10 columns wider than the other lines (it is not taken as a follower). */
    struct document *doc = tu_parse(
        "== Parsed Logical Plan ==\n"
        "'Project [unresolvedalias('policy, None), unresolvedalias('make, None),\n"
        "cast('vehicle_age as int) AS vehicle_age#148]\n"
        "+- Relation[policy#132,make#133,vehicle_age#134,sum_insured#135] csv\n"
        "\n"
        "== Analyzed Logical Plan ==\n"
        "policy: string, make: string, vehicle_age: int\n"
        "Project [policy#132, make#133, cast(vehicle_age#134 as int) AS vehicle_age#148, "
        "sum_insured#135,\n"
        "make#133 AS inception#150]\n"
        "+- Relation[policy#132,make#133,vehicle_age#134,sum_insured#135] csv\n");
    const struct plan_section *an = doc->first_plan->first_section->next;
    ck_assert_int_eq(an->kind, SECTION_ANALYZED);
    const struct plan_node *root = an->first_root;
    tu_assert_slice_is(plan_node_name(root), "Project");
    ck_assert_ptr_null(memchr(plan_node_text(root).ptr, '\n', plan_node_text(root).len));
    ck_assert_uint_eq(plan_node_n_children(root), 1);
    document_free(doc);
}
END_TEST

/* A short line heads a hanging group only when the next line's first word would not have
   fitted on it within the widest line that heads one (gathered with the evidence): here a
   short tree line's indented next line fits, and stays a line of its own. */
START_TEST(a_short_line_heads_no_hanging_group_its_next_word_fits)
{
    char *out = cleaned("== Physical Plan ==\n"
                        "*(2) Project [a#1]\n"
                        "+- *(2) Filter\n"
                        "      isnotnull(a#1)\n"
                        "   +- FileScan parquet default.t[name#29,c#30] Batched: true, DataFilters: [],\n"
                        "      PushedFilters: [], ReadSchema: struct<name:string>\n");
    ck_assert_ptr_nonnull(strstr(out, "+- *(2) Filter\n      isnotnull(a#1)\n"));
    ck_assert_ptr_nonnull(strstr(out, "DataFilters: [], PushedFilters: []"));
    free(out);
}
END_TEST

/* A notebook cell's output pasted indented as a whole: a plan and, below it, a show() table
 * of data.  The data table is no plan table: it stays as it is, and the block still loses
 * its common indentation (a real notebook plan, QA). */
START_TEST(a_data_table_beside_the_plan_stays_a_table)
{
    char *out = cleaned("Here is what explain printed:\n"
                        "\n"
                        "    == Physical Plan ==\n"
                        "    *(1) Project [id#0L]\n"
                        "    +- *(1) Range (0, 10, step=1, splits=2)\n"
                        "\n"
                        "    Top customers:\n"
                        "    +-----------+-----------------+\n"
                        "    |customer_id|transaction_count|\n"
                        "    +-----------+-----------------+\n"
                        "    |          1|             2589|\n"
                        "    |          2|             1450|\n"
                        "    +-----------+-----------------+\n"
                        "\n"
                        "Any idea why it is slow?\n");
    ck_assert_str_eq(out, "Here is what explain printed:\n"
                          "\n"
                          "== Physical Plan ==\n"
                          "*(1) Project [id#0L]\n"
                          "+- *(1) Range (0, 10, step=1, splits=2)\n"
                          "\n"
                          "Top customers:\n"
                          "+-----------+-----------------+\n"
                          "|customer_id|transaction_count|\n"
                          "+-----------+-----------------+\n"
                          "|          1|             2589|\n"
                          "|          2|             1450|\n"
                          "+-----------+-----------------+\n"
                          "\n"
                          "Any idea why it is slow?\n");
    free(out);
}
END_TEST

START_TEST(email_word_wrap_keeps_formatted_ids)
{
    /* An email client broke the long outline lines at a space: the id moved down. */
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "* HashAggregate (4)\n"
        "+- Exchange (3)\n"
        "   +- * HashAggregate (2)\n"
        "      +- * BroadcastHashJoin Inner BuildRight with a much longer name\n"
        "(9)\n"
        "         :- * ColumnarToRow and a second operator name long enough\n"
        "to_wrap (5)\n"
        "         :  +- Scan parquet spark_catalog.default.t (1)\n"
        "         +- BroadcastExchange (8)\n"
        "            +- LocalTableScan (7)\n");
    struct plan_node *join = tu_child(tu_child(tu_child(tu_root(doc), 0), 0), 0);
    ck_assert_int_eq(join->id, 9);
    ck_assert_int_eq(tu_child(join, 0)->id, 5);
    document_free(doc);
}
END_TEST

START_TEST(numbered_tree_string_prefixes_are_removed)
{
    char *out = cleaned("00 AdaptiveSparkPlan isFinalPlan=false\n"
                        "01 +- Project [id#0L]\n"
                        "02    +- Exchange rangepartitioning(id#0L ASC NULLS FIRST, 3), REPARTITION_BY_NUM, [id=#21]\n"
                        "03       +- Range (0, 5, step=1, splits=16)\n");
    ck_assert_str_eq(out, "AdaptiveSparkPlan isFinalPlan=false\n"
                          "+- Project [id#0L]\n"
                          "   +- Exchange rangepartitioning(id#0L ASC NULLS FIRST, 3), REPARTITION_BY_NUM, [id=#21]\n"
                          "      +- Range (0, 5, step=1, splits=16)\n");
    free(out);
    /* Numbers in prose are not a tree. */
    const char *prose = "10 rows\n11 more rows\n";
    out = cleaned(prose);
    ck_assert_str_eq(out, prose);
    free(out);
}
END_TEST

/* The numberedTreeString step looks only at the lines marked by the tabs step
   (cleaner.loud): a digit after the blanks (the indentation step cuts them), and the lines
   the table step writes itself (a row's first line started on '|'), with the marks of the
   lines before the table's border kept. */
START_TEST(numbered_lines_behind_blanks_and_in_tables_are_found)
{
    static const char numbered[] = "00 AdaptiveSparkPlan isFinalPlan=false\n"
                                   "01 +- Project [id#0L]\n"
                                   "02    +- Range (0, 5, step=1, splits=16)";
    static const char plain[] = "AdaptiveSparkPlan isFinalPlan=false\n"
                                "+- Project [id#0L]\n"
                                "   +- Range (0, 5, step=1, splits=16)";
    char want[1024], in[1024];
    /* Indented, fenced by blank lines. */
    char *out = cleaned("text\n\n"
                        "    00 AdaptiveSparkPlan isFinalPlan=false\n"
                        "    01 +- Project [id#0L]\n"
                        "    02    +- Range (0, 5, step=1, splits=16)\n");
    snprintf(want, sizeof want, "text\n\n%s\n", plain);
    ck_assert_str_eq(out, want);
    free(out);
    /* In a show() table: the row's first line started on '|'. */
    snprintf(in, sizeof in, "+----+\n|plan|\n+----+\n|%s|\n+----+\n", numbered);
    out = cleaned(in);
    snprintf(want, sizeof want, "%s\n", plain);
    ck_assert_str_eq(out, want);
    free(out);
    /* Before a table, whose step moves no line before its border. */
    snprintf(in, sizeof in, "%s\n\n+----+\n|plan|\n+----+\n|%s|\n+----+\n", numbered, numbered);
    out = cleaned(in);
    snprintf(want, sizeof want, "%s\n\n%s\n", plain, plain);
    ck_assert_str_eq(out, want);
    free(out);
}
END_TEST

START_TEST(lost_indentation_is_rebuilt_from_markers)
{
    /* A web page collapsed the leading spaces: ":  +- " became ": +- ", "   +- " became "+- ". */
    const char *want = "Union\n"
                       ":- Project [a#1]\n"
                       ":  :- Filter (a#1 > 1)\n"
                       ":  :  +- Range (0, 5)\n"
                       ":  +- Range (5, 9)\n"
                       "+- Project [a#3]\n"
                       "   +- Filter (a#3 > 2)\n"
                       "      +- Range (0, 5)\n";
    char *out = cleaned("Union\n"
                        ":- Project [a#1]\n"
                        ": :- Filter (a#1 > 1)\n"
                        ": : +- Range (0, 5)\n"
                        ": +- Range (5, 9)\n"
                        "+- Project [a#3]\n"
                        "+- Filter (a#3 > 2)\n"
                        "+- Range (0, 5)\n");
    ck_assert_str_eq(out, want);
    free(out);
    /* Only the leading spaces gone: the bars keep theirs. */
    out = cleaned("Union\n"
                  ":- Project [a#1]\n"
                  ":  :- Filter (a#1 > 1)\n"
                  ":  :  +- Range (0, 5)\n"
                  ":  +- Range (5, 9)\n"
                  "+- Project [a#3]\n"
                  "+- Filter (a#3 > 2)\n"
                  "+- Range (0, 5)\n");
    ck_assert_str_eq(out, want);
    free(out);
    struct document *doc = tu_parse("Project\n+- Filter\n+- Range (0, 1)\n");
    ck_assert(has_warning(doc, "tree structure inferred from markers"));
    ck_assert_uint_eq(tu_child(tu_child(tu_root(doc), 0), 0)->depth, 2);
    document_free(doc);
}
END_TEST

START_TEST(lost_indentation_of_an_aqe_plan_is_rebuilt)
{
    const char *want = "== Physical Plan ==\n"
                       "AdaptiveSparkPlan (13)\n"
                       "+- == Final Plan ==\n"
                       "   * HashAggregate (8)\n"
                       "   +- ShuffleQueryStage (7)\n"
                       "      +- Exchange (6)\n"
                       "         +- * Range (1)\n"
                       "+- == Initial Plan ==\n"
                       "   HashAggregate (12)\n"
                       "   +- Exchange (11)\n"
                       "      +- Range (1)\n";
    char *out = cleaned("== Physical Plan ==\n"
                        "AdaptiveSparkPlan (13)\n"
                        "+- == Final Plan ==\n"
                        "* HashAggregate (8)\n"
                        "+- ShuffleQueryStage (7)\n"
                        "+- Exchange (6)\n"
                        "+- * Range (1)\n"
                        "+- == Initial Plan ==\n"
                        "HashAggregate (12)\n"
                        "+- Exchange (11)\n"
                        "+- Range (1)\n");
    ck_assert_str_eq(out, want);
    free(out);
}
END_TEST

START_TEST(correct_trees_are_never_rebuilt)
{
    /* Inner children two levels down, a subquery under a leaf, AQE sub-plans: all valid. */
    const char *plans[] = {
        "Filter (a#1 > scalar-subquery#5 [])\n"
        ":  +- Aggregate [max(b#2) AS m#5]\n"
        ":     +- Relation t[b#2] parquet\n"
        "+- Relation s[a#1] parquet\n",
        "+- FileScan parquet t[c#1] Batched: true\n"
        "      +- Subquery subquery#3, [id=#9]\n",
        "AdaptiveSparkPlan isFinalPlan=true\n"
        "+- == Final Plan ==\n"
        "   *(1) Project [id#0L]\n"
        "   +- *(1) Range (0, 5, step=1, splits=2)\n"
        "+- == Initial Plan ==\n"
        "   Project [id#0L]\n"
        "   +- Range (0, 5, step=1, splits=2)\n",
    };
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        char *out = cleaned(plans[i]);
        ck_assert_str_eq(out, plans[i]);
        free(out);
    }
}
END_TEST

/* The steps from the tabs step to the show() table step pass over the lines that start on
 * none of the bytes they start on (cleaner.loud, marked once by the tabs step).  A line a step
 * among them rewrites must still be looked at by the ones after it: a doc comment's star
 * lines, cut by the markup step, may hide a show() table; the lines of an HTML block, decoded
 * in place, may hide quote prefixes ("&gt; "). */
START_TEST(lines_a_step_rewrites_are_looked_at_by_the_steps_after_it)
{
    static const char *const table[] = {
        "== Physical Plan ==",
        "+------------------------------------------------+",
        "|*(1) Project [a#1]                              |",
        "|+- *(1) Range (0, 10, step=1, splits=2)         |",
        "+------------------------------------------------+",
    };
    struct sb doc = {0}, plain = {0};
    sb_str(&doc, "/**\n");
    sb_str(&plain, "/**\n");
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        sb_printf(&doc, " * %s\n", table[k]);
        sb_printf(&plain, "%s\n", table[k]);
    }
    sb_str(&doc, " */\n");
    sb_str(&plain, " */\n");
    char *a = cleaned(doc.p), *b = cleaned(plain.p);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_null(strstr(a, "+---")); /* the table was unwrapped */
    ck_assert_ptr_nonnull(strstr(a, "\n+- *(1) Range"));
    free(a);
    free(b);

    /* The block's first line decodes to an empty one, its last to another: as many lines. */
    struct sb html = {0}, quoted = {0};
    sb_str(&html, "<pre>\n");
    sb_str(&quoted, "\n");
    for (const char *p = PLAN; *p;) {
        const char *e = strchr(p, '\n');
        sb_printf(&html, "&gt; %.*s\n", (int)(e - p), p);
        sb_printf(&quoted, "> %.*s\n", (int)(e - p), p);
        p = e + 1;
    }
    sb_str(&html, "</pre>\n");
    sb_str(&quoted, "\n");
    a = cleaned(html.p);
    b = cleaned(quoted.p);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(strstr(a, PLAN)); /* the prefixes went */
    free(a);
    free(b);
    free(doc.p);
    free(plain.p);
    free(html.p);
    free(quoted.p);
}
END_TEST

/* An email client's width is taken from a group's continuation lines a little wider than
 * the first estimate (word_wrap_width), and a line is in a group only when it follows its
 * head as a follower: unindented, starting nothing.  Here (a corpus file word-wrapped at 60
 * columns, a third of the continuations indented by a space) an indented continuation taken
 * for a follower let the line after it raise the width, and "root class: ..." was joined
 * after "LongType, -" as if the client had wrapped it. */
START_TEST(a_wrapped_groups_width_comes_from_its_followers_only)
{
    static const char pasted[] =
        "== Parsed Logical Plan ==\n"
        "'TypedFilter <function1>, long, [StructField(value,LongType,false)],\n"
        " unresolveddeserializer(upcast(getcolumnbyordinal(0, LongType), LongType, -\n"
        "root class: \"scala.Long\"))\n"
        "+- SerializeFromObject [input[0, bigint, true] AS value#185L]\n"
        "   +- MapElements <function1>, class java.lang.Long,\n"
        "[StructField(value,LongType,true)], obj#184: bigint\n"
        "      +- DeserializeToObject newInstance(class java.lang.Long), obj#183:\n"
        "java.lang.Long\n"
        "         +- Range (0, 4, step=1, splits=Some(8))\n"
        "\n"
        "== Analyzed Logical Plan ==\n"
        "value: bigint\n"
        "TypedFilter <function1>, long, [StructField(value,LongType,false)],\n"
        " cast(value#185L as bigint)\n"
        "+- SerializeFromObject [input[0, bigint, true] AS value#185L]\n"
        "   +- MapElements <function1>, class java.lang.Long,\n"
        "[StructField(value,LongType,true)], obj#184: bigint\n"
        "      +- DeserializeToObject newInstance(class java.lang.Long), obj#183:\n"
        " java.lang.Long\n"
        "         +- Range (0, 4, step=1, splits=Some(8))\n"
        "\n"
        "== Optimized Logical Plan ==\n"
        "SerializeFromObject [input[0, bigint, true] AS value#185L]\n"
        "+- Filter <function1>.apply\n"
        "   +- MapElements <function1>, class java.lang.Long,\n"
        " [StructField(value,LongType,true)], obj#184: bigint\n"
        "      +- DeserializeToObject newInstance(class java.lang.Long), obj#183:\n"
        "java.lang.Long\n"
        "         +- Range (0, 4, step=1, splits=Some(8))\n"
        "\n"
        "== Physical Plan ==\n"
        "*SerializeFromObject [input[0, bigint, true] AS value#185L]\n"
        "+- *Filter <function1>.apply\n"
        "   +- *MapElements <function1>, obj#184: bigint\n"
        "      +- *DeserializeToObject newInstance(class java.lang.Long), obj#183:\n"
        "java.lang.Long\n"
        "         +- *Range (0, 4, step=1, splits=Some(8))\n";
    char *out = cleaned(pasted);
    ck_assert_ptr_nonnull(strstr(out, "LongType), LongType, -\nroot class: \"scala.Long\"))\n"));
    ck_assert_ptr_nonnull(strstr(out, "[StructField(value,LongType,false)], unresolveddeserializer("));
    free(out);
}
END_TEST

/* Word wrap is undone only after a plan line that may head a group (word_head): an AQE
 * header ("+- == Final Plan ==") is a tree line but heads none, so the line after it, a word
 * too long to have fitted after it in an email client's width, stays a line of its own. */
START_TEST(an_aqe_header_heads_no_word_wrapped_group)
{
    static const char pasted[] =
        "== Physical Plan ==\n"
        "AdaptiveSparkPlan isFinalPlan=true\n"
        "+- == Final Plan ==\n"
        "ResultQueryStageExecutionWithAVeryLongName_abcdefghijklmnopqrstuvwxyz [id=#1]\n"
        "   +- *(2) HashAggregate(keys=[k#33], functions=[sum(v#34)], output=[k#33,\n"
        "sum(v)#40L])\n"
        "      +- AQEShuffleRead coalesced, partitions=[k#33, v#34, w#35, x#36,\n"
        "y#37, z#38]\n"
        "         +- ShuffleQueryStage 0, Statistics(sizeInBytes=1.0 KiB, rowCount=10,\n"
        "isRuntime=true)\n";
    char *out = cleaned(pasted);
    ck_assert_ptr_nonnull(strstr(out, "\n+- == Final Plan ==\nResultQueryStage"));
    ck_assert_ptr_nonnull(strstr(out, "output=[k#33, sum(v)#40L])\n")); /* word wrap undone */
    free(out);
}
END_TEST

START_TEST(prose_after_a_pasted_plan_is_not_a_node)
{
    /* A reused subquery's entry has no body: the question after the paste is not its tree. */
    struct document *doc = tu_parse(
        "== Physical Plan ==\n* Filter (2)\n+- * Range (1)\n\n\n"
        "(1) Range [codegen id : 1]\nOutput [1]: [id#0L]\n\n"
        "(2) Filter [codegen id : 1]\nInput [1]: [id#0L]\nCondition : (id#0L > 1)\n\n"
        "===== Subqueries =====\n\n"
        "Subquery:1 Hosting operator id = 2 Hosting Expression = ReusedSubquery Subquery "
        "scalar-subquery#5, [id=#9]\n\n"
        "Any idea why it is slow?\n");
    ck_assert_uint_eq(doc->n_all_nodes, 2);
    document_free(doc);
}
END_TEST

START_TEST(line_numbers_point_at_the_original_input)
{
    /* The table's borders and header go; nodes keep the lines they had in the paste. */
    struct document *doc = tu_parse("+----+\n|plan|\n+----+\n|== Physical Plan ==\n"
                                    "Project [a#1]\n+- Range (0, 3)|\n+----+\n");
    struct plan_node *r = tu_root(doc);
    ck_assert_uint_eq(r->line, 5);
    ck_assert_uint_eq(tu_child(r, 0)->line, 6);
    document_free(doc);
}
END_TEST

/* ---- the key test: corpus plans, mangled ------------------------------------------------- */

static const char *const SAMPLE[] = {
    "web/hyperspace-spark2.4-tpcds-q1.simple.txt",
    "web/jaceklaskowski-msql-smj-simple.txt",
    "web/jaceklaskowski-msql-inmemorytablescan.txt",
    "web/jaceklaskowski-msql-subquery-exec.txt",
    "web/gluten-docs-pyspark-notebook-velox-simple.txt",
    "web/jaceklaskowski-msql-bucketing-smj.txt",
    "web/g1thubhub-catalyst-plans-scala.extended.txt",
    "web/lucacanali-sql-magic-extended-spark2.txt",
    "web/jaceklaskowski-msql-cache-extended.txt",
    "eventlogs-rapids-tools/spark3.0.1-gpu-extended-join.exec0.000.start.txt",
    "eventlogs-spark/spark2.4-snapshot.application_1506645932520_24630151.002.start.extended.txt",
    "comet-tpcds/v1_4.q1.extended.txt",
    "comet-tpcds/v1_4.q64.extended.txt",
    "eventlogs-rapids-tools/emr-spark3.3.0-amzn-aqe.exec0.003.aqe-update.txt",
    "eventlogs-rapids-tools/emr-spark3.3.0-amzn-aqe.exec0.001.aqe-update.txt",
    "web/jaceklaskowski-msql-aqe-demo-extended.txt",
    "web/g1thubhub-hermeneutics-cost-join.txt",
    "web/jaceklaskowski-msql-cost-stats-1.txt",
    "web/jaceklaskowski-msql-codegen-comments.elided.txt",
    "spark-tpcds-v1_4/q1.explain.txt",
    "spark-tpcds-v1_4/q14a.explain.txt",
    "spark-tpch/q5.explain.txt",
    "spark-tpcds-v2_7-sf100/q10a.explain.txt",
    "spark3.1-tpcds-v1_4/q1.explain.txt",
    "auron-tpcds/spark3.5.q1.txt",
    "gluten-velox-tpch/v1-bhj-ras-spark32.q1.txt",
    "eventlogs-spark/spark3.3-snapshot.local-1642039451826.003.aqe-update.txt",
    "eventlogs-rapids-tools/databricks10.4-ml-xgboost.exec4.005.aqe-update.txt",
    "spark-connect-explain/alias_string.explain.txt",
    "spark-sql-tests/explain.sql.out",
};

/* Line iteration over a NUL-terminated text. */
#define FOR_LINES(text, ls, le)                                                              \
    for (const char *ls = (text), *le = strchr(ls, '\n') ? strchr(ls, '\n') : ls + strlen(ls); \
         *ls; ls = *le ? le + 1 : le, le = strchr(ls, '\n') ? strchr(ls, '\n') : ls + strlen(ls))

static void m_table(const char *text, struct sb *o)
{
    /* show(truncate=False): the column is as wide as the whole (multi-line) cell. */
    size_t w = strlen(text);
    sb_ch(o, '+');
    for (size_t i = 0; i < w; i++)
        sb_ch(o, '-');
    sb_str(o, "+\n|plan");
    for (size_t i = 4; i < w; i++)
        sb_ch(o, ' ');
    sb_str(o, "|\n+");
    for (size_t i = 0; i < w; i++)
        sb_ch(o, '-');
    sb_str(o, "+\n|");
    sb_str(o, text);
    sb_str(o, "|\n+");
    for (size_t i = 0; i < w; i++)
        sb_ch(o, '-');
    sb_str(o, "+\n");
}

static void m_table_docs(const char *text, struct sb *o)
{
    /* As Spark's own docs show it: a short border, the header on the right, a space before
       every line. */
    sb_str(o, "+----------------------------------------------------+\n"
              "|                                                plan|\n"
              "+----------------------------------------------------+\n|");
    FOR_LINES(text, ls, le)
    {
        sb_ch(o, ' ');
        sb_put(o, ls, (size_t)(le - ls));
        sb_ch(o, '\n');
    }
    sb_str(o, "|\n+----------------------------------------------------+\n");
}

static void python_escape(const char *text, struct sb *o, char quote)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\\')
            sb_str(o, "\\\\");
        else if (*p == '\n')
            sb_str(o, "\\n");
        else if (*p == '\t')
            sb_str(o, "\\t");
        else if (*p == '\r')
            sb_str(o, "\\r");
        else if (*p == (unsigned char)quote)
            sb_printf(o, "\\%c", quote);
        else if (*p < 0x20 || *p == 0x7F)
            sb_printf(o, "\\x%02x", *p);
        else
            sb_ch(o, (char)*p);
    }
}

static void m_row_repr(const char *text, struct sb *o)
{
    char q = strchr(text, '\'') && !strchr(text, '"') ? '"' : '\'';
    sb_str(o, "In [4]: spark.sql(\"EXPLAIN ...\").collect()\nOut[4]: [Row(plan=");
    sb_ch(o, q);
    python_escape(text, o, q);
    sb_ch(o, q);
    sb_str(o, ")]\n");
}

static void json_escape(const char *text, size_t n, struct sb *o)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\') {
            sb_ch(o, '\\');
            sb_ch(o, (char)c);
        } else if (c == '\n') {
            sb_str(o, "\\n");
        } else if (c == '\t') {
            sb_str(o, "\\t");
        } else if (c < 0x20) {
            sb_printf(o, "\\u%04x", c);
        } else {
            sb_ch(o, (char)c);
        }
    }
}

/* An event log's plan is found and decoded many bytes at a time: escapes and quotes that
   fall at every offset of a 16-byte step, and a line that ends inside a string after a
   backslash, must read as they did byte by byte. */
START_TEST(event_log_escapes_at_every_offset_are_decoded)
{
    for (int pad = 0; pad < 40; pad++) {
        struct sb plan = {0};
        sb_str(&plan, "== Physical Plan ==\n*(1) Filter (name#1 = ");
        for (int k = 0; k < pad; k++)
            sb_ch(&plan, (char)('a' + k % 26));
        sb_str(&plan, "\"q\" \\ x=y\tz)\n+- *(1) LocalTableScan [name#1]\n");
        struct sb json = {0};
        sb_str(&json, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
                      "\"physicalPlanDescription\":\"");
        json_escape(plan.p, plan.n, &json);
        sb_str(&json, "\",\"time\":1}\n");
        char *out = cleaned(json.p);
        ck_assert_msg(strstr(out, plan.p) != NULL, "pad %d: got [%s]", pad, out);
        free(out);
        /* '=' as Gson writes it (a Zeppelin note): \u003d */
        struct sb gson = {0};
        for (size_t i = 0; i < json.n; i++) {
            if (json.p[i] == '=' && i > 40)
                sb_str(&gson, "\\u003d");
            else
                sb_ch(&gson, json.p[i]);
        }
        out = cleaned(gson.p);
        ck_assert_msg(strstr(out, plan.p) != NULL, "pad %d (gson): got [%s]", pad, out);
        free(out);
        /* cut after a backslash: an unterminated string is not a plan */
        json.p[json.n - 14] = '\\';
        json.p[json.n - 13] = '\n';
        json.p[json.n - 12] = '\0';
        out = cleaned(json.p);
        ck_assert_ptr_null(strstr(out, "LocalTableScan [name#1]\n"));
        free(out);
        free(plan.p);
        free(json.p);
        free(gson.p);
    }
}
END_TEST

static char *cleaned_with(const char *text, size_t n, bool shortcut, bool *taken);

/* A backslash or a byte above 0x7F among an input's last bytes: the split marks the 64-byte
   blocks they touch and no block after the input's last (fuzz_analyze found a mark written one
   word past the marks for a 4 KB plan; the sanitizer run of this test sees such a write). */
START_TEST(rare_bytes_at_an_inputs_end_mark_no_block_past_it)
{
    static const char head[] = "== Physical Plan ==\n*(1) Project [a#1]\n+- *(1) Filter x\n";
    size_t runs = 0;
    for (size_t n = 4030; n <= 4160; n++)
        for (size_t back = 1; back <= 20; back++)
            for (int kind = 0; kind < 2; kind++) {
                char *buf = malloc(n + 1);
                ck_assert_ptr_nonnull(buf);
                memset(buf, 'a', n);
                memcpy(buf, head, sizeof head - 1);
                for (size_t i = sizeof head - 1 + 60; i < n; i += 61)
                    buf[i] = '\n';
                buf[n - back] = kind ? '\\' : (char)0xC3;
                buf[n] = '\0';
                struct document *doc = NULL;
                struct diag err = {0};
                enum sp_status st = load_bytes("end", buf, n, &doc, &err);
                ck_assert_msg(st == SP_OK || st == SP_ERR_NO_PLAN, "n %zu, back %zu: %d", n, back,
                              (int)st);
                document_free(doc);
                runs++;
            }
    ck_assert_uint_eq(runs, 131 * 20 * 2);
}
END_TEST

/* The split marks the 64-byte blocks of the input that hold a backslash a round of 64 bytes
   at a time (clean.c, mark_bytes64), the rounds starting at the buffer's first byte or, behind
   a UTF-8 mark, 3 bytes in: a short line with one escaped newline, its backslash at every
   offset of a round, is decoded (a block left unmarked, or the one beside it marked, has the
   literal step pass the line by). */
START_TEST(a_backslash_at_any_offset_of_a_split_round_is_marked)
{
    for (int bom = 0; bom < 2; bom++)
        for (int pad = 0; pad < 160; pad++) {
            struct sb o = {0};
            sb_str(&o, bom ? "\xEF\xBB\xBF" : "");
            for (int k = 0; k < pad; k++)
                sb_ch(&o, (char)('a' + k % 26));
            sb_str(&o, "\n'== Physical Plan ==\\n*(1) Range (0, 10)'\n");
            /* Lines after it: the string's bytes are read in rounds of 64, not the tail's. */
            for (int k = 0; k < 3; k++)
                sb_str(&o, "what it printed after the plan, a line of text\n");
            char *out = cleaned(o.p);
            ck_assert_msg(strstr(out, "\n== Physical Plan ==\n*(1) Range (0, 10)\n") != NULL &&
                              !strchr(out, '\\'),
                          "bom %d, pad %d: not decoded: [%s]", bom, pad, out);
            free(out);
            free(o.p);
        }
}
END_TEST

/* Past SPLIT_LONG_LINE (64 KB) into a line the split finds its end with memchr and marks the
   rest of its blocks as looked at (clean.c): a string past that point is decoded, and the
   lines after the long one (another long one among them, the last without its '\n') are
   split where they end, at every offset of a round. */
START_TEST(a_string_far_into_a_long_line_is_decoded)
{
    static const size_t extra[] = {0, 1, 63, 64, 65, 1000, 70000};
    for (int bom = 0; bom < 2; bom++)
        for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
            struct sb o = {0};
            sb_str(&o, bom ? "\xEF\xBB\xBF" : "");
            for (size_t i = 0; i < 65536 + extra[k]; i++)
                sb_ch(&o, 'a');
            sb_str(&o, " '== Physical Plan ==\\n*(1) Range (0, 10)'\nline two\n");
            for (size_t i = 0; i < 65536 + extra[k] * 3; i++)
                sb_ch(&o, 'b');
            /* (A blank line: a line after the widest would read as its wrapped rest.) */
            sb_str(&o, "\n\nline four\nline five");
            char *out = cleaned_with(o.p, o.n, false, NULL);
            /* The string's lines, the blank line that ends its run, the lines after, each
               from its input line. */
            ck_assert_msg(strstr(out, "a\n== Physical Plan ==\n*(1) Range (0, 10)\n\nline two\nbbb") &&
                              strstr(out, "bbb\n\nline four\nline five\n") && !strchr(out, '\\') &&
                              strstr(out, " lines, map: 1 1 1 1 2 3 4 5 6\n"),
                          "bom %d, %zu bytes past 64 KB: not decoded or split otherwise: %s", bom,
                          extra[k], strstr(out, "\n-- ") ? strstr(out, "\n-- ") : out);
            free(out);
            free(o.p);
        }
}
END_TEST

/* A string's end is found by its escapes up to its first escaped newline, then by its quotes
   alone, each after a run of backslashes counted back (clean_literal.c, closing_quote): it
   must be where a walk a byte at a time finds it, and say the same about escaped newlines,
   for strings of backslashes, both quotes, 'n' and letters (runs of backslashes of every
   length before a quote, "\n" and "\\n" first at every offset of the 64-byte rounds), read
   from every kind of start. */
START_TEST(a_strings_end_is_found_as_a_walk_byte_by_byte_finds_it)
{
    static const char alphabet[] = "\\\\\\\"'nnaaaaaaaa";
    char buf[600];
    unsigned r = 777;
    size_t quote_phase = 0;
    for (int round = 0; round < 200000; round++) {
        r = r * 1103515245u + 12345u;
        uint32_t len = (r >> 8) % (uint32_t)sizeof buf;
        /* A plain stretch, then an escaped newline (most rounds), then bytes at random, with
           fewer backslashes in some rounds (long stretches of quotes alone). */
        uint32_t plain = (r >> 4) % 200, sparse = (r >> 20) % 3;
        for (uint32_t i = 0; i < len; i++) {
            r = r * 1103515245u + 12345u;
            char ch = alphabet[(r >> 16) % (sizeof alphabet - 1)];
            if (i < plain || (sparse && ch == '\\' && (r >> 12) % 4))
                ch = 'a';
            buf[i] = ch;
        }
        if (plain + 3 <= len && round % 5) {
            buf[plain] = '\\';
            buf[plain + 1] = round % 7 ? 'n' : '\\';
            buf[plain + 2] = 'n';
        }
        r = r * 1103515245u + 12345u;
        uint32_t from = len ? (r >> 16) % (len + 1) : 0;
        char q = round % 3 ? '"' : '\'';
        bool nl_walk = false, nl_blocks = false;
        uint32_t want = clean_string_end(buf, len, from, q, &nl_walk, false);
        uint32_t got = clean_string_end(buf, len, from, q, &nl_blocks, true);
        ck_assert_msg(want == got && nl_walk == nl_blocks,
                      "round %d (len %u, from %u, quote %c): end %u, newline %d by the walk, "
                      "end %u, newline %d by blocks",
                      round, len, from, q, want, nl_walk, got, nl_blocks);
        quote_phase += nl_walk && want < len && want > from + 64;
    }
    /* Many ends found by the quotes alone, far past the first escaped newline. */
    ck_assert_uint_gt(quote_phase, 20000);
}
END_TEST

/* What decode_compact_blocks reads: a JSON string of the plan's text with its escapes
   chosen at random among the forms that stand for the same byte (\n, \", \\, \/, \t, \r,
   \b, \f, \uXXXX for any byte below 0x80, a code point's \uXXXX, a surrogate pair, a lone
   surrogate, an unknown escape \q kept as it is), the text's own bytes written as they
   are otherwise. */
static void json_escape_random(const char *text, size_t n, struct sb *o, unsigned *r)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        *r = *r * 1103515245u + 12345u;
        unsigned pick = (*r >> 16) % 16;
        if (c == '\n')
            sb_str(o, pick < 13 ? "\\n" : pick < 15 ? "\\u000a" : "\\u000A");
        else if ((c == '"' || c == '\\') && pick < 12)
            sb_printf(o, "\\%c", c);
        else if (c == '"' || c == '\\')
            sb_printf(o, "\\u%04x", c);
        else if (c == '\t')
            sb_str(o, pick < 12 ? "\\t" : "\\u0009");
        else if (c == '\r')
            sb_str(o, "\\r");
        else if (c == '/' && pick < 8)
            sb_str(o, "\\/");
        else if (c == '~' && pick < 4)
            sb_str(o, "\\ud83d\\ude00"); /* a surrogate pair: U+1F600 */
        else if (c == '~' && pick < 6)
            sb_str(o, "\\ud83d"); /* a lone surrogate: U+FFFD */
        else if (c == '~' && pick < 8)
            sb_str(o, "\\q"); /* no escape: kept, backslash and all */
        else if (c == '~' && pick < 10)
            sb_str(o, "\\u00e9");
        else if (c == '~' && pick < 12)
            sb_str(o, "\\b\\f");
        else if (c < 0x20 || (c < 0x80 && pick == 15))
            sb_printf(o, "\\u%04x", c);
        else
            sb_ch(o, (char)c);
    }
}


/* in cleaned as it is and behind a UTF-8 mark (which sends the same line down the
   byte-by-byte decoder), with and without the shortcut: the same text, and decoded. */
static void assert_decoded_as_behind_a_mark(const struct sb *in, const char *what)
{
    struct sb bom = {0};
    sb_str(&bom, "\xEF\xBB\xBF");
    sb_put(&bom, in->p, in->n);
    for (int shortcut = 0; shortcut < 2; shortcut++) {
        char *want = cleaned_with(bom.p, bom.n, shortcut, NULL);
        char *got = cleaned_with(in->p, in->n, shortcut, NULL);
        if (strcmp(want, got) != 0) {
            char why[400];
            first_difference(want, got, why, sizeof why);
            ck_abort_msg("%s, shortcut %d: %s", what, shortcut, why);
        }
        ck_assert_msg(!strstr(got, " bytes, 0 lines, map:"), "%s: not decoded", what);
        free(want);
        free(got);
    }
    free(bom.p);
}

/* An event log's line is decoded over itself 64 bytes a round, its lines ended and looked at
   as the rounds find them (emit_compact, decode_compact_blocks); behind a UTF-8 mark the same
   line takes the byte-by-byte way of every other input (emit_run), which must give the same
   text, map and notes.  Plans of random lines (indented tree lines, numbered lines, blank
   lines, trailing blanks and tabs, a '\r' before a line's end, quotes, backslashes,
   slashes and bytes that decode to more than one) in an event log's record (the output
   behind the reads from the start) and as a bare string at the line's start (no room until
   64 lines are decoded: the 16-byte way first), with escapes of every form at every offset
   of the rounds (each form at each place first), with and without the shortcut. */
START_TEST(a_long_string_decodes_in_rounds_as_byte_by_byte)
{
    static const char *const words[] = {
        "HashAggregate", "(12)", "[codegen id : 3]", "Input [2]: [a#1, b#2]", "x = \"q\"",
        "a\\b", "s/t", "~", "\t", "0123456789abcdef0123456789abcdef0123", "é", "#7L", "",
    };
    static const char *const edge_escapes[] = {
        "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "\\t", "\\q", "\\r\\n", "\\u000a",
    };
    size_t nw = sizeof words / sizeof words[0];
    unsigned r = 4242;
    size_t compared = 0;
    /* First each escape at every place of a round: a round starts at the byte after the
       escape before, so pad bytes after an escaped newline put the escape at offset pad,
       up to past the round's end (an escape cut by it). */
    for (size_t e = 0; e < sizeof edge_escapes / sizeof edge_escapes[0]; e++)
        for (int pad = 0; pad < 140; pad++) {
            struct sb in = {0};
            sb_str(&in, "{\"Event\":\"org.apache.spark.sql.execution.ui."
                        "SparkListenerSQLExecutionStart\",\"physicalPlanDescription\":"
                        "\"== Physical Plan ==\\n* Project (2)\\n+- ");
            for (int k = 0; k < pad; k++)
                sb_ch(&in, (char)('a' + k % 26));
            sb_str(&in, edge_escapes[e]);
            sb_str(&in, "y\\n   +- Range (1)\\n\",\"time\":1}\n");
            char what[80];
            snprintf(what, sizeof what, "escape %s at %d", edge_escapes[e], pad);
            assert_decoded_as_behind_a_mark(&in, what);
            free(in.p);
        }
    for (int round = 0; round < 400; round++) {
        struct sb plan = {0}, esc = {0}, in = {0};
        sb_str(&plan, "");
        int lines = 1 + (int)((unsigned)round * 7 % 300);
        /* Every fifth plan numbered as numberedTreeString numbers it (the steps take the
           numbers off: a line led by a digit must be looked at). */
        bool numbered = round % 5 == 1;
        for (int l = 0; l < lines; l++) {
            r = r * 1103515245u + 12345u;
            unsigned shape = (r >> 16) % 32;
            if (shape == 0 && !numbered) {
                sb_str(&plan, "\n"); /* a blank line */
                continue;
            }
            if (numbered)
                sb_printf(&plan, "%02d ", l % 100);
            if (shape < 8 || shape == 10)
                sb_str(&plan, shape < 4 || shape == 10 ? "+- " : "   :  +- ");
            else if (shape < 10)
                sb_printf(&plan, "(%d) ", l);
            for (unsigned w = 0; w < 1 + (r >> 8) % 6; w++) {
                r = r * 1103515245u + 12345u;
                sb_str(&plan, words[(r >> 16) % nw]);
                sb_ch(&plan, ' ');
            }
            plan.p[--plan.n] = '\0';
            if (shape == 10)
                sb_str(&plan, "  "); /* trailing blanks on a tree line: the steps cut them */
            else if (shape == 11 && round % 4 == 0)
                sb_str(&plan, "\r"); /* a '\r' before the line's end */
            sb_str(&plan, "\n");
        }
        /* The header as it is: the literal step looks for it in the escaped text. */
        sb_str(&esc, "== Physical Plan ==\\n");
        json_escape_random(plan.p, plan.n, &esc, &r);
        sb_str(&in, "");
        if (round % 2)
            sb_printf(&in, "{\"Event\":\"org.apache.spark.sql.execution.ui."
                           "SparkListenerSQLExecutionStart\",\"executionId\":%d,"
                           "\"physicalPlanDescription\":\"%s\",\"time\":1}",
                      round, esc.p);
        else
            sb_printf(&in, "\"%s\"", esc.p);
        if (round % 3)
            sb_ch(&in, '\n');
        char what[80];
        snprintf(what, sizeof what, "round %d (%d lines)", round, lines);
        assert_decoded_as_behind_a_mark(&in, what);
        compared += 2;
        free(plan.p);
        free(esc.p);
        free(in.p);
    }
    ck_assert_uint_gt(compared, 700);
}
END_TEST

/* A plan's string decoded over its own line must give the bytes a plain decoder gives, with
   escapes of every kind falling at every offset of the 16-byte steps, before and after the
   decoded text has made room (a long run of plain bytes, then escapes one after another). */
START_TEST(strings_decoded_over_their_own_line_give_every_byte)
{
    static const char *const pieces[][2] = {
        /* escaped, decoded */
        {"\\n", "\n"},       {"\\\"", "\""},      {"\\\\", "\\"},      {"\\/", "/"},
        {"\\t", "\t"},       {"\\u00e9", "\xC3\xA9"}, {"\\u003d", "="}, {"\\r\\n", "\n"},
        {"ab", "ab"},        {"x", "x"},          {"0123456789abcdef", "0123456789abcdef"},
    };
    size_t np = sizeof pieces / sizeof pieces[0];
    unsigned r = 12345;
    for (int round = 0; round < 300; round++) {
        struct sb esc = {0}, want = {0};
        /* The string at the line's start (the output has no room ahead of the reads until
           16 escapes are decoded) or after an event's fields (room from the start). */
        if (round % 2)
            sb_str(&esc, "{\"Event\":\"SparkListenerSQLExecutionStart\",\"physicalPlanDescription\":\"");
        else
            sb_str(&esc, "\"");
        sb_str(&esc, "== Physical Plan ==\\n");
        sb_str(&want, "== Physical Plan ==\n");
        int n = 1 + round % 97;
        bool line_open = false;
        size_t line_start = want.n;
        for (int k = 0; k < n; k++) {
            r = r * 1103515245u + 12345u;
            const char *const *pc = pieces[(r >> 16) % np];
            /* Lines under 36 bytes (shorter than any wrapped line), starting with a word
               and ending in none of the blanks: only the decoding is under test. */
            if (want.n - line_start >= 20)
                pc = pieces[0];
            bool nl = pc[1][0] == '\n';
            if (!line_open && (nl || pc[1][0] == '\t'))
                pc = pieces[9];
            else if (nl && want.p[want.n - 1] == '\t')
                pc = pieces[9];
            sb_str(&esc, pc[0]);
            sb_str(&want, pc[1]);
            line_open = pc[1][0] != '\n';
            if (!line_open)
                line_start = want.n;
        }
        if (line_open && want.p[want.n - 1] == '\t') {
            sb_str(&esc, "x"); /* no blank at a line's end */
            sb_str(&want, "x");
        }
        if (line_open)
            sb_str(&want, "\n");
        sb_str(&esc, round % 2 ? "\",\"time\":1}\n" : "\"\n");
        char *got = cleaned(esc.p);
        ck_assert_msg(strcmp(got, want.p) == 0, "round %d: want [%s] got [%s]", round, want.p,
                      got);
        free(got);
        free(esc.p);
        free(want.p);
    }
}
END_TEST

static void m_json(const char *text, struct sb *o)
{
    if (strstr(text, "Plan ==")) {
        /* An event log's SQLExecutionStart record. */
        sb_str(o, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
                  "\"executionId\":0,\"description\":\"count at <console>:23\","
                  "\"physicalPlanDescription\":\"");
        json_escape(text, strlen(text), o);
        sb_str(o, "\",\"time\":1642039451826}\n");
    } else {
        sb_ch(o, '"');
        json_escape(text, strlen(text), o);
        sb_str(o, "\"\n");
    }
}

static void m_notebook(const char *text, struct sb *o)
{
    sb_str(o, "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 3,\n"
              "   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n"
              "     \"text\": [\n");
    bool first = true;
    FOR_LINES(text, ls, le)
    {
        if (!first)
            sb_str(o, ",\n");
        first = false;
        sb_str(o, "      \"");
        json_escape(ls, (size_t)(le - ls) + (*le == '\n'), o);
        sb_ch(o, '"');
    }
    sb_str(o, "\n     ]\n    }\n   ],\n   \"source\": [\n    \"df.explain()\"\n   ]\n  }\n ]\n}\n");
}

static void prefix_lines(const char *text, struct sb *o, const char *prefix, const char *blank)
{
    FOR_LINES(text, ls, le)
    {
        sb_str(o, ls == le ? blank : prefix);
        sb_put(o, ls, (size_t)(le - ls));
        sb_ch(o, '\n');
    }
}

static void m_hash(const char *text, struct sb *o)
{
    prefix_lines(text, o, "# ", "#");
}

static void m_quote(const char *text, struct sb *o)
{
    sb_str(o, "On Tuesday someone wrote:\n");
    prefix_lines(text, o, "> ", ">");
}

static void m_indent(const char *text, struct sb *o)
{
    sb_str(o, "Here is what explain printed:\n\n");
    prefix_lines(text, o, "    ", "");
    sb_str(o, "\nAny idea why it is slow?\n");
}

static void m_crlf_tabs_bom(const char *text, struct sb *o)
{
    sb_str(o, "\xEF\xBB\xBF");
    unsigned k = 0;
    FOR_LINES(text, ls, le)
    {
        /* unexpand: leading spaces become tabs at 8-column stops. */
        size_t sp = 0;
        while (ls + sp < le && ls[sp] == ' ')
            sp++;
        for (size_t t = 0; t < sp / 8; t++)
            sb_ch(o, '\t');
        for (size_t t = 0; t < sp % 8; t++)
            sb_ch(o, ' ');
        sb_put(o, ls + sp, (size_t)(le - ls - sp));
        if (k++ % 3 == 0)
            sb_str(o, "  ");
        sb_str(o, "\r\n");
    }
}

static void fold_at(const char *text, struct sb *o, size_t w)
{
    FOR_LINES(text, ls, le)
    {
        size_t col = 0;
        for (const char *p = ls; p < le; p++) {
            bool start = ((unsigned char)*p & 0xC0) != 0x80;
            if (start && col == w) {
                sb_ch(o, '\n');
                col = 0;
            }
            sb_ch(o, *p);
            col += start;
        }
        sb_ch(o, '\n');
    }
}

/* A left-deep plan 60 levels deep (prefixes to 180 columns, wider than any terminal) with a
 * broadcast side branch every fourth level, in the shapes a deep RAPIDS plan has: codegen
 * markers, "targetsize(536870912)", scans whose text has "Filters: " and a "..." ending. */
static char *deep_plan(void)
{
    enum { DEPTH = 60 };
    static const char *const ops[] = {
        "*(%d) Project [loan_id#%d, quarter#%d, month_y#%d, delinquency_30#%d]",
        "GpuCoalesceBatches targetsize(536870912)",
        "GpuFilter (gpuisnotnull(loan_id#%d) AND gpuisnotnull(quarter#%d)), true",
        "GpuShuffledHashJoin [seller_name#%d], [from_seller_name#%d], LeftOuter, GpuBuildRight, false",
    };
    struct sb o = {0};
    sb_str(&o, "== Physical Plan ==\n");
    char prefix[4 * DEPTH] = "";
    size_t plen = 0;
    /* The side branches print after the whole chain below them, deepest first. */
    size_t side_at[DEPTH];
    int n_side = 0;
    for (int d = 0; d < DEPTH; d++) {
        bool join = d % 4 == 3;
        const char *marker = d == 0 ? "" : "+- ";
        if (d > 0 && (d - 1) % 4 == 3)
            marker = ":- ";
        sb_put(&o, prefix, plen);
        sb_str(&o, marker);
        sb_printf(&o, ops[d % 4], d + 1, d, d + 1, d + 2, d + 3);
        sb_ch(&o, '\n');
        if (d > 0) {
            memcpy(prefix + plen, (d - 1) % 4 == 3 ? ":  " : "   ", 3);
            plen += 3;
        }
        if (join)
            side_at[n_side++] = plen;
    }
    while (n_side-- > 0) {
        size_t at = side_at[n_side];
        sb_put(&o, prefix, at);
        sb_str(&o, "+- GpuBroadcastExchange HashedRelationBroadcastMode(List(input[1, bigint, "
                   "true], input[0, string, true]),false), [id=#1096]\n");
        sb_put(&o, prefix, at);
        sb_printf(&o, "   +- GpuFileGpuScan parquet [loan_id#%d,monthly_reporting_period#2454,"
                      "quarter#2484] Batched: true, DataFilters: [isnotnull(quarter#2484)], "
                      "Format: Parquet, Location: InMemoryFileIndex[file:/data/perf], "
                      "PartitionFilters: [], PushedFilters: [IsNotNull(quarter), "
                      "IsNotNull(loan_id)], ReadSchema: struct<loan_id:bigint,"
                      "monthly_reporting_period:string,current_loan_deli...\n",
                  n_side);
    }
    return o.p;
}

/* Fuzz find (heap-use-after-free under ASan): an AQE sub-plan's root placed while the
 * rebuild's stack grows past its capacity read the header through a stale pointer.  Chains
 * of 50 to 140 "+- " lines at column 0 put the header at every stack size around 64 and
 * 128. */
START_TEST(lost_indentation_with_an_aqe_header_at_any_depth)
{
    for (int k = 50; k <= 140; k++) {
        struct sb o = {0};
        sb_str(&o, "== Physical Plan ==\nAdaptiveSparkPlan isFinalPlan=true\n");
        for (int i = 0; i < k; i++)
            sb_printf(&o, "+- Project [a#%d]\n", i);
        sb_str(&o, "+- == Final Plan ==\nProject [a#1]\n+- Range (0, 5, step=1, splits=2)\n");
        enum sp_status st;
        struct document *doc = load_text(o.p, o.n, &st);
        ck_assert_int_eq(st, SP_OK);
        ck_assert_uint_ge(doc->n_all_nodes, (size_t)k + 1);
        document_free(doc);
        free(o.p);
    }
}
END_TEST

START_TEST(deep_plans_cut_inside_their_prefix_are_joined_back)
{
    char *plan = deep_plan();
    struct document *want_doc = tu_parse(plan);
    char *want = tree_signature(want_doc);
    ck_assert_uint_eq(want_doc->n_all_nodes, 60 + 2 * 15);
    document_free(want_doc);
    /* fold -w W for every width a terminal or a mail client might have. */
    for (size_t w = 50; w <= 140; w++) {
        struct sb folded = {0};
        fold_at(plan, &folded, w);
        char *text = cleaned(folded.p);
        char why[400];
        first_difference(plan, text, why, sizeof why);
        ck_assert_msg(strcmp(text, plan) == 0, "fold -w %zu: %s", w, why);
        enum sp_status st;
        struct document *doc = load_text(folded.p, strlen(folded.p), &st);
        ck_assert_ptr_nonnull(doc);
        char *got = tree_signature(doc);
        ck_assert_str_eq(got, want);
        free(got);
        document_free(doc);
        free(text);
        free(folded.p);
    }
    free(want);
    free(plan);
}
END_TEST

static void m_fold80(const char *text, struct sb *o)
{
    fold_at(text, o, 80);
}

static void m_fold120(const char *text, struct sb *o)
{
    fold_at(text, o, 120);
}

/* Breaks lines longer than w at their last space within w (never inside the tree prefix),
   as an email client does; cont() says how to indent the rest. */
static void word_wrap(const char *text, struct sb *o, size_t w,
                      size_t (*cont)(const char *ls, const char *le, bool after_header))
{
    bool after_header = false;
    FOR_LINES(text, ls, le)
    {
        size_t indent = cont ? cont(ls, le, after_header) : 0;
        size_t lead = 0;
        while (ls + lead < le && strchr(" :+-*", ls[lead]))
            lead++;
        const char *p = ls;
        bool first = true;
        while ((size_t)(le - p) + (first ? 0 : indent) > w) {
            size_t room = first ? w : w - indent;
            const char *cut = NULL;
            for (const char *q = p + (first ? lead : 0); q <= p + room && q < le; q++)
                if (*q == ' ')
                    cut = q;
            if (!cut || cut == p)
                break;
            if (!first)
                for (size_t k = 0; k < indent; k++)
                    sb_ch(o, ' ');
            sb_put(o, p, (size_t)(cut - p));
            sb_ch(o, '\n');
            p = cut + 1;
            first = false;
        }
        if (!first)
            for (size_t k = 0; k < indent; k++)
                sb_ch(o, ' ');
        sb_put(o, p, (size_t)(le - p));
        sb_ch(o, '\n');
        size_t n = (size_t)(le - ls);
        /* After "== Physical Plan ==" or an AQE "+- == Final Plan ==": a root. */
        const char *h = ls;
        while (h < le && (*h == ' ' || *h == '+' || *h == '-'))
            h++;
        after_header = n > 6 && le - h > 3 && memcmp(h, "== ", 3) == 0 && strstr(h, "Plan ==") &&
                       strstr(h, "Plan ==") < le;
    }
}

static void m_email76(const char *text, struct sb *o)
{
    word_wrap(text, o, 76, NULL);
}

/* Hand-wrapped: the rest of a tree line continues under the node's name, the rest of a
   details field, a subquery entry or a plan's first line two spaces in. */
static size_t hanging_indent(const char *ls, const char *le, bool after_header)
{
    const char *p = ls;
    while (p < le && (*p == ' ' || *p == ':') && !(p + 1 < le && *p == ':' && p[1] == '-'))
        p++;
    if (p + 2 < le && (*p == '+' || *p == ':') && p[1] == '-' && p[2] == ' ')
        return (size_t)(p + 3 - ls);
    if (after_header || (le - ls > 9 && memcmp(ls, "Subquery:", 9) == 0) ||
        (ls < le && *ls == '('))
        return (size_t)(p - ls) + 2;
    if (ls < le && *ls >= 'A' && *ls <= 'Z') {
        const char *c = memchr(ls, ':', (size_t)(le - ls));
        if (c && c + 1 < le && c[1] == ' ' && c - ls < 30 && !memchr(ls, ',', (size_t)(c - ls)))
            return 2;
    }
    return 0;
}

static void m_hanging100(const char *text, struct sb *o)
{
    word_wrap(text, o, 100, hanging_indent);
}

/* The parse of the original, for manglers that follow the tree. */
static const struct document *g_orig;

static void m_numbered(const char *text, struct sb *o)
{
    /* numberedTreeString: every line of each section's tree gets "%02d ". */
    size_t nlines = 1;
    for (const char *p = text; *p; p++)
        nlines += *p == '\n';
    unsigned *num = calloc(nlines + 1, sizeof *num); /* 0 = none, else number + 1 */
    for (const struct plan *p = g_orig->first_plan; p; p = p->next)
        for (const struct plan_section *s = p->first_section; s; s = s->next) {
            if (!s->n_nodes)
                continue;
            uint32_t first = plan_section_node(s, 0)->line, last = first;
            for (uint32_t i = 0; i < s->n_nodes; i++) {
                const struct plan_node *n = plan_section_node(s, i);
                uint32_t end = n->line;
                for (const char *q = plan_node_text(n).ptr;
                     q < plan_node_text(n).ptr + plan_node_text(n).len; q++)
                    end += *q == '\n';
                if (end > last)
                    last = end;
            }
            if (last == first)
                continue; /* a one-line tree: "00 X" could be anything */
            for (uint32_t l = first; l <= last && l <= nlines; l++)
                num[l] = l - first + 1;
        }
    uint32_t line = 0;
    FOR_LINES(text, ls, le)
    {
        line++;
        if (num[line])
            sb_printf(o, "%02u ", num[line] - 1);
        sb_put(o, ls, (size_t)(le - ls));
        sb_ch(o, '\n');
    }
    free(num);
}

static void m_strip_indent(const char *text, struct sb *o)
{
    /* A copy button that trims every line. */
    FOR_LINES(text, ls, le)
    {
        while (ls < le && *ls == ' ')
            ls++;
        sb_put(o, ls, (size_t)(le - ls));
        sb_ch(o, '\n');
    }
}

static void m_collapse_indent(const char *text, struct sb *o)
{
    /* HTML whitespace collapsing in the tree prefix: no leading spaces, one space a run. */
    FOR_LINES(text, ls, le)
    {
        while (ls < le && *ls == ' ')
            ls++;
        const char *p = ls;
        while (p < le && (*p == ' ' || *p == ':')) {
            if (*p == ':' && p + 1 < le && p[1] == '-')
                break;
            if (!(*p == ' ' && p > ls && p[-1] == ' '))
                sb_ch(o, *p);
            p++;
        }
        sb_put(o, p, (size_t)(le - p));
        sb_ch(o, '\n');
    }
}

static void m_strip_indent_crlf(const char *text, struct sb *o)
{
    /* The same copy on Windows: CRLF line ends, so the rebuilt text may be the shorter one. */
    FOR_LINES(text, ls, le)
    {
        while (ls < le && *ls == ' ')
            ls++;
        sb_put(o, ls, (size_t)(le - ls));
        sb_str(o, "\r\n");
    }
}

/* Issue 4/6: a deep plan with bars (":  " units) pasted without its indentation comes back
 * as Spark printed it, byte for byte, its prefixes rebuilt from the markers. */
START_TEST(deep_plans_with_lost_indentation_come_back_as_printed)
{
    char *plan = deep_plan();
    void (*const mangle[])(const char *, struct sb *) = {m_strip_indent, m_collapse_indent,
                                                          m_strip_indent_crlf};
    for (size_t m = 0; m < sizeof mangle / sizeof mangle[0]; m++) {
        struct sb pasted = {0};
        mangle[m](plan, &pasted);
        char *text = cleaned(pasted.p);
        char why[400];
        first_difference(plan, text, why, sizeof why);
        ck_assert_msg(strcmp(text, plan) == 0, "mangling %zu: %s", m, why);
        free(text);
        free(pasted.p);
    }
    free(plan);
}
END_TEST

struct mangler {
    const char *name;
    void (*fn)(const char *text, struct sb *o);
    bool tree_only; /* only for trees without inner children */
};

static const struct mangler MANGLERS[] = {
    {"show() table", m_table, false},
    {"docs table", m_table_docs, false},
    {"Row repr", m_row_repr, false},
    {"JSON string", m_json, false},
    {"notebook", m_notebook, false},
    {"# prefix", m_hash, false},
    {"> quote", m_quote, false},
    {"common indent", m_indent, false},
    {"CRLF+tabs+BOM", m_crlf_tabs_bom, false},
    {"fold 80", m_fold80, false},
    {"fold 120", m_fold120, false},
    {"email wrap 76", m_email76, false},
    {"hand wrap 100", m_hanging100, false},
    {"numberedTreeString", m_numbered, false},
    {"indentation stripped", m_strip_indent, true},
    {"indentation collapsed", m_collapse_indent, true},
    {"indentation stripped, CRLF", m_strip_indent_crlf, true},
};

static bool has_inner_children(const struct document *doc)
{
    for (size_t i = 0; i < doc->n_all_nodes; i++)
        if (document_node(doc, i)->flags & NODE_INNER)
            return true;
    return false;
}

/* The corpus's plan files (*.txt, *.out), sorted: a malloc'd list, one "./dir/file" a line. */
static char *corpus_plan_list(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -type f \\( -name '*.txt' -o -name '*.out' \\) | sort", dir);
    char *list = tu_run(cmd, NULL);
    ck_assert_ptr_nonnull(list);
    return list;
}

/* One file of that list ("./dir/file"), read whole; NULL when unreadable. */
static char *corpus_read(const char *dir, const char *listed, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, listed + 2);
    return tu_read_file(path, len);
}

/* Each readable corpus plan file in dir, in corpus_plan_list's order, given whole to fn with
   its name as listed ("./dir/file") and its place in the list (f: the seed of the tests'
   variants).  The text is freed after fn. */
static void each_corpus_text(const char *dir,
                             void (*fn)(void *ctx, const char *listed, size_t f, const char *text,
                                        size_t len),
                             void *ctx)
{
    char *list = corpus_plan_list(dir);
    size_t f = 0;
    for (char *p = strtok(list, "\n"); p; p = strtok(NULL, "\n"), f++) {
        size_t len;
        char *text = corpus_read(dir, p, &len);
        if (!text)
            continue;
        fn(ctx, p, f, text, len);
        free(text);
    }
    free(list);
}

START_TEST(mangled_corpus_plans_give_the_original_tree)
{
    const char *dir = tu_corpus_dir();
    if (!dir)
        return;
    /* SPARKPLAN_CLEAN_ALL=1: every corpus file instead of the sample (minutes, not for CI). */
    const char *files[2048];
    size_t nfiles = 0, nm = sizeof MANGLERS / sizeof MANGLERS[0];
    char *list = NULL;
    if (getenv("SPARKPLAN_CLEAN_ALL")) {
        list = corpus_plan_list(dir);
        for (char *p = strtok(list, "\n"); p && nfiles < 2048; p = strtok(NULL, "\n"))
            files[nfiles++] = p + 2;
    } else {
        for (size_t f = 0; f < sizeof SAMPLE / sizeof SAMPLE[0]; f++)
            files[nfiles++] = SAMPLE[f];
    }
    size_t tried = 0, failed = 0;
    for (size_t f = 0; f < nfiles; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        size_t len;
        char *text = tu_read_file(path, &len);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        enum sp_status st;
        struct document *orig = load_text(text, len, &st);
        if (st != SP_OK && list) {
            free(text);
            continue; /* not a plan: nothing to compare */
        }
        ck_assert_msg(st == SP_OK, "%s does not load", files[f]);
        char *want = tree_signature(orig);
        bool inner = has_inner_children(orig);
        g_orig = orig;
        for (size_t m = 0; m < nm; m++) {
            if (MANGLERS[m].tree_only && inner)
                continue;
            struct sb o = {0};
            sb_str(&o, "");
            MANGLERS[m].fn(text, &o);
            struct document *doc = load_text(o.p, o.n, &st);
            tried++;
            char *got = doc ? tree_signature(doc) : strdup("(no plan)");
            if (strcmp(want, got) != 0) {
                char why[400];
                first_difference(want, got, why, sizeof why);
                fprintf(stderr, "clean: %s, %s: %s\n", files[f], MANGLERS[m].name, why);
                failed++;
            }
            free(got);
            document_free(doc);
            free(o.p);
        }
        free(want);
        document_free(orig);
        free(text);
    }
    free(list);
    fprintf(stderr, "clean: %zu mangled plans, %zu differ\n", tried, failed);
    ck_assert_msg(failed == 0, "%zu of %zu mangled plans give another tree", failed, tried);
}
END_TEST

struct scan_counts {
    size_t files, scanned_clean;
};

/* One corpus file: where the quick scan says "nothing to do", the full clean-up agrees. */
static void quick_scan_agrees(void *ctx, const char *listed, size_t f, const char *text,
                              size_t len)
{
    (void)f;
    struct scan_counts *sc = ctx;
    sc->files++;
    bool dirty = clean_quick_scan(text, len);
    char *own = malloc(len + 1); /* the document takes its bytes; the walker frees text */
    ck_assert_ptr_nonnull(own);
    memcpy(own, text, len + 1);
    struct document *doc = document_new("t", own, len);
    struct diag err = {0};
    ck_assert_int_eq(clean_document_full(doc, &err), SP_OK);
    if (!dirty) {
        sc->scanned_clean++;
        ck_assert_msg(doc->src.text == doc->src.bytes, "%s: the quick scan missed a rewrite",
                      listed);
    }
    document_free(doc);
}

START_TEST(quick_scan_never_skips_a_needed_rewrite)
{
    const char *dir = tu_corpus_dir();
    if (!dir)
        return;
    struct scan_counts sc = {0};
    each_corpus_text(dir, quick_scan_agrees, &sc);
    ck_assert_uint_gt(sc.files, 1000);
    /* Spark's own output is read in place: nearly every corpus file. */
    ck_assert_uint_gt(sc.scanned_clean * 100, sc.files * 95);
}
END_TEST

/* ---- the quick scan's verdict, against the scan it replaced --------------------------- */

static void m_random(const char *text, struct sb *o, unsigned seed);

/* Every line numbered "%02d " as numberedTreeString does, whatever the tree (the mangler
   above follows the tree of a parse; this one needs none). */
static void m_numbered_all(const char *text, struct sb *o)
{
    unsigned n = 0;
    FOR_LINES(text, ls, le)
    {
        sb_printf(o, "%02u ", n++);
        sb_put(o, ls, (size_t)(le - ls));
        sb_ch(o, '\n');
    }
}

/* Each line cut to its first `width` bytes, the rest on the next lines (a fold that does not
   count columns), and no final newline. */
static void m_cut_every(const char *text, struct sb *o, size_t width)
{
    FOR_LINES(text, ls, le)
    {
        for (const char *p = ls; p < le; p += width) {
            size_t k = (size_t)(le - p) < width ? (size_t)(le - p) : width;
            sb_put(o, p, k);
            if (p + k < le)
                sb_ch(o, '\n');
        }
        sb_ch(o, '\n');
    }
    if (o->n)
        o->p[--o->n] = '\0';
}

/* The share of the quick scan only the thread that starts it can take (the loader moves a
   tree's cut by it, load.c): the whole text when it has no blank line, as a simple plan's
   tree has none; else the lines up to the first blank line after the piece size. */
START_TEST(the_quick_scans_first_piece_is_a_tree_whole_and_ends_after_a_blank_line)
{
    size_t n = 200000, at = 0;
    char *t = malloc(n);
    ck_assert_ptr_nonnull(t);
    /* Bound: one tree line a round. */
    for (size_t i = 0; at + 64 < n; i++)
        at += (size_t)sprintf(t + at, "%*s+- Project [a#%zu]\n", (int)(3 * (i % 9)), "", i);
    struct clean_quick_parts *qp = clean_quick_parts_new(t, at, 4096);
    ck_assert_ptr_nonnull(qp);
    ck_assert_uint_eq(clean_quick_parts_first_len(qp), at);
    clean_quick_parts_free(qp);
    /* A blank line 10,000 bytes in: the first piece ends right after it. */
    size_t blank = 10000;
    while (t[blank - 1] != '\n')
        blank++;
    t[blank] = '\n';
    qp = clean_quick_parts_new(t, at, 4096);
    ck_assert_ptr_nonnull(qp);
    ck_assert_uint_eq(clean_quick_parts_first_len(qp), blank + 1);
    clean_quick_parts_free(qp);
    qp = clean_quick_parts_new(t, 0, 4096);
    ck_assert_ptr_nonnull(qp);
    ck_assert_uint_eq(clean_quick_parts_first_len(qp), 0);
    clean_quick_parts_free(qp);
    free(t);
}
END_TEST

/* Both scans of bytes copied to a block of exactly their size (so that the sanitizer pass
   sees any read past the end); false, and the case named on stderr, when they differ. */
static bool same_quick_verdict(const char *text, size_t len, const char *what, const char *how)
{
    char *copy = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, text, len);
    bool got = clean_quick_scan(copy, len), want = clean_quick_scan_ref(copy, len);
    /* In pieces, as the loader's two threads scan a big input: one after every blank line
       it may start after, and one at most every 61 bytes. */
    bool every = clean_quick_scan_pieces(copy, len, 1);
    bool some = clean_quick_scan_pieces(copy, len, 61);
    free(copy);
    if (got != want)
        fprintf(stderr, "quick scan: %s, %s: %s where the reference says %s\n", what, how,
                got ? "dirty" : "clean", want ? "dirty" : "clean");
    if (every != got || some != got)
        fprintf(stderr, "quick scan: %s, %s: %s in pieces (%s in bigger ones) where the whole "
                "scan says %s\n", what, how, every ? "dirty" : "clean", some ? "dirty" : "clean",
                got ? "dirty" : "clean");
    return got == want && every == got && some == got;
}

/* One file and the ways it may come: as it is, cut short, mangled by each mangler that needs
   no parse, mangled at random, with every line numbered, cut at widths around the vector
   blocks; counts the cases and the verdicts that differ. */
static void compare_quick_verdicts(const char *text, size_t len, const char *what, size_t *tried,
                                   size_t *differ)
{
    size_t nm = sizeof MANGLERS / sizeof MANGLERS[0];
    *tried += 1;
    *differ += !same_quick_verdict(text, len, what, "as it is");
    /* Cut short (inside a line, inside a 16- and a 64-byte block). */
    static const size_t cuts[] = {1, 7, 15, 16, 17, 63, 64, 65, 200};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++)
        if (cuts[c] < len) {
            *tried += 1;
            *differ += !same_quick_verdict(text, len - cuts[c], what, "cut short");
        }
    if (strlen(text) != len)
        return; /* a NUL inside: the manglers read up to it */
    for (size_t m = 0; m < nm + 9; m++) {
        if (m < nm && MANGLERS[m].fn == m_numbered)
            continue; /* it follows a parse: m_numbered_all below numbers every line */
        struct sb o = {0};
        sb_str(&o, "");
        const char *how;
        if (m < nm) {
            MANGLERS[m].fn(text, &o);
            how = MANGLERS[m].name;
        } else if (m == nm) {
            m_numbered_all(text, &o);
            how = "every line numbered";
        } else if (m <= nm + 4) {
            m_random(text, &o, (unsigned)(m * 7919 + len));
            how = "mangled at random";
        } else {
            static const size_t widths[] = {15, 16, 40, 64}; /* m = nm + 5 ... nm + 8 */
            m_cut_every(text, &o, widths[m - nm - 5]);
            how = "cut at a width";
        }
        *tried += 1;
        *differ += !same_quick_verdict(o.p, o.n, what, how);
        free(o.p);
    }
}

/* Shapes the scan may take apart: lines about the size of a vector block, blank lines of
   blanks, a tree line cut inside its prefix or its marker, digits and a '(' at column 0,
   bytes above 0x7F, a backslash and a quote, a header after a root. */
static const char *const QUICK_SHAPES[] = {
    "",
    "\n",
    "\n\n\n",
    "   \n\t\n",
    "== Physical Plan ==\n* Project (2)\n+- * Filter (1)\n\n(1) Filter\nInput [1]: [a#1]\n",
    "(1) Scan parquet \n(2) Filter",
    "+- * Filter (1)\n   +- Scan (2)\n      +-",
    ":  +- A\n:  :  +- B\n:  :- C\n:+- D\n: : +- E\n",
    "   :  +- * Project (11)\n   :     +- * Filter (10)\n   +- Exchange (12)\n",
    "Output [2]: [a#1, b#2]\nInput [4]: [a#1, b#2, c#3, d#4]\nKeys: []\nJoin type: Inner\n",
    "Output [2]: [a#1, b#2] \nCondition : x\nArguments: 1\nOutput : x\nOutput [x]: y\n",
    "0123456789012345678901234567890123456789012345678901234567890123\n12 x\n13 y\n",
    "Project [\xc3\xa9t\xc3\xa9#1]\n+- Filter (caf\xc3\xa9 = 'x')\n",
    "Filter (a = 'x\\ny')\n+- Scan \"q\\n\"\n",
    "Project [a]\n   +- Scan\n== Optimized Logical Plan ==\nProject\n",
    "  == Physical Plan ==\n  Project\n",
    "<div>\n# MAGIC %sql\n/**\n * x\n */\n-- x\n-- y\n> a\n> b\n// c\n// d\n",
    "+------+\n|  a   |\n+------+\n",
    "\t+- X\n",
    /* A short field line where a cut header, a cut schema line or a root may end: its kind
       (a field or not) decides. */
    "== Subtree 1 / 2 (maxMethodCodeSize:324\nKeys: x ==\nKeys: y\n",
    "== Analyzed Logical Plan ==\na: int,\nKeys: b\nProject [a]\n",
    "-- !query analysis\nKeys: x\nOutput [1]: [a#1]\n",
    "Output [2]: [a#1, b#2, c#3, d#4, e#5, f#6, g#7]\nKeys: x\nInput: y\n",
    "+- Project [a#1, b#2]\nKeys: x\nInput: y\n",
};

/* Shapes at the edges of the scan's rounds: tree prefixes told 48 bytes (16 units) a round,
   a field's key 16 bytes after its capital, a details header's number 16 digits a compare,
   line ends 64 bytes a block.  Each is built for every depth or length around an edge, with
   a ':' on and off a unit's first byte, a tab, a byte above 0x7F or a CR in the prefix, and
   lines that end at the text's end (nothing past them to read). */
static void quick_edge_shapes(struct sb *o, unsigned variant)
{
    static const char *const bad[] = {"\t", "\xc3\xa9", "\r", "-", "+", "=", "|"};
    for (unsigned units = 0; units <= 40; units++) {
        /* A prefix of `units` units, the bars on every (variant + 1)-th. */
        for (unsigned u = 0; u < units; u++)
            sb_str(o, (u + variant) % (variant % 4 + 2) ? "   " : ":  ");
        sb_str(o, units % 3 ? ":- " : "+- ");
        sb_printf(o, "%s Project [a#%u]\n", units % 5 ? "*" : "== Final Plan ==", units);
        /* The same prefix with one byte out of its place: a ':' off a unit's start, or a byte
           no prefix holds, at each offset of the first rounds. */
        unsigned at = (units * 7 + variant) % (3 * units + 3);
        struct sb line = {0};
        sb_str(&line, "");
        for (unsigned u = 0; u < units; u++)
            sb_str(&line, u % 2 ? ":  " : "   ");
        sb_str(&line, "+- Filter x\n");
        if (at < line.n - 1) {
            const char *b = variant % 8 == 7 ? ":" : bad[(units + variant) % 7];
            sb_put(o, line.p, at);
            sb_str(o, b);
            sb_str(o, line.p + at + (strlen(b) == 1 && variant % 2 ? 1 : 0));
        }
        free(line.p);
    }
    /* Fields and other lines at column 0 whose key ends around the 16-byte round. */
    for (unsigned k = 1; k <= 24; k++) {
        sb_ch(o, "OIKRAP"[k % 6]);
        for (unsigned i = 1; i < k; i++)
            sb_ch(o, (i == k / 2 && variant % 3 == 1) ? ' ' : (char)('a' + (i + variant) % 26));
        static const char *const tails[] = {" [3]: [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8]",
                                             ": x", " : (a#1 > 0)", " [12]:", ":", " [x]: y",
                                             " : ", "  : y", " [", "[1]: q", " :x", " 1: z"};
        sb_str(o, tails[(k + variant) % 12]);
        sb_ch(o, '\n');
    }
    /* Details headers with numbers around 16 digits. */
    for (unsigned d = 1; d <= 20; d++) {
        sb_ch(o, '(');
        for (unsigned i = 0; i < d; i++)
            sb_ch(o, (char)('0' + (i * 3 + variant) % 10));
        sb_str(o, (d + variant) % 4 == 0 ? ")" : (d + variant) % 4 == 1 ? ") Sort" : (d + variant) % 4 == 2 ? ")x" : "] Y");
        sb_ch(o, '\n');
    }
    /* Lines of 62 to 66 bytes: their ends at and around a block's end. */
    for (unsigned w = 62; w <= 66; w++) {
        sb_str(o, "   +- ");
        for (unsigned i = 6; i < w; i++)
            sb_ch(o, (char)('a' + i % 26));
        sb_ch(o, '\n');
    }
    sb_str(o, "\n");
}

/* A line that runs over many of the scan's 64-byte blocks, after a first line of pre bytes:
   len bytes of letters and blanks with, at escape_at, one of the escape shapes (a backslash
   before an 'n', before another byte, doubled before an 'n', or last in the line), a quote
   at quote_at, a '\r' at cr_at and a byte above 0x7F at high_at (each left out when
   negative); then a tree line, or (tail false) the text's end. */
static void long_line_shape(struct sb *o, size_t pre, size_t len, long escape_at, int escape,
                            long quote_at, long cr_at, long high_at, bool tail)
{
    static const char *const escapes[] = {"\\n", "\\x", "\\\\n", "\\"};
    for (size_t i = 0; i < pre; i++)
        sb_ch(o, i + 1 == pre ? '\n' : (char)('a' + i % 26));
    size_t from = o->n;
    for (size_t i = 0; i < len; i++)
        sb_ch(o, i % 9 == 8 ? ' ' : (char)('a' + (i * 7) % 26));
    char *line = o->p + from;
    if (high_at >= 0 && (size_t)high_at < len)
        line[high_at] = (char)0xC3;
    if (cr_at >= 0 && (size_t)cr_at < len)
        line[cr_at] = '\r';
    if (quote_at >= 0 && (size_t)quote_at < len)
        line[quote_at] = quote_at % 2 ? '"' : '\'';
    if (escape_at >= 0) {
        const char *e = escapes[escape];
        size_t k = strlen(e), at = escape == 3 ? len - 1 : (size_t)escape_at;
        if (at + k <= len)
            memcpy(line + at, e, k);
    }
    if (tail)
        sb_str(o, "\n+- Project [a#1]\n");
}

START_TEST(quick_scan_judges_a_long_line_as_it_always_did)
{
    /* The scan answers for a line that runs over many blocks as soon as it meets a '\r', or
       an escaped newline after a quote, without looking for the line's end: the verdict is
       the reference's wherever those bytes are (at each offset around the blocks' edges,
       the quote before the escape, right after it, at the line's end or nowhere), and for
       the escapes that are none. */
    static const size_t pres[] = {0, 1, 30, 63, 64, 65};
    static const size_t lens[] = {66, 129, 400};
    size_t tried = 0, differ = 0;
    for (size_t pi = 0; pi < sizeof pres / sizeof pres[0]; pi++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            long len = (long)lens[li];
            for (long e = -1; e < len - 1; e += e < 140 ? 1 : 37)
                for (int kind = 0; kind < 4; kind++) {
                    if (kind && e < 0)
                        continue;
                    const long quotes[] = {-1, 0, e - 1, e + 2, e + 70, len - 1};
                    for (size_t q = 0; q < sizeof quotes / sizeof quotes[0]; q++)
                        for (int extra = 0; extra < 4; extra++) {
                            struct sb o = {0};
                            sb_str(&o, "");
                            long cr = extra == 1 ? len / 2 : extra == 3 ? e + 1 : -1;
                            long high = extra == 2 ? e + 3 : extra == 3 ? 10 : -1;
                            long_line_shape(&o, pres[pi], (size_t)len, e, kind, quotes[q], cr,
                                            high, (e + q + (long)extra) % 2 == 0);
                            tried++;
                            differ += !same_quick_verdict(o.p, o.n, "a long line", "as it is");
                            free(o.p);
                        }
                }
        }
    fprintf(stderr, "quick scan: %zu long lines, %zu verdicts differ\n", tried, differ);
    ck_assert_msg(differ == 0, "%zu of %zu long lines get another verdict from the quick scan",
                  differ, tried);
}
END_TEST

/* The bytes of an event log's line, written into the first page of a mapping whose next
   pages may not be read: the plan string's opening quote and first escaped newline come
   early, and the line goes on past the page. */
static char *unreadable_after_first_page(size_t *map_len, size_t *page)
{
    long ps = sysconf(_SC_PAGESIZE);
    ck_assert_int_gt(ps, 0);
    *page = (size_t)ps;
    *map_len = 4 * (size_t)ps;
    int fd = open("/dev/zero", O_RDONLY);
    ck_assert_int_ge(fd, 0);
    char *m = mmap(NULL, *map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    close(fd);
    ck_assert_ptr_ne(m, MAP_FAILED);
    ck_assert_int_eq(mprotect(m + *page, *map_len - *page, PROT_NONE), 0);
    for (size_t i = 0; i < *page; i++)
        m[i] = (char)('a' + i % 26);
    return m;
}

START_TEST(quick_scan_answers_a_long_line_at_its_escape)
{
    /* An event log's record is one line of 100 MB: the scan says it needs decoding at the
       plan string's first escaped newline, where it used to find the line's end first (21 ms
       of reading).  Here the rest of the line cannot be read at all. */
    size_t len, page;
    char *m = unreadable_after_first_page(&len, &page);
    static const char head[] = "{\"Event\":\"org.apache.spark.sql.execution.ui."
                               "SparkListenerSQLExecutionStart\",\"executionId\":0,"
                               "\"physicalPlanDescription\":\"== Physical Plan ==\\n* Project (2)"
                               "\\n+- Scan parquet (1)\\n\\n\\n(1) Scan parquet ";
    memcpy(m, head, sizeof head - 1);
    ck_assert(clean_quick_scan(m, len));
    /* The same with the quote and the escape in the first block, and at the edge of the
       third (the backslash its last byte, the 'n' the next block's first). */
    memcpy(m, "\"\\n", 3);
    ck_assert(clean_quick_scan(m, len));
    for (size_t i = 0; i < sizeof head; i++)
        m[i] = 'x';
    m[100] = '\'';
    m[191] = '\\';
    m[192] = 'n';
    ck_assert(clean_quick_scan(m, len));
    /* A '\r' in a long line: CRLF work for the clean-up, whatever follows. */
    m[191] = '\r';
    ck_assert(clean_quick_scan(m, len));
    ck_assert_int_eq(munmap(m, len), 0);
}
END_TEST

/* Lines that decide the verdict across a blank line, where the loader's two threads may
   split the scan: the widest lines and their copies (a terminal's cuts count only at the
   widest width, a copy of the first only as a plan line), fields ending in blanks (counted
   over the whole text), a doc comment opened before a blank line, headers and a schema
   line before one, tree lines. */
static const char *const PIECE_LINES[] = {
    "",
    "",
    "",
    "Output [2]: [a#1, b#2] ",
    "Output [2]: [a#1, b#2]",
    "Project [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8, i#9, j#10]",
    "Project [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8, i#9, j#11]",
    "Project [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8, i#9, j#10, k#11]",
    "rest of it",
    "x",
    "/**",
    " * a doc line",
    "* a doc line at column 0",
    "== Physical Plan ==",
    "== Analyzed Logical Plan ==",
    "a: int,",
    "-- !query analysis",
    "+- Filter (a#1 > 0)",
    "   +- Scan parquet t[a#1,b#2,c#3,d#4,e#5,f#6,g#7,h#8,i#9,j#10,k#11]",
    "spark_catalog.default.a_table_with_a_name_too_long_to_fit[a#1]",
    "(1) Scan parquet spark_catalog.default.t_with_a_long_name_here",
};

START_TEST(quick_scan_in_pieces_gives_the_whole_verdict)
{
    size_t nl = sizeof PIECE_LINES / sizeof PIECE_LINES[0], tried = 0, differ = 0, dirty = 0;
    unsigned seed = 17;
    for (int round = 0; round < 20000; round++) {
        struct sb o = {0};
        sb_str(&o, "");
        int lines = 3 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 14;
        for (int k = 0; k < lines; k++) {
            seed = seed * 1103515245u + 12345u;
            sb_str(&o, PIECE_LINES[(seed >> 16) % nl]);
            sb_ch(&o, '\n');
        }
        bool whole = clean_quick_scan(o.p, o.n);
        dirty += whole;
        for (size_t piece = 1; piece <= 64; piece *= 4) {
            tried++;
            bool got = clean_quick_scan_pieces(o.p, o.n, piece);
            if (got != whole) {
                if (differ < 5)
                    fprintf(stderr, "quick scan in pieces of %zu: %s where the whole scan says "
                            "%s:\n%s---\n", piece, got ? "dirty" : "clean",
                            whole ? "dirty" : "clean", o.p);
                differ++;
            }
        }
        free(o.p);
    }
    fprintf(stderr, "quick scan in pieces: %zu scans (%zu of the texts dirty), %zu differ\n",
            tried, dirty, differ);
    ck_assert_msg(differ == 0, "%zu of %zu scans in pieces differ from the whole scan", differ,
                  tried);
}
END_TEST

/* The cleaned text, its line numbers and notes of text (clean-up alone, every step run),
 * as one string; halves: SPARKPLAN_CLEAN_HALVES_MIN=1, the split, the indentation step,
 * the wrap step's facts, evidence and joins and the tree step's search for blocks then made
 * in two halves on two threads, as for a big paste. */
static char *cleaned_in(const char *text, size_t len, bool halves)
{
    char *copy = malloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    struct document *doc = document_new("test", copy, len);
    ck_assert_ptr_nonnull(doc);
    struct diag err = {0};
    if (halves)
        setenv("SPARKPLAN_CLEAN_HALVES_MIN", "1", 1);
    else
        unsetenv("SPARKPLAN_CLEAN_HALVES_MIN");
    ck_assert_int_eq(clean_document_full(doc, &err), SP_OK);
    unsetenv("SPARKPLAN_CLEAN_HALVES_MIN");
    struct sb o = {0};
    sb_str(&o, "");
    for (size_t i = 0; i < doc->src.text_len; i++)
        sb_ch(&o, doc->src.text[i]);
    sb_str(&o, "\n--- lines:");
    char num[32];
    for (uint32_t t = 1; t <= doc->src.n_text_lines; t++) {
        snprintf(num, sizeof num, " %u", source_input_line(&doc->src, t));
        sb_str(&o, num);
    }
    sb_str(&o, "\n--- notes:\n");
    for (unsigned k = 0; k < doc->src.n_notes; k++) {
        snprintf(num, sizeof num, "%u: ", doc->src.notes[k].line);
        sb_str(&o, num);
        sb_str(&o, doc->src.notes[k].message);
        sb_ch(&o, '\n');
    }
    document_free(doc);
    return o.p;
}

/* Lines for the halves: the quick scan's pieces (wrap evidence of every kind), what the
 * split and the steps before the wrap step look at (CRs, tabs, escapes, bytes above 0x7F,
 * prefixes, numbers, a table) and tree lines at column 0 (lost indentation, rebuilt by the
 * tree step). */
static const char *const HALVES_EXTRA[] = {
    "line ending in a CR\r",
    "\t+- Project [a#1]",
    "  +- Filter (b#2 = caf\xc3\xa9)",
    "\"== Physical Plan ==\\n*(1) Project [a#1]\\n+- Scan t[a#1]\\n\"",
    "# +- Filter (a#1 > 0)",
    "00 == Physical Plan ==",
    "01 +- Project [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8, i#9, j#10, k#11, l#12]",
    "+---+---+",
    "|  a|  b|",
    "    LocalTableScan [a#1, b#2]   ",
    ":- Project [a#1]",
    "+- *(1) HashAggregate(keys=[k#33], functions=[sum(v#34)])",
    /* Indented blocks (the indentation step's runs, cut in halves between two). */
    "  == Physical Plan ==",
    "    Filter (a#1 > 0)",
    "    +- Scan parquet t[a#1]",
};

START_TEST(clean_up_in_halves_gives_the_one_thread_text)
{
    size_t np = sizeof PIECE_LINES / sizeof PIECE_LINES[0];
    size_t ne = sizeof HALVES_EXTRA / sizeof HALVES_EXTRA[0];
    size_t tried = 0, differ = 0, changed = 0;
    unsigned seed = 1717;
    for (int round = 0; round < 6000; round++) {
        struct sb o = {0};
        sb_str(&o, "");
        int lines = 2 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 24;
        for (int k = 0; k < lines; k++) {
            seed = seed * 1103515245u + 12345u;
            unsigned pick = (seed >> 16) % (unsigned)(np + ne);
            sb_str(&o, pick < np ? PIECE_LINES[pick] : HALVES_EXTRA[pick - np]);
            /* The last line without its '\n' now and then. */
            if (k + 1 < lines || (seed >> 8) % 4)
                sb_ch(&o, '\n');
        }
        char *one = cleaned_in(o.p, o.n, false), *two = cleaned_in(o.p, o.n, true);
        tried++;
        changed += strncmp(one, o.p, o.n) != 0;
        if (strcmp(one, two) != 0) {
            if (differ < 3) {
                char where[400];
                first_difference(one, two, where, sizeof where);
                fprintf(stderr, "clean-up in halves differs (%s) for:\n%s---\n", where, o.p);
            }
            differ++;
        }
        free(one);
        free(two);
        free(o.p);
    }
    fprintf(stderr, "clean-up in halves: %zu texts (%zu of them changed), %zu differ\n", tried,
            changed, differ);
    ck_assert_msg(changed > tried / 4, "only %zu of %zu texts are cleaned", changed, tried);
    ck_assert_msg(differ == 0, "%zu of %zu texts clean up otherwise in halves", differ, tried);
}
END_TEST

/* The split's second half writes its lines straight after the first half's when the first
   half's array has room for both (a few hundred lines in a small text, a line every 48 bytes
   in a big one), and into an array of its own otherwise: a paste of 40 to 1,500 short lines
   (a tree pasted with its wrapped lines, a show() table) comes out the same either way as
   on one thread, line numbers and notes included. */
START_TEST(a_split_with_more_lines_than_room_cleans_up_as_on_one_thread)
{
    size_t np = sizeof PIECE_LINES / sizeof PIECE_LINES[0];
    unsigned seed = 4242;
    size_t differ = 0;
    for (int round = 0; round < 40; round++) {
        struct sb o = {0};
        sb_str(&o, "");
        int lines = 40 + round * 37;
        for (int k = 0; k < lines; k++) {
            seed = seed * 1103515245u + 12345u;
            sb_str(&o, PIECE_LINES[(seed >> 16) % (unsigned)np]);
            sb_ch(&o, '\n');
        }
        char *one = cleaned_in(o.p, o.n, false), *two = cleaned_in(o.p, o.n, true);
        if (strcmp(one, two) != 0) {
            char where[400];
            first_difference(one, two, where, sizeof where);
            fprintf(stderr, "%d lines split in halves differ (%s)\n", lines, where);
            differ++;
        }
        free(one);
        free(two);
        free(o.p);
    }
    ck_assert_msg(differ == 0, "%zu of 40 texts clean up otherwise in halves", differ);
}
END_TEST

START_TEST(quick_scan_gives_the_verdict_it_always_gave)
{
    size_t tried = 0, differ = 0;
    for (size_t i = 0; i < sizeof QUICK_SHAPES / sizeof QUICK_SHAPES[0]; i++) {
        const char *t = QUICK_SHAPES[i];
        compare_quick_verdicts(t, strlen(t), "a shape", &tried, &differ);
        /* Every start: each line of it the first, the vector blocks at every alignment. */
        for (size_t k = 1; k < strlen(t); k++) {
            tried++;
            differ += !same_quick_verdict(t + k, strlen(t) - k, t, "from an offset");
        }
    }
    for (unsigned v = 0; v < 16; v++) {
        struct sb o = {0};
        sb_str(&o, v % 2 ? "== Physical Plan ==\n" : "");
        quick_edge_shapes(&o, v);
        compare_quick_verdicts(o.p, o.n, "an edge shape", &tried, &differ);
        /* Every start within the first blocks, and every end within the last. */
        for (size_t k = 1; k < 200 && k < o.n; k++) {
            tried += 2;
            differ += !same_quick_verdict(o.p + k, o.n - k, "an edge shape", "from an offset");
            differ += !same_quick_verdict(o.p, o.n - k, "an edge shape", "cut short");
        }
        /* Each line alone, and each pair and three lines in a row: one line that the scan
           takes for another shape changes the verdict of a short input, where a long one
           may be dirty for a line elsewhere. */
        const char *ls[3] = {o.p, o.p, o.p};
        for (const char *q = o.p; q < o.p + o.n;) {
            const char *e = memchr(q, '\n', (size_t)(o.p + o.n - q));
            e = e ? e + 1 : o.p + o.n;
            ls[0] = ls[1];
            ls[1] = ls[2];
            ls[2] = q;
            for (int w = 0; w < 3; w++) {
                tried++;
                differ += !same_quick_verdict(ls[w], (size_t)(e - ls[w]), "an edge shape",
                                              "a line or a few");
                /* Without its final '\n': nothing past the line to read. */
                tried++;
                differ += !same_quick_verdict(ls[w], (size_t)(e - ls[w]) - (e[-1] == '\n'),
                                              "an edge shape", "lines at the end");
            }
            q = e;
        }
        free(o.p);
    }
    /* A field's kind (K_FIELD or not) counts after a wide line: two lines at column 0 that
       are no fields after two wide ones are a word wrap, two fields are not.  Keys of every
       length around the 16-byte round, ended each way a key ends or does not. */
    static const char *const key_ends[] = {" [1]: [x#1]", ": x#1", " : (x#1 > 0)", " [1]:",
                                           " [1] : x", " [x]: x", "[1]: x", " x: y", ":x",
                                           " :", " [12345678901234567890]: x", "  : x"};
    for (unsigned k = 1; k <= 40; k++)
        for (size_t e = 0; e < sizeof key_ends / sizeof key_ends[0]; e++) {
            struct sb o = {0};
            sb_str(&o, "(1) Project\nOutput [9]: [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8, i#9]\n");
            for (int twice = 0; twice < 2; twice++) {
                if (twice)
                    sb_str(&o, "Input [7]: [a#1, b#2, c#3, d#4, e#5, f#6, g#7]\n");
                sb_ch(&o, "KOIRA"[(k + e) % 5]);
                for (unsigned i = 1; i < k; i++)
                    sb_ch(&o, i % 9 == 8 && e % 2 ? ' ' : i % 7 == 6 ? '_' : (char)('a' + i % 26));
                sb_str(&o, key_ends[e]);
                sb_ch(&o, '\n');
            }
            tried += 2;
            differ += !same_quick_verdict(o.p, o.n, "a field after a wide line", "as it is");
            differ += !same_quick_verdict(o.p, o.n - 1, "a field after a wide line", "at the end");
            free(o.p);
        }
    /* A details header's kind counts the same way: a wide "(N) Name" line, then a line at
       column 0 that starts nothing, twice, is a word wrap; a wide line of another kind is
       not.  Numbers of every length around the 16-digit compare, closed each way a header
       is closed or is not. */
    static const char *const number_ends[] = {") Scan parquet spark_catalog.tpcds.store_sales_",
                                              ")Scan parquet spark_catalog.tpcds.store_sales_x",
                                              "] Scan parquet spark_catalog.tpcds.store_sales_",
                                              ") ", ")"};
    for (unsigned d = 0; d <= 22; d++)
        for (size_t e = 0; e < sizeof number_ends / sizeof number_ends[0]; e++) {
            struct sb o = {0};
            sb_str(&o, "");
            for (int twice = 0; twice < 2; twice++) {
                sb_ch(&o, '(');
                for (unsigned i = 0; i < d; i++)
                    sb_ch(&o, (char)('1' + (i + e + (unsigned)twice) % 9));
                sb_str(&o, number_ends[e]);
                sb_str(&o, twice ? "\n" : "returns\n"); /* the first the widest */
                sb_str(&o, "[ss_item_sk#1] rest\n");
            }
            tried += 2;
            differ += !same_quick_verdict(o.p, o.n, "a details header", "as it is");
            differ += !same_quick_verdict(o.p, o.n - 1, "a details header", "at the end");
            free(o.p);
        }
    /* A field's kind counts before a line too: "(N) Name", a field line as wide as
       WRAP_MIN_WIDTH or wider, then a line at column 0 that starts nothing, twice (the second
       pair narrower, so that only the word wrap can tell), is a word wrap after a field (a
       word head) and nothing after another line.  The scan tells such a field only when the
       next line reads it (qs_settle_field, clean.c). */
    for (unsigned k = 1; k <= 24; k++)
        for (size_t e = 0; e < sizeof key_ends / sizeof key_ends[0]; e++)
            for (unsigned rest = 0; rest < 3; rest++) {
                struct sb o = {0};
                for (int twice = 0; twice < 2; twice++) {
                    sb_str(&o, "(12) Project [codegen id : 3]\n");
                    sb_ch(&o, "OIAKR"[(k + e) % 5]);
                    for (unsigned i = 1; i < k; i++)
                        sb_ch(&o, (char)('a' + i % 26));
                    sb_str(&o, key_ends[e]);
                    sb_str(&o, twice ? " [a#1, b#2, c#3, d#4, e#5]"
                                     : " [a#1, b#2, c#3, d#4, e#5, f#6, g#7]");
                    sb_str(&o, rest == 0 ? "\nh#8, i#9]\n" : rest == 1 ? "\n  h#8, i#9]\n" : "\n\n");
                }
                tried += 2;
                differ += !same_quick_verdict(o.p, o.n, "a field before a line", "as it is");
                differ += !same_quick_verdict(o.p, o.n - 1, "a field before a line", "at the end");
                free(o.p);
            }
    const char *dir = tu_corpus_dir();
    if (dir) {
        char notebooks[600];
        snprintf(notebooks, sizeof notebooks, "%s-notebooks", dir);
        const char *dirs[] = {dir, notebooks};
        for (size_t d = 0; d < 2; d++) {
            char cmd[800];
            snprintf(cmd, sizeof cmd, "cd '%s' 2>/dev/null && find . -type f | sort", dirs[d]);
            char *list = tu_run(cmd, NULL);
            for (char *p = list ? strtok(list, "\n") : NULL; p; p = strtok(NULL, "\n")) {
                size_t len;
                char *text = corpus_read(dirs[d], p, &len);
                if (!text)
                    continue;
                compare_quick_verdicts(text, len, p, &tried, &differ);
                free(text);
            }
            free(list);
        }
    }
    fprintf(stderr, "quick scan: %zu inputs, %zu verdicts differ\n", tried, differ);
    ck_assert_msg(differ == 0, "%zu of %zu inputs get another verdict from the quick scan", differ,
                  tried);
}
END_TEST

/* The parse of bytes exactly as they are, without clean-up. */
static char *raw_signature(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    struct document *doc = document_new("raw", copy, len);
    struct diag err = {0};
    char *sig;
    if (parse_document(doc, &err) == SP_OK && document_finish(doc))
        sig = tree_signature(doc);
    else
        sig = strdup("(no plan)");
    document_free(doc);
    return sig;
}

/* The corpus's pastes: clean-up must rewrite them (all but the one the parser reads as it
   is); the hand-wrapped .wrapped.txt file keeps its tree, only a node's text is joined. */
static const char *const corpus_pastes[] = {
    "web/delta-internals-zorder-numberedTreeString.txt",
    "web/jaceklaskowski-msql-explain-extended-showtables.table.txt",
    "web/spark-docs-explain-default-table.txt",
    "web/spark-docs-explain-extended-table.txt",
    "web/spark-docs-explain-formatted-table.txt",
};
static const char *const corpus_hand_wrapped = "web/spark-docs-hints-extended.wrapped.txt";

struct tree_counts {
    size_t files, differ;
};

/* One corpus file: the same tree with and without clean-up, and Spark's own output read as
   it is. */
static void same_tree_either_way(void *ctx, const char *listed, size_t f, const char *text,
                                 size_t len)
{
    (void)f;
    struct tree_counts *tc = ctx;
    const char *name = listed + 2;
    tc->files++;
    char *raw = raw_signature(text, len);
    enum sp_status st;
    struct document *doc = load_text(text, len, &st);
    char *got = doc ? tree_signature(doc) : strdup("(no plan)");
    bool paste = false;
    for (size_t k = 0; k < sizeof corpus_pastes / sizeof corpus_pastes[0]; k++)
        paste |= strcmp(name, corpus_pastes[k]) == 0;
    /* The parser reads this one's one-space indentation as tree markers off the grid
       (tests/check_wild.c) without clean-up too. */
    bool parser_reads_it = strcmp(name, "web/spark-docs-explain-default-table.txt") == 0;
    if (paste && !parser_reads_it) {
        ck_assert_msg(strcmp(raw, got) != 0, "%s: clean-up no longer needed?", name);
    } else if (paste) {
        ck_assert_msg(strcmp(raw, got) == 0, "%s: clean-up and parser disagree", name);
    } else if (strcmp(raw, got) != 0) {
        char why[400];
        first_difference(raw, got, why, sizeof why);
        fprintf(stderr, "clean: %s changed by clean-up: %s\n", name, why);
        tc->differ++;
    } else if (doc && doc->src.text != doc->src.bytes && strcmp(name, corpus_hand_wrapped) != 0) {
        /* Not even the text of a node: Spark's output is read as it is. */
        fprintf(stderr, "clean: %s rewritten by clean-up\n", name);
        tc->differ++;
    }
    free(raw);
    free(got);
    document_free(doc);
}

START_TEST(spark_output_gives_the_same_tree_with_and_without_clean_up)
{
    /* Every corpus file: clean-up rewrites only the pastes that need it. */
    const char *dir = tu_corpus_dir();
    if (!dir)
        return;
    struct tree_counts tc = {0};
    each_corpus_text(dir, same_tree_either_way, &tc);
    ck_assert_uint_gt(tc.files, 1000);
    ck_assert_msg(tc.differ == 0, "clean-up changed %zu Spark outputs", tc.differ);
}
END_TEST

/* ---- the shortcut for decoded strings: the same bytes as every step --------------------- */

/* Cleans a copy of text[0..n) with every step, or with the shortcut allowed; the text, its
   line map, its depths and its notes in one string (fails the test on error). */
static char *cleaned_with(const char *text, size_t n, bool shortcut, bool *taken)
{
    char *copy = malloc(n + 1);
    memcpy(copy, text, n);
    copy[n] = '\0';
    struct document *doc = document_new("t", copy, n);
    ck_assert_ptr_nonnull(doc);
    struct diag err = {0};
    ck_assert_int_eq(clean_document_steps(doc, &err, shortcut, taken), SP_OK);
    const struct source *src = &doc->src;
    struct sb o = {0};
    sb_str(&o, "");
    sb_put(&o, src->text, src->text_len);
    sb_printf(&o, "\n-- %zu bytes, %u lines, map:", src->text_len, src->n_text_lines);
    for (uint32_t i = 1; (src->line_map || src->line_from) && i <= src->n_text_lines; i++)
        sb_printf(&o, " %u", source_input_line(src, i));
    sb_str(&o, src->line_depth ? "\n-- depths:" : "\n-- no depths");
    for (uint32_t i = 1; src->line_depth && i <= src->n_text_lines; i++)
        sb_printf(&o, " %u", src->line_depth[i]);
    for (unsigned k = 0; k < src->n_notes; k++)
        sb_printf(&o, "\n-- note %u: %s", src->notes[k].line, src->notes[k].message);
    document_free(doc);
    return o.p;
}

/* Lines changed at random (seeded): trailing blanks, blank lines of blanks, a tab before a
   line, a carriage return, a lone border or comment line: what makes the trailing step and
   the quick scan decide differently. */
static void m_random(const char *text, struct sb *o, unsigned seed)
{
    unsigned r = seed * 2654435761u + 1;
    FOR_LINES(text, ls, le)
    {
        r = r * 1103515245u + 12345u;
        unsigned k = (r >> 16) % 256;
        if (k < 2)
            sb_str(o, "\t");
        sb_put(o, ls, (size_t)(le - ls));
        if (k >= 2 && k < 24)
            sb_str(o, k % 2 ? " " : "  \t");
        else if (k == 24)
            sb_str(o, "\r");
        else if (k == 25)
            sb_str(o, "\n   \t ");
        else if (k == 26)
            sb_str(o, "\n+------+");
        else if (k == 27)
            sb_str(o, "\n-- x\n-- y");
        sb_ch(o, '\n');
    }
}

/* What a decoded plan was wrapped in: an event log's line, a Row repr after a prompt line,
   a notebook's output array (one string a line, the notebook's own lines around them). */
static void wrap_in_string(const char *text, struct sb *o, unsigned how)
{
    if (how % 3 == 0)
        m_json(text, o);
    else if (how % 3 == 1)
        m_row_repr(text, o);
    else
        m_notebook(text, o);
    if (how % 2)
        sb_str(o, "what it printed   \n");
}

/* Variant v (0-3) of the f-th corpus file's text, as the corpus loops below try them: 0 as
   Spark printed it, 1 and 2 mangled at random (seeded by f and v), 3 by the f-th mangler
   of the corpus test above in turn.  m_numbered follows the tree of the plan as read: with
   numbered, the text is loaded for it (nothing when it does not load); without, its turn
   gives the text as printed. */
static void corpus_variant(const char *text, size_t len, size_t f, unsigned v, bool numbered,
                           struct sb *o)
{
    size_t nm = sizeof MANGLERS / sizeof MANGLERS[0];
    sb_str(o, "");
    if (v == 0) {
        sb_str(o, text);
    } else if (v < 3) {
        m_random(text, o, (unsigned)f * 4 + v);
    } else if (MANGLERS[f % nm].fn != m_numbered) {
        MANGLERS[f % nm].fn(text, o);
    } else if (!numbered) {
        sb_str(o, text);
    } else {
        enum sp_status st;
        struct document *orig = load_text(text, len, &st);
        if (orig) {
            g_orig = orig;
            m_numbered(text, o);
            document_free(orig);
            g_orig = NULL;
        }
    }
}

/* The shortcut (decoded_text_done in clean.c) must give every byte every step gives: the
   corpus plans as Spark printed them, then mangled at random and by each mangler of the
   corpus test above, each wrapped in strings. */
struct shortcut_counts {
    size_t tried, taken, as_printed, as_printed_taken;
};

/* One corpus plan in four variants, each wrapped in strings: cleaned with every step and with
   the shortcut allowed, the same bytes. */
static void shortcut_gives_every_step_s_bytes(void *ctx, const char *listed, size_t f,
                                              const char *text, size_t len)
{
    struct shortcut_counts *sc = ctx;
    for (unsigned v = 0; v < 4; v++) {
        struct sb mangled = {0}, in = {0};
        corpus_variant(text, len, f, v, true, &mangled);
        sb_str(&in, "");
        if (v == 0)
            m_json(mangled.p, &in); /* alone in an event log's line */
        else
            wrap_in_string(mangled.p, &in, (unsigned)f + v);
        bool taken = false;
        char *want = cleaned_with(in.p, in.n, false, NULL);
        char *got = cleaned_with(in.p, in.n, true, &taken);
        if (strcmp(want, got) != 0) {
            char why[400];
            first_difference(want, got, why, sizeof why);
            ck_abort_msg("%s, variant %u: the shortcut differs: %s", listed, v, why);
        }
        sc->tried++;
        sc->taken += taken;
        if (v == 0 && strstr(text, "Plan ==")) {
            sc->as_printed++;
            sc->as_printed_taken += taken;
        }
        free(want);
        free(got);
        free(mangled.p);
        free(in.p);
    }
}

START_TEST(decoded_strings_skip_steps_only_where_they_change_nothing)
{
    const char *dir = tu_corpus_dir();
    if (!dir)
        return;
    struct shortcut_counts sc = {0};
    each_corpus_text(dir, shortcut_gives_every_step_s_bytes, &sc);
    fprintf(stderr, "clean: %zu wrapped plans, %zu took the shortcut; event log lines of plans "
                    "as printed: %zu of %zu\n", sc.tried, sc.taken, sc.as_printed_taken,
            sc.as_printed);
    ck_assert_uint_gt(sc.tried, 4000);
    /* Spark's own output in an event log's line takes it: most corpus plans (not those
       with trailing blanks, nor the few the quick scan finds work in). */
    ck_assert_uint_gt(sc.as_printed_taken * 100, sc.as_printed * 80);
}
END_TEST

/* An input that is one line holding one string (an event log's line) is decoded without an
   array of its lines (c->compact, clean_literal.c); behind a UTF-8 byte-order mark the same
   line takes the way every other input takes (its line does not start the buffer), and gives
   the same text, map, depths and notes.  The corpus plans as Spark printed them and mangled
   (trailing blanks, tabs, carriage returns, numbered lines, indentation: the lines the
   steps must see), in an event log's record and as a bare string, with and without the
   line's '\n', and shapes at the edges: a '\r' before a decoded '\n' (the lines are pushed
   after all), a backslash written (another pass), text kept after the string, two strings,
   a string ending in '\n', an empty one. */
/* Variant v of corpus plan f (corpus_variant) as an event log's line: its text one JSON
   string, every other one without its line's '\n'. */
static void corpus_json_line(const char *text, size_t len, size_t f, unsigned v, struct sb *in)
{
    struct sb mangled = {0};
    corpus_variant(text, len, f, v, false, &mangled);
    in->n = 0;
    sb_str(in, "");
    m_json(mangled.p, in);
    if ((f + v) % 2 && in->n && in->p[in->n - 1] == '\n')
        in->p[--in->n] = '\0';
    free(mangled.p);
}

/* Each corpus plan in dir, four variants each, as an event log's line (corpus_json_line),
   given to fn with the plan's name and the variant. */
struct json_lines {
    void (*fn)(void *ctx, const char *name, unsigned v, const struct sb *line);
    void *ctx;
    struct sb in;
};

static void json_lines_of(void *ctx, const char *listed, size_t f, const char *text, size_t len)
{
    struct json_lines *jl = ctx;
    for (unsigned v = 0; v < 4; v++) {
        corpus_json_line(text, len, f, v, &jl->in);
        jl->fn(jl->ctx, listed, v, &jl->in);
    }
}

static void each_corpus_json_line(const char *dir,
                                  void (*fn)(void *ctx, const char *name, unsigned v,
                                             const struct sb *line),
                                  void *ctx)
{
    struct json_lines jl = {fn, ctx, {0}};
    each_corpus_text(dir, json_lines_of, &jl);
    free(jl.in.p);
}

/* The text p[0..n) cleaned with its strings decoded in one part and in two (every string
   cut, SPARKPLAN_CLEAN_HALVES_MIN=1): the same bytes, line map and notes, or the test fails
   naming what. Whether anything was decoded. */
static bool decodes_alike_in_two_parts(const char *p, size_t n, const char *what)
{
    unsetenv("SPARKPLAN_CLEAN_HALVES_MIN");
    char *want = cleaned_with(p, n, true, NULL);
    setenv("SPARKPLAN_CLEAN_HALVES_MIN", "1", 1);
    char *got = cleaned_with(p, n, true, NULL);
    unsetenv("SPARKPLAN_CLEAN_HALVES_MIN");
    if (strcmp(want, got) != 0) {
        char why[400];
        first_difference(want, got, why, sizeof why);
        ck_abort_msg("%s: %s", what, why);
    }
    bool decoded = !strstr(got, " bytes, 0 lines, map:");
    free(want);
    free(got);
    return decoded;
}

/* A corpus line decoded as it is and behind a BOM (which keeps it from the compact way),
   with and without the shortcut: the same text wherever something was decoded. */
struct marked_decode {
    struct sb bom;
    size_t tried;
};

static void decodes_alike_behind_a_mark(void *ctx, const char *name, unsigned v,
                                        const struct sb *in)
{
    struct marked_decode *md = ctx;
    md->bom.n = 0;
    sb_str(&md->bom, "\xEF\xBB\xBF");
    sb_put(&md->bom, in->p, in->n);
    for (int shortcut = 0; shortcut < 2; shortcut++) {
        char *want = cleaned_with(md->bom.p, md->bom.n, shortcut, NULL);
        char *got = cleaned_with(in->p, in->n, shortcut, NULL);
        /* Nothing decoded (no plan header, no tree marker in a lone string): the input stays
           as it is, which the mark changed (emitted, 1 line). */
        bool decoded = !strstr(got, " bytes, 0 lines, map:");
        md->tried += decoded && shortcut;
        if (decoded && strcmp(want, got) != 0) {
            char why[400];
            first_difference(want, got, why, sizeof why);
            ck_abort_msg("%s, variant %u, shortcut %d: %s", name, v, shortcut, why);
        }
        free(want);
        free(got);
    }
}

START_TEST(a_line_that_is_one_string_decodes_as_among_other_lines)
{
    static const char *const edges[] = {
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Range (1)\\n\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Range (1)\"}",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\r\\n* Range (1)\\r\\n\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Range (1)\\r\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Filter (a#1 = \\\\n)\\n+- Range (1)\\n\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Range (1)\\n\"} what it printed\n",
        "{\"a\":\"x\\ny\",\"physicalPlanDescription\":\"== Physical Plan ==\\n* Range (1)\\n\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n\\n\\n   * Range (1)\\n00 Range\\n\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Range (1)   \\n\\t+- x\\n\"}\n",
        "\"== Physical Plan ==\\n\"\n",
        "'== Physical Plan ==\\n+- Range (1)\\n'",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\u000a* Range \\u00e9 \\x41\\t(1)\\n\"}\n",
    };
    struct sb in = {0}, bom = {0};
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
        in.n = 0;
        sb_str(&in, edges[k]);
        bom.n = 0;
        sb_str(&bom, "\xEF\xBB\xBF");
        sb_put(&bom, in.p, in.n);
        for (int shortcut = 0; shortcut < 2; shortcut++) {
            char *want = cleaned_with(bom.p, bom.n, shortcut, NULL);
            char *got = cleaned_with(in.p, in.n, shortcut, NULL);
            if (strcmp(want, got) != 0) {
                char why[400];
                first_difference(want, got, why, sizeof why);
                ck_abort_msg("edge %zu, shortcut %d: %s", k, shortcut, why);
            }
            free(want);
            free(got);
        }
    }
    const char *dir = tu_corpus_dir();
    if (dir) {
        struct marked_decode md = {{0}, 0};
        each_corpus_json_line(dir, decodes_alike_behind_a_mark, &md);
        free(md.bom.p);
        fprintf(stderr, "clean: %zu one-line strings decoded (compact where they can be), the "
                        "same as behind a mark\n", md.tried);
        ck_assert_uint_gt(md.tried, 1000);
    }
    free(in.p);
    free(bom.p);
}
END_TEST

/* An event log's plan string decoded in two parts at once (from 8 MB on; here every string,
   SPARKPLAN_CLEAN_HALVES_MIN=1): cut after a "\n" escape past the middle whose line ends in
   ')' or ']', the parts' lines counted and looked at apart.  Every corpus plan as a JSON line
   (four variants each: lost indentation, trailing blanks, CRLF...) comes out byte for byte as
   decoded on one thread, its line map and notes included. */
static void decodes_alike_in_parts_counted(void *ctx, const char *name, unsigned v,
                                           const struct sb *in)
{
    char what[600];
    snprintf(what, sizeof what, "%s, variant %u", name, v);
    *(size_t *)ctx += decodes_alike_in_two_parts(in->p, in->n, what);
}

START_TEST(a_long_string_decoded_in_two_parts_gives_the_one_thread_text)
{
    static const char *const edges[] = {
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Project [a#1]\\n+- Range (1)\\n+- Range (2)\\n\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Project [a#1]\\n\\n\\n   +- Range (1)\\n00 x\\n\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Project [a#1]\\n   +- Range (1)   \\n\\u000a(2)\\n\"}",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\r\\n* Project [a#1]\\r\\n+- Filter (a#1 = \\\\n)\\r\\n\"}\n",
        "{\"physicalPlanDescription\":\"== Physical Plan ==\\n* Scan [a]\\n\\\\n]\\n(1) Range\\n\\u00e9]\\n\"}\n",
    };
    size_t tried = 0;
    struct sb in = {0};
    /* A string whose escaped quotes (after one backslash, after three, a backslash pair
       before a quote that closes it) sit anywhere around its middle, where its end is looked
       for from both halves at once. */
    for (int shift = 0; shift < 24; shift++) {
        in.n = 0;
        sb_str(&in, "{\"physicalPlanDescription\":\"== Physical Plan ==\\n");
        for (int k = 0; k < 6 + shift; k++)
            sb_str(&in, k % 3 ? "+- Filter (a#1 = \\\"x\\\\\\\"y\\\")\\n" : "+- Scan [a#1]\\n");
        if (shift % 3 == 2) {
            /* The string ends in the front half: a longer one comes after it. */
            sb_str(&in, "+- Range (1)\\n\", \"x\":\"");
            for (int k = 0; k < 40 + shift; k++)
                sb_str(&in, "ab\\\"cd\\\\ ");
            sb_str(&in, "\"}\n");
        } else {
            sb_str(&in, shift % 2 ? "+- Range (1)\\\\\"}\n" : "+- Range (1)\\n\", \"x\":\"\\n\"}\n");
        }
        char what[32];
        snprintf(what, sizeof what, "shift %d", shift);
        ck_assert_msg(decodes_alike_in_two_parts(in.p, in.n, what), "%s: not decoded", what);
    }
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
        char what[32];
        snprintf(what, sizeof what, "edge %zu", k);
        decodes_alike_in_two_parts(edges[k], strlen(edges[k]), what);
    }
    const char *dir = tu_corpus_dir();
    if (!dir) {
        fprintf(stderr, "clean: corpus absent, two-part decode checked on the edge cases only\n");
        free(in.p);
        return;
    }
    free(in.p);
    each_corpus_json_line(dir, decodes_alike_in_parts_counted, &tried);
    fprintf(stderr, "clean: %zu plan strings decoded in two parts as on one thread\n", tried);
    ck_assert_uint_gt(tried, 1000);
}
END_TEST

Suite *clean_suite(void)
{
    Suite *s = suite_create("clean");
    TCase *tc = tcase_create("stories");
    tcase_add_test(tc, spark_output_is_read_in_place);
    tcase_add_test(tc, cleaned_text_takes_the_inputs_place);
    tcase_add_test(tc, an_empty_line_behind_the_text_keeps_it_in_place);
    tcase_add_test(tc, show_table_is_unwrapped);
    tcase_add_test(tc, a_line_that_leaves_a_clean_stretch_is_decoded);
    tcase_add_test(tc, the_end_of_a_long_clean_stretch_is_found);
    tcase_add_test(tc, decoded_lines_are_marked_again);
    tcase_add_test(tc, row_repr_is_decoded);
    tcase_add_test(tc, json_string_and_notebook_output_are_decoded);
    tcase_add_test(tc, event_log_escapes_at_every_offset_are_decoded);
    tcase_add_test(tc, strings_decoded_over_their_own_line_give_every_byte);
    tcase_add_test(tc, a_backslash_at_any_offset_of_a_split_round_is_marked);
    tcase_add_test(tc, rare_bytes_at_an_inputs_end_mark_no_block_past_it);
    tcase_add_test(tc, the_quick_scans_first_piece_is_a_tree_whole_and_ends_after_a_blank_line);
    tcase_add_test(tc, a_string_far_into_a_long_line_is_decoded);
    tcase_add_test(tc, a_strings_end_is_found_as_a_walk_byte_by_byte_finds_it);
    tcase_add_test(tc, codegen_strings_are_not_decoded);
    tcase_add_test(tc, comment_and_quote_prefixes_are_removed);
    tcase_add_test(tc, sql_test_comments_are_not_prefixes);
    tcase_add_test(tc, code_block_indentation_is_removed);
    tcase_add_test(tc, crlf_tabs_bom_and_trailing_blanks_are_normalized);
    tcase_add_test(tc, quick_scan_answers_a_long_line_at_its_escape);
    tcase_add_test(tc, utf16_input_is_read);
    tcase_add_test(tc, hard_wrapped_lines_are_joined);
    tcase_add_test(tc, trailing_blanks_go_in_the_wrap_steps_last_pass);
    tcase_add_test(tc, lines_cut_by_a_terminal_are_joined_whatever_their_characters);
    tcase_add_test(tc, html_break_lines_become_plan_lines);
    tcase_add_test(tc, deep_plans_cut_inside_their_prefix_are_joined_back);
    tcase_add_test(tc, lost_indentation_with_an_aqe_header_at_any_depth);
    tcase_add_test(tc, deep_plans_with_lost_indentation_come_back_as_printed);
    tcase_add_test(tc, email_word_wrap_keeps_formatted_ids);
    tcase_add_test(tc, a_data_table_beside_the_plan_stays_a_table);
    tcase_add_test(tc, email_wrap_of_the_analyzed_schema_and_its_root);
    tcase_add_test(tc, an_analyzed_root_can_be_the_widest_word_wrapped_line);
    tcase_add_test(tc, a_short_line_heads_no_hanging_group_its_next_word_fits);
    tcase_add_test(tc, numbered_tree_string_prefixes_are_removed);
    tcase_add_test(tc, numbered_lines_behind_blanks_and_in_tables_are_found);
    tcase_add_test(tc, lost_indentation_is_rebuilt_from_markers);
    tcase_add_test(tc, lost_indentation_of_an_aqe_plan_is_rebuilt);
    tcase_add_test(tc, correct_trees_are_never_rebuilt);
    tcase_add_test(tc, line_numbers_point_at_the_original_input);
    tcase_add_test(tc, prose_after_a_pasted_plan_is_not_a_node);
    tcase_add_test(tc, lines_a_step_rewrites_are_looked_at_by_the_steps_after_it);
    tcase_add_test(tc, a_wrapped_groups_width_comes_from_its_followers_only);
    tcase_add_test(tc, an_aqe_header_heads_no_word_wrapped_group);
    suite_add_tcase(s, tc);
    TCase *tk = tcase_create("corpus");
    tcase_set_timeout(tk, 600);
    tcase_add_test(tk, mangled_corpus_plans_give_the_original_tree);
    tcase_add_test(tk, quick_scan_never_skips_a_needed_rewrite);
    tcase_add_test(tk, quick_scan_gives_the_verdict_it_always_gave);
    tcase_add_test(tk, quick_scan_in_pieces_gives_the_whole_verdict);
    tcase_add_test(tk, clean_up_in_halves_gives_the_one_thread_text);
    tcase_add_test(tk, a_split_with_more_lines_than_room_cleans_up_as_on_one_thread);
    tcase_add_test(tk, quick_scan_judges_a_long_line_as_it_always_did);
    tcase_add_test(tk, decoded_strings_skip_steps_only_where_they_change_nothing);
    tcase_add_test(tk, a_line_that_is_one_string_decodes_as_among_other_lines);
    tcase_add_test(tk, a_long_string_decodes_in_rounds_as_byte_by_byte);
    tcase_add_test(tk, a_long_string_decoded_in_two_parts_gives_the_one_thread_text);
    tcase_add_test(tk, spark_output_gives_the_same_tree_with_and_without_clean_up);
    suite_add_tcase(s, tk);
    return s;
}
