/* plan: the plan model — documents → plans → sections → nodes.
 *
 * Owns: a struct document owns its source (source.h: the input bytes and the text the parser
 * read), one arena and its node store.  Plans, sections and warnings live in that arena,
 * nodes (and their details blocks) in the store (struct plan_store: one array, never moved);
 * their text fields are slices into doc->src.text.  Details fields are not stored:
 * plan_details_next splits them from a node's details text when asked.  document_free()
 * releases everything at once; nothing else is ever freed separately.
 * Never: recursion on tree depth (walk with plan_node_next_preorder), curses, printing.
 * Filled through the plan builder (build.h) by the readers: parse.c.  Read by: emit, analyze,
 * rows, ui.
 */
#ifndef SPARKPLAN_PLAN_H
#define SPARKPLAN_PLAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/arena.h"
#include "sparkplan/slice.h"
#include "sparkplan/source.h"

enum section_kind {
    SECTION_PARSED,
    SECTION_ANALYZED,
    SECTION_OPTIMIZED,
    SECTION_PHYSICAL,
    SECTION_SUBQUERY,    /* formatted-mode "Subquery:N ..." entries and optimized-out exchanges */
    SECTION_CODEGEN,     /* "== Subtree i / N ==" of EXPLAIN CODEGEN */
};

/* The JSON / display word for a kind: "parsed", "analyzed", ... */
const char *section_kind_name(enum section_kind k);

/* Node flags (bit set). */
enum {
    NODE_LABEL = 1u << 0,      /* AQE "== Final Plan ==" style header: not an operator */
    NODE_INNER = 1u << 1,      /* printed as an inner child (subquery / cached plan) of its parent */
    NODE_TRUNCATED = 1u << 2,  /* text carries "... N more fields" or was cut short */
    NODE_MULTILINE = 1u << 3,  /* additive (issue 6): text runs on over continuation lines;
                                  without it text is one line and nobody looks for its end */
    NODE_ELIDED = 1u << 4,     /* the text it was read from shortened the tree here ("...",
                                  "+- ...", "…"): some of its children were left out */
};

/* One field of a formatted-mode details block, as plan_details_next() yields it. */
struct plan_detail {
    struct slice key;    /* "Output", "Condition", "PushedFilters", ... */
    struct slice value;  /* everything after the key's colon: "[2]: [a#1, b#2]" keeps the count;
                            a value printed over several lines runs on to its last line's end */
    uint32_t line;       /* original input line of the field */
};

struct plan_stats {
    bool has_size, has_rows;
    double size_bytes;   /* sizeInBytes converted to bytes (1.0 KiB -> 1024) */
    double row_count;
};

/* 56 bytes, no padding: a 1M-operator plan is 56 MB of nodes, and on a machine where
 * fresh memory costs more than reading input, the model's size is most of the load time
 * (BENCHMARKS.md).  What can be derived is not stored: details fields are split from
 * the details text on demand (plan_details_*), statistics read from the text (plan_node_stats),
 * the last child and previous sibling are found from the pre-order (rows.c), the child count
 * by counting, the details header's input line through the line map, a node's place in its
 * section's pre-order from its address.
 *
 * Nodes of one document lie in one array (document.nodes, a reservation of address space
 * filled as it grows: a node never moves), in the order they were made: the tree links are
 * 32-bit offsets to another node of that array, and a section made in pre-order (every
 * parsed one) is one stretch of it, so neither a section's pre-order nor the document's
 * input order needs an array of pointers.  A node's text is a 32-bit offset from its
 * section's text (the document's text when the section was made), its name a 16-bit offset
 * and length inside that text; a text outside the first 4 GB after that place (a hand-built
 * tree's, a text past 4 GB) or a name that does not fit is kept aside whole, in
 * document.far_ (PLAN_NAME_FAR).  A details block (formatted plans) is kept beside the node,
 * in a second array of the same shape made for the first block.
 * Read the fields marked private through the accessors below. */
