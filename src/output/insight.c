/* insight.c: --lint, --summary, --explain-node, --samples output (see insight.h). */
#include "sparkplan/insight.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/nodeinfo.h"
#include "sparkplan/prefetch.h"
#include "sparkplan/sample.h"
#include "sparkplan/sanitize.h"
#include "sparkplan/thread.h"
#include "sparkplan/wrap.h"

static enum sp_status write_status(FILE *out, struct diag *err)
{
    if (ferror(out)) {
        diag_set(err, 0, "write error: %s", strerror(errno ? errno : EIO));
        return SP_ERR_IO;
    }
    return SP_OK;
}

/* ---- growable text of lines ------------------------------------------------------------------ */

struct builder {
    char *buf;
    size_t len, cap;
    bool oom;
};

static void put(struct builder *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 512;
        while (ncap < b->len + n + 1)
            ncap *= 2;
        char *nb = realloc(b->buf, ncap);
        if (!nb) {
            b->oom = true;
            return;
        }
        b->buf = nb;
        b->cap = ncap;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

__attribute__((format(printf, 2, 3)))
static void putf(struct builder *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Appends text word-wrapped to width: the first line starts with `first` spaces, the others
 * with `rest`; each line ends with '\n'. */
static void put_wrapped_hanging(struct builder *b, const char *text, int width, int first, int rest)
{
    static const char spaces[] = "                                ";
    const char *p = text;
    bool first_line = true;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        int indent = first_line ? first : rest;
        size_t ind = (size_t)(indent < 0 ? 0 : indent > 32 ? 32 : indent);
        size_t room = width > (int)ind + 10 ? (size_t)width - ind : 10;
        size_t take = wrap_next(slice_cstr(p), (int)room, WRAP_WORDS, NULL, NULL);
        put(b, spaces, ind);
        put(b, p, take);
        put(b, "\n", 1);
        p += take;
        first_line = false;
    }
}

static void put_wrapped(struct builder *b, const char *text, int width, int indent)
{
    put_wrapped_hanging(b, text, width, indent, indent);
}

static bool finish(struct builder *b, struct insight_text *out)
{
    memset(out, 0, sizeof *out);
    if (b->oom) {
        free(b->buf);
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += b->buf[i] == '\n';
    out->lines = malloc((n + 1) * sizeof *out->lines);
    if (!out->lines) {
        free(b->buf);
        return false;
    }
    out->buf = b->buf;
    out->len = b->len;
    size_t k = 0, start = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->buf[i] == '\n') {
            b->buf[i] = '\0';
            out->lines[k++] = b->buf + start;
            start = i + 1;
        }
    }
    out->n_lines = k;
    return true;
}

void insight_text_free(struct insight_text *t)
{
    free(t->buf);
    free(t->lines);
    memset(t, 0, sizeof *t);
}

bool insight_wrap_text(const char *text, int width, int indent, struct insight_text *out)
{
    struct builder b = {0};
    put_wrapped(&b, text, width, indent);
    put(&b, "", 0);
    return finish(&b, out);
}

/* ---- catalogue entries ------------------------------------------------------------------------ */

static void put_entry(struct builder *b, const struct catalog_entry *e, int width)
{
    putf(b, "%s  (%s %s)\n", e->name, catalog_engine_name(e->engine), catalog_kind_name(e->kind));
    if (e->stands_for)
        putf(b, "Stands for Spark's %s\n", e->stands_for);
    char movement[256];
    snprintf(movement, sizeof movement, "Data movement: %s: %s", catalog_movement_name(e->movement),
             catalog_movement_text(e->movement));
    put_wrapped_hanging(b, movement, width, 0, 2);
    if (e->join != JOIN_NONE)
        putf(b, "Join strategy: %s\n", catalog_join_name(e->join));
    put(b, "\nWhat it does\n", 14);
    put_wrapped(b, e->what, width, 2);
    put(b, "\nWhat to check\n", 15);
    put_wrapped(b, e->check, width, 2);
}

