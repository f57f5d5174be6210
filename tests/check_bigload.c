/* Loading big inputs fast (issue 6): exact-size reads, growing arena chunks, the line index
 * sorted only when needed — none of which may change what is read or found. */
#include "testutil.h"

#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sparkplan/arena.h"
#include "sparkplan/clean.h"
#include "sparkplan/emit.h"
#include "sparkplan/mapfile.h"
#include "sparkplan/freshmem.h"
#include "sparkplan/parse.h"
#include "sparkplan/thread.h"

static const char plan_text[] = "== Physical Plan ==\n"
                                "*(1) Project [id#0L]\n"
                                "+- *(1) Range (0, 10, step=1, splits=2)\n"
                                "\n";

/* Writes copies of plan_text, then pads with spaces to exactly size bytes. */
static char *write_plan_file(size_t size)
{
    char *path = strdup("/tmp/sparkplan-bigload-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    size_t n = strlen(plan_text), written = 0;
    while (written + n <= size) {
        fwrite(plan_text, 1, n, f);
        written += n;
    }
    for (; written < size; written++)
        fputc(written + 1 == size ? '\n' : ' ', f);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

static void assert_loads_byte_for_byte(size_t size)
{
    char *path = write_plan_file(size);
    size_t len = 0;
    char *expected = tu_read_file(path, &len);
    ck_assert_uint_eq(len, size);
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_path(path, &doc, &err), SP_OK);
    ck_assert_uint_eq(doc->src.len, size);
    ck_assert(memcmp(doc->src.bytes, expected, size) == 0);
    ck_assert_int_eq(doc->src.bytes[size], '\0'); /* the guard byte the parser may rely on */
    ck_assert(doc->src.mapped == (size >= MAPFILE_MIN_SIZE)); /* big files are mapped */
    ck_assert_uint_ge(doc->n_all_nodes, 2);
    document_free(doc);
    free(expected);
    unlink(path);
    free(path);
}

START_TEST(a_big_file_loads_byte_for_byte)
{
    /* Several arena chunks' worth, an exact multiple of the page size, and small. */
    assert_loads_byte_for_byte(getenv("SPARKPLAN_SANITIZED") ? 5u << 20 : 9u << 20);
    /* Big enough for its pages to be mapped in by two threads, a page and a bit past it. */
    assert_loads_byte_for_byte(MAPFILE_POPULATE_HALVES_MIN + 4097);
    assert_loads_byte_for_byte(4u << 20);
    assert_loads_byte_for_byte(sizeof plan_text - 1);
}
END_TEST

/* A mapped file cut short by someone else while it is open: the bytes past the cut read as
   NUL and nothing dies of SIGBUS. */
START_TEST(a_mapped_file_truncated_under_us_reads_as_nul_bytes)
{
    size_t size = 3u << 20;
    char *path = write_plan_file(size);
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    char *p = mapfile_open(fd, size);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p[size], '\0');
    ck_assert_int_eq(truncate(path, 10000), 0);
    size_t nonzero = 0;
    for (size_t i = 0; i <= size; i++) /* past the cut: SIGBUS without the guard */
        nonzero += p[i] != '\0';
    ck_assert_uint_le(nonzero, 10000);
    ck_assert_uint_gt(nonzero, 9000);
    ck_assert_int_eq(memcmp(p, plan_text, strlen(plan_text)), 0);
    mapfile_close(p, size);
    close(fd);
    unlink(path);
    free(path);
    /* The same for a file whose pages two threads mapped in. */
    size = MAPFILE_POPULATE_HALVES_MIN + 100;
    path = write_plan_file(size);
    fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    p = mapfile_open(fd, size);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p[size - 1], '\n');
    ck_assert_int_eq(p[size], '\0');
    ck_assert_int_eq(truncate(path, size / 2), 0);
    nonzero = 0;
    for (size_t i = 0; i <= size; i++)
        nonzero += p[i] != '\0';
    ck_assert_uint_le(nonzero, size / 2);
    ck_assert_uint_gt(nonzero, size / 4);
    mapfile_close(p, size);
    close(fd);
    /* Small files are read, not mapped. */
    ck_assert_ptr_null(mapfile_open(0, MAPFILE_MIN_SIZE - 1));
    unlink(path);
    free(path);
}
END_TEST

/* A mapped input that clean-up rewrites (CRLF line ends here) gets the text written over
   the mapping: no second copy of a big input at the peak; the same plan as from a read. */
START_TEST(a_mapped_input_is_cleaned_in_place)
{
    static const char line[] = "+- Project [a#1]\r\n";
    size_t n_lines = (2u << 20) / (sizeof line - 1);
    size_t size = strlen("== Physical Plan ==\r\nProject [a#1]\r\n") + n_lines * (sizeof line - 1);
    char *buf = malloc(size + 1), *w = buf;
    w += sprintf(w, "== Physical Plan ==\r\nProject [a#1]\r\n");
    for (size_t i = 0; i < n_lines; i++) { /* children of the root */
        memcpy(w, line, sizeof line - 1);
        w += sizeof line - 1;
    }
    ck_assert_uint_eq((size_t)(w - buf), size);
    *w = '\0'; /* the guard byte loaders give every input */
    char path[] = "/tmp/sparkplan-crlf-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, buf, size), (ssize_t)size);
    close(fd);
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_path(path, &doc, &err), SP_OK);
    ck_assert(doc->src.mapped);
    ck_assert_ptr_null(doc->src.bytes);
    ck_assert_ptr_eq(doc->src.text, doc->src.over);
    ck_assert_uint_eq(doc->src.text_len, size - (n_lines + 2)); /* every '\r' gone */
    ck_assert_ptr_null(memchr(doc->src.text, '\r', doc->src.text_len));
    ck_assert_uint_eq(doc->n_all_nodes, n_lines + 1);
    ck_assert_uint_eq(document_node(doc, n_lines)->line, n_lines + 2);
    /* The same plan as from the bytes read into memory. */
    struct document *read = NULL;
    ck_assert_int_eq(load_bytes("crlf", buf, size, &read, &err), SP_OK);
    ck_assert_uint_eq(read->n_all_nodes, doc->n_all_nodes);
    ck_assert_uint_eq(read->src.text_len, doc->src.text_len);
    ck_assert(memcmp(read->src.text, doc->src.text, doc->src.text_len) == 0);
    document_free(read);
    document_free(doc);
    unlink(path);
}
END_TEST

/* From 8 MB on, the quick scan runs beside an optimistic parse of the bytes as they are
   (load.c).  A paste found early (quoted from the first line) or only at the very end (a
   tree line with trailing blanks after 9 MB of clean plan) must still be cleaned. */
