/* lines.c: the line utilities of the paste clean-up (see lines.h): line arrays and their
 * memory, column widths, and what one look at a line tells (cl_facts).  clean.c and its
 * steps (clean_wrap.c, clean_tree.c, clean_literal.c) call these; they call none of them.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "lines.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sparkplan/freshmem.h"
#include "sparkplan/headline.h"
#include "sparkplan/lex.h"

/* ---- line arrays and scratch ----------------------------------------------------------- */

/* From this size on, a block cl_take gets from malloc is asked to be huge pages: the line
   array of an event log's decoded plan (millions of lines, 40 MB) took a fault every 4 KB as
   it was filled. */
#define CL_HUGE_MIN ((size_t)4 << 20)

/* cl_push() when the array is full (it doubles) or the line too long (a failure). */
bool cl_push_grow(struct cleaner *c, struct cl_lines *a, const char *p, size_t len, uint32_t orig)
{
    if (len > UINT32_MAX) {
        c->nomem = true;
        return false;
    }
    if (a->n == a->cap && a->borrowed) {
        if (!cl_lines_reserve(c, a, a->cap < 128 ? 256 : a->cap * 2))
            return false;
    } else if (a->n == a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 256;
        struct cl_line *nv = ncap > a->cap ? realloc(a->v, ncap * sizeof *nv) : NULL;
        if (!nv) {
            c->nomem = true;
            return false;
        }
        a->v = nv;
        a->cap = ncap;
    }
    a->v[a->n].p = p;
    a->v[a->n].len = (uint32_t)len;
    a->v[a->n].orig = orig;
    a->n++;
    return true;
}

bool cl_push_lines(struct cleaner *c, struct cl_lines *a, const struct cl_line *v, size_t count)
{
    if (!count)
        return true;
    if (a->cap - a->n < count) {
        size_t want = a->n + count, twice = a->cap * 2;
        if (!cl_lines_reserve(c, a, want > twice ? want : twice))
            return false;
    }
    memcpy(a->v + a->n, v, count * sizeof *v);
    a->n += count;
    return true;
}

void cl_lines_free(struct cl_lines *a)
{
    if (!a->borrowed)
        free(a->v);
    a->borrowed = false;
    a->v = NULL;
    a->n = a->cap = 0;
}

void *cl_take(struct cleaner *c, size_t bytes)
{
    if (c->spare && c->spare_size >= bytes) {
        void *p = c->spare;
        c->spare = NULL;
        c->spare_size = 0;
        return p;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        c->nomem = true;
    else if (bytes >= CL_HUGE_MIN)
        freshmem_advise(p, bytes);
    return p;
}

void cl_give(struct cleaner *c, void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes <= c->spare_size) {
        free(p);
        return;
    }
    free(c->spare);
    c->spare = p;
    c->spare_size = bytes;
}

bool cl_lines_reserve(struct cleaner *c, struct cl_lines *a, size_t n)
{
    if (a->cap >= n)
        return true;
    if (n > SIZE_MAX / sizeof *a->v) {
        c->nomem = true;
        return false;
    }
    struct cl_line *v = cl_take(c, n * sizeof *v);
    if (!v)
        return false;
    if (a->n)
        memcpy(v, a->v, a->n * sizeof *v);
    if (!a->borrowed)
        free(a->v);
    a->borrowed = false;
    a->v = v;
    a->cap = n;
    return true;
}

void cl_replace(struct cleaner *c, struct cl_lines *a)
{
    cl_give(c, c->lines.v, c->lines.cap * sizeof *c->lines.v);
    c->lines.v = NULL;
    c->lines.n = c->lines.cap = 0;
    free(c->facts);
    c->facts = NULL;
    c->lines = *a;
    a->v = NULL;
    a->n = a->cap = 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

void cl_populate(void *p, size_t len)
{
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + len) & ~(uintptr_t)4095;
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

char *cl_alloc(struct cleaner *c, size_t n)
{
    char *p = arena_alloc(&c->scratch, n ? n : 1);
    if (!p)
        c->nomem = true;
    return p;
}

uint32_t cl_width(const char *p, uint32_t len)
{
    /* Continuation bytes (0x80-0xBF: below -64 as signed bytes) counted 16 at a time, ASCII
       blocks skipped after one test; a line of 16 bytes or more has its last bytes read in
       one overlapping block too.  This runs on every line the wrap step sees. */
    uint32_t cont = 0, i = 0;
#ifdef __SSE2__
    const __m128i below = _mm_set1_epi8(-64);
    for (; i + 16 <= len; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        if (_mm_movemask_epi8(v))
            cont += (uint32_t)__builtin_popcount(
                (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, below)));
    }
    if (i < len && len >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + len - 16));
        /* The block's first 16 - (len - i) bytes were counted above. */
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, below)) >> (16 - (len - i));
        if (m)
            cont += (uint32_t)__builtin_popcount(m);
        i = len;
    }
