/* clean_literal.c: plans inside quoted strings (see clean_impl.h).
 *
 * `Row(plan='== Physical Plan ==\n...')`, `[Row(plan="...")]`, `'== Physical Plan ==\n...'`,
 * a JSON string ("physicalPlanDescription": "..."), a notebook's "text": ["...\n", "...\n"]
 * array, pprint's implicitly concatenated chunks: the string is decoded (Python and JSON
 * escapes) and its lines replace the quoted text.
 * A candidate is a quoted string holding a \n escape.  Consecutive lines with candidates form
 * a run; a run is decoded only when one of its strings holds something a plan starts with,
 * so Java code in a codegen dump ("\n" in a string) is left alone.  Around the strings,
 * punctuation (`Row(plan=`, `Out[3]:`, `),`, `]`) is dropped and any other text is kept on a
 * line of its own.  Twice-escaped strings (a notebook showing a repr) take a second pass.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "clean_impl.h"
#include "sparkplan/clean.h"
#include "sparkplan/mapfile.h"
#include "sparkplan/thread.h"

struct lit {
    uint32_t a, b;  /* opening and closing quote offsets */
    bool nl;        /* holds a \n escape (how many: newline_escapes) */
};

struct lits {
    struct lit *v;
    size_t n, cap;
};

static bool lits_push(struct lits *l, uint32_t a, uint32_t b, bool nl)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        struct lit *nv = realloc(l->v, ncap * sizeof *nv);
        if (!nv)
            return false;
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n].a = a;
    l->v[l->n].b = b;
    l->v[l->n].nl = nl;
    l->n++;
    return true;
}

static bool opens_literal(const char *p, uint32_t i)
{
    if (i == 0)
        return true;
    char prev = p[i - 1];
    if (strchr(" \t([{,=:+", prev))
        return true;
    /* String prefixes u'..' b'..' r'..', themselves after an opener. */
    if (strchr("ubrUBR", prev))
        return i == 1 || strchr(" \t([{,=:+", p[i - 2]);
    return false;
}

/* The first index at or after i of a byte equal to a or b, or len.  A plan in an event log is
 * one JSON line of up to hundreds of megabytes: it is walked 16 bytes a step. */
static uint32_t next_of(const char *p, uint32_t len, uint32_t i, char a, char b)
{
    if (i >= len)
        return len; /* an escape's second byte was the last */
#ifdef __SSE2__
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
    /* Bound: 16 bytes a round, up to the first match. */
    while (len - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)));
        if (m)
            return i + (uint32_t)__builtin_ctz(m);
        i += 16;
    }
#endif
    while (i < len && p[i] != a && p[i] != b)
        i++;
    return i;
}

/* A backslash at p[j]: does it start "\n", or "\\n" of a string escaped twice (decoded by a
 * second pass)? */
static bool escapes_newline(const char *p, uint32_t len, uint32_t j)
{
    return j + 1 < len && (p[j + 1] == 'n' || (p[j + 1] == '\\' && j + 2 < len && p[j + 2] == 'n'));
}

/* The closing quote q of the string whose body starts at j, found a byte at a time (an
 * escape's two bytes skipped), or len when the line ends first; *nls counts the body's \n
 * escapes.  What string_end finds 16 bytes a step, and the count of newline_escapes. */
static uint32_t string_end_bytes(const char *p, uint32_t len, uint32_t j, char q, uint32_t *nls)
{
    /* Bound: j only moves forward. */
    while (j < len) {
        if (p[j] == q)
            return j;
        if (p[j] == '\\') {
            *nls += escapes_newline(p, len, j);
            j += 2;
        } else {
            j++;
        }
    }
    return len;
}

/* The closing quote q in [at, stop) of the string whose body starts at j, j not covered by an
 * escape (at >= j): the first quote after an even
 * run of backslashes (none, or pairs "\\\\"), the run counted back to j at most (an escape
 * is a backslash and the byte after it: a backslash that no escape covers starts one, so of
 * a run of them the second, fourth... are covered, and the byte after it when the run is
 * odd).  Or stop.  Only the quotes are looked at, 64 bytes a step: a plan's body has a
 * backslash every few dozen bytes and few quotes. */
static uint32_t closing_quote_in(const char *p, uint32_t at, uint32_t stop, uint32_t j, char q)
{
#ifdef __SSE2__
    const __m128i vq = _mm_set1_epi8(q);
    /* Bound: 64 bytes a round (the quotes of four blocks of 16 in one word). */
    for (; stop - at >= 64; at += 64) {
        const __m128i *v = (const __m128i *)(const void *)(p + at);
        uint64_t m =
            (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(v), vq)) |
            (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(v + 1), vq)) << 16 |
            (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(v + 2), vq)) << 32 |
            (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(v + 3), vq)) << 48;
        for (; m; m &= m - 1) {
            uint32_t k = at + (uint32_t)__builtin_ctzll(m), r = k;
            /* Bound: back over this quote's run of backslashes, to j at most. */
            while (r > j && p[r - 1] == '\\')
                r--;
            if ((k - r) % 2 == 0)
                return k; /* k >= j: the rounds start at j or later */
        }
    }
#endif
    /* Bound: one round a byte of the rest. */
    for (; at < stop; at++)
        if (p[at] == q) {
            uint32_t r = at;
            while (r > j && p[r - 1] == '\\')
                r--;
            if ((at - r) % 2 == 0)
                return at;
        }
    return stop;
}

/* From this many bytes on, closing_quote looks at the back half on a second thread at once
 * (an event log's plan: 4-6 ms on one core for the benchmark's 100 MB string). */
#define QUOTE_HALVES_MIN ((size_t)8 << 20)

struct quote_half {
    const char *p;
    uint32_t from, stop, j;
    char q;
    uint32_t hit;
};

