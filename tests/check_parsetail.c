/* A big text parsed in two parts at once (issue 17; parse.h, parse_tail_*): a second thread
 * parses the text from a cut on, the first appends its plans at the cut (document_append)
 * when its own state there is the one the second thread started from.  The model must be
 * the whole parse's, byte for byte, wherever the cut falls: every sample and corpus file,
 * alone and pasted after another one (what a plan carries past its end: a golden file's
 * query, its analysis hint, the warnings counted per document), with the cut at each place
 * it can be. */
#include "testutil.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sparkplan/clean.h"
#include "sparkplan/emit.h"
#include "sparkplan/parse.h"

/* What the cut parse must not change: plans, nodes (their every field the outputs do not
   show too), warnings in order, and --json and --print. */
static void assert_same_model(const struct document *a, const struct document *b,
                              const char *what, size_t cut)
{
    ck_assert_msg(a->n_plans == b->n_plans, "%s, cut at %zu: %u plans, whole %u", what, cut,
                  b->n_plans, a->n_plans);
    ck_assert_msg(a->n_all_nodes == b->n_all_nodes, "%s, cut at %zu: %zu nodes, whole %zu",
                  what, cut, b->n_all_nodes, a->n_all_nodes);
    for (const struct plan *pa = a->first_plan, *pb = b->first_plan; pa;
         pa = pa->next, pb = pb->next) {
        ck_assert_uint_eq(pa->line, pb->line);
        ck_assert_uint_eq(pa->n_sections, pb->n_sections);
        ck_assert_int_eq(pa->is_final, pb->is_final);
        ck_assert_uint_eq(pa->by_id_len, pb->by_id_len);
        ck_assert_ptr_eq(pa->source.query.ptr, pb->source.query.ptr);
        ck_assert_uint_eq(pa->source.query.len, pb->source.query.len);
        ck_assert_ptr_eq(pa->source.logger.ptr, pb->source.logger.ptr);
        for (int32_t id = 0; (uint32_t)id < pa->by_id_len; id++) {
            const struct plan_node *x = plan_node_find_by_id(pa, id),
                                   *y = plan_node_find_by_id(pb, id);
            ck_assert_msg((x == NULL) == (y == NULL), "%s, cut at %zu: by_id %d", what, cut, id);
            if (x)
                ck_assert_uint_eq(plan_node_index(x), plan_node_index(y));
        }
        for (const struct plan_section *s = pa->first_section, *t = pb->first_section; s;
             s = s->next, t = t->next) {
            ck_assert_uint_eq(s->n_nodes, t->n_nodes);
            ck_assert_uint_eq(s->n_roots, t->n_roots);
            ck_assert_ptr_eq(s->code.ptr, t->code.ptr);
            for (uint32_t k = 0; k < s->n_nodes; k++)
                ck_assert_uint_eq(plan_node_index(plan_section_node(s, k)),
                                  plan_node_index(plan_section_node(t, k)));
        }
    }
    for (size_t i = 0; i < a->n_all_nodes; i++) {
        const struct plan_node *x = document_node(a, i), *y = document_node(b, i);
        ck_assert_uint_eq(plan_node_index(x), plan_node_index(y));
        ck_assert_uint_eq(x->line, y->line);
        ck_assert_int_eq(x->id, y->id);
        ck_assert_int_eq(x->stage, y->stage);
        ck_assert_uint_eq(x->flags, y->flags);
        ck_assert_uint_eq(x->depth, y->depth);
        ck_assert_uint_eq(x->subtree_size, y->subtree_size);
        ck_assert_uint_eq(x->n_details, y->n_details);
        ck_assert_ptr_eq(plan_node_text(x).ptr, plan_node_text(y).ptr);
        ck_assert_ptr_eq(plan_node_name(x).ptr, plan_node_name(y).ptr);
        ck_assert_uint_eq(plan_node_details_text_line(x), plan_node_details_text_line(y));
        ck_assert_ptr_eq(plan_node_details_text(x).ptr, plan_node_details_text(y).ptr);
        ck_assert_uint_eq(plan_node_details_text(x).len, plan_node_details_text(y).len);
    }
    ck_assert_msg(a->n_warnings == b->n_warnings, "%s, cut at %zu: %u warnings, whole %u", what,
                  cut, b->n_warnings, a->n_warnings);
    for (const struct plan_warning *v = a->first_warning, *w = b->first_warning; v;
         v = v->next, w = w->next) {
        ck_assert_uint_eq(v->line, w->line);
        ck_assert_str_eq(v->message, w->message);
    }
    for (int json = 0; json < 2; json++) {
        size_t la, lb;
        char *ea = tu_emitted(a, json, &la), *eb = tu_emitted(b, json, &lb);
        ck_assert_msg(la == lb && memcmp(ea, eb, la) == 0, "%s, cut at %zu: %s differs", what,
                      cut, json ? "--json" : "--print");
        free(ea);
        free(eb);
    }
}