struct plan_node {
    struct plan_section *section;
    uint32_t text_off_;       /* private: plan_node_text() is section->text_ + text_off_ - 1
                                 (0: no text); PLAN_NAME_FAR: document.far_[text_off_] */
    uint32_t text_len_;       /* private (a node's text is one line and its continuations) */
    int32_t parent_, first_child_, next_sibling_;  /* private: offsets in nodes, 0 = none */
    uint16_t name_off_;       /* private: plan_node_name() starts at the text + name_off_ */
    uint16_t name_len_;       /* (PLAN_NAME_FAR: text and name kept aside, see above) */
    uint32_t line;            /* 1-based line in the ORIGINAL input (after line mapping) */
    int32_t stage;            /* whole-stage codegen id, -1 when none (0 = Spark 2 bare '*') */
    int32_t id;               /* formatted-mode operator id, -1 when none */
    uint32_t depth;           /* 0 for section roots */
    uint32_t subtree_size;    /* number of descendants (not counting the node) */
    uint16_t n_details;       /* fields in the details block (a block keeps at most 65,535) */
    uint16_t flags;           /* NODE_* */
};

/* name_len_ of a node whose text and name are kept in document.far_ (private). */
#define PLAN_NAME_FAR UINT16_MAX

/* A node's details block, kept beside it (plan_node_details_text): 12 bytes. */
struct plan_node_block {
    uint32_t off;             /* the whole details block, header line included, at its node's
                                 section->text_ + off - 1 (0: none); len UINT32_MAX: the
                                 block is kept aside, document.far_blocks[off - 1] */
    uint32_t len;
    uint32_t text_line;       /* line of the details header in doc->text, 0 when none */
};

/* A node's text and name, or a details block, that the offsets above cannot reach. */
struct plan_node_far {
    struct slice text, name;
};

/* A growing array in reserved address space (a small text's: a fixed one in the arena, as
 * long as the text allows): what it holds never moves (plan.c). */
struct plan_store {
    char *base;
    size_t reserved, committed;   /* bytes */
    size_t small;                 /* the first bytes, made usable in 64 KB steps of 4 KB
                                     pages (0 for a big text's store: huge pages at once) */
    bool in_arena;
    bool window;                  /* part of another document's store (document_nodes_window):
                                     not unmapped with this one */
    /* While fence is set (bytes, 0: none), the store is not made usable past it: the bytes
       after it are a second thread's (document_nodes_fence).  Asked for more, it calls
       fence_hit(fence_ctx), which makes that thread stop writing there, then lifts it. */
    size_t fence;
    void (*fence_hit)(void *ctx);
    void *fence_ctx;
};

/* The fields of a node's details block, split from details_text on demand with the lexing
 * the parser uses (lex.c), so every reader sees the same fields in the same order:
 *     struct plan_details it; struct plan_detail d;
 *     plan_details_init(&it, n);
 *     while (plan_details_next(&it, &d)) ...
 * Yields exactly n->n_details fields.  Linear in the block; allocates nothing (a field line
 * the thread has read before is answered from a memo of its first bytes). */
struct plan_details {
    const struct document *doc;
    const char *pos, *end;    /* the next line to read */
    uint32_t lno;             /* its line in doc->text */
    uint32_t n;               /* fields started so far */
    bool blank_before;
    bool have_next;           /* `next` holds a field line read ahead */
    struct plan_detail next;
};

void plan_details_init(struct plan_details *it, const struct plan_node *n);
bool plan_details_next(struct plan_details *it, struct plan_detail *out);
/* The values of the first fields of n's block whose keys are keys[0..k) (k <= 32, klen[j]
 * their lengths; a key matches as namekey_same says), as plan_details_next yields them: bit j
 * of the answer and out[j] for each key found, out[j] empty for the others.  One walk over
 * the block's lines that stops once every key is found; a line the thread's memo of field
 * lines knows is not lexed again (lex_details_field_memo), and no field's input line is
 * worked out.  The analysis reads every scan's PushedFilters, PartitionFilters, ReadSchema
 * and Output so (node_detail_fields_n). */
unsigned plan_node_detail_values(const struct plan_node *n, size_t k, const char *const keys[],
                                 const size_t klen[], struct slice out[]);

