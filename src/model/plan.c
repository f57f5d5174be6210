/* plan.c: the plan model, its construction helpers and lookups (see plan.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "sparkplan/plan.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sparkplan/freshmem.h"
#include "sparkplan/grow.h"
#include "sparkplan/lex.h"
#include "sparkplan/namekey.h"

#if UINTPTR_MAX == UINT64_MAX
/* The node layout is part of the load cost (see plan.h): keep it from growing unnoticed. */
_Static_assert(sizeof(struct plan_node) == 56, "struct plan_node grew: see plan.h");
_Static_assert(sizeof(struct plan_node_block) == 12, "struct plan_node_block grew: see plan.h");
#endif

const char *section_kind_name(enum section_kind k)
{
    switch (k) {
    case SECTION_PARSED:
        return "parsed";
    case SECTION_ANALYZED:
        return "analyzed";
    case SECTION_OPTIMIZED:
        return "optimized";
    case SECTION_PHYSICAL:
        return "physical";
    case SECTION_SUBQUERY:
        return "subquery";
    case SECTION_CODEGEN:
        return "codegen";
    }
    return "physical";
}

struct document *document_new(const char *name, char *bytes, size_t len)
{
    struct document *doc = calloc(1, sizeof *doc);
    if (!doc) {
        free(bytes);
        return NULL;
    }
    arena_init(&doc->arena);
    source_init(&doc->src, bytes, len, false);
    doc->name = arena_strdup(&doc->arena, name ? name : "stdin");
    if (!doc->name) {
        document_free(doc);
        return NULL;
    }
    return doc;
}

static void store_free(struct plan_store *st);

/* For the rare half of a function asked once a node (its common half is inlined). */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#define ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define NOINLINE
#define ALWAYS_INLINE inline
#endif

/* Documents freed so far: plan_node_detail's per-thread split goes stale when it moves. */
static atomic_uint freed_documents;

static void by_id_free(struct plan *p);

void document_free(struct document *doc)
{
    if (!doc)
        return;
    atomic_fetch_add_explicit(&freed_documents, 1, memory_order_relaxed);
    plan_order_discard(doc);
    for (struct plan *p = doc->first_plan; p; p = p->next)
        by_id_free(p);
    store_free(&doc->nodes);
    store_free(&doc->blocks);
    free(doc->far_);
    free(doc->far_blocks);
    arena_free(&doc->arena);
    source_free(&doc->src);
    free(doc);
}

struct plan *document_add_plan(struct document *doc, uint32_t line)
{
    struct plan *p = arena_alloc(&doc->arena, sizeof *p);
    if (!p)
        return NULL;
    p->line = line;
    p->is_final = -1;
    p->source.execution_count = -1;
    p->doc = doc;
    if (doc->last_plan)
        doc->last_plan->next = p;
    else
        doc->first_plan = p;
    doc->last_plan = p;
    doc->n_plans++;
    return p;
}

struct plan_section *plan_add_section(struct plan *p, enum section_kind kind, struct slice title,
                                      uint32_t line)
{
    struct plan_section *s = arena_alloc(&p->doc->arena, sizeof *s);
    if (!s)
        return NULL;
    s->kind = kind;
    s->title = title;
    s->line = line;
    s->plan = p;
    s->text_ = p->doc->src.text;
    if (p->last_section)
        p->last_section->next = s;
    else
        p->first_section = s;
    p->last_section = s;
    p->n_sections++;
    return s;
}

/* ---- the node store ----------------------------------------------------------------------
 * Address space is reserved for as many nodes as the document's text can hold (a node is a
 * line of at least two bytes, "x\n"; hand-built trees get 4M) and made usable as it fills:
 * nodes never move, so the parser keeps pointers to them while the array grows, and tree
 * links are 32-bit offsets.  The first 4 MB come in 64 KB steps of 4 KB pages (a pasted plan
 * costs no more than before), then steps of an eighth of what is used, readied as the arena
 * readies its big chunks (freshmem_prepare: huge pages where free).  A big text's store
 * skips the small steps: on the benchmark VM each 4 KB page's first fault costs about 12 us
 * (4 MB of them 12 ms, against 0.3 ms as two huge pages), and a text of 8 MB and more
 * nearly always holds megabytes of nodes, so a 2 MB first step wastes nothing that counts. */
#define STORE_HUGE ((size_t)2 << 20)
#define STORE_SMALL ((size_t)4 << 20)
#define STORE_MIN_NODES ((size_t)1 << 22)
#define STORE_ARENA_TEXT ((size_t)64 << 10) /* texts up to this size: the arena */
#define STORE_BIG_TEXT ((size_t)8 << 20)     /* texts from this size on: no small steps */
#define BLOCKS_FIRST_SMALL ((size_t)64 << 10) /* but the blocks' first 64 KB */

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* small: the bytes made usable in small steps first (STORE_SMALL, or 0 for a big text). */
static bool store_reserve(struct plan_store *st, size_t bytes, size_t small)
{
    bytes = round_up(bytes, STORE_HUGE);
    /* 2 MB alignment: huge pages line up with the steps past the small ones. */
    char *base = freshmem_reserve(bytes, STORE_HUGE, PROT_NONE, MAP_NORESERVE);
    if (!base)
        return false;
    st->base = base;
    st->reserved = bytes;
    st->committed = 0;
    st->small = small;
    return true;
}

/* store_commit's growth (rare: once in a 64 KB or 2 MB step). */
static NOINLINE bool store_grow(struct plan_store *st, size_t bytes)
{
    if (st->fence && bytes > st->fence) {
        /* The second thread stops writing past the fence; then the bytes are this one's. */
        st->fence_hit(st->fence_ctx);
        st->fence = 0;
    }
    if (bytes > st->reserved)
        return false;
    size_t to;
    if (bytes <= st->small) {
        to = round_up(bytes, (size_t)64 << 10);
    } else {
        size_t step = st->committed / 8 > STORE_HUGE ? st->committed / 8 : STORE_HUGE;
        size_t from = st->committed > st->small ? st->committed : st->small;
        to = round_up(bytes > from + step ? bytes : from + step, STORE_HUGE);
    }
    if (to > st->reserved)
        to = st->reserved;
    if (st->fence && to > st->fence)
        to = st->fence; /* (bytes fit: the fence is on a page) */
    if (mprotect(st->base + st->committed, to - st->committed, PROT_READ | PROT_WRITE) != 0)
        return false;
    if (to > st->small) {
        size_t from = st->committed > st->small ? st->committed : st->small;
        freshmem_prepare(st->base + from, to - from);
    }
    st->committed = to;
    return true;
}

/* At least `bytes` of the store usable (zeroed).  Asked once a node and once a block. */
static inline bool store_commit(struct plan_store *st, size_t bytes)
{
    return bytes <= st->committed || store_grow(st, bytes);
}

static void store_free(struct plan_store *st)
{
    if (st->base && !st->in_arena && !st->window)
        munmap(st->base, st->reserved);
    memset(st, 0, sizeof *st);
}

/* Nodes the document's text can hold. */
static size_t store_nodes(const struct document *doc)
{
    size_t n = doc->src.text_len / 2 + 1;
    return n > STORE_MIN_NODES ? n + STORE_MIN_NODES / 16 : STORE_MIN_NODES;
}

void plan_nodes_are_lines(struct document *doc)
{
    if (!doc->n_nodes_made && !doc->nodes.base)
        doc->nodes_are_lines = true;
}

/* Lines of a text with something other than blanks on them: no more nodes than that (a node
 * is a line, a label too); twice that and a few more for good measure. */
static size_t text_node_bound(const char *t, size_t len)
{
    size_t n = 8;
    bool filled = false;
    for (size_t i = 0; i < len; i++) { /* bound: the text, once (small texts only) */
        char c = t[i];
        if (c == '\n') {
            n += filled;
            filled = false;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            filled = true;
        }
    }
    return 2 * (n + filled);
}

/* The store of a small text's document: an array in its arena, as long as its text allows.
 * An event log holds thousands of plans: a reservation each would be thousands of mappings
 * (the kernel allows 65,530 a process), and a small plan needs no more than a few KB. */