/* A document that reads the text of `whole` (its source borrowed: text, map, depths). */
static struct document *reading(const struct document *whole)
{
    struct document *d = document_new("paste", NULL, 0);
    ck_assert_ptr_nonnull(d);
    source_borrow(&d->src, whole->src.text, whole->src.text_len);
    d->src.line_map = whole->src.line_map;
    d->src.line_from = whole->src.line_from;
    d->src.n_text_lines = whole->src.n_text_lines;
    d->src.line_depth = whole->src.line_depth;
    return d;
}

/* bytes (malloc'd, taken) cleaned as the loader cleans them and parsed whole (*sw: the
   parse's status), the model finished; NULL when the clean-up fails (nothing to compare). */
static struct document *parsed_whole(char *bytes, size_t len, enum sp_status *sw)
{
    struct diag err = {0};
    struct document *whole = document_new("paste", bytes, len);
    ck_assert_ptr_nonnull(whole);
    if (clean_document(whole, &err) != SP_OK) {
        document_free(whole);
        return NULL;
    }
    *sw = parse_document(whole, &err);
    if (*sw == SP_OK)
        ck_assert(document_finish(whole));
    return whole;
}

/* Most cuts tried in one text: past this many, cuts looked for from evenly spaced places. */
#define MAX_CUTS 16

static size_t n_texts, n_cut_texts, n_cuts, n_taken;

/* bytes (malloc'd, taken) cleaned as the loader cleans them, parsed whole, then parsed cut
   at every place a cut can be (or max_cuts of them): the same model each time. */
static void cut_vs_whole(char *bytes, size_t len, const char *what, size_t max_cuts)
{
    struct diag err = {0};
    enum sp_status sw;
    struct document *whole = parsed_whole(bytes, len, &sw);
    if (!whole)
        return;
    n_texts++;
    /* Count the cuts first: every one when few, else from evenly spaced places. */
    size_t found = 0;
    for (size_t from = 0; found <= max_cuts;) {
        struct document *probe = reading(whole);
        struct parse_tail *t = parse_tail_new(probe, from);
        if (!t) {
            document_free(probe);
            break;
        }
        from = parse_tail_cut(t) + 1;
        found++;
        parse_tail_free(t);
        document_free(probe);
    }
    size_t len_text = whole->src.text_len;
    bool every = found <= max_cuts;
    n_cut_texts += found > 0;
    size_t last = SIZE_MAX;
    for (size_t k = 0, from = 0; k < (every ? found : max_cuts); k++) {
        if (!every)
            from = len_text / max_cuts * k;
        struct document *cut = reading(whole);
        struct parse_tail *t = parse_tail_new(cut, from);
        if (!t || parse_tail_cut(t) == last) {
            parse_tail_free(t);
            document_free(cut);
            if (!t)
                break;
            continue;
        }
        last = parse_tail_cut(t);
        from = last + 1;
        parse_tail_read(t); /* the second part first, on this thread */
        cut->parse_tail = t;
        enum sp_status sc = parse_document(cut, &err);
        cut->parse_tail = NULL;
        ck_assert_msg(sc == sw, "%s, cut at %zu: status %d, whole %d", what, last, sc, sw);
        n_cuts++;
        n_taken += parse_tail_taken(t);
        if (sc == SP_OK) {
            ck_assert(document_finish(cut));
            assert_same_model(whole, cut, what, last);
        }
        parse_tail_free(t);
        document_free(cut);
    }
    document_free(whole);
}