struct plan_section {
    enum section_kind kind;
    struct slice title;        /* header line: "== Physical Plan ==", "Subquery:1 Hosting ..." */
    uint32_t line;             /* original line of the header (or of the first node) */
    struct slice schema;       /* analyzed plan's "name: type" line, empty otherwise */
    struct slice code;         /* codegen: the "Generated code:" block, empty otherwise */
    struct plan_node *first_root, *last_root;
    uint32_t n_roots;
    uint32_t n_nodes;
    uint32_t n_elided;         /* additive: nodes with NODE_ELIDED (the explorer's "…" rows) */
    struct plan_node *first_node;  /* private: its pre-order is nodes first_node .. + n_nodes
                                      when it is one stretch of the document's nodes */
    struct plan_node **preorder_;  /* private: else all its nodes in pre-order (parents first)
                                      (plan_section_node reads either) */
    struct plan *plan;
    struct plan_section *next;
    const char *text_;         /* private: the document's text when the section was made: its
                                  nodes' texts and blocks are offsets from here */
};

/* Where a plan came from, beyond its line: the notebook cell it was printed by or pasted
 * into, the SQL of a golden file's "-- !query" block, the log record that printed it.
 * Strings are arena copies or slices of doc->text; absent fields are NULL / empty / 0. */
struct plan_source {
    const char *format;        /* "jupyter", "zeppelin", "databricks", "databricks-source";
                                  NULL when the input is not a notebook */
    uint32_t cell;             /* 1-based cell (paragraph, command) number, 0 when none */
    uint32_t cell_line;        /* the plan's first line within that cell's text or output */
    int32_t execution_count;   /* -1 when none */
    const char *cell_type;     /* "code", "markdown", "raw" */
    const char *code;          /* the first line of the cell's code */
    bool from_output;          /* printed by running the cell, not pasted into its text */
    struct slice query;        /* .sql.out: the SQL text of the "-- !query" block */
    struct slice log_time;     /* the log record before the plan: its timestamp */
    struct slice logger;       /* and its logger ("InsertAdaptiveSparkPlan") */
};

struct plan {
    struct plan_section *first_section, *last_section;
    uint32_t n_sections;
    uint32_t line;             /* original line where this plan starts */
    bool adaptive;             /* an AdaptiveSparkPlan is present */
    int is_final;              /* 1 isFinalPlan=true, 0 false, -1 not adaptive / unknown */
    uint32_t *by_id;           /* formatted id -> node index + 1 in doc->nodes (first one
                                  printed), 0 when none: plan_node_find_by_id */
    struct plan_source source; /* additive: provenance (parse.c and load.c fill it) */
    uint32_t by_id_len;        /* valid ids are 0 .. by_id_len-1 */
    size_t by_id_mapped;       /* a big by_id's own mapping (freshmem_map), its length; 0:
                                  by_id is in the arena */
    bool by_id_given;          /* private: by_id came from the reader (plan_give_by_id) */
    struct document *doc;
    struct plan *next;
};

struct plan_warning {
    uint32_t line;             /* original input line, 0 when none */
    const char *where;         /* additive: "cell 12:3" for a notebook (load.c), else NULL */
    const char *message;       /* arena string */
    struct plan_warning *next;
};