static void put_match(struct builder *b, struct slice name, int width, bool *known)
{
    struct catalog_match m = catalog_match(name);
    struct slice op = catalog_operator_name(name);
    if (!op.len)
        op = slice_trim(name);
    if (op.len > 120)
        op.len = 120;
    char shown[512];
    sanitize_to_buf(op, shown, sizeof shown);
    if (!m.entry) {
        putf(b, "%s: not in the catalogue.\n", shown);
        *known = false;
        return;
    }
    *known = true;
    /* "Execute <Command>": the physical operator runs the command on the driver; explain
     * both, the operator first (the command's own entry is about the logical plan). */
    const struct catalog_entry *exec = catalog_lookup("Execute");
    if (m.exact && slice_starts_with(op, "Execute ") && exec && m.entry != exec) {
        put_entry(b, exec, width);
        put(b, "\n", 1);
    }
    if (!m.exact) {
        char note[600];
        snprintf(note, sizeof note, "%s is not in the catalogue; it looks like the %s version of "
                 "Spark's %s, explained here.", shown, catalog_engine_name(m.guessed_engine),
                 m.entry->name);
        put_wrapped(b, note, width, 0);
        put(b, "\n", 1);
    }
    put_entry(b, m.entry, width);
}

bool insight_format_entry(struct slice name, int width, struct insight_text *out)
{
    struct builder b = {0};
    bool known = false;
    put_match(&b, name, width, &known);
    if (!finish(&b, out))
        return false;
    return known;
}

enum sp_status insight_print_entry(FILE *out, const char *name, int width, bool *known,
                                   struct diag *err)
{
    struct builder b = {0};
    *known = false;
    put_match(&b, slice_cstr(name), width, known);
    if (b.oom) {
        free(b.buf);
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    if (b.len)
        fwrite(b.buf, 1, b.len, out);
    free(b.buf);
    return write_status(out, err);
}

enum sp_status insight_print_rules(FILE *out, struct diag *err)
{
    for (size_t i = 0; i < RULE_COUNT; i++) {
        const struct rule *r = &analyze_rules[i];
        fprintf(out, "%s %-7s %s\n", r->id, severity_name(r->severity), r->title);
        struct builder b = {0};
        put_wrapped(&b, r->why, 78, 14);
        put_wrapped(&b, r->todo, 78, 14);
        if (b.buf)
            fputs(b.buf, out);
        free(b.buf);
    }
    return write_status(out, err);
}

/* ---- lint and summary ------------------------------------------------------------------------- */

enum sp_status insight_print_lint(FILE *out, const struct document *doc,
                                  const struct analysis *a, struct diag *err)
{
    for (size_t i = 0; i < a->n_findings; i++) {
        const struct finding *f = &a->findings[i];
        const struct rule *r = &analyze_rules[f->rule];
        sanitize_fwrite(out, slice_cstr(doc->name));
        fprintf(out, ":%lu: %s %s: ", (unsigned long)f->line, r->id, severity_name(f->severity));
        sanitize_fwrite(out, slice_cstr(f->message));
        fputc('\n', out);
    }
    if (a->summary.n_findings_dropped)
        fprintf(out, "%s: %zu more findings not listed (each rule lists at most 5000)\n",
                doc->name, a->summary.n_findings_dropped);
    return write_status(out, err);
}

/* The summary's one line per scan (a million-operator plan has 150,000 of them) is put
 * together in a buffer of its own and written 16 KB at a time: a few stdio calls a line
 * (fprintf cost 700 instructions a call, fputs and fwrite about 100) were most of printing
 * the summary. */
struct out_buf {
    FILE *out;
    size_t len;
    char b[16 * 1024];
};

static void ob_flush(struct out_buf *o)
{
    if (o->len)
        fwrite(o->b, 1, o->len, o->out);
    o->len = 0;
}

/* n bytes the caller knows to be printable ASCII. */
static void ob_bytes(struct out_buf *o, const char *p, size_t n)
{
    if (o->len + n > sizeof o->b)
        ob_flush(o);
    memcpy(o->b + o->len, p, n);
    o->len += n;
}

/* Is every byte of p[0..n) printable ASCII (0x20-0x7E)?  Eight bytes a step: a byte below
 * 0x20 borrows in w - 0x2020..20, one of 0x7F and up has or gets its top bit in w or
 * w + 0x0101..01.  A borrow or carry may flag its neighbour too: then the answer is "no" for
 * printable text, never "yes" for text that is not. */
static bool all_printable(const char *p, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) { /* bound: the bytes */
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (((w - 0x20 * ones) | w | (w + 0x01 * ones)) & highs)
            return false;
    }
    for (; i < n; i++) /* bound: fewer than 8 bytes */
        if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] >= 0x7F)
            return false;
    return true;
}

