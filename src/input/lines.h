/* lines: the line utilities under the paste clean-up (not public): the cleaner's state, line
 * arrays and their memory, column widths, and what one look at a line tells (cl_facts).
 *
 * A line is a (pointer, length) view into the input bytes or into the cleaner's scratch arena,
 * plus the original input line it came from.  clean.c and its steps (clean_wrap.c,
 * clean_tree.c, clean_literal.c) call these; lines.c calls none of them, so the calls of the
 * clean-up only go down.
 * Owns nothing of its own: the arrays and scratch it hands out belong to the struct cleaner,
 * released by clean_document().
 * Never: recursion, reading past a line's length, a pass that is not linear.
 */
#ifndef SPARKPLAN_INPUT_LINES_H
#define SPARKPLAN_INPUT_LINES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sparkplan/arena.h"
#include "sparkplan/blank.h"
#include "sparkplan/lex.h"
#include "sparkplan/plan.h"

struct cl_line {
    const char *p;
    uint32_t len;
    uint32_t orig; /* 1-based line of the original input */
};

struct cl_lines {
    struct cl_line *v;
    size_t n, cap;
    /* v is room in another array (the split's second half writes after the first half's
       lines): never freed, and when full its lines move to an array of their own
       (cl_push_grow), which clears this. */
    bool borrowed;
};

/* Steps that rewrote something (bits of cleaner.changed). */
enum {
    CL_ENCODING = 1u << 0,  /* BOM, UTF-16, CRLF */
    CL_LITERAL = 1u << 1,   /* quoted strings with \n escapes decoded */
    CL_SPACE = 1u << 2,     /* tabs expanded, trailing blanks removed */
    CL_PREFIX = 1u << 3,    /* "# ", "// ", "-- ", "> " removed */
    CL_TABLE = 1u << 4,     /* show() table unwrapped */
    CL_INDENT = 1u << 5,    /* common indentation removed */
    CL_NUMBERS = 1u << 6,   /* numberedTreeString prefixes removed */
    CL_WRAP = 1u << 7,      /* hard-wrapped lines joined */
    CL_TREE = 1u << 8,      /* tree rebuilt from markers */
};

struct cl_facts;
struct clean_scan_hook;

