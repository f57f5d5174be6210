/* The command line as a user meets it: exit statuses and messages, stdin, JSON validity,
 * escape sequences, several files, the built-in samples and `make install`. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonlint.h"
#include "sparkplan/sample.h"
#include "testutil.h"


START_TEST(missing_file_is_reported_with_exit_2)
{
    int st;
    char *err = tu_runf(&st, "'%s' --print /nonexistent/plan.txt 2>&1 >/dev/null", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_str_eq(err, "sparkplan: /nonexistent/plan.txt: No such file or directory\n");
    free(err);
    /* a hostile file name cannot reach the terminal as an escape sequence */
    err = tu_runf(&st, "'%s' --print \"$(printf '/nonexistent/\\033]0;owned\\007.txt')\" 2>&1 >/dev/null",
              tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_str_eq(err, "sparkplan: /nonexistent/^[]0;owned^G.txt: No such file or directory\n");
    free(err);
}
END_TEST

START_TEST(directory_is_reported_with_exit_2)
{
    tu_tmpdir_make("cli");
    int st;
    char *err = tu_runf(&st, "'%s' --json '%s' 2>&1 >/dev/null", tu_binary(), tu_tmpdir());
    ck_assert_int_eq(st, 2);
    char want[256];
    snprintf(want, sizeof want, "sparkplan: %s: Is a directory\n", tu_tmpdir());
    ck_assert_str_eq(err, want);
    free(err);
    tu_tmpdir_remove();
}
END_TEST

START_TEST(unreadable_file_is_reported_with_exit_2)
{
    if (geteuid() == 0) {
        fprintf(stderr, "SKIP: running as root, permissions are not enforced\n");
        return;
    }
    tu_tmpdir_make("cli");
    const char *p = tu_tmp_write("secret.txt", "== Physical Plan ==\nRange (0, 1)\n", 33);
    ck_assert_int_eq(chmod(p, 0), 0);
    int st;
    char *err = tu_runf(&st, "'%s' --print '%s' 2>&1 >/dev/null", tu_binary(), p);
    ck_assert_int_eq(st, 2);
    char want[512];
    snprintf(want, sizeof want, "sparkplan: %s: Permission denied\n", p);
    ck_assert_str_eq(err, want);
    free(err);
    tu_tmpdir_remove();
}
END_TEST

/* A reader that stops early (`sparkplan --print BIG | head`): the program ends by SIGPIPE, with
 * nothing on stderr, as it always did, also when the output is a big section's outline or
 * the summary's scan lines, written on two threads.  (When the second thread was the one to
 * write to the closed pipe, it used to get EPIPE instead, its SIGPIPE blocked, and the
 * program said "write error"; that order is rare, so this mostly checks the usual one.) */
START_TEST(a_closed_pipe_ends_a_two_thread_output_quietly)
{
    tu_tmpdir_make("cli");
    size_t len;
    char *text = tu_union_plan(30000, false, "", &len);
    const char *p = tu_tmp_write("big.txt", text, len);
    free(text);
    static const char *const modes[] = {"--print", "--summary"};
    for (size_t m = 0; m < 2; m++)
        for (int run = 0; run < 8; run++) {
            int st;
            char *out = tu_runf(&st, "sh -c '\"$0\" %s \"$1\" 2>\"$1.err\"; echo $? >\"$1.st\"' '%s' '%s' "
                                "| head -c 10 >/dev/null; cat '%s.st' '%s.err'",
                                modes[m], tu_binary(), p, p, p);
            ck_assert_msg(strcmp(out, "141\n") == 0, "%s, run %d: %s", modes[m], run, out);
            free(out);
        }
    tu_tmpdir_remove();
}
END_TEST