START_TEST(a_big_paste_is_cleaned_whether_its_dirt_comes_first_or_last)
{
    size_t target = getenv("SPARKPLAN_SANITIZED") ? (9u << 20) : (12u << 20);
    size_t n = strlen(plan_text), copies = target / (n + 2) + 1;
    /* Quoted: every line behind "> ". */
    char *quoted = malloc(copies * (n + 8) + 64), *q = quoted;
    char *late = malloc(copies * n + 64), *l = late;
    for (size_t i = 0; i < copies; i++) {
        for (const char *ls = plan_text; *ls;) {
            const char *nl = strchr(ls, '\n');
            size_t len = (size_t)(nl - ls);
            if (len) {
                memcpy(q, "> ", 2);
                q += 2;
            } else {
                *q++ = '>';
            }
            memcpy(q, ls, len + 1);
            q += len + 1;
            ls = nl + 1;
        }
        memcpy(l, plan_text, n);
        l += n;
    }
    /* The last plan's scan line ends in blanks: a rewrite, found by the scan's last line. */
    l -= 2; /* before ")\n\n" ends: "...splits=2)\n\n" */
    memcpy(l - 1, ")   \n\n", 7);
    l += 5;
    const char *inputs[] = {quoted, late};
    size_t lens[] = {(size_t)(q - quoted), (size_t)(l - late)};
    for (int k = 0; k < 2; k++) {
        ck_assert_uint_ge(lens[k], 8u << 20);
        char *copy = malloc(lens[k] + 1);
        memcpy(copy, inputs[k], lens[k]);
        copy[lens[k]] = '\0';
        struct document *doc = NULL;
        struct diag err = {0};
        ck_assert_int_eq(load_bytes("big paste", copy, lens[k], &doc, &err), SP_OK);
        ck_assert_uint_eq(doc->n_plans, copies);
        ck_assert_uint_eq(doc->n_all_nodes, 2 * copies);
        ck_assert_ptr_ne(doc->src.text, doc->src.bytes); /* cleaned */
        const struct plan_node *last = document_node(doc, doc->n_all_nodes - 1);
        ck_assert(plan_node_text(last).len &&
                  plan_node_text(last).ptr[plan_node_text(last).len - 1] == ')');
        document_free(doc);
    }
    free(quoted);
    free(late);
}
END_TEST

/* The loader's two threads share the quick scan in pieces cut after blank lines (load.c):
   some verdicts no piece gives alone, only the pieces' merge.  Lines ending in blanks that
   are no tree lines (a root, a details block's lines) make a paste padded by a terminal
   when they are more than half the lines of the whole text: here in every copy (cleaned),
   or in a fifth of the lines (kept as it is). */
START_TEST(a_big_plan_gets_the_verdict_of_the_whole_text_from_the_shared_scan)
{
    static const char *const copies_of[] = {
        "== Physical Plan ==\n*(1) Project [id#0L] \n+- *(1) Range (0, 10, step=1, splits=2)\n\n"
        "(1) Range \nOutput [1]: [id#0L] \n\n",
        "== Physical Plan ==\n*(1) Project [id#0L] \n+- *(1) Range (0, 10, step=1, splits=2)\n\n"
        "(1) Range\nOutput [1]: [id#0L]\n\n",
    };
    size_t target = getenv("SPARKPLAN_SANITIZED") ? (9u << 20) : (12u << 20);
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(copies_of[k]), copies = target / n + 1, len = copies * n;
        char *text = malloc(len + 1);
        for (size_t i = 0; i < copies; i++)
            memcpy(text + i * n, copies_of[k], n);
        text[len] = '\0';
        bool dirty = clean_quick_scan(text, len);
        ck_assert(dirty == (k == 0));
        struct document *doc = NULL;
        struct diag err = {0};
        ck_assert_int_eq(load_bytes("big plan", text, len, &doc, &err), SP_OK);
        ck_assert_uint_eq(doc->n_plans, copies);
        if (k == 0)
            ck_assert_ptr_ne(doc->src.text, doc->src.bytes); /* cleaned: the blanks cut */
        else
            ck_assert_ptr_eq(doc->src.text, doc->src.bytes); /* read as it is */
        document_free(doc);
    }
}
END_TEST

/* An event log: a first record, then the plan of an SQL execution as Spark writes it, one
   JSON string on the second line, holding copies of a formatted plan up to about `target`
   bytes; `dirt` (JSON-escaped), when not NULL, is one more line of the plan at the given
   place (0: first, 1: in the middle, 2: last). */
static const char formatted_plan[] = "== Physical Plan ==\\n* Project (2)\\n+- * Range (1)\\n\\n\\n"
                                     "(1) Range [codegen id : 1]\\nOutput [1]: [id#0L]\\n"
                                     "Arguments: Range (0, 10, step=1, splits=Some(2))\\n\\n"
                                     "(2) Project [codegen id : 1]\\nOutput [1]: [id#0L]\\n"
                                     "Input [1]: [id#0L]\\n\\n";

static char *event_log_line(size_t target, const char *dirt, int where, bool one_line,
                            size_t *len)
{
    static const char first[] =
        "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.0\"}\n";
    static const char head[] =
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
        "\"executionId\":0,\"description\":\"q\",\"details\":\"\",\"physicalPlanDescription\":\"";
    static const char tail[] = "\",\"sparkPlanInfo\":{},\"time\":1}\n";
    size_t n = strlen(formatted_plan), copies = target / n + 1;
    size_t dn = dirt ? strlen(dirt) : 0;
    char *buf = malloc(sizeof first + sizeof head + copies * n + dn + sizeof tail), *w = buf;
    w += sprintf(w, "%s%s", one_line ? "" : first, head);
    for (size_t i = 0; i < copies; i++) {
        if (dirt && i == (where == 0 ? 0 : where == 1 ? copies / 2 : copies - 1) && where != 2) {
            memcpy(w, dirt, dn);
            w += dn;
        }
        memcpy(w, formatted_plan, n);
        w += n;
    }
    if (dirt && where == 2) {
        memcpy(w, dirt, dn);
        w += dn;
    }
    w += sprintf(w, "%s", tail);
    *len = (size_t)(w - buf);
    return buf;
}

/* A big plan decoded from an event log's string is parsed while a second thread runs the
   quick scan over the decoded text (load.c).  Whether the scan finds the text as Spark
   prints it (the parse is kept) or finds something to clean in it, first, in the middle or
   on the last line (the parse is thrown away and the clean-up's steps run), the document is
   the one a parse after the scan gives, from bytes in memory and from a file.  The record
   alone in the input (one line: its text is decoded without an array of its lines,
   clean_literal.c) gives the document of the same record behind a byte-order mark (which
   the array's way reads: its line does not start the buffer). */
