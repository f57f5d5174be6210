/* emit.c: --print outline and --json (see emit.h). */
#include "sparkplan/emit.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sparkplan/sanitize.h"
#include "sparkplan/thread.h"

/* ---- buffered output ------------------------------------------------------------------ */

#define OUT_CAP (1u << 16)

/* Output goes to a stream through a 64 KB buffer, or (a chunk of --print rendered on two
 * threads, emit_print below) into a heap buffer that grows until the chunk's turn to be
 * written comes. */
struct out {
    FILE *f;        /* NULL: a chunk buffer (heap, grows) */
    char *buf;
    size_t len, cap;
    int error;  /* errno of the first failed write, 0 while all is well */
    emit_node_extra extra;  /* emit_json_plans: more keys for each node, or NULL */
    void *extra_ctx;
    char fixed[OUT_CAP];    /* a stream's buffer (buf points here) */
};

static void out_flush(struct out *o)
{
    if (o->len && !o->error && fwrite(o->buf, 1, o->len, o->f) != o->len)
        o->error = errno ? errno : EIO;
    o->len = 0;
}

/* A chunk buffer with room for n more bytes; false (the error set, what was rendered
 * dropped) when no memory for them. */
static bool chunk_grow(struct out *o, size_t n)
{
    size_t cap = o->cap * 2 > o->len + n ? o->cap * 2 : o->len + n;
    char *nb = realloc(o->buf, cap);
    if (!nb) {
        o->error = ENOMEM;
        o->len = 0;
        return n <= o->cap;
    }
    o->buf = nb;
    o->cap = cap;
    return true;
}

/* out_room's and out_bytes's way when the buffer is full: kept out of line, so that the
 * common case (room left) stays a compare and a copy in every caller. */
__attribute__((noinline)) static void out_make_room(struct out *o, size_t n)
{
    if (o->f)
        out_flush(o);
    else
        chunk_grow(o, n);
}

