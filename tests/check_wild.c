/* Plans in the wild: text that holds no plan says so, and plans shortened by hand ("+- ...")
 * read as the tree they show.  Every text here is written for the test (made-up plans and
 * prose in the shapes real documents have); the share test also reads the files the
 * repository ships (headers, sources, docs, the man page) and the help it prints. */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sparkplan/lex.h"

static bool finds_a_plan(const char *text, size_t len)
{
    struct document *doc = NULL;
    enum sp_status s = tu_try_parse(text, len, &doc);
    if (doc)
        document_free(doc);
    return s == SP_OK;
}

/* ---- not a plan -------------------------------------------------------------------------- */

/* Each family the issue names, in a shape seen in real files. */
static const char *const no_plans[] = {
    /* Markdown lists */
    "# Setup\n\n- Install the package\n- Run the tests\n  - Unit tests\n  - Integration tests\n"
    "* Read the guide\n* Ask on the list\n",
    /* prose paragraphs whose first word is capitalised, indented continuation */
    "Release notes\n\nThis release brings faster joins and a smaller binary.\n"
    "  Thanks to everyone who tested the candidates.\n  Several crashes are fixed.\n",
    /* a changelog entry */
    "mytool (1.2-1) unstable; urgency=medium\n\n  * New upstream release.\n"
    "    Fixes a crash on empty input (Closes: #123456)\n  * Bump Standards-Version.\n\n"
    " -- Jane Doe <jane@example.org>  Mon, 01 Jan 2024 10:00:00 +0000\n",
    /* a licence paragraph in a C header */
    "/* Frobnicate the widgets.\n   Copyright (C) 2020 Example Project.\n\n"
    "   This library is free software; you may redistribute it\n"
    "   under the terms of the licence that came with it.\n"
    "   Distributed WITHOUT ANY WARRANTY.  */\n#ifndef FROB_H\n#define FROB_H 1\n#endif\n",
    /* a Python docstring */
    "def load(path):\n    \"\"\"Load a table.\n\n    Args:\n        path: Where the table lives.\n"
    "    Returns:\n        A DataFrame.\n    \"\"\"\n    return spark.read.parquet(path)\n",
    /* indented result rows */
    "The result:\n\n    Row(a=1, b='x')\n    Row(a=2, b='y')\n    Row(a=3, b='z')\n",
    /* timing and log lines */
    "Stage 3 finished in 1.2 s\nTook 0.52 seconds\n"
    "Job 12 finished: collect at Main.scala:10, took 0.031 s\n",
    /* string literals in test code */
    "  test(\"scan is pushed\") {\n    val expected =\n"
    "      \"\\n:- *Scan parquet default.t[a#1] ...\" +\n"
    "      \"\\n+- ...\"\n    assert(plan.contains(expected))\n  }\n",
    /* call chains */
    "The call goes like this:\n\nExecutedCommandExec(cmd=InsertIntoHadoopFsRelationCommand) ->run\n"
    "  SparkPlan.execute ->doExecute\n    FileFormatWriter.write ->executeTask\n",
    /* issue numbers are not attribute ids; one capitalised word is not a plan */
    "Closes #1398\n",
    "Header cleanup (bug#4703)\n",
    "Filter\n",
    "Sort\n\nProject\n",
    /* a comment that mentions a header and elides the plan */
    "/* The text may hold\n == Physical Plan ==\n ...\n in a JSON string. */\n",
};

START_TEST(families_without_a_plan)
{
    for (size_t i = 0; i < sizeof no_plans / sizeof no_plans[0]; i++)
        ck_assert_msg(!finds_a_plan(no_plans[i], strlen(no_plans[i])), "a plan invented in:\n%s",
                      no_plans[i]);
}
END_TEST

/* One-line plans that are plans: leaves and commands with their arguments, accelerator
   variants guessed from their Spark operator. */
START_TEST(lone_leaves_and_commands_stay_plans)
{
    static const char *const lines[] = {
        "Range (0, 10, step=1, splits=Some(8))\n", "InMemoryTableScan [a#1]\n",
        "ShowTablesCommand default, false\n", "OneRowRelation\n", "GpuRange (0, 10)\n",
        "CometScan parquet default.t[a#1]\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        ck_assert_msg(finds_a_plan(lines[i], strlen(lines[i])), "not a plan: %s", lines[i]);
}
END_TEST

struct tally {
    unsigned files, found;
    char found_names[1024];
};

static void count_text(struct tally *t, const char *name, const char *text, size_t len)
{
    t->files++;
    if (!finds_a_plan(text, len))
        return;
    t->found++;
    size_t used = strlen(t->found_names);
    snprintf(t->found_names + used, sizeof t->found_names - used, " %s", name);
}

static void count_file(struct tally *t, const char *path)
{
    size_t len;
    char *text = tu_read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    count_text(t, path, text, len);
    free(text);
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Every file of dir ending with suffix, but those named in except (NULL-terminated, or
   NULL: none). */
static void count_dir(struct tally *t, const char *dir, const char *suffix,
                      const char *const *except)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "%s not found (tests run from the repository root)", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        bool skip = !has_suffix(e->d_name, suffix);
        for (size_t k = 0; except && except[k] && !skip; k++)
            skip = strcmp(e->d_name, except[k]) == 0;
        if (skip)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        count_file(t, path);
    }
    closedir(d);
}

static void count_command(struct tally *t, const char *name, const char *cmd)
{
    int status;
    char *out = tu_run(cmd, &status);
    if (out && status == 0 && out[0])
        count_text(t, name, out, strlen(out));
    else
        fprintf(stderr, "wild: %s not available, not counted\n", name);
    free(out);
}