START_TEST(a_decoded_plan_parsed_beside_its_scan_is_the_plan_parsed_after_it)
{
    size_t target = getenv("SPARKPLAN_SANITIZED") ? (9u << 20) : (12u << 20);
    /* A line led by a tab (the tabs step expands it): the scan says dirty, the shortcut's
       own rule (line_needs_steps) does not. */
    static const char tabbed[] = "\\t+- * Range (1)\\n";
    struct {
        const char *dirt;
        int where;
    } cases[] = {{NULL, 0}, {tabbed, 0}, {tabbed, 1}, {tabbed, 2}};
    for (size_t k = 0; k < 2 * sizeof cases / sizeof cases[0]; k++) {
        size_t len, c = k / 2;
        bool one_line = k % 2;
        char *line = event_log_line(target, cases[c].dirt, cases[c].where, one_line, &len);
        ck_assert_uint_ge(len, 8u << 20);
        size_t mark = one_line ? 3 : 0;
        char *copy = malloc(len + 1), *after = malloc(mark + len + 1);
        memcpy(copy, line, len + 1);
        memcpy(after, "\xEF\xBB\xBF", mark);
        memcpy(after + mark, line, len + 1);
        struct document *beside = NULL, *file = NULL;
        struct diag err = {0};
        ck_assert_int_eq(load_bytes("event log", copy, len, &beside, &err), SP_OK);
        /* The same bytes, the quick scan run by the clean-up itself before the parse. */
        struct document *seq = document_new("event log", after, mark + len);
        ck_assert_ptr_nonnull(seq);
        ck_assert_int_eq(clean_document_full(seq, &err), SP_OK);
        ck_assert_uint_eq(seq->src.n_notes, 0);
        source_drop_input(&seq->src);
        ck_assert_int_eq(parse_document(seq, &err), SP_OK);
        ck_assert(document_finish(seq));
        ck_assert_uint_ge(seq->n_plans, 8u << 20 >> 8);
        /* the JSON record's line */
        ck_assert_uint_eq(document_node(seq, 0)->line, one_line ? 1 : 2);
        tu_assert_same_document(beside, seq);
        ck_assert_uint_eq(beside->src.n_text_lines, seq->src.n_text_lines);
        for (uint32_t i = 1; i <= seq->src.n_text_lines; i++)
            ck_assert_uint_eq(source_input_line(&beside->src, i), source_input_line(&seq->src, i));
        /* From a file: read into memory rather than mapped (its first byte is '{'). */
        char path[] = "/tmp/sparkplan-evline-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, line, len), (ssize_t)len);
        close(fd);
        ck_assert_int_eq(load_path(path, &file, &err), SP_OK);
        if (!cases[c].dirt) /* the text is where the file's bytes were read */
            ck_assert_ptr_eq(file->src.text, file->src.over);
        ck_assert_uint_eq(file->src.text_len, seq->src.text_len);
        ck_assert(memcmp(file->src.text, seq->src.text, seq->src.text_len) == 0);
        ck_assert_uint_eq(file->n_all_nodes, seq->n_all_nodes);
        ck_assert_uint_eq(document_node(file, file->n_all_nodes - 1)->line, one_line ? 1 : 2);
        unlink(path);
        document_free(file);
        document_free(seq);
        document_free(beside);
        free(line);
    }
}
END_TEST

/* ---- a details list read on two threads (parse.h, parse_split_*; issue 17) ------------ */

/* The tree of a formatted plan of n operators: a Union (id n - 1) of n - 2 scans (ids 1 ..
   n - 2) under the root (id n), AdaptiveSparkPlan when aqe, else a Project; dup: the scan
   of id 5 printed twice (as an AQE initial plan reuses the final plan's ids). */
static void write_tree(FILE *f, int n, bool aqe, bool dup)
{
    fprintf(f, "== Physical Plan ==\n%s (%d)\n+- Union (%d)\n", aqe ? "AdaptiveSparkPlan" : "* Project",
            n, n - 1);
    for (int id = 1; id <= n - 2; id++)
        fprintf(f, "   %s * Scan parquet t%d (%d)\n", id == n - 2 ? "+-" : ":-", id % 7, id);
    if (dup)
        fprintf(f, "   :- * Scan parquet t5 (5)\n");
    fputc('\n', f);
}

/* A details block as Spark prints it, and the blank line after it. */
static void write_block(FILE *f, int id, int n)
{
    if (id == n)
        fprintf(f, "(%d) AdaptiveSparkPlan\nOutput [1]: [a#%d]\nArguments: isFinalPlan=true\n\n",
                id, id);
    else if (id == n - 1)
        fprintf(f, "(%d) Union\n\n", id);
    else
        fprintf(f,
                "(%d) Scan parquet t%d [codegen id : %d]\nOutput [2]: [a#%d, b#%d]\nBatched: "
                "true\nLocation: InMemoryFileIndex [file:/t]\nReadSchema: struct<a:int>\n\n",
                id, id % 7, id / 3 + 1, id, id);
}

/* The whole AQE plan of n operators, its tree then a block for every id: malloc'd,
   NUL-terminated, its length in *len. */
