/* clean.c: the paste clean-up pipeline (see clean.h and clean_impl.h).
 *
 * Order matters and each step is linear:
 *   encoding (BOM, UTF-16, CRLF) -> quoted strings with \n escapes -> tabs and trailing blanks
 *   -> comment / quote prefixes -> show() tables -> common indentation -> numberedTreeString
 *   prefixes -> hard-wrapped lines -> lost indentation.
 * A quick scan first decides whether any of it can apply; when none does (Spark's own
 * output, the common case for big files) the document keeps reading its input bytes.
 */
#include "sparkplan/clean.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "clean_impl.h"
#include "sparkplan/headline.h"
#include "sparkplan/lex.h"
#include "sparkplan/freshmem.h"
#include "sparkplan/mapfile.h"
#include "sparkplan/thread.h"

/* Inputs from this size on have their mapping's copy made on the second core (run_pipeline). */
#define CLEAN_SWAP_MIN ((size_t)8 << 20)

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* ---- the lines of the input ------------------------------------------------------------ */

/* UTF-16 (a PowerShell redirect) becomes UTF-8; lone surrogates become U+FFFD. */
static char *utf16_to_utf8(struct cleaner *c, const unsigned char *s, size_t n, bool big_endian,
                           size_t *out_len)
{
    char *out = cl_alloc(c, (n / 2) * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        uint32_t u = big_endian ? (uint32_t)(s[i] << 8 | s[i + 1]) : (uint32_t)(s[i + 1] << 8 | s[i]);
        if (u >= 0xD800 && u <= 0xDBFF && i + 3 < n) {
            uint32_t lo = big_endian ? (uint32_t)(s[i + 2] << 8 | s[i + 3])
                                     : (uint32_t)(s[i + 3] << 8 | s[i + 2]);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i += 2;
            } else {
                u = 0xFFFD;
            }
        } else if (u >= 0xD800 && u <= 0xDFFF) {
            u = 0xFFFD;
        }
        /* At most 4 bytes for 4 input bytes, 3 for 2: the buffer above is large enough. */
        if (u < 0x80) {
            out[o++] = (char)u;
        } else if (u < 0x800) {
            out[o++] = (char)(0xC0 | u >> 6);
            out[o++] = (char)(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
            out[o++] = (char)(0xE0 | u >> 12);
            out[o++] = (char)(0x80 | ((u >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (u & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | u >> 18);
            out[o++] = (char)(0x80 | ((u >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((u >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (u & 0x3F));
        }
    }
    *out_len = o;
    return out;
}

/* The first bytes after a line's leading spaces that the steps from the tabs step to
 * the numberedTreeString step start on (cleaner.loud): a tab (the tabs step), '#', '-', '/' (a MAGIC
 * prefix, a doc comment's opener), '*' (a doc comment's star line: the markup step cuts it,
 * and what the cut shows is looked at by the steps after it), '<' (an HTML tag), '#', '/',
 * '-', '>' (the comment and quote prefixes), '+' (a table's border), a digit (a number
 * prefix, at column 0 once the indentation step has cut the blanks before it).  Those steps
 * change only lines that start on one of these (the table step marks the lines it writes,
 * the indentation step cuts only blanks), so a line that starts on none stays passed over
 * by all of them. */
static const bool loud_byte[256] = {
    ['\t'] = true, ['#'] = true, ['-'] = true, ['/'] = true, ['*'] = true, ['<'] = true,
    ['>'] = true,  ['+'] = true, ['0'] = true, ['1'] = true, ['2'] = true, ['3'] = true,
    ['4'] = true,  ['5'] = true, ['6'] = true, ['7'] = true, ['8'] = true, ['9'] = true,
};

/* Room in the line marks *bits (*words 64-bit words, NULL: no marks) for line i's bit, the
 * new words zero; false when there are no marks, or (the marks freed: *bits NULL, *words 0)
 * when out of memory.  cleaner.loud and the table step's marks of the lines it writes both
 * grow this way. */
static bool loud_bits_room(uint64_t **bits, size_t *words, size_t i)
{
    size_t need = (i >> 6) + 1;
    if (!*bits || need <= *words)
        return *bits != NULL;
    size_t n = *words * 2 > need ? *words * 2 : need;
    uint64_t *grown = realloc(*bits, n * sizeof *grown);
    if (!grown) {
        free(*bits);
        *bits = NULL;
        *words = 0;
        return false;
    }
    memset(grown + *words, 0, (n - *words) * sizeof *grown);
    *bits = grown;
    *words = n;
    return true;
}

/* Room in c->loud for line i's bit (zeros past the bits set); false (the marks let go of:
 * the tabs step then makes them) when out of memory. */
static bool loud_room(struct cleaner *c, size_t i)
{
    if (!c->loud)
        return false;
    if (loud_bits_room(&c->loud, &c->loud_words, i))
        return true;
    cl_drop_loud(c);
    return false;
}

/* Line i's bit, when there is room for it (loud_room grows the words: seldom). */
static inline void set_loud(struct cleaner *c, size_t i)
{
    if ((i >> 6) < c->loud_words || loud_room(c, i))
        c->loud[i >> 6] |= 1ull << (i & 63);
}

/* Line i (p, len) starts, after its leading spaces, on a byte of loud_byte: its bit.  Inline
 * in the split's loop, one look at the first byte (most lines start with no space and none
 * of those bytes): the tabs step's pass over every line is not made. */
static inline __attribute__((always_inline)) void mark_loud(struct cleaner *c, size_t i,
                                                            const char *p, size_t len)
{
    unsigned char c0 = len ? (unsigned char)p[0] : 0;
    if (c0 == ' ') {
        /* Leading spaces skipped 16 at a time (blank.h). */
        size_t sp = blank_skip_spaces(p, 0, len);
        c0 = sp < len ? (unsigned char)p[sp] : 0;
    }
    if (loud_byte[c0])
        set_loud(c, i);
}

/* One line of the input, s to its '\n' (or the end) e: CRs before e go.  The tabs step's
 * marks (cleaner.loud) are made here, where the line's first bytes were just read. */
static inline __attribute__((always_inline)) bool split_line(struct cleaner *c, const char *s,
                                                             const char *e, uint32_t line)
{
    const char *t = e;
    while (t > s && t[-1] == '\r')
        t--;
    if (t != e)
        c->changed |= CL_ENCODING;
    mark_loud(c, c->lines.n, s, (size_t)(t - s));
    return cl_push(c, &c->lines, s, (size_t)(t - s), line);
}

/* The marks (lines.h) of 16 bytes at offset off of the input, some of which is a backslash
 * or above 0x7F: both 64-byte blocks the bytes may touch are marked (a block marked for
 * nothing costs one look at a line). */
static void mark_bytes(struct cleaner *c, size_t off, unsigned bs, unsigned high)
{
    size_t b0 = off >> 6, b1 = (off + 15) >> 6;
    if ((b1 >> 6) >= c->marks_words) /* the input's last bytes: no block after them */
        b1 = b0;
    unsigned got[CL_MARK_ROWS] = {bs, high};
    for (int k = 0; k < CL_MARK_ROWS; k++)
        if (got[k]) {
            uint64_t *row = c->marks + (size_t)k * c->marks_words;
            row[b0 >> 6] |= 1ull << (b0 & 63);
            row[b1 >> 6] |= 1ull << (b1 & 63);
        }
}

/* The marks (lines.h) of the 64 bytes at offset off of the input, whose backslashes are the
 * bits of bs and whose bytes above 0x7F those of high (bit j: byte off + j): a mark for each
 * 64-byte block that holds one of them, exactly.  For a JSON line (an event log's plan) every
 * round of the split holds a backslash: marked 16 bytes at a time (mark_bytes) it cost 100
 * instructions a round, a third of the split's time on that line. */
static inline void mark_bytes64(struct cleaner *c, size_t off, uint64_t bs, uint64_t high)
{
    size_t b0 = off >> 6;
    unsigned r = (unsigned)(off & 63);
    uint64_t *row0 = c->marks, *row1 = c->marks + c->marks_words;
    if (!r) {
        /* One block (the split of an input that starts its buffer: every round). */
        row0[b0 >> 6] |= (uint64_t)(bs != 0) << (b0 & 63);
        row1[b0 >> 6] |= (uint64_t)(high != 0) << (b0 & 63);
        return;
    }
    /* The bits of the bytes in block b0; the others lie in block b0 + 1. */
    uint64_t in_first = (1ull << (64 - r)) - 1;
    size_t b1 = b0 + 1;
    if ((b1 >> 6) >= c->marks_words) /* the input's last bytes: no block after them */
        b1 = b0;
    row0[b0 >> 6] |= (uint64_t)((bs & in_first) != 0) << (b0 & 63);
    row0[b1 >> 6] |= (uint64_t)((bs & ~in_first) != 0) << (b1 & 63);
    row1[b0 >> 6] |= (uint64_t)((high & in_first) != 0) << (b0 & 63);
    row1[b1 >> 6] |= (uint64_t)((high & ~in_first) != 0) << (b1 & 63);
}

/* From this many bytes into a line the split finds the line's end with memchr and marks each
 * of its blocks after that as holding both a backslash and a byte above 0x7F (a mark says
 * "look"): the marks let the steps pass over the short lines that hold neither, and a line
 * this long is looked at anyway (an event log's line holds its plan's escapes; its blocks
 * all held a backslash).  The 100 MB line of the benchmark's event log was read 64 bytes a
 * round, its marks taken, 1.6 instructions a byte; memchr reads it ten times faster. */
#define SPLIT_LONG_LINE ((size_t)64 << 10)

/* The blocks of the input's bytes [off, off + n) marked in both rows (n > 0). */
static void mark_all(struct cleaner *c, size_t off, size_t n)
{
    size_t b0 = off >> 6, b1 = (off + n - 1) >> 6;
    for (int k = 0; k < CL_MARK_ROWS; k++) {
        uint64_t *row = c->marks + (size_t)k * c->marks_words;
        /* Bound: one round a word of the blocks' bits. */
        for (size_t b = b0; b <= b1;) {
            size_t w = b >> 6, last = (w << 6) + 63 < b1 ? (w << 6) + 63 : b1;
            uint64_t bits = (~0ull >> (63 - (last & 63))) & (~0ull << (b & 63));
            row[w] |= bits;
            b = last + 1;
        }
    }
}

/* The lines of s[0..end), the first numbered line + 1, pushed onto c->lines, with their
 * marks (cleaner.loud, a bit for each line pushed) and the marks of their bytes (c->marks,
 * when made, of the input at c->src->bytes).  false when out of memory. */
static bool split_bytes(struct cleaner *c, const char *s, const char *end, uint32_t line)
{
    const char *base = c->src->bytes;
    const char *rest = s; /* no '\n' between s and rest */
#ifdef __SSE2__
    /* The '\n' of 16 bytes in one compare, every line ending in them taken in turn: most
       lines are short, and a memchr call for each cost more than the search. */
    const __m128i nl16 = _mm_set1_epi8('\n'), bs16 = _mm_set1_epi8('\\');
    const bool marking = c->marks != NULL;
    const char *q = s;
    /* 64 bytes a round, then 16: the '\n' of four blocks of 16 in one mask, and one test of
       the four for the marks (most rounds have neither a backslash nor a byte above 0x7F):
       the rounds of 16 cost 13 instructions each, most of it the round itself. */
    for (; end - q >= 64; q += 64) {
        if ((size_t)(q - s) >= SPLIT_LONG_LINE) {
            /* A long line: the rest of it found and marked at once (SPLIT_LONG_LINE), on
               two threads when it is long (an event log's line). */
            const char *nl = thread_memchr(q, '\n', (size_t)(end - q));
            const char *e = nl ? nl : end;
            if (marking && e > q)
                mark_all(c, (size_t)(q - base), (size_t)(e - q));
            if (!nl) {
                q = rest = end; /* the line is pushed below, with nothing left to search */
                break;
            }
            if (!split_line(c, s, e, ++line))
                return false;
            s = e + 1;
            /* The next round starts at the next line (the loop's step taken back). */
            q = s - 64;
            rest = s;
            continue;
        }
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)q);
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(q + 16));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(q + 32));
        __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(q + 48));
        uint64_t m = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, nl16)) |
                     (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, nl16)) << 16 |
                     (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, nl16)) << 32 |
                     (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, nl16)) << 48;
        if (marking) {
            __m128i b0 = _mm_cmpeq_epi8(v0, bs16), b1 = _mm_cmpeq_epi8(v1, bs16);
            __m128i b2 = _mm_cmpeq_epi8(v2, bs16), b3 = _mm_cmpeq_epi8(v3, bs16);
            __m128i o0 = _mm_or_si128(v0, b0), o1 = _mm_or_si128(v1, b1);
            __m128i o2 = _mm_or_si128(v2, b2), o3 = _mm_or_si128(v3, b3);
            if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(o0, o1), _mm_or_si128(o2, o3)))) {
                /* The 64 bytes' bits of each kind in one word, marked at once. */
                uint64_t bsm = (uint64_t)(unsigned)_mm_movemask_epi8(b0) |
                               (uint64_t)(unsigned)_mm_movemask_epi8(b1) << 16 |
                               (uint64_t)(unsigned)_mm_movemask_epi8(b2) << 32 |
                               (uint64_t)(unsigned)_mm_movemask_epi8(b3) << 48;
                uint64_t him = (uint64_t)(unsigned)_mm_movemask_epi8(v0) |
                               (uint64_t)(unsigned)_mm_movemask_epi8(v1) << 16 |
                               (uint64_t)(unsigned)_mm_movemask_epi8(v2) << 32 |
                               (uint64_t)(unsigned)_mm_movemask_epi8(v3) << 48;
                mark_bytes64(c, (size_t)(q - base), bsm, him);
            }
        }
        /* Bound: one round for each '\n' of the block. */
        for (; m; m &= m - 1) {
            const char *e = q + __builtin_ctzll(m);
            if (!split_line(c, s, e, ++line))
                return false;
            s = e + 1;
        }
        rest = q + 64;
    }
    for (; end - q >= 16; q += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl16));
        __m128i bs = _mm_cmpeq_epi8(v, bs16);
        /* One test for both (a byte above 0x7F has its top bit set, as a match does). */
        if (marking && _mm_movemask_epi8(_mm_or_si128(v, bs)))
            mark_bytes(c, (size_t)(q - base), (unsigned)_mm_movemask_epi8(bs),
                       (unsigned)_mm_movemask_epi8(v));
        /* Bound: one round for each '\n' of the block. */
        for (; m; m &= m - 1) {
            const char *e = q + __builtin_ctz(m);
            if (!split_line(c, s, e, ++line))
                return false;
            s = e + 1;
        }
        rest = q + 16;
    }