START_TEST(input_without_a_plan_is_reported_with_exit_2)
{
    tu_tmpdir_make("cli");
    const char *p = tu_tmp_write("empty.txt", "\n\n", 2);
    int st;
    char *err = tu_runf(&st, "'%s' --print '%s' 2>&1 >/dev/null", tu_binary(), p);
    ck_assert_int_eq(st, 2);
    char want[512];
    snprintf(want, sizeof want, "sparkplan: %s: no Spark plan found\n", p);
    ck_assert_str_eq(err, want);
    free(err);
    err = tu_runf(&st, "printf '' | '%s' --json 2>&1 >/dev/null", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_str_eq(err, "sparkplan: stdin: no Spark plan found\n");
    free(err);
    tu_tmpdir_remove();
}
END_TEST

START_TEST(prose_without_a_plan_is_reported_with_exit_2)
{
    tu_tmpdir_make("cli");
    static const char prose[] = "Here is what I ran:\n\nspark.sql(\"select 1\").show()\n"
                                "and it printed a table, not a plan.\n";
    const char *p = tu_tmp_write("notes.txt", prose, sizeof prose - 1);
    int st;
    char *err = tu_runf(&st, "'%s' '%s' 2>&1 >/dev/null", tu_binary(), p);
    ck_assert_int_eq(st, 2);
    char want[512];
    snprintf(want, sizeof want, "sparkplan: %s: no Spark plan found\n", p);
    ck_assert_str_eq(err, want);
    free(err);
    tu_tmpdir_remove();
}
END_TEST

/* "... N more fields": the outline on stdout, the warning with its line on stderr (exit 0);
 * in JSON the warning is in "warnings" and stderr stays quiet. */
START_TEST(warnings_go_to_stderr_with_their_line)
{
    tu_tmpdir_make("cli");
    static const char plan[] = "== Physical Plan ==\n"
                               "*(1) Project [a#1, b#2, ... 5 more fields]\n"
                               "+- *(1) Range (0, 10, step=1, splits=8)\n";
    const char *p = tu_tmp_write("cut.txt", plan, sizeof plan - 1);
    int st;
    char *err = tu_runf(&st, "'%s' --print '%s' 2>&1 >/dev/null", tu_binary(), p);
    ck_assert_int_eq(st, 0);
    char want[512];
    snprintf(want, sizeof want, "sparkplan: %s:2: warning: ", p);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "stderr: %s", err);
    ck_assert_ptr_nonnull(strstr(err, "spark.sql.debug.maxToStringFields"));
    free(err);
    char *out = tu_runf(&st, "'%s' --print '%s' 2>/dev/null", tu_binary(), p);
    ck_assert_str_eq(out, "== Physical Plan ==\n*(1) Project [a#1, b#2, ... 5 more fields]\n"
                          "  *(1) Range (0, 10, step=1, splits=8)\n");
    free(out);
    err = tu_runf(&st, "'%s' --json '%s' 2>&1 >/dev/null", tu_binary(), p);
    ck_assert_int_eq(st, 0);
    ck_assert_str_eq(err, "");
    free(err);
    out = tu_runf(&st, "'%s' --json '%s' 2>/dev/null", tu_binary(), p);
    ck_assert_ptr_nonnull(strstr(out, "\"warnings\":[{\"line\":2,\"message\":\""));
    free(out);
    tu_tmpdir_remove();
}
END_TEST