static char *write_aqe_plan(int n, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ck_assert_ptr_nonnull(f);
    write_tree(f, n, true, false);
    for (int id = 1; id <= n; id++)
        write_block(f, id, n);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

/* Every node's details, stage and flags, every plan's finality and every warning: the same
   in both documents (which read the same text). */
static void assert_same_details(struct document *a, struct document *b)
{
    ck_assert_uint_eq(a->n_plans, b->n_plans);
    ck_assert_uint_eq(a->n_all_nodes, b->n_all_nodes);
    for (const struct plan *pa = a->first_plan, *pb = b->first_plan; pa;
         pa = pa->next, pb = pb->next) {
        ck_assert_int_eq(pa->is_final, pb->is_final);
        ck_assert_int_eq(pa->adaptive, pb->adaptive);
    }
    for (size_t i = 0; i < a->n_all_nodes; i++) {
        const struct plan_node *x = document_node(a, i), *y = document_node(b, i);
        ck_assert_int_eq(x->id, y->id);
        ck_assert_int_eq(x->stage, y->stage);
        ck_assert_uint_eq(x->flags, y->flags);
        ck_assert_uint_eq(x->n_details, y->n_details);
        ck_assert_uint_eq(plan_node_details_line(x), plan_node_details_line(y));
        ck_assert_uint_eq(plan_node_details_text_line(x), plan_node_details_text_line(y));
        ck_assert_ptr_eq(plan_node_details_text(x).ptr, plan_node_details_text(y).ptr);
        ck_assert_uint_eq(plan_node_details_text(x).len, plan_node_details_text(y).len);
    }
    ck_assert_uint_eq(a->n_warnings, b->n_warnings);
    for (const struct plan_warning *v = a->first_warning, *w = b->first_warning; v;
         v = v->next, w = w->next) {
        ck_assert_uint_eq(v->line, w->line);
        ck_assert_str_eq(v->message, w->message);
    }
}

/* The text parsed alone and parsed with a reader of its details from a split point looked
   for at byte `from` (the reader run first, here on this thread): the same document.
   Returns the blocks taken from the reader. */
static size_t split_vs_alone(const char *text, size_t len, struct parse_split *sp)
{
    struct diag err = {0};
    struct document *alone = document_new("plan", NULL, 0), *split = document_new("plan", NULL, 0);
    source_borrow(&alone->src, text, len);
    source_borrow(&split->src, text, len);
    parse_split_read(sp);
    split->parse_split = sp;
    enum sp_status sa = parse_document(alone, &err), ss = parse_document(split, &err);
    ck_assert_int_eq(sa, ss);
    size_t taken = parse_split_taken(sp);
    split->parse_split = NULL;
    parse_split_free(sp);
    if (sa == SP_OK) {
        ck_assert(document_finish(alone));
        ck_assert(document_finish(split));
        assert_same_details(alone, split);
        tu_assert_same_document(alone, split);
    }
    document_free(alone);
    document_free(split);
    return taken;
}

static size_t assert_split_reads_the_same(const char *text, size_t len, size_t from)
{
    struct parse_split *sp = parse_split_new(text, len, from);
    ck_assert_ptr_nonnull(sp);
    ck_assert_uint_ge(parse_split_point(sp), from);
    return split_vs_alone(text, len, sp);
}

/* Each case: the text, and where the split point is looked for (an offset the writer
   noted); taken: whether the parser may take the reader's blocks there. */
START_TEST(a_details_list_read_on_two_threads_is_the_list_read_on_one)
{
    enum { PLAIN, HEADER_AFTER, TRUNCATED, DUPLICATES, NOWHERE, BLANKS, WIDE, INDENTED, FLAT,
           N_CASES };
    const int n = 400;
    for (int c = 0; c < N_CASES; c++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        long from = 0;
        if (c != FLAT)
            write_tree(f, n, c != PLAIN, c == DUPLICATES);
        for (int id = 1; id <= n; id++) {
            if (id == n / 2) {
                fflush(f);
                from = ftell(f);
            }
            if (c == TRUNCATED && id % 10 == 0) {
                /* 40 marks: the warnings stop at 20, on whichever side of the split. */
                fprintf(f, "(%d) Project [codegen id : 9]\nOutput [30]: [a#1, b#2, ... 28 more "
                           "fields]\nTruncated plan of 1000 characters\n\n", id);
                continue;
            }
            if (c == DUPLICATES && id > n / 2 && id % 50 == 0)
                write_block(f, id - 40, n); /* a second block for an id: dropped */
            if (c == NOWHERE && id == n / 2 + 30)
                fprintf(f, "(99999) Filter\nCondition : x\n\n(99999999999) Filter\nCondition : "
                           "y\n\n(77) Sort [codegen id : 99999999999]\nArguments: x\n\n");
            if (c == BLANKS && id % 25 == 0) {
                /* Empty scan metadata: a blank line inside the block, a field after it. */
                fprintf(f, "(%d) Scan parquet t [codegen id : 2]\nOutput [1]: [a#1]\n\nBatched: "
                           "true\n\n", id);
                if (id == n / 2 + 100)
                    /* Prose after a blank line: the list ends there, until the next block. */
                    fprintf(f, "this is not a field\n\n");
                continue;
            }
            if (c == WIDE && id == n / 2 + 40) {
                fprintf(f, "(%d) Project\n", id);
                for (int k = 0; k < 70000; k++)
                    fprintf(f, "Field%d: %d\n", k, k);
                fputc('\n', f);
                continue;
            }
            if (c == INDENTED && id == n / 2 + 60)
                fprintf(f, "(%d) Filter\nCondition : (a\n   AND b)\n\n", id);
            else
                write_block(f, id, n);
        }
        if (c == HEADER_AFTER) {
            /* A second plan right after the first one's list. */
            write_tree(f, 20, false, false);
            for (int id = 1; id <= 20; id++)
                write_block(f, id, 20);
        }
        ck_assert_int_eq(fclose(f), 0); /* buf: NUL-terminated */
        size_t taken = assert_split_reads_the_same(buf, len, (size_t)from);
        if (c == FLAT)
            ck_assert_uint_eq(taken, 0); /* a list without its tree: read alone */
        else
            ck_assert_uint_gt(taken, 0);
        if (c == HEADER_AFTER || c == PLAIN)
            ck_assert_uint_ge(taken, n / 2 - 2);
        free(buf);
    }
}
END_TEST

/* Every sample and corpus file, as its bytes read (the text a clean input gives the
   parser), with a split point looked for at each tenth of it: the same document as read
   alone.  Plans of TPC-DS queries and the like hold details lists long enough for a split
   point, so blocks are taken in many of them. */
static size_t n_split_files, n_split_taken;

static int visit_split(const char *path, const struct stat *st, int kind, struct FTW *ftw)
{
    (void)ftw;
    if (kind != FTW_F || !S_ISREG(st->st_mode) || st->st_size > (8 << 20))
        return 0;
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    if (!text)
        return 0;
    size_t last = SIZE_MAX;
    bool taken = false;
    for (int k = 0; k < 10; k++) {
        struct parse_split *sp = parse_split_new(text, len, len / 10 * (size_t)k);
        if (!sp)
            continue;
        if (parse_split_point(sp) == last) {
            parse_split_free(sp);
            continue;
        }
        last = parse_split_point(sp);
        taken |= split_vs_alone(text, len, sp) > 0;
    }
    n_split_files += last != SIZE_MAX;
    n_split_taken += taken;
    free(text);
    return 0;
}

START_TEST(every_sample_and_corpus_plan_reads_the_same_split)
{
    n_split_files = n_split_taken = 0;
    ck_assert_int_eq(nftw("samples", visit_split, 16, FTW_PHYS), 0);
    const char *dir = tu_corpus_dir();
    if (dir)
        ck_assert_int_eq(nftw(dir, visit_split, 16, FTW_PHYS), 0);
    else
        fprintf(stderr, "every_sample_and_corpus_plan_reads_the_same_split: no corpus\n");
    fprintf(stderr, "split: %zu files with a split point, blocks taken in %zu\n", n_split_files,
            n_split_taken);
    ck_assert_uint_gt(n_split_taken, 0);
}
END_TEST

/* From 8 MB on, a mapped paste's writable copy is made on a second thread while the
   clean-up reads the mapping (the literal step decodes into scratch meanwhile, clean.c), and
   the wrap step's arrays are made present there first.  Every corpus file (or every sample,
   without the corpus) one after the other up to 9 MB, pasted as a file: the document is the
   one the same bytes give from memory, where no copy is made. */
static char *paste_buf;
static size_t paste_len, paste_cap;

static int visit_paste(const char *path, const struct stat *st, int kind, struct FTW *ftw)
{
    (void)ftw;
    if (kind != FTW_F || !S_ISREG(st->st_mode) || paste_len >= paste_cap ||
        strstr(path, ".md") || strstr(path, ".tsv"))
        return 0;
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    if (!text)
        return 0;
    if (len > paste_cap - paste_len)
        len = paste_cap - paste_len;
    memcpy(paste_buf + paste_len, text, len);
    paste_len += len;
    free(text);
    return 0;
}

START_TEST(a_mapped_paste_copied_on_a_second_thread_is_the_paste_from_memory)
{
    paste_cap = 9u << 20;
    paste_buf = malloc(paste_cap + 1);
    paste_len = 0;
    const char *dir = tu_corpus_dir();
    /* Bound: each round adds a file or more, up to paste_cap. */
    while (paste_len < paste_cap) {
        size_t before = paste_len;
        ck_assert_int_eq(nftw(dir ? dir : "samples", visit_paste, 16, FTW_PHYS), 0);
        ck_assert_uint_gt(paste_len, before);
    }
    paste_buf[paste_len] = '\0';
    char path[] = "/tmp/sparkplan-paste-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, paste_buf, paste_len), (ssize_t)paste_len);
    close(fd);
    struct document *mapped = NULL, *read = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_path(path, &mapped, &err), SP_OK);
    ck_assert(mapped->src.mapped);
    ck_assert_ptr_ne(mapped->src.text, mapped->src.bytes); /* cleaned */
    ck_assert_int_eq(load_bytes(path, paste_buf, paste_len, &read, &err), SP_OK);
    tu_assert_same_document(mapped, read);
    for (const struct plan_warning *a = mapped->first_warning, *b = read->first_warning; a;
         a = a->next, b = b->next) {
        ck_assert_uint_eq(a->line, b->line);
        ck_assert_str_eq(a->message, b->message);
    }
    document_free(mapped);
    document_free(read); /* and paste_buf, which load_bytes took */
    unlink(path);
}
END_TEST

