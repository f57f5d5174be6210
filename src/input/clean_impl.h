/* clean_impl: the pieces of the paste clean-up shared by src/input/clean*.c (not public).
 *
 * Clean-up works on an array of lines.  A line is a (pointer, length) view into the input
 * bytes or into the cleaner's scratch arena, plus the original input line it came from.
 * Each step reads c->lines and either edits views in place (trimming costs nothing) or
 * builds a new array.  Only the final emission copies text into the document's arena.
 * Owns: the scratch arena and the line arrays, all released by clean_document().
 * Never: recursion, a pass that is not linear in the number of lines and bytes.
 * Calls go one way: clean.c runs the steps declared here, the steps and clean.c use the line
 * utilities of lines.h, and nothing in lines.c calls back up.
 */
#ifndef SPARKPLAN_CLEAN_IMPL_H
#define SPARKPLAN_CLEAN_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lines.h"
#include "sparkplan/thread.h"

#define WRAP_MIN_WIDTH 40 /* shorter lines are never taken for wrapped ones (clean_wrap.c) */

/* Hard-wrap evidence gathered line by line, shared by the quick scan and the wrap step. */
struct cl_wrap_scan {
    uint32_t max_w;         /* widest line seen */
    uint32_t at_max;        /* lines of width max_w followed by a continuation */
    uint32_t at_max_midword; /* ... of which the cut splits a word */
    struct cl_line first_at_max; /* the first of them, to tell copies of one line apart */
    bool first_plan;        /* ... it was a plan line (counted even when a copy) */
    bool first_midword;     /* ... its cut splits a word */
    uint32_t word_pairs;    /* long line, then an unindented line that starts nothing */
    uint32_t hanging;       /* long tree line, then a deeper-indented line that starts nothing */
    uint32_t last_w;
    bool prev_after_header; /* the previous line follows a plan or AQE header: a root */
    bool prev_root_like;    /* ... or a blank line, the start, "-- !query analysis" */
    bool prev_schema;       /* the previous line follows "== Analyzed Logical Plan ==" */
    uint32_t broken_schema; /* such a schema line ending in ',' or ':', then its rest */
    uint32_t broken_header; /* "== Subtree 1 / 2 (maxMethodCodeSize..." then "...) ==" */
    uint32_t long_word;     /* a tree line, then the rest of it led by a word too long to fit */
};
void cl_wrap_scan_init(struct cl_wrap_scan *ws);
void cl_wrap_scan_line(struct cl_wrap_scan *ws, const struct cl_line *prev,
                       const struct cl_facts *prev_f, uint32_t prev_w, const struct cl_line *cur,
                       const struct cl_facts *cur_f, uint32_t cur_w);
bool cl_wrap_scan_dirty(const struct cl_wrap_scan *ws);
/* The evidence of the lines before a blank line (acc) and of those after it (next, gathered
 * from cl_wrap_scan_init with the flags about the line before the blank one as acc left
 * them): into acc, cl_wrap_scan_dirty as if one scan had seen them all (the quick scan in
 * pieces, clean.c).  The counts at the widest line are exact up to 2, all the verdict asks. */
void cl_wrap_scan_merge(struct cl_wrap_scan *acc, const struct cl_wrap_scan *next);

/* cl_wrap_scan_line (clean_wrap.c) when nothing in it can count: the state it carries from
 * line to line moved on, and true; false when it must run.  Nothing counts when the line
 * before is no header (a plan's or an AQE one: its root follows), no schema line and starts
 * with neither '=' (a header cut in two) nor '-' ("-- !query analysis"), and either the line
 * continues nothing (blank, a tree line, a header, a section or a field line: only a line
 * as wide as the widest so far may then count, as a terminal's cut) or the line before is
 * narrower than WRAP_MIN_WIDTH and no tree line (no long word moved down).  Most lines of a
 * big plan are done here with a few compares.  Shared by the quick scan (clean.c) and the
 * wrap step (clean_wrap.c), which set ws->last_w to the last line's width once the lines
 * are done.  prev_plain: wrap_prev_plain of the line before, worked out right after it was
 * the current line. */