/* Made-up ordinary documents, many of each shape: lists, prose, docstrings, results. */
static void count_generated(struct tally *t)
{
    static const char *const words[] = {"Table", "Partition", "Cache", "Driver", "Window",
                                        "Exchange", "Project", "Sort", "Filter", "Range"};
    char buf[2048];
    for (unsigned i = 0; i < 10; i++) {
        const char *w = words[i], *v = words[(i + 3) % 10];
        int n = snprintf(buf, sizeof buf,
                         "%s notes\n\n- %s settings\n- %s sizes\n  - %s of the week\n\n"
                         "%s is what most readers ask about first.\n  It takes a minute.\n",
                         w, w, v, v, w);
        count_text(t, "generated list", buf, (size_t)n);
        n = snprintf(buf, sizeof buf,
                     "class %sHelper:\n    \"\"\"%s helper.\n\n    %s\n        Which %s to use.\n"
                     "    \"\"\"\n\n    def run(self):\n        return self.%s\n",
                     w, v, w, v, v);
        count_text(t, "generated docstring", buf, (size_t)n);
        n = snprintf(buf, sizeof buf,
                     "+---+-----+\n| id| %s|\n+---+-----+\n|  %u|    x|\n+---+-----+\n\n"
                     "    Row(id=%u, %s='x')\n%s took %u.%u seconds\n",
                     v, i, i, v, w, i, i + 1);
        count_text(t, "generated result", buf, (size_t)n);
        n = snprintf(buf, sizeof buf,
                     "%s\n\n  %s of the rows\n    %s by key\n      %s again\n", w, v, w, v);
        count_text(t, "generated outline", buf, (size_t)n);
    }
}

/* The share of ordinary files in which a plan is "found" stays under 1%. */
START_TEST(ordinary_files_are_not_plans)
{
    struct tally t = {0};
    const char *const source_dirs[] = {"src/base",     "src/input", "src/parse", "src/model",
                                       "src/analysis", "src/output", "src/rows", "src/ui"};
    for (size_t i = 0; i < sizeof source_dirs / sizeof source_dirs[0]; i++) {
        count_dir(&t, source_dirs[i], ".c", NULL);
        count_dir(&t, source_dirs[i], ".h", NULL);
    }
    count_dir(&t, "include/sparkplan", ".h", NULL);
    /* these documents show plans on purpose */
    static const char *const with_plans[] = {"pasting.md", "formats.md", NULL};
    count_dir(&t, "docs", ".md", with_plans);
    count_file(&t, "man/sparkplan.1");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --help 2>&1", tu_binary());
    count_command(&t, "--help", cmd);
    count_command(&t, "the rendered man page",
                  "MANWIDTH=80 man -l man/sparkplan.1 2>/dev/null | col -b 2>/dev/null");
    count_generated(&t);
    fprintf(stderr, "wild: %u ordinary files, a plan found in %u\n", t.files, t.found);
    ck_assert_uint_ge(t.files, 100);
    ck_assert_msg(t.found * 100 < t.files, "a plan found in %u of %u ordinary files:%s", t.found,
                  t.files, t.found_names);
}
END_TEST

/* ---- elisions ---------------------------------------------------------------------------- */

static struct plan_node *only_root(const char *text, struct document **doc)
{
    *doc = tu_parse(text);
    ck_assert_uint_eq((*doc)->n_plans, 1);
    return tu_root(*doc);
}

START_TEST(elisions_are_not_nodes)
{
    struct document *doc;
    struct plan_node *r = only_root("== Physical Plan ==\n"
                                    "*(2) Project [a#1]\n"
                                    "+- *(2) BroadcastHashJoin [a#1], [b#2], Inner, BuildRight\n"
                                    "   :- *(2) Filter isnotnull(a#1)\n"
                                    "   :  +- ...\n"
                                    "   +- BroadcastExchange HashedRelationBroadcastMode\n"
                                    "      +- …\n",
                                    &doc);
    ck_assert_uint_eq(doc->n_all_nodes, 4);
    struct plan_node *join = tu_child(r, 0);
    struct plan_node *filter = tu_child(join, 0), *bx = tu_child(join, 1);
    ck_assert(tu_slice_is(plan_node_name(filter), "Filter"));
    ck_assert(tu_slice_is(plan_node_name(bx), "BroadcastExchange"));
    ck_assert(filter->flags & NODE_ELIDED);
    ck_assert(bx->flags & NODE_ELIDED);
    ck_assert(!(join->flags & NODE_ELIDED));
    ck_assert_uint_eq(plan_node_n_children(filter), 0);
    /* no "..." glued to a node's text */
    ck_assert(!memchr(plan_node_text(filter).ptr, '.', plan_node_text(filter).len));
    document_free(doc);
}
END_TEST

/* What follows an elision, deeper down, hangs under the nearest shallower node. */
START_TEST(lines_after_an_elision_hang_under_the_nearest_node)
{
    struct document *doc;
    struct plan_node *r = only_root("AdaptiveSparkPlan isFinalPlan=true\n"
                                    "+- HashAggregate(keys=[k#1], functions=[count(1)])\n"
                                    "   +- ...\n"
                                    "         +- BroadcastQueryStage 0\n"
                                    "            +- BroadcastExchange HashedRelationBroadcastMode\n"
                                    "   :  ...\n"
                                    "   +- Scan parquet default.t[k#1]\n",
                                    &doc);
    ck_assert_uint_eq(doc->n_all_nodes, 5);
    struct plan_node *agg = tu_child(r, 0);
    ck_assert(agg->flags & NODE_ELIDED);
    ck_assert_uint_eq(plan_node_n_children(agg), 2);
    struct plan_node *bqs = tu_child(agg, 0);
    ck_assert(tu_slice_is(plan_node_name(bqs), "BroadcastQueryStage"));
    ck_assert(!(bqs->flags & NODE_INNER));
    ck_assert(tu_slice_is(plan_node_name(tu_child(bqs, 0)), "BroadcastExchange"));
    ck_assert(tu_slice_is(plan_node_name(tu_child(agg, 1)), "Scan parquet default.t"));
    document_free(doc);
}
END_TEST

