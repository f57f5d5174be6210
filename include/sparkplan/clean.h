/* clean: the paste clean-up step between the raw input and the parser.
 *
 * Owns nothing: writes doc->text / doc->text_len / doc->line_map (allocated in doc->arena)
 * when the input needs rewriting (show() tables, Row(plan='...') reprs, quoted strings with
 * \n escapes, comment/quote prefixes, CRLF, tabs, BOM, hard-wrapped lines, line-number
 * prefixes, lost indentation); otherwise leaves doc->text pointing at doc->bytes.
 * Adds warnings (e.g. "tree structure inferred") to the document.  Linear time.
 */
#ifndef SPARKPLAN_CLEAN_H
#define SPARKPLAN_CLEAN_H

#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

enum sp_status clean_document(struct document *doc, struct diag *err);

/* The quick scan clean_document() starts with: false means the input needs no rewriting
 * (Spark's own output), decided in one pass without allocating. */
bool clean_quick_scan(const char *bytes, size_t len);

/* Every step whatever the quick scan says (tests compare the two). */
enum sp_status clean_document_full(struct document *doc, struct diag *err);

#endif