/* The same text in one JSON string of an event log: the plan decoded from it. */
static char *json_string_line(const char *text, size_t len, size_t *out_len)
{
    static const char head[] =
        "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.0\"}\n"
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
        "\"executionId\":0,\"description\":\"q\",\"details\":\"\",\"physicalPlanDescription\":\"";
    static const char tail[] = "\",\"sparkPlanInfo\":{},\"time\":1}\n";
    char *buf = malloc(sizeof head + 2 * len + sizeof tail), *w = buf;
    w += sprintf(w, "%s", head);
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            *w++ = '\\';
            *w++ = 'n';
        } else {
            *w++ = text[i];
        }
    }
    w += sprintf(w, "%s", tail);
    *out_len = (size_t)(w - buf);
    return buf;
}

/* From 8 MB on, the loader reads the end of a formatted plan's details list on its second
   thread, a plan file's and the plan decoded from an event log's line alike: blocks are
   taken from the reader, and the document is the one a parse alone gives. */
START_TEST(a_big_formatted_plan_is_loaded_on_two_threads_as_on_one)
{
    int n = getenv("SPARKPLAN_SANITIZED") ? 60000 : 80000;
    size_t len;
    char *buf = write_aqe_plan(n, &len);
    ck_assert_uint_ge(len, 8u << 20);
    size_t jlen;
    char *json = json_string_line(buf, len, &jlen);
    for (int k = 0; k < 2; k++) {
        const char *in = k ? json : buf;
        size_t in_len = k ? jlen : len;
        char *copy = malloc(in_len + 1), *after = malloc(in_len + 1);
        memcpy(copy, in, in_len + 1);
        memcpy(after, in, in_len + 1);
        struct document *two = NULL;
        struct diag err = {0};
        size_t before = parse_split_blocks_taken();
        ck_assert_int_eq(load_bytes("big", copy, in_len, &two, &err), SP_OK);
        /* The point is right after the tree (a fifth of this plan's bytes): the second
           thread reads most blocks (where it was looked for at 70 %, 37 % of them). */
        ck_assert_uint_gt(parse_split_blocks_taken(), before + (size_t)n * 6 / 10);
        /* The quick scan, and for the event log the decoding, before a parse alone. */
        struct document *one = document_new("big", after, in_len);
        ck_assert_int_eq(k ? clean_document_full(one, &err) : clean_document(one, &err), SP_OK);
        ck_assert_uint_eq(one->src.n_notes, 0);
        if (k)
            source_drop_input(&one->src);
        ck_assert_int_eq(parse_document(one, &err), SP_OK);
        ck_assert(document_finish(one));
        ck_assert_uint_eq(one->n_all_nodes, (size_t)n);
        ck_assert_int_eq(one->first_plan->is_final, 1);
        tu_assert_same_document(one, two);
        document_free(one);
        document_free(two);
    }
    free(json);
    free(buf);
}
END_TEST

/* A formatted plan after a long simple one: there is no details list where the split point
   is looked for first (35 % in), so it is looked for later (70 %), and the end of the list
   is still read on the second thread; the document is the one a parse alone gives. */
START_TEST(a_details_list_that_starts_late_is_still_read_on_two_threads)
{
    int n = getenv("SPARKPLAN_SANITIZED") ? 60000 : 80000;
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    /* A simple plan of as many bytes as the formatted one's (about 160 a node). */
    fprintf(f, "== Physical Plan ==\nUnion\n");
    for (int i = 0; i < 3 * n; i++)
        fprintf(f, "%s *(1) Scan parquet t%d [a#%d] Batched: true, Location: [file:/t]\n",
                i + 1 < 3 * n ? ":-" : "+-", i % 7, i);
    fputc('\n', f);
    write_tree(f, n, true, false);
    for (int id = 1; id <= n; id++)
        write_block(f, id, n);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_uint_ge(len, 16u << 20);
    char *after = malloc(len + 1);
    memcpy(after, buf, len + 1);
    struct document *two = NULL, *one = document_new("big", after, len);
    struct diag err = {0};
    size_t before = parse_split_blocks_taken();
    ck_assert_int_eq(load_bytes("big", buf, len, &two, &err), SP_OK);
    ck_assert_uint_gt(parse_split_blocks_taken(), before + (size_t)n / 10);
    ck_assert_int_eq(clean_document(one, &err), SP_OK);
    ck_assert_int_eq(parse_document(one, &err), SP_OK);
    ck_assert(document_finish(one));
    ck_assert_uint_eq(one->n_plans, 2);
    ck_assert_uint_eq(one->n_all_nodes, (size_t)n + 3 * (size_t)n + 1);
    tu_assert_same_document(one, two);
    document_free(one);
    document_free(two);
}
END_TEST

