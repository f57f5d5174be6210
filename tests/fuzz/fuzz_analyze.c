/* libFuzzer target: bytes -> load -> analysis (every lint rule, the summary counts) ->
 * --lint and --summary output.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined.  Besides crashes and
 * sanitizer reports it traps on broken invariants: the analysis of a loaded document
 * succeeds; every finding names a node of the document (or none) and a line inside the
 * input, is sorted by line, and is counted once as a warning or an info; every scan the
 * summary lists is a node of the document; both outputs write without error; the analysis
 * on two threads (every section of 2 nodes and more shared) finds the same, in the same
 * order, as the one on one thread.
 * Not part of the Check runner (no main here).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/analyze.h"
#include "sparkplan/insight.h"
#include "sparkplan/load.h"

#include "fuzz.h"

/* The node is one of the document's (a binary search would need them sorted by address:
 * a linear look is fine at fuzz sizes). */
static int doc_has_node(const struct document *doc, const struct plan_node *n)
{
    for (size_t i = 0; i < doc->n_all_nodes; i++)
        if (document_node(doc, i) == n)
            return 1;
    return 0;
}

/* Two analyses of the same document hold the same findings and counts. */
static void check_same(const struct analysis *x, const struct analysis *y)
{
    check(x->n_findings == y->n_findings);
    for (size_t i = 0; i < x->n_findings; i++) {
        const struct finding *f = &x->findings[i], *g = &y->findings[i];
        check(f->rule == g->rule && f->severity == g->severity && f->line == g->line &&
              f->node == g->node && strcmp(f->message, g->message) == 0);
    }
    check(x->summary.n_findings_dropped == y->summary.n_findings_dropped);
    check(x->summary.n_scans == y->summary.n_scans && x->summary.n_nodes == y->summary.n_nodes);
    check(memcmp(x->summary.shuffles, y->summary.shuffles, sizeof x->summary.shuffles) == 0);
    for (size_t i = 0; i < x->summary.n_scans; i++)
        check(x->summary.scans[i].node == y->summary.scans[i].node);
}

static void check_analysis(const struct document *doc, const struct analysis *a, uint32_t lines)
{
    size_t warnings = 0, info = 0;
    for (size_t i = 0; i < a->n_findings; i++) {
        const struct finding *f = &a->findings[i];
        check(f->message != NULL);
        check(f->line <= lines);
        check(!f->node || doc_has_node(doc, f->node));
        check(i == 0 || a->findings[i - 1].line <= f->line);
        warnings += f->severity == SEVERITY_WARNING;
        info += f->severity == SEVERITY_INFO;
    }
    check(a->summary.n_findings == a->n_findings + a->summary.n_findings_dropped ||
          a->summary.n_findings == a->n_findings);
    check(warnings <= a->summary.n_warnings && info <= a->summary.n_info);
    check(a->summary.n_nodes <= doc->n_all_nodes);
    for (size_t i = 0; i < a->summary.n_scans; i++)
        check(doc_has_node(doc, a->summary.scans[i].node));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = fuzz_text(data, size);
    if (!copy)
        return 0;
    uint32_t lines = fuzz_lines(copy, size);
    struct document *doc = NULL;
    struct diag err = {0};
    enum sp_status s = load_bytes("fuzz", copy, size, &doc, &err);
    check(s == SP_OK || s == SP_ERR_NO_PLAN);
    if (s != SP_OK)
        return 0;
    struct analysis *a = NULL;
    check(analyze_document(doc, &a, &err) == SP_OK && a != NULL);
    check_analysis(doc, a, lines);
    struct analysis *two = NULL;
    analyze_set_parallel_min(2);
    check(analyze_document(doc, &two, &err) == SP_OK && two != NULL);
    analyze_set_parallel_min(0);
    check_same(a, two);
    analysis_free(two);
    FILE *out = fopen("/dev/null", "w");
    if (out) {
        check(insight_print_lint(out, doc, a, &err) == SP_OK);
        check(insight_print_summary(out, doc, a, &err) == SP_OK);
        fclose(out);
    }
    analysis_free(a);
    document_free(doc);
    return 0;
}
