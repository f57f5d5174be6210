/* diffout: the non-interactive outputs of a diff — `--diff` (the merged tree with marks and
 * a summary line) and `--diff --json`.
 *
 * Owns nothing: reads a struct diff_result and writes to a stream.  Every byte of plan text
 * in the text form goes through the sanitizer; JSON strings are escaped (control characters
 * as \u00XX, invalid UTF-8 as \ufffd).  Never recurses, never touches curses.
 */
#ifndef SPARKPLAN_DIFFOUT_H
#define SPARKPLAN_DIFFOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "sparkplan/diff.h"
#include "sparkplan/status.h"

/* The mark of a change: ' ' same, '~' changed, '+' added, '-' removed; replaced and moved
 * are "⇄" and "↷" in UTF-8, '!' and '>' in ASCII. */
const char *diff_mark(enum diff_change c, bool utf8);

struct diffout_options {
    bool utf8;     /* marks and summary separators */
    bool fold;     /* an unchanged subtree prints as its top line with "[=N]" */
};

/* One line per merged node: "MARK INDENT TEXT", a replaced node followed by "[was: A]",
 * then for changed / replaced / moved nodes each differing field as "- Key: A" and
 * "+ Key: B" lines; last, "diff: SUMMARY (counts)". */
enum sp_status diffout_text(FILE *out, const struct diff_result *r,
                            const struct diffout_options *o, struct diag *err);

/* {"equal": bool, "summary": {"same": n, "changed": n, "replaced": n, "added": n,
 *  "removed": n, "moved": n, "text": "...", "replacements": [{"a", "b", "count"}],
 *  "added_ops": [{"name", "count"}], "removed_ops": [...]},
 *  "nodes": [{"change", "a": {"line", "name", "id"} | null, "b": ... | null,
 *             "fields": [{"key", "a", "b"}]}]}  on one line, nodes in the merged pre-order;
 * a field's side is null when that node lacks it. */
enum sp_status diffout_json(FILE *out, const struct diff_result *r, struct diag *err);

#endif
