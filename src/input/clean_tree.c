/* clean_tree.c: a tree whose indentation was lost, rebuilt from its markers.
 *
 * A web page's copy button collapses leading spaces: "   :  +- X" arrives as ": +- X" or
 * ":  +- X", "      +- Y" as "+- Y".  What remains is enough for trees without inner
 * children: Spark writes one ":  " unit for each ancestor (below the root) that is not a last
 * child, then ":- " (not last) or "+- " (last).  So the number of ':' before a line's marker
 * says how many of its ancestors are not last children, and a node takes at most one "+- "
 * child after its ":- " ones.  Walking the lines with the path from the root as a stack, the
 * parent of each line is then unique (see attach()), found in O(1).
 * AQE sub-plans ("+- == Final Plan ==", a root without marker, its tree) restart the count,
 * as Spark's own layout does.
 * Output: normal prefixed text when its size stays bounded, written straight into the
 * document's text when it is longer than the input (cleaner.text); otherwise (a 100,000-deep
 * chain) each line keeps just its marker and source.line_depth carries its depth.
 * A block is only touched when its tree lines all start at column 0 and their layout is
 * impossible for a correctly indented tree (or shows ": +- "), and the rebuild is consistent.
 */
#include <stdlib.h>
#include <string.h>

#include "clean_impl.h"
#include "sparkplan/thread.h"
#include "sparkplan/grow.h"
#include "sparkplan/lex.h"

/* ---- the shape checker (also used by the quick scan) ----------------------------------- */

void cl_tree_check_reset(struct cl_tree_check *t)
{
    t->n = 0;
    t->bad = false;
    t->collapsed_colons = false;
}

void cl_tree_check_free(struct cl_tree_check *t)
{
    free(t->closed_cols);
    t->closed_cols = NULL;
    t->n = t->cap = 0;
}

bool cl_tree_check_grow(struct cl_tree_check *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    struct cl_closed_col *nv = realloc(t->closed_cols, ncap * sizeof *nv);
    if (!nv)
        return false;
    t->closed_cols = nv;
    t->cap = ncap;
    return true;
}

/* ---- the rebuild ----------------------------------------------------------------------- */

enum entry_kind { E_ROOT, E_SECROOT, E_HEADER, E_NODE };

struct entry {
    unsigned char kind;
    bool colon;        /* printed with ":- ": not the last child */
    uint32_t ccount;   /* ':-' entries from the section root down to this one */
    uint32_t col;      /* column where this line's content starts once rebuilt */
    uint32_t colon_base; /* section roots: ':-' entries on the path below them start here */
};

/* The path from the root to the last line, with two side stacks so attach() is O(1). */
struct walker {
    struct entry *st;
    size_t n, cap;
    size_t *sections; /* positions of the roots of the open (AQE) sections */
    size_t ns, cap_s;
    size_t *colons;   /* positions of the ':-' entries on the path */
    size_t nc, cap_c;
    size_t *headers;  /* positions of the open "== X Plan ==" entries */
    size_t nh, cap_h;
    /* The unit each entry puts in its descendants' prefixes (":  " or "   "), 3 bytes per
       stack position: a line's prefix is one copy of a range of it (write_prefix), where a
       unit at a time cost a 3-byte copy per ancestor, most of rebuilding a deep chain. */
    char *guides;
    size_t cap_g;
    bool nomem;
};

static void walker_free(struct walker *w)
{
    free(w->st);
    free(w->sections);
    free(w->colons);
    free(w->headers);
    free(w->guides);
}

static void walker_start(struct walker *w)
{
    w->n = w->ns = w->nc = w->nh = 0;
}

/* Drops everything above position keep (which stays). */
static void pop_to(struct walker *w, size_t keep)
{
    w->n = keep + 1;
    while (w->ns && w->sections[w->ns - 1] > keep)
        w->ns--;
    while (w->nc && w->colons[w->nc - 1] > keep)
        w->nc--;
    while (w->nh && w->headers[w->nh - 1] > keep)
        w->nh--;
}