/* A big formatted plan of many subqueries, as Spark prints one per hosting expression, has
   blocks for its main plan's few operators only: its details store takes what they need
   (64 KB steps), not a 2 MB page; every block and subquery reads back. */
START_TEST(a_plan_of_many_subqueries_takes_no_big_block_store)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputs("== Physical Plan ==\n* Project (2)\n+- Scan parquet db.t (1)\n\n\n"
          "(1) Scan parquet db.t\nOutput [1]: [a#1]\n\n"
          "(2) Project [codegen id : 1]\nOutput [1]: [a#1]\n\n===== Subqueries =====\n\n", f);
    int n = 80000;
    for (int k = 1; k <= n; k++)
        fprintf(f, "Subquery:%d Hosting operator id = 2 Hosting Expression = Subquery "
                   "scalar-subquery#%d\nScan parquet db.s%d (%d)\n\n\n", k, k + 9, k - 1, k + 2);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_uint_gt(len, 8u << 20);
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_bytes("subqueries", buf, len, &doc, &err), SP_OK);
    ck_assert_uint_eq(doc->n_all_nodes, (size_t)n + 2);
    ck_assert_uint_le(doc->blocks.committed, (size_t)64 << 10);
    const struct plan *p = doc->first_plan;
    const struct plan_node *scan = plan_node_find_by_id(p, 1);
    ck_assert_ptr_nonnull(scan);
    tu_assert_slice_is(plan_node_details_text(scan), "(1) Scan parquet db.t\nOutput [1]: [a#1]");
    ck_assert_uint_eq(plan_node_details_line(scan), 6);
    const struct plan_node *last = plan_node_find_by_id(p, n + 2);
    ck_assert_ptr_nonnull(last);
    ck_assert_uint_eq(plan_node_details_text(last).len, 0);
    ck_assert_int_eq(last->section->kind, SECTION_SUBQUERY);
    document_free(doc);
}
END_TEST

/* A big plan's model memory comes in big steps, not a 4 KB page fault at a time (about
   12 us each on the benchmark VM, 12 ms for every 4 MB): the node store skips its small
   first steps, the details store keeps only its first 64 KB of them (a plan of subqueries
   may hold a block or two), and a plan's id table past 1 MB and the parser's id index past
   2 MB (which becomes that table: give_by_id) are mappings of their own.  The model is the
   one the walk finishes (no record), id for id; a text under 8 MB keeps the small steps. */
START_TEST(a_big_plan_takes_its_model_memory_in_big_steps)
{
    int n = 270000; /* ids past 262,144: the id table past 1 MB, the id index past 2 MB */
    size_t len;
    char *buf = write_aqe_plan(n, &len);
    struct document *doc[2] = {NULL, NULL};
    struct diag err = {0};
    for (int k = 0; k < 2; k++) {
        char *copy = malloc(len + 1);
        memcpy(copy, buf, len + 1);
        plan_order_enable(k == 0); /* 1: finished by the walk */
        ck_assert_int_eq(load_bytes("big", copy, len, &doc[k], &err), SP_OK);
        plan_order_enable(true);
        ck_assert_uint_eq(doc[k]->n_all_nodes, (size_t)n);
        ck_assert_uint_eq(doc[k]->nodes.small, 0);
        ck_assert_uint_eq(doc[k]->blocks.small, (size_t)64 << 10);
        ck_assert_uint_ge(doc[k]->first_plan->by_id_len, (uint32_t)n);
        ck_assert_uint_gt(doc[k]->first_plan->by_id_mapped, 0);
    }
    tu_assert_same_document(doc[0], doc[1]);
    const struct plan *p = doc[0]->first_plan, *q = doc[1]->first_plan;
    ck_assert_uint_eq(p->by_id_len, q->by_id_len);
    for (int32_t id = 0; id < (int32_t)p->by_id_len; id++) {
        const struct plan_node *x = plan_node_find_by_id(p, id), *y = plan_node_find_by_id(q, id);
        ck_assert_int_eq(x != NULL, y != NULL);
        ck_assert_int_eq(x != NULL, id >= 1);
        if (x) {
            ck_assert_int_eq(x->id, id);
            ck_assert_uint_eq(plan_node_index(x), plan_node_index(y));
            ck_assert_uint_eq(x->n_details, y->n_details);
            ck_assert_uint_eq(plan_node_details_text(x).len, plan_node_details_text(y).len);
        }
    }
    for (size_t i = 0; i < doc[0]->n_all_nodes; i++) {
        const struct plan_node *x = document_node(doc[0], i);
        ck_assert_ptr_eq(plan_node_find_by_id(p, x->id), x);
        ck_assert_uint_eq(x->depth, document_node(doc[1], i)->depth);
        ck_assert_uint_eq(x->subtree_size, document_node(doc[1], i)->subtree_size);
    }
    document_free(doc[0]);
    document_free(doc[1]);
    /* A text under 8 MB (a paste, a sample): its first 4 MB of nodes still in 64 KB steps. */
    char *small = malloc(len / 16 + 1);
    memcpy(small, buf, len / 16);
    small[len / 16] = '\0';
    struct document *d = NULL;
    ck_assert_int_eq(load_bytes("small", small, len / 16, &d, &err), SP_OK);
    ck_assert_uint_eq(d->nodes.small, 4u << 20);
    document_free(d);
    free(buf);
}
END_TEST

START_TEST(devices_and_directories_load_like_before)
{
    struct document *doc = NULL;
    struct diag err = {0};
    /* A character device has no size to trust: read as a stream, found empty. */
    ck_assert_int_eq(load_path("/dev/null", &doc, &err), SP_ERR_NO_PLAN);
    ck_assert_ptr_null(doc);
    ck_assert_int_eq(load_path("/tmp", &doc, &err), SP_ERR_IO);
    ck_assert_str_eq(err.message, "Is a directory");
    ck_assert_int_eq(load_path("/nonexistent/plan.txt", &doc, &err), SP_ERR_IO);
    ck_assert_str_eq(err.message, "No such file or directory");
}
END_TEST

START_TEST(the_arena_grows_its_chunks_and_keeps_memory_zeroed)
{
    struct arena a;
    arena_init(&a);
    size_t total = getenv("SPARKPLAN_SANITIZED") ? 8u << 20 : 24u << 20, got = 0; /* several chunk sizes */
    unsigned char *last = NULL;
    while (got < total) {
        unsigned char *p = arena_alloc(&a, 184); /* a plan node of the first layout */
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 8, 0);
        ck_assert(p[0] == 0 && p[183] == 0);
        memset(p, 0xab, 184);
        got += 184;
        last = p;
    }
    ck_assert_uint_ge(a.used_bytes, total);
    ck_assert_uint_eq(last[183], 0xab);
    arena_free(&a);
    ck_assert_uint_eq(a.used_bytes, 0);
}
END_TEST