START_TEST(unknown_option_prints_usage_with_exit_2)
{
    int st;
    char *out = tu_runf(&st, "'%s' --frobnicate samples/join-simple.txt 2>/dev/null", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_str_eq(out, ""); /* nothing on stdout */
    free(out);
    char *err = tu_runf(&st, "'%s' --frobnicate samples/join-simple.txt 2>&1 >/dev/null", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(err, "sparkplan: unknown option '--frobnicate'"));
    ck_assert_ptr_nonnull(strstr(err, "Usage: sparkplan [OPTIONS] [FILE...]"));
    free(err);
    err = tu_runf(&st, "'%s' -Z 2>&1 >/dev/null", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(err, "unknown option '-Z'"));
    free(err);
}
END_TEST

START_TEST(unknown_theme_and_missing_argument_exit_2)
{
    int st;
    char *err = tu_runf(&st, "'%s' --theme neon 2>&1 >/dev/null", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(err, "unknown theme 'neon'"));
    free(err);
    err = tu_runf(&st, "'%s' --theme 2>&1 >/dev/null", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(err, "option '--theme' needs an argument"));
    free(err);
}
END_TEST

START_TEST(help_and_version_go_to_stdout_with_exit_0)
{
    int st;
    char *out = tu_runf(&st, "'%s' --help", tu_binary());
    ck_assert_int_eq(st, 0);
    const char *const options[] = {"--print", "--json", "--ascii", "--theme", "--no-color",
                                   "--help", "--version"};
    for (size_t i = 0; i < sizeof options / sizeof *options; i++)
        ck_assert_msg(strstr(out, options[i]), "--help does not mention %s", options[i]);
    free(out);
    out = tu_runf(&st, "'%s' --version", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_str_eq(out, "sparkplan " SPARKPLAN_VERSION "\n");
    free(out);
}
END_TEST

/* The same plan through a file, "-", a pipe with no FILE, a redirect, and with stdout a
 * pipe but no --print: one outline. */
START_TEST(stdin_and_pipes_give_the_file_outline)
{
    int st;
    const char *f = "samples/join-simple.txt";
    char *want = tu_runf(&st, "'%s' --print %s", tu_binary(), f);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(want, "SortMergeJoin"));
    const char *const forms[] = {
        "cat %2$s | '%1$s' --print -",
        "cat %2$s | '%1$s' --print",
        "'%1$s' --print < %2$s",
        "'%1$s' %2$s",
        "cat %2$s | '%1$s'",
        "'%1$s' --theme mono --ascii --no-color %2$s",
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, forms[i], tu_binary(), f);
        char *out = tu_runf(&st, "%s", cmd);
        ck_assert_msg(st == 0, "%s exited %d", cmd, st);
        ck_assert_msg(strcmp(out, want) == 0, "%s printed something else:\n%s", cmd, out);
        free(out);
    }
    free(want);
}
END_TEST

static void assert_json_lines_valid(const char *out, size_t expect_lines)
{
    size_t lines = 0;
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        ck_assert_msg(nl != NULL, "JSON output does not end with a newline");
        size_t at = 0;
        const char *msg = jsonlint_check(p, (size_t)(nl - p), &at);
        ck_assert_msg(msg == NULL, "invalid JSON on line %zu at byte %zu: %s", lines + 1, at,
                      msg ? msg : "");
        lines++;
        p = nl + 1;
    }
    ck_assert_uint_eq(lines, expect_lines);
}

START_TEST(json_of_every_sample_is_well_formed)
{
    for (size_t i = 0; i < n_sample_files; i++) {
        int st;
        char *out = tu_runf(&st, "'%s' --json samples/%s", tu_binary(), sample_files[i].name);
        ck_assert_msg(st == 0, "--json samples/%s exited %d", sample_files[i].name, st);
        assert_json_lines_valid(out, 1);
        ck_assert_ptr_nonnull(strstr(out, "\"plans\":[{\"line\":"));
        ck_assert_ptr_nonnull(strstr(out, "\"warnings\":["));
        free(out);
    }
}
END_TEST

/* Control characters, quotes, backslashes and invalid UTF-8 inside a plan. */
static const char hostile[] = "== Physical Plan ==\n"
                              "*(1) Project [\x1b[31mred\x1b[0m#1, \"q\"#2, back\\slash#3]\n"
                              "+- *(1) Filter (a#1 = \x01\x7f\xff\xfe \xc2\x9b)\n"
                              "   +- Range (0, 10, step=1, splits=8)\n";

START_TEST(json_escapes_hostile_text)
{
    tu_tmpdir_make("cli");
    const char *p = tu_tmp_write("hostile.txt", hostile, sizeof hostile - 1);
    int st;
    char *out = tu_runf(&st, "'%s' --json '%s'", tu_binary(), p);
    ck_assert_int_eq(st, 0);
    assert_json_lines_valid(out, 1);
    ck_assert_ptr_nonnull(strstr(out, "\\u001b[31mred\\u001b[0m#1, \\\"q\\\"#2, back\\\\slash#3"));
    ck_assert_ptr_nonnull(strstr(out, "\\u0001\\u007f\\ufffd\\ufffd \\u009b"));
    free(out);
    tu_tmpdir_remove();
}
END_TEST