static void *quote_half_main(void *arg)
{
    struct quote_half *h = arg;
    h->hit = closing_quote_in(h->p, h->from, h->stop, h->j, h->q);
    return NULL;
}

static uint32_t closing_quote(const char *p, uint32_t len, uint32_t j, char q)
{
    /* Whether a quote closes the string depends only on the backslashes right before it, so
       each half is looked at on its own; the front half's answer comes first. */
    bool halves = cl_halves_for(len - j, len - j >= QUOTE_HALVES_MIN);
    uint32_t mid = j + (len - j) / 2;
    struct quote_half back = {p, mid, len, j, q, len};
    pthread_t th;
    if (!halves || mid == j || !thread_start_quiet(&th, quote_half_main, &back))
        return closing_quote_in(p, j, len, j, q);
    uint32_t hit = closing_quote_in(p, j, mid, j, q);
    pthread_join(th, NULL);
    return hit < mid ? hit : back.hit;
}

/* The closing quote q of the string whose body starts at j (an escape's two bytes skipped),
 * or len when the line ends first; *nl says whether the body holds a \n escape
 * (escapes_newline).  The body of an event log's plan is hundreds of megabytes with an
 * escape every few dozen bytes: its escapes are walked, 16 bytes a step, only up to its first
 * \n escape; from there only its quotes are looked at (closing_quote), where each escape
 * took a step of the walk (60 instructions a line of the plan). */
static uint32_t string_end(const char *p, uint32_t len, uint32_t j, char q, bool *nl)
{
    uint32_t nls = 0;
#ifdef __SSE2__
    const __m128i vb = _mm_set1_epi8('\\'), vq = _mm_set1_epi8(q);
    /* Every backslash and quote of a block in turn; j is the first byte no escape covers (a
       backslash at a block's end covers the next block's first byte).  Bound: 16 bytes a
       round. */
    uint32_t at = j;
    for (; len - at >= 16 && at < len; at += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + at));
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, vb), _mm_cmpeq_epi8(v, vq)));
        for (; m; m &= m - 1) {
            uint32_t k = at + (uint32_t)__builtin_ctz(m);
            if (k < j)
                continue; /* the byte after a backslash */
            if (p[k] == q) {
                *nl = false;
                return k;
            }
            j = k + 2;
            if (escapes_newline(p, len, k)) {
                *nl = true;
                return j < len ? closing_quote(p, len, j, q) : len;
            }
        }
    }
    if (j < at)
        j = at;
#endif
    uint32_t end = string_end_bytes(p, len, j, q, &nls);
    *nl = nls != 0;
    return end;
}

uint32_t clean_string_end(const char *p, uint32_t len, uint32_t from, char quote, bool *nl,
                          bool by_blocks)
{
    if (by_blocks)
        return string_end(p, len, from, quote, nl);
    uint32_t nls = 0, end = string_end_bytes(p, len, from, quote, &nls);
    *nl = nls != 0;
    return end;
}

/* The \n escapes of the string x of a line p[0..len) (escapes_newline), counted. */
static uint32_t newline_escapes(const char *p, uint32_t len, const struct lit *x)
{
    uint32_t nls = 0;
    (void)string_end_bytes(p, len, x->a + 1, p[x->a], &nls);
    return nls;
}

/* The quoted strings of one line; returns false on allocation failure. */
static bool find_literals(const char *p, uint32_t len, struct lits *out)
{
    out->n = 0;
    uint32_t i = 0;
    while (i < len) {
        char q = p[i];
        if ((q != '"' && q != '\'') || !opens_literal(p, i)) {
            i = next_of(p, len, i + 1, '"', '\'');
            continue;
        }
        bool nl;
        uint32_t j = string_end(p, len, i + 1, q, &nl);
        if (j >= len)
            return true; /* the rest of the line is an unterminated string: not ours */
        if (!lits_push(out, i, j, nl))
            return false;
        i = j + 1;
    }
    return true;
}

/* A plan header, read in the still-escaped text. */
/* "Plan ==" as it is, or as Gson writes it (a Zeppelin note escapes '=' as \u003d). */
static bool raw_has_header(const char *p, uint32_t len)
{
    static const char plan[] = "Plan ==", gson[] = "Plan \\u003d\\u003d";
    static const char found[] = "WholeStageCodegen subtrees";
    for (uint32_t i = 0; i + sizeof plan - 1 <= len; i++)
        if (p[i] == 'P' && (CL_AT(p, len, i, plan) || CL_AT(p, len, i, gson)))
            return true;
    for (uint32_t i = 0; i + sizeof found - 1 <= len; i++)
        if (p[i] == 'W' && CL_AT(p, len, i, found))
            return true;
    return false;
}

/* A tree marker at the start of the string or of an escaped line. */
static bool raw_has_marker(const char *p, uint32_t len)
{
    for (uint32_t i = 0; i + 2 < len; i++) {
        if (!((p[i] == '+' || p[i] == ':') && p[i + 1] == '-' && p[i + 2] == ' '))
            continue;
        uint32_t k = i;
        /* Bound: walks back over the blanks and bars (and a numberedTreeString "01 ")
           before this marker only. */
        while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == ':' || (p[k - 1] >= '0' && p[k - 1] <= '9')))
            k--;
        if (k == 0 || (k >= 2 && p[k - 1] == 'n' && p[k - 2] == '\\'))
            return true;
    }
    return false;
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static bool read_hex(const char *p, uint32_t len, uint32_t at, uint32_t digits, uint32_t *value)
{
    if (at + digits > len)
        return false;
    uint32_t v = 0;
    for (uint32_t k = 0; k < digits; k++) {
        int h = hex_value(p[at + k]);
        if (h < 0)
            return false;
        v = v * 16 + (uint32_t)h;
    }
    *value = v;
    return true;
}