/* all_nodes is filled in place, sized by the nodes plan_node_new made; a document that
   holds more (linked in by hand) still finishes, through a growing copy. */
START_TEST(finishing_more_nodes_than_were_counted)
{
    char *bytes = strdup("");
    struct document *doc = document_new("undercounted", bytes, 0);
    struct plan *p = document_add_plan(doc, 1);
    struct plan_section *s = plan_add_section(p, SECTION_PHYSICAL, slice_cstr("=="), 1);
    struct plan_node *last = NULL;
    for (uint32_t i = 0; i < 10000; i++) {
        struct plan_node *n = plan_node_new(s);
        n->line = i + 2;
        n->id = (int32_t)i;
        plan_node_set_text(n, slice_cstr("Project")), plan_node_set_name(n, plan_node_text(n));
        if (last)
            plan_node_append_child_after(last, NULL, n); /* a chain */
        else
            plan_section_append_root(s, n);
        last = n;
    }
    doc->n_nodes_made = 3; /* as if most nodes were made elsewhere */
    ck_assert(document_finish(doc));
    ck_assert_uint_eq(doc->n_all_nodes, 10000);
    ck_assert_uint_eq(s->n_nodes, 10000);
    for (uint32_t i = 0; i < 10000; i++) {
        ck_assert_uint_eq(document_node(doc, i)->line, i + 2);
        ck_assert_ptr_eq(plan_section_node(s, i), document_node(doc, i));
        ck_assert_ptr_eq(plan_node_find_by_id(p, (int32_t)i), document_node(doc, i));
    }
    document_free(doc);
}
END_TEST

START_TEST(nodes_out_of_line_order_are_still_found_by_line)
{
    char *bytes = strdup("");
    struct document *doc = document_new("reversed", bytes, 0);
    struct plan *p = document_add_plan(doc, 1);
    struct plan_section *s =
        plan_add_section(p, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 1);
    for (uint32_t i = 0; i < 1000; i++) { /* roots created from the last line up */
        struct plan_node *n = plan_node_new(s);
        n->line = 2000 - 2 * i;
        plan_node_set_text(n, slice_cstr("Project")), plan_node_set_name(n, plan_node_text(n));
        plan_section_append_root(s, n);
    }
    ck_assert(document_finish(doc));
    struct plan_node *n = document_node_at_line(doc, 1001);
    ck_assert_ptr_nonnull(n);
    ck_assert_uint_eq(n->line, 1000);
    ck_assert_uint_eq(document_node_at_line(doc, 2000)->line, 2000);
    ck_assert_ptr_null(document_node_at_line(doc, 1));
    document_free(doc);
}
END_TEST

/* Two plans of two sections each; ids repeat across a plan's sections. */
START_TEST(finishing_numbers_every_section_and_keeps_the_first_id)
{
    char *bytes = strdup("");
    struct document *doc = document_new("two plans", bytes, 0);
    uint32_t line = 1;
    struct plan_node *first_3[2] = {NULL, NULL};
    for (int pi = 0; pi < 2; pi++) {
        struct plan *p = document_add_plan(doc, line);
        for (int si = 0; si < 2; si++) {
            struct plan_section *s =
                plan_add_section(p, si ? SECTION_SUBQUERY : SECTION_PHYSICAL, slice_cstr("=="), line);
            /* root with two children, the first of which has a child: ids 3, 2, 1, 4 */
            struct plan_node *n[4];
            static const int32_t ids[4] = {3, 2, 1, 4};
            for (int k = 0; k < 4; k++) {
                n[k] = plan_node_new(s);
                n[k]->line = ++line;
                n[k]->id = ids[k];
                plan_node_set_text(n[k], slice_cstr("Project")),
                    plan_node_set_name(n[k], plan_node_text(n[k]));
            }
            plan_section_append_root(s, n[0]);
            plan_node_append_child(n[0], n[1]);
            plan_node_append_child(n[1], n[2]);
            plan_node_append_child(n[0], n[3]);
            if (si == 0)
                first_3[pi] = n[0];
        }
    }
    ck_assert(document_finish(doc));
    ck_assert_uint_eq(doc->n_all_nodes, 16);
    int pi = 0;
    for (struct plan *p = doc->first_plan; p; p = p->next, pi++) {
        ck_assert_uint_eq(p->by_id_len, 5);
        ck_assert_ptr_eq(plan_node_find_by_id(p, 3),
                         first_3[pi]); /* the first section's, not the second's */
        for (struct plan_section *s = p->first_section; s; s = s->next) {
            ck_assert_uint_eq(s->n_nodes, 4);
            ck_assert_uint_eq(s->first_root->subtree_size, 3);
            ck_assert_uint_eq(plan_section_node(s, 2)->depth, 2);
            ck_assert_int_eq(plan_section_node(s, 2)->id, 1);
            for (uint32_t i = 0; i < 4; i++) {
                ck_assert_uint_eq(plan_node_preorder(plan_section_node(s, i)), i);
                ck_assert_ptr_eq(plan_section_node(s, i)->section, s);
            }
        }
    }
    for (size_t i = 1; i < doc->n_all_nodes; i++) /* input order, nothing to sort */
        ck_assert_uint_lt(document_node(doc, i - 1)->line, document_node(doc, i)->line);
    ck_assert_uint_eq(document_node_at_line(doc, 7)->line, 7);
    document_free(doc);
}
END_TEST

/* The worker threads (quick scan, search half, analysis) leave resize, stop and quit to the
 * explorer's main thread, and still take the faults mapfile's guard needs. */
static void *read_mask(void *arg)
{
    pthread_sigmask(SIG_SETMASK, NULL, arg);
    return NULL;
}

START_TEST(worker_threads_leave_the_terminal_signals_to_the_main_thread)
{
    sigset_t mask, before, after;
    pthread_sigmask(SIG_SETMASK, NULL, &before);
    pthread_t th;
    ck_assert(thread_start_quiet(&th, read_mask, &mask));
    pthread_join(th, NULL);
    ck_assert(sigismember(&mask, SIGWINCH));
    ck_assert(sigismember(&mask, SIGTSTP));
    ck_assert(sigismember(&mask, SIGINT));
    ck_assert(!sigismember(&mask, SIGBUS));
    ck_assert(!sigismember(&mask, SIGSEGV));
    pthread_sigmask(SIG_SETMASK, NULL, &after); /* the caller's own mask is as it was */
    ck_assert_int_eq(sigismember(&after, SIGWINCH), sigismember(&before, SIGWINCH));
    ck_assert_int_eq(sigismember(&after, SIGINT), sigismember(&before, SIGINT));
}
END_TEST

/* AnonHugePages of the mapping that holds p (/proc/self/smaps), in kB; -1 when unknown. */
static long huge_kb_at(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    bool in = false;
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') == line + strspn(line, "0123456789abcdef")) {
            in = (uintptr_t)p >= a && (uintptr_t)p < b;
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
            break;
    }
    fclose(f);
    return kb;
}