START_TEST(print_shows_escape_sequences_as_carets)
{
    tu_tmpdir_make("cli");
    const char *p = tu_tmp_write("hostile.txt", hostile, sizeof hostile - 1);
    int st;
    char *out = tu_runf(&st, "'%s' --print '%s'", tu_binary(), p);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "^[[31mred^[[0m#1"));
    ck_assert_ptr_nonnull(strstr(out, "^A^?\\xFF\\xFE <U+009B>"));
    ck_assert_ptr_null(strchr(out, '\x1b'));
    ck_assert_ptr_null(strchr(out, '\x01'));
    free(out);
    tu_tmpdir_remove();
}
END_TEST

START_TEST(several_files_are_headed_and_a_bad_one_is_skipped)
{
    int st;
    char *out = tu_runf(&st, "'%s' --print samples/join-simple.txt /nonexistent.txt "
                         "samples/join-cost.txt 2>/dev/null", tu_binary());
    ck_assert_int_eq(st, 2);
    const char *a = strstr(out, "==> samples/join-simple.txt <==\n");
    const char *b = strstr(out, "\n\n==> samples/join-cost.txt <==\n");
    ck_assert_msg(a == out, "first file has no header:\n%s", out);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(strstr(out, "nonexistent"));
    free(out);
    out = tu_runf(&st, "'%s' --json samples/join-simple.txt samples/join-cost.txt", tu_binary());
    ck_assert_int_eq(st, 0);
    assert_json_lines_valid(out, 2);
    ck_assert_ptr_nonnull(strstr(out, "{\"file\":\"samples/join-simple.txt\","));
    ck_assert_ptr_nonnull(strstr(out, "\n{\"file\":\"samples/join-cost.txt\","));
    free(out);
}
END_TEST

/* A chain deeper than the outline's indentation cap, through the real reader and writer. */
START_TEST(deep_plan_prints_and_nests_in_json)
{
    const size_t depth = 2000;
    tu_tmpdir_make("cli");
    char path[256];
    snprintf(path, sizeof path, "%s/deep.txt", tu_tmpdir());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("== Physical Plan ==\nProject [a#1]\n", f);
    for (size_t d = 1; d < depth; d++) {
        for (size_t k = 1; k < d; k++)
            fputs("   ", f);
        fputs("+- Project [a#1]\n", f);
    }
    fclose(f);
    int st;
    char *out = tu_runf(&st, "'%s' --json '%s'", tu_binary(), path);
    ck_assert_int_eq(st, 0);
    assert_json_lines_valid(out, 1);
    size_t max_nest = 0, nest = 0;
    for (const char *p = out; *p; p++) { /* no string in this plan holds brackets */
        if (*p == '{' && ++nest > max_nest)
            max_nest = nest;
        else if (*p == '}')
            nest--;
    }
    /* document, plan, section, then one object per level */
    ck_assert_uint_eq(max_nest, 3 + depth);
    free(out);
    out = tu_runf(&st, "'%s' --print '%s' | tail -n 1", tu_binary(), path);
    ck_assert_int_eq(st, 0);
    char want[64];
    snprintf(want, sizeof want, "[depth %zu] Project [a#1]\n", depth - 1);
    ck_assert_ptr_nonnull(strstr(out, want));
    free(out);
    tu_tmpdir_remove();
}
END_TEST

START_TEST(write_error_is_reported)
{
    if (access("/dev/full", W_OK) != 0) {
        fprintf(stderr, "SKIP: no /dev/full\n");
        return;
    }
    int st;
    char *err = tu_runf(&st, "'%s' --json samples/join-codegen.txt 2>&1 >/dev/full", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(err, "sparkplan: write error: No space left on device"));
    free(err);
}
END_TEST