#endif
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (!(w & 0x8080808080808080ull))
            continue;
        for (uint32_t k = i; k < i + 8; k++)
            cont += ((unsigned char)p[k] & 0xC0) == 0x80;
    }
    for (; i < len; i++)
        cont += ((unsigned char)p[i] & 0xC0) == 0x80;
    return len - cont;
}

/* ---- line classification --------------------------------------------------------------- */

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

bool cl_is_header(const char *p, uint32_t len)
{
    return headline_is_title(p, len);
}

bool cl_is_plan_header(const char *p, uint32_t len)
{
    if (!cl_is_header(p, len))
        return false;
    /* "== Physical Plan ==", "== Parsed Logical Plan ==", "== Subtree 1 / 2 (...) ==", not
       "== SQL ==" of an error message. */
    for (uint32_t i = 0; i + 4 <= len; i++)
        if (CL_AT(p, len, i, "Plan") || CL_AT(p, len, i, "Subtree"))
            return true;
    return false;
}

/* The set bits of a 16-bit mask (__builtin_popcount is a libgcc call without -mpopcnt). */
static inline uint32_t bits16(unsigned x)
{
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (x + (x >> 8)) & 0x1Fu;
}

#ifdef __SSE2__
/* Bars that lost their spaces (": : : +- ", 2,000 of them on a line of a 100,000-deep chain
 * whose spaces a web page collapsed) took a round of prefix_scan each, 75 % of that chain's
 * clean-up.  This reads the bytes at p (p[0] a ':' without two spaces after it; room bytes
 * readable, 17 or more) 16 at a time as prefix_scan would: the prefix goes on over ' ' and
 * ':' up to a ':' before a '-'; each ':' is counted.  The byte after each comes from the
 * block loaded at +1.  Returns the bytes taken (1 or more): at a byte the prefix stops at,
 * or with fewer than 17 bytes left, prefix_scan goes on.  Whether a ':' in them has its two
 * spaces does not matter: p[0] has not, so the line is a collapsed one anyway. */
static size_t collapsed_bars(const char *p, size_t room, uint32_t *colons)
{
    const __m128i sp = _mm_set1_epi8(' '), bar = _mm_set1_epi8(':'), dash = _mm_set1_epi8('-');
    size_t i = 0;
    /* Bound: 16 bytes a round, or the last round. */
    while (i + 17 <= room) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
        unsigned space = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, sp));
        unsigned bars = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, bar));
        unsigned dash_next = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, dash));
        unsigned stop = (~(space | bars) | (bars & dash_next)) & 0xFFFFu;
        if (!stop) {
            *colons += bits16(bars);
            i += 16;
            continue;
        }
        unsigned k = (unsigned)__builtin_ctz(stop); /* >= 1 in the first round: p[0] */
        *colons += bits16(bars & ((1u << k) - 1));
        return i + k;
    }
    return i;
}
#endif

/* The tree prefix: [ :]* then "+- " or ":- " (or a final "+-" of a cut line). */
static void prefix_scan(const char *p, uint32_t len, struct cl_facts *f)
{
    uint32_t j = 0, colons = 0;
    bool collapsed = false;
    /* Bound: j only moves forward; deep lines are mostly spaces, skipped a word at a time. */
    for (;;) {
        j = (uint32_t)blank_skip_spaces(p, j, len);
        if (j >= len)
            break;
        if (p[j] != ':' || (j + 1 < len && p[j + 1] == '-'))
            break;
        bool spaced = j + 2 < len && p[j + 1] == ' ' && p[j + 2] == ' ';
#ifdef __SSE2__
        if (!spaced && (size_t)j + 17 <= len) {
            j += (uint32_t)collapsed_bars(p + j, len - j, &colons);
            collapsed = true;
            continue;
        }
#endif
        colons++;
        if (!spaced)
            collapsed = true;
        j++;
    }
    f->marker = j;
    f->colons = colons;
    f->collapsed = collapsed;
    f->content = 0;
    f->bar_marker = false;
    if (j + 1 < len && (p[j] == '+' || p[j] == ':') && p[j + 1] == '-' &&
        (j + 2 == len || p[j + 2] == ' ')) {
        f->content = j + 2 + (j + 2 < len);
        f->bar_marker = p[j] == ':';
    }
}