struct document {
    const char *name;          /* origin shown to people: file name, "stdin", "paste 2" */
    /* The input and the text the parser read (source.h owns both): nodes' slices point into
       src.text; src.line_map and src.line_depth map its lines back to the input. */
    struct source src;
    struct arena arena;
    struct plan *first_plan, *last_plan;
    uint32_t n_plans;
    struct plan_warning *first_warning, *last_warning;
    uint32_t n_warnings;
    /* Every node made, in the order made (plan_node_new; a dropped plan's nodes are taken
       back).  n_nodes_made of struct plan_node in nodes.base. */
    struct plan_store nodes;
    struct plan_store blocks;  /* struct plan_node_block beside each node, once one is set */
    size_t n_nodes_made;
    bool nodes_are_lines;      /* plan_nodes_are_lines */
    uint32_t *pre_ix;          /* private: pre-order index of each node of a section that is
                                  not one stretch (NULL when every section is) */
    struct plan_node_far *far_;  /* private: nodes' texts and names the offsets cannot reach
                                    (PLAN_NAME_FAR, malloc'd) */
    uint32_t n_far, cap_far;
    struct slice *far_blocks;  /* private: details blocks the offsets cannot reach (malloc'd) */
    uint32_t n_far_blocks, cap_far_blocks;
    struct plan_node **all_nodes_;  /* private: every node of every plan in input order, when
                                      that is not the order made (document_node reads it) */
    size_t n_all_nodes;
    /* Additive (issue 6): when set, parse_document polls it every 4,096 lines and stops with
       SP_ERR_CANCELLED once it is non-zero (load.c's parse beside the quick scan). */
    const atomic_int *parse_cancel;
    /* Additive (issue 17): when set, the end of a big formatted plan's details list read by
       a second thread (parse.h, parse_split_*); parse_document takes what it read when it
       gets to that place in the state the reader assumed.  The caller owns it. */
    struct parse_split *parse_split;
    /* Additive (issue 17): when set, the end of a big text parsed by a second thread from a
       cut (parse.h, parse_tail_*); parse_document appends its plans when it gets to the cut
       in the state the second thread assumed.  The caller owns it. */
    struct parse_tail *parse_tail;
    /* Additive (issue 17): when set, the back part of a big tree parsed by a second thread
       from a tree line (parse.h, parse_graft_*); parse_document grafts its nodes when it gets
       to that line in the state the second thread assumed.  The caller owns it. */
    struct parse_graft *parse_graft;
    /* Additive (issue 17): when set, parse_document calls it while it waits at a cut for
       the second thread's part (split, tail or graft above), again and again until the
       part is ready or it returns false: other work of the load (load.c: the quick scan's
       pieces), done by this thread instead of sleeping. */
    bool (*parse_idle)(void *ctx);
    void *parse_idle_ctx;
    /* The builder's record of the nodes in the order it made them (plan_order_*, for
       build.c): while every node goes in in pre-order, depths, pre-order numbers and subtree
       sizes are set as the nodes are made, still in the cache, and document_finish does not
       walk the whole model again (a third of finishing was waiting for memory).  NULL when
       nobody asked for it (hand-built trees): the walk does it all. */
    struct plan_order *order;
    /* The reader gives each plan its by_id (plan_give_by_id) where it can, so the record
       keeps no ids; a plan it gives none gets one from its nodes (parse.c sets it). */
    bool by_id_from_reader;
};

/* ---- reading a node ------------------------------------------------------------------ */

static inline struct plan_node *plan_node_at_(const struct plan_node *n, int32_t off)
{
    return off ? (struct plan_node *)n + off : NULL;
}
static inline struct plan_node *plan_node_parent(const struct plan_node *n)
{
    return plan_node_at_(n, n->parent_);
}
static inline struct plan_node *plan_node_first_child(const struct plan_node *n)
{
    return plan_node_at_(n, n->first_child_);
}
static inline struct plan_node *plan_node_next_sibling(const struct plan_node *n)
{
    return plan_node_at_(n, n->next_sibling_);
}
/* The node string without tree prefix and codegen marker; includes continuation lines
 * (contiguous in doc->text). */
struct slice plan_node_far_text_(const struct plan_node *n);
struct slice plan_node_far_name_(const struct plan_node *n);
static inline const char *plan_node_text_ptr_(const struct plan_node *n)
{
    return n->text_off_ ? n->section->text_ + (n->text_off_ - 1) : NULL;
}
static inline struct slice plan_node_text(const struct plan_node *n)
{
    if (n->name_len_ == PLAN_NAME_FAR) /* hand-built trees, a text past 4 GB */
        return plan_node_far_text_(n);
    return slice_make(plan_node_text_ptr_(n), n->text_len_);
}
/* Operator name, no markers: "SortMergeJoin", "Scan parquet db.t"; a label's inner words. */
static inline struct slice plan_node_name(const struct plan_node *n)
{
    if (n->name_len_ == PLAN_NAME_FAR)
        return plan_node_far_name_(n);
    const char *t = plan_node_text_ptr_(n);
    if (!n->name_len_)
        return slice_make(t, 0);
    return slice_make(t + n->name_off_, n->name_len_);
}
/* Index of a node in its document's nodes (the order made). */
static inline size_t plan_node_index(const struct plan_node *n)
{
    return (size_t)(n - (const struct plan_node *)(const void *)n->section->plan->doc->nodes.base);
}
/* Its details block (header line included), empty when none.  Inline: the analysis asks
 * most nodes for it two or three times, and the call was half the answer's cost. */