__attribute__((noinline)) static void out_bytes_full(struct out *o, const char *p, size_t n)
{
    if (!o->f) {
        if (!chunk_grow(o, n))
            return;
    } else {
        out_flush(o);
        if (n >= OUT_CAP) {
            /* Long runs (a 50 MB line) go straight to the stream, no copy. */
            if (!o->error && fwrite(p, 1, n, o->f) != n)
                o->error = errno ? errno : EIO;
            return;
        }
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

/* Room for n more bytes (n below OUT_CAP): a stream's buffer is written out, a chunk's
 * grows. */
static inline void out_room(struct out *o, size_t n)
{
    if (n > o->cap - o->len)
        out_make_room(o, n);
}

static inline void out_bytes(struct out *o, const char *p, size_t n)
{
    if (n > o->cap - o->len) {
        out_bytes_full(o, p, n);
        return;
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

static inline void out_char(struct out *o, char c)
{
    out_room(o, 1);
    o->buf[o->len++] = c;
}

static void out_cstr(struct out *o, const char *s)
{
    out_bytes(o, s, strlen(s));
}

/* Writes v's decimal digits to end here (exclusive) and returns where they start: two digits
 * a step from a table, as a million-operator --print or --json formats millions of them. */
static char *digits_before(char *end, uint64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                                "31323334353637383940414243444546474849505152535455565758596061"
                                "6263646566676869707172737475767778798081828384858687888990919293"
                                "949596979899";
    /* Bound: 10 rounds for 20 digits. */
    while (v > UINT32_MAX) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        end -= 2;
        memcpy(end, pairs + 2 * r, 2);
    }
    /* Ids, stages and line numbers fit 32 bits, where dividing is cheaper. */
    uint32_t u = (uint32_t)v;
    /* Bound: 5 rounds for 10 digits. */
    while (u >= 100) {
        unsigned r = u % 100;
        u /= 100;
        end -= 2;
        memcpy(end, pairs + 2 * r, 2);
    }
    v = u;
    if (v >= 10) {
        end -= 2;
        memcpy(end, pairs + 2 * v, 2);
    } else {
        *--end = (char)('0' + v);
    }
    return end;
}

enum { U64_DIGITS_MAX = 20 };

static void out_u64(struct out *o, uint64_t v)
{
    char tmp[U64_DIGITS_MAX];
    const char *d = digits_before(tmp + sizeof tmp, v);
    out_bytes(o, d, (size_t)(tmp + sizeof tmp - d));
}

/* Appends v at w (room for U64_DIGITS_MAX bytes); returns the end. */
static char *put_u64(char *w, uint64_t v)
{
    char tmp[U64_DIGITS_MAX];
    const char *d = digits_before(tmp + sizeof tmp, v);
    size_t n = (size_t)(tmp + sizeof tmp - d);
    memcpy(w, d, n);
    return w + n;
}

static char *put_str(char *w, const char *s, size_t n)
{
    memcpy(w, s, n);
    return w + n;
}

static enum sp_status out_finish(struct out *o, struct diag *err)
{
    out_flush(o);
    if (!o->error && fflush(o->f) != 0)
        o->error = errno ? errno : EIO;
    if (o->error) {
        diag_set(err, 0, "write error: %s", strerror(o->error));
        return SP_ERR_IO;
    }
    return SP_OK;
}

static struct out *out_new(FILE *f)
{
    struct out *o = malloc(sizeof *o);
    if (o) {
        o->f = f;
        o->buf = o->fixed;
        o->len = 0;
        o->cap = OUT_CAP;
        o->error = 0;
        o->extra = NULL;
        o->extra_ctx = NULL;
    }
    return o;
}

/* ---- scanning ---------------------------------------------------------------------------- */

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Non-zero when some byte of w is zero (the classic SWAR test). */
static inline uint64_t has_zero_byte(uint64_t w)
{
    return (w - ONES) & ~w & HIGHS;
}

/* Length of the prefix of p[0..n) made of printable ASCII (0x20..0x7E), also stopping at
 * '"' and '\\' when json.  Sixteen bytes at a time with SSE2 (as signed bytes, 0x80 and up
 * are below 0x20 too), else eight: plan text is almost all such bytes, and this scan is most
 * of the cost of writing it. */
static size_t plain_run(const char *p, size_t n, bool json)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    /* 64 bytes a round with one test and one branch (a simple plan's node strings are 130
       bytes on average: most of --print's own time was this loop); the 16-byte loop below
       finds where in the round the first such byte is. */
    for (; i + 64 <= n; i += 64) { /* bound: 64 bytes a step */
        __m128i any = _mm_setzero_si128();
        for (int k = 0; k < 4; k++) { /* bound: 4 blocks */
            __m128i a = _mm_loadu_si128((const __m128i *)(p + i + 16 * k));
            __m128i bad = _mm_or_si128(_mm_cmplt_epi8(a, space), _mm_cmpeq_epi8(a, del));
            if (json)
                bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(a, quote),
                                                     _mm_cmpeq_epi8(a, backslash)));
            any = _mm_or_si128(any, bad);
        }
        if (_mm_movemask_epi8(any))
            break;
    }
    for (; i + 16 <= n; i += 16) { /* bound: 16 bytes a step */
        __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i bad = _mm_or_si128(_mm_cmplt_epi8(a, space), _mm_cmpeq_epi8(a, del));
        if (json)
            bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(a, quote), _mm_cmpeq_epi8(a, backslash)));
        unsigned m = (unsigned)_mm_movemask_epi8(bad);
        if (m)
            return i + (size_t)__builtin_ctz(m);
    }
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t bad = ((w - 0x20 * ONES) | w) & HIGHS; /* < 0x20, or >= 0x80 */
        bad |= has_zero_byte(w ^ (0x7F * ONES));
        if (json)
            bad |= has_zero_byte(w ^ ('"' * ONES)) | has_zero_byte(w ^ ('\\' * ONES));
        if (bad)
            break;
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c >= 0x7F || (json && (c == '"' || c == '\\')))
            break;
    }
    return i;
}

/* ---- --print ---------------------------------------------------------------------------- */

/* Plan text through the sanitizer: printable ASCII is copied in runs, anything else is
 * rewritten by sanitize_next (ESC -> "^[", newline -> "^J", bad UTF-8 -> "\xNN"). */