#endif
    /* The bytes after the last block of 16 are marked one at a time. */
    for (const char *t = rest; c->marks && t < end; t++)
        if (*t == '\\' || (unsigned char)*t > 0x7F)
            mark_bytes(c, (size_t)(t - base), *t == '\\', (unsigned char)*t > 0x7F);
    /* The rest (no '\n' before s is left, nor between s and rest: an event log's line of
       hundreds of megabytes is not searched twice). */
    while (s < end) {
        const char *from = rest > s ? rest : s;
        const char *nl = memchr(from, '\n', (size_t)(end - from));
        const char *e = nl ? nl : end;
        if (!split_line(c, s, e, ++line))
            return false;
        s = nl ? nl + 1 : end;
    }
    return true;
}

/* The second half of a big input's lines, split on another core (split_bytes) into a
 * cleaner of its own: its lines, their marks (loud), its bytes' marks and its changed bits,
 * then put after the first half's (split_join).  The line numbers go on from the first
 * half's: the second core counts the '\n' before its half first.  Its lines are written
 * straight into the first half's array, after the first half's, as long as it has room: an
 * array of their own was fresh memory, and copying them over after the join was the first
 * core's alone (a third of the split's time on the benchmark's 109 MB paste). */
#define SPLIT_HALVES_ROOM 256

struct split_half {
    struct cleaner part;
    const char *first;         /* the first half's bytes: [first, from) */
    const char *from, *end;    /* this half's */
    struct cl_line *main_v;    /* the first half's array and its room, as they were before */
    size_t main_cap;           /* the split began (it does not move: see split_in_halves) */
    size_t line;               /* the first half's lines: this half's first line's index */
    bool ok;
};

static void *split_half_main(void *arg)
{
    struct split_half *h = arg;
    h->line = slice_count_newlines(h->first, (size_t)(h->from - h->first));
    size_t hn = (size_t)(h->end - h->from);
    if (h->main_v && h->line < h->main_cap) {
        /* The first core pushes exactly h->line lines (the '\n' of its half) and so never
           grows its array while this core writes past them.  More lines than the room
           left move to an array of their own (cl_lines.borrowed). */
        h->part.lines = (struct cl_lines){h->main_v + h->line, 0, h->main_cap - h->line, true};
    } else if (hn >= CLEAN_SWAP_MIN / 2 && !cl_lines_reserve(&h->part, &h->part.lines, hn / 48)) {
        h->ok = false;
        return NULL;
    }
    h->ok = h->line < UINT32_MAX && split_bytes(&h->part, h->from, h->end, (uint32_t)h->line);
    return NULL;
}

/* The marks of k lines (bits) made line at on in c->loud: shifted into place, a word at a
 * time (the bits past the k lines are 0).  Without room c->loud is dropped (the tabs step
 * then makes the marks). */
static void loud_append(struct cleaner *c, size_t at, const uint64_t *bits, size_t k)
{
    size_t words = (k + 63) >> 6, w0 = at >> 6;
    unsigned sh = (unsigned)(at & 63);
    if (!loud_room(c, at + words * 64 + 64))
        return;
    uint64_t *loud = c->loud;
    /* Bound: one round a word of the second half's marks. */
    for (size_t j = 0; j < words; j++) {
        loud[w0 + j] |= bits[j] << sh;
        if (sh)
            loud[w0 + j + 1] |= bits[j] >> (64 - sh);
    }
}

/* The second half's lines after c's (the first half's), their marks after theirs, the
 * bytes' marks of both as one; false when out of memory.  Marks either half lacks are
 * dropped (the steps then look at every line, as without memory for them). */
static bool split_join(struct cleaner *c, struct split_half *h)
{
    struct cleaner *part = &h->part;
    size_t at = c->lines.n, k = part->lines.n;
    bool ok;
    if (part->lines.borrowed) {
        /* Already in place (the first half ends with its '\n': c made h->line lines). */
        ok = h->ok && at == h->line;
        if (ok)
            c->lines.n = at + k;
        cl_lines_free(&part->lines); /* (c's own array: only forgotten) */
    } else {
        ok = h->ok && cl_push_lines(c, &c->lines, part->lines.v, k);
    }
    c->changed |= part->changed;
    c->nomem |= part->nomem;
    if (c->loud && part->loud)
        loud_append(c, at, part->loud, k);
    else
        cl_drop_loud(c);
    if (c->marks && part->marks) {
        for (size_t j = 0; j < CL_MARK_ROWS * c->marks_words; j++) /* bound: the words */
            c->marks[j] |= part->marks[j];
    } else {
        free(c->marks);
        c->marks = NULL;
    }
    cl_lines_free(&part->lines);
    free(part->loud);
    free(part->marks);
    return ok;
}

/* The lines of a big input (s[0..end) its bytes) split in two halves at once, the second on
 * another core: 1 when done, -1 when out of memory, 0 when not done (small, no line end
 * near the middle, no second thread): split_bytes then splits them all on this one. */
static int split_in_halves(struct cleaner *c, const char *s, const char *end)
{
    size_t n = (size_t)(end - s);
    const char *base = c->src->bytes;
    if (!base || s < base || !cl_halves(c, n >= CLEAN_SWAP_MIN))
        return 0; /* the text of a UTF-16 input: one thread */
    /* Looked for up to a quarter of the input past the middle: a line longer than that
       (an event log's) is not searched twice. */
    const char *nl = memchr(s + n / 2, '\n', n / 4);
    if (!nl || nl + 1 >= end)
        return 0;
    /* (c->lines is empty here: the first half's lines are its first ones, and with room for
       both halves it never moves while the second core writes into it.  A big input's array
       has room for a line every 48 bytes (step_split); a small one split in halves (the
       tests) gets room for a few hundred.) */
    if (!c->lines.n && c->lines.cap < SPLIT_HALVES_ROOM &&
        !cl_lines_reserve(c, &c->lines, SPLIT_HALVES_ROOM))
        return -1;
    struct split_half h = {.first = s, .from = nl + 1, .end = end,
                           .main_v = c->lines.n ? NULL : c->lines.v, .main_cap = c->lines.cap};
    h.part.src = c->src;
    h.part.input_len = c->input_len;
    h.part.marks_words = c->marks_words;
    h.part.marks_base = c->marks_base;
    h.part.marks_len = c->marks_len;
    size_t hn = (size_t)(end - h.from);
    h.part.loud_words = hn / 48 / 64 + 1;
    h.part.loud = c->loud ? calloc(h.part.loud_words, sizeof *h.part.loud) : NULL;
    h.part.marks = c->marks ? calloc(CL_MARK_ROWS * c->marks_words, sizeof *c->marks) : NULL;
    pthread_t th;
    if (!thread_start_quiet(&th, split_half_main, &h)) {
        cl_lines_free(&h.part.lines);
        free(h.part.loud);
        free(h.part.marks);
        return 0;
    }
    bool ok = split_bytes(c, s, h.from, 0);
    pthread_join(th, NULL);
    return split_join(c, &h) && ok ? 1 : -1;
}

static bool step_split(struct cleaner *c)
{
    const char *s = c->src->bytes;
    size_t n = c->src->len;
    if (n >= 2 && ((unsigned char)s[0] == 0xFF && (unsigned char)s[1] == 0xFE)) {
        s = utf16_to_utf8(c, (const unsigned char *)s + 2, n - 2, false, &n);
        c->changed |= CL_ENCODING;
    } else if (n >= 2 && ((unsigned char)s[0] == 0xFE && (unsigned char)s[1] == 0xFF)) {
        s = utf16_to_utf8(c, (const unsigned char *)s + 2, n - 2, true, &n);
        c->changed |= CL_ENCODING;
    } else if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;
        n -= 3;
        c->changed |= CL_ENCODING;
    }
    if (!s)
        return false;
    /* A big input's line array is made for a line every 48 bytes at once, asked for as huge
       pages (cl_take): grown by doubling from 256 lines it took a fault every 4 KB, 8,000
       of them for a 109 MB paste.  More lines than that still double it. */
    if (n >= CLEAN_SWAP_MIN && !cl_lines_reserve(c, &c->lines, n / 48))
        return false;
    /* The tabs step's marks, a bit a line (split_line), for a line every 48 bytes at first;
       without memory for them the tabs step makes them. */
    c->loud_words = n / 48 / 64 + 1;
    c->loud = calloc(c->loud_words, sizeof *c->loud);
    /* The marks of the input's bytes (lines.h), made here where every byte is looked at
       anyway; not for the text of a UTF-16 input (it is not the input), nor without memory
       for them (the steps then look at every line, as before). */
    const char *base = c->src->bytes;
    if (base && s >= base && s <= base + c->src->len) {
        c->marks_words = (c->src->len >> 12) + 1;
        c->marks = calloc(CL_MARK_ROWS * c->marks_words, sizeof *c->marks);
        c->marks_base = base;
        c->marks_len = c->src->len;
    }
    const char *end = s + n;
    int halves = split_in_halves(c, s, end);
    if (halves < 0 || (halves == 0 && !split_bytes(c, s, end, 0)))
        return false;
    /* cl_next_loud reads the words up to the last line's. */
    if (loud_room(c, c->lines.n))
        c->loud_n = c->lines.n;
    return true;
}

/* ---- tabs and trailing blanks ---------------------------------------------------------- */


/* Tabs in the leading blanks become spaces (8-column stops, as a terminal shows them).
 * Tabs inside the text are the plan's own and stay.  The same look at each line's first
 * byte after its blanks marks the lines the steps up to the table step look at
 * (cleaner.loud): each of them took that look at every line itself. */
static bool step_tabs(struct cleaner *c)
{
    size_t n = c->lines.n;
    /* The split's marks when the literal step kept its lines: only the marked lines are
       looked at.  Otherwise they are made here. */
    bool marked = c->loud && c->loud_n == n;
    if (!marked) {
        cl_drop_loud(c);
        c->loud_words = (n >> 6) + 1;
        c->loud = calloc(c->loud_words, sizeof *c->loud); /* without it every line is looked at */
        c->loud_n = c->loud ? n : 0;
    }
    for (size_t i = marked ? cl_next_loud(c, 0) : 0; i < n;
         i = marked ? cl_next_loud(c, i + 1) : i + 1) {
        struct cl_line *l = &c->lines.v[i];
        /* Leading spaces are skipped a word at a time (most lines have none). */
        uint32_t sp = l->len && l->p[0] == ' ' ? cl_indent(l->p, l->len) : 0;
        char c0 = sp < l->len ? l->p[sp] : '\0';
        if (!loud_byte[(unsigned char)c0])
            continue;
        if (c->loud)
            c->loud[i >> 6] |= 1ull << (i & 63);
        /* A line whose first other byte is not a tab has no tab in its lead. */
        if (c0 != '\t')
            continue;
        uint32_t lead = 0, tabs = 0, col = 0;
        while (lead < l->len && (l->p[lead] == ' ' || l->p[lead] == '\t')) {
            if (l->p[lead] == '\t') {
                tabs++;
                col = (col / 8 + 1) * 8;
            } else {
                col++;
            }
            lead++;
        }
        if (!tabs)
            continue;
        char *buf = cl_alloc(c, (size_t)col + (l->len - lead));
        if (!buf)
            return false;
        memset(buf, ' ', col);
        memcpy(buf + col, l->p + lead, l->len - lead);
        l->p = buf;
        l->len = col + (l->len - lead);
        /* Tabs before a tree line or a header are a reason to rewrite; elsewhere (SQL text in
           a .sql.out file) they are kept unless something else rewrites the input. */
        enum cl_kind k = cl_kind(l->p, l->len);
        if (k == K_TREE || k == K_HEADER)
            c->changed |= CL_SPACE;
    }
    return true;
}