static inline struct slice plan_node_details_text(const struct plan_node *n)
{
    const struct document *doc = n->section->plan->doc;
    size_t i = plan_node_index(n);
    if (!doc->blocks.base || (i + 1) * sizeof(struct plan_node_block) > doc->blocks.committed)
        return slice_make(NULL, 0);
    const struct plan_node_block *b = (const struct plan_node_block *)(const void *)doc->blocks.base + i;
    if (!b->off)
        return slice_make(NULL, 0);
    if (b->len == UINT32_MAX) /* kept aside */
        return doc->far_blocks[b->off - 1];
    return slice_make(n->section->text_ + (b->off - 1), b->len);
}
/* Line of the details header in doc->text / in the original input, 0 when none. */
uint32_t plan_node_details_text_line(const struct plan_node *n);
uint32_t plan_node_details_line(const struct plan_node *n);
/* Counted: O(children). */
uint32_t plan_node_n_children(const struct plan_node *n);
/* Index in its section's pre-order (plan_section_node(n->section, i) == n). */
static inline uint32_t plan_node_preorder(const struct plan_node *n)
{
    const struct plan_section *s = n->section;
    if (!s->preorder_)
        return (uint32_t)(n - s->first_node);
    return s->plan->doc->pre_ix[plan_node_index(n)];
}
/* The i-th node (0 <= i < s->n_nodes) of the section in pre-order, parents first. */
static inline struct plan_node *plan_section_node(const struct plan_section *s, uint32_t i)
{
    return s->preorder_ ? s->preorder_[i] : s->first_node + i;
}
/* The i-th node (0 <= i < doc->n_all_nodes) of the document in input order. */
static inline struct plan_node *document_node(const struct document *doc, size_t i)
{
    return doc->all_nodes_ ? doc->all_nodes_[i] : (struct plan_node *)(void *)doc->nodes.base + i;
}

/* Writing: the text first, then the name (inside the text as readers set it: kept as an
 * offset from the text; a name elsewhere is kept aside).  Inline where the name is in its
 * text or the node has none yet (every node a parser makes: twice a node on 6 million lines),
 * the rest out of line. */
void plan_node_set_text_(struct plan_node *n, struct slice text);
void plan_node_set_name_(struct plan_node *n, struct slice name);
static inline void plan_node_set_text(struct plan_node *n, struct slice text)
{
    const char *base = n->section->text_;
    uintptr_t off = (uintptr_t)text.ptr - (uintptr_t)base;
    if (n->name_len_ == 0 && base && off < UINT32_MAX && text.len <= UINT32_MAX) {
        /* no name to keep at its place, and the text within reach */
        n->text_off_ = (uint32_t)off + 1;
        n->text_len_ = (uint32_t)text.len;
        n->name_off_ = 0;
        return;
    }
    plan_node_set_text_(n, text);
}
static inline void plan_node_set_name(struct plan_node *n, struct slice name)
{
    const char *t = plan_node_text_ptr_(n);
    if (n->name_len_ != PLAN_NAME_FAR && t) {
        uintptr_t off = name.len ? (uintptr_t)name.ptr - (uintptr_t)t : 0;
        if (off < PLAN_NAME_FAR && name.len < PLAN_NAME_FAR) {
            n->name_off_ = (uint16_t)off;
            n->name_len_ = (uint16_t)name.len;
            return;
        }
    }
    plan_node_set_name_(n, name);
}
/* Its details block and the block's header line in doc->text (build_details_* call it);
 * false when no memory for it. */