static void out_sanitized(struct out *o, struct slice s)
{
    size_t i = 0, run = 0;
    while (i < s.len) {
        i += plain_run(s.ptr + i, s.len - i, false);
        if (i == s.len)
            break;
        char item[SANITIZE_MAX_EXPANSION];
        size_t item_len;
        bool safe;
        size_t used = sanitize_next(s.ptr + i, s.len - i, item, &item_len, &safe);
        if (!safe) {
            out_bytes(o, s.ptr + run, i - run);
            out_bytes(o, item, item_len);
            run = i + used;
        }
        i += used;
    }
    if (i > run) /* an empty slice may have a NULL pointer: no arithmetic on it */
        out_bytes(o, s.ptr + run, i - run);
}

/* True when text[at..] is the digits d[0..nd) followed by ')'. */
static bool digits_then_paren_at(struct slice text, size_t at, const char *d, size_t nd)
{
    return at + nd < text.len && text.ptr[at + nd] == ')' && memcmp(text.ptr + at, d, nd) == 0;
}

/* True when the node text already shows "(id)" (its digits d[0..nd)), as formatted
 * outlines do.  The outline puts "(id)" last, so the end is tried first; otherwise every
 * '(' is tried (memchr). */
static bool text_shows_id(struct slice text, const char *d, size_t nd)
{
    if (text.len >= 3 && text.ptr[text.len - 1] == ')') {
        size_t open = text.len - 2;
        while (open > 0 && text.ptr[open] >= '0' && text.ptr[open] <= '9') /* bound: len */
            open--;
        if (text.ptr[open] == '(' && digits_then_paren_at(text, open + 1, d, nd))
            return true;
    }
    const char *p = text.ptr, *end = text.ptr + text.len;
    while (p < end && (p = memchr(p, '(', (size_t)(end - p))) != NULL) { /* bound: len */
        if (digits_then_paren_at(text, (size_t)(p - text.ptr) + 1, d, nd))
            return true;
        p++;
    }
    return false;
}

/* The most a line's fixed start takes: the indentation, "[depth N] ", the marks and the
 * stage.  It is written straight into the buffer: a million-operator plan prints a million
 * of them, and a call per part was most of --print's own time. */
#define PRINT_PREFIX_MAX (2 * EMIT_PRINT_MAX_INDENT + 2 * U64_DIGITS_MAX + 40)

static void print_node(struct out *o, const struct plan_node *n)
{
    out_room(o, PRINT_PREFIX_MAX);
    char *w = o->buf + o->len;
    uint32_t depth = n->depth;
    if (depth <= EMIT_PRINT_MAX_INDENT) {
        memset(w, ' ', 2 * (size_t)depth);
        w += 2 * (size_t)depth;
    } else {
        memset(w, ' ', 2 * (size_t)EMIT_PRINT_MAX_INDENT);
        w += 2 * (size_t)EMIT_PRINT_MAX_INDENT;
        w = put_str(w, "[depth ", 7);
        w = put_u64(w, depth);
        w = put_str(w, "] ", 2);
    }
    if (n->flags & NODE_LABEL)
        w = put_str(w, "[label] ", 8);
    if (n->flags & NODE_INNER)
        w = put_str(w, "[inner] ", 8);
    if (n->stage == 0) {
        w = put_str(w, "* ", 2);
    } else if (n->stage > 0) {
        w = put_str(w, "*(", 2);
        w = put_u64(w, (uint64_t)n->stage);
        w = put_str(w, ") ", 2);
    }
    o->len = (size_t)(w - o->buf);
    struct slice text = plan_node_text(n);
    out_sanitized(o, text);
    if (n->id >= 0) {
        char tmp[U64_DIGITS_MAX];
        const char *d = digits_before(tmp + sizeof tmp, (uint64_t)n->id);
        size_t nd = (size_t)(tmp + sizeof tmp - d);
        if (!text_shows_id(text, d, nd)) {
            out_bytes(o, " (", 2);
            out_bytes(o, d, nd);
            out_char(o, ')');
        }
    }
    out_char(o, '\n');
}

/* ---- a big section's lines on two threads --------------------------------------------- */