/* Trailing blanks go (after the wrap step, which needs a cut line's full width).  They are a
 * reason to rewrite only on tree lines and headers, or when most lines carry them (terminal
 * padding): Spark itself prints a few ("(1) Scan parquet "). */
static void step_trailing(struct cleaner *c)
{
    if (c->trailing_done)
        return; /* the wrap step's last pass did it (cl_trail_line) */
    struct cl_trail t = {0, 0, 0};
    for (size_t i = 0; i < c->lines.n; i++)
        cl_trail_line(c, i, &t);
    cl_trail_done(c, &t);
}

/* ---- comment and quote prefixes -------------------------------------------------------- */

enum prefix_kind { PX_NONE, PX_HASH, PX_SLASH, PX_DASH, PX_QUOTE };

static const char *const prefix_text[] = {"", "#", "//", "--", ">"};

/* The prefix a line carries after `indent` spaces; what follows it must be a space, the end
 * of the line or (for '>') anything, so "#include" or "-->" are not prefixes. */
static enum prefix_kind line_prefix(const struct cl_line *l, uint32_t indent)
{
    const char *p = l->p + indent;
    uint32_t n = l->len - indent;
    /* The prefixes start with different bytes: the first one tells which can match (this
       runs on every line, and most lines start with none of them). */
    enum prefix_kind k;
    uint32_t pl;
    switch (n ? p[0] : '\0') {
    case '#': k = PX_HASH, pl = 1; break;
    case '/': k = PX_SLASH, pl = 2; break;
    case '-': k = PX_DASH, pl = 2; break;
    case '>': return PX_QUOTE;
    default: return PX_NONE;
    }
    if (n < pl || p[pl - 1] != p[0])
        return PX_NONE; /* "//" and "--" double their byte */
    if (n == pl || p[pl] == ' ')
        return k;
    /* "#+- X": a comment marker written without its space, only in a block. */
    if (k == PX_HASH && (p[pl] == '+' || p[pl] == ':' || p[pl] == '='))
        return k;
    return PX_NONE;
}

static bool looks_like_plan_line(const char *p, uint32_t len)
{
    enum cl_kind k = cl_kind(p, len);
    return k == K_TREE || k == K_HEADER;
}

/* One pass: every run of two or more lines sharing a prefix (and its indentation) that
 * holds a plan loses the prefix and one space after it.  Returns true when it removed any. */
static bool strip_prefix_pass(struct cleaner *c)
{
    bool any = false;
    size_t i = 0;
    while (i < c->lines.n) {
        /* The lines that start on no prefix's byte are passed over (cleaner.loud). */
        i = cl_next_loud(c, i);
        if (i >= c->lines.n)
            break;
        struct cl_line *l = &c->lines.v[i];
        uint32_t ind = cl_indent(l->p, l->len);
        /* The first byte tells (line_prefix): most lines are done after one look. */
        char c0 = ind < l->len ? l->p[ind] : '\0';
        enum prefix_kind k = c0 == '#' || c0 == '/' || c0 == '-' || c0 == '>'
                                 ? line_prefix(l, ind)
                                 : PX_NONE;
        if (k == PX_NONE) {
            i++;
            continue;
        }
        size_t pl = strlen(prefix_text[k]);
        size_t j = i + 1;
        bool plan = false, all_spaced = true;
        /* Bound: j only moves forward; the outer loop resumes at j. */
        for (size_t m = i; m < c->lines.n; m++) {
            struct cl_line *x = &c->lines.v[m];
            if (x->len < ind + pl || cl_indent(x->p, x->len) < ind ||
                line_prefix(x, ind) != k)
                break;
            j = m + 1;
            const char *rest = x->p + ind + pl;
            uint32_t rn = x->len - ind - (uint32_t)pl;
            if (rn && rest[0] != ' ')
                all_spaced = false;
            if (rn && rest[0] == ' ')
                rest++, rn--;
            /* Look through further layers ("> > ", "# > ") for the plan. */
            while (rn && (rest[0] == '>' || rest[0] == '#' || rest[0] == ' '))
                rest++, rn--;
            if (!plan && looks_like_plan_line(rest, rn))
                plan = true;
        }
        if (j - i >= 2 && plan) {
            for (size_t m = i; m < j; m++) {
                struct cl_line *x = &c->lines.v[m];
                uint32_t cut = ind + (uint32_t)pl;
                if (all_spaced && cut < x->len)
                    cut++;
                x->p += cut;
                x->len -= cut;
            }
            any = true;
            c->changed |= CL_PREFIX;
        }
        i = j;
    }
    return any;
}

static void step_prefixes(struct cleaner *c)
{
    /* Nested quoting ("> > ", "# > ") peels one layer a pass; four layers is plenty. */
    for (int pass = 0; pass < 4 && strip_prefix_pass(c); pass++)
        ;
}

/* ---- show() tables --------------------------------------------------------------------- */

static uint32_t rtrim_len(const struct cl_line *l)
{
    uint32_t len = l->len;
    while (len && (l->p[len - 1] == ' ' || l->p[len - 1] == '\t'))
        len--;
    return len;
}

/* "+-----+" (the closing '+' may have been lost in a copy) after optional indentation. */
static bool table_border_at(const struct cl_line *l)
{
    /* The '+' first: it is what nearly every line fails on ('+' is no blank: the line's
       end, trimmed, lies past it). */
    uint32_t i = cl_indent(l->p, l->len);
    if (i >= l->len || l->p[i] != '+')
        return false;
    uint32_t len = rtrim_len(l);
    uint32_t dashes = 0;
    for (uint32_t j = i + 1; j < len; j++) {
        if (l->p[j] == '-')
            dashes++;
        else if (l->p[j] != '+')
            return false;
    }
    return dashes >= 3;
}

/* table_border_at, its first test inline: a border starts with '+' or a blank (this runs
   on every line, twice, and most lines start with neither). */
static inline bool is_table_border(const struct cl_line *l)
{
    return l->len && (l->p[0] == '+' || l->p[0] == ' ') && table_border_at(l);
}

static bool starts_with_bar(const struct cl_line *l, uint32_t indent)
{
    return l->len > indent && cl_indent(l->p, l->len) >= indent && l->p[indent] == '|';
}

static bool ends_with_bar(const struct cl_line *l)
{
    uint32_t len = rtrim_len(l);
    return len && l->p[len - 1] == '|';
}

/* The last c in p[0..len), or p + len. */
static const char *strrchr_n(const char *p, uint32_t len, char c)
{
    for (uint32_t i = len; i > 0; i--)
        if (p[i - 1] == c)
            return p + i - 1;
    return p + len;
}

/* A header row "|plan   |" with one column. */
static bool is_single_column_header(const struct cl_line *l, uint32_t indent)
{
    uint32_t len = rtrim_len(l);
    if (!starts_with_bar(l, indent) || !ends_with_bar(l) || len < indent + 2)
        return false;
    return memchr(l->p + indent + 1, '|', len - indent - 2) == NULL;
}

/* Where the tables step writes its lines: over c->lines itself while the write index stays
 * behind the lines still to be read (a table loses lines, its borders, and gains one blank
 * line between rows: the writes mostly stay behind), else, from the first write that would
 * overtake them, into a new array (the lines written so far move there).  Most of a big input
 * is no table: in place, its lines are not copied into fresh memory. */
struct table_out {
    struct cl_lines out;  /* used once in_place is false */
    size_t w;             /* lines written over c->lines */
    bool in_place;
    /* cleaner.loud of the lines written (the steps after this one read them): the lines it
       writes one by one (tables, marked lines) are marked, the runs of unmarked lines it
       moves at once stay unmarked.  NULL when a grow failed: the marks are then dropped. */
    uint64_t *loud;
    size_t loud_words;
};

/* Room in o->loud for the bit of line at; false (o->loud let go of) when out of memory. */
static bool table_loud_room(struct table_out *o, size_t at)
{
    return loud_bits_room(&o->loud, &o->loud_words, at);
}

/* unread: the first line of c->lines still to be read. */
static inline bool table_put(struct cleaner *c, struct table_out *o, const char *p, uint32_t len,
                             uint32_t orig, size_t unread)
{
    size_t at = o->in_place ? o->w : o->out.n;
    /* Room asked of table_loud_room only when the words run out (seldom). */
    if (o->loud && ((at >> 6) < o->loud_words || table_loud_room(o, at)))
        o->loud[at >> 6] |= 1ull << (at & 63);
    if (o->in_place) {
        if (o->w < unread) {
            struct cl_line l = {p, len, orig};
            c->lines.v[o->w++] = l;
            return true;
        }
        if (!cl_lines_reserve(c, &o->out, c->lines.n))
            return false;
        memcpy(o->out.v, c->lines.v, o->w * sizeof *o->out.v);
        o->out.n = o->w;
        o->in_place = false;
    }
    return cl_push(c, &o->out, p, len, orig);
}

/* Unwraps one row: lines a..b (inclusive) of c->lines into out. */
static bool unwrap_row(struct cleaner *c, struct table_out *out, size_t a, size_t b, uint32_t indent)
{
    /* The first line may carry show()'s left padding: it loses all its blanks.  The others
       may share an indentation the page added (one space in Spark's docs); it is measured
       per stretch between blank lines, since pages are not always consistent about it. */
    size_t seg = a + 1;
    uint32_t common = 0;
    for (size_t m = a; m <= b; m++) {
        struct cl_line *x = &c->lines.v[m];
        const char *p = x->p;
        uint32_t len = x->len;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (m == b && len && p[len - 1] == '|') {
            len--;
            while (len && p[len - 1] == ' ')
                len--;
        }
        if (m == a) {
            uint32_t cut = indent + 1 < len ? indent + 1 : len;
            p += cut;
            len -= cut;
            uint32_t ind = cl_indent(p, len);
            p += ind;
            len -= ind;
        } else {
            if (m >= seg) {
                /* A new stretch: measure it.  Bound: each line is measured once. */
                common = UINT32_MAX;
                for (seg = m; seg <= b; seg++) {
                    struct cl_line *y = &c->lines.v[seg];
                    uint32_t ylen = y->len;
                    if (seg == b && ends_with_bar(y))
                        ylen = (uint32_t)(strrchr_n(y->p, y->len, '|') - y->p);
                    uint32_t ind = cl_indent(y->p, ylen);
                    if (ind >= ylen)
                        break; /* a blank line ends the stretch */
                    if (ind < common)
                        common = ind;
                }
                if (common == UINT32_MAX)
                    common = 0;
                seg++;
            }
            uint32_t ind = cl_indent(p, len);
            uint32_t cut = ind < common ? ind : common;
            p += cut;
            len -= cut;
        }
        /* Lines after m are still to be read (the stretch ahead was measured from them). */
        if (!table_put(c, out, p, len, x->orig, m + 1))
            return false;
    }
    return true;
}

/* Lines [i, j) kept as they are (table_put of each). */
static bool table_put_run(struct cleaner *c, struct table_out *o, size_t i, size_t j)
{
    if (o->in_place && o->w <= i) {
        /* Each write stays behind its read (o->w <= i): the run moves down at once. */
        if (o->w != i)
            memmove(c->lines.v + o->w, c->lines.v + i, (j - i) * sizeof *c->lines.v);
        o->w += j - i;
        return true;
    }
    for (size_t k = i; k < j; k++) {
        const struct cl_line *x = &c->lines.v[k];
        if (!table_put(c, o, x->p, x->len, x->orig, k + 1))
            return false;
    }
    return true;
}