START_TEST(elided_shows_in_json)
{
    char path[] = "/tmp/sparkplan-wild-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *text = "Project [a#1]\n+- Filter (a#1 > 1)\n   +- ...\n";
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    int status;
    char *out = tu_runf(&status, "%s --json %s", tu_binary(), path);
    unlink(path);
    ck_assert_int_eq(status, 0);
    const char *filter = strstr(out, "\"name\":\"Filter\"");
    ck_assert_ptr_nonnull(filter);
    ck_assert_ptr_nonnull(strstr(filter, "\"elided\":true"));
    ck_assert_ptr_null(strstr(out, "\"name\":\"...\""));
    char *print = tu_runf(&status, "printf '%%s' '%s' | %s --print -", text, tu_binary());
    ck_assert_ptr_null(strstr(print, "..."));
    free(print);
    free(out);
}
END_TEST

/* ---- fragments --------------------------------------------------------------------------- */

static bool warned(const struct document *doc, const char *words)
{
    for (const struct plan_warning *w = doc->first_warning; w; w = w->next)
        if (strstr(w->message, words))
            return true;
    return false;
}

/* The bottom of a tree, copied from its middle: each line left of the first one starts
   another root, and a warning says the root is missing. */
START_TEST(partial_trees_read_as_partial)
{
    static const char *const texts[] = {
        "      :  +- Filter isnotnull(a#1)\n"
        "      :     +- FileScan parquet [a#1] Batched: true\n"
        "      +- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, true]),false)\n"
        "         +- FileScan parquet [b#2] Batched: true\n",
        /* indentation lost: the same lines from column 0 */
        ":  +- Filter isnotnull(a#1)\n"
        ":     +- FileScan parquet [a#1] Batched: true\n"
        "+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, true]),false)\n"
        "   +- FileScan parquet [b#2] Batched: true\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct document *doc = tu_parse(texts[i]);
        ck_assert_uint_eq(doc->n_plans, 1);
        struct plan_section *s = doc->first_plan->first_section;
        ck_assert_uint_eq(s->n_roots, 2);
        ck_assert_uint_eq(doc->n_all_nodes, 4);
        ck_assert(tu_slice_is(plan_node_name(s->first_root), "Filter"));
        ck_assert(tu_slice_is(plan_node_name(tu_child(s->first_root, 0)), "FileScan parquet"));
        struct plan_node *second = plan_node_next_sibling(s->first_root);
        ck_assert(tu_slice_is(plan_node_name(second), "BroadcastExchange"));
        ck_assert_uint_eq(plan_node_n_children(second), 1);
        ck_assert(warned(doc, "partial tree"));
        document_free(doc);
    }
}
END_TEST

/* A formatted plan's details blocks without the outline: a flat list of their operators. */
START_TEST(details_blocks_alone_are_a_flat_list)
{
    struct document *doc = tu_parse("(1) Scan parquet default.t\n"
                                    "Output [2]: [a#1, b#2]\n"
                                    "Batched: true\n"
                                    "ReadSchema: struct<a:int,b:int>\n"
                                    "\n"
                                    "(2) Filter [codegen id : 1]\n"
                                    "Input [2]: [a#1, b#2]\n"
                                    "Condition : isnotnull(a#1)\n"
                                    "\n"
                                    "(3) Project [codegen id : 1]\n"
                                    "Output [1]: [a#1]\n"
                                    "Input [2]: [a#1, b#2]\n");
    ck_assert_uint_eq(doc->n_plans, 1);
    struct plan_section *s = doc->first_plan->first_section;
    ck_assert_uint_eq(s->n_roots, 3);
    struct plan_node *scan = s->first_root, *filter = plan_node_next_sibling(scan);
    ck_assert(tu_slice_is(plan_node_name(scan), "Scan parquet default.t"));
    ck_assert_int_eq(scan->id, 1);
    ck_assert_uint_eq(scan->n_details, 3);
    ck_assert(tu_slice_is(tu_detail(scan, 0).key, "Output"));
    ck_assert(tu_slice_is(plan_node_name(filter), "Filter"));
    ck_assert_int_eq(filter->stage, 1);
    ck_assert(tu_slice_is(tu_detail(filter, 1).value, "isnotnull(a#1)"));
    ck_assert(warned(doc, "without their tree"));
    document_free(doc);
    /* A section line between blocks (found by fuzzing): still a load, never a failure. */
    const char *cut = "(1) Scan parquet default.t\nOutput [1]: [a#1]\n\n===== Subqueries =====\n\n"
                      "(2) ColumnarToRow [codegen id : 1]\nInput [1]: [a#1]\n";
    struct document *d2 = NULL;
    enum sp_status st = tu_try_parse(cut, strlen(cut), &d2);
    ck_assert(st == SP_OK || st == SP_ERR_NO_PLAN);
    if (d2)
        document_free(d2);
    /* A numbered list is not a plan. */
    const char *list = "(1) Install the package\n\n(2) Run the tests\n\n(3) Read the guide\n";
    ck_assert(!finds_a_plan(list, strlen(list)));
}
END_TEST

/* ---- provenance -------------------------------------------------------------------------- */

static struct document *load_text(const char *name, const char *text)
{
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_bytes(name, strdup(text), strlen(text), &doc, &err), SP_OK);
    return doc;
}