static size_t put_utf8(char *o, uint32_t u)
{
    if (u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF))
        u = 0xFFFD;
    if (u < 0x80) {
        o[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        o[0] = (char)(0xC0 | u >> 6);
        o[1] = (char)(0x80 | (u & 0x3F));
        return 2;
    }
    if (u < 0x10000) {
        o[0] = (char)(0xE0 | u >> 12);
        o[1] = (char)(0x80 | ((u >> 6) & 0x3F));
        o[2] = (char)(0x80 | (u & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | u >> 18);
    o[1] = (char)(0x80 | ((u >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((u >> 6) & 0x3F));
    o[3] = (char)(0x80 | (u & 0x3F));
    return 4;
}

/* Where decoded lines are assembled: one buffer per run, lines are slices of it. */
struct assembler {
    struct cleaner *c;
    struct cl_lines *out;
    char *buf;
    size_t used;
    size_t open_start;  /* start of the line being built */
    uint32_t open_orig;
    bool open;          /* a line is being built (possibly empty after a string's "\n") */
    bool open_has_text;
    uint32_t string_orig; /* the input line of the string being decoded */
    bool in_place;        /* buf is the run's own lines in the input (never ahead of them) */
    bool more;            /* a backslash was written, or text kept: another pass may decode */
    /* Compact (lines.h, c->compact): the lines are counted and looked at as they end, not
       pushed; a '\r' cut from a line's end is noted (the text is then not the lines). */
    bool compact;
    bool cut_cr;
    bool after_blank;     /* cl_line_needs_steps' state: the line before was blank, or none */
    bool needs_steps;
    uint32_t n_lines;
};

static bool asm_break(struct assembler *as, size_t k);
static void asm_compact_line(struct assembler *as, const char *p, size_t len, size_t len_cut);
static inline __attribute__((always_inline)) void compact_break(struct assembler *as, size_t k);

/* One escape at p[*i] (a backslash, or a raw '\n') written at o[*n]; both move past it.  A
 * '\n' written ends the line being assembled (asm_break at its offset base + its place). */
static bool decode_one(struct assembler *as, size_t base, const char *p, uint32_t len,
                       uint32_t *i_io, char *o, size_t *n_io)
{
    uint32_t i = *i_io;
    size_t n = *n_io;
    char ch = p[i];
    if (ch != '\\' || i + 1 >= len) {
        o[n++] = ch;
        i++;
    } else {
        char e = p[i + 1];
        uint32_t u;
        i += 2;
        switch (e) {
        case 'n': o[n++] = '\n'; break;
        case 't': o[n++] = '\t'; break;
        case 'r': o[n++] = '\r'; break;
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'v': o[n++] = '\v'; break;
        case 'a': o[n++] = '\a'; break;
        case '\\': case '\'': case '"': case '/': o[n++] = e; break;
        case 'x':
            if (read_hex(p, len, i, 2, &u)) {
                n += put_utf8(o + n, u);
                i += 2;
            } else {
                o[n++] = '\\';
                o[n++] = e;
            }
            break;
        case 'u':
            if (read_hex(p, len, i, 4, &u)) {
                i += 4;
                uint32_t lo;
                if (u >= 0xD800 && u <= 0xDBFF && i + 1 < len && p[i] == '\\' && p[i + 1] == 'u' &&
                    read_hex(p, len, i + 2, 4, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
                n += put_utf8(o + n, u);
            } else {
                o[n++] = '\\';
                o[n++] = e;
            }
            break;
        case 'U':
            if (read_hex(p, len, i, 8, &u)) {
                n += put_utf8(o + n, u);
                i += 8;
            } else {
                o[n++] = '\\';
                o[n++] = e;
            }
            break;
        default:
            if (e >= '0' && e <= '7') {
                u = (uint32_t)(e - '0');
                for (int k = 0; k < 2 && i < len && p[i] >= '0' && p[i] <= '7'; k++)
                    u = u * 8 + (uint32_t)(p[i++] - '0');
                n += put_utf8(o + n, u);
            } else {
                o[n++] = '\\';
                o[n++] = e;
            }
            break;
        }
    }
    for (size_t t = *n_io; t < n; t++)
        as->more = as->more || o[t] == '\\';
    *i_io = i;
    *n_io = n;
    /* A '\n' is only ever the last byte an escape writes (a code point's bytes are >= 0x80). */
    return o[n - 1] != '\n' || asm_break(as, base + n - 1);
}

#ifdef __SSE2__
/* The 64 bytes at p whose bits (bit k: p[k]) decode_compact_blocks stops at: a backslash or a
 * raw '\n'; the bytes are left in b to be stored. */
static inline uint64_t escape_bits64(const char *p, __m128i b[4])
{
    const __m128i bs = _mm_set1_epi8('\\'), nl = _mm_set1_epi8('\n');
    uint64_t m = 0;
    b[0] = _mm_loadu_si128((const __m128i *)(const void *)p);
    b[1] = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    b[2] = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    b[3] = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    /* Written out: -O2 keeps a loop of four as a loop. */
    m |= (uint64_t)(unsigned)_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(b[0], bs), _mm_cmpeq_epi8(b[0], nl)));
    m |= (uint64_t)(unsigned)_mm_movemask_epi8(
             _mm_or_si128(_mm_cmpeq_epi8(b[1], bs), _mm_cmpeq_epi8(b[1], nl)))
         << 16;
    m |= (uint64_t)(unsigned)_mm_movemask_epi8(
             _mm_or_si128(_mm_cmpeq_epi8(b[2], bs), _mm_cmpeq_epi8(b[2], nl)))
         << 32;
    m |= (uint64_t)(unsigned)_mm_movemask_epi8(
             _mm_or_si128(_mm_cmpeq_epi8(b[3], bs), _mm_cmpeq_epi8(b[3], nl)))
         << 48;
    return m;
}

/* decode_body's first part for the compact assembler (emit_compact: an event log's line, its
 * plan decoded over the line itself from the line's first byte), 64 bytes a round: from
 * p[*i_io] (written at o[*n_io], o = as->buf + base) while 64 bytes are left.  A round stores
 * its 64 bytes whole and takes the first escape in them; "\n" ends its line right there
 * (compact_break), "\"" is written, any other escape and a raw '\n' go through decode_one as
 * before.  A round stores whole only while the output is 64 bytes or more behind the reads
 * (each \n escape makes one byte of room: after the 64th escaped line of a string at the
 * line's start); until then the rounds go decode_body's 16-byte way, which comes back here
 * once there is room.  False when out of memory.  One pass for the decoding, the line ends
 * and the lines' looks, where the 16-byte way took 170 instructions a line of the plan,
 * asm_break's calls included. */
static bool decode_compact_blocks(struct assembler *as, size_t base, const char *p, uint32_t len,
                                  uint32_t *i_io, size_t *n_io)
{
    char *o = as->buf + base;
    uint32_t i = *i_io;
    size_t n = *n_io;
    /* The room only grows (no escape writes more than it reads). */
    if ((size_t)((p + i) - (o + n)) < 64)
        return true;
    /* Bound: i moves forward every round; n <= i, so the stores stay inside the body. */
    while (len - i >= 64) {
        __m128i b[4];
        uint64_t m = escape_bits64(p + i, b);
        /* 64 bytes of room: the stores reach no byte still to read. */
        _mm_storeu_si128((__m128i *)(void *)(o + n), b[0]);
        _mm_storeu_si128((__m128i *)(void *)(o + n + 16), b[1]);
        _mm_storeu_si128((__m128i *)(void *)(o + n + 32), b[2]);
        _mm_storeu_si128((__m128i *)(void *)(o + n + 48), b[3]);
        if (!m) {
            i += 64;
            n += 64;
            continue;
        }
        unsigned k = (unsigned)__builtin_ctzll(m);
        i += k;
        n += k;
        /* p[i + 1] is inside the round. */
        if (p[i] == '\\' && p[i + 1] == 'n') {
            o[n] = '\n';
            compact_break(as, base + n);
            n++;
            i += 2;
        } else if (p[i] == '\\' && p[i + 1] == '"') {
            o[n++] = '"';
            i += 2;
        } else if (!decode_one(as, base, p, len, &i, o, &n)) {
            return false;
        }
    }
    *i_io = i;
    *n_io = n;
    return true;
}
#endif

/* Decodes the body p[0..len) (quotes excluded) into as->buf at as->used, ending a line at
 * each '\n' it writes; false on allocation failure.  Never longer than the input (every
 * escape is at least as long as what it stands for), so the run's buffer, as long as its
 * lines, holds it, a 16-byte store at the output never passes the end of the body, and the
 * output can be written over the body itself (as->in_place) without passing the reads.
 * One pass: 16 bytes are copied at a time up to the next backslash (or raw '\n'), which is
 * decoded on its own. */
static bool decode_body(struct assembler *as, size_t base, const char *p, uint32_t len,
                        size_t *out_len)
{
    char *o = as->buf + base;
    size_t n = 0;
    uint32_t i = 0;
#ifdef __SSE2__
    const __m128i bs = _mm_set1_epi8('\\'), nl = _mm_set1_epi8('\n');
    if (as->compact && !decode_compact_blocks(as, base, p, len, &i, &n))
        return false;
    /* Bound: i moves forward every round; n <= i, so the store stays inside the buffer. */
    while (len - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, bs), _mm_cmpeq_epi8(v, nl)));
        if (!m || !as->in_place || (size_t)((p + i) - (o + n)) >= 16)
            _mm_storeu_si128((__m128i *)(void *)(o + n), v);
        if (!m) {
            i += 16;
            n += 16;
            continue;
        }
        unsigned k = (unsigned)__builtin_ctz(m);
        /* Written over the input, the block stored whole would reach bytes after the escape
           still to be read until the escapes so far have made 16 bytes of room: before that
           the bytes up to the escape go one at a time (forwards, never ahead of the reads). */
        if (as->in_place && (size_t)((p + i) - (o + n)) < 16)
            for (unsigned t = 0; t < k; t++)
                o[n + t] = p[i + t];
        i += k;
        n += k;
        if (p[i] == '\\' && i + 1 < len && (p[i + 1] == 'n' || p[i + 1] == '"')) {
            /* The escapes of nearly every line of a plan in JSON, without the switch. */
            o[n++] = p[i + 1] == 'n' ? '\n' : '"';
            i += 2;
            if (o[n - 1] == '\n' && !asm_break(as, base + n - 1))
                return false;
        } else if (!decode_one(as, base, p, len, &i, o, &n)) {
            return false;
        }
        /* The compact way again once the escapes made it its room. */
        if (as->compact && (size_t)((p + i) - (o + n)) >= 64 &&
            !decode_compact_blocks(as, base, p, len, &i, &n))
            return false;
    }
#endif
    /* The rest, a byte at a time.  Bound: i moves forward every round. */
    while (i < len) {
        if (p[i] != '\\' && p[i] != '\n')
            o[n++] = p[i++];
        else if (!decode_one(as, base, p, len, &i, o, &n))
            return false;
    }
    *out_len = n;
    return true;
}

/* ---- a long string decoded in two parts at once (an event log's plan) ---------------------
 *
 * The compact decode of an event log's line (emit_compact) is the one step of its load that
 * ran on one core, the other idle: 22-27 ms for the benchmark's 100 MB plan.  From
 * DECODE_HALVES_MIN bytes on (cl_halves), the string is cut just after a "\n" escape past its
 * middle whose line ends in ')' or ']', and the part after the cut is decoded over itself on
 * a second core while this one decodes the part before; its bytes are then moved down after
 * the first part's.  The cut is where the compact assembler's state is known without the
 * first part: a line ends there, a line with text that no '\r' ends (its last byte is a ')'
 * or ']' as written: no escape ends in either), so the next line starts after no blank line.
 * What each part counts (lines, and whether any needs the steps, whose test of a line looks
 * at that line and at whether the one before was blank) is then added up. */
#define DECODE_HALVES_MIN ((size_t)8 << 20)
/* How far past the middle a cut is looked for. */
#define DECODE_CUT_LOOK ((uint32_t)1 << 20)

/* The cut of the body p[0..len): the offset just after a "\n" escape, at or past the middle,
 * whose line's last byte is ')' or ']' (not a backslash's: the escape is one); 0 when there is
 * none within DECODE_CUT_LOOK bytes. */
static uint32_t decode_cut(const char *p, uint32_t len)
{
    uint32_t from = len / 2, stop = len - from > DECODE_CUT_LOOK ? from + DECODE_CUT_LOOK : len;
    /* Bound: each round moves past one backslash, up to stop. */
    for (uint32_t i = from; i + 2 < stop;) {
        const char *b = memchr(p + i, '\\', stop - i - 2);
        if (!b)
            return 0;
        i = (uint32_t)(b - p);
        if (i >= 2 && p[i + 1] == 'n' && (p[i - 1] == ')' || p[i - 1] == ']') && p[i - 2] != '\\')
            return i + 2;
        i++;
    }
    return 0;
}

struct decode_part {
    struct assembler as;  /* the second part's: compact, over its own bytes */
    const char *p;
    uint32_t len;
    size_t n;             /* bytes it decoded to, from its first byte on */
    bool ok;
};

static void *decode_part_main(void *arg)
{
    struct decode_part *d = arg;
    d->ok = decode_body(&d->as, (size_t)(d->p - d->as.buf), d->p, d->len, &d->n);
    return NULL;
}

/* decode_body for the compact assembler over its own line, in two parts at once when the
 * string is long (above); false when out of memory. */
static bool decode_body_parts(struct assembler *as, size_t base, const char *p, uint32_t len,
                              size_t *out_len)
{
    uint32_t cut = as->compact && as->in_place && cl_halves(as->c, len >= DECODE_HALVES_MIN)
                       ? decode_cut(p, len)
                       : 0;
    pthread_t th;
    struct decode_part d = {.as = *as, .p = p + cut, .len = len - cut};
    d.as.open_start = (size_t)(d.p - as->buf);
    d.as.after_blank = false; /* the line before the cut has text */
    d.as.needs_steps = false;
    d.as.more = false;
    d.as.cut_cr = false;
    d.as.n_lines = 0;
    if (!cut || !thread_start_quiet(&th, decode_part_main, &d))
        return decode_body(as, base, p, len, out_len);
    size_t n1;
    bool ok = decode_body(as, base, p, cut, &n1);
    pthread_join(th, NULL);
    if (!ok || !d.ok)
        return false;
    /* The first part ended with the cut's line: the second part's lines follow. */
    char *to = as->buf + base + n1;
    memmove(to, d.p, d.n);
    as->open_start = (size_t)(to - as->buf) + (d.as.open_start - (size_t)(d.p - as->buf));
    as->after_blank = d.as.after_blank;
    as->needs_steps = as->needs_steps || d.as.needs_steps;
    as->more = as->more || d.as.more;
    as->cut_cr = as->cut_cr || d.as.cut_cr;
    as->n_lines += d.as.n_lines;
    *out_len = n1 + d.n;
    return true;
}

/* Text between strings: "join" (blanks, ',' or '+': the strings continue each other),
 * "drop" (punctuation and call syntax such as `[Row(plan=`, `Out[3]:`, other short strings
 * like JSON keys), or "keep" (prose: a line of its own). */
enum glue { G_JOIN, G_DROP, G_KEEP };

static bool glue_char(char ch)
{
    return strchr("[](){},:;=+#>/-", ch) != NULL;
}

static bool token_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '.' || ch == '$' || glue_char(ch);
}