/* Writing a million-operator outline is about a third rendering the lines and two thirds
 * the kernel taking the bytes into the output file's pages (fresh memory for it, on the
 * benchmark VM).  From print_parallel_min operators on, a section's lines are rendered in
 * chunks of consecutive operators (pre-order), by this thread and a second one, each
 * into a buffer of its own, and each chunk is written when every chunk before it has been:
 * while one thread writes, the other renders the next chunk.  The chunks are the same
 * bytes in the same order the one-thread loop writes (tests/check_emit.c compares them). */
#define PRINT_PARALLEL_MIN 16384
/* A chunk ends after this many operators or this much node text: a few hundred KB of
   output, so the buffers stay in the cache and each is asked for once. */
#define PRINT_CHUNK_NODES 4096
#define PRINT_CHUNK_TEXT (256u << 10)
/* A node text this long is a chunk of its own, written straight to the stream when its
   turn comes (the one-thread path copies no long run either). */
#define PRINT_LONG_TEXT (1u << 20)

static size_t print_parallel_min = PRINT_PARALLEL_MIN;
static size_t print_chunk_nodes = PRINT_CHUNK_NODES;

void emit_set_print_parallel(size_t min_nodes, size_t chunk_nodes)
{
    print_parallel_min = min_nodes ? min_nodes : PRINT_PARALLEL_MIN;
    print_chunk_nodes = chunk_nodes ? chunk_nodes : PRINT_CHUNK_NODES;
}

/* One thread's chunk: where the section's next chunk ends (turns_take's chunk_end, under
 * the team's lock), and whether it is one long text written straight to the stream. */
struct print_chunk {
    const struct plan_section *s;
    bool direct;
};

static size_t chunk_end(void *ctx, size_t first)
{
    struct print_chunk *c = ctx;
    const struct plan_section *s = c->s;
    size_t end = first, text = 0;
    c->direct = false;
    /* Bound: print_chunk_nodes operators. */
    while (end < s->n_nodes && end - first < print_chunk_nodes && text < PRINT_CHUNK_TEXT) {
        size_t len = plan_node_text(plan_section_node(s, (uint32_t)end)).len;
        if (len >= PRINT_LONG_TEXT) {
            if (end == first) {
                c->direct = true;
                end++;
            }
            break;
        }
        text += len;
        end++;
    }
    return end;
}

struct print_team {
    const struct plan_section *s;
    FILE *f;
    struct turns turns; /* the section's operators; its error is the first failed write */
};

/* One thread's part: takes chunks until none is left, renders each into its own buffer and
 * writes it in its turn (thread.h's turns).  Runs on both threads (or alone on this one). */
static void *print_chunks(void *arg)
{
    struct print_team *t = arg;
    const struct plan_section *s = t->s;
    struct out *o = out_new(NULL);
    char *heap = o ? malloc(PRINT_CHUNK_TEXT * 2) : NULL;
    if (!heap) {
        /* Takes no chunk, and stops the taking: the chunks the other thread took already are
           only skipped, and the print fails. */
        turns_stop(&t->turns, ENOMEM);
        free(o);
        return NULL;
    }
    size_t heap_cap = PRINT_CHUNK_TEXT * 2;
    struct print_chunk pc = {.s = s};
    struct turn c;
    /* Bound: each chunk taken is at least one operator. */
    bool more = turns_take(&t->turns, chunk_end, &pc, &c);
    while (more) {
        bool direct = pc.direct;
        if (!direct) {
            o->f = NULL;
            o->buf = heap;
            o->cap = heap_cap;
            o->len = 0;
            o->error = 0;
            for (size_t i = c.first; i < c.end; i++)
                print_node(o, plan_section_node(s, (uint32_t)i));
            heap = o->buf;
            heap_cap = o->cap;
        }
        int error = turns_wait(&t->turns, &c);
        /* This thread's turn: nobody else writes the stream now. */
        if (!error) {
            if (direct) {
                o->f = t->f;
                o->buf = o->fixed;
                o->cap = OUT_CAP;
                o->len = 0;
                o->error = 0;
                print_node(o, plan_section_node(s, (uint32_t)c.first));
                out_flush(o);
            } else if (!o->error && o->len && fwrite(o->buf, 1, o->len, t->f) != o->len) {
                o->error = errno ? errno : EIO;
            }
            error = o->error;
        } else {
            error = 0; /* passed on already */
        }
        more = turns_pass(&t->turns, error, chunk_end, &pc, &c);
    }
    free(heap);
    free(o);
    return NULL;
}