START_TEST(built_in_samples_are_the_files_of_samples_dir)
{
    ck_assert_ptr_nonnull(sample_find(SAMPLE_DEFAULT_NAME));
    ck_assert_uint_gt(n_sample_files, 0);
    for (size_t i = 0; i < n_sample_files; i++) {
        char path[256];
        snprintf(path, sizeof path, "samples/%s", sample_files[i].name);
        size_t len = 0;
        char *bytes = tu_read_file(path, &len);
        ck_assert_msg(bytes != NULL, "%s is built in but not in samples/", path);
        ck_assert_uint_eq(len, sample_files[i].len);
        ck_assert_msg(memcmp(bytes, sample_files[i].data, len) == 0, "%s differs", path);
        ck_assert_int_eq(sample_files[i].data[len], '\0');
        free(bytes);
    }
}
END_TEST

START_TEST(make_install_puts_binary_man_page_and_samples_in_place)
{
    if (getenv("SPARKPLAN_SANITIZED")) {
        fprintf(stderr, "SKIP: make install is checked in the plain pass\n");
        return;
    }
    tu_tmpdir_make("cli");
    int st;
    /* The parent make's jobserver descriptors are not ours to use. */
    char *out = tu_runf(&st, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install "
                         "DESTDIR='%s' PREFIX=/usr 2>&1", tu_tmpdir());
    ck_assert_msg(st == 0, "make install failed:\n%s", out);
    free(out);
    const char *const files[] = {"/usr/bin/sparkplan", "/usr/share/man/man1/sparkplan.1",
                                 "/usr/share/sparkplan/samples/INDEX.tsv",
                                 "/usr/share/sparkplan/samples/join-formatted.txt"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[512];
        struct stat sb;
        snprintf(path, sizeof path, "%s%s", tu_tmpdir(), files[i]);
        ck_assert_msg(stat(path, &sb) == 0 && S_ISREG(sb.st_mode), "%s not installed", path);
    }
    for (size_t i = 0; i < n_sample_files; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/usr/share/sparkplan/samples/%s", tu_tmpdir(), sample_files[i].name);
        ck_assert_msg(access(path, R_OK) == 0, "%s not installed", path);
    }
    out = tu_runf(&st, "'%s/usr/bin/sparkplan' --version", tu_tmpdir());
    ck_assert_int_eq(st, 0);
    ck_assert_str_eq(out, "sparkplan " SPARKPLAN_VERSION "\n");
    free(out);
    tu_tmpdir_remove();
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_add_test(tc, missing_file_is_reported_with_exit_2);
    tcase_add_test(tc, directory_is_reported_with_exit_2);
    tcase_add_test(tc, unreadable_file_is_reported_with_exit_2);
    tcase_add_test(tc, input_without_a_plan_is_reported_with_exit_2);
    tcase_add_test(tc, a_closed_pipe_ends_a_two_thread_output_quietly);
    tcase_add_test(tc, prose_without_a_plan_is_reported_with_exit_2);
    tcase_add_test(tc, warnings_go_to_stderr_with_their_line);
    tcase_add_test(tc, unknown_option_prints_usage_with_exit_2);
    tcase_add_test(tc, unknown_theme_and_missing_argument_exit_2);
    tcase_add_test(tc, help_and_version_go_to_stdout_with_exit_0);
    tcase_add_test(tc, stdin_and_pipes_give_the_file_outline);
    tcase_add_test(tc, json_of_every_sample_is_well_formed);
    tcase_add_test(tc, json_escapes_hostile_text);
    tcase_add_test(tc, print_shows_escape_sequences_as_carets);
    tcase_add_test(tc, several_files_are_headed_and_a_bad_one_is_skipped);
    tcase_add_test(tc, deep_plan_prints_and_nests_in_json);
    tcase_add_test(tc, write_error_is_reported);
    tcase_add_test(tc, built_in_samples_are_the_files_of_samples_dir);
    tcase_add_test(tc, make_install_puts_binary_man_page_and_samples_in_place);
    suite_add_tcase(s, tc);
    return s;
}