struct cleaner {
    struct source *src;     /* doc->src: the input read, the text written */
    struct arena scratch;   /* rewritten line contents, freed when clean-up ends */
    struct cl_lines lines;  /* the current lines */
    uint32_t *units;        /* deep trees: source.line_depth of each line (clean_tree.c) */
    /* The final text when the last step wrote it (in src->arena, text_len bytes then a NUL),
       each of lines.v a view into it in order: emit() copies nothing.  NULL otherwise. */
    char *text;
    size_t text_len;
    /* cl_facts of each of lines.v, or NULL.  The wrap step computes them (it needs them all)
       and the steps after it keep them in step with the lines, so the trailing and tree steps
       do not look at every line again.  cl_replace() drops them. */
    struct cl_facts *facts;
    /* A big block a step let go of (a replaced line array), kept for the next one that needs
       as much (cl_take): fresh memory costs a page fault every 4 KB, and the arrays of one
       entry per line come one after the other.  Freed before the text is written. */
    void *spare;
    size_t spare_size;
    size_t input_len;
    uint32_t changed;       /* CL_* bits */
    bool input_written;     /* lines were written over src->bytes: src->bytes is no longer
                               the input (clean.c, clean_literal.c) */
    const struct clean_scan_hook *hook; /* the decoded text's quick scan, or NULL (clean.h) */
    /* The wrap step's arrays for up to prefault->cap lines, made present on the second core
       while this one runs the steps before it (clean.c), or NULL. */
    struct cl_prefault *prefault;
    /* Which 64-byte blocks of the input hold a backslash or a byte above 0x7F: a bit a block
       in each of two rows of marks_words words (CL_MARK_*), set by the split as it finds the
       line ends (step_split, clean.c), so that the steps that look for those bytes in every
       line (the literal step's escapes, the wrap step's widths) skip the lines without.  They
       describe marks_base[0..marks_len) as read: only while nothing was written over the
       input (input_written).  NULL when not made (cl_input_lacks then says "look"). */
    uint64_t *marks;
    size_t marks_words;
    const char *marks_base;
    size_t marks_len;
    /* The lines the steps from the tabs step to the numberedTreeString step must look at, a
       bit a line of lines.v (loud_n of them; clean_impl.h, cl_next_loud): the others' first
       byte after their leading spaces is none that any of those steps starts on, and those
       steps change no such line (the indentation step cuts only blanks).  Made by the split
       (dropped by the literal step when it changes the lines: the tabs step then makes
       them), carried by the table step as it moves lines (the lines it writes itself are
       marked), dropped by the HTML step when it rewrites a block and after the
       numberedTreeString step.  NULL: every line is looked at. */
    uint64_t *loud;
    size_t loud_n;
    size_t loud_words;      /* words of loud allocated (zeros past the bits of loud_n lines) */
    /* The literal step's text of an input that is one line holding one string (an event
       log's line): decoded over the input from its first byte, lines each ended by '\n'
       (the last one's '\n' still to write when add_newline), every line from input line
       orig; lines is empty meanwhile.  cl_compact_lines makes the lines it stands for
       (clean_literal.c); decoded_text_done takes the text without them. */
    struct {
        bool on;
        bool add_newline;
        bool needs_steps;   /* a line breaks a rule of decoded_text_done (cl_line_needs_steps) */
        uint32_t orig;
        uint32_t n_lines;
        size_t len;         /* bytes decoded, add_newline's '\n' not counted */
    } compact;
    bool nomem;
    /* The trailing blanks' step was done as the wrap step's last pass over the lines
       (clean_impl.h, cl_trail_line). */
    bool trailing_done;
};

/* Blocks the wrap step takes when it has at most cap lines and the second core is done with
 * them (done); malloc'd, released with free() by whoever holds them. */
struct cl_prefault {
    size_t cap;
    struct cl_facts *facts;
    uint32_t *widths;
    unsigned char *kinds;
    atomic_int done;
};

/* "00 ", "01 ", ... "100 ": the number (or -1) and the prefix length (a numberedTreeString
 * line). */
static inline long cl_line_number_prefix(const struct cl_line *l, uint32_t *plen)
{
    uint32_t i = 0;
    long v = 0;
    while (i < l->len && l->p[i] >= '0' && l->p[i] <= '9' && i < 9) {
        v = v * 10 + (l->p[i] - '0');
        i++;
    }
    if (i < 2 || i >= l->len || l->p[i] != ' ')
        return -1;
    *plen = i + 1;
    return v;
}

/* Line l (after a blank line or none when after_blank) breaks a rule under which the text a
 * string decoded to needs no step after the literal one (the rules and why: above
 * decoded_text_done in clean.c; lines.c). */
bool cl_line_needs_steps(const struct cl_line *l, bool after_blank);

/* The rows of cleaner.marks. */
enum { CL_MARK_BACKSLASH, CL_MARK_HIGH, CL_MARK_ROWS };

/* True when [p, p + len) holds no byte of class `mark` (CL_MARK_*) for certain: it lies in
 * the input as read, and none of the 64-byte blocks it touches holds one.  False means "look"
 * (a line in scratch, one over 4 KB, the input written over, no marks made). */
static inline bool cl_input_lacks(const struct cleaner *c, const char *p, uint32_t len, int mark)
{
    if (!len)
        return true;
    if (!c->marks || c->input_written)
        return false;
    uintptr_t base = (uintptr_t)c->marks_base, at = (uintptr_t)p;
    if (at < base || at - base > c->marks_len || len > c->marks_len - (at - base))
        return false;
    size_t first = (at - base) >> 6, last = (at - base + len - 1) >> 6;
    const uint64_t *row = c->marks + (size_t)mark * c->marks_words;
    size_t w = first >> 6;
    if ((last >> 6) == w) {
        uint64_t m = (~0ull >> (63 - (last & 63))) & (~0ull << (first & 63));
        return !(row[w] & m);
    }
    if ((last >> 6) != w + 1)
        return false;
    return !(row[w] & (~0ull << (first & 63))) && !(row[w + 1] & (~0ull >> (63 - (last & 63))));
}