/* p[a..b) of a line whose strings are ls (the ones without \n are opaque tokens here). */
static enum glue classify_glue(const char *p, uint32_t a, uint32_t b, const struct lits *ls,
                               size_t *li)
{
    bool only_join = true;
    bool token_open = false, token_punct = false;
    uint32_t i = a;
    while (i < b) {
        while (*li < ls->n && ls->v[*li].b < i)
            (*li)++;
        if (*li < ls->n && ls->v[*li].a == i && !ls->v[*li].nl) {
            /* An opaque short string (a JSON key or value): counts as punctuation. */
            i = ls->v[*li].b + 1;
            only_join = false;
            token_open = true;
            token_punct = true;
            continue;
        }
        char ch = p[i++];
        if (ch == ' ' || ch == '\t') {
            if (token_open && !token_punct)
                return G_KEEP;
            token_open = false;
            continue;
        }
        if (ch != ',' && ch != '+')
            only_join = false;
        if (!token_char(ch))
            return G_KEEP;
        if (!token_open) {
            token_open = true;
            token_punct = false;
        }
        if (glue_char(ch))
            token_punct = true;
    }
    if (token_open && !token_punct)
        return G_KEEP;
    return only_join ? G_JOIN : G_DROP;
}


static bool asm_flush(struct assembler *as)
{
    if (as->open && (as->open_has_text || as->used > as->open_start)) {
        size_t len = as->used - as->open_start;
        while (len && as->buf[as->open_start + len - 1] == '\r')
            len--;
        if (as->compact)
            asm_compact_line(as, as->buf + as->open_start, len, as->used - as->open_start);
        else if (!cl_push(as->c, as->out, as->buf + as->open_start, len, as->open_orig))
            return false;
    }
    as->open = false;
    as->open_has_text = false;
    as->open_start = as->used;
    return true;
}

