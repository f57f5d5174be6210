/* emit: the non-interactive outputs, `--print` (an indented outline) and `--json`.
 *
 * Owns nothing: reads a parsed document and writes to a stream through its own 64 KiB
 * buffer (one fwrite per buffer, so output runs at `cat` speed).  A big section of --print
 * is put together on two threads, in chunks written in order (emit_set_print_parallel).  Never recurses on tree
 * depth: the JSON walk follows parent/sibling links and closes brackets while climbing.
 * Never touches curses.  Every byte of plan text in --print goes through sanitize;
 * JSON strings are escaped (control characters as \u00XX, invalid UTF-8 as \ufffd).
 * Errors are values: a write error returns SP_ERR_IO with strerror text in err.
 */
#ifndef SPARKPLAN_EMIT_H
#define SPARKPLAN_EMIT_H

#include <stdio.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

/* Outline indentation: two spaces per level, up to this depth; deeper nodes keep this
 * indentation and show their depth as "[depth N] " so that a 100,000-deep chain prints in
 * linear, not quadratic, size. */
#define EMIT_PRINT_MAX_INDENT 100

/* The outline of every plan and section of doc:
 *   "# plan N, line L" before each plan (only when the document holds several),
 *   the section title ("== Physical Plan ==", "Subquery:1 Hosting ..."; an untitled
 *   section prints "== <kind> plan (no header) =="), then one node a line indented by
 *   depth: "*(stage) " when the node is in a codegen stage, the node text (continuation
 *   lines shown as ^J), " (id)" when the formatted id is not already in the text,
 *   "[label] " before AQE "== Final Plan ==" style headers, "[inner] " before the root of a
 *   subquery or cached plan that Spark printed inside its parent.  A blank line separates
 *   sections.  Warnings are NOT written here (main prints them on stderr). */
enum sp_status emit_print(FILE *out, const struct document *doc, struct diag *err);
/* emit_print renders a section of min_nodes operators or more on two threads, in chunks of
 * chunk_nodes, written in order (the same bytes); 0 restores each default (16,384 and
 * 4,096).  For tests. */
void emit_set_print_parallel(size_t min_nodes, size_t chunk_nodes);

/* One JSON object for doc, on one line, terminated by "\n":
 *   {"file": NAME, "plans": [{"line", "adaptive", "isFinalPlan", "sections": [{"kind",
 *    "title", "line", ["schema"], ["code"], "roots": [NODE...]}]}],
 *    "warnings": [{"line", "message"}]}
 * NODE = {"name", "text", "line", "stage", "id", ["label": true], ["inner": true],
 *         ["truncated": true], "details": [[key, value]...], ["stats": {...}],
 *         "children": [NODE...]}
 * stage and id are null when absent; "line" of a warning is null when it has none. */
enum sp_status emit_json(FILE *out, const struct document *doc, struct diag *err);

/* The plan objects of doc alone (elements of a "plans" array: each but the very first, as
 * *first says, preceded by ','), with extra(w, node, ctx) called inside each node object
 * after its "details"/"stats", to write more keys, each starting with ',' (event logs add
 * "metrics").  doc NULL writes nothing. */
struct emit_json;
typedef void (*emit_node_extra)(struct emit_json *w, const struct plan_node *n, void *ctx);
void emit_json_raw(struct emit_json *w, const char *s);
void emit_json_string(struct emit_json *w, struct slice s);
void emit_json_int(struct emit_json *w, int64_t v);   /* negative: null */
enum sp_status emit_json_plans(FILE *f, const struct document *doc, emit_node_extra extra,
                               void *ctx, bool *first, struct diag *err);

#endif
