/* qscan_ref.h: the quick scan of the paste clean-up as it was before it learned the shapes
 * of Spark's lines (src/input/clean.c, clean_quick_scan), kept word for word as the
 * reference its verdicts are compared with: tests/check_clean.c (the corpus, mangled, and
 * generated plans) and tests/fuzz/fuzz_qscan.c.  Not in the program: only the test runner
 * and the fuzz target compile it.  It calls the line utilities of the core library
 * (cl_facts, cl_wrap_scan_line, cl_tree_check_line, cl_markup_line ...) as the scan did;
 * the static helpers of clean.c it used are copied here.
 */
#ifndef SPARKPLAN_TESTS_QSCAN_REF_H
#define SPARKPLAN_TESTS_QSCAN_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "../src/input/clean_impl.h"
#include "sparkplan/headline.h"

static bool ref_is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

enum ref_prefix_kind { RPX_NONE, RPX_HASH, RPX_SLASH, RPX_DASH, RPX_QUOTE };

static enum ref_prefix_kind ref_line_prefix(const struct cl_line *l, uint32_t indent)
{
    const char *p = l->p + indent;
    uint32_t n = l->len - indent;
    /* The prefixes start with different bytes: the first one tells which can match (this
       runs on every line, and most lines start with none of them). */
    enum ref_prefix_kind k;
    uint32_t pl;
    switch (n ? p[0] : '\0') {
    case '#': k = RPX_HASH, pl = 1; break;
    case '/': k = RPX_SLASH, pl = 2; break;
    case '-': k = RPX_DASH, pl = 2; break;
    case '>': return RPX_QUOTE;
    default: return RPX_NONE;
    }
    if (n < pl || p[pl - 1] != p[0])
        return RPX_NONE; /* "//" and "--" double their byte */
    if (n == pl || p[pl] == ' ')
        return k;
    /* "#+- X": a comment marker written without its space, only in a block. */
    if (k == RPX_HASH && (p[pl] == '+' || p[pl] == ':' || p[pl] == '='))
        return k;
    return RPX_NONE;
}

static uint32_t ref_rtrim_len(const struct cl_line *l)
{
    uint32_t len = l->len;
    while (len && (l->p[len - 1] == ' ' || l->p[len - 1] == '\t'))
        len--;
    return len;
}

static long ref_line_number_prefix(const struct cl_line *l, uint32_t *plen)
{
    uint32_t i = 0;
    long v = 0;
    while (i < l->len && ref_is_digit(l->p[i]) && i < 9) {
        v = v * 10 + (l->p[i] - '0');
        i++;
    }
    if (i < 2 || i >= l->len || l->p[i] != ' ')
        return -1;
    *plen = i + 1;
    return v;
}

/* "+-----+" (the closing '+' may have been lost in a copy) after optional indentation. */
static bool ref_is_table_border(const struct cl_line *l)
{
    /* The '+' first: it is what nearly every line fails on ('+' is no blank: the line's
       end, trimmed, lies past it). */
    uint32_t i = cl_indent(l->p, l->len);
    if (i >= l->len || l->p[i] != '+')
        return false;
    uint32_t len = ref_rtrim_len(l);
    uint32_t dashes = 0;
    for (uint32_t j = i + 1; j < len; j++) {
        if (l->p[j] == '-')
            dashes++;
        else if (l->p[j] != '+')
            return false;
    }
    return dashes >= 3;
}

enum { REF_MARK_CR = 1, REF_MARK_BACKSLASH = 2, REF_MARK_HIGH = 4 };

/* The end of the line at s (its '\n', or end), and in *marks whether a '\r', a '\\' or a byte
 * above 0x7F (REF_MARK_HIGH: the line's width is not its length) comes before it.  One pass
 * finds them all: a big input is read from memory once, where a memchr for each byte read
 * it three times, and cl_width does not read ASCII lines again. */
static const char *ref_line_end(const char *s, const char *end, unsigned *marks)
{
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), bs = _mm_set1_epi8('\\');
    const __m128i sp = _mm_set1_epi8(' ');
    const bool indented = s < end && *s == ' ';
    /* Bound: 16 bytes a round, up to the line's end. */
    while (end - s >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        /* Sixteen spaces (a deep line's indentation) hold none of the bytes sought. */
        if (indented && _mm_movemask_epi8(_mm_cmpeq_epi8(v, sp)) == 0xFFFF) {
            s += 16;
            continue;
        }
        unsigned n = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl));
        unsigned keep = n ? (n & (0u - n)) - 1 : 0xFFFFu; /* the bytes before a '\n' */
        /* One test for the three rare kinds of byte ('\r', '\\', top bit set), told
           apart only when one is there. */
        __m128i rare = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, bs)), v);
        if ((unsigned)_mm_movemask_epi8(rare) & keep) {
            unsigned c = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, cr));
            unsigned b = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs));
            unsigned h = (unsigned)_mm_movemask_epi8(v); /* the top bit of each byte */
            *marks |= ((c & keep) ? REF_MARK_CR : 0) | ((b & keep) ? REF_MARK_BACKSLASH : 0) |
                      ((h & keep) ? REF_MARK_HIGH : 0);
        }
        if (n)
            return s + __builtin_ctz(n);
        s += 16;
    }