static bool push(struct walker *w, struct entry e)
{
    size_t pos = w->n;
    if (!grow_array((void **)&w->st, &w->cap, pos + 1, sizeof *w->st) ||
        !grow_array((void **)&w->guides, &w->cap_g, 3 * (pos + 1), 1) ||
        (e.kind <= E_SECROOT && !grow_array((void **)&w->sections, &w->cap_s, w->ns + 1, sizeof(size_t))) ||
        (e.colon && !grow_array((void **)&w->colons, &w->cap_c, w->nc + 1, sizeof(size_t))) ||
        (e.kind == E_HEADER && !grow_array((void **)&w->headers, &w->cap_h, w->nh + 1, sizeof(size_t)))) {
        w->nomem = true;
        return false;
    }
    if (e.kind <= E_SECROOT)
        e.colon_base = (uint32_t)w->nc;
    w->st[pos] = e;
    memcpy(w->guides + 3 * pos, e.colon ? ":  " : "   ", 3);
    w->n++;
    if (e.kind <= E_SECROOT)
        w->sections[w->ns++] = pos;
    if (e.colon)
        w->colons[w->nc++] = pos;
    if (e.kind == E_HEADER)
        w->headers[w->nh++] = pos;
    return true;
}

/* What one line becomes. */
struct placed {
    enum entry_kind kind;  /* E_ROOT also for lines left as they are */
    bool own;              /* keeps its own text (root, prose, continuation) */
    uint32_t col;          /* content column once rebuilt */
    uint32_t content;      /* offset of the content in the input line */
    uint32_t marker;       /* offset of the marker in the input line */
    size_t pos;            /* stack position (for emission) */
};

/* Places one tree line.  Returns false when the markers contradict each other. */
static bool attach(struct walker *w, const struct cl_line *l, const struct cl_facts *lf,
                   bool after_header, struct placed *out)
{
    const struct cl_facts f = *lf;
    uint32_t colons = f.colons;
    long mcol = f.content ? (long)f.marker : -1;
    out->own = false;
    if (mcol < 0) {
        if (after_header) {
            /* The root of an AQE sub-plan: indented to the header's content. */
            /* The header's column, read before push() may move the stack. */
            uint32_t hcol = w->st[w->n - 1].col;
            uint32_t ind = cl_indent(l->p, l->len);
            struct entry e = {E_SECROOT, false, 0, hcol, 0};
            if (!push(w, e))
                return false;
            out->kind = E_SECROOT;
            out->col = hcol;
            out->content = ind;
            out->pos = w->n - 1;
            return true;
        }
        out->kind = E_ROOT;
        out->own = true; /* a continuation line of the node before */
        return true;
    }
    uint32_t content = f.content;
    out->content = content;
    out->marker = (uint32_t)mcol;
    if (f.aqe_header) {
        /* A sibling of the previous header, or the first header under the node above. */
        size_t parent = w->nh ? w->headers[w->nh - 1] - 1 : w->n - 1;
        pop_to(w, parent);
        struct entry e = {E_HEADER, false, 0, w->st[parent].col + 3, 0};
        if (!push(w, e))
            return false;
        out->kind = E_HEADER;
        out->col = e.col;
        out->pos = w->n - 1;
        return true;
    }
    size_t r = w->sections[w->ns - 1];
    size_t k = w->n - 1;
    if (w->st[k].kind == E_HEADER)
        return false; /* a header must be followed by its sub-plan's root */
    uint32_t have = w->st[k].ccount;
    size_t parent;
    if (colons == have) {
        parent = k; /* the first child of the line above */
    } else if (colons < have) {
        /* The (colons+1)-th ':-' entry of this section is the earlier sibling: its parent
           is ours.  Colon entries of the section start after those of outer sections. */
        parent = w->colons[w->st[r].colon_base + colons] - 1;
    } else {
        return false;
    }
    pop_to(w, parent);
    bool colon = f.bar_marker;
    struct entry e = {E_NODE, colon, w->st[parent].ccount + colon,
                      w->st[r].col + 3 * (uint32_t)(parent - r + 1), 0};
    if (!push(w, e))
        return false;
    out->kind = E_NODE;
    out->col = e.col;
    out->pos = w->n - 1;
    return true;
}

/* Lines [a, b) form a block (no blank line, no top-level header inside).  Worth rebuilding
 * when its tree lines all start at column 0, there are two or more, and their layout is
 * impossible as it stands. */