/* The operators of s, on two threads (see above); o's buffer is written out first. */
static void print_nodes_parallel(struct out *o, const struct plan_section *s)
{
    out_flush(o);
    if (o->error)
        return;
    struct print_team t = {.s = s, .f = o->f};
    turns_init(&t.turns, s->n_nodes);
    turns_run_two(print_chunks, &t);
    o->error = t.turns.error;
    turns_destroy(&t.turns);
}

static void print_section(struct out *o, const struct plan_section *s)
{
    if (s->title.len) {
        out_sanitized(o, s->title);
    } else {
        out_cstr(o, "== ");
        out_cstr(o, section_kind_name(s->kind));
        out_cstr(o, " plan (no header) ==");
    }
    out_char(o, '\n');
    if (s->n_nodes >= print_parallel_min) {
        print_nodes_parallel(o, s);
        return;
    }
    for (const struct plan_node *n = s->first_root; n; n = plan_node_next_preorder(n))
        print_node(o, n);
}

enum sp_status emit_print(FILE *f, const struct document *doc, struct diag *err)
{
    struct out *o = out_new(f);
    if (!o) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    uint32_t plan_no = 0;
    bool first = true;
    for (const struct plan *p = doc->first_plan; p; p = p->next) {
        plan_no++;
        if (doc->n_plans > 1) {
            if (!first)
                out_char(o, '\n');
            out_cstr(o, "# plan ");
            out_u64(o, plan_no);
            out_cstr(o, ", line ");
            out_u64(o, p->line);
            out_char(o, '\n');
            first = true;
        }
        for (const struct plan_section *s = p->first_section; s; s = s->next) {
            if (!first)
                out_char(o, '\n');
            first = false;
            print_section(o, s);
        }
    }
    enum sp_status st = out_finish(o, err);
    free(o);
    return st;
}

/* ---- --json ----------------------------------------------------------------------------- */

static const char hexdigits[] = "0123456789abcdef";

static void json_escape_code(struct out *o, unsigned code)
{
    char e[6] = {'\\', 'u', '0', '0', hexdigits[(code >> 4) & 15], hexdigits[code & 15]};
    out_bytes(o, e, sizeof e);
}

/* A JSON string: runs of safe bytes are copied whole; '"' and '\\' are escaped; control
 * characters (C0, DEL, C1) become \u00XX (\n, \r, \t their short forms); each byte that
 * does not start a valid UTF-8 sequence becomes \ufffd. */
static void json_string(struct out *o, struct slice s)
{
    out_char(o, '"');
    size_t i = 0, run = 0;
    while (i < s.len) {
        i += plain_run(s.ptr + i, s.len - i, true);
        if (i == s.len)
            break;
        unsigned char c = (unsigned char)s.ptr[i];
        size_t used = 1;
        uint32_t cp = c;
        if (c >= 0x80) {
            used = sanitize_utf8_len(s.ptr + i, s.len - i, &cp);
            if (used && cp > 0x9F) {
                i += used;
                continue;
            }
        }
        out_bytes(o, s.ptr + run, i - run);
        if (used == 0) {
            out_cstr(o, "\\ufffd");
            used = 1;
        } else if (c == '"') {
            out_cstr(o, "\\\"");
        } else if (c == '\\') {
            out_cstr(o, "\\\\");
        } else if (c == '\n') {
            out_cstr(o, "\\n");
        } else if (c == '\r') {
            out_cstr(o, "\\r");
        } else if (c == '\t') {
            out_cstr(o, "\\t");
        } else {
            json_escape_code(o, cp);
        }
        i += used;
        run = i;
    }
    if (i > run) /* an empty slice may have a NULL pointer: no arithmetic on it */
        out_bytes(o, s.ptr + run, i - run);
    out_char(o, '"');
}

static void json_key(struct out *o, const char *key)
{
    out_char(o, '"');
    out_cstr(o, key);
    out_cstr(o, "\":");
}