#endif
    *marks |= REF_MARK_HIGH; /* the tail: not looked at, cl_width counts */
    const char *e = memchr(s, '\n', (size_t)(end - s));
    if (!e)
        e = end;
    if (memchr(s, '\r', (size_t)(e - s)))
        *marks |= REF_MARK_CR;
    if (memchr(s, '\\', (size_t)(e - s)))
        *marks |= REF_MARK_BACKSLASH;
    return e;
}

static bool ref_has_quote(const char *p, uint32_t len)
{
    return memchr(p, '"', len) || memchr(p, '\'', len);
}

static bool clean_quick_scan_ref(const char *s, size_t n)
{
    if (n >= 2 && (((unsigned char)s[0] == 0xFF && (unsigned char)s[1] == 0xFE) ||
                   ((unsigned char)s[0] == 0xFE && (unsigned char)s[1] == 0xFF)))
        return true;
    if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        return true;
    if (n > UINT32_MAX / 2)
        return false; /* too big to rewrite: read as it is */
    const char *end = s + n;
    struct cl_line prev = {"", 0, 0};
    enum cl_kind prev_kind = K_BLANK;
    struct cl_facts prev_f = {.kind = K_BLANK};
    enum ref_prefix_kind prev_prefix = RPX_NONE;
    long prev_number = -2;
    uint32_t prev_width = 0, nonblank = 0, trailing = 0;
    struct cl_wrap_scan ws;
    cl_wrap_scan_init(&ws);
    struct cl_tree_check tc = {0};
    bool dirty = false, doc_next = false;
    uint32_t line = 0;
    while (s < end && !dirty) {
        unsigned marks = 0;
        const char *le = ref_line_end(s, end, &marks);
        /* A '\r' anywhere (CRLF) is work for the clean-up. */
        if (marks & REF_MARK_CR) {
            dirty = true;
            break;
        }
        struct cl_line l = {s, (uint32_t)(le - s), ++line};
        s = le < end ? le + 1 : end;
        uint32_t raw_len = l.len;
        while (l.len && (l.p[l.len - 1] == ' ' || l.p[l.len - 1] == '\t'))
            l.len--;
        struct cl_facts f;
        cl_facts(l.p, l.len, &f);
        enum cl_kind kind = f.kind;
        uint32_t ind = cl_indent(l.p, l.len);
        if (kind != K_BLANK) {
            nonblank++;
            if (raw_len != l.len) {
                trailing++;
                if (kind == K_TREE || kind == K_HEADER)
                    dirty = true;
            }
            /* The checks below look at the first character first: most lines of a big
               plan start with spaces and a marker and are done after two compares. */
            char c0 = l.p[ind];
            if (c0 == '\t' || c0 == '|' || (c0 == '+' && ref_is_table_border(&l)))
                dirty = true;
            enum ref_prefix_kind px = c0 == '#' || c0 == '/' || c0 == '-' || c0 == '>'
                                      ? ref_line_prefix(&l, ind)
                                      : RPX_NONE;
            if (px != RPX_NONE && px == prev_prefix)
                dirty = true;
            prev_prefix = px;
            uint32_t plen;
            long num = ref_is_digit(l.p[0]) ? ref_line_number_prefix(&l, &plen) : -1;
            if (num >= 0 && num == prev_number + 1)
                dirty = true;
            prev_number = num;
            if (ind > 0 && (prev_kind == K_BLANK || line == 1) && !f.content)
                dirty = true;
            if (ind > 0 && c0 == '=' && kind == K_HEADER)
                dirty = true;
            if ((marks & REF_MARK_BACKSLASH) && ref_has_quote(l.p, l.len) &&
                cl_line_has_escaped_newline(l.p, l.len))
                dirty = true;
            if ((c0 == '<' || c0 == '#' || c0 == '-' || c0 == '/' || c0 == '*' || doc_next) &&
                cl_markup_line(l.p, l.len, ind, &doc_next))
                dirty = true;
        } else {
            prev_prefix = RPX_NONE;
            prev_number = -2;
        }
        uint32_t width = (marks & REF_MARK_HIGH) ? cl_line_width(&l, &f) : l.len;
        cl_wrap_scan_line(&ws, &prev, &prev_f, prev_width, &l, &f, width);
        /* The checker only looks at tree lines and the lines that end a block. */
        if (f.content || kind == K_BLANK || kind == K_HEADER || kind == K_SECTION) {
            if (!cl_tree_check_line(&tc, &f))
                dirty = true; /* out of memory: let the full pass decide */
            if (tc.bad || tc.collapsed_colons)
                dirty = true;
        }
        prev = l;
        prev_f = f;
        prev_kind = kind;
        prev_width = width;
    }
    cl_tree_check_free(&tc);
    if (dirty)
        return true;
    /* Terminal padding: most lines end in blanks. */
    if (nonblank >= 4 && trailing * 2 > nonblank)
        return true;
    return cl_wrap_scan_dirty(&ws);
}

#endif