/* A made-up nbformat 4 notebook: a markdown cell with a pasted plan, a code cell whose output
   is a plan. */
static const char notebook_v4[] =
    "{\n"
    " \"cells\": [\n"
    "  {\n"
    "   \"cell_type\": \"markdown\",\n"
    "   \"metadata\": {},\n"
    "   \"source\": [\n"
    "    \"## The plan we expect\\n\",\n"
    "    \"Project [a#1]\\n\",\n"
    "    \"+- Filter (a#1 > 1)\\n\",\n"
    "    \"   +- Scan parquet default.t[a#1]\\n\"\n"
    "   ]\n"
    "  },\n"
    "  {\n"
    "   \"cell_type\": \"code\",\n"
    "   \"execution_count\": 7,\n"
    "   \"metadata\": {},\n"
    "   \"outputs\": [\n"
    "    {\n"
    "     \"name\": \"stdout\",\n"
    "     \"output_type\": \"stream\",\n"
    "     \"text\": [\n"
    "      \"== Physical Plan ==\\n\",\n"
    "      \"*(1) Project [a#1]\\n\",\n"
    "      \"+- *(1) Filter (a#1 > 1)\\n\",\n"
    "      \"   +- *(1) ColumnarToRow\\n\",\n"
    "      \"      +- FileScan parquet default.t[a#1] Batched: true, ... 12 more fields\\n\"\n"
    "     ]\n"
    "    }\n"
    "   ],\n"
    "   \"source\": [\n"
    "    \"# look at the plan\\n\",\n"
    "    \"df.filter(\\\"a > 1\\\").explain()\"\n"
    "   ]\n"
    "  }\n"
    " ],\n"
    " \"nbformat\": 4\n"
    "}\n";

START_TEST(notebook_plans_know_their_cell)
{
    struct document *doc = load_text("nb.ipynb", notebook_v4);
    ck_assert_uint_eq(doc->n_plans, 2);
    const struct plan_source *md = &doc->first_plan->source, *out = &doc->first_plan->next->source;
    ck_assert_str_eq(md->format, "jupyter");
    ck_assert_uint_eq(md->cell, 1);
    ck_assert_str_eq(md->cell_type, "markdown");
    ck_assert(!md->from_output);
    ck_assert_int_eq(md->execution_count, -1);
    ck_assert_uint_eq(out->cell, 2);
    ck_assert_int_eq(out->execution_count, 7);
    ck_assert(out->from_output);
    ck_assert_str_eq(out->code, "df.filter(\"a > 1\").explain()");
    /* The truncation warning names the cell and the line in its output, not the JSON line. */
    ck_assert_ptr_nonnull(doc->first_warning);
    ck_assert_str_eq(doc->first_warning->where, "cell 2:5");
    document_free(doc);
}
END_TEST

START_TEST(notebook_source_in_json_and_messages)
{
    char path[] = "/tmp/sparkplan-wild-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, notebook_v4, strlen(notebook_v4)), (ssize_t)strlen(notebook_v4));
    close(fd);
    int status;
    char *out = tu_runf(&status, "%s --json %s", tu_binary(), path);
    ck_assert_ptr_nonnull(strstr(out, "\"source\":{\"format\":\"jupyter\",\"cell\":2,"));
    ck_assert_ptr_nonnull(strstr(out, "\"executionCount\":7"));
    ck_assert_ptr_nonnull(strstr(out, "\"from\":\"output\""));
    ck_assert_ptr_nonnull(strstr(out, "\"from\":\"pasted\""));
    free(out);
    out = tu_runf(&status, "%s --print %s 2>&1 >/dev/null", tu_binary(), path);
    char want[128];
    snprintf(want, sizeof want, "%s:cell 2:5: warning: ", path);
    ck_assert_msg(strstr(out, want) != NULL, "no %s in %s", want, out);
    free(out);
    unlink(path);
}
END_TEST