static bool block_lost_indentation(struct cleaner *c, size_t a, size_t b, struct cl_tree_check *tc)
{
    size_t trees = 0;
    cl_tree_check_reset(tc);
    for (size_t i = a; i < b; i++) {
        const struct cl_facts *f = &c->facts[i];
        if (!f->content)
            continue;
        if (f->lead_space)
            return false;
        trees++;
        if (!cl_tree_check_line(tc, f)) {
            c->nomem = true;
            return false;
        }
    }
    return trees >= 2 && (tc->bad || tc->collapsed_colons);
}

/* A blank line, a header, or a line no plan holds (a caption, code, a fence: two trees
   with "After the rule:" between them are two blocks, never one tree rebuilt). */
static bool is_block_boundary(const struct cleaner *c, size_t i)
{
    enum cl_kind k = c->facts[i].kind;
    return k == K_BLANK || k == K_HEADER || k == K_SECTION ||
           ((k == K_OTHER || k == K_FIELD) && lex_foreign_line(c->lines.v[i].p, c->lines.v[i].len));
}

/* A walk through one block, line by line.  Both passes walk it the same way: the second
 * writes each line with the stack as it stands for that line, so nothing is kept per line. */
struct block_walk {
    size_t first_tree; /* the block's first tree line; the lines before it stay */
    size_t root;       /* the line just before it, the root (b when there is none) */
    bool after_header; /* the line before was an AQE "+- == X Plan ==" header */
};

static bool block_begin(struct cleaner *c, struct walker *w, size_t a, size_t b,
                        struct block_walk *bw)
{
    walker_start(w);
    size_t first_tree = b;
    /* Bound: the lines of the block before its first tree line. */
    for (size_t i = a; i < b && first_tree == b; i++)
        if (c->facts[i].content)
            first_tree = i;
    bw->first_tree = first_tree;
    bw->root = first_tree > a ? first_tree - 1 : b;
    bw->after_header = false;
    struct entry top = {E_ROOT, false, 0, 0, 0};
    return push(w, top);
}

/* Places line i, the next of the block; false when the markers contradict each other. */
static bool block_place(struct cleaner *c, struct walker *w, struct block_walk *bw, size_t i,
                        struct placed *p)
{
    memset(p, 0, sizeof *p);
    if (i < bw->first_tree || i == bw->root) {
        p->kind = E_ROOT;
        p->own = true;
        bw->after_header = false;
        return true;
    }
    if (!attach(w, &c->lines.v[i], &c->facts[i], bw->after_header, p))
        return false;
    bw->after_header = p->kind == E_HEADER; /* a continuation line (own) is E_ROOT */
    return true;
}

/* Bytes one placed line takes once rebuilt (text mode). */
static size_t placed_len(const struct cl_line *l, const struct placed *p)
{
    if (p->own)
        return l->len;
    return (size_t)p->col + (l->len - p->content);
}

/* Walks lines [a, b): false when inconsistent, else *size is the bytes they take rebuilt
 * (their newlines included). */
static bool walk_block(struct cleaner *c, struct walker *w, size_t a, size_t b, size_t *size)
{
    struct block_walk bw;
    if (!block_begin(c, w, a, b, &bw))
        return false;
    size_t bytes = 0;
    for (size_t i = a; i < b; i++) {
        struct placed p;
        if (!block_place(c, w, &bw, i, &p))
            return false;
        bytes += placed_len(&c->lines.v[i], &p) + 1;
    }
    *size = bytes;
    return true;
}

/* Writes the rebuilt prefix of p into o: spaces to the section's column, one unit per
 * ancestor inside the section, the marker. */
static size_t write_prefix(const struct walker *w, const struct placed *p, char *o)
{
    if (p->kind == E_SECROOT) {
        memset(o, ' ', p->col);
        return p->col;
    }
    if (p->kind == E_HEADER) {
        memset(o, ' ', p->col - 3);
        memcpy(o + p->col - 3, "+- ", 3);
        return p->col;
    }
    size_t r = w->sections[w->ns - 1];
    uint32_t base = w->st[r].col;
    memset(o, ' ', base);
    size_t n = base;
    /* The units of the ancestors inside the section, r + 1 to the parent: one copy. */
    size_t ancestors = p->pos - r - 1;
    memcpy(o + n, w->guides + 3 * (r + 1), 3 * ancestors);
    n += 3 * ancestors;
    o[n++] = w->st[p->pos].colon ? ':' : '+';
    o[n++] = '-';
    o[n++] = ' ';
    return n;
}