/* cl_input_lacks for lines taken in the input's order (a pass over the lines): the stretch
 * [lo, hi) of the input found to hold no byte of the class is kept, and a line inside it is
 * answered with two compares (cl_input_lacks of every line was 20 instructions a line).  A
 * line outside it looks for the next marked block from its own; false still means "look". */
struct cl_clear {
    uintptr_t lo, hi; /* zero: nothing known yet */
};
static inline bool cl_input_lacks_run(const struct cleaner *c, struct cl_clear *r, const char *p,
                                      uint32_t len, int mark)
{
    uintptr_t at = (uintptr_t)p;
    if (at >= r->lo && at <= r->hi && len <= r->hi - at && !c->input_written)
        return true;
    if (!len)
        return true;
    if (!c->marks || c->input_written)
        return false;
    uintptr_t base = (uintptr_t)c->marks_base;
    if (at < base || at - base >= c->marks_len)
        return false;
    size_t b = (at - base) >> 6, w = b >> 6;
    const uint64_t *row = c->marks + (size_t)mark * c->marks_words;
    uint64_t m = row[w] & (~0ull << (b & 63));
    /* Bound: one round a word; the stretch found covers the words passed. */
    while (!m && ++w < c->marks_words)
        m = row[w];
    size_t end = c->marks_len;
    if (m && (((w << 6) + (size_t)__builtin_ctzll(m)) << 6) < end)
        end = ((w << 6) + (size_t)__builtin_ctzll(m)) << 6;
    r->lo = base + (b << 6);
    r->hi = base + end;
    return at <= r->hi && len <= r->hi - at;
}

/* The first line of v[i, n) that is not inside the stretch r knows (cl_input_lacks_run's first
 * answer, without a look for the next marked block), or n: a pass over the lines that only
 * asks cl_input_lacks_run goes over a stretch's lines in a loop of its own, the stretch's
 * bounds in registers (the literal step: most lines of a paste are inside one). */
static inline size_t cl_input_lacks_skip(const struct cleaner *c, const struct cl_clear *r,
                                         const struct cl_line *v, size_t i, size_t n)
{
    if (c->input_written)
        return i;
    const uintptr_t lo = r->lo, hi = r->hi;
    /* Bound: one round a line. */
    for (; i < n; i++) {
        uintptr_t at = (uintptr_t)v[i].p;
        if (!(at >= lo && at <= hi && v[i].len <= hi - at))
            break;
    }
    return i;
}

/* cl_input_lacks_skip for lines in the input's order, each after the one before (the
 * split's, before any step moved one), line i - 1 inside the stretch: then the lines inside
 * it are the lines from i up to the first whose end passes the stretch's, found by steps
 * that double and then halve (a stretch of the corpus paste holds hundreds of lines: the
 * literal step looked at each, 13 instructions a line). */
static inline size_t cl_input_lacks_skip_ordered(const struct cleaner *c,
                                                 const struct cl_clear *r,
                                                 const struct cl_line *v, size_t i, size_t n)
{
    if (c->input_written)
        return i;
    const uintptr_t lo = r->lo, hi = r->hi;
#define CL_INSIDE(k) ((uintptr_t)v[k].p >= lo && (uintptr_t)v[k].p <= hi && \
                      v[k].len <= hi - (uintptr_t)v[k].p)
    /* Lines [i, good) are inside; bad is outside (or n).  Bound: the step doubles, then the
       interval halves. */
    size_t good = i, bad = n, step = 1;
    while (good < n) {
        size_t probe = good + step - 1 < n ? good + step - 1 : n - 1;
        if (!CL_INSIDE(probe)) {
            bad = probe;
            break;
        }
        good = probe + 1;
        step *= 2;
    }
    while (good < bad) {
        size_t mid = good + (bad - good) / 2;
        if (CL_INSIDE(mid))
            good = mid + 1;
        else
            bad = mid;
    }
