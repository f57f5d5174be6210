/* Reliability at the edges: odd and very large inputs, limits that are said rather than cut
 * silently, messages that stay sanitized and exit statuses that say what happened (write
 * errors, usage errors), `make uninstall`.  The terminal's side (signals, job control, a
 * missing TERM, pastes) is in check_reliability_term.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sparkplan/load.h"
#include "testutil.h"


static size_t n_sections(const struct document *doc)
{
    size_t n = 0;
    for (const struct plan *p = doc->first_plan; p; p = p->next)
        for (const struct plan_section *s = p->first_section; s; s = s->next)
            n++;
    return n;
}

static bool has_warning(const struct document *doc, const char *needle)
{
    for (const struct plan_warning *w = doc->first_warning; w; w = w->next)
        if (strstr(w->message, needle))
            return true;
    return false;
}

/* ---- the data ------------------------------------------------------------------------- */

/* EXPLAIN CODEGEN of n stages whose "== Subtree i / n (...) ==" lines are the widest of the
 * output: a terminal's cut would make them the lines at the widest width. */
static char *codegen_output(unsigned n)
{
    size_t cap = 64 + (size_t)n * 400, k = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    k += (size_t)snprintf(t + k, cap - k, "Found %u WholeStageCodegen subtrees.\n", n);
    for (unsigned i = 1; i <= n; i++)
        k += (size_t)snprintf(
            t + k, cap - k,
            "== Subtree %u / %u (maxMethodCodeSize:282; maxConstantPoolSize:206(0.31%% used); "
            "numInnerClasses:0) ==\n"
            "*(%u) Project [a#1]\n+- *(%u) Filter isnotnull(a#1)\n   +- *(%u) ColumnarToRow\n\n"
            "Generated code:\n/* 001 */ public Object generate(Object[] references) {\n"
            "/* 002 */   return null;\n/* 003 */ }\n\n",
            i, n, i, i, i);
    return t;
}

START_TEST(codegen_subtree_headers_are_never_joined_as_wrapped_lines)
{
    const unsigned counts[] = {2, 12, 400};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        char *text = codegen_output(counts[c]);
        struct document *doc = tu_parse(text);
        ck_assert_uint_eq(n_sections(doc), counts[c]);
        ck_assert_msg(!has_warning(doc, "wrapped"), "%u subtrees: %s", counts[c],
                      doc->first_warning ? doc->first_warning->message : "");
        document_free(doc);
        free(text);
    }
}
END_TEST

/* Spark's ids and stages are 32-bit ints: a bigger number is not one of them.  It stays in
 * the text, with a warning, and no details block lands on a node it does not belong to. */
static const char big_ids[] =
    "== Physical Plan ==\n"
    "* Project (4294967296)\n"
    "+- * Filter (2147483647)\n"
    "   +- *(4294967297) Scan parquet t (12345678901234567890)\n"
    "\n\n"
    "(4294967296) Project [codegen id : 4294967297]\n"
    "Output [1]: [a#1]\n"
    "\n"
    "(2147483647) Filter [codegen id : 1]\n"
    "Condition : isnotnull(a#1)\n"
    "\n"
    "(12345678901234567890) Scan parquet t\n"
    "Output [1]: [b#2]\n";

START_TEST(ids_and_stages_beyond_32_bits_are_text_and_never_misattached)
{
    struct document *doc = tu_parse(big_ids);
    struct plan_node *project = tu_root(doc), *filter = tu_child(project, 0),
                     *scan = tu_child(filter, 0);
    ck_assert_int_eq(project->id, -1);
    ck_assert_int_eq(filter->id, 2147483647);
    ck_assert_int_eq(scan->id, -1);
    ck_assert_int_lt(scan->stage, 1); /* not read as a stage */
    ck_assert_msg(tu_slice_is(plan_node_text(project), "Project (4294967296)"), "%.*s",
                  (int)plan_node_text(project).len, plan_node_text(project).ptr);
    ck_assert_msg(tu_slice_is(plan_node_name(filter), "Filter"), "%.*s",
                  (int)plan_node_name(filter).len, plan_node_name(filter).ptr);
    /* The Filter keeps its own details, and the others get none. */
    ck_assert_uint_eq(filter->n_details, 1);
    ck_assert(tu_slice_is(tu_detail(filter, 0).key, "Condition"));
    ck_assert_uint_eq(project->n_details, 0);
    ck_assert_uint_eq(scan->n_details, 0);
    ck_assert_msg(has_warning(doc, "beyond 32 bits"), "no warning: %s",
                  doc->first_warning ? doc->first_warning->message : "(none)");
    document_free(doc);
}
END_TEST

