/* insight: the text outputs of the teaching features, for the command line.
 *
 * --lint (findings as FILE:LINE: SPnnn severity: message), --summary (the counts a reader
 * checks first), --explain-node (a catalogue entry), --samples (the workshop curriculum).
 * Owns nothing; writes to the stream it is given.  Plan text inside messages goes through
 * sanitize.  Errors are values: a write error returns SP_ERR_IO.
 */
#ifndef SPARKPLAN_INSIGHT_H
#define SPARKPLAN_INSIGHT_H

#include <stdbool.h>
#include <stdio.h>

#include "sparkplan/analyze.h"
#include "sparkplan/catalog.h"
#include "sparkplan/plan.h"
#include "sparkplan/status.h"

/* One line per finding: "NAME:LINE: SP010 warning: message" (NAME = doc->name). */
enum sp_status insight_print_lint(FILE *out, const struct document *doc,
                                  const struct analysis *a, struct diag *err);
/* The summary block of one document. */
enum sp_status insight_print_summary(FILE *out, const struct document *doc,
                                     const struct analysis *a, struct diag *err);
/* The summary's scan lines are put together on two threads from min_scans scans on, in
 * chunks of chunk lines, written in order (the same bytes); 0 restores each default
 * (16,384 and 2,048).  For tests. */
void insight_set_scans_parallel(size_t min_scans, size_t chunk);

/* The catalogue entry for an operator name or node text, wrapped to `width` columns.
 * *known is false when nothing matched (then only a "not in the catalogue" line is
 * written).  An accelerator operator missing from the table is explained through its
 * Spark counterpart, with a line saying so. */
enum sp_status insight_print_entry(FILE *out, const char *name, int width, bool *known,
                                   struct diag *err);
/* Text split into screen lines: `lines` point into `buf`; both are malloc'd and freed
 * together by insight_text_free. */
struct insight_text {
    char *buf;     /* malloc'd, NUL-separated lines */
    size_t len;
    const char **lines;
    size_t n_lines;
};
/* Formats the entry for a node (match of its name) wrapped to width; returns false when no
 * entry fits (the text then says so).  Free with insight_text_free. */
bool insight_format_entry(struct slice name, int width, struct insight_text *out);
/* Wraps arbitrary text (a finding message, a rule's advice) into lines. */
bool insight_wrap_text(const char *text, int width, int indent, struct insight_text *out);
void insight_text_free(struct insight_text *t);

/* Rule reference: every rule id, severity, title, reason and advice (for --lint --help and
 * the man page). */
enum sp_status insight_print_rules(FILE *out, struct diag *err);

/* The built-in samples with their one-line descriptions (samples/INDEX.tsv). */
enum sp_status insight_print_samples(FILE *out, struct diag *err);
/* Finds a built-in sample by file name with or without ".txt"; NULL when none. */
const char *insight_sample_name(const char *name);

#endif