bool plan_node_set_details(struct plan_node *n, struct slice text, uint32_t text_line);
/* The reader makes at most one node of each line of doc->src.text (the text parser): a small
 * text's nodes then take an array of its arena as long as its lines allow (an event log's
 * thousands of plans would otherwise take a mapping each).  Before the first node. */
void plan_nodes_are_lines(struct document *doc);
/* Takes back the nodes made from index mark on (a plan the builder drops: nothing points to
 * them any more). */
void plan_nodes_take_back(struct document *doc, size_t mark);

/* Construction: takes ownership of bytes (malloc'd, source_init).  Does not parse. */
struct document *document_new(const char *name, char *bytes, size_t len);
void document_free(struct document *doc);

/* Append helpers used by the parser and clean-up (all allocate in doc->arena). */
struct plan *document_add_plan(struct document *doc, uint32_t line);
struct plan_section *plan_add_section(struct plan *p, enum section_kind kind, struct slice title,
                                      uint32_t line);
struct plan_node *plan_node_new(struct plan_section *s);
/* Appends child after parent's last child, found by walking the children (O(children)):
 * for small hand-built trees.  Builders of big trees know the last child and pass it. */
void plan_node_append_child(struct plan_node *parent, struct plan_node *child);
void plan_node_append_child_after(struct plan_node *parent, struct plan_node *last,
                                  struct plan_node *child);
void plan_section_append_root(struct plan_section *s, struct plan_node *root);
/* plan_node_new, then parent's child after `after` (plan_node_append_child_after) or, parent
 * NULL, a root of s, then plan_order_node: the builder's one call a node (build_node). */
struct plan_node *plan_node_place(struct plan_section *s, struct plan_node *parent,
                                  struct plan_node *after);