static inline bool wrap_prev_plain(const struct cl_wrap_scan *ws, const struct cl_line *prev,
                                   const struct cl_facts *prev_f)
{
    return !(prev_f->kind == K_HEADER || prev_f->aqe_header || ws->prev_schema ||
             (prev->len && (prev->p[0] == '=' || prev->p[0] == '-')));
}

/* prev_plain: wrap_prev_plain(ws, prev, prev_f), worked out when prev was the line. */
static inline bool wrap_scan_nothing(struct cl_wrap_scan *ws, bool prev_plain,
                                     const struct cl_facts *prev_f, uint32_t prev_w,
                                     const struct cl_facts *cur_f, uint32_t cur_w)
{
    enum cl_kind pk = prev_f->kind, ck = cur_f->kind;
    if (!prev_plain)
        return false;
    if (ck == K_OTHER || ck == K_DETAILS) {
        if (prev_w >= WRAP_MIN_WIDTH || pk == K_TREE)
            return false;
    } else if (prev_w >= WRAP_MIN_WIDTH && prev_w >= ws->max_w) {
        return false;
    }
    if (prev_w > ws->max_w) {
        ws->max_w = prev_w;
        ws->at_max = 0;
        ws->at_max_midword = 0;
        ws->first_at_max.len = 0;
    }
    ws->prev_schema = prev_f->analyzed;
    ws->prev_after_header = false;
    ws->prev_root_like = pk == K_BLANK;
    (void)cur_w; /* ws->last_w: the last line's width, set once the lines are done */
    return true;
}


/* The first line at or after i that the steps from the tabs step to the numberedTreeString
 * step must look at (cleaner.loud, made by the split or the tabs step), or the number of
 * lines; i itself when there are no marks.  A run of lines none of those steps starts on (nearly every line of a
 * paste) is passed over 64 lines a word, where each step took a look at each line. */
static inline size_t cl_next_loud(const struct cleaner *c, size_t i)
{
    const uint64_t *loud = c->loud;
    size_t n = c->lines.n;
    if (!loud || c->loud_n != n || i >= n)
        return i;
    size_t w = i >> 6, words = (n + 63) >> 6;
    uint64_t m = loud[w] & (~0ull << (i & 63));
    /* Bound: one round a word, up to the last one. */
    while (!m) {
        if (++w == words)
            return n;
        m = loud[w];
    }
    return (w << 6) + (size_t)__builtin_ctzll(m); /* < n: the bits past the lines are 0 */
}

/* cleaner.loud let go of (a step moved the lines it describes, or none reads it after). */
static inline void cl_drop_loud(struct cleaner *c)
{
    free(c->loud);
    c->loud = NULL;
    c->loud_n = 0;
    c->loud_words = 0;
}

/* The trailing blanks' step (clean.c, step_trailing) a line at a time, for a pass over the
 * lines after the wrap step (the lines and their facts final): line i loses its trailing
 * blanks, its facts taken again when it changed, and t counts what the step decides on. */
struct cl_trail {
    size_t nonblank, trailing, on_tree;
};
static inline void cl_trail_line(struct cleaner *c, size_t i, struct cl_trail *t)
{
    struct cl_line *l = &c->lines.v[i];
    if (c->facts && !c->facts[i].blank_end) {
        /* Nothing to trim: the facts say so without a look at the line's last byte (the
           lines lie all over a big input: each look is a cache miss). */
        t->nonblank += l->len > 0;
        return;
    }
    uint32_t len = l->len;
    while (len && (l->p[len - 1] == ' ' || l->p[len - 1] == '\t'))
        len--;
    if (!len) {
        /* "   " and "" differ in their facts (the marker column). */
        if (l->len && c->facts)
            cl_facts(l->p, 0, &c->facts[i]);
        l->len = 0;
        return;
    }
    t->nonblank++;
    if (len != l->len) {
        t->trailing++;
        l->len = len;
        /* The line changed: its facts are taken again (kept for the tree step). */
        struct cl_facts tmp, *f = c->facts ? &c->facts[i] : &tmp;
        cl_facts(l->p, len, f);
        if (f->kind == K_TREE || f->kind == K_HEADER)
            t->on_tree++;
    }
}

/* What the trailing blanks' step decides once every line went through cl_trail_line. */
static inline void cl_trail_done(struct cleaner *c, const struct cl_trail *t)
{
    if (t->on_tree || (t->nonblank >= 4 && t->trailing * 2 > t->nonblank))
        c->changed |= CL_SPACE;
}