/* The files: every sample, then every corpus file (sorted, so that a pair is the same
   every run). */
static char **paths;
static size_t n_paths, cap_paths;

static int collect(const char *path, const struct stat *st, int kind, struct FTW *ftw)
{
    (void)ftw;
    if (kind != FTW_F || !S_ISREG(st->st_mode) || st->st_size > (2 << 20) ||
        strstr(path, ".md") || strstr(path, "INDEX.tsv"))
        return 0;
    if (n_paths == cap_paths) {
        cap_paths = cap_paths ? cap_paths * 2 : 256;
        paths = realloc(paths, cap_paths * sizeof *paths);
        ck_assert_ptr_nonnull(paths);
    }
    paths[n_paths++] = strdup(path);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect_files(const char *dir)
{
    size_t first = n_paths;
    ck_assert_int_eq(nftw(dir, collect, 16, FTW_PHYS), 0);
    qsort(paths + first, n_paths - first, sizeof *paths, by_name);
}

static void free_paths(void)
{
    for (size_t i = 0; i < n_paths; i++)
        free(paths[i]);
    free(paths);
    paths = NULL;
    n_paths = cap_paths = 0;
}

/* Files a and b (b may be NULL) one after the other, as a paste of both: malloc'd. */
static char *pasted(const char *a, const char *b, size_t *len)
{
    size_t la = 0, lb = 0;
    char *ta = tu_read_file(a, &la), *tb = b ? tu_read_file(b, &lb) : NULL;
    ck_assert_ptr_nonnull(ta);
    char *buf = malloc(la + lb + 1);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, ta, la);
    if (tb)
        memcpy(buf + la, tb, lb);
    buf[la + lb] = '\0';
    *len = la + lb;
    free(ta);
    free(tb);
    return buf;
}

/* Each file alone, each after the next one in name order, and each after one far from it
   in that order (a golden file's query or analysis hint before a plain plan, a formatted
   plan before a simple one, ...).  Every step-th file leads (the sanitized run takes a
   quarter of the corpus: all of it there took minutes). */
static void every_file_alone_and_in_pairs(size_t step)
{
    for (size_t i = 0; i < n_paths; i += step) {
        size_t len;
        char *buf = pasted(paths[i], NULL, &len);
        cut_vs_whole(buf, len, paths[i], MAX_CUTS);
        if (i + 1 < n_paths) {
            buf = pasted(paths[i], paths[i + 1], &len);
            cut_vs_whole(buf, len, paths[i], MAX_CUTS);
        }
        size_t j = (i * 7919 + n_paths / 2) % n_paths;
        if (j != i) {
            buf = pasted(paths[j], paths[i], &len);
            cut_vs_whole(buf, len, paths[i], MAX_CUTS);
        }
    }
}

START_TEST(every_sample_cut_at_each_plan_reads_as_whole)
{
    n_texts = n_cut_texts = n_cuts = n_taken = 0;
    collect_files("samples");
    every_file_alone_and_in_pairs(1);
    free_paths();
    fprintf(stderr, "parse tail, samples: %zu texts, %zu with a cut, %zu cuts, %zu taken\n",
            n_texts, n_cut_texts, n_cuts, n_taken);
    ck_assert_uint_gt(n_taken, 0);
}
END_TEST