START_TEST(cr_only_line_ends_and_utf16_without_bom_are_read)
{
    const char plan[] = "== Physical Plan ==\r*(1) Project [a#1]\r+- *(1) Filter isnotnull(a#1)\r"
                        "   +- Scan parquet t[a#1]\r";
    struct document *doc = tu_parse(plan);
    ck_assert_uint_eq(doc->n_all_nodes, 3);
    ck_assert_uint_eq(tu_child(tu_root(doc), 0)->line, 3);
    document_free(doc);
    /* UTF-16, both byte orders, no byte-order mark. */
    const char ascii[] = "== Physical Plan ==\n*(1) Project [a#1]\n+- Scan parquet t[a#1]\n";
    for (int be = 0; be < 2; be++) {
        char u16[2 * sizeof ascii];
        size_t n = 0;
        for (size_t i = 0; i + 1 < sizeof ascii; i++) {
            u16[n++] = be ? '\0' : ascii[i];
            u16[n++] = be ? ascii[i] : '\0';
        }
        doc = NULL;
        ck_assert_int_eq(tu_try_parse(u16, n, &doc), SP_OK);
        ck_assert_uint_eq(doc->n_all_nodes, 2);
        ck_assert(tu_slice_is(plan_node_name(tu_child(tu_root(doc), 0)), "Scan parquet t"));
        document_free(doc);
    }
}
END_TEST

/* The limits, lowered so that small inputs reach them. */
START_TEST(inputs_past_the_limits_are_refused_not_cut)
{
    struct document *doc = NULL;
    struct diag err = {0};
    load_set_limits(0, 100);
    size_t len;
    char *text = tu_union_plan(60, false, "", &len);
    ck_assert_int_eq(load_bytes("t", text, len, &doc, &err), SP_ERR_TOO_LARGE);
    ck_assert_ptr_null(doc);
    ck_assert_str_eq(err.message, "input too large: more than 100 lines (line numbers are 32-bit)");
    load_set_limits(1000, 0);
    tu_tmpdir_make("rel");
    char *big = tu_union_plan(60, false, "", &len);
    const char *path = tu_tmp_write("big.txt", big, len);
    free(big);
    ck_assert_int_eq(load_path(path, &doc, &err), SP_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message,
                     "input too large: more than 1000 bytes (SPARKPLAN_MAX_INPUT sets the limit)");
    load_set_limits(0, 0);
    ck_assert_int_eq(load_path(path, &doc, &err), SP_OK);
    document_free(doc);
    /* A stream that never ends, through the command line. */
    int st;
    char *out = tu_runf(&st, "SPARKPLAN_MAX_INPUT=1M '%s' --print /dev/zero 2>&1", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_str_eq(out, "sparkplan: /dev/zero: input too large: more than 1 MiB "
                          "(SPARKPLAN_MAX_INPUT sets the limit)\n");
    free(out);
    out = tu_runf(&st, "head -c 5000 /dev/zero | SPARKPLAN_MAX_INPUT=4k '%s' --json 2>&1",
                  tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_str_eq(out, "sparkplan: stdin: input too large: more than 4 KiB "
                          "(SPARKPLAN_MAX_INPUT sets the limit)\n");
    free(out);
    out = tu_runf(&st, "SPARKPLAN_MAX_INPUT=lots '%s' --print samples/join-simple.txt 2>&1",
                  tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_str_eq(out, "sparkplan: SPARKPLAN_MAX_INPUT: not a size: 'lots' "
                          "(bytes, or a number with K, M or G)\n");
    free(out);
    tu_tmpdir_remove();
}
END_TEST

/* ---- messages and exit codes ------------------------------------------------------------ */

START_TEST(bidi_controls_in_plan_text_are_shown_by_name)
{
    tu_tmpdir_make("rel");
    const char plan[] = "== Physical Plan ==\n*(1) Filter (name#1 = evil\xe2\x80\xaetxt.exe\xe2\x81\xa6)\n"
                        "+- Scan parquet t\xe2\x80\x8b[name#1]\n";
    const char *path = tu_tmp_write("bidi.txt", plan, sizeof plan - 1);
    int st;
    char *out = tu_runf(&st, "'%s' --print '%s'", tu_binary(), path);
    ck_assert_int_eq(st, 0);
    ck_assert_str_eq(out, "== Physical Plan ==\n"
                          "*(1) Filter (name#1 = evil<U+202E>txt.exe<U+2066>)\n"
                          "  Scan parquet t<U+200B>[name#1]\n");
    free(out);
    tu_tmpdir_remove();
}
END_TEST

START_TEST(file_names_and_arguments_are_sanitized_in_every_message)
{
    tu_tmpdir_make("rel");
    char name[64];
    snprintf(name, sizeof name, "a\033]0;owned\007.txt");
    size_t len;
    char *plan = tu_union_plan(3, false, "", &len);
    tu_tmp_write(name, plan, len);
    free(plan);
    int st;
    char *out = tu_runf(&st, "cd '%s' && '%s' --summary a*.txt a*.txt", tu_tmpdir(), tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "==> a^[]0;owned^G.txt <=="));
    ck_assert_ptr_null(strchr(out, '\033'));
    free(out);
    const char *const args[] = {"--sample", "--theme", "--explain-node", "--x"};
    for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
        out = tu_runf(&st, "'%s' %s%s\"$(printf 'x\\033[2Jy')\" 2>&1 >/dev/null", tu_binary(),
                      args[i], strcmp(args[i], "--x") == 0 ? "" : " ");
        ck_assert_msg(strchr(out, '\033') == NULL, "%s echoed an escape: %s", args[i], out);
        if (strcmp(args[i], "--explain-node") != 0) {
            ck_assert_int_eq(st, 2);
            ck_assert_msg(strstr(out, "x^[[2Jy"), "%s: %s", args[i], out);
        }
        free(out);
    }
    tu_tmpdir_remove();
}
END_TEST

START_TEST(write_errors_are_said_and_exit_2)
{
    if (access("/dev/full", W_OK) != 0) {
        fprintf(stderr, "SKIP: no /dev/full\n");
        return;
    }
    const char *const modes[] = {"--rules",   "--help",         "--version",
                                 "--samples", "--explain-node Exchange",
                                 "--summary samples/join-formatted.txt",
                                 "--lint samples/join-formatted.txt",
                                 "--print samples/join-formatted.txt"};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        int st;
        char *err = tu_runf(&st, "'%s' %s 2>&1 >/dev/full", tu_binary(), modes[i]);
        ck_assert_msg(st == 2, "%s: status %d", modes[i], st);
        ck_assert_msg(strcmp(err, "sparkplan: write error: No space left on device\n") == 0,
                      "%s said '%s'", modes[i], err);
        free(err);
    }
}
END_TEST