/* Whether a step runs its per-line work in two halves, the second on another core (the
 * split, the wrap step's facts and evidence, the tree step's search for blocks):
 * by_default (the step's own size test) unless SPARKPLAN_CLEAN_HALVES_MIN is set, then from
 * that many bytes (of n: the input, or the string a step looks through) on (0: never).  The
 * tests set it to run small inputs in halves. */
static inline bool cl_halves_for(size_t n, bool by_default)
{
    /* Here, not in clean.c: the wrap and tree steps ask it, and clean.c calls them (calls
       between modules go one way, docs/layout.md). */
    size_t min;
    if (thread_split_min_from_env("SPARKPLAN_CLEAN_HALVES_MIN", &min))
        return min && n >= min;
    return by_default;
}

/* cl_halves_for the input's size. */
static inline bool cl_halves(const struct cleaner *c, bool by_default)
{
    return cl_halves_for(c->input_len, by_default);
}

/* The steps, in pipeline order. */
bool cl_step_literals(struct cleaner *c);  /* clean_literal.c */
/* c->lines made from c->compact (lines.h), which is then off; false when out of memory. */
bool cl_compact_lines(struct cleaner *c);
bool cl_step_markup(struct cleaner *c);    /* clean_markup.c: HTML blocks, MAGIC, doc stars */
/* Quick scan (clean_markup.c): does this non-blank line (indentation ind) need the markup
 * step?  *after_opener carries "the line before opened a doc comment" from line to line. */
bool cl_markup_line(const char *p, uint32_t len, uint32_t ind, bool *after_opener);
bool cl_step_wrap(struct cleaner *c);      /* clean_wrap.c */
bool cl_step_tree(struct cleaner *c);      /* clean_tree.c */


/* Tree-shape checker used to notice lost indentation: feed the facts of the lines of one
 * block. */
struct cl_closed_col {
    uint32_t col;
    bool closed;            /* the last child ("+- ") at this column has been seen */
};
struct cl_tree_check {
    struct cl_closed_col *closed_cols; /* marker columns of the open subtrees */
    size_t n, cap;
    bool bad;               /* a node appeared where a correctly indented tree has none */
    bool collapsed_colons;  /* ": +- " / ":+- " prefixes: colons with their spaces lost */
    bool prev_was_header;
};
void cl_tree_check_reset(struct cl_tree_check *t);
/* Room for one more column; false on allocation failure. */
bool cl_tree_check_grow(struct cl_tree_check *t);
/* Returns false on allocation failure.  Inline: the quick scan runs it on every tree line,
 * where the call was a fifth of the line's work. */
static inline bool cl_tree_check_line(struct cl_tree_check *t, const struct cl_facts *f)
{
    enum cl_kind k = f->kind;
    if (k == K_BLANK || k == K_HEADER || k == K_SECTION) {
        t->n = 0;
        return true;
    }
    if (!f->content)
        return true; /* roots, continuation lines: no shape to check */
    uint32_t col = f->marker;
    if (f->collapsed)
        t->collapsed_colons = true;
    bool header = f->aqe_header;
    /* Deeper columns belong to subtrees that have ended.  Bound: each entry is pushed once.
       The count is kept in a local and written back once (t is in memory). */
    size_t n = t->n;
    struct cl_closed_col *cols = t->closed_cols;
    while (n && cols[n - 1].col > col)
        n--;
    if (n && cols[n - 1].col == col) {
        struct cl_closed_col *top = &cols[n - 1];
        t->n = n;
        if (header) {
            top->closed = false; /* "== Initial Plan ==" after "== Final Plan ==" */
            return true;
        }
        if (top->closed)
            t->bad = true; /* a sibling after the last child */
        top->closed = !f->bar_marker;
        return true;
    }
    t->n = n;
    if (n == t->cap) {
        if (!cl_tree_check_grow(t))
            return false;
        cols = t->closed_cols;
    }
    cols[n].col = col;
    cols[n].closed = !header && !f->bar_marker;
    t->n = n + 1;
    return true;
}
void cl_tree_check_free(struct cl_tree_check *t);

#endif