START_TEST(every_corpus_file_cut_at_each_plan_reads_as_whole)
{
    const char *dir = tu_corpus_dir();
    if (!dir) {
        fprintf(stderr, "every_corpus_file_cut_at_each_plan_reads_as_whole: no corpus, "
                        "skipped\n");
        return;
    }
    n_texts = n_cut_texts = n_cuts = n_taken = 0;
    collect_files(dir);
    every_file_alone_and_in_pairs(getenv("SPARKPLAN_SANITIZED") ? 4 : 1);
    free_paths();
    fprintf(stderr, "parse tail, corpus: %zu texts, %zu with a cut, %zu cuts, %zu taken\n",
            n_texts, n_cut_texts, n_cuts, n_taken);
    ck_assert_uint_gt(n_taken, n_cuts / 2);
}
END_TEST

/* What the whole parse counts per document, on both sides of the cut: hidden-field
   warnings (the first 20 made, the rest counted in one warning at the end), big numbers
   (the first one warned), a golden file's query and analysis hint (carried to the plans
   after them).  Cut at each plan. */
START_TEST(warnings_counted_per_document_and_queries_carry_across_the_cut)
{
    static const char truncated[] =
        "== Physical Plan ==\n"
        "*(1) Project [a#1, b#2, ... 28 more fields]\n"
        "+- *(1) Scan parquet t [a#1, b#2, ... 28 more fields]\n\n";
    static const char big[] =
        "== Physical Plan ==\n"
        "* Project (99999999999)\n"
        "+- * Scan parquet t (1)\n\n"
        "(1) Scan parquet t [codegen id : 99999999999]\nOutput [1]: [a#1]\n\n";
    static const char golden[] =
        "-- !query\nSELECT 1\n-- !query analysis\nProject [1 AS 1#0]\n+- OneRowRelation\n\n";
    static const char logged[] =
        "24/01/02 10:11:12 INFO InsertAdaptiveSparkPlan: plan\n"
        "== Physical Plan ==\n*(1) Range (0, 10, step=1, splits=2)\n\n";
    static const char bare[] = "Project [a#1]\n+- Filter (a#1 > 1)\n   +- Relation t[a#1] parquet\n\n";
    /* A bare tree of physical operators: analyzed only under a golden file's hint. */
    static const char bare_physical[] =
        "*(1) Project [a#1]\n+- *(1) Filter (a#1 > 1)\n   +- *(1) ColumnarToRow\n\n";
    /* A header inside a query's SQL: the plan opens, and the SQL goes on after a header the
       parser skips (it stays the query of the plans after it). */
    static const char in_sql[] =
        "-- !query\nSELECT 2\n== Physical Plan ==\n*(1) Range (0, 1, step=1, splits=1)\n\n"
        "== Other ==\nmore sql\n\n";
    /* A golden file's query whose output is a plan: its SQL is the query of the plans after
       it, up to the next query. */
    static const char golden_output[] =
        "-- !query\nSELECT 3\n-- !query schema\nstruct<>\n-- !query output\n"
        "== Physical Plan ==\n*(1) Range (0, 3, step=1, splits=1)\n\n";
    const char *pieces[] = {truncated, big,           golden, logged,
                            bare,      bare_physical, in_sql, golden_output};
    /* Sequences of pieces (indices), each long enough to pass the warning cap. */
    static const char *const recipes[] = {
        "0000000000000000000000000000000000000000",
        "00000000000000000000000000000110000000000000000",
        "0101010101010101010101010101010101010101010",
        "2424242424404202222000444",
        "3030330303330044412121",
        "0000000000000000000002000000000000000000004",
        "2050535052535650565366063606",
        "7030705070317430",
    };
    n_texts = n_cut_texts = n_cuts = n_taken = 0;
    for (size_t r = 0; r < sizeof recipes / sizeof *recipes; r++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        for (const char *c = recipes[r]; *c; c++)
            fputs(pieces[*c - '0'], f);
        ck_assert_int_eq(fclose(f), 0);
        char what[32];
        snprintf(what, sizeof what, "recipe %zu", r);
        cut_vs_whole(buf, len, what, SIZE_MAX);
    }
    fprintf(stderr, "parse tail, recipes: %zu texts, %zu cuts, %zu taken\n", n_texts, n_cuts,
            n_taken);
    ck_assert_uint_gt(n_taken, n_cuts / 2);
}
END_TEST

