/* parse.c: lines of doc->src.text -> plans, sections and nodes (see parse.h).
 *
 * One pass over the lines, each classified by lex.c.  A tree is built with an explicit stack
 * indexed by depth (no recursion); AQE sub-plans and pastes that start indented are handled
 * by "regions" that shift the depth of the lines inside them.  Formatted-mode details blocks
 * follow the outline they describe: each one is attached, as it is read, to the first node
 * printed with its operator id (an index per plan, filled as nodes are read).
 */
#include "sparkplan/parse.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/build.h"
#include "sparkplan/catalog.h"
#include "sparkplan/freshmem.h"
#include "sparkplan/lex.h"
#include "sparkplan/prefetch.h"
#include "sparkplan/thread.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* For the few helpers of the line loop the compiler would call rather than inline (a call
   and the facts passed through memory for each of 6 million lines). */
#if defined(__GNUC__)
#define ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define ALWAYS_INLINE inline
#endif

/* Warnings about hidden fields are capped so a wide plan does not bury the rest. */
#define MAX_FIELD_WARNINGS 20

enum mode {
    MODE_NONE,    /* between things: trees, details, prose */
    MODE_SKIP,    /* text that is never a plan: SQL of a golden file, extended information */
    MODE_CODE,    /* the "Generated code:" block of a codegen subtree */
    MODE_DETAILS, /* formatted-mode details blocks */
};

/* Formatted ids -> the first node printed with that id, for the open plan.  Ids are dense
   (1..n in post-order), so most live in a direct array; one far beyond anything the input
   could number densely goes to a small open-addressing table instead, so a hostile
   "(999999999)" costs a slot, not gigabytes.  Scratch memory (malloc), reset per plan. */
struct id_slot {
    int32_t id;                /* -1: empty */
    uint32_t node;             /* node number + 1 (plan_node_index); 0: the id was seen, its
                                  node withdrawn */
};

/* Nodes are kept by number (4 bytes an id at the model's peak, not a pointer's 8). */
struct id_index {
    uint32_t *direct;          /* direct[id] for id < direct_cap: node number + 1, 0 none */
    size_t direct_cap;
    bool direct_mapped;        /* direct is a mapping of direct_cap entries (ids_place) */
    size_t direct_limit;       /* ids from here on go to the table */
    struct id_slot *table;
    size_t table_cap, table_used;
    uint32_t top;              /* the highest id placed + 1, 0 none */
    bool withdrawn;            /* a node was taken out (unindex_node) */
};

/* Lines inside a region have their depth shifted: depth = units + offset.  A branch line
   with units <= base leaves the region. */
struct region {
    uint32_t base;
    long offset;
};

struct parser {
    struct document *doc;
    enum sp_status status;

    /* current line */
    const char *ls;            /* line start */
    const char *le;            /* line end (no '\n', no '\r') */
    bool maybe_dot;            /* the line may hold a '.' (false: it has none) */
    uint32_t lno;              /* 1-based line in doc->src.text */
    bool blank_before;         /* the previous line was blank */
    const char *prev_ls, *prev_le; /* the last line before this one that was not blank */
    struct slice query;        /* .sql.out: the SQL of the last "-- !query" block */
    bool in_query;             /* reading that SQL */

    struct plan *plan;         /* open plan, or NULL */
    struct plan_builder b;     /* links plans, sections and nodes into the model */
    int plan_max_order;        /* highest section order seen in the plan (-1 none) */
    bool plan_headerless;      /* the plan started with a bare tree */
    bool drop_plan;            /* the bare "tree" turned out to be prose */
    bool details_only;         /* formatted details blocks with no outline: a flat list */
    size_t plan_nodes;
    struct id_index ids;       /* formatted id -> first node, for the open plan */
    bool dup_ids;              /* some id was printed twice in the plan (AQE initial plan) */

    struct plan_section *sec;  /* section receiving tree lines */
    bool tree_open;            /* lines may still extend sec's tree */
    bool sec_headerless;
    bool sec_partial;          /* the tree starts below its root ("   +- Filter ..."): each
                                  line left of the first one starts another root */
    size_t sec_nodes;          /* nodes placed in sec */
    size_t sec_formatted;      /* of which carried a formatted "(N)" */
    size_t sec_branches;       /* of which were placed under a parent by a "+- " / ":- " line */
    enum mode mode;
    bool hint_analyzed;        /* inside a "-- !query analysis" block */

    /* tree building */
    struct plan_node **stack;  /* stack[d] = last node placed at depth d (NULL = skipped) */
    struct plan_node **last_child; /* last_child[d] = the last child of stack[d] so far */
    long *mark_col;            /* mark_col[d] = column of stack[d]'s tree marker (its text's
                                  column - 3: -3 for a root at column 0) */
    size_t stack_cap;
    long top;                  /* depth of the last node, -1 when none */
    struct plan_node *last;
    uint32_t last_units;       /* raw prefix units of the last node's line */
    size_t indent_step;        /* spaces per level of an indentation-only tree, 0 = none */
    bool elided;               /* an elision line ("+- ...") was read in this tree */
    struct region *regions;
    size_t n_regions, regions_cap;

    /* "== Analyzed Logical Plan ==": the first line may be the schema or the root. */
    bool expect_schema, has_pending;
    const char *pending_ls, *pending_le;
    uint32_t pending_lno;

    /* formatted details: the open block (its fields are split again on demand: plan.c) */
    bool in_block;
    bool still_plain;              /* the last line was read in plain details by
                                      details_line's verdict (one_line's fast path), which
                                      leaves the state plain_details reads as it was: the
                                      next line is in plain details too, without asking */
    struct plan_node *block_node;  /* the node it describes, NULL when none or taken */
    const char *block_start, *block_end;
    bool block_aqe;                /* "(N) AdaptiveSparkPlan": its text says isFinalPlan */
    uint32_t n_fields;             /* fields counted in the block */
    struct lex_key_memo key_memo;  /* the keys of the fields counted (details_line) */
    uint32_t block_lno;            /* its header's line (block_node's details are written
                                      when the block ends: finish_block) */

    /* codegen */
    struct plan_section *code_sec;
    const char *code_start, *code_end;

    uint32_t field_warnings, field_warnings_dropped;
    bool warned_big_number;    /* an id or stage past 32 bits was reported */
    /* The second part of a cut text (parse_tail): the warnings the whole parse makes only
       depending on what came before the cut (hidden fields past the first 20, a second big
       number) are all made, and noted for tail_append to keep or drop. */
    struct parse_tail *tail;
};

static void tail_note_warning(struct parser *p, uint32_t n_warnings_before, bool big_number);

static uint32_t orig_line(struct parser *p, uint32_t text_line)
{
    return document_original_line(p->doc, text_line);
}

/* An id or a stage read as LEX_NUMBER_TOO_BIG: none (-1) for the model, the number stays in
 * the node's text, and the first one is reported. */
static int32_t small_number(struct parser *p, int32_t v, uint32_t lno)
{
    if (v != LEX_NUMBER_TOO_BIG)
        return v;
    if (!p->warned_big_number) {
        p->warned_big_number = true;
        uint32_t before = p->doc->n_warnings;
        document_warn(p->doc, orig_line(p, lno),
                      "an operator id or codegen stage beyond 32 bits is not one Spark prints: "
                      "kept as text, no details attached by it");
        if (p->tail)
            tail_note_warning(p, before, true);
    }
    return -1;
}

static void fail(struct parser *p, enum sp_status s)
{
    if (p->status == SP_OK)
        p->status = s;
}

/* slice == literal, the length known at compile time. */
#define slice_is(sl, lit)                                                                          \
    ((sl).len == sizeof(lit) - 1 && memcmp((sl).ptr, (lit), sizeof(lit) - 1) == 0)

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* ---- warnings ------------------------------------------------------------------------ */

/* The warnings for what lex_truncation found in a line (fields / chars: -1 when absent). */
static void report_truncation_found(struct parser *p, long f, long c, uint32_t lno,
                                    struct plan_node *node)
{
    if (f >= 0) {
        if (node)
            node->flags |= NODE_TRUNCATED;
        if (p->field_warnings < MAX_FIELD_WARNINGS || p->tail) {
            p->field_warnings++;
            uint32_t before = p->doc->n_warnings;
            document_warn(p->doc, orig_line(p, lno),
                          "%ld more fields not shown: raise spark.sql.debug.maxToStringFields",
                          f);
            if (p->tail)
                tail_note_warning(p, before, false);
        } else {
            p->field_warnings_dropped++;
        }
    }
    if (c >= 0) {
        if (node)
            node->flags |= NODE_TRUNCATED;
        document_warn(p->doc, orig_line(p, lno),
                      "plan text cut short, %ld more characters not shown: raise "
                      "spark.sql.maxPlanStringLength",
                      c);
    }
}

/* The warnings proper, out of line: most lines never get here (check_truncation). */
static void report_truncation(struct parser *p, const char *s, size_t n, uint32_t lno,
                              struct plan_node *node)
{
    long f, c;
    lex_truncation(s, n, &f, &c);
    report_truncation_found(p, f, c, lno, node);
}

/* Can the piece [s, s + n) of the line [ls, le) hold one of Spark's truncation marks?  Both
   need a '.' ("... 12 more fields") or start with 'T' ("Truncated plan of"): a piece of the
   line without either (maybe_dot false: the line has no '.') has neither (most lines).
   Shared with the details reader (split_read), which must warn where the parser does. */
static inline bool truncation_possible(bool maybe_dot, const char *ls, const char *le,
                                       const char *s, size_t n)
{
    return maybe_dot || s < ls || s + n > le || (n > 0 && s[0] == 'T');
}

/* Inline so that the test below, which turns away most lines, costs no call. */
static inline void check_truncation(struct parser *p, const char *s, size_t n, uint32_t lno,
                                    struct plan_node *node)
{
    if (truncation_possible(p->maybe_dot, p->ls, p->le, s, n))
        report_truncation(p, s, n, lno, node);
}

/* ---- the tree stack ------------------------------------------------------------------ */

static bool stack_reserve(struct parser *p, size_t depth)
{
    if (depth < p->stack_cap)
        return true;
    size_t cap = p->stack_cap ? p->stack_cap : 64;
    while (cap <= depth)
        cap *= 2;
    struct plan_node **s = realloc(p->stack, cap * sizeof *s);
    if (s)
        p->stack = s;
    struct plan_node **l = s ? realloc(p->last_child, cap * sizeof *l) : NULL;
    if (l)
        p->last_child = l;
    long *mc = l ? realloc(p->mark_col, cap * sizeof *mc) : NULL;
    if (!mc) {
        fail(p, SP_ERR_NOMEM);
        return false;
    }
    p->mark_col = mc;
    p->stack_cap = cap;
    return true;
}

static bool region_push(struct parser *p, uint32_t base, long offset)
{
    if (p->n_regions == p->regions_cap) {
        size_t cap = p->regions_cap ? p->regions_cap * 2 : 8;
        struct region *r = realloc(p->regions, cap * sizeof *r);
        if (!r) {
            fail(p, SP_ERR_NOMEM);
            return false;
        }
        p->regions = r;
        p->regions_cap = cap;
    }
    p->regions[p->n_regions].base = base;
    p->regions[p->n_regions].offset = offset;
    p->n_regions++;
    return true;
}

static long region_offset(const struct parser *p)
{
    return p->n_regions ? p->regions[p->n_regions - 1].offset : 0;
}

/* ---- formatted ids ------------------------------------------------------------------- */

static void ids_reset(struct id_index *x)
{
    if (x->direct_mapped)
        freshmem_unmap(x->direct, x->direct_cap * sizeof *x->direct);
    else
        free(x->direct);
    free(x->table);
    memset(x, 0, sizeof *x);
}

/* The table slot of id (open addressing, at most half full), or NULL on allocation failure. */
static struct id_slot *ids_table_slot(struct id_index *x, int32_t id)
{
    if (2 * (x->table_used + 1) > x->table_cap) {
        size_t cap = x->table_cap ? x->table_cap * 2 : 64;
        struct id_slot *t = malloc(cap * sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < cap; i++)
            t[i].id = -1, t[i].node = 0;
        /* Bound: each old slot moves once; the table doubles, so moves are linear overall. */
        for (size_t i = 0; i < x->table_cap; i++) {
            if (x->table[i].id < 0)
                continue;
            size_t h = ((uint32_t)x->table[i].id * 2654435761u) & (cap - 1);
            while (t[h].id >= 0) /* bound: the table is at most half full */
                h = (h + 1) & (cap - 1);
            t[h] = x->table[i];
        }
        free(x->table);
        x->table = t;
        x->table_cap = cap;
    }
    size_t h = ((uint32_t)id * 2654435761u) & (x->table_cap - 1);
    /* Bound: the table is at most half full, so a probe ends at an empty slot. */
    while (x->table[h].id >= 0 && x->table[h].id != id)
        h = (h + 1) & (x->table_cap - 1);
    if (x->table[h].id < 0) {
        x->table[h].id = id;
        x->table_used++;
    }
    return &x->table[h];
}

/* The id array from this size on is a mapping of its own (2 MB, a huge page). */
#define IDS_MAPPED ((size_t)2 << 20)

/* Where the node of id is kept (creating the place), or NULL on allocation failure. */
static uint32_t *ids_place_grow(struct id_index *x, int32_t id);
static ALWAYS_INLINE uint32_t *ids_place(struct id_index *x, int32_t id)
{
    /* (inline for an id already in reach: every one but a few of a big plan's) */
    if ((size_t)id < x->direct_cap)
        return &x->direct[id];
    return ids_place_grow(x, id);
}

static uint32_t *ids_place_grow(struct id_index *x, int32_t id)
{
    if ((size_t)id >= x->direct_limit) {
        struct id_slot *t = ids_table_slot(x, id);
        return t ? &t->node : NULL;
    }
    if ((size_t)id >= x->direct_cap) {
        /* calloc, not realloc + memset: pages of the array that no id reaches are never
           touched, so one large id costs address space, not memory. */
        size_t cap = x->direct_cap ? x->direct_cap : 1024;
        while (cap <= (size_t)id)
            cap *= 2;
        if (cap > x->direct_limit)
            cap = x->direct_limit;
        uint32_t *d = NULL;
        if (cap * sizeof *d >= IDS_MAPPED) {
            /* A big plan's (its root, printed first, has the highest id): room for every id
               the text can number densely at once, never copied again, as address space
               whose pages come as written, huge pages where cheap.  From calloc it was a
               4 KB page fault every 1,024 ids (12 ms for a million on the benchmark VM). */
            cap = x->direct_limit;
            d = freshmem_record(cap * sizeof *d); /* (the memory a record gets: zeroed) */
        }
        bool mapped = d != NULL;
        if (!d)
            d = calloc(cap, sizeof *d);
        if (!d)
            return NULL;
        if (x->direct_cap)
            memcpy(d, x->direct, x->direct_cap * sizeof *d);
        if (x->direct_mapped)
            freshmem_unmap(x->direct, x->direct_cap * sizeof *x->direct);
        else
            free(x->direct);
        x->direct = d;
        x->direct_cap = cap;
        x->direct_mapped = mapped;
    }
    return &x->direct[id];
}

