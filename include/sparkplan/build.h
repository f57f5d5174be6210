/* build: the one way plans get into the model.  A reader (the text parser, parse.c; next an
 * event-log reader) tells a builder what it reads: a plan starts, a section starts, a node
 * is entered, its details are added, the node is left, the section and the plan end.  The
 * builder links what it is told into doc's lists and trees; the reader never touches them.
 *
 * Call order (each call only where the comment before it says):
 *     struct plan_builder b;
 *     build_init(&b, doc);
 *     for each plan:      build_plan(&b, line);
 *       for each section:   build_section(&b, kind, title, line);
 *         for each node, in pre-order, either form:
 *             n = build_enter(&b);  ...fill n...  [build_enter for its children]  build_leave(&b);
 *             n = build_node(&b, parent, parent's last child so far);   (a reader with a stack
 *                                                                        of its own: parse.c)
 *           build_details_start(n, ...) ... build_details_end(n, ...)   (any time after n)
 *         build_end_section(&b);
 *       build_end_plan(&b, keep);         keep = false: it was not a plan after all
 *     build_free(&b);  then document_finish(doc) (load.c) fills depths, pre-order, ids.
 * The reader fills the fields of a node it gets (name, text, line, stage, id, flags; see
 * plan.h) before build_end_plan, and may change them until document_finish.
 *
 * Lifetimes: plans, sections and nodes are allocated in doc->arena and live until
 * document_free(doc).  Every slice a reader stores (titles, names, text, details) points
 * into doc->src.text (or into doc->arena): it must outlive nothing else.  The builder's own
 * stack (build_enter) is malloc'd and released by build_free.
 * Errors: a call that cannot allocate returns NULL and sets b->nomem; later calls still do
 * no harm, and the reader reports SP_ERR_NOMEM.
 * Never: recursion (build_enter keeps an explicit stack), parsing, reading the text.
 */
#ifndef SPARKPLAN_BUILD_H
#define SPARKPLAN_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/plan.h"
#include "sparkplan/slice.h"

struct plan_builder {
    struct document *doc;
    struct plan *plan;             /* begun by build_plan, NULL after build_end_plan */
    struct plan *prev_plan;        /* the last plan before it (build_end_plan may unlink it) */
    size_t plan_mark;              /* nodes made before it (dropped, it gives its nodes back) */
    struct plan_section *section;  /* begun by build_section, NULL after build_end_section */
    /* build_enter / build_leave: the open nodes, innermost last, and the last child placed
       under each of them so far (NULL: none yet). */
    struct plan_node **open, **open_last;
    size_t n_open, cap_open;
    bool nomem;
};

void build_init(struct plan_builder *b, struct document *doc);
/* Releases the builder's own memory; what it built belongs to the document. */
void build_free(struct plan_builder *b);

/* A plan starts at (original input) line; it is appended to doc's plans. */
struct plan *build_plan(struct plan_builder *b, uint32_t line);
/* The plan ends.  keep = false: it held nothing but headers or prose; it is unlinked from
 * the document (its memory stays in the arena). */
void build_end_plan(struct plan_builder *b, bool keep);

/* A section of the current plan starts (title: its header line, may be empty). */
struct plan_section *build_section(struct plan_builder *b, enum section_kind kind,
                                   struct slice title, uint32_t line);
void build_end_section(struct plan_builder *b);

/* A node of the current section: a root when parent is NULL, else parent's next child, after
 * `after` (its last child so far, NULL for the first).  The reader keeps `after`: finding it
 * here would cost a walk of the children. */
struct plan_node *build_node(struct plan_builder *b, struct plan_node *parent,
                             struct plan_node *after);
/* The same for a reader without a stack: the node is a child of the innermost open node (a
 * root when none is open) and becomes the innermost open node until build_leave. */
struct plan_node *build_enter(struct plan_builder *b);
void build_leave(struct plan_builder *b);

/* A node's details block: its header line (the original input line and the line in the
 * text) when it starts, its whole text and number of fields when it ends.  A node keeps the
 * first block it is given; plan_details_next() splits the fields again when asked. */
void build_details_start(struct plan_node *n, struct slice header, uint32_t line,
                         uint32_t text_line);
void build_details_end(struct plan_node *n, struct slice text, uint32_t n_fields);
/* Both at once, for a reader that keeps the header's line itself until the block ends (the
 * parser: one write into the node's details entry a block instead of two). */
void build_details(struct plan_node *n, struct slice text, uint32_t text_line,
                   uint32_t n_fields);

#endif
