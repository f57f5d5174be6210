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

#include <stdbool.h>
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

/* A big text read in two parts at once (issue 17): a pasted corpus holds thousands of plans,
 * and once clean-up has written its text the parse is most of the load.  A second thread
 * parses the text from a cut on (a line where a parser starts afresh: "== Parsed Logical
 * Plan ==", "== Physical Plan ==" or "-- !query" at column 0, at or after byte `from`,
 * within 4 MB) into a document of its own, while parse_document reads up to the cut; there,
 * when its state leads to the one the second thread started from (the open plan closes,
 * nothing of it carries over), it appends the second thread's plans, nodes and warnings to
 * its own (document_append) and stops.  Else it reads on alone.  The model is the same
 * either way, byte for byte.
 *
 *     struct parse_tail *t = parse_tail_new(doc, from);   (NULL: no cut)
 *     thread 2: parse_tail_read(t);
 *     thread 1: doc->parse_tail = t; parse_document(doc, err);   (waits for the second
 *                                                                  thread at the cut)
 *     both done: parse_tail_free(t);
 * parse_tail_read may also run before parse_document on the same thread (tests).  It reads
 * doc's source (text, line map, depths) and nothing else of doc: the source must stay
 * until parse_tail_free. */
struct parse_tail;
struct parse_tail *parse_tail_new(struct document *doc, size_t from);
void parse_tail_read(struct parse_tail *t);
void parse_tail_free(struct parse_tail *t);
/* The cut (a byte of the text), and whether parse_document appended the second part. */
size_t parse_tail_cut(const struct parse_tail *t);
bool parse_tail_taken(const struct parse_tail *t);
/* Plans appended from second parts in this process so far (tests: the loader's cut). */
size_t parse_tail_plans_taken(void);

/* The back part of one big tree read at once (issue 17): a simple plan is a single tree of
 * "+- " lines, its parse nearly all of the load.  A second thread parses from a cut inside
 * the tree (a tree line on the 3-column grid right after another, at or after byte `from`,
 * within 1 MB) with stand-ins for the nodes still open there (the line before's depth says
 * how many), as long as each line is a node on the open stack or more text of the last node,
 * into a document of its own; parse_document, at the cut, when its state is the one the
 * second thread assumed (a plain tree: no regions, elisions, ids or pending line, the stack
 * on the grid, the line before its last node), grafts those nodes under its own stack
 * (document_graft) and reads on from where the second thread stopped.  Else it reads on
 * alone.  The model is the same either way, byte for byte.
 *
 *     struct parse_graft *g = parse_graft_new(doc, from);   (NULL: no cut)
 *     thread 2: parse_graft_read(g);
 *     thread 1: doc->parse_graft = g; parse_document(doc, err);   (waits at the cut)
 *     both done: parse_graft_free(g);
 * parse_graft_read may also run before parse_document on the same thread (tests).  It reads
 * doc's source and nothing else of doc: the source must stay until parse_graft_free.  When
 * doc->parse_cancel is set before parse_graft_new, the second thread stops too once it is
 * non-zero (the part is then not taken). */
struct parse_graft;
struct parse_graft *parse_graft_new(struct document *doc, size_t from);
void parse_graft_read(struct parse_graft *g);
void parse_graft_free(struct parse_graft *g);
/* The cut (a byte of the text), and the nodes parse_document grafted (0: none). */
size_t parse_graft_cut(const struct parse_graft *g);
size_t parse_graft_taken(const struct parse_graft *g);
/* Nodes grafted from second threads in this process so far (tests: the loader's cut). */
size_t parse_graft_nodes_taken(void);

#endif