START_TEST(older_and_other_notebooks)
{
    /* nbformat 3: worksheets, "input", "prompt_number" */
    struct document *doc = load_text(
        "v3.ipynb", "{\n \"worksheets\": [\n  {\n   \"cells\": [\n    {\n"
                    "     \"cell_type\": \"code\",\n     \"input\": [\n      \"df.explain()\"\n     ],\n"
                    "     \"outputs\": [\n      {\n       \"output_type\": \"stream\",\n"
                    "       \"text\": [\n        \"== Physical Plan ==\\n\",\n"
                    "        \"LocalTableScan [a#1]\\n\"\n       ]\n      }\n     ],\n"
                    "     \"prompt_number\": 3\n    }\n   ]\n  }\n ],\n \"nbformat\": 3\n}\n");
    const struct plan_source *s = &doc->first_plan->source;
    ck_assert_uint_eq(s->cell, 1);
    ck_assert_int_eq(s->execution_count, 3);
    ck_assert(s->from_output);
    ck_assert_str_eq(s->code, "df.explain()");
    document_free(doc);
    /* a Zeppelin note: paragraphs, the text in one string, a %spark line first */
    doc = load_text("note.zpln",
                    "{\n  \"paragraphs\": [\n    {\n      \"text\": \"%md\\n# Intro\",\n"
                    "      \"results\": {}\n    },\n    {\n"
                    "      \"text\": \"%spark\\nval q = spark.range(3)\\nq.explain()\",\n"
                    "      \"results\": {\n        \"code\": \"SUCCESS\",\n        \"msg\": [\n"
                    "          {\n            \"type\": \"TEXT\",\n"
                    "            \"data\": \"== Physical Plan ==\\n*(1) Range (0, 3, step=1, splits=2)\\n\"\n"
                    "          }\n        ]\n      }\n    }\n  ]\n}\n");
    s = &doc->first_plan->source;
    ck_assert_str_eq(s->format, "zeppelin");
    ck_assert_uint_eq(s->cell, 2);
    ck_assert_str_eq(s->code, "val q = spark.range(3)");
    ck_assert(s->from_output);
    document_free(doc);
    /* a Databricks JSON export: commands, a markdown one first */
    doc = load_text("nb.json",
                    "{\n  \"version\": \"NotebookV1\",\n  \"commands\": [\n    {\n"
                    "      \"command\": \"%md\\n# Plans\",\n      \"results\": null\n    },\n"
                    "    {\n      \"command\": \"df = spark.range(3)\\ndf.explain()\",\n"
                    "      \"results\": {\n        \"type\": \"listResults\",\n"
                    "        \"data\": [\n          {\n            \"type\": \"text\",\n"
                    "            \"data\": \"== Physical Plan ==\\n*(1) Range (0, 3, step=1, "
                    "splits=2)\\n\"\n          }\n        ]\n      }\n    }\n  ]\n}\n");
    s = &doc->first_plan->source;
    ck_assert_str_eq(s->format, "databricks");
    ck_assert_uint_eq(s->cell, 2);
    ck_assert_uint_eq(s->cell_line, 1);
    ck_assert_str_eq(s->code, "df = spark.range(3)");
    ck_assert(s->from_output);
    document_free(doc);
    /* a Databricks notebook source file: cells between COMMAND lines */
    doc = load_text("nb.py", "# Databricks notebook source\n"
                             "df = spark.range(3)\n"
                             "\n"
                             "# COMMAND ----------\n"
                             "\n"
                             "# what we saw:\n"
                             "expected = \"\"\"\n"
                             "== Physical Plan ==\n"
                             "*(1) Range (0, 3, step=1, splits=2)\n"
                             "\"\"\"\n");
    s = &doc->first_plan->source;
    ck_assert_str_eq(s->format, "databricks-source");
    ck_assert_uint_eq(s->cell, 2);
    ck_assert_str_eq(s->code, "expected = \"\"\"");
    ck_assert(!s->from_output);
    document_free(doc);
}
END_TEST

START_TEST(golden_queries_and_log_records)
{
    struct document *doc = load_text("q.sql.out", "-- Automatically generated by SQLQueryTestSuite\n"
                                                  "-- !query\n"
                                                  "EXPLAIN SELECT * FROM t\n"
                                                  "  WHERE a > 1\n"
                                                  "-- !query schema\n"
                                                  "struct<plan:string>\n"
                                                  "-- !query output\n"
                                                  "== Physical Plan ==\n"
                                                  "*(1) Filter (a#1 > 1)\n"
                                                  "+- *(1) ColumnarToRow\n"
                                                  "   +- FileScan parquet default.t[a#1]\n");
    ck_assert(tu_slice_is(doc->first_plan->source.query, "EXPLAIN SELECT * FROM t\n  WHERE a > 1"));
    document_free(doc);
    doc = load_text("driver.log",
                    "2024-01-02 10:11:13,345 [main] INFO  o.a.s.s.e.a.InsertAdaptiveSparkPlan - "
                    "Adaptive execution enabled for plan:\n"
                    "AdaptiveSparkPlan isFinalPlan=false\n"
                    "+- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=10]\n"
                    "   +- Scan parquet default.t[k#1]\n");
    ck_assert(tu_slice_is(doc->first_plan->source.log_time, "2024-01-02 10:11:13,345"));
    ck_assert(tu_slice_is(doc->first_plan->source.logger, "o.a.s.s.e.a.InsertAdaptiveSparkPlan"));
    document_free(doc);
}
END_TEST

/* ---- where a plan ends ------------------------------------------------------------------- */

/* The text of every node of the document, each followed by '|', in input order. */
static void all_texts(const struct document *doc, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < doc->n_all_nodes; i++) {
        const struct plan_node *n = document_node(doc, i);
        int k = snprintf(out + used, cap - used, "%.*s|", (int)plan_node_text(n).len,
                         plan_node_text(n).ptr);
        ck_assert(k > 0 && (size_t)k < cap - used);
        used += (size_t)k;
    }
}

/* A fence, a comment's or docstring's end, a closing tag, code, prose or a caption right
   after the last tree line ends the plan: none of it is node text. */
START_TEST(lines_after_a_plan_are_not_node_text)
{
    static const char *const after[] = {
        "```\n", "~~~\n", "*/\nint x;\n", "\"\"\"\n", "'''\n", "</pre>\n", "</code></pre>\n",
        "df.show()\n", "spark.stop()\n", "}\n", "val n = df.count()\n",
        "The scan reads the local rows.\n", "Figure 2: the physical plan of the query\n",
        "SELECT 1;\n", "<p>Next</p>\n",
        "<button data-toggle-ms=\"x\" aria-label=\"Copy code\" class=\"copy\">Copy</button>\n",
    };
    for (size_t i = 0; i < sizeof after / sizeof after[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "== Physical Plan ==\n*(1) Project [a#1]\n+- *(1) LocalTableScan [a#1]\n%s",
                 after[i]);
        struct document *doc = tu_parse(text);
        char got[512];
        all_texts(doc, got, sizeof got);
        ck_assert_msg(strcmp(got, "Project [a#1]|LocalTableScan [a#1]|") == 0,
                      "after %s the nodes read %s", after[i], got);
        document_free(doc);
    }
}
END_TEST