#undef CL_INSIDE
    return good;
}

/* Line arrays. */
bool cl_push_grow(struct cleaner *c, struct cl_lines *a, const char *p, size_t len, uint32_t orig);
/* Appends a line; false (c->nomem) on failure.  Inline: steps push every line they keep. */
static inline bool cl_push(struct cleaner *c, struct cl_lines *a, const char *p, size_t len,
                           uint32_t orig)
{
    if (a->n == a->cap || len > UINT32_MAX)
        return cl_push_grow(c, a, p, len, orig); /* room made, or the failure noted */
    struct cl_line l = {p, (uint32_t)len, orig};
    a->v[a->n++] = l;
    return true;
}
/* Appends count lines (from another array) at once; false (c->nomem) on failure. */
bool cl_push_lines(struct cleaner *c, struct cl_lines *a, const struct cl_line *v, size_t count);
void cl_lines_free(struct cl_lines *a);
/* Replace c->lines with a (takes ownership); c->facts no longer describe them: freed.  The
 * old array is kept as c->spare. */
void cl_replace(struct cleaner *c, struct cl_lines *a);
/* At least `bytes` of memory: c->spare when it is large enough, else malloc'd (NULL and
 * c->nomem on failure).  Released with free(). */
void *cl_take(struct cleaner *c, size_t bytes);
/* Keeps p (of `bytes`) as c->spare when it is larger than the one kept; frees the other. */
void cl_give(struct cleaner *c, void *p, size_t bytes);
/* An empty array with room for n lines (c->spare when it fits); false on failure. */
bool cl_lines_reserve(struct cleaner *c, struct cl_lines *a, size_t n);
/* The whole pages of [p, p + len) made present for writing without a store to them (another
 * thread may be writing the block); nothing where the kernel cannot (before Linux 5.14). */
void cl_populate(void *p, size_t len);
/* Scratch bytes for rewritten lines; NULL (and c->nomem) on failure. */
char *cl_alloc(struct cleaner *c, size_t n);

/* Character helpers. */
/* Runs of spaces are skipped a word at a time (blank.h): deep lines are mostly spaces. */
static inline bool cl_blank(const struct cl_line *l)
{
    /* Bound: i only moves forward, over the line once. */
    for (uint32_t i = 0; i < l->len; i++) {
        i = (uint32_t)blank_skip_spaces(l->p, i, l->len);
        if (i < l->len && l->p[i] != '\t')
            return false;
    }
    return true;
}

static inline uint32_t cl_indent(const char *p, uint32_t len)
{
    return (uint32_t)blank_skip_spaces(p, 0, len);
}

static inline bool cl_starts(const char *p, size_t len, const char *lit)
{
    size_t n = 0;
    while (lit[n])
        n++;
    return len >= n && memcmp(p, lit, n) == 0;
}

/* The string literal lit at p[i..] / at the end of p[0..len), lengths from sizeof. */
#define CL_AT(p, len, i, lit)                                                                      \
    ((i) + sizeof(lit) - 1 <= (len) && memcmp((p) + (i), (lit), sizeof(lit) - 1) == 0)
#define CL_ENDS(p, len, lit) ((len) >= sizeof(lit) - 1 && CL_AT(p, len, (len) - (sizeof(lit) - 1), lit))

/* Code points in a line (invalid bytes count as one each): a terminal's column count for
 * everything but wide characters. */
uint32_t cl_width(const char *p, uint32_t len);