/* The loader cuts a cleaned text from SPARKPLAN_PARSE_TAIL_MIN bytes on (2 MB unless set) and
   parses it on two threads: the document is the one parsed on one (the variable at 0). */
START_TEST(the_loader_parses_a_big_paste_on_two_threads_as_on_one)
{
    /* A paste: samples one after the other, a line with a tab (clean-up's dirt) first,
       repeated past 3 MB. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputs("\t== Physical Plan ==\n", f);
    collect_files("samples");
    for (int round = 0; len < (3u << 20); round++) {
        for (size_t i = 0; i < n_paths; i++) {
            size_t n;
            char *t = tu_read_file(paths[i], &n);
            fwrite(t, 1, n, f);
            free(t);
        }
        fflush(f);
    }
    free_paths();
    ck_assert_int_eq(fclose(f), 0);
    struct document *one = NULL, *two = NULL;
    struct diag err = {0};
    char *copy = malloc(len + 1);
    memcpy(copy, buf, len + 1);
    setenv("SPARKPLAN_PARSE_TAIL_MIN", "0", 1);
    ck_assert_int_eq(load_bytes("paste", copy, len, &one, &err), SP_OK);
    size_t before = parse_tail_plans_taken();
    unsetenv("SPARKPLAN_PARSE_TAIL_MIN");
    ck_assert_int_eq(load_bytes("paste", buf, len, &two, &err), SP_OK);
    ck_assert_uint_gt(parse_tail_plans_taken(), before);
    tu_assert_same_document(one, two);
    document_free(one);
    document_free(two);
}
END_TEST

/* ---- a tree cut inside (parse.h, parse_graft_*) ---------------------------------------- */

static size_t n_grafts, n_grafted;

/* bytes (malloc'd, taken) cleaned as the loader cleans them, parsed whole, then parsed with
   the tree cut at every tree line that can be a cut (or at most max_cuts of them, from evenly
   spaced places): the same model each time, whether the part is grafted or refused. */
static void graft_vs_whole(char *bytes, size_t len, const char *what, size_t max_cuts)
{
    struct diag err = {0};
    enum sp_status sw;
    struct document *whole = parsed_whole(bytes, len, &sw);
    if (!whole)
        return;
    size_t len_text = whole->src.text_len, last = SIZE_MAX;
    for (size_t k = 0, from = 0; k < max_cuts; k++) {
        if (max_cuts != SIZE_MAX)
            from = len_text / max_cuts * k;
        struct document *cut = reading(whole);
        struct parse_graft *g = parse_graft_new(cut, from);
        if (!g || parse_graft_cut(g) == last) {
            parse_graft_free(g);
            document_free(cut);
            if (!g && max_cuts == SIZE_MAX)
                break;
            continue;
        }
        last = parse_graft_cut(g);
        from = last + 1;
        parse_graft_read(g); /* the second part first, on this thread */
        cut->parse_graft = g;
        enum sp_status sc = parse_document(cut, &err);
        cut->parse_graft = NULL;
        ck_assert_msg(sc == sw, "%s, graft at %zu: status %d, whole %d", what, last, sc, sw);
        n_grafts++;
        n_grafted += parse_graft_taken(g) > 0;
        if (sc == SP_OK) {
            ck_assert(document_finish(cut));
            assert_same_model(whole, cut, what, last);
        }
        parse_graft_free(g);
        document_free(cut);
    }
    document_free(whole);
}

START_TEST(every_sample_and_corpus_file_grafted_at_its_tree_lines_reads_as_whole)
{
    n_grafts = n_grafted = 0;
    collect_files("samples");
    size_t samples = n_paths;
    const char *dir = tu_corpus_dir();
    if (dir)
        collect_files(dir);
    size_t step = getenv("SPARKPLAN_SANITIZED") ? 4 : 1;
    for (size_t i = 0; i < n_paths; i += i < samples ? 1 : step) {
        size_t len;
        char *buf = pasted(paths[i], NULL, &len);
        graft_vs_whole(buf, len, paths[i], i < samples ? SIZE_MAX : MAX_CUTS);
    }
    free_paths();
    fprintf(stderr, "parse graft, samples and corpus: %zu cuts, %zu grafted\n", n_grafts,
            n_grafted);
    ck_assert_uint_gt(n_grafted, 0);
    ck_assert_uint_lt(n_grafted, n_grafts); /* some refused too */
}
END_TEST

/* A made-up tree of depth up to max_depth, n lines: Spark's prefixes, some nodes in a
   second line of text, some with outline ids, hidden fields, an elision, a label, an
   indented AQE root, a blank line and a second plan: what the cut must refuse or read
   alike.  seed picks the shape. */
static char *generated_plan(unsigned seed, size_t n, unsigned odd, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    fputs("== Physical Plan ==\nHashAggregate(keys=[a#1], functions=[sum(b#2)])\n", f);
    unsigned x = seed * 2654435761u + 1;
    int depth = 0;
    char prefix[4096];
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        unsigned r = (x >> 16) % 100;
        if (r < 45 && depth < 60)
            depth++;
        else if (r < 70 && depth > 1)
            depth -= 1 + (int)((x >> 8) % (unsigned)depth) / 2;
        if (depth < 1)
            depth = 1;
        size_t at = 0;
        for (int d = 1; d < depth; d++) {
            memcpy(prefix + at, (x >> (d % 16)) & 1 ? ":  " : "   ", 3);
            at += 3;
        }
        memcpy(prefix + at, (x >> 20) & 1 ? ":- " : "+- ", 3);
        at += 3;
        prefix[at] = '\0';
        unsigned o = (x >> 4) % 1000;
        if (odd && o < odd) {
            switch (o % 8) {
            case 0: fprintf(f, "%sProject [a#%zu, ... 3 more fields]\n", prefix, i); continue;
            case 1: fprintf(f, "%s...\n", prefix); continue;
            case 2: fprintf(f, "%s* Filter (%zu)\n", prefix, i + 1); continue;
            case 3: fprintf(f, "%s== Final Plan ==\n", prefix); continue;
            case 4: fprintf(f, "\nSome text\n"); continue;
            case 5: fprintf(f, "%sAdaptiveSparkPlan isFinalPlan=true\n", prefix); continue;
            case 6: fprintf(f, " %s Sort [a#%zu ASC]\n", prefix, i); continue;
            default: fprintf(f, "   Exchange SinglePartition\n"); continue;
            }
        }
        switch ((x >> 12) % 5) {
        case 0: fprintf(f, "%s*(%zu) Filter (isnotnull(a#%zu) AND (a#%zu > 1))\n", prefix, i, i, i); break;
        case 1: fprintf(f, "%sExchange hashpartitioning(a#%zu, 200), [plan_id=%zu]\n", prefix, i, i); break;
        case 2: fprintf(f, "%sFileScan parquet t[a#%zu] Batched: true, ReadSchema: struct<a:int,b:string>\n", prefix, i); break;
        case 3: fprintf(f, "%sUnion\n", prefix); break;
        default: fprintf(f, "%s*(%zu) ColumnarToRow\n", prefix, i); break;
        }
    }
    fputs("\n== Physical Plan ==\n*(1) Range (0, 10, step=1, splits=2)\n", f);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

START_TEST(generated_trees_grafted_at_many_lines_read_as_whole)
{
    n_grafts = n_grafted = 0;
    for (unsigned seed = 0; seed < 24; seed++) {
        size_t len;
        unsigned odd = seed % 3 == 0 ? 0 : seed % 3 == 1 ? 8 : 80;
        char *buf = generated_plan(seed, 400 + 50 * seed, odd, &len);
        char what[48];
        snprintf(what, sizeof what, "generated %u", seed);
        graft_vs_whole(buf, len, what, 40);
    }
    fprintf(stderr, "parse graft, generated: %zu cuts, %zu grafted\n", n_grafts, n_grafted);
    ck_assert_uint_gt(n_grafted, n_grafts / 4);
    ck_assert_uint_lt(n_grafted, n_grafts);
}
END_TEST

/* A simple plan as Spark prints it, n operators under one root: each line's prefix has ":  "
   under an ancestor with a sibling still to come and ":- " for a node with one, as the quick
   scan wants it (no clean-up).  malloc'd. */
static char *clean_simple_plan(unsigned seed, size_t n, size_t *len)
{
    int *depth = malloc(n * sizeof *depth);
    bool *sib = malloc(n * sizeof *sib), later[64] = {false}, open[64] = {false};
    ck_assert(depth && sib);
    unsigned x = seed * 2654435761u + 7;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        int prev = i ? depth[i - 1] : 0, r = (int)((x >> 16) % 100);
        depth[i] = r < 50 && prev < 60 ? prev + 1 : r < 75 || prev < 2 ? prev : 1 + (int)((x >> 4) % (unsigned)prev);
        if (depth[i] < 1)
            depth[i] = 1;
    }
    for (size_t i = n; i-- > 0;) { /* a later line at the same depth before a shallower one */
        sib[i] = later[depth[i]];
        later[depth[i]] = true;
        for (int e = depth[i] + 1; e < 64; e++)
            later[e] = false;
    }
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    fputs("== Physical Plan ==\nTakeOrderedAndProject(limit=100, orderBy=[a#1 ASC NULLS FIRST], output=[a#1])\n", f);
    for (size_t i = 0; i < n; i++) {
        for (int j = 1; j < depth[i]; j++)
            fputs(open[j] ? ":  " : "   ", f);
        fputs(sib[i] ? ":- " : "+- ", f);
        open[depth[i]] = sib[i];
        if (i % 3 == 0)
            fprintf(f, "*(%zu) Filter (isnotnull(a#%zu) AND (a#%zu > 1))\n", i / 7 + 1, i, i);
        else if (i % 3 == 1)
            fprintf(f, "Exchange hashpartitioning(a#%zu, 200), ENSURE_REQUIREMENTS, [plan_id=%zu]\n", i, i);
        else
            fprintf(f, "FileScan parquet db.t[a#%zu] Batched: true, ReadSchema: struct<a:int>\n", i);
    }
    ck_assert_int_eq(fclose(f), 0);
    free(depth);
    free(sib);
    return buf;
}