/* A line the compact assembler ends (it is not pushed). */
static void asm_compact_line(struct assembler *as, const char *p, size_t len, size_t len_cut)
{
    as->cut_cr = as->cut_cr || len != len_cut || len > UINT32_MAX;
    /* A line at column 0 that no digit starts and no blank ends breaks no rule of
       cl_line_needs_steps (the details lines, most of a formatted plan): not asked. */
    if (len && !as->needs_steps &&
        (p[0] == ' ' || (p[0] >= '0' && p[0] <= '9') || p[len - 1] == ' ' || p[len - 1] == '\t')) {
        struct cl_line l = {p, (uint32_t)len, as->open_orig};
        as->needs_steps = cl_line_needs_steps(&l, as->after_blank);
    }
    as->after_blank = len == 0;
    as->n_lines++;
}

/* The decoded '\n' at as->buf[k] ends the line being built (its '\r's before it go). */
static bool asm_break(struct assembler *as, size_t k)
{
    size_t len2 = k - as->open_start;
    while (len2 && as->buf[as->open_start + len2 - 1] == '\r')
        len2--;
    if (as->compact)
        asm_compact_line(as, as->buf + as->open_start, len2, k - as->open_start);
    else if (!cl_push(as->c, as->out, as->buf + as->open_start, len2, as->open_orig))
        return false;
    as->open_start = k + 1;
    as->open_orig = as->string_orig;
    as->open_has_text = false;
    return true;
}