static bool step_tables(struct cleaner *c)
{
    /* The lines before the first border stay where they are.  Only a line the tabs step
       marked (cleaner.loud: its first byte after its blanks is a '+') may be a border. */
    size_t i = cl_next_loud(c, 0);
    while (i < c->lines.n && !is_table_border(&c->lines.v[i]))
        i = cl_next_loud(c, i + 1);
    if (i >= c->lines.n)
        return true; /* no line moved: the marks stay */
    /* The marks of the lines before the first border stay theirs (NULL: none made). */
    struct table_out out = {{0}, i, true, NULL, 0};
    if (c->loud && c->loud_n == c->lines.n) {
        out.loud_words = (c->lines.n >> 6) + 1;
        out.loud = calloc(out.loud_words, sizeof *out.loud);
        if (out.loud)
            memcpy(out.loud, c->loud, ((i + 63) >> 6) * sizeof *out.loud);
        if (out.loud && (i & 63))
            out.loud[i >> 6] &= ~(~0ull << (i & 63));
    }
    while (i < c->lines.n) {
        /* The lines up to the next marked one are no border: kept as they are, at once. */
        size_t next = cl_next_loud(c, i);
        if (next > i) {
            if (!table_put_run(c, &out, i, next))
                goto fail;
            i = next;
            continue;
        }
        struct cl_line *l = &c->lines.v[i];
        if (!is_table_border(l)) {
            if (!table_put(c, &out, l->p, l->len, l->orig, i + 1))
                goto fail;
            i++;
            continue;
        }
        uint32_t indent = cl_indent(l->p, l->len);
        size_t j = i + 1;
        /* A header row of several columns ("|customer_id|count|") heads a table of data
           printed next to the plan, not a plan: it stays as it is, every line of it.
           Bound: k only moves forward; the outer loop resumes after the table. */
        if (j + 1 < c->lines.n && is_table_border(&c->lines.v[j + 1]) &&
            starts_with_bar(&c->lines.v[j], indent) && ends_with_bar(&c->lines.v[j]) &&
            !is_single_column_header(&c->lines.v[j], indent)) {
            size_t k = i;
            while (k < c->lines.n && (k == i || is_table_border(&c->lines.v[k]) ||
                                      starts_with_bar(&c->lines.v[k], indent))) {
                const struct cl_line *x = &c->lines.v[k];
                if (!table_put(c, &out, x->p, x->len, x->orig, k + 1))
                    goto fail;
                k++;
            }
            i = k;
            continue;
        }
        /* The header row and its border. */
        if (j + 1 < c->lines.n && is_single_column_header(&c->lines.v[j], indent) &&
            is_table_border(&c->lines.v[j + 1]))
            j += 2;
        if (j >= c->lines.n || !starts_with_bar(&c->lines.v[j], indent)) {
            /* A border without rows: a lone "+---" line is not worth keeping either. */
            if (j == i + 1) {
                if (!table_put(c, &out, l->p, l->len, l->orig, i + 1))
                    goto fail;
                i++;
                continue;
            }
            i = j;
            c->changed |= CL_TABLE;
            continue;
        }
        /* Rows: from a line starting with '|' to one ending with '|' followed by the next
           row, a border or the end.  Bound: j only moves forward. */
        bool first_row = true;
        while (j < c->lines.n && starts_with_bar(&c->lines.v[j], indent)) {
            size_t a = j, b = j;
            while (b < c->lines.n) {
                struct cl_line *x = &c->lines.v[b];
                bool next_ends = b + 1 >= c->lines.n || is_table_border(&c->lines.v[b + 1]) ||
                                 starts_with_bar(&c->lines.v[b + 1], indent);
                if (ends_with_bar(x) && (b > a || rtrim_len(x) > indent + 1) && next_ends)
                    break;
                if (is_table_border(x)) {
                    b--;
                    break;
                }
                b++;
            }
            if (b >= c->lines.n)
                b = c->lines.n - 1;
            if (!first_row && !table_put(c, &out, "", 0, c->lines.v[a].orig, a))
                goto fail;
            if (!unwrap_row(c, &out, a, b, indent))
                goto fail;
            first_row = false;
            j = b + 1;
        }
        if (j < c->lines.n && is_table_border(&c->lines.v[j]))
            j++;
        c->changed |= CL_TABLE;
        i = j;
    }
    cl_drop_loud(c); /* the lines moved: theirs are out.loud */
    if (out.in_place)
        c->lines.n = out.w;
    else
        cl_replace(c, &out.out);
    /* cl_next_loud reads the words up to the last line's: room for them (zero past it). */
    if (table_loud_room(&out, c->lines.n)) {
        c->loud = out.loud;
        c->loud_n = c->lines.n;
        c->loud_words = out.loud_words;
    }
    return true;
fail:
    free(out.loud);
    cl_lines_free(&out.out);
    return false;
}

/* ---- common indentation ---------------------------------------------------------------- */

/* A run is a maximal stretch of lines whose non-blank lines are all indented.  It loses its
 * common indentation when it is clearly a block of its own: it starts with a plan header, or
 * it is fenced by blank lines (or the ends of the input) and does not start in the middle of
 * a tree (a marker line).  Inside a tree the deeper lines form runs too: those never qualify,
 * because they follow a non-blank line and start with a marker. */
/* cl_blank() of a line whose leading spaces (ind of them) are counted: only a line whose
 * first other byte is a tab needs the full look. */
/* cl_indent of a line, the first byte asked first: most lines start with no space. */
static inline uint32_t line_indent(const struct cl_line *l)
{
    return l->len && l->p[0] == ' ' ? cl_indent(l->p, l->len) : 0;
}

static bool indented_blank(const struct cl_line *l, uint32_t ind)
{
    return ind == l->len || (l->p[ind] == '\t' && cl_blank(l));
}

/* The runs that start in lines [from, to), each decided and cut; *changed when one was.
 * Reads lines up to the first unindented nonblank line at or after `to` (a run ends there;
 * with `to` such a line, as indent_cut finds, it is read and not written, and the lines
 * past it are neither), and the line before `from` (a run's fence). */
static void indent_range(struct cleaner *c, size_t from, size_t to, bool *changed)
{
    size_t i = from, n = c->lines.n;
    while (i < to) {
        struct cl_line *l = &c->lines.v[i];
        uint32_t ind0 = line_indent(l);
        if (ind0 == 0 || indented_blank(l, ind0)) {
            i++;
            continue;
        }
        size_t a = i, last = i;
        uint32_t common = UINT32_MAX;
        size_t j = i;
        /* Bound: j only moves forward; the outer loop resumes after the run. */
        for (; j < n; j++) {
            struct cl_line *x = &c->lines.v[j];
            uint32_t ind = line_indent(x);
            if (indented_blank(x, ind)) {
                /* A blank line ends the block when what follows sits elsewhere: each block
                   of lines is decided by itself (a line added elsewhere in the file never
                   changes how a plan reads).  Blocks of one indented plan (a formatted
                   plan's details) share their indentation and stay one run. */
                size_t k = j + 1;
                while (k < n && indented_blank(&c->lines.v[k], line_indent(&c->lines.v[k])))
                    k++;
                if (k < n && common != UINT32_MAX &&
                    line_indent(&c->lines.v[k]) != common)
                    break;
                continue;
            }
            if (ind == 0)
                break;
            if (ind < common)
                common = ind;
            last = j;
        }
        bool fenced_before = a == 0 || cl_blank(&c->lines.v[a - 1]);
        bool fenced_after = last + 1 >= n || cl_blank(&c->lines.v[last + 1]);
        struct cl_line *first = &c->lines.v[a];
        bool header = cl_is_header(first->p, first->len) ||
                      cl_kind(first->p + common, first->len - common) == K_SECTION;
        bool marker = cl_tree_content_col(first->p + common, first->len - common) > 0;
        if (header || (fenced_before && fenced_after && !marker)) {
            for (size_t m = a; m <= last; m++) {
                struct cl_line *x = &c->lines.v[m];
                uint32_t cut = x->len < common ? x->len : common;
                x->p += cut;
                x->len -= cut;
            }
            *changed = true;
        }
        i = last + 1;
    }
}

/* The lines of the second half of the indentation step (indent_range) on another core. */
struct indent_half {
    struct cleaner *c;
    size_t from;
    bool changed;
};

static void *indent_half_main(void *arg)
{
    struct indent_half *h = arg;
    indent_range(h->c, h->from, h->c->lines.n, &h->changed);
    return NULL;
}

/* Where a big input's lines are cut for the indentation step in halves: at a line that is
 * neither blank nor indented (its first byte no space or tab) near the middle.  Every run
 * ends before such a line and none starts on it, so each run lies in one half, and the
 * first half only reads it (the end of a run, the blank lines' look ahead stop there).
 * 0: none within a quarter of the lines past the middle (one pass). */
static size_t indent_cut(const struct cleaner *c)
{
    size_t n = c->lines.n;
    if (n < 4 || !cl_halves(c, n >= ((size_t)1 << 18)))
        return 0;
    size_t lim = n / 2 + n / 4 + 1;
    /* Bound: a quarter of the lines at most. */
    for (size_t k = n / 2; k < lim && k < n; k++) {
        const struct cl_line *l = &c->lines.v[k];
        if (l->len && l->p[0] != ' ' && l->p[0] != '\t')
            return k;
    }
    return 0;
}

/* A big input's runs are decided in two halves, the second on the second core (15 M
 * instructions of the corpus paste's 27 MB on one). */
static void step_indent(struct cleaner *c)
{
    bool changed = false;
    struct indent_half hi = {c, indent_cut(c), false};
    pthread_t th;
    bool two = hi.from && thread_start_quiet(&th, indent_half_main, &hi);
    indent_range(c, 0, two ? hi.from : c->lines.n, &changed);
    if (two) {
        pthread_join(th, NULL);
        changed = changed || hi.changed;
    }
    if (changed)
        c->changed |= CL_INDENT;
}

/* ---- numberedTreeString ---------------------------------------------------------------- */


/* Runs of lines numbered n, n+1, n+2 ... (continuation lines of a node string may carry no
 * number and sit between them) with a tree line among them. */
static void step_numbers(struct cleaner *c)
{
    size_t i = 0, n = c->lines.n;
    while (i < n) {
        uint32_t plen;
        /* Only a marked line (cleaner.loud) may start on a digit. */
        i = cl_next_loud(c, i);
        if (i >= n)
            break;
        const struct cl_line *l = &c->lines.v[i];
        /* A number starts with a digit: most lines are done after one compare. */
        long v = l->len && is_digit(l->p[0]) ? cl_line_number_prefix(l, &plen) : -1;
        if (v < 0) {
            i++;
            continue;
        }
        size_t j = i + 1, last = i, count = 1;
        long want = v + 1;
        bool tree = false;
        /* Bound: j only moves forward; the outer loop resumes after the run. */
        for (; j < n; j++) {
            uint32_t pl2;
            long w = cl_line_number_prefix(&c->lines.v[j], &pl2);
            if (w == want) {
                /* A tree line among them (the first ones may be a node's text). */
                struct cl_line *x = &c->lines.v[j];
                tree = tree || cl_tree_content_col(x->p + pl2, x->len - pl2) > 0;
                want++;
                count++;
                last = j;
            } else if (w >= 0 || cl_blank(&c->lines.v[j])) {
                break;
            }
        }
        if (count >= 2 && tree) {
            for (size_t m = i; m <= last; m++) {
                uint32_t pl2;
                struct cl_line *x = &c->lines.v[m];
                if (cl_line_number_prefix(x, &pl2) >= 0) {
                    x->p += pl2;
                    x->len -= pl2;
                }
            }
            c->changed |= CL_NUMBERS;
        }
        i = last + 1;
    }
}

/* ---- emission -------------------------------------------------------------------------- */

/* Can the text be written over the input's buffer?  Lines are written in order, so it can
 * when it is shorter than the input and no line read from the input starts before the place
 * it is written to: then no write reaches a byte still to be read.  Usually true (clean-up
 * removes more than it adds), and then the input and a copy of it are never both held (a
 * corpus concatenation peaked at 2.4x its size in emission).  One pass finds the text's size
 * (*total) and whether a line would be overtaken. */
static bool fits_in_place(const struct cleaner *c, size_t *total)
{
    const struct source *src = c->src;
    uintptr_t b = (uintptr_t)src->bytes, e = b + src->len;
    size_t o = 0;
    bool overtaken = false;
    for (size_t i = 0; i < c->lines.n; i++) {
        const struct cl_line *l = &c->lines.v[i];
        uintptr_t p = (uintptr_t)l->p;
        if (l->len && p >= b && p < e && p - b < o)
            overtaken = true;
        o += (size_t)l->len + 1;
    }
    *total = o;
    if (!src->bytes || o >= src->len || overtaken)  /* < len: the NUL stays inside the input */
        return false;
    /* A mapped input (mapfile.h) is read-only until asked. */
    return !src->mapped || mapfile_writable(src->bytes, src->len);
}

/* A nonempty line of a run (lines that follow each other, from where the run starts, a
 * '\n' between each two) written at text offset o0 + o would be written over before it is
 * read (fits_in_place's test): the least o0 for which it would, SIZE_MAX for none.  The
 * run's lines lie in the input as the text will, so one test of where the run starts
 * answers for all of them.  A run that starts before the input and goes on into it is
 * tested line by line.  o0: the offset of the first line of a range of them, known only
 * once the lines before it are measured (emit_runs_find in halves); 0 for the first. */