static void json_int_or_null(struct out *o, int64_t v)
{
    if (v < 0) {
        out_cstr(o, "null");
    } else {
        out_u64(o, (uint64_t)v);
    }
}

/* Shortest %g form that reads back as the same double; integral values get ".0" when
 * force_point (sizeInBytes is a double in the contract: 1234.0). */
static void json_double(struct out *o, double v, bool force_point)
{
    if (!isfinite(v)) {
        out_cstr(o, "null");
        return;
    }
    char tmp[40];
    if (!force_point && v == floor(v) && fabs(v) < 1e18) {
        snprintf(tmp, sizeof tmp, "%.0f", v);
    } else {
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(tmp, sizeof tmp, "%.*g", prec, v);
            if (strtod(tmp, NULL) == v)
                break;
        }
        if (force_point && !strpbrk(tmp, ".e"))
            strcat(tmp, ".0");
    }
    out_cstr(o, tmp);
}

static void json_node_open(struct out *o, const struct plan_node *n)
{
    out_cstr(o, "{\"name\":");
    json_string(o, plan_node_name(n));
    out_cstr(o, ",\"text\":");
    json_string(o, plan_node_text(n));
    out_cstr(o, ",\"line\":");
    out_u64(o, n->line);
    out_cstr(o, ",\"stage\":");
    json_int_or_null(o, n->stage);
    out_cstr(o, ",\"id\":");
    json_int_or_null(o, n->id);
    if (n->flags & NODE_LABEL)
        out_cstr(o, ",\"label\":true");
    if (n->flags & NODE_INNER)
        out_cstr(o, ",\"inner\":true");
    if (n->flags & NODE_TRUNCATED)
        out_cstr(o, ",\"truncated\":true");
    if (n->flags & NODE_ELIDED)
        out_cstr(o, ",\"elided\":true");
    out_cstr(o, ",\"details\":[");
    struct plan_details it;
    struct plan_detail d;
    plan_details_init(&it, n);
    for (bool first = true; plan_details_next(&it, &d); first = false) { /* the node's fields */
        if (!first)
            out_char(o, ',');
        out_char(o, '[');
        json_string(o, d.key);
        out_char(o, ',');
        json_string(o, d.value);
        out_char(o, ']');
    }
    out_char(o, ']');
    struct plan_stats st;
    if (plan_node_stats(n, &st)) {
        out_cstr(o, ",\"stats\":{");
        if (st.has_size) {
            json_key(o, "sizeInBytes");
            json_double(o, st.size_bytes, true);
        }
        if (st.has_rows) {
            if (st.has_size)
                out_char(o, ',');
            json_key(o, "rowCount");
            json_double(o, st.row_count, false);
        }
        out_char(o, '}');
    }
    if (o->extra)
        o->extra((struct emit_json *)o, n, o->extra_ctx);
    out_cstr(o, ",\"children\":[");
}

/* The roots of a section and everything below them, without recursion: descend through
 * first_child, and on the way up close one "]}" per level left. */
static void json_forest(struct out *o, const struct plan_node *n)
{
    while (n) {
        json_node_open(o, n);
        if (plan_node_first_child(n)) {
            n = plan_node_first_child(n);
            continue;
        }
        out_cstr(o, "]}");
        /* Climb until a level has a next sibling; each step closes one node.  Every node is
         * closed exactly once over the whole walk, so this inner loop is linear in total. */
        while (n && !plan_node_next_sibling(n)) {
            n = plan_node_parent(n);
            if (n)
                out_cstr(o, "]}");
        }
        if (n) {
            out_char(o, ',');
            n = plan_node_next_sibling(n);
        }
    }
}

static void json_section(struct out *o, const struct plan_section *s)
{
    out_cstr(o, "{\"kind\":\"");
    out_cstr(o, section_kind_name(s->kind));
    out_cstr(o, "\",\"title\":");
    json_string(o, s->title);
    out_cstr(o, ",\"line\":");
    out_u64(o, s->line);
    if (s->schema.len) {
        out_cstr(o, ",\"schema\":");
        json_string(o, s->schema);
    }
    if (s->code.len) {
        out_cstr(o, ",\"code\":");
        json_string(o, s->code);
    }
    out_cstr(o, ",\"roots\":[");
    json_forest(o, s->first_root);
    out_cstr(o, "]}");
}