/* What a line is, for the steps that must tell plan lines from the rest. */
enum cl_kind {
    K_BLANK,
    K_TREE,     /* [ :]* then "+- " or ":- " (AQE "+- == X Plan ==" headers included) */
    K_HEADER,   /* "== ... ==" */
    K_SECTION,  /* "=====", "Subquery:N", "Subplan:N", "Found N ...", "Generated code:",
                   a codegen line number, "-- !query" */
    K_DETAILS,  /* "(N) " at column 0 */
    K_FIELD,    /* "Output [4]: ", "Condition : ", "Join type: " ... at column 0 */
    K_OTHER,
};
/* What one look at a line tells, computed once and shared by the steps and the scan. */
/* 16 bytes: the wrap step keeps one for each line of the input (kind is an enum cl_kind
 * in a byte, after the columns, so nothing is padded). */
struct cl_facts {
    uint32_t content;   /* tree lines: column after the marker ("+- " or a final "+-"); else 0 */
    uint32_t marker;    /* tree lines: column of the marker */
    uint32_t colons;    /* ':' before the marker */
    uint8_t kind;       /* enum cl_kind */
    bool collapsed : 1; /* one of them lost its two spaces (": +- ", ":+- ", ": : ") */
    bool aqe_header : 1; /* a tree line whose content is "== X ==" */
    bool analyzed : 1;  /* the header "== Analyzed Logical Plan ==" (its schema line follows) */
    bool blank_end : 1; /* the line ends with a space or a tab (the trailing step's work) */
    /* What the tree step would otherwise read in the line itself (a cache miss a line on a
       deep plan, whose lines lie kilobytes apart).  Whole bytes, in the struct's padding: a
       bit would be a byte read and written back on every line of the quick scan. */
    bool bar_marker;     /* tree lines: the marker is ":-" (a child that is not the last) */
    bool lead_space;     /* the line starts with a space */
};
_Static_assert(sizeof(struct cl_facts) == 16, "one cl_facts per input line: keep it 16 bytes");
void cl_facts(const char *p, uint32_t len, struct cl_facts *f);
/* cl_facts, the lines Spark prints most told at a glance (cl_facts_quick, colons counted):
 * 270 instructions a line were a third of the wrap step on a big paste. */
void cl_facts_full(const char *p, uint32_t len, struct cl_facts *f);
/* cl_width of a line whose facts are known: its prefix is not looked at again. */
uint32_t cl_line_width(const struct cl_line *l, const struct cl_facts *f);
enum cl_kind cl_kind(const char *p, uint32_t len);
/* c->facts for every line of c->lines, computed when missing; false (c->nomem) on failure. */
bool cl_facts_all(struct cleaner *c);
/* "Output [4]: ", "Condition : ", "Join type: ", "Arguments: " ... a details field line at
 * column 0 (cl_facts' K_FIELD when no headline starts it). */
bool cl_is_field(const char *p, uint32_t len);
/* Column where a tree line's content starts (after its marker), 0 for other lines. */
uint32_t cl_tree_content_col(const char *p, uint32_t len);
/* "== ... ==" after optional blanks. */
bool cl_is_header(const char *p, uint32_t len);
/* A header that starts a plan or a section of one ("Plan" or "Subtree" in it). */
bool cl_is_plan_header(const char *p, uint32_t len);

/* A backslash then 'n' in the line (a quoted string with \\n escapes): the quick scan
 * and the literal step. */
bool cl_line_has_escaped_newline(const char *p, uint32_t len);

/* ---- the facts at a glance (the quick scan's, inline: it runs on every line) ---- */

/* The rest of a field's key from p[i] on, i bytes of it read as key bytes already: more
 * key bytes (48 at most in all), an optional " [N]", an optional ' ', then ':' at the end or
 * before a ' '.  cl_is_field and cl_is_field_quick differ only in how far they get before
 * this. */
static inline bool cl_field_key_rest(const char *p, uint32_t len, uint32_t i)
{
    /* Bound: keys are short; 48 characters at most are looked at. */
    while (i < len && i < 48 &&
           ((lex_key_char[(unsigned char)p[i]] & LEX_KEY_WORD) ||
            (p[i] == ' ' && i + 1 < len && p[i + 1] != ' ' && p[i + 1] != '[' &&
             p[i + 1] != ':')))
        i++;
    if (i + 1 < len && p[i] == ' ' && p[i + 1] == '[') {
        i += 2;
        while (i < len && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i >= len || p[i] != ']')
            return false;
        i++;
    }
    if (i < len && p[i] == ' ')
        i++;
    return i < len && p[i] == ':' && (i + 1 == len || p[i + 1] == ' ');
}