/* A wrapped plan (a terminal's 60 columns) closed by a fence, or followed by a sentence: the
   clean-up joins the plan's own pieces, never the fence or the sentence. */
START_TEST(wrapped_plans_end_where_the_text_does)
{
    static const char *const after[] = {
        "```\n", "The scan reads the local rows.\n",
    };
    for (size_t i = 0; i < sizeof after / sizeof after[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "== Physical Plan ==\n"
                 "*(1) Project [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8, i#9, j\n"
                 "#10, k#11, l#12, m#13, n#14, o#15]\n"
                 "+- *(1) LocalTableScan [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h\n"
                 "%s",
                 after[i]);
        struct document *doc = tu_parse(text);
        char got[1024];
        all_texts(doc, got, sizeof got);
        ck_assert_msg(strcmp(got, "Project [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8, i#9, "
                                  "j#10, k#11, l#12, m#13, n#14, o#15]|"
                                  "LocalTableScan [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h|") == 0,
                      "after %s the nodes read %s", after[i], got);
        document_free(doc);
    }
}
END_TEST

/* Two bare trees with a separator, a log line or a caption between them (no blank line):
   two plans, the second whole, none of it grafted onto the first. */
START_TEST(two_bare_trees_in_a_row_are_two_plans)
{
    static const char *const between[] = {
        "==>\n", "--> new\n", "After the rule:\n",
        "24/01/02 10:11:12 INFO InsertAdaptiveSparkPlan: Adaptive execution enabled for plan:\n",
    };
    for (size_t i = 0; i < sizeof between / sizeof between[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "Aggregate [k#1], [k#1, count(1) AS c#2L]\n"
                 "+- Filter (k#1 > 1)\n"
                 "   +- Relation default.t[k#1] parquet\n"
                 "%s"
                 "Project [k#1]\n"
                 "+- Relation default.t[k#1] parquet\n",
                 between[i]);
        struct document *doc = tu_parse(text);
        ck_assert_msg(doc->n_plans == 2, "%u plans with %s", doc->n_plans, between[i]);
        struct plan_node *first = doc->first_plan->first_section->first_root;
        ck_assert_uint_eq(plan_node_n_children(first), 1);
        ck_assert_uint_eq(plan_node_n_children(plan_node_first_child(first)), 1);
        struct plan_node *second = doc->first_plan->next->first_section->first_root;
        ck_assert(tu_slice_is(plan_node_text(second), "Project [k#1]"));
        ck_assert_uint_eq(plan_node_n_children(second), 1);
        ck_assert(!(plan_node_first_child(second)->flags & NODE_INNER));
        ck_assert(tu_slice_is(plan_node_text(plan_node_first_child(second)),
                              "Relation default.t[k#1] parquet"));
        document_free(doc);
    }
}
END_TEST

/* A "+- " or ":- " line is a tree line even one or two columns off Spark's grid: never more
   text of the node above it. */
START_TEST(tree_markers_off_the_grid_are_still_tree_lines)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "*(2) Project [a#1]\n"
                                    "+- *(2) BroadcastHashJoin [a#1], [b#2], Inner, BuildRight\n"
                                    "  :- *(2) Filter isnotnull(a#1)\n"
                                    "   :  +- LocalTableScan [a#1]\n"
                                    "    +- BroadcastExchange HashedRelationBroadcastMode\n"
                                    "        +- LocalTableScan [b#2]\n");
    ck_assert_uint_eq(doc->n_all_nodes, 6);
    struct plan_node *join = tu_child(tu_root(doc), 0);
    ck_assert_uint_eq(plan_node_n_children(join), 2);
    ck_assert(tu_slice_is(plan_node_name(tu_child(join, 0)), "Filter"));
    ck_assert(tu_slice_is(plan_node_name(tu_child(tu_child(join, 0), 0)), "LocalTableScan"));
    ck_assert(tu_slice_is(plan_node_name(tu_child(join, 1)), "BroadcastExchange"));
    ck_assert(tu_slice_is(plan_node_text(tu_child(tu_child(join, 1), 0)), "LocalTableScan [b#2]"));
    document_free(doc);
}
END_TEST

/* Prose before a plan, however it is laid out, never becomes the plan's root. */
START_TEST(prose_before_a_plan_never_joins_its_root)
{
    static const char *const texts[] = {
        "This is the plan we got from\nthe query above:\nProject [a#1]\n"
        "+- Filter (a#1 > 1)\n   +- LocalTableScan [a#1]\n",
        "Here it is\n  Project [a#1]\n  +- Filter (a#1 > 1)\n     +- LocalTableScan [a#1]\n",
        "Note how the filter is pushed\nProject [a#1]\n+- Filter (a#1 > 1)\n"
        "   +- LocalTableScan [a#1]\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct document *doc = tu_parse(texts[i]);
        ck_assert_uint_eq(doc->n_plans, 1);
        struct plan_node *r = tu_root(doc);
        ck_assert_msg(tu_slice_is(plan_node_text(r), "Project [a#1]"), "root %.*s in:\n%s",
                      (int)plan_node_text(r).len, plan_node_text(r).ptr, texts[i]);
        ck_assert(tu_slice_is(plan_node_name(tu_child(r, 0)), "Filter"));
        ck_assert(tu_slice_is(plan_node_name(tu_child(tu_child(r, 0), 0)), "LocalTableScan"));
        document_free(doc);
    }
}
END_TEST