/* "source": {...}, only for what is known of where the plan came from. */
static void json_source(struct out *o, const struct plan_source *src)
{
    if (!src->format && !src->query.len && !src->log_time.len && !src->logger.len)
        return;
    out_cstr(o, ",\"source\":{");
    bool first = true;
#define FIELD(key) (out_cstr(o, first ? "\"" key "\":" : ",\"" key "\":"), first = false)
    if (src->format) {
        FIELD("format");
        json_string(o, slice_cstr(src->format));
    }
    if (src->cell) {
        FIELD("cell");
        out_u64(o, src->cell);
        FIELD("cellLine");
        out_u64(o, src->cell_line);
        FIELD("cellType");
        json_string(o, slice_cstr(src->cell_type ? src->cell_type : "code"));
        FIELD("executionCount");
        json_int_or_null(o, src->execution_count);
        FIELD("code");
        if (src->code)
            json_string(o, slice_cstr(src->code));
        else
            out_cstr(o, "null");
        FIELD("from");
        out_cstr(o, src->from_output ? "\"output\"" : "\"pasted\"");
    }
    if (src->query.len) {
        FIELD("query");
        json_string(o, src->query);
    }
    if (src->log_time.len) {
        FIELD("logTime");
        json_string(o, src->log_time);
    }
    if (src->logger.len) {
        FIELD("logger");
        json_string(o, src->logger);
    }
#undef FIELD
    out_char(o, '}');
}

static void json_plan(struct out *o, const struct plan *p)
{
    out_cstr(o, "{\"line\":");
    out_u64(o, p->line);
    out_cstr(o, ",\"adaptive\":");
    out_cstr(o, p->adaptive ? "true" : "false");
    out_cstr(o, ",\"isFinalPlan\":");
    out_cstr(o, p->is_final < 0 ? "null" : p->is_final ? "true" : "false");
    json_source(o, &p->source);
    out_cstr(o, ",\"sections\":[");
    for (const struct plan_section *s = p->first_section; s; s = s->next) {
        if (s != p->first_section)
            out_char(o, ',');
        json_section(o, s);
    }
    out_cstr(o, "]}");
}

enum sp_status emit_json(FILE *f, const struct document *doc, struct diag *err)
{
    struct out *o = out_new(f);
    if (!o) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    out_cstr(o, "{\"file\":");
    json_string(o, slice_cstr(doc->name));
    out_cstr(o, ",\"plans\":[");
    for (const struct plan *p = doc->first_plan; p; p = p->next) {
        if (p != doc->first_plan)
            out_char(o, ',');
        json_plan(o, p);
    }
    out_cstr(o, "],\"warnings\":[");
    for (const struct plan_warning *w = doc->first_warning; w; w = w->next) {
        if (w != doc->first_warning)
            out_char(o, ',');
        out_cstr(o, "{\"line\":");
        if (w->line)
            out_u64(o, w->line);
        else
            out_cstr(o, "null");
        out_cstr(o, ",\"message\":");
        json_string(o, slice_cstr(w->message));
        out_char(o, '}');
    }
    out_cstr(o, "]}\n");
    enum sp_status st = out_finish(o, err);
    free(o);
    return st;
}

/* ---- plans with more keys per node (event logs' metrics) ---------------------------------- */

void emit_json_raw(struct emit_json *w, const char *s) { out_cstr((struct out *)w, s); }

void emit_json_string(struct emit_json *w, struct slice s) { json_string((struct out *)w, s); }

void emit_json_int(struct emit_json *w, int64_t v) { json_int_or_null((struct out *)w, v); }

enum sp_status emit_json_plans(FILE *f, const struct document *doc, emit_node_extra extra,
                               void *ctx, bool *first, struct diag *err)
{
    struct out *o = out_new(f);
    if (!o) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    o->extra = extra;
    o->extra_ctx = ctx;
    for (const struct plan *p = doc ? doc->first_plan : NULL; p; p = p->next) {
        if (!*first)
            out_char(o, ',');
        *first = false;
        json_plan(o, p);
    }
    enum sp_status st = out_finish(o, err);
    free(o);
    return st;
}
