/* Hostile and broken input: every load ends in SP_OK or SP_ERR_NO_PLAN (or a clear I/O
 * error), never a crash, a hang or unbounded memory; what is shown is sanitized.
 * Heavy inputs shrink under the sanitizers (SPARKPLAN_SANITIZED).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sparkplan/clean.h"
#include "testutil.h"

static bool sanitized(void)
{
    return getenv("SPARKPLAN_SANITIZED") != NULL;
}

/* Loads len bytes; asserts the outcome is one a user can be shown. */
static struct document *load_any(const char *bytes, size_t len, enum sp_status *out)
{
    struct document *doc = NULL;
    enum sp_status s = tu_try_parse(bytes, len, &doc);
    ck_assert_msg(s == SP_OK || s == SP_ERR_NO_PLAN, "status %d", (int)s);
    ck_assert(s == SP_OK ? doc != NULL : doc == NULL);
    if (out)
        *out = s;
    return doc;
}

static void load_and_free(const char *bytes, size_t len)
{
    document_free(load_any(bytes, len, NULL));
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

START_TEST(empty_and_blank_input_has_no_plan)
{
    const char *inputs[] = {"", "\n", "\n\n   \n\t\n", "\r\n\r\n", "\xEF\xBB\xBF", "\xFF\xFE",
                            "+---+\n|plan|\n+---+\n+---+\n", "[Row(plan='')]\n", "# \n#\n# \n"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        enum sp_status s;
        document_free(load_any(inputs[i], strlen(inputs[i]), &s));
        ck_assert_msg(s == SP_ERR_NO_PLAN, "input %zu: status %d", i, (int)s);
    }
}
END_TEST

START_TEST(binary_and_nul_bytes_never_crash)
{
    size_t n = sanitized() ? (256u << 10) : (2u << 20);
    char *buf = malloc(n);
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)rnd();
    /* Random bytes are not a plan: no "Ab ... #1" line of junk passes for a lone node. */
    enum sp_status st;
    struct document *junk = load_any(buf, n, &st);
    ck_assert_ptr_null(junk);
    ck_assert_int_eq(st, SP_ERR_NO_PLAN);
    static const char lone_junk[] = "\x01\x02\nOo \xE4I\x06k%I\xF2#7\x13\x9A|\x17" "A\n\x03\n";
    ck_assert_ptr_null(load_any(lone_junk, sizeof lone_junk - 1, &st));
    /* NUL bytes inside plan lines: the line is still read to its end. */
    static const char nul_plan[] = "== Physical Plan ==\n*(1) Project [a\0b#1]\n+- *(1) Range (0,\0 5)\n";
    struct document *doc = load_any(nul_plan, sizeof nul_plan - 1, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_uint_eq(plan_node_n_children(tu_root(doc)), 1);
    document_free(doc);
    free(buf);
}
END_TEST

START_TEST(random_pastes_never_crash)
{
    /* Short random texts over the characters clean-up and the parser react to: markers,
       bars, quotes, escapes, prefixes, digits, headers. */
    static const char *const pieces[] = {
        "+- ", ":- ", ":  ", "   ", "|", "+---+", "\n", "\n", "\n", "\r\n", "\t", "'", "\"",
        "\\n", "\\\\n", "\\x1b", "\\u00e9", "Row(plan=", ")]", "# ", "> ", "// ", "-- ", "00 ",
        "01 ", "(1) ", "(2)", "* ", "*(1) ", "== Physical Plan ==", "== Final Plan ==",
        "AdaptiveSparkPlan", "Project [a#1]", "Scan parquet t", "Output [1]: [a#1]",
        "Subquery:1 Hosting operator id = 2", "===== Subqueries =====", " ", ":", "\xff", "\0",
        "\xEF\xBB\xBF", "x"};
    size_t np = sizeof pieces / sizeof pieces[0];
    int rounds = sanitized() ? 1500 : 6000;
    char buf[4096];
    for (int r = 0; r < rounds; r++) {
        size_t n = 0, want = rnd() % 600;
        while (n < want) {
            const char *p = pieces[rnd() % np];
            size_t pl = p[0] ? strlen(p) : 1;
            if (n + pl >= sizeof buf)
                break;
            memcpy(buf + n, p, pl);
            n += pl;
        }
        load_and_free(buf, n);
    }
}
END_TEST

START_TEST(invalid_utf8_is_kept_as_it_is)
{
    static const char bad[] = "== Physical Plan ==\n*(1) Project [\xC3\x28#1, \xE2\x82#2]\n"
                              "+- *(1) Scan \xF0\x9F\x98 t\xFF\n";
    struct document *doc = load_any(bad, sizeof bad - 1, NULL);
    ck_assert_ptr_nonnull(doc);
    struct plan_node *scan = tu_child(tu_root(doc), 0);
    ck_assert_ptr_nonnull(memchr(plan_node_text(scan).ptr, '\xFF', plan_node_text(scan).len));
    document_free(doc);
}
END_TEST

/* "Project [a0#0, a1#1, ...]" on one line of about n bytes. */
static char *long_line_plan(size_t n, size_t *len)
{
    char *buf = malloc(n + 256);
    size_t o = (size_t)sprintf(buf, "== Physical Plan ==\n*(1) Project [");
    for (unsigned i = 0; o < n; i++)
        o += (size_t)sprintf(buf + o, "a%u#%u, ", i, i);
    o += (size_t)sprintf(buf + o, "z#0]\n+- *(1) Range (0, 1, step=1, splits=1)\n");
    *len = o;
    return buf;
}

START_TEST(a_10_mb_single_line_loads)
{
    size_t len;
    char *buf = long_line_plan(10u << 20, &len);
    struct document *doc = load_any(buf, len, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_uint_eq(doc->n_all_nodes, 2);
    ck_assert_uint_gt(plan_node_text(tu_root(doc)).len, 10000000);
    document_free(doc);
    /* The same line inside a Row repr: one 10 MB string literal to decode. */
    size_t n = len + 64, o = 0;
    char *repr = malloc(n);
    o += (size_t)sprintf(repr, "[Row(plan='");
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\n') {
            repr[o++] = '\\';
            repr[o++] = 'n';
        } else {
            repr[o++] = buf[i];
        }
        if (o + 16 > n)
            repr = realloc(repr, n *= 2);
    }
    o += (size_t)sprintf(repr + o, "')]\n");
    doc = load_any(repr, o, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_uint_eq(doc->n_all_nodes, 2);
    document_free(doc);
    free(repr);
    free(buf);
}
END_TEST

/* A chain of depth d, indented as Spark prints it, each line behind prefix. */
static char *deep_chain(size_t d, const char *prefix, size_t *len)
{
    size_t pl = strlen(prefix);
    size_t cap = 64 + d * (pl + 48) + 3 * d * (d + 1) / 2;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    size_t o = (size_t)sprintf(buf, "%s== Physical Plan ==\n%s*(1) Project [id#0L]\n", prefix, prefix);
    for (size_t i = 1; i < d; i++) {
        memcpy(buf + o, prefix, pl);
        o += pl;
        memset(buf + o, ' ', 3 * (i - 1));
        o += 3 * (i - 1);
        o += (size_t)sprintf(buf + o, "+- *(1) Filter (id#0L > %zu)\n", i);
    }
    *len = o;
    return buf;
}

START_TEST(a_10000_deep_plan_survives_clean_up)
{
    /* Quoted in an email: clean-up rewrites all of its indentation (150 MB at 10,000). */
    size_t d = sanitized() ? 2000 : 10000, len;
    char *buf = deep_chain(d, "> ", &len);
    clock_t t0 = clock();
    struct document *doc = load_any(buf, len, NULL);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_ptr_nonnull(doc);
    struct plan_section *s = doc->first_plan->first_section;
    ck_assert_uint_eq(s->n_nodes, d);
    ck_assert_uint_eq(plan_section_node(s, d - 1)->depth, d - 1);
    fprintf(stderr, "hostile: %zu-deep quoted plan (%.0f MB) in %.2f s\n", d, (double)len / 1e6,
            secs);
    document_free(doc);
    free(buf);
}
END_TEST

/* "Project" then n "+- Filter" lines, all at column 0: the indentation was lost. */
static char *flat_chain(size_t n, size_t *len)
{
    char *buf = malloc(64 + n * 40);
    size_t o = (size_t)sprintf(buf, "Project [id#0L]\n");
    for (size_t i = 1; i < n; i++)
        o += (size_t)sprintf(buf + o, "+- Filter (id#0L > %zu)\n", i);
    *len = o;
    return buf;
}

static void assert_chain(struct document *doc, size_t n)
{
    struct plan_section *s = doc->first_plan->first_section;
    ck_assert_uint_eq(s->n_nodes, n);
    ck_assert_uint_eq(s->first_root->subtree_size, n - 1);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(plan_section_node(s, i)->depth, i);
    bool warned = false;
    for (struct plan_warning *w = doc->first_warning; w; w = w->next)
        warned |= strstr(w->message, "tree structure inferred from markers") != NULL;
    ck_assert(warned);
}

START_TEST(a_100000_node_chain_without_indentation_is_100000_deep)
{
    /* Written out with its indentation this chain would be 15 GB of spaces: the depths go to
       the parser instead (document.line_depth). */
    size_t n = 100000, len;
    char *buf = flat_chain(n, &len);
    clock_t t0 = clock();
    struct document *doc = load_any(buf, len, NULL);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_ptr_nonnull(doc);
    ck_assert_ptr_nonnull(doc->src.line_depth);
    assert_chain(doc, n);
    fprintf(stderr, "hostile: 100,000-node flat chain rebuilt in %.2f s\n", secs);
    document_free(doc);
    free(buf);
    /* 6,000 deep: 54 MB of prefixes for a 120 KB paste.  Written out they were 0.3 s and
       twice the memory of the depths for a 156 MB chain: past 16 MB the depths go too. */
    buf = flat_chain(6000, &len);
    doc = load_any(buf, len, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_ptr_nonnull(doc->src.line_depth);
    assert_chain(doc, 6000);
    document_free(doc);
    free(buf);
    /* A smaller one is rebuilt as text, every line with its prefix. */
    buf = flat_chain(1000, &len);
    doc = load_any(buf, len, NULL);
    ck_assert_ptr_null(doc->src.line_depth);
    assert_chain(doc, 1000);
    document_free(doc);
    free(buf);
}
END_TEST

static const char FORMATTED[] =
    "== Physical Plan ==\n"
    "AdaptiveSparkPlan (10)\n"
    "+- == Final Plan ==\n"
    "   * HashAggregate (6)\n"
    "   +- ShuffleQueryStage (5), Statistics(sizeInBytes=32.0 B, rowCount=2)\n"
    "      +- Exchange (4)\n"
    "         +- * HashAggregate (3)\n"
    "            +- * Filter (2)\n"
    "               +- * Range (1)\n"
    "+- == Initial Plan ==\n"
    "   HashAggregate (9)\n"
    "   +- Exchange (8)\n"
    "      +- HashAggregate (7)\n"
    "         +- Filter (2)\n"
    "            +- Range (1)\n"
    "\n"
    "\n"
    "(1) Range [codegen id : 1]\n"
    "Output [1]: [id#0L]\n"
    "Arguments: Range (0, 100, step=1, splits=Some(2))\n"
    "\n"
    "(2) Filter [codegen id : 1]\n"
    "Input [1]: [id#0L]\n"
    "Condition : (id#0L > 5)\n"
    "\n"
    "(4) Exchange\n"
    "Input [2]: [k#3, count#8L]\n"
    "Arguments: hashpartitioning(k#3, 4), ENSURE_REQUIREMENTS, [plan_id=21]\n"
    "\n"
    "(10) AdaptiveSparkPlan\n"
    "Output [2]: [k#3, count#9L]\n"
    "Arguments: isFinalPlan=true\n"
    "\n"
    "===== Subqueries =====\n"
    "\n"
    "Subquery:1 Hosting operator id = 2 Hosting Expression = Subquery subquery#5, [id=#40]\n"
    "* Project (12)\n"
    "+- * Range (11)\n"
    "\n";

static void every_cut(const char *text, size_t len)
{
    for (size_t cut = 0; cut <= len; cut++)
        load_and_free(text, cut);
}

START_TEST(plans_cut_at_every_byte_load)
{
    every_cut(FORMATTED, sizeof FORMATTED - 1);
    /* The pasted forms too: cut inside a table, a string, an escape. */
    char table[sizeof FORMATTED + 64];
    int n = snprintf(table, sizeof table, "+----+\n|plan|\n+----+\n|%s|\n+----+\n", FORMATTED);
    every_cut(table, (size_t)n);
    static const char repr[] =
        "[Row(plan='== Physical Plan ==\\n*(2) HashAggregate(keys=[k#3], functions=[count(1)])\\n"
        "+- Exchange hashpartitioning(k#3, 4), ENSURE_REQUIREMENTS, [plan_id=21]\\n"
        "   +- *(1) HashAggregate(keys=[k#3], functions=[partial_count(1)])\\n"
        "      +- *(1) Project [(id#0L % 3) AS k#3]\\n"
        "         +- *(1) Range (0, 100, step=1, splits=2)\\n\\u00e9\\x1b\\\\')]\n";
    every_cut(repr, sizeof repr - 1);
    static const char flat[] = "== Physical Plan ==\nAdaptiveSparkPlan (5)\n+- == Final Plan ==\n"
                               "* Project (4)\n+- * Filter (3)\n: +- Subquery (9)\n+- * Range (1)\n"
                               "+- == Initial Plan ==\nProject (4)\n+- Range (1)\n";
    every_cut(flat, sizeof flat - 1);
}
END_TEST

START_TEST(details_without_a_tree_and_trees_without_details)
{
    static const char details_only[] = "(1) Range [codegen id : 1]\nOutput [1]: [id#0L]\n\n"
                                       "(2) Filter [codegen id : 1]\nInput [1]: [id#0L]\n"
                                       "Condition : (id#0L > 5)\n";
    load_and_free(details_only, sizeof details_only - 1);
    static const char tree_only[] = "== Physical Plan ==\n* Filter (2)\n+- * Range (1)\n";
    struct document *doc = load_any(tree_only, sizeof tree_only - 1, NULL);
    ck_assert_ptr_nonnull(doc);
    struct plan_node *f = tu_root(doc);
    ck_assert_int_eq(f->id, 2);
    ck_assert_uint_eq(f->n_details, 0);
    document_free(doc);
}
END_TEST

START_TEST(duplicate_missing_and_dangling_ids_load)
{
    static const char odd[] =
        "== Physical Plan ==\n"
        "* Project (3)\n"
        "+- * Filter (3)\n"             /* the same id twice */
        "   +- ReusedExchange (5)\n"    /* its target does not exist */
        "      +- * Range (unknown)\n"  /* no id */
        "\n\n"
        "(3) Project [codegen id : 1]\nOutput [1]: [id#0L]\n\n"
        "(5) ReusedExchange [Reuses operator id: 99]\nOutput [1]: [id#0L]\n\n"
        "(7) Sort\nInput [1]: [id#0L]\n\n"          /* details of no node */
        "(4000000000) Sort\nInput [1]: [id#0L]\n\n" /* beyond any id */
        "(3) Project [codegen id : 2]\nOutput [1]: [id#0L]\n";
    struct document *doc = load_any(odd, sizeof odd - 1, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_uint_eq(doc->n_all_nodes, 4);
    ck_assert_ptr_null(plan_node_find_by_id(doc->first_plan, 99));
    ck_assert_ptr_null(plan_node_find_by_id(doc->first_plan, 7));
    document_free(doc);
}
END_TEST

/* Runs the binary; returns its stdout. */
static char *run_binary(const char *args, const char *file, int *status)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s '%s' 2>/dev/null", tu_binary(), args, file);
    return tu_run(cmd, status);
}

static char *write_temp(char *dir_out, const char *name, const char *text, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir_out, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

START_TEST(escapes_decoded_from_strings_are_shown_as_carets)
{
    /* A repr's "\x1b" becomes a real ESC once decoded: --print must still show "^[". */
    char dir[] = "/tmp/sparkplan-hostile-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static const char repr[] = "[Row(plan='== Physical Plan ==\\n*(1) Project [\\x1b[31mred\\x1b[0m#1]\\n"
                               "+- *(1) Scan \\x1b]0;owned\\x07 t\\n')]\n";
    char *path = write_temp(dir, "repr.txt", repr, sizeof repr - 1);
    int st;
    char *out = run_binary("--print", path, &st);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "^[[31mred^[[0m#1"));
    ck_assert_ptr_nonnull(strstr(out, "^[]0;owned^G"));
    ck_assert_ptr_null(strchr(out, '\x1b'));
    ck_assert_ptr_null(strchr(out, '\x07'));
    free(out);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(unreadable_files_say_why)
{
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_path("/nonexistent/dir/plan.txt", &doc, &err), SP_ERR_IO);
    ck_assert_str_eq(err.message, "No such file or directory");
    ck_assert_ptr_null(doc);
    ck_assert_int_eq(load_path("/tmp", &doc, &err), SP_ERR_IO);
    ck_assert_str_eq(err.message, "Is a directory");
    if (geteuid() == 0) {
        fprintf(stderr, "SKIP: running as root, permissions are not enforced\n");
        return;
    }
    char dir[] = "/tmp/sparkplan-hostile-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *path = write_temp(dir, "secret.txt", "Range (0, 1)\n", 13);
    ck_assert_int_eq(chmod(path, 0), 0);
    ck_assert_int_eq(load_path(path, &doc, &err), SP_ERR_IO);
    ck_assert_str_eq(err.message, "Permission denied");
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Event logs often come compressed: the message says how to open them (exit status 2). */
START_TEST(compressed_files_say_how_to_open_them)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *says;
    } cases[] = {
        {"\x1f\x8b\x08\x00junk", 8, "gzip-compressed: decompress it first (gzip -dc"},
        {"\x28\xb5\x2f\xfd\x00junk", 9, "zstd-compressed"},
        {"\x04\x22\x4d\x18junk", 8, "lz4-compressed"},
        {"\x82SNAPPY\x00junk", 12, "snappy-compressed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *copy = malloc(cases[i].len + 1);
        memcpy(copy, cases[i].bytes, cases[i].len);
        copy[cases[i].len] = '\0';
        struct document *doc = NULL;
        struct diag err = {0};
        ck_assert_int_eq(load_bytes("log", copy, cases[i].len, &doc, &err), SP_ERR_NO_PLAN);
        ck_assert_ptr_null(doc);
        ck_assert_msg(strstr(err.message, cases[i].says), "%s", err.message);
    }
    /* Through the command line: the file name, the hint, exit status 2. */
    char dir[] = "/tmp/sparkplan-hostile-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *path = write_temp(dir, "events.zstd", cases[1].bytes, cases[1].len);
    int st;
    char *out = tu_runf(&st, "'%s' --print '%s' 2>&1", tu_binary(), path);
    ck_assert_int_eq(st, 2);
    ck_assert_msg(strstr(out, "events.zstd: zstd-compressed: decompress it first"), "%s", out);
    free(out);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(input_is_never_written_and_nothing_in_it_is_run)
{
    char dir[] = "/tmp/sparkplan-hostile-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "== Physical Plan ==\n*(1) Project [$(touch %s/PWNED1)#1, `touch %s/PWNED2`#2]\n"
                     "+- *(1) Scan %s/PWNED3; rm -rf %s | sh\n",
                     dir, dir, dir, dir);
    char *path = write_temp(dir, "plan.txt", text, (size_t)n);
    ck_assert_int_eq(chmod(path, 0444), 0);
    struct stat before, after;
    ck_assert_int_eq(stat(path, &before), 0);
    const char *modes[] = {"--print", "--json", ""};
    for (size_t i = 0; i < 3; i++) {
        int st;
        char *out = run_binary(modes[i], path, &st);
        ck_assert_int_eq(st, 0);
        free(out);
    }
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert_int_eq(before.st_mtime, after.st_mtime);
    ck_assert_uint_eq(before.st_size, after.st_size);
    size_t len;
    char *now = tu_read_file(path, &len);
    ck_assert_uint_eq(len, (size_t)n);
    ck_assert(memcmp(now, text, len) == 0);
    free(now);
    /* Nothing new in the directory: no PWNED files, no temporary files, no logs. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    char *ls = tu_run(cmd, NULL);
    ck_assert_str_eq(ls, "plan.txt\n");
    free(ls);
    chmod(path, 0644);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(sources_spawn_no_processes)
{
    /* Nothing in the program runs a command: no shell, no exec, no fork — except the
     * explorer's | key, which shows text in the user's own $PAGER (term_pager in
     * src/ui/term.c: one fork, one exec of /bin/sh -c "$PAGER"; the plan never chooses
     * the command, it is only written to the pager's input). */
    char *hits = tu_run("grep -rnE '(^|[^a-z_])(system|popen|execl|execlp|execle|execv|execvp|"
                        "execvpe|fexecve|fork|vfork|posix_spawnp?)[[:space:]]*\\(' src "
                        "--exclude=term.c 2>&1",
                        NULL);
    ck_assert_ptr_nonnull(hits);
    ck_assert_msg(hits[0] == '\0', "process-spawning calls in src/:\n%s", hits);
    free(hits);
    hits = tu_run("grep -cE '(^|[^a-z_])(system|popen|execl|execlp|execle|execv|execvp|"
                  "execvpe|fexecve|fork|vfork|posix_spawnp?)[[:space:]]*\\(' src/ui/term.c "
                  "2>&1",
                  NULL);
    ck_assert_ptr_nonnull(hits);
    ck_assert_msg(strcmp(hits, "2\n") == 0, "src/ui/term.c spawns more than the pager: %s", hits);
    free(hits);
    hits = tu_run("grep -c 'execl(\"/bin/sh\", \"sh\", \"-c\", cmd' src/ui/term.c 2>&1", NULL);
    ck_assert_ptr_nonnull(hits);
    ck_assert_str_eq(hits, "1\n");
    free(hits);
}
END_TEST

Suite *hostile_suite(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("hostile");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, empty_and_blank_input_has_no_plan);
    tcase_add_test(tc, binary_and_nul_bytes_never_crash);
    tcase_add_test(tc, random_pastes_never_crash);
    tcase_add_test(tc, invalid_utf8_is_kept_as_it_is);
    tcase_add_test(tc, a_10_mb_single_line_loads);
    tcase_add_test(tc, a_10000_deep_plan_survives_clean_up);
    tcase_add_test(tc, a_100000_node_chain_without_indentation_is_100000_deep);
    tcase_add_test(tc, plans_cut_at_every_byte_load);
    tcase_add_test(tc, details_without_a_tree_and_trees_without_details);
    tcase_add_test(tc, duplicate_missing_and_dangling_ids_load);
    tcase_add_test(tc, escapes_decoded_from_strings_are_shown_as_carets);
    tcase_add_test(tc, unreadable_files_say_why);
    tcase_add_test(tc, compressed_files_say_how_to_open_them);
    tcase_add_test(tc, input_is_never_written_and_nothing_in_it_is_run);
    tcase_add_test(tc, sources_spawn_no_processes);
    suite_add_tcase(s, tc);
    return s;
}