/* ---- plans indented as code -------------------------------------------------------------- */

static void expect_three_levels(const char *text)
{
    struct document *doc = tu_parse(text);
    ck_assert_msg(doc->n_plans == 1, "%u plans in:\n%s", doc->n_plans, text);
    struct plan_node *r = tu_root(doc);
    ck_assert_msg(tu_slice_is(plan_node_text(r), "Project [a#1]"), "root %.*s in:\n%s",
                  (int)plan_node_text(r).len, plan_node_text(r).ptr, text);
    ck_assert_uint_eq(plan_node_n_children(r), 1);
    struct plan_node *f = tu_child(r, 0);
    ck_assert(tu_slice_is(plan_node_text(f), "Filter (a#1 > 1)"));
    ck_assert(!(f->flags & NODE_INNER));
    ck_assert_uint_eq(plan_node_n_children(f), 1);
    ck_assert(tu_slice_is(plan_node_text(tu_child(f, 0)), "LocalTableScan [a#1]"));
    document_free(doc);
}

/* A plan indented off the grid inside a docstring or a list item, with other lines around
   it; hand-indented trees two spaces a level, with or without markers. */
START_TEST(indented_and_hand_indented_trees)
{
    expect_three_levels("def f():\n    \"\"\"Shows the plan.\n\n        Project [a#1]\n"
                        "        +- Filter (a#1 > 1)\n           +- LocalTableScan [a#1]\n"
                        "    \"\"\"\n    return 1\n");
    expect_three_levels("* Step 1, the plan:\n\n    Project [a#1]\n    +- Filter (a#1 > 1)\n"
                        "       +- LocalTableScan [a#1]\n\n* Step 2\n");
    expect_three_levels("Project [a#1]\n  Filter (a#1 > 1)\n    LocalTableScan [a#1]\n");
    expect_three_levels("Project [a#1]\n  +- Filter (a#1 > 1)\n    +- LocalTableScan [a#1]\n");
    /* two spaces a level with a second child: it goes back to its own column */
    struct document *doc = tu_parse("Project [a#1]\n  :- Filter (a#1 > 1)\n"
                                    "  :  +- LocalTableScan [a#1]\n  +- LocalTableScan [b#2]\n");
    struct plan_node *r = tu_root(doc);
    ck_assert_uint_eq(plan_node_n_children(r), 2);
    ck_assert(tu_slice_is(plan_node_text(tu_child(r, 1)), "LocalTableScan [b#2]"));
    document_free(doc);
}
END_TEST

/* ---- line prefixes and markup ------------------------------------------------------------ */

static void expect_project_range(const char *text)
{
    struct document *doc = tu_parse(text);
    ck_assert_msg(doc->n_plans == 1, "%u plans in:\n%s", doc->n_plans, text);
    struct plan_section *s = doc->first_plan->first_section;
    ck_assert_msg(tu_slice_is(s->title, "== Physical Plan =="), "no header in:\n%s", text);
    ck_assert_uint_eq(doc->n_all_nodes, 3);
    struct plan_node *r = tu_root(doc);
    ck_assert(tu_slice_is(plan_node_text(r), "Project [id#0L]"));
    struct plan_node *f = tu_child(r, 0);
    ck_assert_msg(tu_slice_is(plan_node_text(f), "Filter (id#0L > 1)"), "filter %.*s in:\n%s",
                  (int)plan_node_text(f).len, plan_node_text(f).ptr, text);
    ck_assert(tu_slice_is(plan_node_text(tu_child(f, 0)), "Range (0, 3, step=1, splits=2)"));
    document_free(doc);
}

START_TEST(plans_behind_prefixes_and_markup)
{
    /* Databricks notebook source: MAGIC lines, COMMAND separators */
    expect_project_range("# Databricks notebook source\ndf = spark.range(3)\n\n"
                         "# COMMAND ----------\n\n# MAGIC %md\n# MAGIC The plan:\n# MAGIC\n"
                         "# MAGIC     == Physical Plan ==\n# MAGIC     *(1) Project [id#0L]\n"
                         "# MAGIC     +- *(1) Filter (id#0L > 1)\n"
                         "# MAGIC        +- *(1) Range (0, 3, step=1, splits=2)\n"
                         "# COMMAND ----------\n\ndisplay(df)\n");
    expect_project_range("-- Databricks notebook source\n-- MAGIC %md\n"
                         "-- MAGIC == Physical Plan ==\n-- MAGIC *(1) Project [id#0L]\n"
                         "-- MAGIC +- *(1) Filter (id#0L > 1)\n"
                         "-- MAGIC    +- *(1) Range (0, 3, step=1, splits=2)\n");
    /* Scaladoc in an indented method, with and without the second space */
    expect_project_range("  /**\n   * The plan:\n   * {{{\n   * == Physical Plan ==\n"
                         "   * *(1) Project [id#0L]\n   * +- *(1) Filter (id#0L > 1)\n"
                         "   *    +- *(1) Range (0, 3, step=1, splits=2)\n   * }}}\n   */\n"
                         "  def plan(): Unit = {}\n");
    expect_project_range("    /**\n     *  == Physical Plan ==\n     *  *(1) Project [id#0L]\n"
                         "     *  +- *(1) Filter (id#0L > 1)\n"
                         "     *     +- *(1) Range (0, 3, step=1, splits=2)\n     */\n");
    /* // with extra spaces, -- in SQL */
    expect_project_range("object X {\n  //  == Physical Plan ==\n  //  *(1) Project [id#0L]\n"
                         "  //  +- *(1) Filter (id#0L > 1)\n"
                         "  //     +- *(1) Range (0, 3, step=1, splits=2)\n  def f = 1\n}\n");
    expect_project_range("-- The plan:\n-- == Physical Plan ==\n-- *(1) Project [id#0L]\n"
                         "-- +- *(1) Filter (id#0L > 1)\n"
                         "--    +- *(1) Range (0, 3, step=1, splits=2)\nSELECT 1;\n");
    /* HTML: tags, entities, <br>, a copy button after the block */
    expect_project_range("<p>The plan:</p>\n<pre><code class=\"language-text\">== Physical Plan ==\n"
                         "*(1) Project [id#0L]\n+- *(1) Filter (id#0L &gt; 1)\n"
                         "   +- *(1) Range (0, 3, step=1, splits=2)\n</code></pre>"
                         "<button data-toggle-ms=\"x\" aria-label=\"Copy code\" class=\"c\">"
                         "Copy</button>\n");
    expect_project_range("<pre>== Physical Plan ==<br>*(1) Project [id#0L]<br>"
                         "+- *(1) Filter (id#0L &gt; 1)<br>"
                         "   +- *(1) Range (0, 3, step=1, splits=2)<br></pre>\n");
}
END_TEST