/* Where pass 2 puts the lines: into the document's text itself (text != NULL, o bytes written)
 * or, when that text may still go over the input (emit()), views with the rebuilt lines in
 * scratch. */
struct out_text {
    char *text;
    size_t o;
};

/* Appends a line that keeps its bytes. */
static bool put_line(struct cleaner *c, struct cl_lines *out, struct out_text *t, const char *p,
                     size_t len, uint32_t orig)
{
    if (t->text) {
        memcpy(t->text + t->o, p, len);
        p = t->text + t->o;
        t->o += len;
        t->text[t->o++] = '\n';
    }
    return cl_push(c, out, p, len, orig);
}

/* Appends a rebuilt line: its prefix from the walker as it stands, then its content. */
static bool put_placed(struct cleaner *c, struct cl_lines *out, struct out_text *t,
                       const struct walker *w, const struct cl_line *l, const struct placed *p)
{
    size_t len = placed_len(l, p);
    char *buf = t->text ? t->text + t->o : cl_alloc(c, len);
    if (!buf)
        return false;
    size_t o = write_prefix(w, p, buf);
    memcpy(buf + o, l->p + p->content, l->len - p->content);
    if (t->text) {
        t->o += len;
        t->text[t->o++] = '\n';
    }
    return cl_push(c, out, buf, len, l->orig);
}

/* ---- the tree step: two passes over one struct tree_step --------------------------------- */

struct tree_step {
    struct cleaner *c;
    struct cl_tree_check tc;
    struct walker w;
    unsigned char *rebuild;    /* 1 on the first line of a block to rebuild */
    /* Bytes of the result as text: every line's, then for each block rebuilt its lines'
       (rebuilt_own) out and the rebuilt text's (rebuilt_size) in.  Only a step that
       rebuilds a block reads it, so the pass over every line's length is made only then
       (tree_result_size), not beside the blocks' search. */
    size_t total;
    size_t rebuilt_own, rebuilt_size;
    size_t blocks;             /* blocks to rebuild */
    uint32_t first_line;       /* input line of the first of them */
    struct out_text ot;        /* text mode: the result, written where it ends up */
    uint32_t *units;           /* depth mode: the depth of each line of the result */
    struct cl_lines out;
};

/* The end of the block that starts at line i (the first boundary after it). */
static size_t block_end(struct cleaner *c, size_t i)
{
    size_t b = i;
    while (b < c->lines.n && !is_block_boundary(c, b))
        b++;
    return b;
}

/* A blank line, a header or a section line: the block ends that need no look at the words
 * (is_block_boundary's first ones). */
static bool is_plain_boundary(const struct cleaner *c, size_t i)
{
    enum cl_kind k = c->facts[i].kind;
    return k == K_BLANK || k == K_HEADER || k == K_SECTION;
}

/* Pass 1 over the blocks of lines [a, e): which to rebuild, and the size of the result.
 * False on allocation failure. */
static bool tree_find_blocks_in(struct tree_step *ts, size_t a, size_t e)
{
    struct cleaner *c = ts->c;
    for (size_t i = a; i < e;) {
        if (is_block_boundary(c, i)) {
            i++;
            continue;
        }
        size_t b = block_end(c, i);
        bool lost = block_lost_indentation(c, i, b, &ts->tc);
        if (c->nomem)
            return false;
        size_t rebuilt_size = 0;
        if (lost && walk_block(c, &ts->w, i, b, &rebuilt_size)) {
            ts->rebuild[i] = 1;
            ts->blocks++;
            if (!ts->first_line)
                ts->first_line = c->lines.v[i].orig;
            ts->rebuilt_size += rebuilt_size;
            for (size_t m = i; m < b; m++)
                ts->rebuilt_own += c->lines.v[m].len + 1;
        } else if (ts->w.nomem) {
            return false;
        }
        i = b;
    }
    return true;
}

/* Pass 1 over the stretches of lines [from, to) (from a plain boundary, or 0, to one, or n):
 * which blocks to rebuild, and the size of the result.  False on allocation failure.
 * The blocks lie inside the stretches between plain boundaries (the other block ends are
 * lines that read as prose or code: telling them is most of this pass on a big paste).  A
 * stretch whose tree lines, checked as one block, are neither laid out impossibly nor
 * collapsed holds no block that is: checked from a later line with the columns of the
 * lines before it forgotten, a block's checker holds a part of the stretch checker's columns,
 * the same for every column it holds, so every sibling after a last child it finds the
 * stretch checker finds too.  Only the other stretches are split into blocks. */