/* cl_is_field of a line whose last byte is no blank (' ' or '\t'), with room bytes readable
 * at p: len, or more when p[len] is a line's '\n'.  The key's first 16 bytes after its
 * capital are looked at in one round, where cl_is_field's loop (behind a call) took one
 * byte at a time: "Output [4]: " and its like are nearly every line of a details block.
 * A ' ' joins two words of the key when a byte follows it that is none of ' ', '[' and
 * ':'; the round reads that byte without asking whether the line holds it, which can only
 * differ for a ' ' in the line's last byte, and there is none. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool cl_is_field_quick(const char *p, uint32_t len, size_t room)
{
    if (!len || !(p[0] >= 'A' && p[0] <= 'Z'))
        return false;
    uint32_t i = 1;
#ifdef __SSE2__
    if (room >= 18) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
        const __m128i next = _mm_loadu_si128((const __m128i *)(const void *)(p + 2));
        const __m128i low = _mm_or_si128(v, _mm_set1_epi8(0x20)); /* 'A'..'Z' -> 'a'..'z' */
        /* Bytes above 0x7F are negative to the signed compares: no key byte. */
        __m128i word = _mm_or_si128(
            _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)),
                                       _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1))),
                         _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                       _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)))),
            _mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
        __m128i stop_next = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(next, _mm_set1_epi8(' ')),
                         _mm_cmpeq_epi8(next, _mm_set1_epi8('['))),
            _mm_cmpeq_epi8(next, _mm_set1_epi8(':')));
        __m128i joins = _mm_andnot_si128(stop_next, _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
        unsigned ok = (unsigned)_mm_movemask_epi8(_mm_or_si128(word, joins));
        /* The first byte that is neither ends the key (the line's '\n' at the latest). */
        i = ok != 0xFFFFu ? 1 + (uint32_t)__builtin_ctz(~ok) : 17;
    }
#else
    (void)room;
#endif
    return cl_field_key_rest(p, len, i);
}

/* The lines Spark prints most, told at a glance: a tree line whose prefix is whole units of
 * "   " and ":  " then "+- " or ":- ", a details header "(N) Name", a details field or root
 * at column 0 led by a capital that no headline can start (headline_capital_may_start).
 * For them the facts are what cl_facts finds, worked out from the shape (in such a prefix
 * no ':' lost its spaces and the marker ends it; without one nothing but the first byte
 * decides the prefix's facts), but for colons, left 0: only the tree step's rebuild reads
 * it, and the quick scan, the one caller, never runs that.  Every other line goes to
 * cl_facts.  Returns true for the shapes above (and the empty line), false for a line
 * cl_facts had to look at.
 * The line's last byte is no blank (' ' or '\t': the scan's callers take such lines apart
 * or trim them first), so blank_end is false.  room: the bytes that may be read from p, len
 * or more when p[len] is a line's '\n' (neither a prefix byte nor a key byte), so that the
 * prefix units can be told 48 bytes at a time and a field's key 16 at a time past the line's
 * end without finding one there.
 * Without field_kind a line at column 0 led by a capital is K_OTHER even when it is a
 * details field (K_FIELD): for a caller that knows the two cannot differ for it. */