/* The node of number + 1 k (0: none). */
static struct plan_node *node_numbered(const struct document *doc, uint32_t k)
{
    return k ? (struct plan_node *)(void *)doc->nodes.base + (k - 1) : NULL;
}

/* plan_node_details_text_line() of the node of number + 1 k (not 0), read from the
   document's details entries (plan.h: entry i is node i's) at k rather than at the index
   found again from the node through its section, plan and document: once a details block. */
static ALWAYS_INLINE uint32_t details_text_line_of(const struct document *doc, uint32_t k)
{
    size_t i = k - 1;
    if (!doc->blocks.base || (i + 1) * sizeof(struct plan_node_block) > doc->blocks.committed)
        return 0;
    return ((const struct plan_node_block *)(const void *)doc->blocks.base)[i].text_line;
}

static uint32_t node_number(const struct plan_node *n)
{
    return (uint32_t)plan_node_index(n) + 1;
}

static ALWAYS_INLINE uint32_t ids_get_number(const struct id_index *x, int32_t id)
{
    if (id < 0)
        return 0;
    if ((size_t)id < x->direct_limit)
        return (size_t)id < x->direct_cap ? x->direct[id] : 0;
    if (!x->table_cap)
        return 0;
    size_t h = ((uint32_t)id * 2654435761u) & (x->table_cap - 1);
    /* Bound: the table is at most half full, so a probe ends at an empty slot. */
    while (x->table[h].id >= 0 && x->table[h].id != id)
        h = (h + 1) & (x->table_cap - 1);
    return x->table[h].id == id ? x->table[h].node : 0;
}

static struct plan_node *ids_get(const struct parser *p, int32_t id)
{
    return node_numbered(p->doc, ids_get_number(&p->ids, id));
}

/* A node printed with a formatted id: the first one printed keeps the id's details. */
static void index_node(struct parser *p, struct plan_node *n)
{
    if (!p->ids.direct_limit)
        /* Dense ids number the operators, and an operator takes 8 bytes of input or more
           ("+- X (9)\n"): ids beyond that are sparse by construction. */
        p->ids.direct_limit = p->doc->src.text_len / 8 + 1024;
    uint32_t *place = ids_place(&p->ids, n->id);
    if (!place) {
        fail(p, SP_ERR_NOMEM);
        return;
    }
    if (*place)
        p->dup_ids = true;
    else
        *place = node_number(n);
    if ((uint32_t)n->id >= p->ids.top)
        p->ids.top = (uint32_t)n->id + 1;
}

static void unindex_node(struct parser *p, struct plan_node *n)
{
    if (n->id < 0)
        return;
    p->ids.withdrawn = true;
    if ((size_t)n->id < p->ids.direct_limit) {
        if ((size_t)n->id < p->ids.direct_cap && p->ids.direct[n->id] == node_number(n))
            p->ids.direct[n->id] = 0;
        return;
    }
    uint32_t *place = ids_place(&p->ids, n->id);
    if (place && *place == node_number(n))
        *place = 0;
}

static void tree_reset(struct parser *p)
{
    p->top = -1;
    p->last = NULL;
    p->last_units = 0;
    p->indent_step = 0;
    p->elided = false;
    p->n_regions = 0;
    p->expect_schema = false;
    p->has_pending = false;
}

/* ---- plans and sections -------------------------------------------------------------- */

static void close_plan(struct parser *p);

/* What the text around a new plan says of where it came from: the SQL of a golden file's
   query, the log record on the line before it. */
static void note_source(struct parser *p)
{
    struct plan_source *src = &p->plan->source;
    src->query = p->query;
    if (p->prev_ls && p->prev_ls != p->ls) {
        struct slice when, logger;
        if (lex_log_record(p->prev_ls, (size_t)(p->prev_le - p->prev_ls), &when, &logger)) {
            src->log_time = when;
            src->logger = logger;
        }
    }
}

static bool open_plan(struct parser *p, uint32_t text_line)
{
    close_plan(p);
    p->plan = build_plan(&p->b, orig_line(p, text_line));
    if (!p->plan) {
        fail(p, SP_ERR_NOMEM);
        return false;
    }
    p->plan_max_order = -1;
    p->plan_headerless = false;
    p->drop_plan = false;
    p->details_only = false;
    p->plan_nodes = 0;
    note_source(p);
    return true;
}

static void finish_code(struct parser *p)
{
    if (p->code_sec && p->code_start)
        p->code_sec->code = slice_make(p->code_start, (size_t)(p->code_end - p->code_start));
    p->code_sec = NULL;
    p->code_start = p->code_end = NULL;
}

static struct plan_node *add_node_line(struct parser *p, const char *ls, const char *le,
                                       uint32_t lno, long depth);

/* Spark's attribute ids inside a bracketed list: "[a#12, b#13L]", "[id#x]".  A '#' after a
   word outside brackets is an issue number ("Closes #1398", "(bug#4703)"), not an id. */
static bool has_attribute_ids(struct slice t)
{
    bool in_list = false;
    /* Bound: the node's text, once. */
    for (size_t i = 0; i + 1 < t.len; i++) {
        char c = t.ptr[i];
        if (c == '[')
            in_list = true;
        else if (c == ']' || c == '\n')
            in_list = false;
        else if (c == '#' && in_list && i > 0 && lex_key_char[(unsigned char)t.ptr[i - 1]] &&
                 ((t.ptr[i + 1] >= '0' && t.ptr[i + 1] <= '9') || t.ptr[i + 1] == 'x'))
            return true;
    }
    return false;
}

static size_t first_line_end(struct slice t)
{
    const char *nl = memchr(t.ptr, '\n', t.len);
    return nl ? (size_t)(nl - t.ptr) : t.len;
}

/* Does the first line of a node's text read as a sentence (lex_reads_as_prose)? */
static bool node_reads_as_prose(const struct plan_node *x)
{
    struct slice t = plan_node_text(x), nm = plan_node_name(x);
    const char *nl = memchr(t.ptr, '\n', t.len);
    size_t first = nl ? (size_t)(nl - t.ptr) : t.len;
    size_t after_name = nm.ptr >= t.ptr && nm.ptr + nm.len <= t.ptr + first
                            ? (size_t)(nm.ptr + nm.len - t.ptr)
                            : 0;
    return lex_reads_as_prose(t.ptr, first, after_name);
}

/* Is the node an operator Spark or an accelerator prints (the operator catalogue, with its
   guesses for accelerator variants), or one of some other engine that shows Spark's
   attribute ids?  Never a sentence that starts with an operator's name. */
static bool names_an_operator(const struct plan_node *x)
{
    if (x->flags & NODE_LABEL)
        return true;
    if (node_reads_as_prose(x))
        return false;
    if (catalog_match(plan_node_name(x)).entry)
        return true;
    for (size_t i = 0; i < plan_node_name(x).len; i++)
        if (plan_node_name(x).ptr[i] == ' ')
            return false;
    return has_attribute_ids(plan_node_text(x));
}

/* Does a lone line, a whole plan printed without a header, read like a plan node rather than
   prose?  Such a plan can only be one leaf (a relation, a range, a command) or show its
   attribute ids: notebooks print "Join with broadcast (no shuffle):" or "Repartition
   executed in 0.47 seconds" around their plans, and those start with an operator name too,
   and "Filter" or "Exchange notes" alone are words, never a whole plan. */