/* Huge pages that are dear to fault in (a virtual machine's host backing a freed block again
   on its first write): the first one of a block is timed, and when it was slow the rest of
   the block is 4 KB pages, zeroed and writable all the same. */
START_TEST(a_dear_first_huge_page_makes_the_rest_small_pages)
{
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char mode[128] = "";
    if (thp) {
        if (!fgets(mode, sizeof mode, thp))
            mode[0] = '\0';
        fclose(thp);
    }
    if (!strstr(mode, "[madvise]") && !strstr(mode, "[always]")) {
        fprintf(stderr, "bigload: transparent huge pages off here: dear-page test skipped\n");
        return;
    }
    for (int dear = 0; dear < 2; dear++) {
        freshmem_set_huge_fault_dear(dear ? 1 : UINT64_MAX); /* every fault dear, or none */
        size_t len;
        char *p = freshmem_map(8u << 20, &len);
        ck_assert_ptr_nonnull(p);
        for (size_t i = 0; i < len; i += 4096)
            ck_assert_int_eq(p[i], 0);
        memset(p, 7, len);
        long kb = huge_kb_at(p + len - 1);
        if (kb >= 0 && dear)
            ck_assert_int_le(kb, 2048); /* the timed page at most */
        if (kb == 0 && !dear)
            fprintf(stderr, "bigload: no huge pages to be had here (fragmented memory?)\n");
        munmap(p, len);
    }
    freshmem_set_huge_fault_dear(0);
}
END_TEST

/* A big JSON file (an event log) is read into fresh memory rather than mapped, a piece at a
   time by two threads (the last piece a short one): every byte in its place, the guard byte
   NUL. */
START_TEST(a_big_json_file_is_read_whole_in_pieces_on_two_threads)
{
    size_t size = MAPFILE_POPULATE_HALVES_MIN + 12345;
    char path[] = "/tmp/sparkplan-json-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char *want = malloc(size);
    ck_assert_ptr_nonnull(want);
    want[0] = '{';
    for (size_t i = 1; i < size; i++) /* no run repeats at a power of two */
        want[i] = (char)('a' + (i * 7 + i / 4093) % 26);
    ck_assert_int_eq(write(fd, want, size), (ssize_t)size);
    char *p = mapfile_open(fd, size);
    ck_assert_ptr_nonnull(p);
    ck_assert(memcmp(p, want, size) == 0);
    ck_assert_int_eq(p[size], '\0');
    mapfile_close(p, size);
    close(fd);
    unlink(path);
    free(want);
}
END_TEST

/* A mapped file made writable (a paste clean-up writes over): its copy is made a piece at a
   time by the thread mapfile_writable_begin starts and, once the caller waits for it, by the
   caller too.  Here the thread's first work holds it back until the caller waits, so both
   take pieces: every byte of a 40 MB file (five pieces and a short one) is in its place, the
   guard byte NUL, and the mapping takes writes. */
static atomic_int swap_go;

static void swap_hold(void *arg)
{
    (void)arg;
    /* Bound: until the caller is about to wait (a few ms at most). */
    while (!atomic_load(&swap_go))
        sched_yield();
}

START_TEST(a_writable_copy_made_on_both_threads_keeps_every_byte)
{
    size_t size = (40u << 20) + 4321;
    char path[] = "/tmp/sparkplan-swap-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char *want = malloc(size);
    ck_assert_ptr_nonnull(want);
    for (size_t i = 0; i < size; i++) /* no run repeats at a power of two */
        want[i] = (char)('a' + (i * 7 + i / 4093) % 26);
    ck_assert_int_eq(write(fd, want, size), (ssize_t)size);
    char *p = mapfile_open(fd, size);
    ck_assert_ptr_nonnull(p);
    atomic_store(&swap_go, 0);
    ck_assert(mapfile_writable_begin(p, size, swap_hold, NULL));
    ck_assert(memcmp(p, want, size) == 0); /* read while the copy is being made */
    atomic_store(&swap_go, 1);
    ck_assert(mapfile_writable(p, size));
    ck_assert(memcmp(p, want, size) == 0);
    ck_assert_int_eq(p[size], '\0');
    p[0] = 'X';
    p[size - 1] = 'Y';
    ck_assert_int_eq(p[0], 'X');
    mapfile_close(p, size);
    close(fd);
    unlink(path);
    free(want);
}
END_TEST

Suite *bigload_suite(void)
{
    Suite *s = suite_create("bigload");
    TCase *tc = tcase_create("bigload");
    tcase_add_test(tc, a_big_file_loads_byte_for_byte);
    tcase_add_test(tc, a_mapped_file_truncated_under_us_reads_as_nul_bytes);
    tcase_add_test(tc, a_big_json_file_is_read_whole_in_pieces_on_two_threads);
    tcase_add_test(tc, a_writable_copy_made_on_both_threads_keeps_every_byte);
    tcase_add_test(tc, a_big_paste_is_cleaned_whether_its_dirt_comes_first_or_last);
    tcase_add_test(tc, a_big_plan_gets_the_verdict_of_the_whole_text_from_the_shared_scan);
    tcase_add_test(tc, a_mapped_input_is_cleaned_in_place);
    tcase_add_test(tc, a_decoded_plan_parsed_beside_its_scan_is_the_plan_parsed_after_it);
    tcase_add_test(tc, a_mapped_paste_copied_on_a_second_thread_is_the_paste_from_memory);
    tcase_add_test(tc, a_details_list_read_on_two_threads_is_the_list_read_on_one);
    tcase_add_test(tc, a_big_formatted_plan_is_loaded_on_two_threads_as_on_one);
    tcase_add_test(tc, a_details_list_that_starts_late_is_still_read_on_two_threads);
    tcase_add_test(tc, a_big_plan_takes_its_model_memory_in_big_steps);
    tcase_add_test(tc, every_sample_and_corpus_plan_reads_the_same_split);
    tcase_add_test(tc, devices_and_directories_load_like_before);
    tcase_add_test(tc, the_arena_grows_its_chunks_and_keeps_memory_zeroed);
    tcase_add_test(tc, a_dear_first_huge_page_makes_the_rest_small_pages);
    tcase_add_test(tc, nodes_out_of_line_order_are_still_found_by_line);
    tcase_add_test(tc, finishing_more_nodes_than_were_counted);
    tcase_add_test(tc, finishing_numbers_every_section_and_keeps_the_first_id);
    tcase_add_test(tc, worker_threads_leave_the_terminal_signals_to_the_main_thread);
    tcase_add_test(tc, a_plan_of_many_subqueries_takes_no_big_block_store);
    suite_add_tcase(s, tc);
    return s;
}