static uint32_t tree_prefix_len(const char *p, uint32_t len)
{
    struct cl_facts f;
    prefix_scan(p, len, &f);
    return f.content;
}

uint32_t cl_tree_content_col(const char *p, uint32_t len)
{
    return tree_prefix_len(p, len);
}

/* Where the loop of is_field below goes on from: 1, or past the key bytes 16 at a time
 * while the line holds 17 more (the byte after each is looked at), as the loop would step
 * over them: a letter, a digit or '_', or a ' ' that no ' ', '[' or ':' follows. */
static uint32_t field_key_end(const char *p, uint32_t len)
{
    uint32_t i = 1;
#ifdef __SSE2__
    const uint32_t lim = len < 48 ? len : 48;
    const __m128i lower_bit = _mm_set1_epi8(0x20);
    const __m128i a1 = _mm_set1_epi8('a' - 1), z1 = _mm_set1_epi8('z' + 1);
    const __m128i d1 = _mm_set1_epi8('0' - 1), d9 = _mm_set1_epi8('9' + 1);
    const __m128i sp = _mm_set1_epi8(' '), us = _mm_set1_epi8('_');
    const __m128i open = _mm_set1_epi8('['), colon = _mm_set1_epi8(':');
    /* Bound: 16 bytes a round, 48 at most.  Bytes above 0x7F are negative to the signed
       compares: no key byte, as in lex_key_char. */
    while (i + 16 <= lim && i + 17 <= len) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i next = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
        __m128i low = _mm_or_si128(v, lower_bit); /* 'A'..'Z' -> 'a'..'z' */
        __m128i word = _mm_or_si128(
            _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(low, a1), _mm_cmplt_epi8(low, z1)),
                         _mm_and_si128(_mm_cmpgt_epi8(v, d1), _mm_cmplt_epi8(v, d9))),
            _mm_cmpeq_epi8(v, us));
        __m128i stop_next = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(next, sp),
                                                      _mm_cmpeq_epi8(next, open)),
                                         _mm_cmpeq_epi8(next, colon));
        __m128i joins = _mm_andnot_si128(stop_next, _mm_cmpeq_epi8(v, sp));
        unsigned ok = (unsigned)_mm_movemask_epi8(_mm_or_si128(word, joins));
        if (ok != 0xFFFFu)
            return i + (uint32_t)__builtin_ctz(~ok);
        i += 16;
    }
#endif
    return i;
}

/* "Output [4]: ", "Condition : ", "Join type: ", "Arguments: " ... a details field line. */
bool cl_is_field(const char *p, uint32_t len)
{
    if (!len || !(p[0] >= 'A' && p[0] <= 'Z'))
        return false;
    return cl_field_key_rest(p, len, field_key_end(p, len));
}

static enum cl_kind kind_of(const char *p, uint32_t len, const struct cl_facts *f)
{
    if (f->content)
        return K_TREE;
    uint32_t i = cl_indent(p, len);
    while (i < len && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (i == len)
        return K_BLANK;
    /* Section lines (headline.h): "== ... ==" and "=====" ones may be indented, the others
       ("Subquery:1", "Found 3 ...", "-- !query", a code line number ...) start at column 0. */
    if ((i == 0 || p[i] == '=') && headline_first_byte(p[i])) {
        enum head_kind h = headline_kind(p + i, len - i);
        if (headline_kind_is_title(h))
            return K_HEADER;
        if (h != HEAD_NONE)
            return K_SECTION;
    }
    if (i > 0)
        return K_OTHER;
    if (p[0] == '(') {
        uint32_t j = 1;
        while (j < len && is_digit(p[j]))
            j++;
        if (j > 1 && j < len && p[j] == ')' && (j + 1 == len || p[j + 1] == ' '))
            return K_DETAILS;
    }
    if (cl_is_field(p, len))
        return K_FIELD;
    return K_OTHER;
}

void cl_facts(const char *p, uint32_t len, struct cl_facts *f)
{
    if (len && p[0] != ' ' && p[0] != ':' && p[0] != '+') {
        /* No prefix (details lines, roots, text): what prefix_scan finds at once. */
        f->marker = f->colons = f->content = 0;
        f->collapsed = false;
        f->bar_marker = false;
        f->lead_space = false;
    } else {
        prefix_scan(p, len, f);
        f->lead_space = len && p[0] == ' ';
    }
    f->kind = kind_of(p, len, f);
    f->aqe_header = f->content && cl_is_header(p + f->content, len - f->content);
    f->analyzed = f->kind == K_HEADER && cl_starts(p, len, "== Analyzed");
    f->blank_end = len && (p[len - 1] == ' ' || p[len - 1] == '\t');
}

/* ':' bytes in p[0..n). */
static uint32_t count_colons(const char *p, uint32_t n)
{
    uint32_t k = 0, i = 0;
#ifdef __SSE2__
    const __m128i bar = _mm_set1_epi8(':');
    for (; i + 16 <= n; i += 16)
        k += (uint32_t)__builtin_popcount((unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), bar)));