static bool reads_like_a_node(const struct parser *p, const struct plan_node *r)
{
    /* A "-- !query analysis" block holds an analyzed plan whatever its shape. */
    if (p->hint_analyzed)
        return true;
    if (node_reads_as_prose(r))
        return false;
    struct slice t = plan_node_text(r), nm = plan_node_name(r);
    /* Binary data: Spark never prints control characters on its own (a random file has a
       "Ab " line start every few kilobytes, and a '#' and a digit soon after). */
    for (size_t i = 0; i < t.len; i++) {
        unsigned char ch = (unsigned char)t.ptr[i];
        if ((ch < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') || ch == 0x7F)
            return false;
    }
    /* A call chain ("ExecutedCommandExec(cmd=...) ->run"): Spark's node strings never
       write an arrow straight onto a method name. */
    for (size_t i = 0; i + 2 < t.len; i++)
        if (t.ptr[i] == '-' && t.ptr[i + 1] == '>' && lex_key_char[(unsigned char)t.ptr[i + 2]])
            return false;
    if (has_attribute_ids(t))
        return true;
    /* Leaves print their arguments in brackets ("Range (0, 10, step=1, splits=2)"): a name
       alone, or one followed by a word ("Range notes", "Range took 9.1 seconds"), is a leaf
       only when it is a relation ("OneRowRelation") or a command. */
    const char *end = t.ptr + first_line_end(t), *after = nm.ptr + nm.len;
    if (nm.ptr < t.ptr || after > end)
        after = end;
    bool bare = after >= end || (after + 1 < end && after[0] == ' ' && after[1] >= 'a' &&
                                 after[1] <= 'z');
    const struct catalog_entry *e = catalog_match(nm).entry; /* accelerators guessed too */
    if (e && (e->role == CAT_COMMAND || e->role == CAT_WRITE || (nm.len >= 8 && memcmp(nm.ptr + nm.len - 8, "Relation", 8) == 0)))
        return true;
    if (e && !bare && (e->role == CAT_SCAN || e->role == CAT_RELATION || e->role == CAT_REUSED))
        return true;
    if (bare)
        return false;
    static const char *const endings[] = {"Command", "Relation", "Scan", "Exec", "Statement"};
    for (size_t k = 0; k < sizeof endings / sizeof endings[0]; k++) {
        size_t el = strlen(endings[k]);
        if (nm.len > el && memcmp(nm.ptr + nm.len - el, endings[k], el) == 0)
            return true;
    }
    return slice_starts_with(nm, "FileScan");
}

/* The first line of a node's text, without trailing blanks. */
static size_t first_line_len(struct slice t)
{
    const char *nl = memchr(t.ptr, '\n', t.len);
    size_t n = nl ? (size_t)(nl - t.ptr) : t.len;
    while (n && is_space(t.ptr[n - 1]))
        n--;
    return n;
}

/* Names that tell a headerless section's kind (headerless_kind): bit 1 a logical
   operator's, bit 2 a physical one's.  The length picks the few names to compare: this is
   asked of every node of every headerless section of a paste. */
static unsigned name_tells_kind(struct slice nm)
{
#define NAME_IS(lit) (memcmp(nm.ptr, lit, sizeof(lit) - 1) == 0)
    unsigned k = 0;
    switch (nm.len) {
    case 4: k = NAME_IS("Join") || NAME_IS("View"); break;
    case 7: k = NAME_IS("WithCTE"); break;
    case 8: k = NAME_IS("Relation") ? 1 : NAME_IS("Exchange") ? 2 : 0; break;
    case 9: k = NAME_IS("Aggregate"); break;
    case 10: k = NAME_IS("LocalLimit") || NAME_IS("LogicalRDD"); break;
    case 11: k = NAME_IS("GlobalLimit") || NAME_IS("Repartition"); break;
    case 13:
        if (NAME_IS("SubqueryAlias") || NAME_IS("LocalRelation"))
            k = 1;
        else if (NAME_IS("HashAggregate") || NAME_IS("SortMergeJoin") || NAME_IS("ColumnarToRow"))
            k = 2;
        break;
    case 14:
        k = NAME_IS("OneRowRelation") || NAME_IS("CTERelationDef") || NAME_IS("CTERelationRef");
        break;
    case 16: k = NAME_IS("ShuffledHashJoin") ? 2 : 0; break;
    case 17:
        if (NAME_IS("BroadcastExchange") || NAME_IS("BroadcastHashJoin") ||
            NAME_IS("AdaptiveSparkPlan"))
            k = 2;
        break;
    default: break;
    }
#undef NAME_IS
    if (nm.len >= 5 && (slice_starts_with(nm, "FileScan") || slice_starts_with(nm, "Scan ")))
        k |= 2;
    return k;
}

/* What a headerless section is: parsed (unresolved names), analyzed (logical operators) or
   physical.  With known, *known counts its nodes that name an operator, up to `enough`
   (the count the caller's test needs: counting on would not change its answer).  Walks the
   section once. */
static enum section_kind headerless_kind(const struct parser *p, const struct plan_section *s,
                                        size_t *known, size_t enough)
{
    bool unresolved = false, logical = false, physical = false;
    if (known)
        *known = 0;
    for (struct plan_node *x = s->first_root; x; x = plan_node_next_preorder(x)) {
        if (known && *known < enough && names_an_operator(x))
            (*known)++;
        if (plan_node_text(x).len && plan_node_text(x).ptr[0] == '\'')
            unresolved = true;
        unsigned k = name_tells_kind(plan_node_name(x));
        if (k & 1)
            logical = true;
        if ((k & 2) || x->stage >= 0)
            physical = true;
    }
    if (unresolved)
        return SECTION_PARSED;
    if (p->hint_analyzed || (logical && !physical))
        return SECTION_ANALYZED;
    return SECTION_PHYSICAL;
}

/* A plan of details blocks only is kept when most blocks name an operator and describe it
   with fields ("(1) Install the package" in a numbered list does neither). */
static void check_details_only(struct parser *p, const struct plan_section *s)
{
    size_t n = 0, known = 0, described = 0;
    for (struct plan_node *x = s->first_root; x; x = plan_node_next_sibling(x)) {
        n++;
        known += names_an_operator(x);
        described += x->n_details > 0;
    }
    if (!n || known * 2 < n || described * 2 < n)
        p->drop_plan = true;
    else
        document_warn(p->doc, s->line,
                      "details blocks without their tree: %zu operators listed flat", n);
}

/* Decide, once a section is complete, what only the whole section tells.  Node and id
   counts are kept as lines are read, so a section with a header is not walked again. */
static void close_section(struct parser *p)
{
    struct plan_section *s = p->sec;
    if (!s)
        return;
    if (p->has_pending) {
        /* The line after "== Analyzed Logical Plan ==" was a one-node tree, not a schema. */
        p->has_pending = false;
        add_node_line(p, p->pending_ls, p->pending_le, p->pending_lno, 0);
    }
    size_t n = p->sec_nodes;
    /* An outline has an id on (nearly) every line; a stray "Name (3)" in another mode is
       part of the node string: drop the ids and name the nodes from their whole text. */
    if (p->sec_formatted && p->sec_formatted * 2 < n) {
        for (struct plan_node *x = s->first_root; x; x = plan_node_next_preorder(x)) {
            if (x->flags & NODE_LABEL)
                continue;
            unindex_node(p, x);
            x->id = -1;
            plan_order_id_changed(p->doc, x);
            plan_node_set_name(x, lex_node_name(plan_node_text(x).ptr,
                                                first_line_len(plan_node_text(x)), SIZE_MAX));
        }
    }
    if (p->details_only)
        check_details_only(p, s);
    if (p->sec_headerless) {
        /* How many nodes name an operator is asked (names_an_operator: a catalogue look-up
           and a prose test, 770 instructions a node) only where it decides something, and
           only until it has: at least two, and half the nodes. */
        bool lone = n == 1 && s->n_roots == 1 && s == p->plan->first_section;
        bool need_known = !lone && !p->sec_branches && !p->hint_analyzed;
        size_t known = 0, enough = (n + 1) / 2 > 2 ? (n + 1) / 2 : 2;
        s->kind = headerless_kind(p, s, need_known ? &known : NULL, enough);
        if (lone) {
            /* A lone capitalised line is prose unless it reads like a plan node; one line
               cut from a tree (a test's expected substring ":- *Scan ...") is a fragment. */
            if (p->sec_partial || !reads_like_a_node(p, s->first_root))
                p->drop_plan = true;
        } else if (!p->sec_branches && !p->hint_analyzed && (known < 2 || known * 2 < n)) {
            /* Lines nested by indentation alone, with no "+- " anywhere and fewer than two
               operator names, or mostly none: a changelog entry, a licence paragraph, a
               list, a comment that names one operator. */
            p->drop_plan = true;
        }
        if (p->sec_partial && !p->drop_plan)
            document_warn(p->doc, s->line,
                          "partial tree: the text starts below the plan's root (%zu %s)",
                          (size_t)s->n_roots, s->n_roots == 1 ? "root" : "roots");
    }
    p->plan_nodes += n;
    p->sec = NULL;
    build_end_section(&p->b);
    p->tree_open = false;
    p->sec_headerless = false;
    p->sec_partial = false;
    p->sec_nodes = p->sec_formatted = p->sec_branches = 0;
    tree_reset(p);
}

static bool open_section(struct parser *p, enum section_kind kind, struct slice title,
                         uint32_t text_line)
{
    close_section(p);
    if (!p->plan && !open_plan(p, text_line))
        return false;
    p->sec = build_section(&p->b, kind, title, orig_line(p, text_line));
    if (!p->sec) {
        fail(p, SP_ERR_NOMEM);
        return false;
    }
    p->tree_open = true;
    tree_reset(p);
    return true;
}

/* ---- details blocks ------------------------------------------------------------------ */

static void set_final_from_text(struct plan *pl, struct slice t)
{
    if (slice_find(t, "isFinalPlan=true") >= 0)
        pl->is_final = 1;
    else if (slice_find(t, "isFinalPlan=false") >= 0 && pl->is_final < 0)
        pl->is_final = 0;
}

/* The block ends: the node keeps its text and the number of fields in it (nothing is
   stored per field: plan_details_next splits them again, the same way, when asked). */
static void finish_block(struct parser *p)
{
    if (!p->in_block)
        return;
    struct slice text = slice_make(p->block_start, (size_t)(p->block_end - p->block_start));
    if (p->block_aqe && p->plan)
        set_final_from_text(p->plan, text);
    struct plan_node *n = p->block_node;
    if (n)
        build_details(n, text, p->block_lno, p->n_fields);
    p->n_fields = 0;
    p->in_block = false;
    p->block_node = NULL;
}

/* Blocks come in id order while their nodes lie in tree order, far apart in memory: the
   node of the block this many ids on is asked for when a block starts.  One block on
   (a block is about 5 lines) left a wait for memory in every block's first look at its
   node (1.9-3.0 % of a million-operator load's samples, against 1.2 % four blocks on). */
#define BLOCK_AHEAD 4
/* "(N) Name [codegen id : K]": the details of the first node printed with id N (the outline
   came first); aqe: the name is AdaptiveSparkPlan.  A block whose id points nowhere, or a second block for an id, is read and
   dropped: the first one wins. */
static void start_block(struct parser *p, int32_t id, bool aqe, int32_t codegen_id)
{
    finish_block(p);
    p->in_block = true;
    p->block_start = p->ls;
    p->block_end = p->le;
    p->block_aqe = aqe;
    p->mode = MODE_DETAILS;
    uint32_t k = ids_get_number(&p->ids, id);
    struct plan_node *n = node_numbered(p->doc, k);
    /* Ask for a coming block's node now, so it is in the cache when its header is read (a
       miss a block was a fifth of reading a million details blocks): BLOCK_AHEAD. */
    if (id >= 0 && (size_t)id + BLOCK_AHEAD < p->ids.direct_cap) {
        uint32_t ahead = p->ids.direct[id + BLOCK_AHEAD];
        if (ahead) {
            __builtin_prefetch(node_numbered(p->doc, ahead), 1);
            /* and its details entry, which this test reads below and finish_block writes
               (a wait for it was 3 % of the parser thread's samples on the 1,000,000-
               operator plan) */
            if (p->doc->blocks.base)
                __builtin_prefetch((const struct plan_node_block *)(const void *)
                                       p->doc->blocks.base + (ahead - 1), 1);
        }
    }
    /* A node keeps its first block: a block before this one has ended and written its
       details (the same test as plan_node_details_line(n) != 0, which reads the line map
       only where a line is set). */
    if (!n || (details_text_line_of(p->doc, k) && plan_node_details_line(n)))
        return;
    p->block_node = n;
    p->block_lno = p->lno;
    /* "* " in the outline says "in a codegen stage"; the details say which. */
    if (n->stage == 0 && codegen_id >= 0)
        n->stage = codegen_id;
}

/* A line inside a details block: a new field, or more of the previous field's value (also
   once a block holds the most fields a node keeps).  plan.c (plan_details_next) reads the
   block's lines again the same way: keep the two in step. */
static ALWAYS_INLINE void block_line(struct parser *p, const char *s, size_t n, bool is_field)
{
    if (p->block_node && p->n_fields < UINT16_MAX && is_field)
        p->n_fields++;
    p->block_end = p->le;
    check_truncation(p, s, n, p->lno, NULL);
}

/* Nodes printed twice (the AQE initial plan reuses final-plan ids) share the details of the
   first one.  Walks the plan only when an id was seen twice. */
static void share_details(struct parser *p)
{
    if (!p->dup_ids)
        return;
    for (struct plan_section *s = p->plan->first_section; s; s = s->next)
        for (struct plan_node *n = s->first_root; n; n = plan_node_next_preorder(n)) {
            if (n->id < 0 || plan_node_details_line(n))
                continue;
            const struct plan_node *first = ids_get(p, n->id);
            if (!first || first == n || !plan_node_details_line(first))
                continue;
            build_details_start(n, plan_node_details_text(first), plan_node_details_line(first),
                                plan_node_details_text_line(first));
            build_details_end(n, plan_node_details_text(first), first->n_details);
            if (n->stage == 0) {
                int32_t id, cg;
                struct slice nm;
                const char *t = plan_node_details_text(first).ptr;
                if (lex_details_header(t, first_line_len(plan_node_details_text(first)), &id, &nm,
                                       &cg) &&
                    cg >= 0)
                    n->stage = cg;
            }
        }
}

/* The id index of a kept plan is the plan's by_id as document_finish would make it (the
   first node made with each id, nodes made in pre-order), unless a node was taken out of it
   or an id went to the table: handed over, it spares the builder's record of ids and
   by_id's own table (4 + 4 bytes an operator of fresh memory). */
static void give_by_id(struct parser *p)
{
    struct id_index *x = &p->ids;
    if (x->withdrawn || x->table_used)
        return; /* document_finish reads the ids from the nodes */
    size_t mapped = x->direct_mapped ? x->direct_cap * sizeof *x->direct : 0;
    if (plan_give_by_id(p->plan, x->direct, x->top, mapped)) {
        x->direct = NULL;
        x->direct_cap = 0;
        x->direct_mapped = false;
    }
}

static void close_plan(struct parser *p)
{
    p->still_plain = false;
    if (p->mode == MODE_CODE)
        finish_code(p);
    close_section(p);
    finish_block(p);
    if (p->plan) {
        share_details(p);
        /* Nothing but headers or prose: not a plan.  Its memory stays in the arena. */
        bool keep = p->plan_nodes > 0 && !p->drop_plan;
        if (keep && p->status == SP_OK)
            give_by_id(p);
        build_end_plan(&p->b, keep);
    }
    p->plan = NULL;
    ids_reset(&p->ids);
    p->dup_ids = false;
    p->plan_max_order = -1;
    p->plan_headerless = false;
    p->drop_plan = false;
    p->details_only = false;
    p->plan_nodes = 0;
    if (p->mode == MODE_DETAILS || p->mode == MODE_CODE)
        p->mode = MODE_NONE;
}

/* ---- nodes --------------------------------------------------------------------------- */

static void fill_node(struct parser *p, struct plan_node *n, const char *s, const char *le,
                      uint32_t lno)
{
    size_t len = (size_t)(le - s);
    while (len && is_space(s[len - 1]))
        len--;
    size_t skip;
    n->stage = small_number(p, lex_codegen_marker(s, len, &skip), lno);
    s += skip;
    len -= skip;
    plan_node_set_text(n, slice_make(s, len));
    n->line = orig_line(p, lno);
    struct slice inner;
    /* A label is "== Final Plan ==": its first '=' rules out nearly every node cheaply. */
    if (len && s[0] == '=' && lex_aqe_label(s, len, &inner) && n->stage < 0) {
        n->flags |= NODE_LABEL;
        plan_node_set_name(n, inner);
        if (slice_is(inner, "Final Plan"))
            p->plan->is_final = 1;
        else if (slice_is(inner, "Current Plan") && p->plan->is_final < 0)
            p->plan->is_final = 0;
        return;
    }
    int32_t id;
    size_t name_end;
    /* An id closes the line, or comes before a " // note" someone added to an outline: the
       search for the note (the whole line) is only worth it where ids are printed.  Of a
       ", Statistics(...)" group only the place counts here (its figures are read on demand:
       plan_node_stats), and only to find an id before it. */
    bool may_have_id = (len && s[len - 1] == ')') || p->sec_nodes == 0 || p->sec_formatted > 0;
    /* Both reads give the same answer; the quick one pays off once the section has shown an
       outline id (a simple plan's "...#12)" lines would take it and then the general rules). */
    if (may_have_id && (p->sec_formatted > 0 ? lex_line_formatted_id(s, len, &id, &name_end)
                                             : lex_formatted_id(s, len, lex_statistics_at(s, len),
                                                                &id, &name_end))) {
        n->id = id = small_number(p, id, lno);
        p->sec_formatted++;
        if (id >= 0)
            index_node(p, n);
        plan_node_set_name(n, lex_node_name(s, len, name_end));
    } else {
        plan_node_set_name(n, lex_node_name(s, len, SIZE_MAX));
    }
    if (slice_is(plan_node_name(n), "AdaptiveSparkPlan")) {
        p->plan->adaptive = true;
        set_final_from_text(p->plan, plan_node_text(n));
    }
    check_truncation(p, s, len, lno, n);
}

static void continue_node(struct parser *p, struct plan_node *n)
{
    const char *le = p->le;
    while (le > plan_node_text(n).ptr && is_space(le[-1]))
        le--;
    if (le > plan_node_text(n).ptr + plan_node_text(n).len) {
        plan_node_set_text(n,
                           slice_make(plan_node_text(n).ptr, (size_t)(le - plan_node_text(n).ptr)));
        n->flags |= NODE_MULTILINE;
    }
    check_truncation(p, p->ls, (size_t)(p->le - p->ls), p->lno, n);
}

/* Place a node at depth (already shifted by regions).  Returns NULL when the depth fits no
   parent (the caller then treats the line as text). */
static struct plan_node *add_node_line(struct parser *p, const char *ls, const char *le,
                                       uint32_t lno, long depth)
{
    struct plan_node *parent = NULL;
    bool inner = false;
    if (depth < 0)
        depth = 0;
    if (depth > 0) {
        long d = depth;
        if (p->top >= d - 1 && p->stack[d - 1]) {
            parent = p->stack[d - 1];
        } else if (d >= 2 && p->top >= d - 2 && p->stack[d - 2]) {
            /* Inner children (subqueries, cached plans) sit two levels below their node. */
            parent = p->stack[d - 2];
            inner = true;
        } else {
            return NULL;
        }
    }
    if (!stack_reserve(p, (size_t)depth + 1))
        return NULL;
    long at = inner ? depth - 2 : depth - 1;
    struct plan_node *n = build_node(&p->b, parent, parent ? p->last_child[at] : NULL);
    if (!n) {
        fail(p, SP_ERR_NOMEM);
        return NULL;
    }
    fill_node(p, n, ls, le, lno);
    if (parent) {
        p->last_child[at] = n;
        if (inner)
            n->flags |= NODE_INNER;
    }
    if (inner && p->top < depth - 1)
        p->stack[depth - 1] = NULL;
    p->stack[depth] = n;
    p->last_child[depth] = NULL;
    p->mark_col[depth] = ls >= p->ls && ls <= p->le ? (long)(ls - p->ls) - 3 : -3;
    p->top = depth;
    p->last = n;
    p->sec_nodes++;
    return n;
}

/* PlanStabilitySuite's simplified trees (and some pastes) nest by indentation alone:
   "Root\n  Child\n    Grandchild".  The first child's indentation sets the step. */
static bool indent_line(struct parser *p)
{
    const char *s = p->ls;
    size_t n = (size_t)(p->le - s), sp = 0;
    /* Bound: the line's leading spaces. */
    while (sp < n && s[sp] == ' ')
        sp++;
    if (sp == 0 || !lex_looks_like_operator(s + sp, n - sp))
        return false;
    if (p->indent_step == 0) {
        if (p->top != 0 || p->last != p->sec->first_root || sp > 4)
            return false;
        p->indent_step = sp;
    }
    if (sp % p->indent_step != 0)
        return false;
    long depth = (long)(sp / p->indent_step);
    if (depth > p->top + 1)
        return false;
    return add_node_line(p, s + sp, p->le, p->lno, depth) != NULL;
}

static void start_headerless(struct parser *p, const struct lex_prefix *pf, const char *rest);

/* Does the line start with the name of an operator the catalogue knows, as a node string
   does (not a sentence)? */
static bool line_names_operator(const char *s, const char *le)
{
    size_t n = (size_t)(le - s), skip;
    if (!lex_looks_like_operator(s, n))
        return false;
    lex_codegen_marker(s, n, &skip);
    struct slice nm = lex_node_name(s + skip, n - skip, SIZE_MAX);
    if (!nm.len || !catalog_match(nm).entry)
        return false;
    size_t after = (size_t)(nm.ptr + nm.len - s);
    return !lex_reads_as_prose(s, n, after <= n ? after : n);
}

/* "+- ...", ":  ...", "...": operators were left out here.  Not a node: the node they were
   left out of is marked, the parent a "+- ..." line would hang under, else the node on the
   nearest line above. */
static void elision_line(struct parser *p, const struct lex_prefix *pf)
{
    struct plan_node *above = p->last;
    if (pf->branch) {
        long depth = (long)pf->units + region_offset(p);
        if (depth >= 1 && depth - 1 < p->top && p->stack[depth - 1])
            above = p->stack[depth - 1];
    }
    if (above && !(above->flags & NODE_ELIDED)) {
        above->flags |= NODE_ELIDED;
        above->section->n_elided++;
    }
    p->elided = true;
}

/* After an elision, a line deeper than one below the last node ("+- ..." then, further in,
   "+- BroadcastQueryStage 0") hangs under that last node: a region maps its indentation to
   the next depth until a line at most as far in as its parent's leaves it. */
static bool rebase_after_elision(struct parser *p, const struct lex_prefix *pf, long depth)
{
    if (!p->elided || depth <= p->top + 1 || p->top < 0 || pf->units == 0)
        return false;
    long want = p->top + 1;
    return region_push(p, pf->units - 1, want - (long)pf->units);
}

/* "  +- Filter" or ":    :- Project": a tree marker off Spark's 3-column grid (a hand
   edit, a lost space, a tree indented two spaces a level).  Returns the depth the line takes,
   or -1 when the line has no such marker; *pf and *rest are rewritten to the marker.  Right
   of the last node's marker: its child.  Else the nearest ancestor whose marker is within
   two columns left of it, or the child of the one further left (at most 64 levels are
   looked at; beyond, the 3-column grid decides).  Only blanks and ':' come before it. */
static long misaligned_branch(const struct parser *p, struct lex_prefix *pf, const char **rest)
{
    const char *m = p->ls, *le = p->le;
    /* Bound: the line's prefix, once. */
    while (m < le && (*m == ' ' || *m == ':') && !(m + 2 < le && m[0] == ':' && m[1] == '-'))
        m++;
    if (m + 2 >= le || (m[0] != '+' && m[0] != ':') || m[1] != '-' || m[2] != ' ')
        return -1;
    long col = (long)(m - p->ls);
    pf->units = (uint32_t)(col / 3 + 1);
    pf->len = (size_t)(m + 3 - p->ls);
    pf->branch = true;
    pf->spaces_only = false;
    *rest = m + 3;
    long top = p->top;
    if (col > p->mark_col[top])
        return top + 1;
    /* Bound: 64 levels. */
    for (long d = top; d >= 0 && top - d < 64; d--) {
        if (p->mark_col[d] > col)
            continue;
        if (col - p->mark_col[d] <= 2 || d == top)
            return d;
        return d + 1;
    }
    return (long)((col + 1) / 3 + 1) + region_offset(p);
}

/* What a tree-line helper decided: the line is the tree's (or not), or it is not its case. */
enum verdict { V_NOT_MINE = -1, V_NOT_TREE = 0, V_TREE = 1 };

/* The first line of a section's tree. */
static bool first_tree_line(struct parser *p, const struct lex_prefix *pf, const char *rest)
{
    /* A root never carries leading blanks: indented off the grid ("  *(1) Project"), it
       starts at its first character. */
    while (!pf->branch && rest < p->le && *rest == ' ')
        rest++;
    if (p->blank_before && p->sec->kind == SECTION_SUBQUERY) {
        /* A reused subquery's entry has no body: a blank line follows it, and what comes
           after is not its tree (prose after a pasted plan). */
        p->tree_open = false;
        return false;
    }
    if (p->blank_before && pf->units == 0) {
        int32_t id, cg;
        struct slice nm;
        if (lex_details_header(rest, (size_t)(p->le - rest), &id, &nm, &cg))
            return false;
    }
    if (pf->units == 0 && p->expect_schema) {
        p->expect_schema = false;
        p->has_pending = true;
        p->pending_ls = rest;
        p->pending_le = p->le;
        p->pending_lno = p->lno;
        return true;
    }
    p->expect_schema = false;
    if (pf->units > 0) {
        /* An indented tree, or a paste that starts below its root: its first line is depth 0
           for the lines that follow. */
        uint32_t base = pf->branch ? pf->units - 1 : pf->units;
        if (!region_push(p, base, -(long)pf->units))
            return true;
    }
    if (add_node_line(p, rest, p->le, p->lno, 0))
        p->last_units = pf->units;
    return true;
}

/* A line with a tree marker (on the grid, off it at depth off_grid >= 0), or an AQE
   sub-plan's root under its label. */
static enum verdict marker_line(struct parser *p, const struct lex_prefix *pf, const char *rest,
                                long off_grid)
{
    if (off_grid >= 0) {
        if (off_grid > 0 && add_node_line(p, rest, p->le, p->lno, off_grid)) {
            p->last_units = pf->units;
            p->sec_branches++;
            return V_TREE;
        }
    } else if (pf->branch) {
        if (p->sec_partial && p->n_regions && pf->units <= p->regions[0].base) {
            /* Left of where the partial tree started: the root of that line is not in the
               text either, so the line starts another root. */
            p->n_regions = 0;
            if (!region_push(p, pf->units - 1, -(long)pf->units))
                return V_TREE;
            if (add_node_line(p, rest, p->le, p->lno, 0))
                p->last_units = pf->units;
            return V_TREE;
        }
        /* Bound: each region is pushed once per sub-plan and popped at most once. */
        while (p->n_regions && pf->units <= p->regions[p->n_regions - 1].base)
            p->n_regions--;
        long depth = (long)pf->units + region_offset(p);
        if (rebase_after_elision(p, pf, depth))
            depth = (long)pf->units + region_offset(p);
        if (depth > 0 && add_node_line(p, rest, p->le, p->lno, depth)) {
            p->last_units = pf->units;
            p->sec_branches++;
            return V_TREE;
        }
    } else if (pf->units > 0 && pf->spaces_only && p->last && (p->last->flags & NODE_LABEL) &&
               pf->units == p->last_units) {
        /* The root of an AQE sub-plan: indented by spaces, no marker, under its label. */
        long depth = p->top + 1;
        if (!region_push(p, pf->units, depth - (long)pf->units))
            return V_TREE;
        if (add_node_line(p, rest, p->le, p->lno, depth))
            p->last_units = pf->units;
        return V_TREE;
    }
    return V_NOT_MINE;
}

/* A bare tree's own cases: prose that was taken for its root, a tree nested by
   indentation alone, a second tree right under it. */
static enum verdict bare_tree_line(struct parser *p, const struct lex_prefix *pf,
                                   const char *rest)
{
    if (pf->spaces_only && !pf->branch && p->last == p->sec->first_root &&
        !plan_node_first_child(p->last)) {
        /* "My plan:" or "Here it is" then "Project [a#1]", at column 0 or indented: the first
           line was prose, the tree starts here, without its indentation. */
        const char *t = rest;
        while (t < p->le && *t == ' ')
            t++;
        if (line_names_operator(t, p->le) && !names_an_operator(p->last) && !p->hint_analyzed) {
            size_t spaces = (size_t)(t - p->ls);
            struct lex_prefix at = {(uint32_t)((spaces + 2) / 3), 0, false, true};
            start_headerless(p, &at, t);
            return V_TREE;
        }
    }
    if (!pf->branch && p->last && !p->blank_before && indent_line(p))
        return V_TREE;
    if (pf->units == 0 && p->last == p->sec->first_root && !plan_node_first_child(p->last) &&
        !memchr(plan_node_text(p->last).ptr, '\n', plan_node_text(p->last).len) &&
        lex_looks_like_operator(rest, (size_t)(p->le - rest)) && !reads_like_a_node(p, p->last)) {
        /* The same with an operator the catalogue does not know. */
        start_headerless(p, pf, rest);
        return V_TREE;
    }
    if (pf->units == 0 && p->last && line_names_operator(rest, p->le)) {
        /* A second bare tree right under the first ("Project [a#1]" at column 0 again,
           after a separator or a caption): its root starts a plan of its own.  (Under a
           header, Spark 2 prints a cached plan inside a node's text from column 0.) */
        p->tree_open = false;
        return V_NOT_TREE;
    }
    return V_NOT_MINE;
}

/* A line while sec's tree is open.  Returns true when the line belongs to the tree. */
static bool tree_line(struct parser *p, const struct lex_prefix *pf_in, const char *rest)
{
    struct lex_prefix fixed = *pf_in;
    const struct lex_prefix *pf = &fixed;
    long off_grid = -1;
    if (!fixed.branch && p->top >= 0)
        off_grid = misaligned_branch(p, &fixed, &rest);
    if (p->has_pending) {
        p->has_pending = false;
        if (pf->units == 0) {
            /* Two lines at column 0 after the analyzed header: the first was the schema. */
            p->sec->schema = slice_make(p->pending_ls, (size_t)(p->pending_le - p->pending_ls));
        } else {
            if (add_node_line(p, p->pending_ls, p->pending_le, p->pending_lno, 0))
                p->last_units = 0;
        }
    }
    if (lex_is_elision(rest, (size_t)(p->le - rest))) {
        if (p->top < 0 && !p->sec->first_root)
            /* The whole tree left out: what follows is not its root. */
            p->tree_open = false;
        else
            elision_line(p, pf);
        return true;
    }
    if (p->top < 0 && !p->sec->first_root)
        return first_tree_line(p, pf, rest);
    enum verdict v = marker_line(p, pf, rest, off_grid);
    if (v == V_NOT_MINE && p->sec_headerless)
        v = bare_tree_line(p, pf, rest);
    if (v != V_NOT_MINE)
        return v == V_TREE;
    /* Not a node line: more text of the last node, unless a blank line, a log record, a
       prompt or a line Spark could not have printed there ended the tree. */
    bool ended = (pf->units == 0 && lex_ends_tree(rest, (size_t)(p->le - rest))) ||
                 (pf->spaces_only && lex_foreign_line(rest, (size_t)(p->le - rest)));
    if (p->last && !p->blank_before && !ended) {
        continue_node(p, p->last);
        return true;
    }
    p->tree_open = false;
    return false;
}

/* ---- headers ------------------------------------------------------------------------- */

static int section_order(enum section_kind k)
{
    switch (k) {
    case SECTION_PARSED:
        return 0;
    case SECTION_ANALYZED:
        return 1;
    case SECTION_OPTIMIZED:
        return 2;
    case SECTION_PHYSICAL:
        return 3;
    case SECTION_SUBQUERY:
        return 4;
    case SECTION_CODEGEN:
        return 5;
    }
    return 3;
}

static struct slice trimmed_line(const struct parser *p)
{
    const char *s = p->ls, *e = p->le;
    while (s < e && is_space(*s))
        s++;
    while (e > s && is_space(e[-1]))
        e--;
    return slice_make(s, (size_t)(e - s));
}

static void header(struct parser *p, enum head_kind h)
{
    if (p->mode == MODE_CODE)
        finish_code(p);
    finish_block(p);
    p->mode = MODE_NONE;
    struct slice title = trimmed_line(p);
    enum section_kind kind = SECTION_PHYSICAL;
    switch (h) {
    case HEAD_PARSED:
    case HEAD_ANALYZED:
    case HEAD_OPTIMIZED:
    case HEAD_PHYSICAL:
        kind = h == HEAD_PARSED      ? SECTION_PARSED
               : h == HEAD_ANALYZED  ? SECTION_ANALYZED
               : h == HEAD_OPTIMIZED ? SECTION_OPTIMIZED
                                    : SECTION_PHYSICAL;
        /* A section no later than one already seen starts the next explain output. */
        if (!p->plan || p->plan_headerless || section_order(kind) <= p->plan_max_order) {
            close_section(p);
            if (!open_plan(p, p->lno))
                return;
        }
        if (!open_section(p, kind, title, p->lno))
            return;
        p->plan_max_order = section_order(kind);
        p->expect_schema = h == HEAD_ANALYZED;
        return;
    case HEAD_SUBTREE:
        if ((!p->plan || p->plan_headerless) && !open_plan(p, p->lno))
            return;
        if (open_section(p, SECTION_CODEGEN, title, p->lno))
            p->plan_max_order = section_order(SECTION_CODEGEN);
        return;
    case HEAD_FOUND_CODEGEN:
        open_plan(p, p->lno);
        p->plan_max_order = section_order(SECTION_CODEGEN);
        return;
    case HEAD_GENERATED_CODE:
        if (p->sec && p->sec->kind == SECTION_CODEGEN)
            p->code_sec = p->sec;
        p->tree_open = false;
        p->mode = MODE_CODE;
        p->code_start = p->code_end = NULL;
        return;
    case HEAD_SUBQUERIES:
    case HEAD_OPTIMIZED_OUT:
        close_section(p);
        return;
    case HEAD_SUBQUERY_ENTRY:
    case HEAD_SUBPLAN_ENTRY:
        if ((!p->plan || p->plan_headerless) && !open_plan(p, p->lno))
            return;
        open_section(p, SECTION_SUBQUERY, title, p->lno);
        return;
    case HEAD_OTHER_HEADER:
        close_section(p);
        p->mode = MODE_SKIP;
        return;
    case HEAD_QUERY_MARK:
        close_plan(p);
        p->hint_analyzed = false;
        p->mode = MODE_SKIP;
        /* "-- !query" alone: the SQL follows; "-- !query schema": it is over. */
        p->in_query = title.len == 9;
        if (p->in_query)
            p->query = slice_make(NULL, 0);
        return;
    case HEAD_QUERY_OUTPUT:
    case HEAD_QUERY_ANALYSIS:
        p->in_query = false;
        close_plan(p);
        p->hint_analyzed = h == HEAD_QUERY_ANALYSIS;
        p->mode = MODE_NONE;
        return;
    case HEAD_NONE:
    case HEAD_AQE_LABEL: /* lex_header() gives none of these three */
    case HEAD_BANNER:
    case HEAD_CODE_LINE:
        return;
    }
}

/* ---- the line loop ------------------------------------------------------------------- */

static void start_headerless(struct parser *p, const struct lex_prefix *pf, const char *rest)
{
    if (!open_plan(p, p->lno))
        return;
    p->plan_headerless = true;
    if (!open_section(p, SECTION_PHYSICAL, slice_make(NULL, 0), p->lno))
        return;
    p->sec_headerless = true;
    tree_line(p, pf, rest);
}

/* "(N) Name" with no outline before it: formatted details blocks pasted without their tree.
   Each block becomes a root of one flat section, described by its block. */
static void details_only_block(struct parser *p, int32_t id, struct slice name, int32_t cg)
{
    if (!p->details_only || !p->plan) {
        if (!open_plan(p, p->lno))
            return;
        p->plan_headerless = true;
        p->details_only = true;
    }
    /* A line such as "===== Subqueries =====" may have closed the section: a new one. */
    if (!p->sec && !open_section(p, SECTION_PHYSICAL, slice_make(NULL, 0), p->lno))
        return;
    finish_block(p);
    struct plan_node *n = build_node(&p->b, NULL, NULL);
    if (!n) {
        fail(p, SP_ERR_NOMEM);
        return;
    }
    plan_node_set_text(n, name);
    plan_node_set_name(n, name);
    n->line = orig_line(p, p->lno);
    n->id = id;
    n->stage = cg;
    if (id >= 0)
        index_node(p, n);
    p->sec_nodes++;
    p->tree_open = false;
    start_block(p, id, slice_is(name, "AdaptiveSparkPlan"), cg);
}

/* A blank line.  (In details blocks it ends the block only if no field line follows, which
   one_line decides on the next line: empty scan metadata leaves a blank line inside.) */
static void blank_line(struct parser *p)
{
    if (p->has_pending && p->sec) {
        /* The line after "== Analyzed Logical Plan ==" was a one-node tree. */
        p->has_pending = false;
        if (add_node_line(p, p->pending_ls, p->pending_le, p->pending_lno, 0))
            p->last_units = 0;
    }
}

/* Clean-up's hook (issue 4, clean_tree.c): a tree rebuilt from its markers that is too deep
   to write out with its indentation keeps only the marker in the text, and
   document.line_depth gives the number of prefix units the line stands for.  Every other
   line (and every input when line_depth is NULL) is read as printed. */
static void apply_line_depth(const struct document *doc, uint32_t lno, struct lex_prefix *pf)
{
    const struct source *src = &doc->src;
    if (src->line_depth && lno <= src->n_text_lines && src->line_depth[lno] != CLEAN_OWN_PREFIX)
        pf->units = src->line_depth[lno];
}

/* ---- a formatted plan's details list: one rule book for the parser and its reader ----- */

/* The parser reads "plain details" while it is inside a formatted plan's list of details
   blocks: a block is open (mode DETAILS) in a plan that is no details-only list, no section
   is open (one_line closed it before start_block, and only a header, which finishes the
   block, opens another), so no tree is either, and clean-up gave no line depths.  In that
   state what one_line does with a line depends on nothing but the line and blank_before:
   details_line() below says what.  The parser goes by that verdict for every line it reads
   in the state (one_line), and so does the details reader (split_read), which reads the
   end of a big plan's list on a second thread before the parser gets there: one copy of
   the rules, so the two cannot read a line differently. */
/* Inline (as the two below): asked of every line the parser reads. */
static ALWAYS_INLINE bool plain_details(const struct parser *p)
{
    return p->mode == MODE_DETAILS && p->in_block && p->plan && !p->details_only && !p->sec &&
           !p->tree_open && !p->doc->src.line_depth;
}

/* What one_line does with a line in plain details. */
enum dline {
    DL_BLANK, /* blank: blank_before is set, the block stays open (empty scan metadata leaves
                 a blank line inside a block: the next line decides) */
    DL_START, /* a details header "(N) Name [codegen id : K]": start_block */
    DL_LINE,  /* a line of the open block (a new field or more of a value): block_line */
    DL_OTHER, /* anything else (a header, a tree line, text after a blank line): one_line's
                 general rules, which leave the list */
};

struct dline_facts {
    int32_t id, cg;    /* DL_START: as lex_details_header reads them (LEX_NUMBER_TOO_BIG...) */
    struct slice name; /* DL_START */
    bool field;        /* DL_LINE: a new field (looked for only when count_field, or when the
                          verdict needs it) */
};

/* ls..le: the line (no '\n', no '\r'), pf: its tree prefix.  Follows one_line's general
   path line for line in plain details (no tree open, a plan open, mode DETAILS, in a
   block); keep the two in step. */
static ALWAYS_INLINE enum dline
details_line(const char *ls, const char *le, const struct lex_prefix *pf, bool blank_before,
             bool count_field, struct lex_key_memo *memo, struct dline_facts *out)
{
    size_t n = (size_t)(le - ls);
    /* Most lines of a formatted plan are details fields that start with a capital letter
       ("Output [2]: [...]", "Condition : ..."), right after another line of their block.
       Such a line has no tree prefix, is no details header and, unless headline_capital_may_start
       says so ("Found ...", "Subquery:1 ...": left to the path below), no header: a block
       line at once. */
    if (!blank_before && n) {
        char c = ls[0];
        if (c >= 'A' && c <= 'Z' && !headline_capital_may_start(ls, n)) {
            out->field = count_field && lex_is_details_field_memo(ls, n, memo);
            return DL_LINE;
        }
    }
    if (n && ls[0] == '(') {
        /* A details header, or text: no tree prefix, no header (none starts with '(':
           headline_first_byte) and no field (those start with a capital).  The path below
           gives the same verdict without asking lex_header. */
        if (lex_details_header(ls, n, &out->id, &out->name, &out->cg))
            return DL_START;
        out->field = false;
        return blank_before ? DL_OTHER : DL_LINE;
    }
    const char *rest = ls + pf->len, *r = rest;
    /* Bound: stops at the first non-space byte of the line. */
    while (r < le && is_space(*r))
        r++;
    if (r == le && pf->spaces_only)
        return DL_BLANK;
    size_t rl = (size_t)(le - rest);
    if (pf->spaces_only && lex_header(rest, rl) != HEAD_NONE)
        return DL_OTHER; /* header() */
    if (pf->units != 0)
        return DL_OTHER; /* bare_tree_start() */
    if (lex_details_header(rest, rl, &out->id, &out->name, &out->cg))
        return DL_START;
    out->field = lex_is_details_field_memo(rest, rl, memo);
    /* After a blank line only a field continues the block; else finish_block and on. */
    return !blank_before || out->field ? DL_LINE : DL_OTHER;
}

/* A line outside any tree that may start one without a header: at column 0 or indented on
   the grid, indented off it, or a copy that starts below its root.  rest: after the prefix;
   r: its first non-blank byte. */
static void bare_tree_start(struct parser *p, const struct lex_prefix *pf, const char *rest,
                            const char *r)
{
    size_t rl = (size_t)(p->le - rest);
    if ((pf->units == 0 || (pf->spaces_only && !pf->branch)) && lex_looks_like_operator(rest, rl)) {
        start_headerless(p, pf, rest);
    } else if (pf->spaces_only && !pf->branch && r > rest &&
               lex_looks_like_operator(r, (size_t)(p->le - r))) {
        /* A tree indented off the 3-column grid (8 spaces in a docstring, 2 in a list item):
           it starts at its first character, its depth counted in whole units. */
        size_t spaces = (size_t)(r - p->ls);
        struct lex_prefix at = {(uint32_t)((spaces + 2) / 3), 0, false, true};
        start_headerless(p, &at, r);
    } else if (pf->branch && !p->tree_open && p->mode == MODE_NONE &&
               lex_looks_like_operator(rest, rl)) {
        /* "      +- Filter ...": a copy that starts below the plan's root. */
        start_headerless(p, pf, rest);
        if (p->sec)
            p->sec_partial = true;
    }
}

/* pf: the line's tree prefix, read by the caller. */
static void one_line(struct parser *p, struct lex_prefix pf)
{
    /* (plain_details is 7 tests, on every line of a details list: a line read by the
       verdicts below leaves them as they were) */
    if (p->still_plain || plain_details(p)) {
        p->still_plain = true;
        struct dline_facts f;
        switch (details_line(p->ls, p->le, &pf, p->blank_before,
                             p->block_node && p->n_fields < UINT16_MAX, &p->key_memo, &f)) {
        case DL_BLANK:
            p->blank_before = true;
            return;
        case DL_START:
            /* (close_section: there is no section in plain details) */
            start_block(p, small_number(p, f.id, p->lno), slice_is(f.name, "AdaptiveSparkPlan"),
                        small_number(p, f.cg, p->lno));
            p->blank_before = false;
            return;
        case DL_LINE:
            block_line(p, p->ls, (size_t)(p->le - p->ls), f.field);
            p->blank_before = false;
            return;
        case DL_OTHER:
            break;
        }
        p->still_plain = false; /* the general rules below may change anything */
    }
    apply_line_depth(p->doc, p->lno, &pf);
    const char *rest = p->ls + pf.len;
    const char *r = rest;
    /* Bound: stops at the first non-space byte of the line. */
    while (r < p->le && is_space(*r))
        r++;
    bool blank = r == p->le && pf.spaces_only;
    if (blank) {
        blank_line(p);
        p->blank_before = true;
        return;
    }
    size_t rl = (size_t)(p->le - rest);
    if (pf.spaces_only) {
        enum head_kind h = lex_header(rest, rl);
        if (h != HEAD_NONE && (p->mode != MODE_CODE || h != HEAD_SUBQUERY_ENTRY)) {
            header(p, h);
            p->blank_before = false;
            return;
        }
    }
    switch (p->mode) {
    case MODE_SKIP:
        if (p->in_query) {
            if (!p->query.ptr)
                p->query.ptr = p->ls;
            p->query.len = (size_t)(p->le - p->query.ptr);
        }
        p->blank_before = false;
        return;
    case MODE_CODE:
        if (!p->blank_before || (rl >= 2 && rest[0] == '/' && rest[1] == '*') || pf.units > 0) {
            if (!p->code_start)
                p->code_start = p->ls;
            p->code_end = p->le;
            check_truncation(p, rest, rl, p->lno, NULL);
            p->blank_before = false;
            return;
        }
        finish_code(p);
        p->mode = MODE_NONE;
        break;
    default:
        break;
    }
    if (p->tree_open && p->sec && tree_line(p, &pf, rest)) {
        p->blank_before = false;
        return;
    }
    if (pf.units == 0 && (!p->plan || p->details_only) && (p->blank_before || p->lno == 1 ||
                                                          p->mode == MODE_DETAILS)) {
        int32_t id, cg;
        struct slice name;
        if (lex_details_header(rest, rl, &id, &name, &cg)) {
            details_only_block(p, id, name, cg);
            p->blank_before = false;
            return;
        }
    }
    if (pf.units == 0 && p->plan) {
        int32_t id, cg;
        struct slice name;
        if ((p->blank_before || p->mode == MODE_DETAILS) &&
            lex_details_header(rest, rl, &id, &name, &cg)) {
            close_section(p);
            start_block(p, small_number(p, id, p->lno), slice_is(name, "AdaptiveSparkPlan"),
                        small_number(p, cg, p->lno));
            p->blank_before = false;
            return;
        }
        if (p->mode == MODE_DETAILS && p->in_block) {
            /* Each line of a block is classified once. */
            bool field = lex_is_details_field(rest, rl);
            if (!p->blank_before || field) {
                block_line(p, rest, rl, field);
                p->blank_before = false;
                return;
            }
            finish_block(p);
            p->mode = MODE_NONE;
        }
    }
    /* A tree without a header may start here; else prose, code or anything else around
       plans: skipped. */
    bare_tree_start(p, &pf, rest, r);
    p->blank_before = false;
}

/* The first '\n' in [s, end), or NULL; *dot says whether a '.' may come before it.  Lines
   are short (40 bytes in a formatted plan): a few inline compares find both, cheaper than a
   memchr call for each; past 256 bytes memchr takes over (wider steps for a 50 MB line) and
   the line may hold a '.'. */
static const char *line_end(const char *s, const char *end, bool *dot)
{
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n'), period = _mm_set1_epi8('.');
    unsigned dots = 0;
    /* Bound: 16 rounds. */
    for (int k = 0; k < 16 && end - s >= 16; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl));
        unsigned d = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, period));
        if (m) {
            *dot = dots || (d & ((m & (0u - m)) - 1));
            return s + __builtin_ctz(m);
        }
        dots |= d;
        s += 16;
    }