static bool store_in_arena(struct document *doc, struct plan_store *st, size_t bytes)
{
    st->base = arena_alloc(&doc->arena, bytes);
    if (!st->base)
        return false;
    st->reserved = st->committed = bytes;
    st->in_arena = true;
    return true;
}

static bool nodes_store_init(struct document *doc)
{
    size_t len = doc->src.text_len;
    if (doc->nodes_are_lines && len && len <= STORE_ARENA_TEXT)
        return store_in_arena(doc, &doc->nodes,
                              text_node_bound(doc->src.text, len) * sizeof(struct plan_node));
    return store_reserve(&doc->nodes, store_nodes(doc) * sizeof(struct plan_node),
                         len >= STORE_BIG_TEXT ? 0 : STORE_SMALL);
}

size_t document_nodes_fence(struct document *doc, size_t nodes_before,
                            void (*fence_hit)(void *ctx), void *ctx)
{
    /* A small text's store is an array in the arena, as long as the text allows. */
    if (doc->src.text_len <= STORE_ARENA_TEXT || doc->n_nodes_made ||
        (!doc->nodes.base && !nodes_store_init(doc)) || doc->nodes.in_arena)
        return 0;
    if (nodes_before > SIZE_MAX / sizeof(struct plan_node) / 2)
        return 0;
    size_t at = round_up(nodes_before * sizeof(struct plan_node), STORE_HUGE);
    /* The part needs about as much room as doc up to the cut, and doc's store is reserved
       for many times the nodes the text can hold: a window short of that is no window. */
    if (!at || at < doc->nodes.committed || at >= doc->nodes.reserved / 2)
        return 0;
    doc->nodes.fence = at;
    doc->nodes.fence_hit = fence_hit;
    doc->nodes.fence_ctx = ctx;
    return at;
}

void document_nodes_window(struct document *part, const struct document *doc, size_t at)
{
    struct plan_store *st = &part->nodes;
    memset(st, 0, sizeof *st);
    st->base = doc->nodes.base + at;
    st->reserved = doc->nodes.reserved - at;
    st->window = true;
}

/* plan_node_new's body, inlined into plan_node_place too. */
static ALWAYS_INLINE struct plan_node *node_new(struct document *doc, struct plan_section *s)
{
    if (!doc->nodes.base && !nodes_store_init(doc))
        return NULL;
    size_t i = doc->n_nodes_made;
    if (i >= UINT32_MAX || !store_commit(&doc->nodes, (i + 1) * sizeof(struct plan_node)))
        return NULL;
    struct plan_node *n = (struct plan_node *)(void *)doc->nodes.base + i;
    memset(n, 0, sizeof *n); /* a dropped plan's node may have been here */
    n->stage = -1;
    n->id = -1;
    n->section = s;
    doc->n_nodes_made++;
    return n;
}

struct plan_node *plan_node_new(struct plan_section *s)
{
    return node_new(s->plan->doc, s);
}

void plan_nodes_take_back(struct document *doc, size_t mark)
{
    if (mark >= doc->n_nodes_made)
        return;
    if (doc->blocks.base) {
        size_t have = doc->blocks.committed / sizeof(struct plan_node_block);
        if (mark < have) {
            size_t end = doc->n_nodes_made < have ? doc->n_nodes_made : have;
            memset((struct plan_node_block *)(void *)doc->blocks.base + mark, 0,
                   (end - mark) * sizeof(struct plan_node_block));
        }
    }
    doc->n_nodes_made = mark;
}

static int32_t link_to(const struct plan_node *from, const struct plan_node *to)
{
    return to ? (int32_t)(to - from) : 0;
}

struct slice plan_node_far_text_(const struct plan_node *n)
{
    return n->section->plan->doc->far_[n->text_off_].text;
}

struct slice plan_node_far_name_(const struct plan_node *n)
{
    const struct plan_node_far *f = &n->section->plan->doc->far_[n->text_off_];
    return f->name.len ? f->name : slice_make(f->text.ptr, 0);
}

/* Text and name kept aside: a text out of the offsets' reach (a hand-built tree's beside a
 * text on the stack, one past 4 GB of text) or a name that is not a short way into it.  On
 * allocation failure the node keeps what fits (the name is lost, as it was before). */
static NOINLINE void node_set_far(struct plan_node *n, struct slice text, struct slice name)
{
    struct document *doc = n->section->plan->doc;
    size_t cap = doc->cap_far;
    if (doc->n_far == cap) {
        if (!grow_array((void **)&doc->far_, &cap, (size_t)doc->n_far + 1, sizeof *doc->far_) ||
            cap > UINT32_MAX) {
            n->name_off_ = 0;
            n->name_len_ = 0;
            return;
        }
        doc->cap_far = (uint32_t)cap;
    }
    doc->far_[doc->n_far] = (struct plan_node_far){text, name};
    n->text_off_ = doc->n_far++;
    n->text_len_ = 0;
    n->name_off_ = 0;
    n->name_len_ = PLAN_NAME_FAR;
}

void plan_node_set_text_(struct plan_node *n, struct slice text)
{
    if (n->name_len_ == PLAN_NAME_FAR) {
        n->section->plan->doc->far_[n->text_off_].text = text;
        return;
    }
    bool named = n->name_len_ != 0;
    struct slice name = plan_node_name(n);
    const char *base = n->section->text_;
    uintptr_t off = (uintptr_t)text.ptr - (uintptr_t)base;
    if (base && off < UINT32_MAX && text.len <= UINT32_MAX) {
        n->text_off_ = (uint32_t)off + 1;
        n->text_len_ = (uint32_t)text.len;
        n->name_off_ = 0;
        n->name_len_ = 0;
        if (named)
            plan_node_set_name(n, name);
        return;
    }
    node_set_far(n, text, named ? name : slice_make(NULL, 0));
}

void plan_node_set_name_(struct plan_node *n, struct slice name)
{
    if (n->name_len_ == PLAN_NAME_FAR) {
        n->section->plan->doc->far_[n->text_off_].name = name;
        return;
    }
    node_set_far(n, plan_node_text(n), name);
}

uint32_t plan_node_n_children(const struct plan_node *n)
{
    uint32_t k = 0;
    /* Bound: the node's children. */
    for (const struct plan_node *c = plan_node_first_child(n); c; c = plan_node_next_sibling(c))
        k++;
    return k;
}

static const struct plan_node_block *block_of(const struct plan_node *n)
{
    const struct document *doc = n->section->plan->doc;
    size_t i = plan_node_index(n);
    if (!doc->blocks.base || (i + 1) * sizeof(struct plan_node_block) > doc->blocks.committed)
        return NULL;
    return (const struct plan_node_block *)(const void *)doc->blocks.base + i;
}

/* plan_node_details_text is inline in plan.h: block_of's test, then the block. */

uint32_t plan_node_details_text_line(const struct plan_node *n)
{
    const struct plan_node_block *b = block_of(n);
    return b ? b->text_line : 0;
}

uint32_t plan_node_details_line(const struct plan_node *n)
{
    uint32_t t = plan_node_details_text_line(n);
    return t ? document_original_line(n->section->plan->doc, t) : 0;
}

/* A block out of the offsets' reach: kept aside (hand-built trees, past 4 GB of text). */
static NOINLINE bool block_set_far(struct document *doc, struct plan_node_block *b,
                                   struct slice text)
{
    if (b->off && b->len == UINT32_MAX) {
        doc->far_blocks[b->off - 1] = text;
        return true;
    }
    size_t cap = doc->cap_far_blocks;
    if (doc->n_far_blocks == cap) {
        if (!grow_array((void **)&doc->far_blocks, &cap, (size_t)doc->n_far_blocks + 1,
                        sizeof *doc->far_blocks) ||
            cap >= UINT32_MAX)
            return false;
        doc->cap_far_blocks = (uint32_t)cap;
    }
    doc->far_blocks[doc->n_far_blocks] = text;
    b->off = ++doc->n_far_blocks;
    b->len = UINT32_MAX;
    return true;
}

/* The blocks' store, beside the nodes' (made with the first block). */
static bool blocks_store_init(struct document *doc)
{
    size_t bytes = doc->nodes.reserved / sizeof(struct plan_node) * sizeof(struct plan_node_block);
    /* A big text's blocks start in 64 KB steps too: a plan of many small sections (the
       subqueries of a formatted plan) may have a block or two, not 2 MB of them. */
    size_t small = doc->nodes.small ? doc->nodes.small : BLOCKS_FIRST_SMALL;
    return doc->nodes.in_arena ? store_in_arena(doc, &doc->blocks, bytes)
                               : store_reserve(&doc->blocks, bytes, small);
}