#endif
    for (; i < n; i++)
        k += p[i] == ':';
    return k;
}

void cl_facts_full(const char *p, uint32_t len, struct cl_facts *f)
{
    /* cl_facts_quick wants no blank at the end (its field test reads a byte past a ' '). */
    if (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) {
        cl_facts(p, len, f);
        return;
    }
    /* room: len, nothing past the line is read (the line may end its block). */
    if (cl_facts_quick(p, len, len, f, true) && f->kind == K_TREE && f->marker)
        f->colons = count_colons(p, f->marker); /* whole units: a ':' starts each bar unit */
}

uint32_t cl_line_width(const struct cl_line *l, const struct cl_facts *f)
{
    /* Everything before the marker is a space or a ':' (prefix_scan): a column a byte. */
    uint32_t m = f->marker < l->len ? f->marker : l->len;
    return m + cl_width(l->p + m, l->len - m);
}

enum cl_kind cl_kind(const char *p, uint32_t len)
{
    struct cl_facts f;
    cl_facts(p, len, &f);
    return f.kind;
}

bool cl_facts_all(struct cleaner *c)
{
    if (c->facts)
        return true;
    c->facts = malloc((c->lines.n ? c->lines.n : 1) * sizeof *c->facts);
    if (!c->facts) {
        c->nomem = true;
        return false;
    }
    for (size_t i = 0; i < c->lines.n; i++)
        cl_facts(c->lines.v[i].p, c->lines.v[i].len, &c->facts[i]);
    return true;
}

/* ---- the quick scan's line test, shared with the literal step ---------------------------- */

/* A backslash followed by 'n', escaped or not ("\\n" is a string escaped twice). */
bool cl_line_has_escaped_newline(const char *p, uint32_t len)
{
    const char *s = p, *end = p + len;
#ifdef __SSE2__
    /* The backslashes of 16 bytes in one compare: this runs on every line a decoded string
       became (millions for an event log's plan), most of them short and holding none. */
    const __m128i bs = _mm_set1_epi8('\\');
    for (; end - s >= 16; s += 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)s), bs));
        /* Bound: one round for each backslash of the block. */
        for (; m; m &= m - 1) {
            const char *b = s + __builtin_ctz(m);
            if (b + 1 < end && b[1] == 'n')
                return true;
        }
    }
#endif
    while (s < end) {
        const char *b = memchr(s, '\\', (size_t)(end - s));
        if (!b || b + 1 >= end)
            return false;
        if (b[1] == 'n')
            return true;
        s = b + 1;
    }
    return false;
}

/* The rules are argued above decoded_text_done in clean.c: a blank at the end, a
   numberedTreeString number first, an indented line after a blank line (or first), or one
   that reads as a header or a section line once its indentation is cut. */
bool cl_line_needs_steps(const struct cl_line *l, bool after_blank)
{
    if (!l->len)
        return false;
    char last = l->p[l->len - 1];
    if (last == ' ' || last == '\t')
        return true;
    uint32_t plen;
    if (l->p[0] >= '0' && l->p[0] <= '9' && cl_line_number_prefix(l, &plen) >= 0)
        return true;
    uint32_t ind = cl_indent(l->p, l->len);
    if (!ind)
        return false;
    if (after_blank)
        return true;
    const char *t = l->p + ind;
    uint32_t n = l->len - ind;
    return t[0] == '=' || (headline_first_byte(t[0]) && headline_kind(t, n) != HEAD_NONE);
}