#endif
    *dot = true;
    return memchr(s, '\n', (size_t)(end - s));
}

/* One line of the text from s: its tree prefix (read up to the end of the text: its units
   are made of ' ', ':', '+' and '-', so it stops at the line's end as it would at the line's
   length; the line end is then searched for after it, so a deep line's prefix, 30 KB, is
   read once from memory, not twice), its end without '\n' and '\r', where the next line
   starts and whether it may hold a '.'.  The parser and the details reader step alike. */
struct text_line {
    const char *ls, *le, *next;
    bool maybe_dot;
    struct lex_prefix pf;
};

static inline void read_line(const char *s, const char *end, struct text_line *l)
{
    lex_tree_prefix(s, (size_t)(end - s), &l->pf);
    const char *nl = line_end(s + l->pf.len, end, &l->maybe_dot);
    const char *le = nl ? nl : end;
    l->ls = s;
    l->le = le > s && le[-1] == '\r' ? le - 1 : le;
    l->next = nl ? nl + 1 : end;
}

/* ---- a big plan's details list, read on a second thread (parse.h) ------------------- */

/* What the parser needs of one block to attach it as start_block, block_line and
   finish_block would: offsets from the split point, lines from its line (0). */
struct split_block {
    uint32_t off;       /* the header line's start */
    uint32_t text_len;  /* the block's text: header to the end of its last line */
    uint32_t line;      /* the header's line */
    int32_t id, cg;     /* as lex_details_header read them (small_number is the parser's) */
    uint32_t bits;      /* fields counted (16 bits, at most UINT16_MAX), the header line's
                           length (15 bits), AdaptiveSparkPlan (the top bit) */
};