/* asm_break for the compact assembler (emit_compact), at a '\n' written at as->buf[k] by
 * decode_compact_blocks: the same line counted and looked at as asm_compact_line looks at it,
 * without two calls for each line (64 instructions a line of the event log's plan, as many
 * as its decoding).  A line with a '\r' before its end takes asm_break.  What asm_break also
 * sets is as it was: the line is shorter than the string (no cut_cr for a length past 32
 * bits), open_orig is string_orig since the string began (its one string) and
 * open_has_text is still false (only kept text sets it). */
static inline __attribute__((always_inline)) void compact_break(struct assembler *as, size_t k)
{
    size_t len = k - as->open_start;
    const char *p = as->buf + as->open_start;
    if (len) {
        char last = p[len - 1];
        if (last == '\r') {
            (void)asm_break(as, k); /* compact: it pushes nothing, so it cannot fail */
            return;
        }
        if (!as->needs_steps &&
            (p[0] == ' ' || (p[0] >= '0' && p[0] <= '9') || last == ' ' || last == '\t')) {
            struct cl_line l = {p, (uint32_t)len, as->open_orig};
            as->needs_steps = cl_line_needs_steps(&l, as->after_blank);
        }
    }
    as->after_blank = len == 0;
    as->n_lines++;
    as->open_start = k + 1;
}

static bool asm_string(struct assembler *as, const char *body, uint32_t len, uint32_t orig)
{
    if (!as->open) {
        as->open = true;
        as->open_start = as->used;
        as->open_orig = orig;
    } else if (as->used == as->open_start && !as->open_has_text) {
        /* The line opened by the last string's "\n" starts with this string: its line. */
        as->open_orig = orig;
    }
    /* Lines end at the decoded newlines as they are written. */
    as->string_orig = orig;
    size_t n;
    if (!decode_body_parts(as, as->used, body, len, &n))
        return false;
    as->used += n;
    if (as->used > as->open_start)
        as->open_has_text = true;
    return true;
}

static bool asm_text(struct assembler *as, const char *p, uint32_t a, uint32_t b, uint32_t orig)
{
    if (!asm_flush(as))
        return false;
    while (a < b && (p[a] == ' ' || p[a] == '\t'))
        a++;
    while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
        b--;
    if (a == b)
        return true;
    as->more = true;
    if (!as->in_place)
        return cl_push(as->c, as->out, p + a, b - a, orig);
    /* Over the input, the text moves into the buffer (it would be written over later). */
    char *to = as->buf + as->used;
    memmove(to, p + a, b - a);
    as->used += b - a;
    as->open_start = as->used;
    return cl_push(as->c, as->out, to, b - a, orig);
}

/* A line that is only a string between join glue (a notebook array element without "\n",
 * a pprint chunk): it continues a run. */
static bool lone_string_line(const char *p, uint32_t len, const struct lits *ls)
{
    if (ls->n != 1)
        return false;
    size_t li = 0;
    if (classify_glue(p, 0, ls->v[0].a, ls, &li) != G_JOIN)
        return false;
    li = 0;
    return classify_glue(p, ls->v[0].b + 1, len, ls, &li) == G_JOIN;
}

/* A line holding one string and punctuation around it (`Out[3]: '...'`, `"...\n",`). */
static bool single_string_line(const char *p, uint32_t len, const struct lits *ls)
{
    if (ls->n != 1)
        return false;
    size_t li = 0;
    if (classify_glue(p, 0, ls->v[0].a, ls, &li) == G_KEEP)
        return false;
    li = 0;
    return classify_glue(p, ls->v[0].b + 1, len, ls, &li) != G_KEEP;
}

/* Where the run's lines [a, b) can be decoded over themselves: they lie one after the other
 * in the input's own buffer, which can be written (a mapping is made writable; it stays
 * private).  Then no new memory the size of the run is needed (an event log's line: hundreds
 * of megabytes of fresh pages) and the decoded lines are often where the text will be.  NULL
 * when they cannot; c->input_written is set when they can. */
static char *run_in_place(struct cleaner *c, size_t a, size_t b)
{
    struct source *src = c->src;
    if (!src->bytes)
        return NULL;
    uintptr_t lo = (uintptr_t)src->bytes, hi = lo + src->len, at = lo;
    for (size_t i = a; i < b; i++) {
        uintptr_t p = (uintptr_t)c->lines.v[i].p;
        if (p < at || p > hi || c->lines.v[i].len > hi - p)
            return NULL;
        at = p + c->lines.v[i].len;
    }
    /* While the input's copy is made on the other core (clean.c), the run goes to scratch. */
    if (src->mapped &&
        (mapfile_writable_pending(src->bytes) || !mapfile_writable(src->bytes, src->len)))
        return NULL;
    c->input_written = true;
    return src->bytes + ((uintptr_t)c->lines.v[a].p - lo);
}