static bool tree_find_blocks_range(struct tree_step *ts, size_t from, size_t to)
{
    struct cleaner *c = ts->c;
    for (size_t a = from; a < to;) {
        if (is_plain_boundary(c, a)) {
            a++;
            continue;
        }
        cl_tree_check_reset(&ts->tc);
        size_t e = a;
        for (; e < to && !is_plain_boundary(c, e); e++) {
            if (c->facts[e].content && !cl_tree_check_line(&ts->tc, &c->facts[e])) {
                c->nomem = true;
                return false;
            }
        }
        if ((ts->tc.bad || ts->tc.collapsed_colons) && !tree_find_blocks_in(ts, a, e))
            return false;
        a = e;
    }
    return true;
}

/* The second half of the lines' pass 1 on another core: a tree_step of its own (checker,
 * walker, counts) over a cleaner of its own (a copy that only reads the lines and facts, and
 * notes running out of memory in its own nomem); the rebuild marks of its lines are its
 * own bytes of the shared array. */
struct tree_half {
    struct cleaner c;
    struct tree_step ts;
    size_t from, to;
    bool ok;
};

static void *tree_half_main(void *arg)
{
    struct tree_half *h = arg;
    h->ok = tree_find_blocks_range(&h->ts, h->from, h->to);
    return NULL;
}

/* Lines from which pass 1 runs in two halves (cl_halves): a paste of some 13 MB, as the wrap
 * step's facts. */
#define TREE_HALVES_MIN_LINES ((size_t)1 << 18)

/* Pass 1: on two cores for a big paste, cut at a plain boundary near the middle (no stretch
 * spans it: each half sees whole stretches, and the blocks inside them); the halves' counts
 * add up and the first rebuilt line is the first half's when it has one. */
static bool tree_find_blocks(struct tree_step *ts)
{
    struct cleaner *c = ts->c;
    size_t n = c->lines.n;
    ts->rebuild = calloc(n ? n : 1, 1);
    if (!ts->rebuild)
        return false;
    size_t mid = n;
    if (n >= 4 && cl_halves(c, n >= TREE_HALVES_MIN_LINES)) {
        /* Bound: a quarter of the lines looked at, at most. */
        for (mid = n / 2; mid < n - n / 4 && !is_plain_boundary(c, mid); mid++)
            ;
        if (mid == n - n / 4)
            mid = n;
    }
    struct tree_half *h = NULL;
    pthread_t th;
    if (mid < n && (h = calloc(1, sizeof *h)) != NULL) {
        h->c = *c;
        h->c.nomem = false;
        h->ts.c = &h->c;
        h->ts.rebuild = ts->rebuild;
        h->from = mid;
        h->to = n;
        if (!thread_start_quiet(&th, tree_half_main, h)) {
            free(h);
            h = NULL;
        }
    }
    bool ok = tree_find_blocks_range(ts, 0, h ? mid : n);
    if (h) {
        pthread_join(th, NULL);
        ok = ok && h->ok;
        c->nomem |= h->c.nomem;
        ts->blocks += h->ts.blocks;
        ts->rebuilt_size += h->ts.rebuilt_size;
        ts->rebuilt_own += h->ts.rebuilt_own;
        if (!ts->first_line)
            ts->first_line = h->ts.first_line;
        cl_tree_check_free(&h->ts.tc);
        walker_free(&h->ts.w);
        free(h);
    }
    return ok;
}

/* Spaces for a deep chain grow with the square of its depth, and a big rebuilt text is fresh
 * memory written for nothing but the parser's prefix reading (156 MB of spaces for the
 * 10,000-deep chain: 0.28 s and 308 MB, against 0.09 s and 155 MB with depths).  So past the
 * input's size or 16 MB, whichever is larger, the parser gets the depths instead
 * (source.line_depth); small pastes keep a text that reads as printed. */
/* ts->total, once pass 1 found blocks to rebuild. */
static void tree_result_size(struct tree_step *ts)
{
    const struct cl_line *v = ts->c->lines.v;
    size_t total = 0;
    for (size_t i = 0; i < ts->c->lines.n; i++)
        total += v[i].len + 1;
    ts->total = total - ts->rebuilt_own + ts->rebuilt_size;
}