#define SPLIT_FIELDS 0xFFFFu
#define SPLIT_HEADER_MAX 0x7FFFu
#define SPLIT_AQE 0x80000000u
/* Blocks taken between two releases of their record (3 MB). */
#define SPLIT_RELEASE (128u << 10)

/* What check_truncation found in a line of a block (fields, chars: lex_truncation's). */
struct split_warning {
    uint32_t block, line;
    long fields, chars;
};

struct parse_split {
    const char *text;
    size_t len, at;                /* the text, the split point (a details header's line) */
    struct split_block *blocks;    /* freshmem_record */
    size_t n_blocks, cap_blocks;
    struct split_warning *warns;   /* malloc'd */
    size_t n_warns, cap_warns;
    /* Where the reader stopped: the first line it left to the parser, counted in lines
       from the split point, and the state one_line would have there. */
    size_t stop_off;
    uint32_t stop_line;
    bool blank_before;
    const char *prev_ls, *prev_le;
    size_t taken;                  /* blocks the parser took (0: it read them itself) */
    atomic_int abandon;            /* the parser will not take them: stop */
    struct handoff ho;             /* its part is ready (thread.h) */
};

/* A split point is a place inside a details list: from a candidate on, this many lines
   (or all up to the end of the text) must be details material as details_line reads them
   after a blank line, two headers or more among them. */