/* Rewrites lines [a, b) of c->lines (a run) into out; first holds the strings of line a (read
 * once: an event log's line is hundreds of megabytes). */
static bool emit_run(struct cleaner *c, struct cl_lines *out, size_t a, size_t b,
                     const struct lits *first, bool *more)
{
    size_t bytes = 0;
    for (size_t i = a; i < b; i++)
        bytes += c->lines.v[i].len;
    char *over = run_in_place(c, a, b);
    struct assembler as = {.c = c, .out = out, .buf = over ? over : cl_alloc(c, bytes + 1),
                           .in_place = over != NULL};
    if (!as.buf)
        return false;
    struct lits ls = {0};
    bool ok = false;
    for (size_t i = a; i < b; i++) {
        const struct cl_line *l = &c->lines.v[i];
        if (i > a && !find_literals(l->p, l->len, &ls))
            goto done;
        const struct lits *cur = i == a ? first : &ls;
        uint32_t pos = 0;
        size_t li = 0;
        /* Strings with \n (or a line's only string) are decoded; the text before, between
           and after them is glue.  Join glue lets the line being built continue (into the
           next line of the run too); drop glue ends it; prose ends it and stays. */
        for (size_t k = 0; k <= cur->n; k++) {
            bool piece = k < cur->n && (cur->v[k].nl || cur->n == 1);
            if (k < cur->n && !piece)
                continue; /* opaque: part of the surrounding text */
            uint32_t end = piece ? cur->v[k].a : l->len;
            enum glue g = classify_glue(l->p, pos, end, cur, &li);
            if (g == G_KEEP) {
                if (!asm_text(&as, l->p, pos, end, l->orig))
                    goto done;
            } else if (g == G_DROP) {
                if (!asm_flush(&as))
                    goto done;
            }
            if (piece) {
                const struct lit *x = &cur->v[k];
                if (!asm_string(&as, l->p + x->a + 1, x->b - x->a - 1, l->orig))
                    goto done;
                pos = cur->v[k].b + 1;
            }
        }
    }
    /* The string ended, and with it the plan's text: what follows in the file (the rest of a
       JSON record, indented deeper than the plan's last line) must not read as that line's
       hanging continuation. */
    ok = asm_flush(&as);
    if (ok && b < c->lines.n && c->lines.v[b].len)
        ok = cl_push(c, out, "", 0, c->lines.v[b - 1].orig);
    *more = *more || as.more;
done:
    free(ls.v);
    return ok;
}

/* The lines of the decoded text buf[0..used) as the assembler pushes them: one ended by
 * each '\n' (every '\n' written ends a line, asm_break), then the rest when there is any;
 * '\r's before a line's end cut. */
static bool push_decoded_lines(struct cleaner *c, struct cl_lines *out, const char *buf,
                               size_t used, uint32_t orig)
{
    size_t start = 0;
    /* Bound: one line a round, each searched once. */
    while (start < used) {
        const char *nl = memchr(buf + start, '\n', used - start);
        size_t end = nl ? (size_t)(nl - buf) : used, len = end - start;
        while (len && buf[start + len - 1] == '\r')
            len--;
        if (!cl_push(c, out, buf + start, len, orig))
            return false;
        start = end + 1;
    }
    return true;
}

/* An input that is one line holding one string to decode, and nothing else kept (an event
 * log's line: JSON keys and values around its plan's string are dropped): the run emit_run
 * would decode, decoded the same way from the input's first byte, but with its lines counted
 * and looked at as they end instead of pushed (c->compact, lines.h): the array of 16 bytes
 * a line (41 MB for the 100 MB plan of the benchmark's line) is never made.  When a '\r'
 * was cut from a line's end or the text may hold another escape (another pass reads the
 * lines), the lines are pushed after all, as emit_run pushes them.  *taken false (nothing
 * done) for any other input; false when out of memory. */
static bool emit_compact(struct cleaner *c, struct cl_lines *out, const struct lits *first,
                         bool *more, bool *taken)
{
    *taken = false;
    if (c->lines.n != 1 || c->lines.v[0].p != c->src->bytes)
        return true;
    const struct cl_line *l = &c->lines.v[0];
    size_t piece = first->n;
    for (size_t k = 0; k < first->n; k++) {
        if (!first->v[k].nl && first->n != 1)
            continue;
        if (piece != first->n)
            return true; /* two strings to decode */
        piece = k;
    }
    if (piece == first->n)
        return true;
    const struct lit *x = &first->v[piece];
    size_t li = 0;
    /* Join and drop glue before the string and after it end no line but the string's last
       (asm_flush); text kept would be moved and pushed between lines. */
    if (classify_glue(l->p, 0, x->a, first, &li) == G_KEEP ||
        classify_glue(l->p, x->b + 1, l->len, first, &li) == G_KEEP)
        return true;
    char *over = run_in_place(c, 0, 1);
    if (over != c->src->bytes)
        return true;
    struct assembler as = {.c = c, .out = out, .buf = over, .in_place = true, .compact = true,
                           .after_blank = true};
    if (!asm_string(&as, l->p + x->a + 1, x->b - x->a - 1, l->orig))
        return false;
    bool tail = as.used > as.open_start; /* a last line that no '\n' ended */
    if (!asm_flush(&as))
        return false;
    *taken = true;
    if (as.more || as.cut_cr) {
        *more = *more || as.more;
        return cl_lines_reserve(c, out, (size_t)as.n_lines + 1) &&
               push_decoded_lines(c, out, as.buf, as.used, l->orig);
    }
    c->compact.on = true;
    c->compact.add_newline = tail;
    c->compact.needs_steps = as.needs_steps;
    c->compact.orig = l->orig;
    c->compact.n_lines = as.n_lines;
    c->compact.len = as.used;
    return true;
}