bool plan_node_set_details(struct plan_node *n, struct slice text, uint32_t text_line)
{
    struct document *doc = n->section->plan->doc;
    if (!doc->blocks.base && !blocks_store_init(doc))
        return false;
    size_t i = plan_node_index(n);
    if (!store_commit(&doc->blocks, (i + 1) * sizeof(struct plan_node_block)))
        return false;
    struct plan_node_block *b = (struct plan_node_block *)(void *)doc->blocks.base + i;
    b->text_line = text_line;
    const char *base = n->section->text_;
    uintptr_t off = (uintptr_t)text.ptr - (uintptr_t)base;
    /* (a block kept aside stays aside: its len is UINT32_MAX, which no near block has) */
    if (off < UINT32_MAX && text.len < UINT32_MAX && b->len != UINT32_MAX && base) {
        b->off = (uint32_t)off + 1;
        b->len = (uint32_t)text.len;
        return true;
    }
    if (!text.ptr && !text.len) { /* no block (a text of none) */
        b->off = 0;
        b->len = 0;
        return true;
    }
    return block_set_far(doc, b, text);
}

void plan_node_append_child_after(struct plan_node *parent, struct plan_node *last,
                                  struct plan_node *child)
{
    child->parent_ = link_to(child, parent);
    child->next_sibling_ = 0;
    if (last)
        last->next_sibling_ = link_to(last, child);
    else
        parent->first_child_ = link_to(parent, child);
}

void plan_node_append_child(struct plan_node *parent, struct plan_node *child)
{
    struct plan_node *last = plan_node_first_child(parent);
    /* Bound: the parent's children (small trees only). */
    while (last && plan_node_next_sibling(last))
        last = plan_node_next_sibling(last);
    plan_node_append_child_after(parent, last, child);
}

void plan_section_append_root(struct plan_section *s, struct plan_node *root)
{
    root->parent_ = 0;
    root->next_sibling_ = 0;
    if (s->last_root)
        s->last_root->next_sibling_ = link_to(s->last_root, root);
    else
        s->first_root = root;
    s->last_root = root;
    s->n_roots++;
}

void document_warn(struct document *doc, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    struct plan_warning *w = arena_alloc(&doc->arena, sizeof *w);
    char *msg = arena_alloc(&doc->arena, (size_t)n + 1);
    if (!w || !msg)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
    w->line = line;
    w->message = msg;
    if (doc->last_warning)
        doc->last_warning->next = w;
    else
        doc->first_warning = w;
    doc->last_warning = w;
    doc->n_warnings++;
}

size_t document_model_bytes(const struct document *doc)
{
    size_t n = doc->nodes.in_arena ? 0 : doc->n_nodes_made; /* else counted in the arena */
    return doc->arena.used_bytes + n * sizeof(struct plan_node) +
           (doc->blocks.base ? n * sizeof(struct plan_node_block) : 0) +
           doc->cap_far * sizeof *doc->far_ + doc->cap_far_blocks * sizeof *doc->far_blocks;
}

uint32_t document_original_line(const struct document *doc, uint32_t text_line)
{
    return source_input_line(&doc->src, text_line);
}

/* Pre-order successor inside the node's section, without recursion. */
struct plan_node *plan_node_next_preorder(const struct plan_node *n)
{
    if (n->first_child_)
        return plan_node_first_child(n);
    return plan_node_next_skip_children(n);
}

struct plan_node *plan_node_next_skip_children(const struct plan_node *n)
{
    while (n) {
        if (n->next_sibling_)
            return plan_node_next_sibling(n);
        n = plan_node_parent(n);
    }
    return NULL;
}

/* Input order: the original line, then the place in doc->src.text (clean-up may split one
 * line into several text lines, and a text line holds at most one node). */
static NOINLINE int compare_nodes_on_a_line(const struct plan_node *x, const struct plan_node *y)
{
    const char *xt = plan_node_text(x).ptr, *yt = plan_node_text(y).ptr;
    if (xt != yt)
        return (uintptr_t)xt < (uintptr_t)yt ? -1 : 1;
    return (uintptr_t)x < (uintptr_t)y ? -1 : (x > y);
}

static int compare_nodes(const struct plan_node *x, const struct plan_node *y)
{
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return compare_nodes_on_a_line(x, y); /* (rare: out of line, order_settle stays inline) */
}

/* ---- finishing: depths, subtree sizes, pre-order, by_id, input order ---------------------- */

static struct plan_node *node_base(const struct document *doc)
{
    return (struct plan_node *)(void *)doc->nodes.base;
}

/* A plan's by_id from this size on has a mapping of its own. */
#define BY_ID_MAPPED ((size_t)1 << 20)

static void by_id_free(struct plan *p)
{
    if (p->by_id_mapped)
        munmap(p->by_id, p->by_id_mapped);
    p->by_id_mapped = 0;
    p->by_id = NULL;
    p->by_id_len = 0;
}

/* by_id of every plan, from the finishing order: ids[i] is the id of node i of the store
 * (the record's, which kept them as the nodes were made) or, without ids, read from the
 * nodes walked in finishing order.  keep_given: the record holds, and a plan the reader gave
 * its by_id (plan_give_by_id) keeps it. */
static bool set_by_id(struct document *doc, const int32_t *ids, bool keep_given)
{
    size_t total = doc->n_all_nodes, off = 0;
    for (struct plan *p = doc->first_plan; p; p = p->next) {
        if (p->by_id_given) {
            if (keep_given) {
                for (struct plan_section *s = p->first_section; s; s = s->next)
                    off += s->n_nodes;
                /* Ids come from the input: the cap below. */
                if (p->by_id_len && (size_t)p->by_id_len - 1 >= 4 * (total + 16))
                    by_id_free(p);
                continue;
            }
            by_id_free(p);
            p->by_id_given = false;
        }
        int32_t max_id = -1;
        size_t plan_start = off;
        /* Bound: the plan's nodes, twice. */
        for (struct plan_section *s = p->first_section; s; s = s->next)
            for (uint32_t k = 0; k < s->n_nodes; k++, off++) {
                int32_t id = ids ? ids[off] : plan_section_node(s, k)->id;
                if (id > max_id)
                    max_id = id;
            }
        /* Ids come from the input: cap the table so "(999999999)" cannot eat memory. */
        if (max_id < 0 || (size_t)max_id >= 4 * (total + 16))
            continue;
        by_id_free(p);
        p->by_id_len = (uint32_t)max_id + 1;
        size_t bytes = p->by_id_len * sizeof *p->by_id;
        /* A million ids take 4 MB: from the arena that was a calloc, a 4 KB page fault every
           1,024 ids (12 ms on the benchmark VM); mapped, huge pages or one call. */
        if (bytes >= BY_ID_MAPPED)
            p->by_id = freshmem_map(bytes, &p->by_id_mapped);
        else
            p->by_id = arena_alloc(&doc->arena, bytes);
        if (!p->by_id)
            return false;
        size_t i = plan_start;
        /* The first node printed wins. */
        for (struct plan_section *s = p->first_section; s; s = s->next)
            for (uint32_t k = 0; k < s->n_nodes; k++, i++) {
                const struct plan_node *n = ids ? NULL : plan_section_node(s, k);
                int32_t id = ids ? ids[i] : n->id;
                if (id >= 0 && !p->by_id[id])
                    p->by_id[id] = (uint32_t)(ids ? i : plan_node_index(n)) + 1;
            }
    }
    return true;
}

bool plan_give_by_id(struct plan *p, uint32_t *ids, uint32_t len, size_t mapped_len)
{
    by_id_free(p);
    p->by_id_given = false;
    if (!len) { /* no ids: no table */
        p->by_id_given = true;
        return false;
    }
    if (mapped_len) {
        p->by_id = ids;
        p->by_id_len = len;
        p->by_id_mapped = mapped_len;
        p->by_id_given = true;
        return true;
    }
    size_t bytes = (size_t)len * sizeof *p->by_id;
    uint32_t *t = bytes >= BY_ID_MAPPED ? freshmem_map(bytes, &p->by_id_mapped)
                                        : arena_alloc(&p->doc->arena, bytes);
    if (!t)
        return false; /* document_finish makes it */
    memcpy(t, ids, bytes);
    p->by_id = t;
    p->by_id_len = len;
    p->by_id_given = true;
    return false;
}