static size_t run_overtaken_at(const struct cleaner *c, size_t i, size_t j, size_t run,
                               size_t o)
{
    uintptr_t b = (uintptr_t)c->src->bytes, e = b + c->src->len;
    uintptr_t from = (uintptr_t)c->lines.v[i].p;
    if (run <= j - i - 1)
        return SIZE_MAX; /* every line of the run is empty */
    /* from - b < o0 + o */
    if (from >= b && from < e)
        return from - b < o ? 0 : from - b - o + 1;
    if (from >= b || from + run < b)
        return SIZE_MAX;
    size_t least = SIZE_MAX;
    /* Bound: the lines of this run, once. */
    for (size_t k = i; k < j; k++) {
        const struct cl_line *l = &c->lines.v[k];
        uintptr_t p = (uintptr_t)l->p;
        size_t rhs = o + (size_t)(p - from); /* p - b < o0 + rhs */
        if (l->len && p >= b && p < e) {
            size_t t = p - b < rhs ? 0 : p - b - rhs + 1;
            if (t < least)
                least = t;
        }
    }
    return least;
}

/* The runs of lines [from, to) (none goes on past to - 1): their map entries, where each
 * starts (a bit of starts), the bytes of text they make and the least offset of line from in
 * the text at which one would be overtaken (run_overtaken_at), for emit; the second half of
 * a big input's lines on the second core. */
struct emit_runs {
    const struct cleaner *c;
    uint32_t *map;
    uint64_t *starts;          /* bit i - base for line i */
    size_t base;
    size_t from, to;
    size_t o;                  /* the text's bytes: each line and a '\n' */
    size_t least;              /* SIZE_MAX: none overtaken at any offset */
};

static void emit_runs_find(struct emit_runs *r)
{
    const struct cl_line *v = r->c->lines.v;
    uint32_t *map = r->map;
    size_t o = 0, least = SIZE_MAX;
    const bool test = !r->c->text; /* the tree step's text is written already */
    /* One pass over the lines: their map, the runs of lines that follow each other where
       they are, a '\n' between each two (most of a paste's lines were not touched: a run is
       moved at once, where a move a line was a fifth of this), the text's size, and whether
       a run would be written over before it is read (fits_in_place, which was a pass of its
       own).  Writing comes after: a run is found the same way before or after the runs
       before it are written (they are written behind where it starts). */
    for (size_t i = r->from; i < r->to;) {
        const char *from = v[i].p;
        size_t run = v[i].len, j = i + 1;
        map[i + 1] = v[i].orig;
        /* Bound: j only moves forward; the outer loop resumes at j. */
        while (j < r->to && v[j].p == from + run + 1 && from[run] == '\n') {
            map[j + 1] = v[j].orig;
            run += 1 + (size_t)v[j].len;
            j++;
        }
        r->starts[(i - r->base) >> 6] |= 1ull << ((i - r->base) & 63);
        if (test && least) {
            size_t t = run_overtaken_at(r->c, i, j, run, o);
            if (t < least)
                least = t;
        }
        o += run + 1;
        i = j;
    }
    r->o = o;
    r->least = least;
}

static void *emit_runs_main(void *arg)
{
    emit_runs_find(arg);
    return NULL;
}

/* The first line at or after i that starts a run (a bit of starts), or n. */
static size_t next_run_start(const uint64_t *starts, size_t i, size_t n)
{
    size_t words = (n + 63) >> 6, w = i >> 6;
    if (i >= n)
        return n;
    uint64_t m = starts[w] & (~0ull << (i & 63));
    /* Bound: one round a word, up to the last one. */
    while (!m) {
        if (++w == words)
            return n;
        m = starts[w];
    }
    return (w << 6) + (size_t)__builtin_ctzll(m);
}

static bool emit(struct cleaner *c)
{
    struct source *src = c->src;
    size_t n = c->lines.n;
    if (n > UINT32_MAX - 1)
        return false;
    uint32_t *map = arena_alloc(&src->arena, (n + 1) * sizeof *map);
    /* Where each run starts, a bit a line (runs: below). */
    uint64_t *starts = calloc((n >> 6) + 1, sizeof *starts);
    if (!map || !starts) {
        free(starts);
        return false;
    }
    const struct cl_line *v = c->lines.v;
    /* The runs found in two halves for a big input, the second on the second core: a run
       that goes on over the cut is two (two moves of the same bytes), and the second
       half's runs are overtaken at its least offset (run_overtaken_at) or past it. */
    struct emit_runs lo = {c, map, starts, 0, 0, n, 0, SIZE_MAX}, hi = lo;
    uint64_t *hi_starts = NULL;
    pthread_t th;
    bool two = false;
    if (n >= 4 && cl_halves(c, n >= ((size_t)1 << 18))) {
        hi.from = hi.base = n / 2;
        hi.starts = hi_starts = calloc(((n - hi.base) >> 6) + 1, sizeof *hi_starts);
        two = hi_starts && thread_start_quiet(&th, emit_runs_main, &hi);
        if (two)
            lo.to = hi.from;
    }
    emit_runs_find(&lo);
    size_t o = lo.o;
    bool overtaken = lo.least == 0;
    if (two) {
        pthread_join(th, NULL);
        overtaken = overtaken || hi.least <= lo.o;
        o += hi.o;
        /* The second half's starts into starts.  Bound: its words, and a round a run. */
        for (size_t w = 0; w <= (n - hi.base) >> 6; w++)
            for (uint64_t m = hi_starts[w]; m; m &= m - 1) {
                size_t i = hi.base + (w << 6) + (size_t)__builtin_ctzll(m);
                starts[i >> 6] |= 1ull << (i & 63);
            }
    }
    free(hi_starts);
    size_t total = c->text ? c->text_len : o;
    /* Over the input when the text is shorter than it (the NUL stays inside) and no line is
       overtaken; a mapped input (mapfile.h) is read-only until asked. */
    bool in_place = !c->text && src->bytes && o < src->len && !overtaken &&
                    (!src->mapped || mapfile_writable(src->bytes, src->len));
    char *text = c->text ? c->text : in_place ? src->bytes : arena_alloc(&src->arena, total + 1);
    if (!text) {
        free(starts);
        return false;
    }
    o = 0;
    /* Bound: one round a run. */
    for (size_t i = 0; i < n;) {
        size_t j = next_run_start(starts, i + 1, n);
        const char *from = v[i].p;
        size_t run = (size_t)(v[j - 1].p - from) + v[j - 1].len;
        /* In place, the run may overlap its new place, or be there already (the lines
           before the first change; every line when the tree step wrote c->text). */
        if (run && from != text + o)
            memmove(text + o, from, run);
        o += run;
        text[o++] = '\n';
        i = j;
    }
    free(starts);
    text[o] = '\0';
    uint32_t *units = NULL;
    if (c->units) {
        units = arena_alloc(&src->arena, (c->lines.n + 1) * sizeof *units);
        if (!units)
            return false;
        memcpy(units + 1, c->units, c->lines.n * sizeof *units);
    }
    /* In place, the buffer now holds the text: it changes owner, the input is gone
       (source_set_text; src->mapped still says how the buffer is released). */
    source_set_text(src, text, o, map, (uint32_t)c->lines.n, units);
    /* Elsewhere, after decoded_text_done wrote lines over the input: what is left there is no
       longer the input, so it goes as an input written over goes (cleaning again keeps the
       text). */
    if (c->input_written && !in_place)
        source_drop_input(src);
    return true;
}

/* ---- decoded text that needs nothing more ---------------------------------------------- */

/* A plan decoded from a string (an event log's physicalPlanDescription) is usually Spark's
 * own output, which in a file of its own skips every step.  Skipping the steps after the
 * literal step gives exactly their result when the quick scan finds nothing to do in the
 * lines written out (each followed by '\n') and three things hold of the lines that the
 * quick scan does not check the way the steps do:
 *  - no line ends in a blank: the scan measures a line without its trailing blanks, the
 *    wrap step with them, step_trailing cuts them without a word when few lines carry them,
 *    and step_tabs expands tabs in blank lines without a word;
 *  - no line starts with a numberedTreeString number ("00 "): step_numbers follows numbered
 *    lines across unnumbered ones, the scan only looks at two lines in a row;
 *  - no indented line follows a blank line or opens the text, or reads as a header or a
 *    section line once its indentation is cut: step_indent's blocks start there.
 * Then, step by step, on the same lines as the scan sees (no '\r' and no byte order mark:
 * the scan says dirty on both): a tab before a line's first other byte, a table border, two
 * lines in a row with one comment prefix, a markup line make the scan say dirty, and nothing
 * less lets step_tabs, step_tables, step_prefixes or cl_step_markup act; the wrap step
 * decides on the evidence the scan gathers (cl_wrap_scan_line) from the same lines, widths
 * and facts, and asks for more of it; the tree step resets its checker at more block ends
 * than the scan, which carries the columns of a block before into the next, so whatever the
 * step finds bad the scan found bad too.  So no step changes a line, and the text is the
 * lines as they are.  tests/check_clean.c compares it with every step run, over the corpus
 * wrapped in strings and mangled. */

/* cl_line_needs_steps (lines.c) tells whether a line breaks the conditions above. */

/* The lines written over the input, each followed by '\n', each line then pointing at its
 * copy (decoded_text_done has checked the rule above first).  Returns the bytes written. */
static size_t write_lines_over_input(struct cleaner *c)
{
    char *text = c->src->bytes;
    size_t o = 0;
    for (size_t i = 0; i < c->lines.n; i++) {
        struct cl_line *l = &c->lines.v[i];
        if (l->len && l->p != text + o)
            memmove(text + o, l->p, l->len);
        l->p = text + o;
        o += l->len;
        text[o++] = '\n';
    }
    return o;
}

/* The line map emit() would make for the lines written by write_lines_over_input, in the
 * source's arena; NULL when out of memory. */
static uint32_t *written_text_map(struct cleaner *c)
{
    if (c->lines.n > UINT32_MAX - 1)
        return NULL;
    uint32_t *map = arena_alloc(&c->src->arena, (c->lines.n + 1) * sizeof *map);
    if (!map)
        return NULL;
    for (size_t i = 0; i < c->lines.n; i++)
        map[i + 1] = c->lines.v[i].orig;
    return map;
}

/* c->lines (empty) made again from the text write_lines_over_input wrote (n bytes, n_lines
 * lines each ended by '\n', none holding one) and its map (or, without one, every line from
 * input line from); false when out of memory. */
static bool lines_from_text(struct cleaner *c, const char *text, size_t n, const uint32_t *map,
                            uint32_t from, uint32_t n_lines)
{
    if (!cl_lines_reserve(c, &c->lines, n_lines))
        return false;
    const char *s = text, *end = text + n;
    /* Bound: one line a round, n_lines rounds. */
    for (uint32_t i = 1; i <= n_lines && s < end; i++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl)
            nl = end;
        if (!cl_push(c, &c->lines, s, (size_t)(nl - s), map ? map[i] : from))
            return false;
        s = nl + 1;
    }
    return true;
}

/* After the literal step rewrote the lines: 1 when the text is done (the rule above), 0 when
 * the other steps must run (then the lines may have been written over the input already,
 * and c->input_written says so), -1 out of memory.  With a hook (clean.h) the quick scan is
 * the hook's, and the map is made first, for what the hook does beside the scan; when the
 * scan finds the text dirty, that map stays unused in the source's arena (4 bytes a line). */
static int compact_text_done(struct cleaner *c);

static int decoded_text_done(struct cleaner *c)
{
    size_t total;
    if (c->compact.on)
        return compact_text_done(c);
    if (!(c->changed & CL_LITERAL) || c->lines.n > UINT32_MAX - 1)
        return 0;
    /* The rule first, on the lines where they are: when a line breaks it the steps run on
       them there (the steps read what lines hold, never where), and nothing is written over
       the input yet, so a copy of it being made on another thread (clean_steps) is not
       waited for here. */
    bool after_blank = true;
    for (size_t i = 0; i < c->lines.n; i++) {
        if (cl_line_needs_steps(&c->lines.v[i], after_blank))
            return 0;
        after_blank = c->lines.v[i].len == 0;
    }
    if (!fits_in_place(c, &total))
        return 0;
    size_t n = write_lines_over_input(c);
    c->input_written = true;
    char *text = c->src->bytes;
    if (!c->hook && clean_quick_scan(text, n))
        return 0;
    uint32_t *map = written_text_map(c);
    if (!map)
        return -1;
    text[n] = '\0'; /* n < len: inside the input's buffer */
    uint32_t n_lines = (uint32_t)c->lines.n;
    if (c->hook) {
        /* The lines are the text's, one each '\n': their array (16 bytes a line) goes
           before the hook fills memory with the parsed model, and is made again from the
           text when the steps must run after all. */
        cl_lines_free(&c->lines);
        if (c->hook->scan(c->hook->ctx, text, n, map, 0, n_lines))
            return lines_from_text(c, text, n, map, 0, n_lines) ? 0 : -1;
    }
    source_set_text(c->src, text, n, map, n_lines, NULL);
    return 1;
}