/* Inlined into the scan's loop even where the compiler would not: the call, and the facts
   passed through memory, were 25 instructions a line. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool cl_facts_quick(const char *p, uint32_t len, size_t room, struct cl_facts *f,
                                  bool field_kind)
{
    if (!len) {
        memset(f, 0, sizeof *f); /* K_BLANK is 0 */
        return true;
    }
    char c0 = p[0];
    if (c0 == ' ' || c0 == ':' || c0 == '+') {
        uint32_t j = 0;
#ifdef __SSE2__
        /* Sixteen units a round of 48 bytes: a unit starts at every third byte, is ' ' or ':'
           there and ' ' elsewhere; in the round's three blocks of 16 the units start at
           bytes 0, 2 and 1 (mod 3).  The first byte that is neither ends the prefix in the
           unit it falls in (the line's '\n' at the latest, which is neither). */
        const __m128i sp = _mm_set1_epi8(' '), bar = _mm_set1_epi8(':');
        const __m128i at0 = _mm_setr_epi8(-1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0, -1);
        const __m128i at1 = _mm_setr_epi8(0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0);
        const __m128i at2 = _mm_setr_epi8(0, -1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0);
        /* Bound: 48 bytes a round, within room. */
        while (j + 48 <= room) {
            const char *q = p + j;
            __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)q);
            __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(q + 16));
            __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(q + 32));
            __m128i g0 = _mm_or_si128(_mm_cmpeq_epi8(v0, sp),
                                      _mm_and_si128(_mm_cmpeq_epi8(v0, bar), at0));
            __m128i g1 = _mm_or_si128(_mm_cmpeq_epi8(v1, sp),
                                      _mm_and_si128(_mm_cmpeq_epi8(v1, bar), at1));
            __m128i g2 = _mm_or_si128(_mm_cmpeq_epi8(v2, sp),
                                      _mm_and_si128(_mm_cmpeq_epi8(v2, bar), at2));
            uint64_t good = (uint64_t)(unsigned)_mm_movemask_epi8(g0) |
                            (uint64_t)(unsigned)_mm_movemask_epi8(g1) << 16 |
                            (uint64_t)(unsigned)_mm_movemask_epi8(g2) << 32;
            if (good != 0xFFFFFFFFFFFFull) {
                j += (uint32_t)__builtin_ctzll(~good) / 3 * 3;
                goto marker; /* the unit at j is no prefix unit */
            }
            j += 48;
        }
#else
        (void)room;
#endif
        /* Bound: 3 bytes a round, up to the line's end. */
        while (j + 3 <= len && (p[j] == ' ' || p[j] == ':') && p[j + 1] == ' ' && p[j + 2] == ' ')
            j += 3;
#ifdef __SSE2__
    marker:
#endif
        if (j + 2 < len && (p[j] == '+' || p[j] == ':') && p[j + 1] == '-' && p[j + 2] == ' ') {
            uint32_t content = j + 3;
            char c = content < len ? p[content] : '\0';
            *f = (struct cl_facts){
                .content = content,
                .marker = j,
                .kind = K_TREE,
                .aqe_header = (c == '=' || c == ' ' || c == '\t') &&
                              cl_is_header(p + content, len - content),
                .bar_marker = p[j] == ':',
                .lead_space = c0 == ' ',
            };
            return true;
        }
    } else if ((c0 >= 'A' && c0 <= 'Z' && !headline_capital_may_start(p, len)) || c0 == '(') {
        enum cl_kind kind = K_OTHER;
        if (c0 == '(') {
            uint32_t j = 1;
#ifdef __SSE2__
            if (room >= 17) { /* 16 digits a compare: "(20127) Scan parquet" */
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
                unsigned d = (unsigned)_mm_movemask_epi8(
                    _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1))));
                /* The first byte that is no digit (the line's '\n' at the latest). */
                j = d != 0xFFFFu ? 1 + (uint32_t)__builtin_ctz(~d) : 17;
            }
#endif
            /* Bound: up to the line's end. */
            while (j < len && p[j] >= '0' && p[j] <= '9')
                j++;
            if (j > 1 && j < len && p[j] == ')' && (j + 1 == len || p[j + 1] == ' '))
                kind = K_DETAILS;
        } else if (field_kind && cl_is_field_quick(p, len, room)) {
            kind = K_FIELD;
        }
        /* Whole: a field at a time was a byte read and written back for each bit. */
        *f = (struct cl_facts){.kind = (uint8_t)kind};
        return true;
    }
    cl_facts(p, len, f);
    return false;
}

#endif