static int compare_node_line(const void *a, const void *b)
{
    return compare_nodes(*(const struct plan_node *const *)a, *(const struct plan_node *const *)b);
}

/* all_nodes_ when input order is not the order made: the finishing order, sorted by line
 * when it is not in input order either. */
static bool set_all_nodes_(struct document *doc, bool sorted)
{
    size_t total = doc->n_all_nodes, i = 0;
    doc->all_nodes_ = arena_alloc(&doc->arena, (total ? total : 1) * sizeof *doc->all_nodes_);
    if (!doc->all_nodes_)
        return false;
    for (struct plan *p = doc->first_plan; p; p = p->next)
        for (struct plan_section *s = p->first_section; s; s = s->next)
            for (uint32_t k = 0; k < s->n_nodes; k++) /* bound: every node once */
                doc->all_nodes_[i++] = plan_section_node(s, k);
    if (!sorted)
        qsort(doc->all_nodes_, total, sizeof *doc->all_nodes_, compare_node_line);
    return true;
}

/* One walk over the section: depths, its count, whether it is one stretch of the store in
 * pre-order; then subtree sizes in one reverse pass (children before parents), over the
 * stretch or over a pre-order array made for it.  *sorted and *last accumulate over the
 * document; *in_store is the store index the next section must start at for the store to be
 * the finishing order (SIZE_MAX once it is not). */
static bool section_finish(struct document *doc, struct plan_section *s,
                           const struct plan_node **last, bool *sorted, size_t *in_store)
{
    struct plan_node *first = s->first_root;
    uint32_t count = 0;
    bool stretch = true;
    for (struct plan_node *n = first; n; n = plan_node_next_preorder(n)) {
        struct plan_node *parent = plan_node_parent(n);
        n->depth = parent ? parent->depth + 1 : 0;
        n->subtree_size = 0;
        if (n != first + count)
            stretch = false;
        if (*last && compare_nodes(*last, n) > 0)
            *sorted = false;
        *last = n;
        count++;
    }
    s->n_nodes = count;
    s->first_node = first;
    s->preorder_ = NULL;
    if (*in_store != SIZE_MAX)
        *in_store = stretch && (!count || plan_node_index(first) == *in_store)
                        ? *in_store + count : SIZE_MAX;
    if (!stretch) {
        s->preorder_ = arena_alloc(&doc->arena, (count ? count : 1) * sizeof *s->preorder_);
        if (!s->preorder_)
            return false;
        if (!doc->pre_ix) {
            doc->pre_ix = arena_alloc(&doc->arena, (doc->n_nodes_made + 1) * sizeof *doc->pre_ix);
            if (!doc->pre_ix)
                return false;
        }
        uint32_t k = 0;
        for (struct plan_node *n = first; n; n = plan_node_next_preorder(n), k++) {
            s->preorder_[k] = n;
            doc->pre_ix[plan_node_index(n)] = k;
        }
    }
    for (uint32_t k = count; k-- > 0;) {
        struct plan_node *n = plan_section_node(s, k);
        struct plan_node *parent = plan_node_parent(n);
        if (parent)
            parent->subtree_size += n->subtree_size + 1;
    }
    return true;
}

/* ---- the builder's record of node order ------------------------------------------------ */

struct plan_order {
    size_t n;                   /* nodes recorded: the store's first n, in the order made (=
                                   finishing order while the record holds) */
    int32_t *ids;               /* ids[i]: node i's id, read once the node is filled (settle) */
    size_t cap_ids;
    bool ids_mapped;            /* ids is a freshmem_record of cap_ids, not malloc's */
    size_t settled;             /* nodes [0, settled) have their id read and were compared */
    size_t first_unsorted;      /* first i with node i-1 after node i in the input, or
                                   SIZE_MAX: all_nodes_ is needed only then */
    struct plan_node **path;    /* the last node made and its ancestors, root first */
    size_t n_path, cap_path;
    struct plan_section *section;  /* the section of the last node made */
    size_t sec_start;           /* its first node's index */
    size_t plan_mark;           /* the current plan's first node's index */
    bool broken;                /* a node went in out of pre-order: the walk decides */
};

static bool order_enabled = true;

void plan_order_enable(bool on)
{
    order_enabled = on;
}

bool plan_order_begin(struct document *doc)
{
    if (!order_enabled)
        return false;
    if (doc->order || doc->n_nodes_made)
        return doc->order != NULL;
    doc->order = calloc(1, sizeof *doc->order);
    if (doc->order)
        doc->order->first_unsorted = SIZE_MAX;
    return doc->order != NULL;
}

void plan_order_discard(struct document *doc)
{
    struct plan_order *o = doc->order;
    if (!o)
        return;
    if (o->ids_mapped)
        freshmem_unmap(o->ids, o->cap_ids * sizeof *o->ids);
    else
        free(o->ids);
    free(o->path);
    free(o);
    doc->order = NULL;
}

/* The first id: from here on ids are kept (a plan without "(N)" ids, the simple mode, keeps
 * none: 4 bytes an operator less at the model's peak).  For a big text's store the array is
 * a record as long as the store can hold nodes (address space; its pages present as written,
 * as huge pages where cheap): grown by realloc it was a 4 KB page fault every 1,024 nodes
 * (about 12 ms for a million on the benchmark VM). */
static NOINLINE bool order_ids_start(const struct document *doc, struct plan_order *o,
                                     size_t upto)
{
    size_t most = doc->nodes.reserved / sizeof(struct plan_node);
    if (doc->nodes.base && !doc->nodes.in_arena && !doc->nodes.small && most > upto) {
        o->ids = freshmem_record(most * sizeof *o->ids);
        if (o->ids) {
            o->cap_ids = most;
            o->ids_mapped = true;
        }
    }
    if (!o->ids && !grow_array((void **)&o->ids, &o->cap_ids, upto + 1, sizeof *o->ids))
        return false;
    for (size_t i = 0; i < upto; i++) /* bound: the nodes before the first id */
        o->ids[i] = -1;
    return true;
}

/* Reads the ids of the nodes made since the last call (filled by now) and compares each
 * with the node before it.  Inline: called once a node, for one node, it costs less than its
 * call did. */
static inline void order_settle(struct document *doc, struct plan_order *o)
{
    const struct plan_node *base = node_base(doc);
    /* Bound: the nodes made since the last call (one, as the builder calls it). */
    for (size_t i = o->settled; i < o->n; i++) {
        int32_t id = base[i].id;
        if (id >= 0 && !o->ids && !doc->by_id_from_reader && !order_ids_start(doc, o, i)) {
            o->broken = true;
            return;
        }
        if (o->ids) {
            if (i >= o->cap_ids &&
                (o->ids_mapped ||
                 !grow_array((void **)&o->ids, &o->cap_ids, i + 1, sizeof *o->ids))) {
                o->broken = true;
                return;
            }
            o->ids[i] = id;
        }
        if (i > 0 && o->first_unsorted == SIZE_MAX && compare_nodes(&base[i - 1], &base[i]) > 0)
            o->first_unsorted = i;
    }
    o->settled = o->n;
}

/* The nodes on the path above depth `keep` are complete: each one's subtree is the nodes
 * made after it. */
static void order_close_path(struct document *doc, struct plan_order *o, size_t keep)
{
    while (o->n_path > keep) {
        struct plan_node *x = o->path[--o->n_path];
        /* (the index from the document's base: plan_node_index goes through the node's
           section and plan to find it) */
        x->subtree_size = (uint32_t)(o->n - (size_t)(x - node_base(doc)) - 1);
    }
}

static void order_end_section(struct document *doc, struct plan_order *o)
{
    order_close_path(doc, o, 0);
    if (o->section)
        o->section->n_nodes = (uint32_t)(o->n - o->sec_start);
    o->section = NULL;
}