/* decoded_text_done for the literal step's compact text (lines.h): the same steps without
 * the array of lines (16 bytes a line: 41 MB for the 2.6 million lines of a 100 MB plan in
 * an event log's line, fresh memory written once and read three times).  The text is where
 * write_lines_over_input would put it (decoded from the input's first byte, no line moved
 * by a '\r' cut or kept text), and whether a line needs the steps was noted as each line was
 * decoded.  On every way to the steps the lines are made from the text first, as they were. */
static int compact_text_done(struct cleaner *c)
{
    struct source *src = c->src;
    size_t n = c->compact.len + c->compact.add_newline;
    /* fits_in_place: shorter than the input (the text ends with its '\n' and a NUL inside
       it), and written already. */
    if (n >= src->len)
        return 0;
    char *text = src->bytes;
    if (c->compact.add_newline)
        text[c->compact.len] = '\n';
    c->input_written = true;
    if (c->compact.needs_steps)
        return 0;
    if (!c->hook && clean_quick_scan(text, n))
        return 0;
    /* Every line comes from the one input line: no map (source.h's line_from), where one
       of that value was 10 MB of fresh memory for the 100 MB event-log line. */
    uint32_t n_lines = c->compact.n_lines, from = c->compact.orig;
    text[n] = '\0';
    if (c->hook && c->hook->scan(c->hook->ctx, text, n, NULL, from, n_lines)) {
        c->compact.on = false;
        return lines_from_text(c, text, n, NULL, from, n_lines) ? 0 : -1;
    }
    c->compact.on = false;
    source_set_text(src, text, n, NULL, n_lines, NULL);
    src->line_from = from;
    return 1;
}

/* ---- the quick scan -------------------------------------------------------------------- */

enum { MARK_CR = 1, MARK_BACKSLASH = 2, MARK_HIGH = 4 };

/* The text read 64 bytes a step: for each block, a bit for each '\n' and a bit for each rare
 * byte ('\r', '\\' or one above 0x7F: a line that holds one is looked at closely).  A line
 * end is then the lowest '\n' bit not taken yet, where a search of its own for each line
 * cost 40 instructions a line of a big plan.  The last block (fewer than 64 bytes) is read
 * from a copy padded with zeros: nothing past the text is read. */
struct qs_blocks {
    const char *base; /* the block's first byte */
    const char *end;  /* the text's end */
    uint64_t nl;      /* its '\n' bits after the last line end taken (the lines to come) */
    uint64_t rare;    /* its rare bits after the last line end taken */
};

/* What qs_line_end says of the line it ends: a rare byte comes before its end (QS_RARE), or
 * (QS_STOPPED) the line was left at a block whose rest is the line's and holds a rare byte,
 * its end not found yet (qs_line_rest), with QS_SPANNED when it had passed a whole block by
 * then.  One value, not fields of the blocks' state: each of those is carried from line to
 * line in a register of the scan's loop, and two more cost it 3 % more instructions. */
enum { QS_RARE = 1, QS_STOPPED = 2, QS_SPANNED = 4 };

/* The '\n' bits and the rare bits of 64 bytes at p (the rare ones tested for the block
 * first: it nearly always has none). */
static inline void qs_masks(const char *p, uint64_t *nl, uint64_t *rare)
{
#ifdef __SSE2__
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), bs = _mm_set1_epi8('\\');
    __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    *nl = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, lf)) |
          (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, lf)) << 16 |
          (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, lf)) << 32 |
          (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, lf)) << 48;
    /* The top bit of each byte (the bytes themselves), then '\r' and '\\'. */
    __m128i r0 = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v0, cr), _mm_cmpeq_epi8(v0, bs)), v0);
    __m128i r1 = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v1, cr), _mm_cmpeq_epi8(v1, bs)), v1);
    __m128i r2 = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v2, cr), _mm_cmpeq_epi8(v2, bs)), v2);
    __m128i r3 = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v3, cr), _mm_cmpeq_epi8(v3, bs)), v3);
    if (!_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(r0, r1), _mm_or_si128(r2, r3)))) {
        *rare = 0;
        return;
    }
    *rare = (uint64_t)(unsigned)_mm_movemask_epi8(r0) |
            (uint64_t)(unsigned)_mm_movemask_epi8(r1) << 16 |
            (uint64_t)(unsigned)_mm_movemask_epi8(r2) << 32 |
            (uint64_t)(unsigned)_mm_movemask_epi8(r3) << 48;
#else
    uint64_t n = 0, r = 0;
    for (int k = 0; k < 64; k++) {
        n |= (uint64_t)(p[k] == '\n') << k;
        r |= (uint64_t)(p[k] == '\r' || p[k] == '\\' || (unsigned char)p[k] > 0x7F) << k;
    }
    *nl = n;
    *rare = r;
#endif
}

/* 64 spaces at p. */
static inline bool qs_spaces64(const char *p)
{
#ifdef __SSE2__
    const __m128i sp = _mm_set1_epi8(' ');
    __m128i a = _mm_and_si128(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), sp),
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), sp));
    __m128i b = _mm_and_si128(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 32)), sp),
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 48)), sp));
    return _mm_movemask_epi8(_mm_and_si128(a, b)) == 0xFFFF;
#else
    return blank_skip_spaces(p, 0, 64) == 64;
#endif
}

/* The masks of the last block, fewer than 64 bytes, from a copy padded with zeros. */
static void qs_load_tail(struct qs_blocks *b)
{
    char pad[64];
    size_t left = (size_t)(b->end - b->base);
    memset(pad, 0, sizeof pad);
    memcpy(pad, b->base, left);
    qs_masks(pad, &b->nl, &b->rare);
}

static inline __attribute__((always_inline)) void qs_load(struct qs_blocks *b)
{
    if (b->end - b->base >= 64)
        qs_masks(b->base, &b->nl, &b->rare);
    else
        qs_load_tail(b);
}

static bool has_quote(const char *p, uint32_t len)
{
    return memchr(p, '"', len) || memchr(p, '\'', len);
}

/* The '\\' bits and the '\r' bits of the 64 bytes at p. */
static inline void qs_rare_kinds(const char *p, uint64_t *bs, uint64_t *cr)
{
#ifdef __SSE2__
    const __m128i crv = _mm_set1_epi8('\r'), bsv = _mm_set1_epi8('\\');
    uint64_t b = 0, c = 0;
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        b |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, bsv)) << (16 * k);
        c |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, crv)) << (16 * k);
    }
    *bs = b;
    *cr = c;
#else
    uint64_t b = 0, c = 0;
    for (int k = 0; k < 64; k++) {
        b |= (uint64_t)(p[k] == '\\') << k;
        c |= (uint64_t)(p[k] == '\r') << k;
    }
    *bs = b;
    *cr = c;
#endif
}

/* What the 64 bytes at p, with rare bits rare, show of the line that holds them all (it
 * started at start, before them or among them, and goes on past them): QS_DIRTY when they
 * make it dirty, wherever they are in it (clean_quick_scan): a '\r', or an escaped newline
 * (a backslash before an 'n') in a line with a quote.  So the scan answers there, not at the
 * line's end: an event log's line is 100 MB long, and its plan string's first "\n" comes a
 * few hundred bytes into it, after the string's opening quote.  At the line's first escaped
 * newline its bytes from start are looked at for a quote: QS_LOOKED when there is none
 * (a quote may come later: the line is judged at its end as any other; looking again at
 * each escape would read the line again each time).  Called for a block with a rare bit
 * only, and kept out of line, its arguments values: a pointer to the scan's block state
 * would keep that state out of registers (8 % more instructions in the scan). */
enum qs_long { QS_GO_ON, QS_DIRTY, QS_LOOKED };

__attribute__((noinline, cold)) static enum qs_long qs_long_line(const char *p, uint64_t rare,
                                                                const char *start)
{
    uint64_t bs, cr;
    qs_rare_kinds(p, &bs, &cr);
    if (cr & rare)
        return QS_DIRTY;
    /* p[k + 1] is in the text (more than 64 bytes of it from p), and in the line unless it
       is its '\n', which is no 'n'. */
    for (bs &= rare; bs; bs &= bs - 1)
        if (p[__builtin_ctzll(bs) + 1] == 'n')
            return has_quote(start, (uint32_t)(p + 64 - start)) ? QS_DIRTY : QS_LOOKED;
    return QS_GO_ON;
}

/* Steps b to its next 64-byte block and loads it; once the line has spanned a whole block
 * without a line end, whole blocks of spaces are skipped first (a deep line's indentation
 * holds nothing sought).  True when the block holds a line end: the first one is taken
 * from b->nl, *at points at it and *upto has the block's bits up to it (bits 0..k, all of
 * them when k is 63).  Inlined in both of its callers, the scan's own loop among them. */
static inline __attribute__((always_inline)) bool qs_next_block(struct qs_blocks *b,
                                                                bool spanned, const char **at,
                                                                uint64_t *upto)
{
    b->base += 64;
    while (spanned && b->end - b->base > 64 && b->base[0] == ' ' && qs_spaces64(b->base))
        b->base += 64;
    qs_load(b);
    uint64_t nl = b->nl;
    if (!nl)
        return false;
    unsigned k = (unsigned)__builtin_ctzll(nl);
    *upto = (2ull << k) - 1;
    b->nl = nl & (nl - 1);
    *at = b->base + k;
    return true;
}

/* The end of a line that qs_line_end_far left at b's block (the rest of it is the line's
 * and holds a rare byte), found as qs_line_end_far does; or NULL as soon as the line is
 * sure to be dirty (qs_long_line), its end not looked for.  The line started at start, and
 * a block of spaces was skipped before when spanned.  Bound: one block a round, up to the
 * line's end. */
__attribute__((noinline)) static const char *qs_line_rest(struct qs_blocks *b,
                                                         const char *start, bool spanned)
{
    for (;;) {
        /* The rest of the block is the line's: when the text goes on after it, whatever
           is in it may be looked at. */
        if (b->rare && start && b->end - b->base > 64) {
            enum qs_long v = qs_long_line(b->base, b->rare, start);
            if (v == QS_DIRTY)
                return NULL;
            if (v == QS_LOOKED)
                start = NULL;
        }
        if (b->end - b->base <= 64)
            return b->end;
        const char *at;
        uint64_t upto;
        if (qs_next_block(b, spanned, &at, &upto)) {
            b->rare &= ~upto;
            return at;
        }
        spanned = true;
    }
}

/* qs_line_end for a line that goes on past its block: the blocks after it, up to the one
 * with its end.  At the first block whose rest is the line's and holds a rare byte, it
 * stops: it says the line ends with the text, with QS_STOPPED; the scan
 * finds its end with qs_line_rest, which may answer before it (the scan's loop makes that
 * call only for a line with a rare byte; a call here, in the loop this is inlined in, cost
 * it 3-8 % more instructions on plans without one).  Bound: one block a round, up to the
 * line's end. */
static inline __attribute__((always_inline)) const char *qs_line_end_far(struct qs_blocks *b,
                                                                        unsigned *rare)
{
    bool spanned = false;
    if (b->rare)
        goto stop;
    for (;;) {
        if (b->end - b->base <= 64) {
            *rare = 0;
            return b->end;
        }
        const char *at;
        uint64_t upto;
        if (qs_next_block(b, spanned, &at, &upto)) {
            /* Tested first as in qs_line_end: the new block nearly never has a rare byte,
               and the masks cost 8 instructions a block without it. */
            *rare = 0;
            if (b->rare) {
                *rare = (b->rare & upto) != 0;
                b->rare &= ~upto;
            }
            return at;
        }
        spanned = true;
        if (b->rare)
            goto stop;
    }
stop:
    *rare = QS_RARE | QS_STOPPED | (spanned ? QS_SPANNED : 0);
    return b->end;
}

/* The end of the next line (its '\n', or the text's end; the line starts right after the
 * line end taken before, in the block or at its end) and in *rare whether a rare byte comes
 * before it (QS_RARE).  The line end is taken: its bits, and the rare ones before it, are
 * cleared.  Or, for a line with a rare byte that goes on past its block, QS_STOPPED
 * (qs_line_end_far). */
static inline __attribute__((always_inline)) const char *qs_line_end(struct qs_blocks *b,
                                                                    unsigned *rare)
{
    uint64_t nl = b->nl;
    if (nl) {
        unsigned k = (unsigned)__builtin_ctzll(nl);
        b->nl = nl & (nl - 1);
        *rare = 0;
        if (b->rare) { /* nearly never: tested first */
            uint64_t upto = (2ull << k) - 1;
            *rare = (b->rare & upto) != 0;
            b->rare &= ~upto;
        }
        return b->base + k;
    }
    return qs_line_end_far(b, rare);
}