#define SPLIT_LOOK_LINES 64
/* How far past the place asked for a split point is looked for. */
#define SPLIT_LOOK_BYTES (1u << 20)

/* Do the lines from s read as the middle of a details list? */
static bool split_looks_like_details(const char *s, const char *end)
{
    bool blank_before = true;
    int headers = 0;
    struct lex_key_memo memo = {0};
    /* Bound: SPLIT_LOOK_LINES lines. */
    for (int k = 0; k < SPLIT_LOOK_LINES && s < end; k++) {
        struct text_line l;
        read_line(s, end, &l);
        struct dline_facts f;
        enum dline d = details_line(l.ls, l.le, &l.pf, blank_before, false, &memo, &f);
        if (d == DL_OTHER || (k == 0 && d != DL_START))
            return false;
        headers += d == DL_START;
        blank_before = d == DL_BLANK;
        s = l.next;
    }
    return headers >= 2;
}

struct parse_split *parse_split_new(const char *text, size_t len, size_t from)
{
    if (from >= len || len > UINT32_MAX)
        return NULL;
    const char *end = text + len, *s = text + from;
    const char *stop = len - from > SPLIT_LOOK_BYTES ? s + SPLIT_LOOK_BYTES : end;
    const char *at = NULL;
    /* A details header right after an empty line: "\n\n(" and a digit.  Bound: each round
       moves past a line end, up to SPLIT_LOOK_BYTES. */
    while (s < stop && (s = memchr(s, '\n', (size_t)(stop - s))) != NULL) {
        if (end - s > 4 && s[1] == '\n' && s[2] == '(' && s[3] >= '0' && s[3] <= '9' &&
            split_looks_like_details(s + 2, end)) {
            at = s + 2;
            break;
        }
        s++;
    }
    if (!at)
        return NULL;
    struct parse_split *sp = calloc(1, sizeof *sp);
    if (!sp)
        return NULL;
    sp->text = text;
    sp->len = len;
    sp->at = (size_t)(at - text);
    atomic_init(&sp->abandon, 0);
    if (!handoff_init(&sp->ho)) {
        free(sp);
        return NULL;
    }
    return sp;
}

void parse_split_free(struct parse_split *sp)
{
    if (!sp)
        return;
    freshmem_unmap(sp->blocks, sp->cap_blocks * sizeof *sp->blocks);
    free(sp->warns);
    handoff_destroy(&sp->ho);
    free(sp);
}

size_t parse_split_point(const struct parse_split *sp)
{
    return sp->at;
}

size_t parse_split_taken(const struct parse_split *sp)
{
    return sp->taken;
}

/* Blocks taken from readers by this process (parse_split_blocks_taken). */
static atomic_size_t split_blocks_taken;

size_t parse_split_blocks_taken(void)
{
    return atomic_load(&split_blocks_taken);
}

/* Room for one more block; false when the record is full (the reader stops there: the
   parser reads the rest). */
static bool split_push_block(struct parse_split *sp)
{
    if (sp->n_blocks < sp->cap_blocks)
        return true;
    if (sp->cap_blocks)
        return false;
    /* Spark's blocks take 100 bytes and more; a record for one every 32 bytes is address
       space only, its pages present as they are written (and given back as the parser
       takes them: split_take). */
    size_t cap = (sp->len - sp->at) / 32 + 1024;
    sp->blocks = freshmem_record(cap * sizeof *sp->blocks);
    if (!sp->blocks)
        return false;
    sp->cap_blocks = cap;
    return true;
}

static bool split_push_warning(struct parse_split *sp, long f, long c, uint32_t line)
{
    if (sp->n_warns == sp->cap_warns) {
        size_t cap = sp->cap_warns ? sp->cap_warns * 2 : 16;
        struct split_warning *w = realloc(sp->warns, cap * sizeof *w);
        if (!w)
            return false;
        sp->warns = w;
        sp->cap_warns = cap;
    }
    sp->warns[sp->n_warns++] = (struct split_warning){(uint32_t)(sp->n_blocks - 1), line, f, c};
    return true;
}

/* The reader proper: from the split point, the lines one_line would read in plain details
   (details_line decides, as for the parser), assuming the parser gets there in plain
   details after a blank line; the first line it would read otherwise, or that does not fit
   a record, stops it.  Reads the text only. */
static void split_read(struct parse_split *sp)
{
    const char *base = sp->text + sp->at, *end = sp->text + sp->len, *s = base;
    bool blank_before = true;
    uint32_t line = 0;
    struct split_block *cur = NULL;
    const char *prev_ls = NULL, *prev_le = NULL;
    struct lex_key_memo memo = {0};
    /* Bound: one line a round, up to the text's end. */
    while (s < end) {
        if ((line & 4095) == 0 && atomic_load_explicit(&sp->abandon, memory_order_relaxed))
            break;
        struct text_line l;
        read_line(s, end, &l);
        struct dline_facts f;
        uint32_t fields = cur ? cur->bits & SPLIT_FIELDS : 0;
        enum dline d =
            details_line(l.ls, l.le, &l.pf, blank_before, fields < UINT16_MAX, &memo, &f);
        if (d == DL_OTHER || (!cur && d != DL_START))
            break;
        if (d == DL_BLANK) {
            blank_before = true;
        } else if (d == DL_START) {
            size_t hl = (size_t)(l.le - l.ls);
            if (hl > SPLIT_HEADER_MAX || !split_push_block(sp))
                break;
            cur = &sp->blocks[sp->n_blocks++];
            cur->off = (uint32_t)(l.ls - base);
            cur->text_len = (uint32_t)hl;
            cur->line = line;
            cur->id = f.id;
            cur->cg = f.cg;
            cur->bits = (uint32_t)hl << 16 | (slice_is(f.name, "AdaptiveSparkPlan") ? SPLIT_AQE : 0);
            blank_before = false;
        } else {
            const char *hs = base + cur->off;
            if (truncation_possible(l.maybe_dot, l.ls, l.le, l.ls, (size_t)(l.le - l.ls))) {
                long tf, tc;
                lex_truncation(l.ls, (size_t)(l.le - l.ls), &tf, &tc);
                if ((tf >= 0 || tc >= 0) && !split_push_warning(sp, tf, tc, line))
                    break;
            }
            if (f.field && fields < UINT16_MAX)
                cur->bits++;
            cur->text_len = (uint32_t)(l.le - hs);
            blank_before = false;
        }
        if (!blank_before) {
            prev_ls = l.ls;
            prev_le = l.le;
        }
        line++;
        s = l.next;
    }
    sp->stop_off = (size_t)(s - base);
    sp->stop_line = line;
    sp->blank_before = blank_before;
    sp->prev_ls = prev_ls;
    sp->prev_le = prev_le;
}

void parse_split_read(struct parse_split *sp)
{
    split_read(sp);
    handoff_done(&sp->ho);
}

/* Blocks come in id order, their nodes lie in tree order far apart, and taking a block is
   a few stores: the node and its details entry of the block SPLIT_AHEAD on are asked for
   now, so that they are in the cache when it is taken (start_block asks for the next one
   only, enough when each block's lines are read first). */
#define SPLIT_AHEAD 16

PREFETCH_HELPER void split_prefetch(const struct parser *p, int32_t id)
{
    if (id < 0 || (size_t)id >= p->ids.direct_cap || !p->ids.direct[id])
        return;
    size_t i = p->ids.direct[id] - 1;
    __builtin_prefetch((const struct plan_node *)(const void *)p->doc->nodes.base + i, 1);
    if (p->doc->blocks.base)
        __builtin_prefetch((const struct plan_node_block *)(const void *)p->doc->blocks.base + i,
                           1);
}

/* The parser got to the split point (the line at p->ls has not been read yet): when it is
   in the state the reader assumed, it takes the reader's blocks as start_block, block_line
   and finish_block would have made them, warnings and all, in the same order, and returns
   where to go on (p->lno, blank_before and the line before set as if it had read every line
   up to there).  NULL: the parser reads on by itself. */
static const char *split_take(struct parser *p, struct parse_split *sp)
{
    if (p->status != SP_OK || !plain_details(p) || !p->blank_before) {
        atomic_store(&sp->abandon, 1);
        return NULL;
    }
    handoff_wait(&sp->ho, p->doc->parse_idle, p->doc->parse_idle_ctx);
    if (!sp->n_blocks)
        return NULL;
    const char *base = sp->text + sp->at;
    uint32_t lno0 = p->lno + 1; /* the split point's line */
    size_t w = 0, released = 0;
    /* Bound: the reader's blocks and warnings, once each. */
    for (size_t k = 0; k < sp->n_blocks && p->status == SP_OK; k++) {
        if (k + SPLIT_AHEAD < sp->n_blocks)
            split_prefetch(p, sp->blocks[k + SPLIT_AHEAD].id);
        if (k - released == SPLIT_RELEASE) {
            /* What was taken is not needed again: the model's blocks grow as the record
               goes, not on top of it. */
            freshmem_release(sp->blocks + released, SPLIT_RELEASE * sizeof *sp->blocks);
            released = k;
        }
        const struct split_block *b = &sp->blocks[k];
        uint32_t lno = lno0 + b->line;
        p->ls = base + b->off;
        p->le = p->ls + (b->bits >> 16 & SPLIT_HEADER_MAX);
        p->lno = lno;
        start_block(p, small_number(p, b->id, lno), (b->bits & SPLIT_AQE) != 0,
                    small_number(p, b->cg, lno));
        /* block_line, for the block's lines: */
        p->block_end = p->ls + b->text_len;
        if (p->block_node)
            p->n_fields = b->bits & SPLIT_FIELDS;
        for (; w < sp->n_warns && sp->warns[w].block == k; w++)
            report_truncation_found(p, sp->warns[w].fields, sp->warns[w].chars,
                                    lno0 + sp->warns[w].line, NULL);
    }
    p->lno = lno0 - 1 + sp->stop_line;
    p->blank_before = sp->blank_before;
    p->prev_ls = sp->prev_ls;
    p->prev_le = sp->prev_le;
    sp->taken = sp->n_blocks;
    atomic_fetch_add(&split_blocks_taken, sp->n_blocks);
    return base + sp->stop_off;
}

/* ---- the parser's start, its line step and its end -------------------------------------- */

static void parser_start(struct parser *p, struct document *doc)
{
    memset(p, 0, sizeof *p);
    p->doc = doc;
    build_init(&p->b, doc);
    /* Nodes go in in pre-order here: the model is finished from the builder's record, and
       each plan's by_id is the parser's id index (give_by_id). */
    if (plan_order_begin(doc))
        doc->by_id_from_reader = true;
    /* And each is a line of the text (a tree line, a label, a details header). */
    plan_nodes_are_lines(doc);
    p->status = SP_OK;
    p->plan_max_order = -1;
    p->top = -1;
}

/* Reads the line at s; returns where the next one starts. */
static ALWAYS_INLINE const char *parse_read_line(struct parser *p, const struct text_line *l);

static ALWAYS_INLINE const char *parse_line(struct parser *p, const char *s, const char *end)
{
    struct text_line l;
    read_line(s, end, &l);
    return parse_read_line(p, &l);
}

/* The same for a line already read (the graft's reader looks at it first). */
static ALWAYS_INLINE const char *parse_read_line(struct parser *p, const struct text_line *l)
{
    p->ls = l->ls;
    p->le = l->le;
    p->maybe_dot = l->maybe_dot;
    p->lno++;
    one_line(p, l->pf);
    if (!p->blank_before) {
        p->prev_ls = p->ls;
        p->prev_le = p->le;
    }
    return l->next;
}

/* The end of the text: the open plan closes; the parser's own memory goes. */
static void parser_end(struct parser *p)
{
    if (p->mode == MODE_CODE)
        finish_code(p);
    close_plan(p);
    build_free(&p->b);
    free(p->stack);
    free(p->last_child);
    free(p->mark_col);
    free(p->regions);
    ids_reset(&p->ids);
}

/* ---- a big text's end, parsed on a second thread (parse.h) ----------------------------- */

/* The cut is a line that makes a parser forget the plan it was reading: a header that opens
   a new plan ("== Parsed Logical Plan ==", "== Physical Plan ==": header(), when the open
   plan has a section of the same order or later, or none) or "-- !query" (a golden file's
   next query: header() closes the plan and starts over).  What a parser carries past such a
   line is little, and the second thread starts with it as a fresh parser has it: no plan,
   no section, no tree, no details block, no code, not in a query's SQL nor an analysis
   block, no log record on the line before, the query of a golden file unknown (a plan it
   opens before its own "-- !query" gets the first thread's: tail_fix_query), warnings about
   hidden fields and big numbers counted apart.  The first thread checks, when it gets to
   the cut, that its own state leads to the same (tail_state_fits); else the second part is
   thrown away and it reads on. */