/* plan_order_node's body for a node whose parent is known (NULL: a root), inlined into
 * plan_node_place too. */
static ALWAYS_INLINE void order_node(struct document *doc, struct plan_order *o,
                                     struct plan_node *n, struct plan_node *parent)
{
    order_settle(doc, o);
    if (o->broken)
        return;
    if ((size_t)(n - node_base(doc)) != o->n) {
        o->broken = true; /* made by someone else too: the walk decides */
        return;
    }
    if (n->section != o->section) {
        order_end_section(doc, o);
        o->section = n->section;
        o->sec_start = o->n;
        n->section->first_node = n;
        n->section->preorder_ = NULL;
    }
    /* Bound: each node leaves the path once. */
    size_t keep = o->n_path;
    while (keep && o->path[keep - 1] != parent)
        keep--;
    if (parent && !keep) {
        o->broken = true; /* its parent is not on the path: not pre-order */
        return;
    }
    order_close_path(doc, o, keep);
    if (o->n_path == o->cap_path &&
        !grow_array((void **)&o->path, &o->cap_path, o->n_path + 1, sizeof *o->path)) {
        o->broken = true;
        return;
    }
    n->depth = parent ? parent->depth + 1 : 0;
    n->subtree_size = 0;
    o->path[o->n_path++] = n;
    o->n++;
}

void plan_order_node(struct document *doc, struct plan_node *n)
{
    struct plan_order *o = doc->order;
    if (o && !o->broken)
        order_node(doc, o, n, plan_node_parent(n));
}

/* plan_node_new, the link (plan_node_append_child_after or plan_section_append_root) and
 * plan_order_node in one: the builder's build_node, once a node of every plan read (a
 * million times for the biggest), paid three calls and reloaded the document, the record
 * and the node's parent in each (about 60 instructions a node). */
struct plan_node *plan_node_place(struct plan_section *s, struct plan_node *parent,
                                  struct plan_node *after)
{
    struct document *doc = s->plan->doc;
    struct plan_node *n = node_new(doc, s);
    if (!n)
        return NULL;
    if (parent)
        plan_node_append_child_after(parent, after, n);
    else
        plan_section_append_root(s, n);
    struct plan_order *o = doc->order;
    if (o && !o->broken)
        order_node(doc, o, n, parent);
    return n;
}

void plan_order_plan_begin(struct document *doc)
{
    struct plan_order *o = doc->order;
    if (o && !o->broken) {
        order_end_section(doc, o);
        o->plan_mark = o->n;
    }
}

void plan_order_plan_dropped(struct document *doc)
{
    struct plan_order *o = doc->order;
    if (!o || o->broken)
        return;
    o->n_path = 0;
    o->section = NULL;
    o->n = o->plan_mark;
    if (o->settled > o->n)
        o->settled = o->n;
    if (o->first_unsorted != SIZE_MAX && o->first_unsorted >= o->n)
        o->first_unsorted = SIZE_MAX;
}

void plan_order_id_changed(struct document *doc, const struct plan_node *n)
{
    struct plan_order *o = doc->order;
    if (!o || o->broken)
        return;
    size_t i = plan_node_index(n);
    if (i < o->settled && o->ids)
        o->ids[i] = n->id;
}

/* document_finish from the record: what the walk would find, without reading the nodes.
 * Returns false when the record cannot answer (the walk then runs). */
static bool finish_from_order(struct document *doc, bool *ok)
{
    struct plan_order *o = doc->order;
    *ok = false;
    if (!o || o->broken || o->n != doc->n_nodes_made)
        return false;
    order_settle(doc, o);
    if (o->broken)
        return false;
    order_end_section(doc, o);
    doc->n_all_nodes = o->n;
    doc->all_nodes_ = NULL;
    /* No ids kept: no node has one (the simple mode), and no node is read again; or the
       reader gave its plans their by_id (those it could not are read from their nodes). */
    if ((o->ids || doc->by_id_from_reader) && !set_by_id(doc, o->ids, true))
        return true;
    if (o->first_unsorted != SIZE_MAX && !set_all_nodes_(doc, false))
        return true;
    *ok = true;
    return true;
}

bool document_finish(struct document *doc)
{
    bool fast_ok;
    if (finish_from_order(doc, &fast_ok)) {
        plan_order_discard(doc);
        return fast_ok;
    }
    plan_order_discard(doc);
    doc->all_nodes_ = NULL;
    doc->pre_ix = NULL;
    bool sorted = true;
    size_t in_store = 0, total = 0;
    const struct plan_node *last = NULL;
    for (struct plan *p = doc->first_plan; p; p = p->next)
        for (struct plan_section *s = p->first_section; s; s = s->next) {
            if (!section_finish(doc, s, &last, &sorted, &in_store))
                return false;
            total += s->n_nodes;
        }
    doc->n_all_nodes = total;
    if (!set_by_id(doc, NULL, false))
        return false;
    /* Nodes are made in input order almost always: the store is then all_nodes_. */
    if ((!sorted || in_store != doc->n_nodes_made) && !set_all_nodes_(doc, sorted))
        return false;
    return true;
}

/* ---- appending a document read from the same text ------------------------------------ */

/* The record after `part`'s nodes were appended to doc's (from index n0): what it would be
 * had doc's builder made them.  doc's last section ends (the part's first plan would have
 * ended it); the part's record follows, its indices moved by n0.  False when either record
 * cannot answer: the walk then finishes the whole document. */
static bool order_append(struct document *doc, struct document *part, size_t n0)
{
    struct plan_order *o = doc->order, *q = part->order;
    if (!o || !q || o->broken || q->broken || o->ids || q->ids || o->n != n0 ||
        q->n != part->n_nodes_made)
        return false;
    order_settle(doc, o);
    order_end_section(doc, o);
    struct plan_node *base = node_base(doc);
    if (q->n_path > o->cap_path &&
        !grow_array((void **)&o->path, &o->cap_path, q->n_path, sizeof *o->path))
        return false;
    /* Bound: the part's open path. */
    for (size_t k = 0; k < q->n_path; k++)
        o->path[k] = base + n0 + (size_t)(q->path[k] - node_base(part));
    o->n_path = q->n_path;
    if (o->first_unsorted == SIZE_MAX && q->n && n0 && compare_nodes(&base[n0 - 1], &base[n0]) > 0)
        o->first_unsorted = n0;
    if (o->first_unsorted == SIZE_MAX && q->first_unsorted != SIZE_MAX)
        o->first_unsorted = n0 + q->first_unsorted;
    o->n = n0 + q->n;
    o->settled = n0 + q->settled;
    o->section = q->section;
    o->sec_start = n0 + q->sec_start;
    o->plan_mark = n0 + q->plan_mark;
    return true;
}

/* A node of part's store, at its place in doc's (from index n0). */
static struct plan_node *moved_node(const struct document *doc, const struct document *part,
                                    size_t n0, const struct plan_node *n)
{
    return n ? node_base(doc) + n0 + (size_t)(n - node_base(part)) : NULL;
}