/* s whole, as sanitize_fwrite writes it: text that is not all printable ASCII takes its
 * path (which writes printable ASCII as it is, so a doubtful word above costs nothing but
 * time). */
static void ob_text(struct out_buf *o, struct slice s)
{
    if (s.len > sizeof o->b / 2 || !all_printable(s.ptr, s.len)) {
        ob_flush(o);
        sanitize_fwrite(o->out, s);
        return;
    }
    ob_bytes(o, s.ptr, s.len);
}

static void ob_str(struct out_buf *o, const char *s)
{
    ob_bytes(o, s, strlen(s));
}

/* A line of at most this many bytes is put together in place, without a check per piece;
 * a scan whose names are longer (or not printable ASCII) takes the pieces' way. */
#define SCAN_LINE_MAX 384

/* The decimal digits of v after p (fprintf's "%ld"); returns the end. */
static char *put_long(char *p, long v)
{
    char digits[24];
    size_t i = sizeof digits;
    unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
    do { /* bound: 20 digits */
        digits[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        digits[--i] = '-';
    memcpy(p, digits + i, sizeof digits - i);
    return p + (sizeof digits - i);
}

/* before, v in decimal, after: what fprintf("%s%ld%s") prints. */
static void ob_number(struct out_buf *o, const char *before, long v, const char *after)
{
    char digits[24];
    ob_str(o, before);
    ob_bytes(o, digits, (size_t)(put_long(digits, v) - digits));
    ob_str(o, after);
}

#define PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* ", 3 columns read": one count with its word, singular for 1. */
static char *put_count(char *p, long v, const char *one, size_t one_len, const char *many,
                       size_t many_len)
{
    p = PUT_LIT(p, ", ");
    p = put_long(p, v);
    if (v == 1) {
        memcpy(p, one, one_len);
        return p + one_len;
    }
    memcpy(p, many, many_len);
    return p + many_len;
}
#define PUT_COUNT(p, v, one, many) put_count((p), (v), (one), sizeof(one) - 1, (many), sizeof(many) - 1)

/* The scan's line the way the pieces below write it (ob_number, ob_text...). */
static void scan_line_slow(struct out_buf *o, const struct scan_info *sc, struct slice op,
                           struct slice table)
{
    ob_number(o, "  line ", (long)sc->node->line, ": ");
    ob_text(o, op);
    if (table.len) {
        ob_str(o, " ");
        ob_text(o, table);
    }
    if (sc->read_columns >= 0)
        ob_number(o, ", ", sc->read_columns, sc->read_columns == 1 ? " column read" : " columns read");
    if (sc->pushed_filters >= 0)
        ob_number(o, ", ", sc->pushed_filters,
                  sc->pushed_filters == 1 ? " pushed filter" : " pushed filters");
    if (sc->partition_filters > 0) {
        ob_number(o, ", ", sc->partition_filters,
                  sc->partition_filters == 1 ? " partition filter" : " partition filters");
        if (sc->dynamic_pruning)
            ob_str(o, " (dynamic pruning)");
    }
    ob_str(o, "\n");
}

/* Can sc's line be put together in place (scan_line_fast)?  Names short enough that the
 * whole line stays under SCAN_LINE_MAX (numbers, words and separators take under 160
 * bytes), and printable ASCII (all of them in practice; others take the pieces' way). */
static bool scan_line_usual(struct slice op, struct slice table)
{
    return op.len + table.len <= SCAN_LINE_MAX - 160 && all_printable(op.ptr, op.len) &&
           all_printable(table.ptr, table.len);
}

/* The usual line of sc at p (room for SCAN_LINE_MAX bytes); returns its end. */
static char *scan_line_fast(char *p, const struct scan_info *sc, struct slice op,
                            struct slice table)
{
    p = PUT_LIT(p, "  line ");
    p = put_long(p, (long)sc->node->line);
    p = PUT_LIT(p, ": ");
    memcpy(p, op.ptr, op.len);
    p += op.len;
    if (table.len) {
        *p++ = ' ';
        memcpy(p, table.ptr, table.len);
        p += table.len;
    }
    if (sc->read_columns >= 0)
        p = PUT_COUNT(p, sc->read_columns, " column read", " columns read");
    if (sc->pushed_filters >= 0)
        p = PUT_COUNT(p, sc->pushed_filters, " pushed filter", " pushed filters");
    if (sc->partition_filters > 0) {
        p = PUT_COUNT(p, sc->partition_filters, " partition filter", " partition filters");
        if (sc->dynamic_pruning)
            p = PUT_LIT(p, " (dynamic pruning)");
    }
    *p++ = '\n';
    return p;
}

/* A scan's line and names are read from its node and the node's text, far apart in a big
 * plan: the node of the scan 16 ahead and the text of the one 8 ahead (its node asked for
 * 8 scans ago) are asked for now.  A PREFETCH_HELPER (prefetch.h): as a plain function GCC
 * dropped its calls (the lines then took three times as long). */
PREFETCH_HELPER void prefetch_scan(const struct summary *s, size_t i, size_t end)
{
    if (i + 16 < end)
        __builtin_prefetch(s->scans[i + 16].node);
    if (i + 8 < end)
        __builtin_prefetch(plan_node_text(s->scans[i + 8].node).ptr);
}

/* The lines of scans [from, to) through o. */
static void scan_lines(struct out_buf *o, const struct summary *s, size_t from, size_t to)
{
    _Static_assert(sizeof o->b > 2 * SCAN_LINE_MAX, "a line fits the buffer");
    for (size_t i = from; i < to; i++) {
        prefetch_scan(s, i, to);
        const struct scan_info *sc = &s->scans[i];
        struct slice op = scan_info_op(sc), table = scan_info_table(sc);
        if (!scan_line_usual(op, table)) {
            scan_line_slow(o, sc, op, table);
            continue;
        }
        if (o->len + SCAN_LINE_MAX > sizeof o->b)
            ob_flush(o);
        o->len = (size_t)(scan_line_fast(o->b + o->len, sc, op, table) - o->b);
    }
}

/* ---- a big plan's scan lines on two threads ------------------------------------------------ */

/* A million-operator plan keeps 150,000 scans: their lines are 13 MB, put together from
 * nodes and text far apart in memory, then taken in by the kernel.  From SCANS_PARALLEL_MIN
 * scans on, chunks of SCANS_CHUNK lines are put together by this thread and a second one,
 * each into a buffer of its own, and each chunk is written when every chunk before it has
 * been, while the other thread works on the next (the same bytes in the same order:
 * tests/check_analyze.c compares the summary with the one-thread one).  A chunk stops at
 * the first line that is not the usual kind; the rest of it is written the one-thread way,
 * straight to the stream, in its turn. */
#define SCANS_PARALLEL_MIN 16384u
#define SCANS_CHUNK 2048u

static size_t scans_parallel_min = SCANS_PARALLEL_MIN, scans_chunk = SCANS_CHUNK;

void insight_set_scans_parallel(size_t min_scans, size_t chunk)
{
    scans_parallel_min = min_scans ? min_scans : SCANS_PARALLEL_MIN;
    scans_chunk = chunk ? chunk : SCANS_CHUNK;
}

struct scan_team {
    const struct summary *s;
    FILE *out;
    struct turns turns; /* the scans; no error is passed on (write_status reads the stream's) */
};

static size_t scan_chunk_end(void *ctx, size_t first)
{
    const struct summary *s = ctx;
    return s->n_scans - first > scans_chunk ? first + scans_chunk : s->n_scans;
}

/* One thread's part: takes chunks until none is left, puts each together in its own buffer
 * and writes it in its turn (thread.h's turns).  Runs on both threads (or alone on this
 * one). */
static void *scan_chunks(void *arg)
{
    struct scan_team *t = arg;
    const struct summary *s = t->s;
    char *buf = malloc(scans_chunk * SCAN_LINE_MAX);
    struct out_buf *o = malloc(sizeof *o);
    struct turn c;
    /* Bound: each chunk taken is at least one scan.  Without memory this thread takes none:
       the other thread, or the caller after it, takes them all. */
    bool more = buf && o && turns_take(&t->turns, scan_chunk_end, (void *)s, &c);
    while (more) {
        char *p = buf;
        size_t i = c.first;
        for (; i < c.end; i++) { /* bound: the chunk */
            prefetch_scan(s, i, c.end);
            const struct scan_info *sc = &s->scans[i];
            struct slice op = scan_info_op(sc), table = scan_info_table(sc);
            if (!scan_line_usual(op, table))
                break;
            p = scan_line_fast(p, sc, op, table);
        }
        turns_wait(&t->turns, &c); /* never an error: none is passed on */
        /* This thread's turn: nobody else writes the stream now. */
        if (p > buf)
            fwrite(buf, 1, (size_t)(p - buf), t->out);
        if (i < c.end) {
            o->out = t->out;
            o->len = 0;
            scan_lines(o, s, i, c.end);
            ob_flush(o);
        }
        more = turns_pass(&t->turns, 0, scan_chunk_end, (void *)s, &c);
    }
    free(buf);
    free(o);
    return NULL;
}

static void print_scans(FILE *out, const struct summary *s)
{
    struct out_buf o = {.out = out};
    if (s->n_scans < scans_parallel_min) {
        scan_lines(&o, s, 0, s->n_scans);
        ob_flush(&o);
        return;
    }
    struct scan_team t = {.s = s, .out = out};
    turns_init(&t.turns, s->n_scans);
    turns_run_two(scan_chunks, &t);
    /* Every chunk taken was written in its turn; what no thread could take (no memory for
       its buffers) is written here, after them. */
    size_t rest = t.turns.next;
    turns_destroy(&t.turns);
    scan_lines(&o, s, rest, s->n_scans);
    ob_flush(&o);
}

static void print_counted(FILE *out, bool *first, size_t n, const char *what)
{
    if (!n)
        return;
    fprintf(out, "%s%zu %s", *first ? "" : ", ", n, what);
    *first = false;
}

enum sp_status insight_print_summary(FILE *out, const struct document *doc,
                                     const struct analysis *a, struct diag *err)
{
    const struct summary *s = &a->summary;
    fprintf(out, "Plans: %zu, nodes: %zu (%zu in the plan that runs)\n", s->n_plans, s->n_nodes,
            s->n_physical_nodes);

    fprintf(out, "Exchanges: %zu shuffle%s", s->n_shuffles, s->n_shuffles == 1 ? "" : "s");
    if (s->n_shuffles) {
        bool first = true;
        fputs(" (", out);
        static const char *const kinds[] = {"unknown partitioning", "hash", "range", "round-robin",
                                            "single partition", "other"};
        for (int k = 1; k < 6; k++)
            print_counted(out, &first, s->shuffles[k], kinds[k]);
        print_counted(out, &first, s->shuffles[0], kinds[0]);
        fputc(')', out);
    }
    fprintf(out, ", %zu broadcast%s, %zu reused\n", s->n_broadcasts,
            s->n_broadcasts == 1 ? "" : "s", s->n_reused_exchanges);

    fprintf(out, "Codegen stages: %zu\n", s->n_codegen_stages);

    size_t n_joins = 0;
    for (int j = 0; j <= JOIN_LOGICAL; j++)
        n_joins += s->joins[j];
    fprintf(out, "Joins: %zu", n_joins);
    if (n_joins) {
        bool first = true;
        fputs(" (", out);
        for (int j = JOIN_BROADCAST_HASH; j <= JOIN_LOGICAL; j++)
            print_counted(out, &first, s->joins[j], catalog_join_name((enum catalog_join)j));
        print_counted(out, &first, s->joins[JOIN_NONE], "of an unknown strategy");
        fputc(')', out);
    }
    fputc('\n', out);
    if (s->n_python)
        fprintf(out, "Python evaluation: %zu operator%s\n", s->n_python, s->n_python == 1 ? "" : "s");
    if (s->n_cache_scans)
        fprintf(out, "Cached relations read: %zu\n", s->n_cache_scans);

    fprintf(out, "Scans: %zu\n", s->n_scans);
    print_scans(out, s);

    fprintf(out, "Findings: %zu warning%s, %zu info", s->n_warnings, s->n_warnings == 1 ? "" : "s",
            s->n_info);
    /* Per rule counts, in rule order. */
    size_t per_rule[RULE_COUNT] = {0};
    for (size_t i = 0; i < a->n_findings; i++)
        per_rule[a->findings[i].rule]++;
    bool first = true;
    for (size_t r = 0; r < RULE_COUNT; r++) {
        if (!per_rule[r])
            continue;
        fprintf(out, "%s%s %s x%zu", first ? " (" : ", ", analyze_rules[r].id,
                analyze_rules[r].title, per_rule[r]);
        first = false;
    }
    fputs(first ? "\n" : ")\n", out);
    (void)doc;
    return write_status(out, err);
}

/* ---- samples ----------------------------------------------------------------------------------- */

const char *insight_sample_name(const char *name)
{
    if (!name)
        return NULL;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (size_t i = 0; i < n_sample_files; i++) {
        const char *f = sample_files[i].name;
        size_t bl = strlen(base);
        if (strcmp(f, base) == 0 || (strncmp(f, base, bl) == 0 && strcmp(f + bl, ".txt") == 0))
            return f;
    }
    return NULL;
}

enum sp_status insight_print_samples(FILE *out, struct diag *err)
{
    /* Width of the name column. */
    size_t w = 0;
    for (size_t i = 0; i < n_sample_files; i++) {
        size_t l = strlen(sample_files[i].name) - 4;
        if (l > w)
            w = l;
    }
    for (size_t i = 0; i < n_sample_files; i++) {
        const char *f = sample_files[i].name;
        size_t fl = strlen(f);
        const char *desc = "";
        size_t dl = 0;
        /* INDEX.tsv: "file<TAB>description" lines. */
        for (const char *p = sample_index_tsv; p && *p;) {
            const char *nl = strchr(p, '\n');
            size_t ll = nl ? (size_t)(nl - p) : strlen(p);
            if (ll > fl && strncmp(p, f, fl) == 0 && p[fl] == '\t') {
                desc = p + fl + 1;
                dl = ll - fl - 1;
                break;
            }
            p = nl ? nl + 1 : p + ll;
        }
        fprintf(out, "%-*.*s  %.*s\n", (int)w, (int)(fl - 4), f, (int)dl, desc);
    }
    return write_status(out, err);
}
