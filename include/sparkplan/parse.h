/* parse: lines of doc->text → plans, sections and nodes of the model.
 *
 * Owns nothing: it tells the plan builder (build.h) what it reads; everything built is
 * allocated in doc->arena and points into doc->src.text.
 * Reads every explain mode (simple, extended, formatted, cost, codegen, AQE), several plans
 * per input, headerless trees.  An explicit stack, no recursion; linear time.
 * Returns SP_ERR_NO_PLAN (err->message "no Spark plan found") when nothing parsed.
 */
#ifndef SPARKPLAN_PARSE_H
#define SPARKPLAN_PARSE_H

#include <stddef.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

enum sp_status parse_document(struct document *doc, struct diag *err);

/* A big formatted plan's details list, read in two halves at once (issue 17).  A million
 * operators print a million details blocks after their tree: most of the lines of the
 * input.  A second thread reads the blocks from a split point on (only the text: what each
 * block is, where it ends, its fields and warnings), while parse_document reads up to that
 * point; there, when it is in the state the reader assumed (inside the details list of an
 * open plan, after a blank line), it attaches the reader's blocks as it would have read
 * them, and goes on from where the reader stopped (the first line that was not a details
 * block's: a header, a tree, prose).  Else it reads on alone.  The model is the same either
 * way, byte for byte.
 *
 *     struct parse_split *sp = parse_split_new(text, len, from);   (NULL: no split point)
 *     thread 2: parse_split_read(sp);
 *     thread 1: doc->parse_split = sp; parse_document(doc, err);   (waits for the reader
 *                                                                    at the split point)
 *     both done: parse_split_free(sp);
 * parse_split_read may also run before parse_document on the same thread (tests).
 * The split point is a details header right after an empty line, at or after byte `from`
 * (within 1 MB), whose next lines read as details blocks.  The reader's record is address
 * space of its own (freshmem_record), given back as parse_document takes its blocks and
 * unmapped by parse_split_free; it never touches a document.  text must stay until then. */
struct parse_split;
struct parse_split *parse_split_new(const char *text, size_t len, size_t from);
void parse_split_read(struct parse_split *sp);
void parse_split_free(struct parse_split *sp);
/* The split point (a byte of text), and the blocks parse_document took from the reader (0:
 * it read the whole text itself). */
size_t parse_split_point(const struct parse_split *sp);
size_t parse_split_taken(const struct parse_split *sp);
/* Blocks parse_document took from readers in this process so far (tests: the loader split). */
size_t parse_split_blocks_taken(void);

#endif