struct parse_tail {
    struct document *doc;          /* the whole text's document (its source is borrowed) */
    const char *text;
    size_t len, cut;               /* the cut: the start of the cut line */
    enum head_kind head;           /* the cut line's header */
    struct document *part;         /* the second thread's plans, from the cut on */
    enum sp_status status;
    /* The part's warnings about hidden fields and big numbers, in the order made (the
       parser's tail_note_warning): the whole parse makes the first 20 of the first and the
       first of the second, counting the first thread's. */
    struct tail_warning {
        struct plan_warning *w;
        bool big_number;
    } *warns;
    size_t n_warns, cap_warns;
    bool taken;                    /* parse_document appended the part */
    atomic_int abandon;            /* the first thread will not take it: stop */
    struct handoff ho;             /* its part is ready (thread.h) */
};

/* How far past the place asked a cut is looked for (a pasted corpus has a header every
   few KB; a text without any in this reach is read whole by one thread). */
#define TAIL_LOOK_BYTES ((size_t)4 << 20)

/* A plan opened by the second thread before its own "-- !query" has the query of the
   first thread's last one: its query points here until tail_fix_query sets it. */
static const char tail_query_unknown[1];

/* The header a line at column 0 starts, as one_line reads it (HEAD_NONE: none); only the
   three that can cut. */
static enum head_kind cut_header(const char *ls, const char *le)
{
    struct lex_prefix pf;
    size_t n = (size_t)(le - ls);
    lex_tree_prefix(ls, n, &pf);
    if (!pf.spaces_only || pf.len)
        return HEAD_NONE;
    enum head_kind h = lex_header(ls, n);
    if (h == HEAD_PARSED || h == HEAD_PHYSICAL)
        return h;
    /* "-- !query" alone: the next query's SQL follows (header: in_query). */
    if (h == HEAD_QUERY_MARK && n == 9)
        return h;
    return HEAD_NONE;
}

struct parse_tail *parse_tail_new(struct document *doc, size_t from)
{
    const char *text = doc->src.text;
    size_t len = doc->src.text_len;
    if (!text || from >= len || len >= UINT32_MAX)
        return NULL;
    const char *end = text + len, *s = text + (from ? from - 1 : 0);
    const char *stop = len - from > TAIL_LOOK_BYTES ? text + from + TAIL_LOOK_BYTES : end;
    const char *at = NULL;
    enum head_kind head = HEAD_NONE;
    /* A line start after a '\n' (the first line is no cut: the first thread would read
       nothing).  Bound: each round moves past a line end, up to TAIL_LOOK_BYTES. */
    while (s < stop && (s = memchr(s, '\n', (size_t)(stop - s))) != NULL) {
        const char *ls = s + 1;
        s = ls;
        if (ls >= end || (*ls != '=' && *ls != '-'))
            continue;
        const char *nl = memchr(ls, '\n', (size_t)(end - ls));
        const char *le = nl ? nl : end;
        if (le > ls && le[-1] == '\r')
            le--;
        if ((head = cut_header(ls, le)) != HEAD_NONE) {
            at = ls;
            break;
        }
    }
    if (!at)
        return NULL;
    struct parse_tail *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->doc = doc;
    t->text = text;
    t->len = len;
    t->cut = (size_t)(at - text);
    t->head = head;
    t->status = SP_OK;
    atomic_init(&t->abandon, 0);
    if (!handoff_init(&t->ho)) {
        free(t);
        return NULL;
    }
    return t;
}

/* The warning document_warn just made (when it could: the count says), noted. */
static void tail_note_warning(struct parser *p, uint32_t n_warnings_before, bool big_number)
{
    struct parse_tail *t = p->tail;
    if (p->doc->n_warnings == n_warnings_before)
        return;
    if (t->n_warns == t->cap_warns) {
        size_t cap = t->cap_warns ? t->cap_warns * 2 : 32;
        struct tail_warning *w = realloc(t->warns, cap * sizeof *w);
        if (!w) {
            fail(p, SP_ERR_NOMEM); /* the part is not taken then */
            return;
        }
        t->warns = w;
        t->cap_warns = cap;
    }
    t->warns[t->n_warns++] = (struct tail_warning){p->doc->last_warning, big_number};
}

void parse_tail_free(struct parse_tail *t)
{
    if (!t)
        return;
    free(t->warns);
    document_free(t->part);
    handoff_destroy(&t->ho);
    free(t);
}

size_t parse_tail_cut(const struct parse_tail *t)
{
    return t->cut;
}

bool parse_tail_taken(const struct parse_tail *t)
{
    return t->taken;
}

/* Plans appended from second threads by this process (parse_tail_plans_taken). */
static atomic_size_t tail_plans_taken;

size_t parse_tail_plans_taken(void)
{
    return atomic_load(&tail_plans_taken);
}

/* The second thread's parse: from the cut to the end of the text, into a document of its
   own that reads the same source (lines are numbered as in the whole text). */
static void tail_read(struct parse_tail *t)
{
    const struct source *src = &t->doc->src;
    struct document *part = document_new(t->doc->name, NULL, 0);
    if (!part) {
        t->status = SP_ERR_NOMEM;
        return;
    }
    source_borrow(&part->src, t->text, t->len);
    part->src.line_map = src->line_map;
    part->src.line_from = src->line_from;
    part->src.n_text_lines = src->n_text_lines;
    part->src.line_depth = src->line_depth;
    t->part = part;
    struct parser p;
    parser_start(&p, part);
    p.tail = t;
    p.lno = (uint32_t)slice_count_newlines(t->text, t->cut);
    p.query = slice_make(tail_query_unknown, 0);
    const char *s = t->text + t->cut, *end = t->text + t->len;
    /* Bound: one line a round, up to the text's end. */
    while (s < end && p.status == SP_OK) {
        if ((p.lno & 4095) == 0 && atomic_load_explicit(&t->abandon, memory_order_relaxed)) {
            t->status = SP_ERR_CANCELLED;
            break;
        }
        s = parse_line(&p, s, end);
    }
    parser_end(&p);
    if (t->status == SP_OK)
        t->status = p.status;
}

void parse_tail_read(struct parse_tail *t)
{
    tail_read(t);
    handoff_done(&t->ho);
}

/* Does the first thread, about to read the cut line, end up where the second thread started
   from?  One_line reads the line as a header whatever the state (its prefix is empty, and
   no details rule takes a line that starts with '=' or '-'): header() finishes a block or
   code, closes the section and the plan, and for a section header opens a new plan when
   it does that in this state. */
static bool tail_state_fits(const struct parser *p, const struct parse_tail *t)
{
    if (p->status != SP_OK)
        return false;
    if (t->head == HEAD_QUERY_MARK)
        return true; /* closes the plan, starts the query's SQL, forgets the analysis hint */
    enum section_kind kind = t->head == HEAD_PARSED ? SECTION_PARSED : SECTION_PHYSICAL;
    if (p->plan && !p->plan_headerless && section_order(kind) > p->plan_max_order)
        return false; /* the header adds a section to the open plan */
    if (p->in_query || p->hint_analyzed)
        return false;
    /* note_source: the new plan's log record is on the line before it. */
    if (p->prev_ls) {
        struct slice when, logger;
        if (lex_log_record(p->prev_ls, (size_t)(p->prev_le - p->prev_ls), &when, &logger))
            return false;
    }
    return true;
}

/* The first thread got to the cut (the line at the cut not read yet): when its state is
   what the second thread assumed and the second thread's part is whole, it closes what
   header() would close and returns true: the part's plans follow its own (parse_document
   appends them).  Else the part is thrown away and it reads on by itself. */
static bool tail_take(struct parser *p, struct parse_tail *t)
{
    if (!tail_state_fits(p, t)) {
        atomic_store(&t->abandon, 1);
        return false;
    }
    handoff_wait(&t->ho, p->doc->parse_idle, p->doc->parse_idle_ctx);
    if (t->status != SP_OK || !t->part)
        return false;
    /* header()'s first steps for the cut line (open_plan then closes the plan). */
    if (p->mode == MODE_CODE)
        finish_code(p);
    finish_block(p);
    p->mode = MODE_NONE;
    close_section(p);
    close_plan(p);
    return true;
}

/* The part's plans opened before its own "-- !query" have the query the first thread had
   at the cut. */
static void tail_fix_query(struct document *part, struct slice query)
{
    for (struct plan *pl = part->first_plan; pl; pl = pl->next)
        if (pl->source.query.ptr == tail_query_unknown)
            pl->source.query = query;
}

/* Takes out of the part's warnings those the whole parse would not have made, given what
   the first thread made: hidden fields past the first MAX_FIELD_WARNINGS of the document
   (counted in *dropped), a big number after the first.  One walk of the part's list. */
static void tail_fix_warnings(struct parse_tail *t, const struct parser *p, uint32_t *dropped)
{
    struct document *part = t->part;
    uint32_t fields = p->field_warnings;
    bool big = p->warned_big_number;
    size_t k = 0;
    struct plan_warning *prev = NULL;
    /* Bound: the part's warnings, once. */
    for (struct plan_warning *w = part->first_warning; w && k < t->n_warns;) {
        struct plan_warning *next = w->next;
        bool drop = false;
        if (w == t->warns[k].w) {
            if (t->warns[k].big_number) {
                drop = big;
                big = true;
            } else if (fields < MAX_FIELD_WARNINGS) {
                fields++;
            } else {
                drop = true;
                (*dropped)++;
            }
            k++;
        }
        if (drop) {
            if (prev)
                prev->next = next;
            else
                part->first_warning = next;
            if (part->last_warning == w)
                part->last_warning = prev;
            part->n_warnings--;
        } else {
            prev = w;
        }
        w = next;
    }
}

/* Appends the part's plans after the first thread's own (all closed). */
static enum sp_status tail_append(struct document *doc, struct parse_tail *t,
                                  const struct parser *p, uint32_t *dropped)
{
    tail_fix_query(t->part, p->query);
    tail_fix_warnings(t, p, dropped);
    size_t plans = t->part->n_plans;
    if (!document_append(doc, t->part))
        return SP_ERR_NOMEM;
    t->taken = true;
    atomic_fetch_add(&tail_plans_taken, plans);
    return SP_OK;
}

/* ---- a big tree's back part, parsed on a second thread (parse.h) ---------------------- */

/* The cut is a tree line on Spark's grid ("   :  +- Filter ...") right after another, deeper
   than the root: when the parser gets there inside a plain tree (its section open with a
   header, no regions, no pending line, no elision, no outline ids, no blank line before, the
   line before made the last node, every node on the stack the child of the one above it and
   its markers on the grid), its state is the open stack and nothing else: depth d holds the
   last node placed at depth d, for d up to the line before's prefix units (k - 1).  The
   second thread starts a parser in that state with stand-ins for those k nodes (a plan, a
   section, a stand-in at each depth, each the first child of the one above) and reads on,
   line for line as parse_line does, as long as each line is one that parser's tree_line
   takes as a node at a depth on the stack or as more text of the last node; the first other
   line (a blank line, a header, an elision, a line off the grid or that ends the tree, a
   line deeper than one below the last node) is left to the first thread.  The part is kept
   only when nothing it read touched more than its tree: no warning, no outline id, no
   region, no label, no adaptive plan.  The first thread checks its state at the cut
   (graft_state_fits); else the part is thrown away and it reads on. */
struct parse_graft {
    struct document *doc;          /* the whole text's document (its source is borrowed) */
    const char *text;
    size_t len, cut;               /* the cut: the start of the cut line */
    uint32_t k;                    /* stand-ins: the line before the cut's prefix units */
    struct document *part;         /* the second thread's nodes, stand-ins first */
    struct parser p;               /* its parser, where it stopped (parser_end not run) */
    bool ok;                       /* the part may be grafted */
    bool lines_moved;              /* its lines are numbered from the cut (0: the line before) */
    const char *stop;              /* the first line it left */
    size_t window;                 /* its nodes' place in doc's store (document_nodes_fence),
                                      0: a store of their own */
    size_t taken;                  /* nodes parse_document grafted */
    atomic_int abandon;            /* the first thread will not take it: stop */
    const atomic_int *cancel;      /* doc's parse_cancel when the graft was made: the first
                                      thread stops at its next check, and may be waiting
                                      for this part at the cut */
    struct handoff ho;             /* its part is ready (thread.h) */
};

/* How far past the place asked a cut is looked for. */
#define GRAFT_LOOK_BYTES ((size_t)1 << 20)

/* The prefix units of a tree line on the grid ("+- ", ":- " after whole units), 0 when the
   line is none. */
static uint32_t grid_branch_units(const char *ls, const char *end)
{
    struct lex_prefix pf;
    lex_tree_prefix(ls, (size_t)(end - ls), &pf);
    return pf.branch && pf.units && pf.len == 3 * (size_t)pf.units ? pf.units : 0;
}

/* The nodes the first thread makes before the cut, over-estimated: a node a line, the lines
   counted in the megabyte before the cut and taken as the density of all of them, plus an
   eighth and a few.  Past it the first thread's nodes would reach the part's in the window
   (document_nodes_fence): the part is then given up (graft_fence_hit), which costs time,
   never a byte of the result. */
#define GRAFT_SAMPLE_BYTES ((size_t)1 << 20)
static size_t graft_nodes_before(const char *text, size_t cut)
{
    size_t sample = cut < GRAFT_SAMPLE_BYTES ? cut : GRAFT_SAMPLE_BYTES;
    if (!sample)
        return 0;
    size_t lines = slice_count_newlines(text + cut - sample, sample) + 1;
    size_t est = (size_t)((double)cut / (double)sample * (double)lines);
    return est + est / 8 + 4096;
}

/* The first thread needs room past the fence before the graft (it read on past the cut, the
   part thrown away, or it made more nodes than guessed): the second thread stops, and its
   nodes, which doc's now go over, are not taken. */
static void graft_fence_hit(void *ctx)
{
    struct parse_graft *g = ctx;
    atomic_store(&g->abandon, 1);
    handoff_wait(&g->ho, NULL, NULL);
    g->ok = false;
}