/* The line just looked at becomes the one before the next: the two slots swap roles. */
#define QS_NEXT_LINE(prev, l, prev_f, f)                                                          \
    do {                                                                                           \
        struct cl_line *t_ = (prev);                                                               \
        struct cl_facts *tf_ = (prev_f);                                                           \
        (prev) = (l);                                                                              \
        (l) = t_;                                                                                  \
        (prev_f) = (f);                                                                            \
        (f) = tf_;                                                                                 \
    } while (0)

/* The facts of the line before, l (its view and facts as the scan left them, end the text's
 * end), as cl_facts_quick tells them with field_kind when unsure (the scan took them without
 * it): a K_OTHER line there may be a details field.  Nothing else of the facts differs (both
 * are the kind alone), and the line is as the scan took it (its last byte no blank). */
__attribute__((noinline)) static void qs_settle_other(const struct cl_line *l,
                                                      struct cl_facts *f, const char *end)
{
    if (cl_is_field_quick(l->p, l->len, (size_t)(end - l->p)))
        f->kind = K_FIELD;
}

/* Out of line: a second copy of the field test in the scan's loop cost it registers. */
static inline void qs_settle_field(const struct cl_line *l, struct cl_facts *f, bool unsure,
                                   const char *end)
{
    if (unsure && f->kind == K_OTHER)
        qs_settle_other(l, f, end);
}

/* What a run of the scan over whole lines (qs_lines) carries in and out.  A run starts after
 * a blank line, or at the text's start, which looks the same to every check: the tree check,
 * the prefix and number rules start again there, and the line before is blank (width 0, no
 * facts).  What does not start again comes in: the wrap evidence (its running figures, and
 * what it knows of the line before the blank one) and doc_next (a doc comment opened before
 * the blank lines); the counts are added to. */
struct qs_run {
    struct cl_wrap_scan ws;
    uint32_t nonblank, trailing; /* non-blank lines, and those of them ending in blanks */
    uint32_t last_width;         /* the width of the run's last line */
    bool doc_next;               /* the line before opened a doc comment (cl_markup_line) */
    bool dirty;                  /* a check said so (the run stopped there) */
};

static void qs_run_init(struct qs_run *run)
{
    memset(run, 0, sizeof *run);
    cl_wrap_scan_init(&run->ws);
}

/* The run's verdict once it has seen every line of the text. */
static bool qs_run_verdict(struct qs_run *run)
{
    if (run->dirty)
        return true;
    run->ws.last_w = run->last_width; /* what each line's cl_wrap_scan_line would have left */
    /* Terminal padding: most lines end in blanks. */
    if (run->nonblank >= 4 && run->trailing * 2 > run->nonblank)
        return true;
    return cl_wrap_scan_dirty(&run->ws);
}

/* The lines from s up to stop (a line's start: the text's end, or right after a blank line),
 * end the text's end, text its start; run holds what comes in and takes what goes out.  One
 * copy of the loop for the whole text and for a piece: with one inlined in each caller, the
 * line-end steps were inlined in neither and the whole scan ran 3-5 % more instructions
 * (they are always inlined now). */
__attribute__((noinline)) static void qs_lines(struct qs_run *run, const char *text,
                                               const char *s, const char *stop, const char *end)
{
    /* The line and the one before it, in two slots that change roles at each line: a copy
       of each line's view and facts was a store-forwarding stall a line. */
    struct cl_line lv[2] = {{"", 0, 0}, {"", 0, 0}};
    struct cl_facts fv[2] = {{.kind = K_BLANK}, {.kind = K_BLANK}};
    struct cl_line *prev = &lv[0], *l = &lv[1];
    struct cl_facts *prev_f = &fv[0], *f = &fv[1];
    bool prev_plain; /* wrap_prev_plain of the line before, worked out when it was the line */
    /* The line before was told by cl_facts_quick without field_kind: K_OTHER there may be
       a field (qs_settle_field). */
    bool prev_unsure = false;
    enum prefix_kind prev_prefix = PX_NONE;
    long prev_number = -2;
    uint32_t prev_width = 0, nonblank = 0, trailing = 0;
    struct cl_wrap_scan ws = run->ws;
    prev_plain = wrap_prev_plain(&ws, prev, prev_f);
    struct cl_tree_check tc = {0};
    bool dirty = false, doc_next = run->doc_next;
    /* The blocks go on to the text's end (a line is found whole wherever the run stops). */
    struct qs_blocks blocks = {s, end, 0, 0};
    if (s < stop)
        qs_load(&blocks);
    while (s < stop && !dirty) {
        unsigned rare;
        const char *le = qs_line_end(&blocks, &rare);
        l->p = s;
        l->len = (uint32_t)(le - s); /* orig stays 0: nothing the scan calls reads it */
        s = le < end ? le + 1 : end;
        uint32_t width;
        /* The lines Spark prints most (cl_facts_quick), without a rare byte or a blank at
           the end, after a line that opened no doc comment: none of the checks below can
           say dirty (their first bytes are none of those the checks look for, no number
           starts them, a tree line's first byte after its spaces is its prefix's, lines at
           column 0 are not indented), so only what they carry to the next line is set. */
        bool plain = !rare && (!l->len || (!doc_next && l->p[l->len - 1] != ' ' &&
                                          l->p[l->len - 1] != '\t'));
        /* A details field (K_FIELD) and another line at column 0 (K_OTHER) differ only to
           the wrap evidence: not when wrap_scan_nothing does all for this line whatever
           its kind (the line before is narrower than WRAP_MIN_WIDTH, no tree line, and
           nothing about it makes wrap_scan_nothing give up).  Such a line is not told
           which here; as the line before the next one its kind is read only by
           cl_wrap_scan_line (wrap_scan_nothing asks the line before whether it is a tree
           line or blank, the other checks whether it is blank), and is told just before
           that call (qs_settle_field): of a field line as wide as WRAP_MIN_WIDTH or wider
           (a third of a formatted plan's lines) the next line nearly never makes it. */
        bool field_kind = prev_width >= WRAP_MIN_WIDTH || prev_f->kind == K_TREE || !prev_plain;
        if (plain && cl_facts_quick(l->p, l->len, (size_t)(end - l->p), f, field_kind)) {
            width = l->len;
            if (f->kind == K_BLANK) {
                prev_prefix = PX_NONE;
                prev_number = -2;
                tc.n = 0; /* cl_tree_check_line at a blank line */
            } else {
                nonblank++;
                prev_prefix = PX_NONE;
                prev_number = -1;
                if (f->content) {
                    if (!cl_tree_check_line(&tc, f))
                        dirty = true; /* out of memory: let the full pass decide */
                    if (tc.bad || tc.collapsed_colons)
                        dirty = true;
                }
            }
            /* wrap_prev_plain of this line: of the shapes cl_facts_quick tells none is a
               header nor starts with '=' or '-'.  When wrap_scan_nothing does all, the line
               before was plain, so no header: ws.prev_schema is false (only a header is
               analyzed), and is not read back. */
            if (wrap_scan_nothing(&ws, prev_plain, prev_f, prev_width, f, width)) {
                prev_plain = !f->aqe_header;
            } else {
                qs_settle_field(prev, prev_f, prev_unsure, end);
                cl_wrap_scan_line(&ws, prev, prev_f, prev_width, l, f, width);
                prev_plain = !f->aqe_header && !ws.prev_schema;
            }
            prev_unsure = !field_kind;
            prev_width = width;
            QS_NEXT_LINE(prev, l, prev_f, f);
            continue;
        }
        unsigned marks = 0;
        if (rare) {
            if (rare & QS_STOPPED) {
                /* A long line's end, or a '\r', or a quote and an escaped newline in it
                   (below) before its end: on a copy, so that the blocks' state, whose
                   address no other call takes, stays in registers. */
                struct qs_blocks t = blocks;
                le = qs_line_rest(&t, l->p, (rare & QS_SPANNED) != 0);
                blocks = t;
                if (!le) {
                    dirty = true;
                    break;
                }
                l->len = (uint32_t)(le - l->p);
                s = le < end ? le + 1 : end;
            }
            /* A '\r' anywhere (CRLF) is work for the clean-up. */
            if (memchr(l->p, '\r', l->len)) {
                dirty = true;
                break;
            }
            marks = MARK_BACKSLASH | MARK_HIGH; /* the tests they guard are exact */
        }
        uint32_t raw_len = l->len;
        while (l->len && (l->p[l->len - 1] == ' ' || l->p[l->len - 1] == '\t'))
            l->len--;
        if (!plain) /* else the facts are the line's, which has no blank to trim */
            cl_facts_quick(l->p, l->len, l->len, f, true);
        enum cl_kind kind = f->kind;
        uint32_t ind = cl_indent(l->p, l->len);
        if (kind != K_BLANK) {
            nonblank++;
            if (raw_len != l->len) {
                trailing++;
                if (kind == K_TREE || kind == K_HEADER)
                    dirty = true;
            }
            /* The checks below look at the first character first: most lines of a big
               plan start with spaces and a marker and are done after two compares. */
            char c0 = l->p[ind];
            if (c0 == '\t' || c0 == '|' || (c0 == '+' && is_table_border(l)))
                dirty = true;
            enum prefix_kind px = c0 == '#' || c0 == '/' || c0 == '-' || c0 == '>'
                                      ? line_prefix(l, ind)
                                      : PX_NONE;
            if (px != PX_NONE && px == prev_prefix)
                dirty = true;
            prev_prefix = px;
            uint32_t plen;
            long num = is_digit(l->p[0]) ? cl_line_number_prefix(l, &plen) : -1;
            if (num >= 0 && num == prev_number + 1)
                dirty = true;
            prev_number = num;
            if (ind > 0 && (prev_f->kind == K_BLANK || l->p == text) && !f->content)
                dirty = true;
            if (ind > 0 && c0 == '=' && kind == K_HEADER)
                dirty = true;
            if ((marks & MARK_BACKSLASH) && has_quote(l->p, l->len) &&
                cl_line_has_escaped_newline(l->p, l->len))
                dirty = true;
            if ((c0 == '<' || c0 == '#' || c0 == '-' || c0 == '/' || c0 == '*' || doc_next) &&
                cl_markup_line(l->p, l->len, ind, &doc_next))
                dirty = true;
        } else {
            prev_prefix = PX_NONE;
            prev_number = -2;
        }
        width = (marks & MARK_HIGH) ? cl_line_width(l, f) : l->len;
        if (!wrap_scan_nothing(&ws, prev_plain, prev_f, prev_width, f, width)) {
            qs_settle_field(prev, prev_f, prev_unsure, end);
            cl_wrap_scan_line(&ws, prev, prev_f, prev_width, l, f, width);
        }
        prev_plain = wrap_prev_plain(&ws, l, f);
        prev_unsure = false; /* its facts are cl_facts_quick's with field_kind, or cl_facts' */
        /* The checker only looks at tree lines and the lines that end a block. */
        if (f->content || kind == K_BLANK || kind == K_HEADER || kind == K_SECTION) {
            if (!cl_tree_check_line(&tc, f))
                dirty = true; /* out of memory: let the full pass decide */
            if (tc.bad || tc.collapsed_colons)
                dirty = true;
        }
        prev_width = width;
        QS_NEXT_LINE(prev, l, prev_f, f);
    }
    cl_tree_check_free(&tc);
    run->ws = ws;
    run->doc_next = doc_next;
    run->dirty = dirty;
    run->nonblank += nonblank;
    run->trailing += trailing;
    run->last_width = prev_width;
}

/* A BOM: the clean-up's (true), or -1 when the text has none. */
static int qs_bom(const char *s, size_t n)
{
    if (n >= 2 && (((unsigned char)s[0] == 0xFF && (unsigned char)s[1] == 0xFE) ||
                   ((unsigned char)s[0] == 0xFE && (unsigned char)s[1] == 0xFF)))
        return 1;
    if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        return 1;
    return -1;
}

bool clean_quick_scan(const char *s, size_t n)
{
    if (qs_bom(s, n) > 0)
        return true;
    if (n > UINT32_MAX / 2)
        return false; /* too big to rewrite: read as it is */
    struct qs_run run;
    qs_run_init(&run);
    qs_lines(&run, s, s, s + n, s + n);
    return qs_run_verdict(&run);
}

/* ---- the quick scan in pieces ---------------------------------------------------------- */