void document_warn(struct document *doc, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The builder's record (build.c calls these; nobody else).  plan_order_begin on an empty
 * document starts it; plan_order_node after each node is linked (its parent, if any, is then
 * the node last made or one of that node's ancestors, else the record gives up and
 * document_finish walks); plan_order_plan_begin / plan_order_plan_dropped around a plan that
 * build_end_plan unlinks; plan_order_id_changed when a reader changes a node's id after
 * making it.  plan_order_discard drops the record (document_finish then walks: tests
 * compare the two).  All are no-ops without a record.  Returns false on allocation failure
 * (the walk does the work then). */
struct plan_order;
bool plan_order_begin(struct document *doc);
void plan_order_node(struct document *doc, struct plan_node *n);
void plan_order_plan_begin(struct document *doc);
void plan_order_plan_dropped(struct document *doc);
void plan_order_id_changed(struct document *doc, const struct plan_node *n);
void plan_order_discard(struct document *doc);
/* A reader that kept its own table of ids (parse.c: the first node made with each id, which
 * is the first printed while the record holds) hands it over for plan p: ids[id] = node index
 * + 1 for id < len, 0 none.  mapped_len: ids is a freshmem_record of that many bytes and p
 * takes it (returns true: the caller forgets it); else it is copied.  document_finish keeps it
 * when the record holds (dropped, like the rest, when ids are too sparse for a table), and
 * makes its own when it walks. */
bool plan_give_by_id(struct plan *p, uint32_t *ids, uint32_t len, size_t mapped_len);
/* For tests: off, plan_order_begin keeps no record and every document_finish walks. */
void plan_order_enable(bool on);

/* After parsing: fills depth, subtree sizes, pre-order (arrays only for sections that are
 * not one stretch of the store), by_id and input order.
 * Iterative, linear.  Returns false on allocation failure. */
bool document_finish(struct document *doc);

/* Appends the plans, sections, nodes and warnings of part to doc's, in that order, as if
 * doc's reader had gone on to make them (issue 17: the second half of a big text read on a
 * second thread, parse.h's parse_tail_*).  Both were read from the same text (the same
 * doc->src.text: their slices and line numbers hold as they are) and neither is finished.
 * Nodes are copied into doc's store (tree links are offsets between nodes: they hold) and
 * what points to them is moved (sections' roots, plans' by_id); part's arena becomes doc's.
 * part keeps nothing of it: free it after.  False (doc untouched) when out of memory or the
 * texts differ. */
bool document_append(struct document *doc, struct document *part);

/* Grafts the nodes part's parser made under stand-ins into doc's tree (issue 17: the back part
 * of one big tree read on a second thread, parse.h's parse_graft_*).  part's nodes 0..k-1 are
 * stand-ins for doc's at[0..k-1], the open path of doc's last section (at[d + 1] the last
 * child of at[d], at[k - 1] the node last made), each stand-in the first child of the one
 * before; its nodes from k on were made after them, in pre-order, in one section, from the
 * same text (the same doc->src.text), with no warnings, details blocks or ids.  They are
 * put after doc's nodes as if doc's builder had made them: links to a stand-in go to its
 * node, subtree sizes and the builder's record as the one-thread parse leaves them.  From a
 * window of doc's store (document_nodes_window) they are moved down in place; from a store
 * of part's own they are copied, part's pages given back as they go.  Free part after.  line_shift is added to each node's line (a part that
 * numbered its lines from the cut).  False (doc untouched) when out of memory or part is not
 * such a part. */
/* Room for a second thread's nodes inside doc's own node store, so that grafting them
 * (document_graft) moves them a few places down in memory already made, instead of copying
 * them to fresh memory (on the benchmark machine fresh memory is the load's largest cost:
 * 28 MB for the back half of the million-operator simple plan, 4 ms when the machine's
 * memory is warm and 15-18 ms when it is not).  Called by the thread that parses doc, before
 * the second thread starts: doc's store is reserved then, and its nodes may not go past
 * about nodes_before (doc's nodes up to the cut, estimated) while the fence stands.  Returns
 * the window's place (bytes into doc's store) for document_nodes_window, 0 when there is
 * none (a small text's store, or no room): the part then keeps a store of its own.  When
 * doc needs more nodes before the graft, fence_hit(ctx) is called: it must make the second
 * thread stop writing (the part cannot be grafted then); the fence is lifted after it. */
size_t document_nodes_fence(struct document *doc, size_t nodes_before,
                            void (*fence_hit)(void *ctx), void *ctx);
/* part's nodes go to doc's store from `at` bytes on (document_nodes_fence's answer), part
 * having made none yet.  Called by the second thread. */
void document_nodes_window(struct document *part, const struct document *doc, size_t at);

bool document_graft(struct document *doc, struct document *part, struct plan_node *const *at,
                    size_t k, uint32_t line_shift);

/* Bytes the model holds: its arena, the nodes made and their details blocks (for the
 * benchmark and the tests that keep the model small). */
size_t document_model_bytes(const struct document *doc);

/* Original input line for a 1-based line of doc->text. */
uint32_t document_original_line(const struct document *doc, uint32_t text_line);

/* Walks without recursion. */
struct plan_node *plan_node_next_preorder(const struct plan_node *n);  /* within its section */
/* Where a plan came from, in a few words for people: "cell 12, output of [7] df.explain()",
 * "cell 3, pasted into a markdown cell", "query: EXPLAIN SELECT ...", "log 24/01/02 10:11:12
 * InsertAdaptiveSparkPlan".  Empty when nothing is known.  Writes at most cap bytes (NUL
 * included); the text comes from the input: callers sanitize it before it reaches a
 * terminal. */
void plan_source_describe(const struct plan_source *s, char *buf, size_t cap);
struct plan_node *plan_node_next_skip_children(const struct plan_node *n);

/* Lookups. */
struct plan_node *plan_node_find_by_id(const struct plan *p, int32_t id);
struct plan_node *document_node_at_line(const struct document *doc, uint32_t line); /* last node starting at or before line */
/* The first details field named key (value and line filled in *out), false when none.
 * Keys asked in a row of one node split its block once (each thread keeps the last node's
 * fields; document_free makes them stale). */
bool plan_node_detail(const struct plan_node *n, const char *key, struct plan_detail *out);

/* The ", Statistics(sizeInBytes=..., rowCount=...)" closing the node string's first line
 * (cost mode), as the parser read it; false (and *out zeroed) when it has no size and no
 * row count.  Labels have none. */
bool plan_node_stats(const struct plan_node *n, struct plan_stats *out);

#endif