struct parse_graft *parse_graft_new(struct document *doc, size_t from)
{
    const char *text = doc->src.text;
    size_t len = doc->src.text_len;
    if (!text || from >= len || len >= UINT32_MAX || doc->src.line_depth)
        return NULL;
    const char *end = text + len, *s = text + (from ? from - 1 : 0);
    const char *stop = len - from > GRAFT_LOOK_BYTES ? text + from + GRAFT_LOOK_BYTES : end;
    const char *at = NULL, *prev = NULL;
    uint32_t k = 0;
    /* Line starts after a '\n'.  Bound: each round moves past a line end, up to
       GRAFT_LOOK_BYTES. */
    while (s < stop && (s = memchr(s, '\n', (size_t)(stop - s))) != NULL) {
        const char *ls = ++s;
        if (ls >= end)
            break;
        if (prev && grid_branch_units(ls, end)) {
            k = grid_branch_units(prev, end);
            if (k) {
                at = ls;
                break;
            }
        }
        prev = ls;
    }
    if (!at)
        return NULL;
    struct parse_graft *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->doc = doc;
    g->text = text;
    g->len = len;
    g->cut = (size_t)(at - text);
    g->k = k + 1;
    g->cancel = doc->parse_cancel;
    atomic_init(&g->abandon, 0);
    if (!handoff_init(&g->ho)) {
        free(g);
        return NULL;
    }
    g->window = document_nodes_fence(doc, graft_nodes_before(text, g->cut), graft_fence_hit, g);
    return g;
}

void parse_graft_free(struct parse_graft *g)
{
    if (!g)
        return;
    /* The fence stood for this part's nodes: no second thread writes there now. */
    struct plan_store *st = &g->doc->nodes;
    if (g->window && st->fence_ctx == g) {
        st->fence = 0;
        st->fence_hit = NULL;
        st->fence_ctx = NULL;
    }
    if (g->part) {
        free(g->p.stack);
        free(g->p.last_child);
        free(g->p.mark_col);
        free(g->p.regions);
        build_free(&g->p.b);
        ids_reset(&g->p.ids);
    }
    document_free(g->part);
    handoff_destroy(&g->ho);
    free(g);
}

size_t parse_graft_cut(const struct parse_graft *g)
{
    return g->cut;
}

size_t parse_graft_taken(const struct parse_graft *g)
{
    return g->taken;
}

/* Nodes grafted from second threads by this process (parse_graft_nodes_taken). */
static atomic_size_t graft_nodes_taken;

size_t parse_graft_nodes_taken(void)
{
    return atomic_load(&graft_nodes_taken);
}

/* The parser at the cut as the second thread assumes it: a plan, a section, stand-ins at
   depths 0..k-1, the line before read. */
static bool graft_start(struct parse_graft *g, struct parser *p)
{
    parser_start(p, g->part);
    /* Lines are numbered from the cut when each text line is its own input line: the first
       thread, which knows how many came before, moves them (a count here was 5 % of the
       part's work on the 100,000-operator simple plan). */
    const struct source *src = &g->doc->src;
    g->lines_moved = !src->line_map && !src->line_from;
    p->lno = g->lines_moved ? 0 : (uint32_t)slice_count_newlines(g->text, g->cut);
    p->plan = build_plan(&p->b, 0);
    p->sec = p->plan ? build_section(&p->b, SECTION_PHYSICAL, slice_make(NULL, 0), 0) : NULL;
    if (!p->sec || !stack_reserve(p, g->k))
        return false;
    p->plan_max_order = section_order(SECTION_PHYSICAL);
    p->tree_open = true;
    for (uint32_t d = 0; d < g->k; d++) { /* bound: the stand-ins */
        struct plan_node *n = build_node(&p->b, d ? p->stack[d - 1] : NULL, NULL);
        if (!n)
            return false;
        p->stack[d] = n;
        if (d)
            p->last_child[d - 1] = n;
        p->last_child[d] = NULL;
        p->mark_col[d] = 3 * (long)d - 3;
    }
    p->top = (long)g->k - 1;
    p->last = p->stack[p->top];
    p->last_units = g->k - 1;
    p->sec_nodes = g->k;
    /* the line before the cut */
    const char *le = g->text + g->cut - 1;
    const char *ls = le;
    while (ls > g->text && ls[-1] != '\n') /* bound: that line */
        ls--;
    if (le > ls && le[-1] == '\r')
        le--;
    p->prev_ls = ls;
    p->prev_le = le;
    return true;
}

/* Does tree_line take the line at l as a node on the stack or as more of the last node, and
   nothing else, in the state the part keeps (see struct parse_graft)? */
static bool graft_line_plain(const struct parser *p, const struct text_line *l)
{
    const char *rest = l->ls + l->pf.len, *r = rest;
    /* Bound: stops at the first non-space byte of the line. */
    while (r < l->le && is_space(*r))
        r++;
    size_t rl = (size_t)(l->le - rest);
    if (r == l->le || (l->pf.spaces_only && lex_header(rest, rl) != HEAD_NONE) ||
        lex_is_elision(rest, rl))
        return false;
    if (l->pf.branch)
        return l->pf.len == 3 * (size_t)l->pf.units && l->pf.units >= 1 &&
               (long)l->pf.units <= p->top + 1;
    if (l->pf.units || !l->pf.spaces_only)
        return false;
    struct lex_prefix fixed = l->pf;
    const char *rr = rest;
    struct parser *q = (struct parser *)p; /* misaligned_branch reads it only */
    if (misaligned_branch(q, &fixed, &rr) >= 0)
        return false;
    return !lex_ends_tree(rest, rl) && !lex_foreign_line(rest, rl);
}

/* Is the part's parser still in a state the first thread can take over? */
static bool graft_state_kept(const struct parser *p, const struct parse_graft *g)
{
    return p->status == SP_OK && p->tree_open && p->mode == MODE_NONE && !p->n_regions &&
           !p->elided && !p->sec_formatted && !p->has_pending && !p->plan->adaptive &&
           p->plan->is_final < 0 && !p->doc->first_warning && !p->field_warnings &&
           !p->sec->n_elided && p->plan == g->part->last_plan && p->sec == p->plan->last_section;
}

static void graft_read(struct parse_graft *g)
{
    g->part = document_new(g->doc->name, NULL, 0);
    if (!g->part)
        return;
    if (g->window)
        document_nodes_window(g->part, g->doc, g->window);
    const struct source *src = &g->doc->src;
    source_borrow(&g->part->src, g->text, g->len);
    g->part->src.line_map = src->line_map;
    g->part->src.line_from = src->line_from;
    g->part->src.n_text_lines = src->n_text_lines;
    struct parser *p = &g->p;
    if (!graft_start(g, p))
        return;
    const char *s = g->text + g->cut, *end = g->text + g->len;
    bool ok = true;
    /* Bound: one line a round, up to the text's end. */
    for (bool first = true; s < end; first = false) {
        if (((p->lno & 4095) == 0 || first) &&
            (atomic_load_explicit(&g->abandon, memory_order_relaxed) ||
             (g->cancel && atomic_load_explicit(g->cancel, memory_order_relaxed)))) {
            ok = false;
            break;
        }
        struct text_line l;
        read_line(s, end, &l);
        if (!graft_line_plain(p, &l))
            break;
        s = parse_read_line(p, &l);
        if (!graft_state_kept(p, g)) {
            ok = false;
            break;
        }
    }
    g->stop = s;
    g->ok = ok && s > g->text + g->cut;
}

void parse_graft_read(struct parse_graft *g)
{
    graft_read(g);
    handoff_done(&g->ho);
}

/* Is the first thread, about to read the cut line, in the state the part started from? */
static bool graft_state_fits(const struct parser *p, const struct parse_graft *g)
{
    long top = (long)g->k - 1;
    if (p->status != SP_OK || p->doc->src.line_depth || p->mode != MODE_NONE || !p->tree_open ||
        !p->sec || p->sec_headerless || p->sec_partial || p->n_regions || p->has_pending ||
        p->expect_schema || p->elided || p->indent_step || p->sec_formatted ||
        p->blank_before || p->in_block || p->top != top || p->last != p->stack[top] ||
        p->plan != p->doc->last_plan || p->sec != p->plan->last_section)
        return false;
    /* The line before made the last node. */
    if (document_original_line(p->doc, p->lno) != p->last->line)
        return false;
    for (long d = 0; d <= top; d++) { /* bound: the stack, once */
        const struct plan_node *n = p->stack[d];
        if (!n || p->mark_col[d] != 3 * d - 3 || p->last_child[d] != (d < top ? p->stack[d + 1] : NULL) ||
            plan_node_parent(n) != (d ? p->stack[d - 1] : NULL) || (n->flags & NODE_INNER))
            return false;
    }
    return true;
}

/* The first thread got to the cut (the line at the cut not read yet): when its state is the
   one the part started from and the part may be grafted, its nodes are grafted under the
   stack (document_graft), the parser takes the part's state where it stopped, and the
   return is where to go on.  NULL: the part is thrown away and the parser reads on. */
static const char *graft_take(struct parser *p, struct parse_graft *g)
{
    if (!graft_state_fits(p, g)) {
        atomic_store(&g->abandon, 1);
        return NULL;
    }
    handoff_wait(&g->ho, p->doc->parse_idle, p->doc->parse_idle_ctx);
    struct parser *q = &g->p;
    if (!g->ok || !stack_reserve(p, (size_t)q->top + 1))
        return NULL;
    size_t n0 = p->doc->n_nodes_made, k = g->k;
    const struct plan_node *pbase = (const struct plan_node *)(const void *)g->part->nodes.base;
    uint32_t shift = g->lines_moved ? p->lno : 0;
    if (!document_graft(p->doc, g->part, p->stack, k, shift))
        return NULL;
    struct plan_node *base = (struct plan_node *)(void *)p->doc->nodes.base;
    /* A node of the part, at its place in the document: a stand-in is the node it stood
       for (stood[], the stack at the cut). */
    struct plan_node **stood = malloc(k * sizeof *stood);
    if (!stood) {
        fail(p, SP_ERR_NOMEM);
        return NULL;
    }
    memcpy(stood, p->stack, k * sizeof *stood);
#define GRAFT_MOVED(x) ((x) == NULL ? NULL                                                   \
                        : (size_t)((x) - pbase) < k ? stood[(x) - pbase]                    \
                        : base + n0 + (size_t)((x) - pbase) - k)
    struct plan_node *last = GRAFT_MOVED(q->last);
    /* Stand-ins come first on the part's stack: the deeper entries are moved from the top
       down, each read before it is written. */
    for (long d = q->top; d >= 0; d--) { /* bound: the part's stack, once */
        p->last_child[d] = GRAFT_MOVED(q->last_child[d]);
        p->stack[d] = GRAFT_MOVED(q->stack[d]);
        p->mark_col[d] = q->mark_col[d];
    }
#undef GRAFT_MOVED
    free(stood);
    p->top = q->top;
    p->last = last;
    p->last_units = q->last_units;
    p->sec_nodes += q->sec_nodes - k;
    p->sec_branches += q->sec_branches;
    p->lno = q->lno + shift;
    p->blank_before = q->blank_before;
    p->prev_ls = q->prev_ls;
    p->prev_le = q->prev_le;
    g->taken = p->doc->n_nodes_made - n0;
    atomic_fetch_add(&graft_nodes_taken, g->taken);
    return g->stop;
}

/* The nearest of the places where a second thread's work is taken (NULL: none) that the
   parser, at s, has not passed; those it has passed are forgotten (set NULL: it never gets
   there).  The line loop compares one place a line, not three. */
static const char *nearest_place(const char *s, const char **a, const char **b, const char **c)
{
    const char **places[3] = {a, b, c};
    const char *near = NULL;
    for (int i = 0; i < 3; i++) { /* bound: three places */
        if (*places[i] && *places[i] < s)
            *places[i] = NULL;
        if (*places[i] && (!near || *places[i] < near))
            near = *places[i];
    }
    return near;
}

enum sp_status parse_document(struct document *doc, struct diag *err)
{
    struct parser p;
    parser_start(&p, doc);
    const char *s = doc->src.text, *end = doc->src.text + doc->src.text_len;
    struct parse_split *split = doc->parse_split;
    const char *split_at = split && split->text == s && split->len == doc->src.text_len
                               ? s + split->at
                               : NULL;
    struct parse_tail *tail = doc->parse_tail;
    const char *tail_at = tail && tail->text == s && tail->len == doc->src.text_len
                              ? s + tail->cut
                              : NULL;
    struct parse_graft *graft = doc->parse_graft;
    const char *graft_at = graft && graft->text == s && graft->len == doc->src.text_len
                               ? s + graft->cut
                               : NULL;
    bool cancelled = false, tail_taken = false;
    const char *stop_at = nearest_place(s, &split_at, &graft_at, &tail_at);
    while (s < end && p.status == SP_OK) {
        if ((p.lno & 4095) == 0 && doc->parse_cancel &&
            atomic_load_explicit(doc->parse_cancel, memory_order_relaxed)) {
            cancelled = true;
            break;
        }
        if (s == stop_at) {
            if (s == split_at) {
                split_at = NULL;
                const char *to = split_take(&p, split);
                if (to) {
                    s = to;
                    stop_at = nearest_place(s, &split_at, &graft_at, &tail_at);
                    continue;
                }
            }
            if (s == graft_at) {
                graft_at = NULL;
                const char *to = graft_take(&p, graft);
                if (to) {
                    s = to;
                    stop_at = nearest_place(s, &split_at, &graft_at, &tail_at);
                    continue;
                }
            }
            if (s == tail_at) {
                tail_at = NULL;
                if (tail_take(&p, tail)) {
                    tail_taken = true;
                    break;
                }
            }
            stop_at = nearest_place(s, &split_at, &graft_at, &tail_at);
        }
        s = parse_line(&p, s, end);
    }
    if (split)
        /* Never got there, or read it alone: the reader's work is not wanted. */
        atomic_store(&split->abandon, 1);
    if (tail && !tail_taken)
        atomic_store(&tail->abandon, 1);
    if (graft)
        atomic_store(&graft->abandon, 1);
    parser_end(&p);
    uint32_t dropped = p.field_warnings_dropped;
    if (tail_taken && p.status == SP_OK)
        p.status = tail_append(doc, tail, &p, &dropped);
    if (dropped)
        document_warn(doc, 0,
                      "%u more lines hide fields: raise spark.sql.debug.maxToStringFields",
                      dropped);
    if (p.status != SP_OK) {
        diag_set(err, 0, "out of memory");
        return p.status;
    }
    if (cancelled) {
        diag_set(err, 0, "cancelled");
        return SP_ERR_CANCELLED;
    }
    if (!doc->first_plan) {
        diag_set(err, 0, "no Spark plan found");
        return SP_ERR_NO_PLAN;
    }
    return SP_OK;
}