bool document_append(struct document *doc, struct document *part)
{
    size_t n0 = doc->n_nodes_made, m = part->n_nodes_made;
    if (doc->src.text != part->src.text || doc->src.text_len != part->src.text_len ||
        n0 + m >= UINT32_MAX)
        return false;
    /* The nodes, their blocks and what the offsets could not reach. */
    if (m && !doc->nodes.base && !nodes_store_init(doc))
        return false;
    if (m && !store_commit(&doc->nodes, (n0 + m) * sizeof(struct plan_node)))
        return false;
    size_t part_blocks = part->blocks.base ? part->blocks.committed / sizeof(struct plan_node_block) : 0;
    if (part_blocks > m)
        part_blocks = m;
    if (part_blocks && ((!doc->blocks.base && !blocks_store_init(doc)) ||
                        !store_commit(&doc->blocks, (n0 + part_blocks) * sizeof(struct plan_node_block))))
        return false;
    if (part->n_far) {
        size_t cap = doc->cap_far;
        if (!grow_array((void **)&doc->far_, &cap, (size_t)doc->n_far + part->n_far,
                        sizeof *doc->far_) ||
            cap > UINT32_MAX)
            return false;
        doc->cap_far = (uint32_t)cap;
    }
    if (part->n_far_blocks) {
        size_t cap = doc->cap_far_blocks;
        if (!grow_array((void **)&doc->far_blocks, &cap,
                        (size_t)doc->n_far_blocks + part->n_far_blocks, sizeof *doc->far_blocks) ||
            cap >= UINT32_MAX)
            return false;
        doc->cap_far_blocks = (uint32_t)cap;
    }
    struct plan_node *to = node_base(doc) + n0;
    /* Tree links are offsets between nodes of one store: they hold in the copy. */
    if (m)
        memcpy(to, node_base(part), m * sizeof *to);
    if (part_blocks)
        memcpy((struct plan_node_block *)(void *)doc->blocks.base + n0, part->blocks.base,
               part_blocks * sizeof(struct plan_node_block));
    if (part->n_far) {
        memcpy(doc->far_ + doc->n_far, part->far_, part->n_far * sizeof *doc->far_);
        /* Bound: the part's nodes, once (only when some were kept aside). */
        for (size_t i = 0; i < m; i++)
            if (to[i].name_len_ == PLAN_NAME_FAR)
                to[i].text_off_ += doc->n_far;
        doc->n_far += part->n_far;
    }
    if (part->n_far_blocks) {
        memcpy(doc->far_blocks + doc->n_far_blocks, part->far_blocks,
               part->n_far_blocks * sizeof *doc->far_blocks);
        struct plan_node_block *b = (struct plan_node_block *)(void *)doc->blocks.base + n0;
        for (size_t i = 0; i < part_blocks; i++) /* bound: the part's blocks, once */
            if (b[i].off && b[i].len == UINT32_MAX)
                b[i].off += doc->n_far_blocks;
        doc->n_far_blocks += part->n_far_blocks;
    }
    bool ordered = order_append(doc, part, n0);
    doc->n_nodes_made = n0 + m;
    /* Plans and sections stay where they are (the part's arena becomes doc's); what points
       to nodes moves with them. */
    for (struct plan *p = part->first_plan; p; p = p->next) {
        p->doc = doc;
        for (uint32_t k = 0; k < p->by_id_len; k++) /* bound: the plan's ids, once */
            if (p->by_id[k])
                p->by_id[k] += (uint32_t)n0;
        for (struct plan_section *s = p->first_section; s; s = s->next) {
            s->first_root = moved_node(doc, part, n0, s->first_root);
            s->last_root = moved_node(doc, part, n0, s->last_root);
            s->first_node = moved_node(doc, part, n0, s->first_node);
        }
    }
    if (part->first_plan) {
        if (doc->last_plan)
            doc->last_plan->next = part->first_plan;
        else
            doc->first_plan = part->first_plan;
        doc->last_plan = part->last_plan;
        doc->n_plans += part->n_plans;
    }
    if (part->first_warning) {
        if (doc->last_warning)
            doc->last_warning->next = part->first_warning;
        else
            doc->first_warning = part->first_warning;
        doc->last_warning = part->last_warning;
        doc->n_warnings += part->n_warnings;
    }
    part->first_plan = part->last_plan = NULL;
    part->n_plans = 0;
    part->first_warning = part->last_warning = NULL;
    part->n_warnings = 0;
    arena_adopt(&doc->arena, &part->arena);
    if (!ordered)
        plan_order_discard(doc);
    return true;
}

/* ---- grafting a tree's back part read on a second thread ------------------------------ */

/* What document_graft reads of a stand-in, read before the part's nodes move: moved within
   doc's store (document_nodes_window), they are written over the stand-ins. */
struct graft_stand_in {
    size_t first; /* its first real child (part's index), SIZE_MAX: none */
    uint32_t subtree_size;
};

/* The record after a graft (document_graft): doc's nodes at[0..k-1] were its path; the part's
 * nodes 0..k-1 stood in for them and the part's nodes from k on follow doc's from n0.  The
 * stand-ins that left the part's path are closed as they were there (their subtree ends at
 * the same real node); those still on it stay on doc's, with the part's real path after
 * them.  False when either record cannot answer (doc's record is then given up). */
static bool order_graft(struct document *doc, struct document *part,
                        struct plan_node *const *at, size_t k, size_t n0,
                        const struct graft_stand_in *stand)
{
    struct plan_order *o = doc->order, *q = part->order;
    if (!o || !q || o->broken || q->broken || o->ids || q->ids || o->n != n0 ||
        q->n != part->n_nodes_made || o->n_path != k || q->n < k)
        return false;
    struct plan_node *base = node_base(doc), *pbase = node_base(part);
    for (size_t d = 0; d < k; d++) /* bound: the path, once */
        if (o->path[d] != at[d])
            return false;
    order_settle(doc, o);
    order_settle(part, q);
    if (o->broken || q->broken)
        return false;
    size_t stay = 0;
    /* Bound: the part's path, once. */
    while (stay < q->n_path && stay < k && q->path[stay] == pbase + stay)
        stay++;
    for (size_t d = stay; d < k; d++) { /* bound: the stand-ins, once */
        size_t closed_at = (size_t)stand[d].subtree_size + d + 1; /* q->n then */
        at[d]->subtree_size = (uint32_t)(n0 + closed_at - k - (size_t)(at[d] - base) - 1);
    }
    size_t n_path = stay + (q->n_path - stay);
    if (n_path > o->cap_path &&
        !grow_array((void **)&o->path, &o->cap_path, n_path, sizeof *o->path))
        return false;
    o->n_path = stay;
    for (size_t j = stay; j < q->n_path; j++) /* bound: the part's path, once */
        o->path[o->n_path++] = base + n0 + (size_t)(q->path[j] - pbase) - k;
    size_t m = q->n - k;
    if (o->first_unsorted == SIZE_MAX && m && n0 && compare_nodes(&base[n0 - 1], &base[n0]) > 0)
        o->first_unsorted = n0;
    if (o->first_unsorted == SIZE_MAX && q->first_unsorted != SIZE_MAX && q->first_unsorted > k)
        o->first_unsorted = n0 + q->first_unsorted - k;
    o->n = n0 + m;
    o->settled = o->n;
    return true;
}

/* Hangs the real nodes of one stand-in's child list (from c, the first one moved to doc, on
   by next_sibling_) under doc's node r, after its last child `after` (NULL: none yet). */
static void graft_children(struct plan_node *r, struct plan_node *after, struct plan_node *c)
{
    if (!c)
        return;
    if (after)
        after->next_sibling_ = (int32_t)(c - after);
    else
        r->first_child_ = (int32_t)(c - r);
    /* Bound: the stand-in's children, once.  Walked over the copies (links are offsets, the
       same there): the part's own nodes may be let go already (move_nodes). */
    for (struct plan_node *y = c; y; y = plan_node_next_sibling(y))
        y->parent_ = (int32_t)(r - y);
}

/* The part's real nodes copied to their place in doc, a chunk at a time, each chunk's pages
   given back once copied (from, a store of its own, is not read again): the two copies of
   a big part never hold memory at once, so the graft adds nothing to the load's peak (half
   the plan's nodes, 32 MB at a million operators, did before). */
#define MOVE_CHUNK ((size_t)2 << 20)
#define MOVE_PAGE ((uintptr_t)4096)
static void move_nodes(struct plan_node *to, const struct plan_node *from, size_t n,
                       const struct plan_store *st)
{
    const char *src = (const char *)from, *end = src + n * sizeof *from;
    char *dst = (char *)to;
    /* From the first page wholly the part's real nodes: the stand-ins before stay. */
    uintptr_t released = ((uintptr_t)src + MOVE_PAGE - 1) / MOVE_PAGE * MOVE_PAGE;
    /* Bound: the part's bytes, once, a chunk a round. */
    while (src < end) {
        size_t len = (size_t)(end - src) < MOVE_CHUNK ? (size_t)(end - src) : MOVE_CHUNK;
        memcpy(dst, src, len);
        dst += len;
        src += len;
        uintptr_t copied = (uintptr_t)src / MOVE_PAGE * MOVE_PAGE;
        if (!st->in_arena && copied > released) {
            (void)madvise((void *)released, copied - released, MADV_DONTNEED);
            released = copied;
        }
    }
}