/* Two threads share the scan of a big text (load.c): it is cut into pieces, each starting
 * right after a blank line (an empty one: "\n\n" before it), where every check starts again
 * (qs_run).  Each piece is scanned on its own from qs_run_init, which is what the scan
 * carries over a blank line unless the line before it was a header, a schema line, a
 * "-- !query" line or a blank one, or opened a doc comment: the merge, in order, checks that
 * and scans such a piece again on from the pieces before it (exact, and rare in a plan).  The
 * counts add up, the wrap evidence merges (cl_wrap_scan_merge).  A piece that finds a check
 * failing says dirty at once: the checks that say so depend on nothing before the blank line
 * but doc_next, and a doc comment opened there only adds to what they find. */
struct qs_piece {
    const char *from, *to; /* its lines: from is a line's start, to the next piece's from */
    atomic_int taken;      /* a thread has it */
    bool done;             /* run holds what its lines found (read after the threads met) */
    struct qs_run run;
};

struct clean_quick_parts {
    const char *text;
    size_t len;
    int fixed;             /* the verdict without pieces (a BOM, too big), or -1 */
    struct qs_piece *pieces;
    size_t n;
    size_t front, back;    /* the next piece from the front, one past the next from the back */
    atomic_int dirty;      /* a piece found a check failing: the verdict is dirty */
};

/* Where a piece may start is looked for this far from where one is wanted: a plan's details
 * list has a blank line every few hundred bytes, its tree none at all (a piece there goes
 * on to the next place found). */
#define QS_PIECE_LOOK 4096

/* The first "\n\n" in s[from, to) (the second '\n' may be at to), or NULL. */
static const char *qs_blank_after(const char *s, size_t from, size_t to, size_t len)
{
    const char *p = s + from, *e = s + to;
    /* Bound: one memchr round a '\n' of the window. */
    while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
        if ((size_t)(p + 1 - s) < len && p[1] == '\n')
            return p;
        p++;
    }
    return NULL;
}

struct clean_quick_parts *clean_quick_parts_new(const char *text, size_t len, size_t piece)
{
    struct clean_quick_parts *qp = calloc(1, sizeof *qp);
    if (!qp)
        return NULL;
    qp->text = text;
    qp->len = len;
    qp->fixed = qs_bom(text, len);
    if (qp->fixed < 0 && len > UINT32_MAX / 2)
        qp->fixed = 0; /* too big to rewrite: read as it is */
    /* A BOM is the clean-up's: a parse beside the scan stops at once. */
    atomic_init(&qp->dirty, qp->fixed > 0);
    size_t cap = 16;
    qp->pieces = malloc(cap * sizeof *qp->pieces);
    if (!qp->pieces) {
        free(qp);
        return NULL;
    }
    if (piece < 1)
        piece = 1;
    size_t start = 0, t = piece;
    /* Bound: each round looks at a window after the last, or finds a later start. */
    while (qp->fixed < 0 && start < len) {
        const char *b = NULL;
        size_t look_end = t;
        if (t < len) {
            look_end = len - t > QS_PIECE_LOOK ? t + QS_PIECE_LOOK : len;
            b = qs_blank_after(text, t, look_end, len);
        }
        size_t next = b ? (size_t)(b - text) + 2 : len;
        if (b && next >= len)
            next = len;
        if (!b && t < len) {
            t = t + piece > look_end ? t + piece : look_end;
            continue;
        }
        if (qp->n == cap) {
            struct qs_piece *np = realloc(qp->pieces, 2 * cap * sizeof *np);
            if (!np) {
                clean_quick_parts_free(qp);
                return NULL;
            }
            qp->pieces = np;
            cap *= 2;
        }
        struct qs_piece *pc = &qp->pieces[qp->n++];
        pc->from = text + start;
        pc->to = text + next;
        atomic_init(&pc->taken, 0);
        pc->done = false;
        start = next;
        t = b ? (size_t)(b - text) + piece : len;
    }
    qp->back = qp->n;
    return qp;
}

void clean_quick_parts_free(struct clean_quick_parts *qp)
{
    if (!qp)
        return;
    free(qp->pieces);
    free(qp);
}

size_t clean_quick_parts_first_len(const struct clean_quick_parts *qp)
{
    return qp->n ? (size_t)(qp->pieces[0].to - qp->pieces[0].from) : 0;
}

const atomic_int *clean_quick_parts_cancel(const struct clean_quick_parts *qp)
{
    return &qp->dirty;
}

bool clean_quick_parts_step(struct clean_quick_parts *qp, bool front)
{
    if (atomic_load_explicit(&qp->dirty, memory_order_relaxed))
        return false;
    size_t i;
    if (front) {
        if (qp->front >= qp->n)
            return false;
        i = qp->front++;
    } else {
        if (qp->back == 0)
            return false;
        i = --qp->back;
    }
    struct qs_piece *pc = &qp->pieces[i];
    if (atomic_exchange(&pc->taken, 1)) {
        /* The other end has it, and all beyond it: the two have met. */
        if (front)
            qp->front = qp->n;
        else
            qp->back = 0;
        return false;
    }
    qs_run_init(&pc->run);
    qs_lines(&pc->run, qp->text, pc->from, pc->to, qp->text + qp->len);
    pc->done = true;
    if (pc->run.dirty)
        atomic_store(&qp->dirty, 1);
    return true;
}

bool clean_quick_parts_verdict(struct clean_quick_parts *qp)
{
    if (qp->fixed >= 0)
        return qp->fixed;
    if (atomic_load(&qp->dirty))
        return true;
    struct qs_run acc;
    qs_run_init(&acc);
    /* Bound: each piece merged or scanned once. */
    for (size_t i = 0; i < qp->n; i++) {
        struct qs_piece *pc = &qp->pieces[i];
        /* It was scanned from qs_run_init: right when the pieces before leave that. */
        bool fits = !acc.doc_next && !acc.ws.prev_schema && !acc.ws.prev_after_header &&
                    !acc.ws.prev_root_like;
        if (!pc->done || !fits) {
            qs_lines(&acc, qp->text, pc->from, pc->to, qp->text + qp->len);
            if (acc.dirty)
                return true;
            continue;
        }
        cl_wrap_scan_merge(&acc.ws, &pc->run.ws);
        acc.nonblank += pc->run.nonblank;
        acc.trailing += pc->run.trailing;
        acc.last_width = pc->run.last_width;
        acc.doc_next = pc->run.doc_next;
    }
    return qs_run_verdict(&acc);
}

bool clean_quick_scan_pieces(const char *s, size_t n, size_t piece)
{
    struct clean_quick_parts *qp = clean_quick_parts_new(s, n, piece);
    if (!qp)
        return clean_quick_scan(s, n);
    /* From both ends in turn, as two threads would take them. */
    bool f = true, b = true;
    while (f || b) {
        f = f && clean_quick_parts_step(qp, true);
        b = b && clean_quick_parts_step(qp, false);
    }
    bool dirty = clean_quick_parts_verdict(qp);
    clean_quick_parts_free(qp);
    return dirty;
}

/* ---- the pipeline ---------------------------------------------------------------------- */

static void prefault_free(struct cl_prefault *pf)
{
    free(pf->facts);
    free(pf->widths);
    free(pf->kinds);
    pf->facts = NULL;
    pf->widths = NULL;
    pf->kinds = NULL;
}

/* The wrap step's blocks for the lines of the split and a sixteenth more (strings decoded
 * into lines add some: 0.1 % on the corpus paste); none when one cannot be had. */
static void prefault_new(struct cl_prefault *pf, size_t n)
{
    size_t cap = n + n / 16 + 4096;
    pf->cap = cap;
    pf->facts = malloc(cap * sizeof *pf->facts);
    pf->widths = malloc(cap * sizeof *pf->widths);
    pf->kinds = malloc(cap);
    if (!pf->facts || !pf->widths || !pf->kinds) {
        prefault_free(pf);
        return;
    }
    freshmem_advise(pf->facts, cap * sizeof *pf->facts);
    freshmem_advise(pf->widths, cap * sizeof *pf->widths);
}

/* On the second core: the blocks' pages made present, their bytes untouched (this core may
 * already write them: MADV_POPULATE_WRITE, never a store).  Where the kernel cannot, they
 * are faulted in as they are written, as before. */
static void prefault_main(void *arg)
{
    struct cl_prefault *pf = arg;
    if (pf->facts) {
        cl_populate(pf->facts, pf->cap * sizeof *pf->facts);
        cl_populate(pf->widths, pf->cap * sizeof *pf->widths);
        cl_populate(pf->kinds, pf->cap);
    }
    atomic_store(&pf->done, 1);
}

/* The steps after the literal step, then the text when any of them changed something. */
static bool steps_after_literals(struct cleaner *c)
{
    if (!step_tabs(c) || !cl_step_markup(c))
        return false;
    step_prefixes(c);
    if (!step_tables(c))
        return false;
    step_indent(c);
    step_numbers(c);
    cl_drop_loud(c); /* the wrap step moves lines; no step after it reads the marks */
    if (!cl_step_wrap(c))
        return false;
    step_trailing(c);
    if (!cl_step_tree(c))
        return false;
    /* The spare array is not needed any more: the text may need the memory. */
    free(c->spare);
    c->spare = NULL;
    c->spare_size = 0;
    /* The exact steps need no warning; the wrap and tree steps warn for themselves. */
    return !c->changed || emit(c);
}

static enum sp_status run_pipeline(struct document *doc, struct diag *err, bool shortcut,
                                   bool *taken, const struct clean_scan_hook *hook)
{
    struct cleaner c = {0};
    c.src = &doc->src;
    c.hook = hook;
    c.input_len = doc->src.len;
    arena_init(&c.scratch);
    enum sp_status status = SP_OK;
    struct cl_prefault pf = {0};
    bool swapping = false;
    bool ok = step_split(&c);
    /* A big mapped input is nearly always written over (the text over it, or strings
       decoded over themselves), and that first takes a copy of it in fresh memory
       (mapfile_writable): 1.5-2 ms a MB here, 200 ms of a 109 MB paste's load on this core.
       The second core makes the copy while this one runs the steps, which only read the
       input until the text is written (the literal step decodes into scratch meanwhile).
       Before the copy, it makes the wrap step's arrays present (21 bytes a line, 43 MB for
       the 2 million lines of a 109 MB paste, faulted in on this core as the step wrote them). */
    if (ok && doc->src.mapped && doc->src.bytes && doc->src.len >= CLEAN_SWAP_MIN) {
        prefault_new(&pf, c.lines.n);
        swapping = mapfile_writable_begin(doc->src.bytes, doc->src.len, prefault_main, &pf);
        if (!swapping)
            prefault_free(&pf);
        else if (pf.facts)
            c.prefault = &pf;
    }
    ok = ok && cl_step_literals(&c);
    int done = !ok ? -1 : shortcut ? decoded_text_done(&c) : 0;
    /* The steps read lines: the compact text's are made (lines.h). */
    if (done == 0 && c.compact.on && !cl_compact_lines(&c))
        done = -1;
    if (taken)
        *taken = done > 0;
    if (done < 0 || (done == 0 && !steps_after_literals(&c))) {
        diag_set(err, 0, "out of memory");
        status = SP_ERR_NOMEM;
    }
    /* Still running when nothing was written over the input: waited for (a mapping is
       released only by the thread that began its swap). */
    if (swapping && doc->src.bytes)
        mapfile_writable_end(doc->src.bytes);
    prefault_free(&pf); /* the blocks the wrap step did not take */
    cl_lines_free(&c.lines);
    free(c.facts);
    free(c.spare);
    free(c.units);
    free(c.marks);
    free(c.loud);
    arena_free(&c.scratch);
    return status;
}

static enum sp_status clean_steps(struct document *doc, struct diag *err, bool shortcut,
                                  bool *taken, const struct clean_scan_hook *hook)
{
    if (taken)
        *taken = false;
    if (!source_read_input(&doc->src))
        return SP_OK; /* cleaned before, and the input is gone: the text stays */
    if (doc->src.len > UINT32_MAX / 2)
        return SP_OK; /* lines and offsets are 32-bit: such input is read as it is */
    return run_pipeline(doc, err, shortcut, taken, hook);
}

enum sp_status clean_document_steps(struct document *doc, struct diag *err, bool shortcut,
                                    bool *taken)
{
    return clean_steps(doc, err, shortcut, taken, NULL);
}

enum sp_status clean_document_full(struct document *doc, struct diag *err)
{
    return clean_steps(doc, err, true, NULL, NULL);
}

enum sp_status clean_document_full_hooked(struct document *doc, struct diag *err,
                                          const struct clean_scan_hook *hook)
{
    return clean_steps(doc, err, true, NULL, hook);
}

enum sp_status clean_document(struct document *doc, struct diag *err)
{
    if (!source_read_input(&doc->src))
        return SP_OK; /* cleaned before, and the input is gone: the text stays */
    if (!clean_quick_scan(doc->src.bytes, doc->src.len))
        return SP_OK;
    return clean_document_full(doc, err);
}