START_TEST(make_uninstall_leaves_no_directory_it_created)
{
    if (getenv("SPARKPLAN_SANITIZED")) {
        fprintf(stderr, "SKIP: make uninstall is checked in the plain pass\n");
        return;
    }
    tu_tmpdir_make("rel");
    int st;
    /* A directory that was there before the install stays. */
    char *out = tu_runf(&st, "mkdir -p '%s/usr/share/man' && "
                        "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install DESTDIR='%s' "
                        "PREFIX=/usr 2>&1 && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
                        "uninstall DESTDIR='%s' PREFIX=/usr 2>&1 && cd '%s' && find . | sort",
                        tu_tmpdir(), tu_tmpdir(), tu_tmpdir(), tu_tmpdir());
    ck_assert_msg(st == 0, "make install/uninstall failed:\n%s", out);
    ck_assert_str_eq(out, ".\n./usr\n./usr/share\n./usr/share/man\n");
    free(out);
    tu_tmpdir_remove();
}
END_TEST

Suite *reliability_suite(void)
{
    Suite *s = suite_create("reliability");
    TCase *tc = tcase_create("data");
    tcase_add_test(tc, codegen_subtree_headers_are_never_joined_as_wrapped_lines);
    tcase_add_test(tc, ids_and_stages_beyond_32_bits_are_text_and_never_misattached);
    tcase_add_test(tc, cr_only_line_ends_and_utf16_without_bom_are_read);
    tcase_add_test(tc, inputs_past_the_limits_are_refused_not_cut);
    suite_add_tcase(s, tc);
    TCase *msg = tcase_create("messages");
    tcase_set_timeout(msg, 120); /* make install */
    tcase_add_test(msg, bidi_controls_in_plan_text_are_shown_by_name);
    tcase_add_test(msg, file_names_and_arguments_are_sanitized_in_every_message);
    tcase_add_test(msg, write_errors_are_said_and_exit_2);
    tcase_add_test(msg, make_uninstall_leaves_no_directory_it_created);
    suite_add_tcase(s, msg);
    return s;
}
