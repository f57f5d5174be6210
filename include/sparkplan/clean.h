/* clean: the paste clean-up step between the raw input and the parser.
 *
 * Owns nothing: the document's source (source.h) owns what it writes.  When the input needs
 * rewriting (show() tables, Row(plan='...') reprs, quoted strings with \n escapes,
 * comment/quote prefixes, common indentation, CRLF, tabs, BOM, UTF-16, hard-wrapped lines,
 * numberedTreeString prefixes, lost indentation) it hands the source one new text with its
 * line map (and, for a rebuilt tree too deep to write out, its line depths) in one call,
 * source_set_text(): in the source's arena, or over the input's buffer when it fits.
 * Otherwise the source's text stays its bytes (no copy).  Adds warnings to the document for
 * what it guessed ("tree structure inferred from markers", "N wrapped lines joined to the
 * line before").
 * Never: writes to the input bytes other than the cleaned lines over them (the final text,
 * or lines the later steps read from there; the input is then released), recursion, a pass
 * that is not linear.
 * See src/input/clean_impl.h for the steps.
 */
#ifndef SPARKPLAN_CLEAN_H
#define SPARKPLAN_CLEAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

enum sp_status clean_document(struct document *doc, struct diag *err);

/* The quick scan clean_document() starts with: false means the input needs no rewriting
 * (Spark's own output), decided in one pass without allocating. */
bool clean_quick_scan(const char *bytes, size_t len);

/* The quick scan shared by two threads (the loader's big inputs): the text cut into pieces
 * of about piece bytes, each starting right after a blank line (none in a long stretch
 * without one: that piece is longer).  Each thread takes pieces with
 * clean_quick_parts_step, one from the front, the other from the back, until it returns
 * false (none left, or a piece found the text dirty: *clean_quick_parts_cancel is then 1
 * at once, as a parse's parse_cancel wants it); once both have stopped,
 * clean_quick_parts_verdict is clean_quick_scan(text, len), whatever the pieces each took
 * (those taken by none are scanned there).  NULL when out of memory. */
struct clean_quick_parts;
struct clean_quick_parts *clean_quick_parts_new(const char *text, size_t len, size_t piece);
bool clean_quick_parts_step(struct clean_quick_parts *qp, bool front);
const atomic_int *clean_quick_parts_cancel(const struct clean_quick_parts *qp);
bool clean_quick_parts_verdict(struct clean_quick_parts *qp);
void clean_quick_parts_free(struct clean_quick_parts *qp);
/* The bytes of the first piece (the one a front step takes first; 0: no pieces): the
 * scan's share no second step can take, the whole text when it has no blank line. */
size_t clean_quick_parts_first_len(const struct clean_quick_parts *qp);
/* clean_quick_scan(bytes, len), in pieces as above on this thread (tests). */
bool clean_quick_scan_pieces(const char *bytes, size_t len, size_t piece);

/* Every step whatever the quick scan says (tests compare the two). */
enum sp_status clean_document_full(struct document *doc, struct diag *err);

/* clean_document_full with its shortcut on or off (tests compare the two).  The shortcut
 * skips the steps after the decoding of quoted strings when the decoded text reads as
 * Spark's own output (the quick scan finds nothing to do in it): they would only cut
 * trailing blanks.  *taken (may be NULL) says whether it was taken. */
enum sp_status clean_document_steps(struct document *doc, struct diag *err, bool shortcut,
                                    bool *taken);

/* Where the quoted string whose body starts at p[from] ends: the index of its closing quote
 * (quote), an escape being a backslash and the byte after it, or len when the line ends
 * first; *nl says whether the body holds an escaped newline (a backslash then 'n', or two
 * backslashes then 'n' of a string escaped twice).  by_blocks: as the literal step finds it
 * (its escapes walked up to the first escaped newline, then only its quotes looked at);
 * otherwise a byte at a time (tests compare the two). */
uint32_t clean_string_end(const char *p, uint32_t len, uint32_t from, char quote, bool *nl,
                          bool by_blocks);

/* What the clean-up asks of its caller before it keeps a text that only the decoding of
 * quoted strings wrote (the shortcut above: an event log's plan): scan(ctx, text, len,
 * line_map, line_from, n_lines) must return clean_quick_scan(text, len), and may read the
 * text, as the source will hold it with that line map (1-based, n_lines + 1 entries) or,
 * without one, line_from (source.h), until it returns.  The loader parses the text there while a second thread scans it: when the scan
 * finds nothing, that parse is the document's.  text[len] is NUL. */
struct clean_scan_hook {
    bool (*scan)(void *ctx, const char *text, size_t len, const uint32_t *line_map,
                 uint32_t line_from, uint32_t n_lines);
    void *ctx;
};

/* clean_document_full, its decoded text's quick scan done by hook (may be NULL). */
enum sp_status clean_document_full_hooked(struct document *doc, struct diag *err,
                                          const struct clean_scan_hook *hook);

#endif