static bool tree_choose_output(struct tree_step *ts)
{
    struct cleaner *c = ts->c;
    tree_result_size(ts);
    size_t limit = c->input_len;
    if (limit < ((size_t)16 << 20))
        limit = (size_t)16 << 20;
    if (ts->total > limit) {
        ts->units = malloc(c->lines.n * sizeof *ts->units);
        return ts->units != NULL;
    }
    if (ts->total >= c->input_len) {
        /* Longer than the input (lost indentation puts spaces back: the usual case), so
           emit() could not write it over the input: write it where it ends up, once, instead
           of the rebuilt lines to scratch and everything again in emit(). */
        ts->ot.text = arena_alloc(&c->src->arena, ts->total + 1);
        return ts->ot.text != NULL;
    }
    return true;
}

/* One line of the result, written as it is. */
static bool tree_put_own(struct tree_step *ts, const struct cl_line *l)
{
    if (ts->units)
        ts->units[ts->out.n] = CLEAN_OWN_PREFIX;
    return put_line(ts->c, &ts->out, &ts->ot, l->p, l->len, l->orig);
}

/* The walk of pass 1 again over the block [i, b), each line written with the stack as it
 * stands for it. */
static bool tree_put_block(struct tree_step *ts, size_t i, size_t b)
{
    struct cleaner *c = ts->c;
    struct block_walk bw;
    if (!block_begin(c, &ts->w, i, b, &bw))
        return false;
    for (size_t m = i; m < b; m++) {
        const struct cl_line *l = &c->lines.v[m];
        struct placed p;
        if (!block_place(c, &ts->w, &bw, m, &p))
            return false; /* pass 1 placed it: only memory can fail */
        bool ok;
        if (p.own) {
            ok = tree_put_own(ts, l);
        } else if (ts->units) {
            /* Depth mode: the marker and the content; the depth goes to the parser. */
            uint32_t from = p.kind == E_SECROOT ? p.content : p.marker;
            ts->units[ts->out.n] = p.col / 3;
            ok = cl_push(c, &ts->out, l->p + from, l->len - from, l->orig);
        } else {
            ok = put_placed(c, &ts->out, &ts->ot, &ts->w, l, &p);
        }
        if (!ok)
            return false;
    }
    return true;
}

/* Pass 2: emit, one line for each line. */
static bool tree_emit(struct tree_step *ts)
{
    struct cleaner *c = ts->c;
    size_t n = c->lines.n;
    if (!cl_lines_reserve(c, &ts->out, n))
        return false;
    for (size_t i = 0; i < n;) {
        bool boundary = is_block_boundary(c, i);
        size_t b = boundary ? i + 1 : block_end(c, i);
        if (!boundary && ts->rebuild[i]) {
            if (!tree_put_block(ts, i, b))
                return false;
        } else {
            for (size_t m = i; m < b; m++)
                if (!tree_put_own(ts, &c->lines.v[m]))
                    return false;
        }
        i = b;
    }
    return true;
}

/* The result replaces the cleaner's lines (and text, and depths). */
static void tree_commit(struct tree_step *ts)
{
    struct cleaner *c = ts->c;
    source_note(c->src, ts->first_line, "tree structure inferred from markers");
    c->changed |= CL_TREE;
    cl_replace(c, &ts->out); /* takes the array: ts->out is left empty */
    if (ts->ot.text) {
        ts->ot.text[ts->ot.o] = '\0';
        c->text = ts->ot.text;
        c->text_len = ts->ot.o;
    }
    if (ts->units) {
        free(c->units);
        c->units = ts->units;
        ts->units = NULL;
    }
}

bool cl_step_tree(struct cleaner *c)
{
    struct tree_step ts = {.c = c};
    /* The facts of every line, kept from the wrap step (computed here when it had none). */
    bool ok = cl_facts_all(c) && tree_find_blocks(&ts);
    if (ok && ts.blocks) {
        ok = tree_choose_output(&ts) && tree_emit(&ts);
        if (ok)
            tree_commit(&ts);
    }
    if (!ok)
        c->nomem = true;
    cl_tree_check_free(&ts.tc);
    walker_free(&ts.w);
    free(ts.rebuild);
    free(ts.units);
    cl_lines_free(&ts.out);
    return ok;
}