/* "text@depth|" of every node, in input order. */
static void signature(const struct document *doc, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < doc->n_all_nodes; i++) {
        const struct plan_node *n = document_node(doc, i);
        int k = snprintf(out + used, cap - used, "%.*s@%u|", (int)plan_node_text(n).len,
                         plan_node_text(n).ptr, n->depth);
        ck_assert(k > 0 && (size_t)k < cap - used);
        used += (size_t)k;
    }
}

/* How a plan reads is decided by its own block of lines: an unrelated line added before or
   after it (a long comment, an indented paragraph, indented code) changes nothing. */
START_TEST(each_block_is_decided_by_itself)
{
    static const char *const plans[] = {
        "object Plans {\n  /** The plan we expect:\n    *\n    * {{{\n    * == Physical Plan ==\n"
        "    * *(1) Project [id#0L]\n    * +- *(1) Filter (id#0L > 1)\n"
        "    *    +- *(1) Range (0, 3, step=1, splits=2)\n    * }}}\n    */\n"
        "  def expected(): Unit = {\n    println(\"x\")\n  }\n}\n",
        "def f():\n    \"\"\"Shows the plan.\n\n        Project [a#1]\n        +- Filter (a#1 > 1)\n"
        "           +- LocalTableScan [a#1]\n    \"\"\"\n    return 1\n",
        "Some intro text.\n\n    == Physical Plan ==\n    *(1) Project [id#0L]\n"
        "    +- *(1) Range (0, 3, step=1, splits=2)\n\nOther text.\n",
    };
    static const char *const before[] = {
        "", "// a comment long enough to be the widest line of the file by a good margin, "
            "longer than any plan line here\n",
        "  a two-space indented paragraph\n\n",
    };
    static const char *const after[] = {"", "\n            deeply_indented = 2\n",
                                        "\n  two spaces\n"};
    for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
        char want[1024];
        struct document *doc = tu_parse(plans[p]);
        signature(doc, want, sizeof want);
        ck_assert_uint_ge(doc->n_all_nodes, 2);
        document_free(doc);
        for (size_t b = 0; b < sizeof before / sizeof before[0]; b++)
            for (size_t a = 0; a < sizeof after / sizeof after[0]; a++) {
                char text[2048], got[1024];
                snprintf(text, sizeof text, "%s%s%s", before[b], plans[p], after[a]);
                doc = tu_parse(text);
                signature(doc, got, sizeof got);
                ck_assert_msg(strcmp(want, got) == 0, "plan %zu reads %s, with lines around it %s",
                              p, want, got);
                document_free(doc);
            }
    }
}
END_TEST

Suite *wild_suite(void)
{
    Suite *s = suite_create("wild");
    TCase *tc = tcase_create("wild");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, families_without_a_plan);
    tcase_add_test(tc, lone_leaves_and_commands_stay_plans);
    tcase_add_test(tc, ordinary_files_are_not_plans);
    tcase_add_test(tc, elisions_are_not_nodes);
    tcase_add_test(tc, lines_after_an_elision_hang_under_the_nearest_node);
    tcase_add_test(tc, elided_shows_in_json);
    tcase_add_test(tc, partial_trees_read_as_partial);
    tcase_add_test(tc, details_blocks_alone_are_a_flat_list);
    tcase_add_test(tc, notebook_plans_know_their_cell);
    tcase_add_test(tc, notebook_source_in_json_and_messages);
    tcase_add_test(tc, older_and_other_notebooks);
    tcase_add_test(tc, golden_queries_and_log_records);
    tcase_add_test(tc, lines_after_a_plan_are_not_node_text);
    tcase_add_test(tc, two_bare_trees_in_a_row_are_two_plans);
    tcase_add_test(tc, wrapped_plans_end_where_the_text_does);
    tcase_add_test(tc, tree_markers_off_the_grid_are_still_tree_lines);
    tcase_add_test(tc, prose_before_a_plan_never_joins_its_root);
    tcase_add_test(tc, indented_and_hand_indented_trees);
    tcase_add_test(tc, plans_behind_prefixes_and_markup);
    tcase_add_test(tc, each_block_is_decided_by_itself);
    suite_add_tcase(s, tc);
    return s;
}