bool cl_compact_lines(struct cleaner *c)
{
    if (!c->compact.on)
        return true;
    c->compact.on = false;
    cl_lines_free(&c->lines);
    return cl_lines_reserve(c, &c->lines, (size_t)c->compact.n_lines + 1) &&
           push_decoded_lines(c, &c->lines, c->src->bytes, c->compact.len, c->compact.orig);
}

/* One decoding pass over all lines (in_order: the split's, in the input's order, each after
 * the one before); *changed says whether any run was decoded, *more whether
 * a decoded line may hold an escape for another pass (a backslash was written, or text kept
 * as it was).  Without one, another pass decodes nothing: the lines no run changed start and
 * end the same runs as in this pass (a decoded run starts on a line with a string holding \n,
 * which would have continued any run before it), and the decoded lines hold no backslash,
 * so no run starts on them. */
static bool literal_pass(struct cleaner *c, bool in_order, bool *changed, bool *more)
{
    *changed = false;
    *more = false;
    size_t n = c->lines.n;
    struct lits ls = {0}, lx = {0}; /* the strings of line i, of a line after it */
    struct cl_lines out = {0};
    bool ok = false;
    size_t i = 0, copied = 0; /* lines [copied, i) still to copy as they are */
    struct cl_clear clear = {0, 0}; /* a stretch of the input without a backslash */
    while (i < n) {
        const struct cl_line *l = &c->lines.v[i];
        if (cl_input_lacks_run(c, &clear, l->p, l->len, CL_MARK_BACKSLASH)) {
            /* And the lines after it inside the same stretch without a backslash. */
            i = in_order ? cl_input_lacks_skip_ordered(c, &clear, c->lines.v, i + 1, n)
                         : cl_input_lacks_skip(c, &clear, c->lines.v, i + 1, n);
            continue;
        }
        if (!cl_line_has_escaped_newline(l->p, l->len)) {
            i++;
            continue;
        }
        if (!find_literals(l->p, l->len, &ls))
            goto done;
        /* A run is decoded when a string holds a plan header, or when each of its lines is
           one string (a notebook's output array, a repr on its own) and one has tree markers.
           A tree inside a bigger JSON record (an error's "treeNode") stays as it is. */
        bool cand = false, header = false, marker = false, lone = true;
        for (size_t k = 0; k < ls.n; k++)
            if (ls.v[k].nl) {
                const char *body = l->p + ls.v[k].a + 1;
                uint32_t blen = ls.v[k].b - ls.v[k].a - 1;
                cand = true;
                header = header || raw_has_header(body, blen);
                marker = marker || raw_has_marker(body, blen);
            }
        if (!cand) {
            i++;
            continue;
        }
        lone = single_string_line(l->p, l->len, &ls);
        /* The run: this line, the candidate lines after it, and lone strings continuing it.
           Bound: j only moves forward; the outer loop resumes after the run. */
        size_t j = i + 1;
        for (; j < n; j++) {
            const struct cl_line *x = &c->lines.v[j];
            if (!find_literals(x->p, x->len, &lx))
                goto done;
            bool xc = false;
            for (size_t k = 0; k < lx.n; k++)
                if (lx.v[k].nl) {
                    const char *body = x->p + lx.v[k].a + 1;
                    uint32_t blen = lx.v[k].b - lx.v[k].a - 1;
                    xc = true;
                    header = header || raw_has_header(body, blen);
                    marker = marker || raw_has_marker(body, blen);
                }
            if (!xc && !lone_string_line(x->p, x->len, &lx))
                break;
            lone = lone && single_string_line(x->p, x->len, &lx);
        }
        if (!header && !(marker && lone)) {
            i = j;
            continue;
        }
        bool compact = false;
        if (!*changed && i == 0 && j == n && !emit_compact(c, &out, &ls, more, &compact))
            goto done;
        if (compact) {
            copied = i = j;
            *changed = true;
            continue;
        }
        /* The first run decoded: the new array gets room for the lines as they are and the
           lines the first line's strings decode to (an event log's line is millions: the
           array is not grown and moved a dozen times on the way); the other lines of a run
           add some, and cl_push grows it then. */
        if (!*changed) {
            size_t room = n + 1;
            /* Counted here, not as the strings were found (string_end): an event log's
               line taken by emit_compact needs no count. */
            for (size_t k = 0; k < ls.n; k++)
                room += ls.v[k].nl ? newline_escapes(l->p, l->len, &ls.v[k]) : 0;
            if (!cl_lines_reserve(c, &out, room))
                goto done;
        }
        if (!cl_push_lines(c, &out, c->lines.v + copied, i - copied))
            goto done;
        if (!emit_run(c, &out, i, j, &ls, more))
            goto done;
        copied = i = j;
        *changed = true;
    }
    if (*changed) {
        if (!cl_push_lines(c, &out, c->lines.v + copied, n - copied))
            goto done;
        cl_replace(c, &out);
        cl_drop_loud(c); /* the split's marks described the lines before */
        c->changed |= CL_LITERAL;
    }
    ok = true;
done:
    free(ls.v);
    free(lx.v);
    cl_lines_free(&out);
    if (!ok)
        c->nomem = true;
    return ok;
}

bool cl_step_literals(struct cleaner *c)
{
    /* A repr inside a JSON string needs two passes; three covers one more layer. */
    for (int pass = 0; pass < 3; pass++) {
        bool changed, more;
        /* The first pass reads the split's lines, in the input's order. */
        if (!literal_pass(c, pass == 0, &changed, &more))
            return false;
        if (!changed || !more)
            break;
    }
    return true;
}