bool document_graft(struct document *doc, struct document *part, struct plan_node *const *at,
                    size_t k, uint32_t line_shift)
{
    size_t n0 = doc->n_nodes_made, all = part->n_nodes_made;
    if (!k || all <= k || !at[0] || doc->src.text != part->src.text ||
        n0 + all >= UINT32_MAX || part->n_far || part->n_far_blocks || part->blocks.base ||
        part->first_warning)
        return false;
    struct plan_node *pbase = node_base(part);
    struct plan_section *sec = at[0]->section, *psec = pbase[0].section;
    if (sec->text_ != psec->text_ || psec->first_root != pbase || psec->last_root != pbase ||
        plan_node_next_sibling(pbase) || psec->n_elided)
        return false;
    for (size_t d = 1; d < k; d++) /* bound: the stand-ins, once */
        if (plan_node_parent(&pbase[d]) != &pbase[d - 1] || !at[d] ||
            plan_node_parent(at[d]) != at[d - 1])
            return false;
    size_t m = all - k;
    bool window = part->nodes.window;
    if (window && (part->nodes.base != doc->nodes.base + doc->nodes.fence ||
                   pbase + k < node_base(doc) + n0))
        return false; /* (the fence was lifted: doc's nodes are over the part's) */
    struct graft_stand_in *stand = malloc(k * sizeof *stand);
    if (!stand)
        return false;
    /* Each stand-in's real children go under the node it stood for, after its last child
       (the next stand-in, or none under the deepest). */
    for (size_t d = 0; d < k; d++) { /* bound: the stand-ins, once */
        struct plan_node *first = d + 1 < k ? plan_node_next_sibling(&pbase[d + 1])
                                            : plan_node_first_child(&pbase[d]);
        stand[d].first = first ? (size_t)(first - pbase) : SIZE_MAX;
        stand[d].subtree_size = pbase[d].subtree_size;
    }
    /* The part's nodes are past the fence: doc's may go there now. */
    doc->nodes.fence = 0;
    if (!store_commit(&doc->nodes, (n0 + m) * sizeof(struct plan_node))) {
        free(stand);
        return false;
    }
    /* The part's record read up to its last node while its nodes are there (order_graft). */
    if (part->order && !part->order->broken)
        order_settle(part, part->order);
    struct plan_node *to = node_base(doc) + n0;
    if (window)
        memmove(to, pbase + k, m * sizeof *to); /* a few places down, in memory made */
    else
        move_nodes(to, pbase + k, m, &part->nodes);
    for (size_t i = 0; i < m; i++) { /* bound: the part's nodes, once */
        to[i].section = sec;
        to[i].line += line_shift;
    }
    for (size_t d = 0; d < k; d++) /* bound: the stand-ins, once */
        graft_children(at[d], d + 1 < k ? at[d + 1] : NULL,
                       stand[d].first == SIZE_MAX ? NULL : to + stand[d].first - k);
    bool ordered = order_graft(doc, part, at, k, n0, stand);
    free(stand);
    doc->n_nodes_made = n0 + m;
    if (!ordered)
        plan_order_discard(doc);
    return true;
}

struct plan_node *plan_node_find_by_id(const struct plan *p, int32_t id)
{
    if (id >= 0 && (uint32_t)id < p->by_id_len && p->by_id[id])
        return node_base(p->doc) + (p->by_id[id] - 1);
    if (id < 0 || p->by_id)
        return NULL;
    /* No table (ids too sparse): linear scan. */
    for (struct plan_section *s = p->first_section; s; s = s->next)
        for (uint32_t i = 0; i < s->n_nodes; i++)
            if (plan_section_node(s, i)->id == id)
                return plan_section_node(s, i);
    return NULL;
}

struct plan_node *document_node_at_line(const struct document *doc, uint32_t line)
{
    size_t lo = 0, hi = doc->n_all_nodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (document_node(doc, mid)->line <= line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? document_node(doc, lo - 1) : NULL;
}

/* ---- details fields, on demand ------------------------------------------------------- */

/* The parser's view of a line inside a details block (parse.c: one_line, block_line).  Only
 * lines the parser fed to the block lie inside details_text: after the header, blank lines,
 * lines with a tree prefix (skipped) and unprefixed lines, each a new field or more of the
 * last field's value. */
enum block_line { BL_BLANK, BL_SKIP, BL_TEXT };

static inline enum block_line classify_block_line(const struct document *doc, uint32_t lno,
                                           const char *ls, const char *le, const char **rest)
{
    /* Most lines of a block start with a field's key: no tree prefix can start there (none
       of ' ', ':', '+'), no blank, and without the clean-up's depths nothing overrides that
       (the answer of the general rule below, for a few compares). */
    char c0 = le > ls ? *ls : ' ';
    if (!doc->src.line_depth && c0 != ' ' && c0 != ':' && c0 != '+' && c0 != '\t' && c0 != '\r') {
        *rest = ls;
        return BL_TEXT;
    }
    struct lex_prefix pf;
    lex_tree_prefix(ls, (size_t)(le - ls), &pf);
    const struct source *src = &doc->src;
    if (src->line_depth && lno <= src->n_text_lines && src->line_depth[lno] != CLEAN_OWN_PREFIX)
        pf.units = src->line_depth[lno];
    const char *r = ls + pf.len;
    *rest = r;
    while (r < le && (*r == ' ' || *r == '\t' || *r == '\r')) /* bound: the line */
        r++;
    if (r == le && pf.spaces_only)
        return BL_BLANK;
    return pf.units == 0 ? BL_TEXT : BL_SKIP;
}

/* Field lines seen by this thread's block readers (plan_details_next,
 * plan_node_detail_values): a formatted plan's blocks repeat "Output [2]: ",
 * "PushedFilters: ", "Input [3]: " block after block (lex_details_field_memo).  The memo keeps
 * copies of bytes, nothing of a document, so it is good for any text. */
static _Thread_local struct lex_key_memo details_memo;

/* The bit of the first key not found yet that `key` is, or 0. */
static unsigned wanted_key(struct slice key, unsigned found, size_t k, const char *const keys[],
                           const size_t klen[])
{
    for (size_t j = 0; j < k; j++) /* bound: k keys */
        if (!(found >> j & 1) && key.len == klen[j] && namekey_same(key.ptr, keys[j], klen[j]))
            return 1u << j;
    return 0;
}

/* The first '\n' in [p, end), or end: 16 bytes a step, a block's lines being short (a call
 * of memchr cost more than the search). */
static const char *details_line_end(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i lf = _mm_set1_epi8('\n');
    for (; end - p >= 16; p += 16) { /* bound: 16 bytes a step */
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), lf));
        if (m)
            return p + __builtin_ctz(m);
    }
#endif
    for (; p < end; p++) /* bound: fewer than 16 bytes with SSE2 */
        if (*p == '\n')
            return p;
    return end;
}

void plan_details_init(struct plan_details *it, const struct plan_node *n)
{
    memset(it, 0, sizeof *it);
    it->doc = n->section->plan->doc;
    struct slice d = plan_node_details_text(n);
    if (!n->n_details || !d.len)
        return;
    const char *s = d.ptr, *end = s + d.len;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    it->pos = nl ? nl + 1 : end;   /* the header line is not a field */
    it->end = end;
    it->lno = plan_node_details_text_line(n) + 1;
}

bool plan_details_next(struct plan_details *it, struct plan_detail *out)
{
    /* Bound: each line of the block is read once over all calls. */
    while (it->pos && it->pos < it->end) {
        const char *ls = it->pos;
        const char *le = details_line_end(ls, it->end);
        it->pos = le < it->end ? le + 1 : it->end;
        uint32_t lno = it->lno++;
        if (le > ls && le[-1] == '\r')
            le--;
        const char *rest;
        enum block_line kind = classify_block_line(it->doc, lno, ls, le, &rest);
        if (kind == BL_BLANK) {
            it->blank_before = true;
            continue;
        }
        bool blank_before = it->blank_before;
        it->blank_before = false;
        if (kind == BL_SKIP)
            continue;
        struct slice key, value;
        if (it->n < UINT16_MAX &&
            lex_details_field_memo(rest, (size_t)(le - rest), &details_memo, &key, &value)) {
            it->n++;
            bool had = it->have_next;
            struct plan_detail prev = it->next;
            it->next.key = key;
            it->next.value = value;
            it->next.line = document_original_line(it->doc, lno);
            it->have_next = true;
            if (had) {
                *out = prev;
                return true;
            }
        } else if (it->have_next && !blank_before) {
            /* More of the last field's value: it runs on to this line's end. */
            const char *vs = it->next.value.len ? it->next.value.ptr : rest;
            it->next.value = slice_make(vs, (size_t)(le - vs));
        } else if (it->have_next) {
            /* A non-field after a blank line ends the block in the parser: never inside. */
            it->pos = it->end;
        }
    }
    if (it->have_next) {
        *out = it->next;
        it->have_next = false;
        return true;
    }
    return false;
}