/* The loader parses a clean input beside its quick scan from SPARKPLAN_PARSE_GRAFT_MIN bytes
   on (8 MB unless set), its tree cut past the middle when it has no details list: the
   document is the one parsed alone. */
START_TEST(the_loader_grafts_a_simple_plan_as_parsed_alone)
{
    size_t len;
    char *buf = clean_simple_plan(7, 20000, &len);
    char *copy = malloc(len + 1);
    memcpy(copy, buf, len + 1);
    struct document *one = NULL, *two = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_bytes("plan", copy, len, &one, &err), SP_OK);
    size_t before = parse_graft_nodes_taken();
    setenv("SPARKPLAN_PARSE_GRAFT_MIN", "1", 1);
    ck_assert_int_eq(load_bytes("plan", buf, len, &two, &err), SP_OK);
    unsetenv("SPARKPLAN_PARSE_GRAFT_MIN");
    /* The second thread scans the whole text (a tree has no blank line to cut its scan at)
       before its part, so the cut is past the middle and its part about a third. */
    size_t taken = parse_graft_nodes_taken() - before;
    ck_assert_uint_gt(taken * 100, two->n_all_nodes * 20);
    ck_assert_uint_lt(taken * 100, two->n_all_nodes * 40);
    tu_assert_same_document(one, two);
    document_free(one);
    document_free(two);
}
END_TEST