unsigned plan_node_detail_values(const struct plan_node *n, size_t k, const char *const keys[],
                                 const size_t klen[], struct slice out[])
{
    unsigned found = 0, all = k >= 32 ? ~0u : (1u << k) - 1;
    for (size_t j = 0; j < k; j++)
        out[j] = slice_make(NULL, 0);
    struct slice d = plan_node_details_text(n);
    if (!n->n_details || !d.len)
        return 0;
    const struct document *doc = n->section->plan->doc;
    const char *pos, *end = d.ptr + d.len;
    const char *nl = memchr(d.ptr, '\n', d.len);
    pos = nl ? nl + 1 : end; /* the header line is not a field */
    uint32_t lno = plan_node_details_text_line(n) + 1, fields = 0;
    /* The field read last (have_field), the key it is (bit, 0: none asked for) and its value
       so far: plan_details_next's field read ahead, whose value the lines after it that are
       no field carry on. */
    bool blank_before = false, have_field = false;
    unsigned bit = 0;
    struct slice value = {0};
    struct lex_key_memo *memo = &details_memo;
    /* Bound: each line of the block once; it stops once every key is found. */
    while (pos < end) {
        const char *ls = pos;
        const char *le = details_line_end(ls, end);
        pos = le < end ? le + 1 : end;
        uint32_t line = lno++;
        if (le > ls && le[-1] == '\r')
            le--;
        const char *rest;
        enum block_line kind = classify_block_line(doc, line, ls, le, &rest);
        if (kind == BL_BLANK) {
            blank_before = true;
            continue;
        }
        bool after_blank = blank_before;
        blank_before = false;
        if (kind == BL_SKIP)
            continue;
        struct slice key, v;
        if (fields < UINT16_MAX &&
            lex_details_field_memo(rest, (size_t)(le - rest), memo, &key, &v)) {
            fields++;
            if (bit) { /* the field before ends here: plan_details_next yields it now */
                out[__builtin_ctz(bit)] = value;
                found |= bit;
                if (found == all)
                    return found;
            }
            have_field = true;
            bit = wanted_key(key, found, k, keys, klen);
            value = v;
        } else if (have_field && !after_blank) {
            if (bit) { /* more of the field's value: it runs on to this line's end */
                const char *vs = value.len ? value.ptr : rest;
                value = slice_make(vs, (size_t)(le - vs));
            }
        } else if (have_field) {
            break; /* a line that is no field after a blank one ends the block */
        }
    }
    if (bit) {
        out[__builtin_ctz(bit)] = value;
        found |= bit;
    }
    return found;
}

/* The fields of the node asked last, split once and only as far as asked: the analysis
 * asks one node for several keys in a row (a scan for PushedFilters, PartitionFilters,
 * ReadSchema, Output...), and splitting the block again from its first line for each key was
 * a seventh of --summary on a formatted plan.  One per thread (the explorer analyses on a
 * thread of its own).  A node is known by its address, its block and the documents freed so
 * far: memory of a freed document may hold the next one's nodes, so document_free moves
 * freed_documents on and the entry goes stale. */
#define DETAIL_CACHE_FIELDS 32
static _Thread_local struct {
    const struct plan_node *node;
    const char *details;
    size_t details_len;
    unsigned freed;
    uint16_t n_details;       /* the node's count when split */
    uint16_t n;               /* fields split so far */
    bool done;                /* the block is split to its end */
    struct plan_details it;   /* where the split goes on */
    struct plan_detail field[DETAIL_CACHE_FIELDS];
} last_split;

/* Points last_split at n; false when n's block is too long to keep. */
static bool split_of(const struct plan_node *n)
{
    unsigned freed = atomic_load_explicit(&freed_documents, memory_order_relaxed);
    struct slice d = plan_node_details_text(n);
    if (last_split.node == n && last_split.details == d.ptr &&
        last_split.details_len == d.len && last_split.n_details == n->n_details &&
        last_split.freed == freed)
        return true;
    if (n->n_details > DETAIL_CACHE_FIELDS)
        return false;
    plan_details_init(&last_split.it, n);
    last_split.node = n;
    last_split.details = d.ptr;
    last_split.details_len = d.len;
    last_split.n_details = n->n_details;
    last_split.freed = freed;
    last_split.n = 0;
    last_split.done = false;
    return true;
}

/* Is the field's key `key` (klen bytes)?  The key's length once, not a strlen a field. */
static bool key_is(const struct plan_detail *f, const char *key, size_t klen)
{
    return f->key.len == klen && memcmp(f->key.ptr, key, klen) == 0;
}

bool plan_node_detail(const struct plan_node *n, const char *key, struct plan_detail *out)
{
    size_t klen = strlen(key);
    if (split_of(n)) {
        for (uint16_t i = 0; i < last_split.n; i++) /* bound: the fields split so far */
            if (key_is(&last_split.field[i], key, klen)) {
                *out = last_split.field[i];
                return true;
            }
        /* Bound: the iterator yields at most n->n_details <= DETAIL_CACHE_FIELDS fields. */
        while (!last_split.done && last_split.n < DETAIL_CACHE_FIELDS) {
            struct plan_detail *f = &last_split.field[last_split.n];
            if (!plan_details_next(&last_split.it, f)) {
                last_split.done = true;
                break;
            }
            last_split.n++;
            if (key_is(f, key, klen)) {
                *out = *f;
                return true;
            }
        }
        return false;
    }
    struct plan_details it;
    plan_details_init(&it, n);
    while (plan_details_next(&it, out)) /* bound: the node's fields */
        if (key_is(out, key, klen))
            return true;
    return false;
}

bool plan_node_stats(const struct plan_node *n, struct plan_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n->flags & NODE_LABEL)
        return false;
    struct slice t = plan_node_text(n);
    const char *s = t.ptr;
    /* Only a node with continuation lines has a first line shorter than its text: a 50 MB
     * generated line is not read through each time the details pane asks. */
    const char *nl = n->flags & NODE_MULTILINE ? memchr(s, '\n', t.len) : NULL;
    size_t len = nl ? (size_t)(nl - s) : t.len;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    size_t at;
    lex_statistics(s, len, out, &at);
    return out->has_size || out->has_rows;
}

/* The first line of a slice, at most max bytes. */
static int first_line_of(struct slice s, int max)
{
    const char *nl = s.len ? memchr(s.ptr, '\n', s.len) : NULL;
    size_t n = nl ? (size_t)(nl - s.ptr) : s.len;
    return (int)(n < (size_t)max ? n : (size_t)max);
}

void plan_source_describe(const struct plan_source *s, char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = '\0';
    if (s->cell) {
        char count[24] = "";
        if (s->execution_count >= 0)
            snprintf(count, sizeof count, "[%d] ", (int)s->execution_count);
        if (s->from_output)
            snprintf(buf, cap, "cell %u, output of %s%s", (unsigned)s->cell, count,
                     s->code ? s->code : "its code");
        else
            snprintf(buf, cap, "cell %u, pasted into a %s cell", (unsigned)s->cell,
                     s->cell_type ? s->cell_type : "code");
    } else if (s->query.len) {
        snprintf(buf, cap, "query: %.*s%s", first_line_of(s->query, 200), s->query.ptr,
                 memchr(s->query.ptr, '\n', s->query.len) ? " ..." : "");
    } else if (s->log_time.len || s->logger.len) {
        snprintf(buf, cap, "log %.*s%s%.*s", first_line_of(s->log_time, 60), s->log_time.ptr,
                 s->log_time.len && s->logger.len ? " " : "", first_line_of(s->logger, 120),
                 s->logger.ptr);
    }
}