/* The part's nodes go into the document's own store, past a fence at the nodes the first
   thread is guessed to make before the cut (a node a line, the lines counted in the megabyte
   before it).  A text whose lines get much longer just before the cut makes that guess far
   too small: the first thread needs room past the fence long before the cut, the part is
   given up there and the first thread writes over it, and the model is the one parsed
   alone.  Cut where the guess holds, the part of the same text is grafted. */
static char *sparse_before_cut(size_t *len, size_t *long_end)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    fputs("== Physical Plan ==\nUnion\n", f);
    for (int i = 0; i < 300000; i++) /* dense: 16 bytes a node */
        fprintf(f, ":- Scan t%06d\n", i);
    for (int i = 0; i < 60; i++) { /* sparse: 20 KB a node, 1.2 MB in all */
        fputs(":- Scan ", f);
        for (int j = 0; j < 20000; j++)
            fputc('a' + (i + j) % 26, f);
        fputc('\n', f);
    }
    fflush(f);
    *long_end = (size_t)ftell(f);
    for (int i = 0; i < 100000; i++)
        fprintf(f, ":- Scan u%06d\n", i);
    fputs("+- Scan v\n", f);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

START_TEST(a_part_whose_room_the_first_thread_needs_is_given_up)
{
    size_t len, long_end;
    char *bytes = sparse_before_cut(&len, &long_end);
    enum sp_status sw;
    struct document *whole = parsed_whole(bytes, len, &sw);
    ck_assert_ptr_nonnull(whole);
    ck_assert_int_eq(sw, SP_OK);
    ck_assert_uint_gt(whole->n_all_nodes, 400000);
    /* from: in the dense lines (the guess holds), then right after the long ones */
    const size_t froms[2] = {long_end / 2, long_end};
    for (int c = 0; c < 2; c++) {
        struct diag err = {0};
        struct document *cut = reading(whole);
        struct parse_graft *g = parse_graft_new(cut, froms[c]);
        ck_assert_ptr_nonnull(g);
        ck_assert_ptr_nonnull(cut->nodes.base); /* the window's store, made at once */
        ck_assert_uint_gt(cut->nodes.fence, 0);
        parse_graft_read(g); /* the part first, on this thread, into the window */
        cut->parse_graft = g;
        ck_assert_int_eq(parse_document(cut, &err), SP_OK);
        cut->parse_graft = NULL;
        if (c == 0)
            ck_assert_uint_gt(parse_graft_taken(g), 50000);
        else
            ck_assert_uint_eq(parse_graft_taken(g), 0);
        ck_assert_uint_eq(cut->nodes.fence, 0); /* lifted: by the graft, or when hit */
        ck_assert(document_finish(cut));
        assert_same_model(whole, cut, "sparse before the cut", parse_graft_cut(g));
        parse_graft_free(g);
        document_free(cut);
    }
    document_free(whole);
}
END_TEST

Suite *parsetail_suite(void)
{
    Suite *s = suite_create("parsetail");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_sample_cut_at_each_plan_reads_as_whole);
    tcase_add_test(tc, warnings_counted_per_document_and_queries_carry_across_the_cut);
    tcase_add_test(tc, the_loader_parses_a_big_paste_on_two_threads_as_on_one);
    tcase_add_test(tc, every_corpus_file_cut_at_each_plan_reads_as_whole);
    suite_add_tcase(s, tc);
    /* The tree cut (parse_graft_*): a case of its own (CK_RUN_CASE=graft). */
    TCase *graft = tcase_create("graft");
    tcase_set_timeout(graft, 600);
    tcase_add_test(graft, generated_trees_grafted_at_many_lines_read_as_whole);
    tcase_add_test(graft, the_loader_grafts_a_simple_plan_as_parsed_alone);
    tcase_add_test(graft, a_part_whose_room_the_first_thread_needs_is_given_up);
    tcase_add_test(graft, every_sample_and_corpus_file_grafted_at_its_tree_lines_reads_as_whole);
    suite_add_tcase(s, graft);
    return s;
}
