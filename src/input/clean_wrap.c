/* clean_wrap.c: hard-wrapped lines joined back (see clean_impl.h).
 *
 * Three ways a long line gets broken on its way to us:
 *  - terminal / fold: cut at exactly W columns, the rest on the next line from column 0.
 *    Evidence: several lines exactly as wide as the widest one, each followed by a line that
 *    starts nothing a plan starts with.  Joined as they are, byte for byte.
 *  - word wrap (email): broken at a space before W.  Evidence: two or more long lines, each
 *    followed by an unindented line that starts nothing.  Joined with one space.
 *  - hanging indent: the rest of a long tree (or details) line continues indented past the
 *    line's marker, as people wrap by hand.  Joined with one space.
 * A line "starts something" when it is blank, a tree line, a header or a section line: those
 * are never joined, so a correctly printed plan is never touched.  Lines that are not plan
 * lines (multi-line node strings) may be joined to a long line before them: that changes a
 * node's text, never the tree.
 */
#include <stdlib.h>
#include <string.h>

#include "clean_impl.h"
#include "sparkplan/blank.h"
#include "sparkplan/lex.h"
#include "sparkplan/thread.h"

/* Email clients wrap at 72 to 80 columns, chat windows a little wider; a line broken after
 * 200 columns is the plan's own (a literal newline in a node string). */
#define WORD_WRAP_MAX_WIDTH 150

static bool is_word_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '#';
}

/* A line that starts nothing.  "(9)" at column 0 looks like a details header, but those
 * follow a blank line: after a plan line it is the end of a broken one (a formatted id). */
static bool continues(enum cl_kind next_kind)
{
    return next_kind == K_OTHER || next_kind == K_DETAILS;
}

/* A line made only of tree-prefix characters: a deep node cut inside its prefix.  f is the
 * line's facts: everything before f->marker is a space or a ':' (prefix_scan), so only the
 * rest is looked at, and its runs of spaces are skipped a word at a time (a deep line's
 * prefix is 30 KB, and this runs on every long line). */
static bool prefix_only(const struct cl_line *l, const struct cl_facts *f)
{
    if (!l->len)
        return false;
    /* Bound: i only moves forward, over the line once. */
    for (uint32_t i = f->marker; i < l->len; i++) {
        i = (uint32_t)blank_skip_spaces(l->p, i, l->len);
        if (i == l->len)
            break;
        if (l->p[i] != ':' && l->p[i] != '+' && l->p[i] != '-')
            return false;
    }
    return true;
}

/* "Name (12)", "Name (unknown)", "ShuffleQueryStage (4), Statistics(...)": a formatted
 * outline line. */
static bool ends_with_formatted_id(const struct cl_line *l)
{
    uint32_t n = l->len;
    static const char stats[] = ", Statistics(";
    /* Bound: one backward pass over the line. */
    for (uint32_t i = n; i >= sizeof stats - 1; i--)
        if (memcmp(l->p + i - (sizeof stats - 1), stats, sizeof stats - 1) == 0) {
            n = i - (uint32_t)(sizeof stats - 1);
            break;
        }
    if (n < 3 || l->p[n - 1] != ')')
        return false;
    uint32_t j = n - 1;
    while (j > 0 && l->p[j - 1] >= '0' && l->p[j - 1] <= '9')
        j--;
    static const char unknown[] = "(unknown)";
    if (j == n - 1 && !CL_ENDS(l->p, n, unknown))
        return false;
    if (j == n - 1)
        j = n - (sizeof unknown - 2); /* after its '(' */
    return j >= 2 && l->p[j - 1] == '(' && l->p[j - 2] == ' ';
}

/* The rest of a cut line starts at column 0, or at column 1 when the cut fell before a
 * space; an indented line is the plan's own (an indentation-only tree, a literal). */
static bool terminal_follower(const struct cl_line *head, const struct cl_facts *head_f,
                              enum cl_kind head_kind, const struct cl_line *next,
                              enum cl_kind next_kind)
{
    /* A whole "== ... ==" header (a codegen subtree's is often the widest line Spark
       prints) was not cut: what follows it is the next line. */
    if (head_kind == K_HEADER)
        return false;
    /* A deep node cut inside its prefix: the rest of the prefix (spaces and bars, maybe
       nothing else yet) and its marker follow. */
    if (prefix_only(head, head_f))
        return next->len > 0;
    /* A line padded with blanks to the width (a table of a DESCRIBE) was not cut. */
    if (head->len >= 3 && head->p[head->len - 1] == ' ' && head->p[head->len - 2] == ' ' &&
        head->p[head->len - 3] == ' ')
        return false;
    /* A subquery entry exactly as wide as the cut: its tree's root follows, not its rest. */
    if (cl_starts(head->p, head->len, "Subquery:") && ends_with_formatted_id(next))
        return false;
    uint32_t ind = cl_indent(next->p, next->len);
    /* "Scan parquet  (10)" cut after "parquet": the id keeps its two spaces. */
    if (ind == 2 && ind < next->len && next->p[ind] == '(')
        return true;
    /* "Key: value" after a tree line is not a details field: those follow "(N) Name". */
    if (next_kind == K_FIELD && head_kind == K_TREE)
        return ind <= 1;
    return continues(next_kind) && ind <= 1;
}

/* The first line of a hanging-indent group and the column its continuations start at or
 * after (0 when the line cannot head one). */
static uint32_t hanging_col(const struct cl_line *head, const struct cl_facts *f,
                            bool after_header)
{
    if (f->kind == K_TREE && !f->aqe_header)
        return f->content;
    if (f->kind == K_FIELD)
        return 2;
    /* A subquery entry's tree and a details block's fields start at column 0: an indented
       line continues the entry or the "(N) Name [codegen id : K]" header. */
    if ((f->kind == K_SECTION && cl_starts(head->p, head->len, "Subquery:")) ||
        f->kind == K_DETAILS)
        return 1;
    if (after_header && f->kind == K_OTHER)
        return cl_indent(head->p, head->len) + 1; /* a plan's or an AQE sub-plan's root */
    return 0;
}

/* A prefix-only line is the start of a deep node cut by a terminal, never the rest of the
 * line before it. */
static inline bool hanging_follower(uint32_t col, const struct cl_line *next,
                             const struct cl_facts *next_f)
{
    return col && continues(next_f->kind) && cl_indent(next->p, next->len) >= col &&
           !prefix_only(next, next_f);
}

/* Word wrap is only undone on plan lines: a tree line, a details header or field, a plan's
 * root or schema line. */
static bool word_head(const struct cl_line *head, const struct cl_facts *f, bool after_header)
{
    if (f->kind == K_TREE)
        return !f->aqe_header;
    (void)head;
    return f->kind == K_FIELD || f->kind == K_DETAILS || (after_header && f->kind == K_OTHER);
}

/* A "Subquery:N Hosting ... Hosting Expression = ..." entry broken by the client: its root
 * follows at column 0 too, but a root is a formatted outline line and the rest is not. */
static inline bool subquery_entry_continues(const struct cl_line *head, const struct cl_facts *f,
                                     const struct cl_line *next)
{
    return f->kind == K_SECTION && cl_starts(head->p, head->len, "Subquery:") &&
           !ends_with_formatted_id(next);
}

static uint32_t first_word_width(const struct cl_line *l)
{
    uint32_t ind = cl_indent(l->p, l->len);
    const char *p = l->p + ind;
    uint32_t n = l->len - ind;
    /* Words are short: their first 32 bytes are counted here (cl_width's columns: bytes but
       UTF-8 continuation bytes), a longer word's rest by memchr and cl_width. */
    uint32_t k = 0, w = 0, lim = n < 32 ? n : 32;
    for (; k < lim && p[k] != ' '; k++)
        w += ((unsigned char)p[k] & 0xC0) != 0x80;
    if (k < lim || k == n)
        return w;
    const char *sp = memchr(p + k, ' ', n - k);
    return w + cl_width(p + k, (sp ? (uint32_t)(sp - p) : n) - k);
}

/* field_ok: the broken line is a tree line or a root, where "Key: value" cannot start a
 * line of its own (details fields follow a "(N) Name" header). */
static bool word_follower(const struct cl_line *next, const struct cl_facts *next_f,
                          bool field_ok)
{
    enum cl_kind next_kind = next_f->kind;
    return (continues(next_kind) || (field_ok && next_kind == K_FIELD)) && next->len &&
           next->p[0] != ' ' && !prefix_only(next, next_f);
}

/* A schema line cut in the middle of its list: it ends with ',' or ':'. */
static bool schema_cut(const struct cl_line *l)
{
    uint32_t n = l->len;
    while (n && l->p[n - 1] == ' ')
        n--;
    return n && (l->p[n - 1] == ',' || l->p[n - 1] == ':');
}

/* A header broken in two: "== Subtree 1 / 2 (maxMethodCodeSize:324; ..." at column 0 without
 * its closing "==", then a line at column 0 that ends with " ==" and is no header itself. */
static bool header_cut(const struct cl_line *head, enum cl_kind head_kind,
                       const struct cl_line *next, enum cl_kind next_kind)
{
    if (head_kind == K_HEADER || !cl_starts(head->p, head->len, "== ") || next_kind != K_OTHER ||
        !next->len || next->p[0] == ' ')
        return false;
    uint32_t n = next->len;
    while (n && next->p[n - 1] == ' ')
        n--;
    return CL_ENDS(next->p, n, " ==");
}

/* A client that cannot break a long word moves it down whole: "   +- FileScan parquet", then
 * "spark_catalog.default.t[a#1,b#2,...] Batched: ..." at column 0 or indented past the
 * marker.  A word of 40 columns or more that would not have fitted after the tree line in
 * 80 columns says so even when it is the only broken line. */
static bool long_word_moved_down(const struct cl_facts *head_f, uint32_t head_w,
                                 const struct cl_line *next, const struct cl_facts *next_f)
{
    if (head_f->kind != K_TREE || head_f->aqe_header || !continues(next_f->kind) ||
        !next->len || prefix_only(next, next_f))
        return false;
    uint32_t ind = cl_indent(next->p, next->len);
    if (ind && ind < head_f->content)
        return false;
    if (ind == next->len)
        return false;
    uint32_t fw = first_word_width(next);
    return fw >= WRAP_MIN_WIDTH && head_w + 1 + fw > 80;
}

void cl_wrap_scan_init(struct cl_wrap_scan *ws)
{
    memset(ws, 0, sizeof *ws);
}

/* The line after prev is a plan's root (or schema line). */
static bool after_plan_header_line(const struct cl_line *prev, const struct cl_facts *prev_f)
{
    return (prev_f->kind == K_HEADER && cl_is_plan_header(prev->p, prev->len)) ||
           prev_f->aqe_header;
}

/* The line after prev may be a plan's root: after a header, a blank line, a SQL test's
   "-- !query analysis".  Good enough for evidence of wrapping, not for hanging indents
   (indentation-only trees start after blank lines). */
static bool root_like_after(const struct cl_line *prev, const struct cl_facts *prev_f)
{
    return after_plan_header_line(prev, prev_f) || prev_f->kind == K_BLANK ||
           (prev->len && prev->p[0] == '-' &&
            (cl_starts(prev->p, prev->len, "-- !query analysis") ||
             cl_starts(prev->p, prev->len, "-- !query optimized")));
}

void cl_wrap_scan_line(struct cl_wrap_scan *ws, const struct cl_line *prev,
                       const struct cl_facts *prev_f, uint32_t prev_w, const struct cl_line *cur,
                       const struct cl_facts *cur_f, uint32_t cur_w)
{
    enum cl_kind prev_kind = prev_f->kind, cur_kind = cur_f->kind;
    if (prev_w > ws->max_w) {
        ws->max_w = prev_w;
        ws->at_max = 0;
        ws->at_max_midword = 0;
        ws->first_at_max.len = 0;
    }
    if (prev_w >= WRAP_MIN_WIDTH) {
        bool plan_line = (prev_kind == K_TREE && !prev_f->aqe_header) || prev_kind == K_FIELD ||
                         prev_kind == K_DETAILS || (ws->prev_root_like && prev_kind == K_OTHER) ||
                         prefix_only(prev, prev_f);
        /* Other lines count too, but a copy of the first one does not (a .sql.out file
           repeats its queries in error messages). */
        bool copy = ws->first_at_max.len == prev->len &&
                    memcmp(ws->first_at_max.p, prev->p, prev->len) == 0;
        if (prev_w == ws->max_w && (plan_line || !copy) &&
            terminal_follower(prev, prev_f, prev_kind, cur, cur_kind)) {
            bool midword = prev->len && cur->len && is_word_char(prev->p[prev->len - 1]) &&
                           is_word_char(cur->p[0]);
            if (!ws->first_at_max.len) {
                ws->first_at_max = *prev;
                ws->first_plan = plan_line;
                ws->first_midword = midword;
            }
            ws->at_max++;
            ws->at_max_midword += midword;
        }
        /* Both need a following line that continues something (tested first: cheap). */
        if (continues(cur_kind)) {
            if (hanging_follower(hanging_col(prev, prev_f, ws->prev_after_header), cur, cur_f))
                ws->hanging++;
            if (prev_w <= WORD_WRAP_MAX_WIDTH && word_head(prev, prev_f, ws->prev_after_header) &&
                word_follower(cur, cur_f, false))
                ws->word_pairs++;
        }
    }
    /* The analyzed plan's schema line never ends in ',' or ':' as Spark prints it. */
    if (ws->prev_schema && schema_cut(prev) && cur_kind == K_OTHER && cur->len &&
        cur->p[0] != ' ')
        ws->broken_schema++;
    /* header_cut's cheapest conditions first, inline: this runs on every line. */
    if (cur_kind == K_OTHER && prev->len && prev->p[0] == '=' &&
        header_cut(prev, prev_kind, cur, cur_kind))
        ws->broken_header++;
    if (prev_kind == K_TREE && continues(cur_kind) && long_word_moved_down(prev_f, prev_w, cur, cur_f))
        ws->long_word++;
    ws->prev_schema = prev_f->analyzed;
    ws->prev_after_header = after_plan_header_line(prev, prev_f);
    ws->prev_root_like = root_like_after(prev, prev_f);
    ws->last_w = cur_w;
}

static bool terminal_evidence(const struct cl_wrap_scan *ws)
{
    if (ws->max_w < WRAP_MIN_WIDTH || ws->last_w > ws->max_w)
        return false;
    return ws->at_max >= 2 || (ws->at_max_midword >= 1 && ws->word_pairs < 2);
}

bool cl_wrap_scan_dirty(const struct cl_wrap_scan *ws)
{
    return terminal_evidence(ws) || ws->word_pairs >= 2 || ws->hanging >= 1 ||
           ws->broken_schema >= 1 || ws->broken_header >= 1 || ws->long_word >= 1;
}

/* Only the lines at the widest width so far count as a terminal's cuts, and a copy of the
 * first of them only when a plan line.  A piece whose widest lines are narrower than those
 * before it adds nothing there; one whose are wider starts again (as the scan did at its
 * widest line); one at the same width counts its lines against acc's first: the same as
 * against its own first when the two are copies (its own first then counts only when a plan
 * line), and when they are not, its first counts too: two at the widest, the verdict made. */
void cl_wrap_scan_merge(struct cl_wrap_scan *acc, const struct cl_wrap_scan *next)
{
    if (next->max_w > acc->max_w || (next->max_w == acc->max_w && !acc->at_max)) {
        acc->max_w = next->max_w;
        acc->at_max = next->at_max;
        acc->at_max_midword = next->at_max_midword;
        acc->first_at_max = next->first_at_max;
        acc->first_plan = next->first_plan;
        acc->first_midword = next->first_midword;
    } else if (next->max_w == acc->max_w && next->at_max) {
        const struct cl_line *a = &acc->first_at_max, *b = &next->first_at_max;
        bool copy = a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
        uint32_t drop = copy && !next->first_plan;
        acc->at_max += next->at_max - drop;
        acc->at_max_midword += next->at_max_midword - (drop && next->first_midword);
    }
    acc->word_pairs += next->word_pairs;
    acc->hanging += next->hanging;
    acc->broken_schema += next->broken_schema;
    acc->broken_header += next->broken_header;
    acc->long_word += next->long_word;
    acc->last_w = next->last_w;
    acc->prev_after_header = next->prev_after_header;
    acc->prev_root_like = next->prev_root_like;
    acc->prev_schema = next->prev_schema;
}

enum join { J_NONE, J_RAW, J_SPACE };

/* Line i is a plan's root (or schema line): it follows "== ... Plan ==" or an AQE
 * "+- == Final Plan ==". */
static bool after_plan_header(const struct cl_line *v, const struct cl_facts *facts, size_t i)
{
    return i > 0 && after_plan_header_line(&v[i - 1], &facts[i - 1]);
}


/* Line i is the analyzed plan's root: it reads like an operator and only lines that are not
 * plan lines (the schema line, maybe broken in several) stand between it and the header. */
static bool after_analyzed_schema(const struct cl_line *v, const struct cl_facts *facts, size_t i)
{
    if (!v[i].len || v[i].p[0] == ' ')
        return false;
    /* Bound: a schema line broken in at most 16 pieces.  Only the facts of the lines before
       i are read: the join loop writes joined lines back over them.  The operator test comes
       last: this runs for every line of a cleaned input. */
    for (size_t k = i; k >= 2 && i - k < 16 && facts[k - 1].kind == K_OTHER; k--)
        if (facts[k - 2].analyzed)
            return lex_looks_like_operator(v[i].p, v[i].len);
    return false;
}

/* Line i is a plan's root (after a header or after the analyzed plan's schema). */
static bool root_line(const struct cl_line *v, const struct cl_facts *facts, size_t i)
{
    return after_plan_header(v, facts, i) || after_analyzed_schema(v, facts, i);
}

/* word_head() of line i: only an unmarked line (K_OTHER) asks whether it is a root, the
 * costlier question, so it is asked only then. */
static inline bool word_head_at(const struct cl_line *v, const struct cl_facts *facts, size_t i)
{
    enum cl_kind k = facts[i].kind;
    if (k != K_OTHER) /* word_head() without the question */
        return k == K_TREE ? !facts[i].aqe_header : k == K_FIELD || k == K_DETAILS;
    return root_line(v, facts, i);
}

/* The analyzed plan's schema line ("k: int, sum(v): bigint") is followed by the root at
 * column 0: it goes on only when it was cut in the middle of its list (it ends with ',' or
 * ':') or the next line reads "name: type".  A root in its place (no schema in 3.3+ when the
 * output is empty) has its '[' before any ": ". */
static bool schema_line_stops_after_header(const struct cl_line *v, size_t i,
                                           const struct cl_line *next)
{
    if (!cl_starts(v[i - 1].p, v[i - 1].len, "== Analyzed"))
        return false;
    const struct cl_line *h = &v[i];
    const char *colon = NULL, *bracket = memchr(h->p, '[', h->len);
    for (uint32_t k = 0; k + 1 < h->len && !colon; k++)
        if (h->p[k] == ':' && h->p[k + 1] == ' ')
            colon = h->p + k;
    if (!colon || (bracket && bracket < colon))
        return false; /* a root, not a schema */
    uint32_t hl = h->len;
    while (hl && h->p[hl - 1] == ' ')
        hl--;
    if (hl && (h->p[hl - 1] == ',' || h->p[hl - 1] == ':'))
        return false;
    uint32_t ind = cl_indent(next->p, next->len);
    const char *p = next->p + ind, *end = next->p + next->len;
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    return !(sp && sp > p && sp[-1] == ':' && sp + 1 < end && sp[1] >= 'a' && sp[1] <= 'z');
}

/* The first test inline: it runs on every line and nearly every line fails it. */
static inline bool schema_line_stops(const struct cl_line *v, const struct cl_facts *facts,
                                     size_t i, const struct cl_line *next)
{
    return i > 0 && facts[i - 1].kind == K_HEADER && schema_line_stops_after_header(v, i, next);
}

/* Line i, whose hanging_col() is not 0, heads a hanging group: it is no schema line that
 * stops, and it is long or the next line's first word would not have fitted on it.  *ok
 * keeps the answer (-1 until asked). */
static bool hanging_head_ok(const struct cl_line *v, const struct cl_facts *facts,
                            const uint32_t *widths, size_t i, uint32_t hang_width, int *ok)
{
    if (*ok < 0)
        *ok = !(schema_line_stops(v, facts, i, &v[i + 1]) ||
                (widths[i] < WRAP_MIN_WIDTH &&
                 widths[i] + 1 + first_word_width(&v[i + 1]) <= hang_width));
    return *ok;
}

/* ---- the wrap step: named phases over one struct wrap ------------------------------------ */

/* How a follower joins its group, kept in its kind byte once the group is read (the byte is
 * not read as a kind again): raw (a terminal cut: nothing between) or with one space. */
enum {
    JOIN_MARK_RAW = 0x80,
    JOIN_MARK_SPACE = 0x40,
    JOIN_MARKS = JOIN_MARK_RAW | JOIN_MARK_SPACE,
};

struct wrap {
    struct cleaner *c;
    struct cl_line *v;
    size_t n;
    unsigned char *kinds;      /* enum cl_kind of each line, then its JOIN_MARK_* */
    uint32_t *widths;
    unsigned char *wgh;        /* word_group_head of each line: 0 not asked yet, 1 no, 2 yes */
    struct cl_facts *facts;    /* c->facts */
    struct cl_wrap_scan ws;
    /* What the evidence says the input went through; any of them makes the step join. */
    bool terminal, word, hanging, schema, header, long_words;
    uint32_t wrap_width;       /* word wrap: the width the client wrapped at */
    uint32_t hang_width;       /* hanging groups: the widest line that heads one */
    /* Gathered with the evidence (wrap_read_lines): the widest line that heads a hanging
       group with the line after it, and the estimate of the width a client wrapped at. */
    uint32_t hang_est, word_est;
    bool formatted;            /* a formatted-mode details header follows a blank line */
};

/* Lines from which the facts and widths of the second half, and its evidence, are worked out
 * on another core: a paste of some 13 MB (SPARKPLAN_CLEAN_HALVES_MIN sets it, cl_halves). */
#define WRAP_THREAD_MIN_LINES ((size_t)1 << 18)

static bool wrap_halves(const struct wrap *wr)
{
    return wr->n >= 4 && cl_halves(wr->c, wr->n >= WRAP_THREAD_MIN_LINES);
}

/* The facts and widths of lines [from, to): each line's own, so the halves of the lines can
 * be done on two cores at once. */
struct facts_range {
    const struct cleaner *c;   /* its marks: a line without a byte above 0x7F is len wide */
    const struct cl_line *v;
    struct cl_facts *facts;
    uint32_t *widths;
    unsigned char *kinds;      /* the facts' kind, a byte a line (struct wrap) */
    size_t from, to;
};

static void facts_range_run(const struct facts_range *r)
{
    struct cl_clear ascii = {0, 0}; /* a stretch of the input without a byte above 0x7F */
    for (size_t i = r->from; i < r->to; i++) {
        cl_facts_full(r->v[i].p, r->v[i].len, &r->facts[i]);
        r->kinds[i] = r->facts[i].kind;
        r->widths[i] = cl_input_lacks_run(r->c, &ascii, r->v[i].p, r->v[i].len, CL_MARK_HIGH)
                           ? r->v[i].len
                           : cl_line_width(&r->v[i], &r->facts[i]);
    }
}

static void *facts_range_main(void *arg)
{
    facts_range_run(arg);
    return NULL;
}

/* Facts, kinds and widths of every line, on two cores for a big input (they are 70 % of what
 * reading the lines costs, 270 instructions a line, and each line's own). */
static void wrap_facts(struct wrap *wr)
{
    struct facts_range lo = {wr->c, wr->v, wr->facts, wr->widths, wr->kinds, 0, wr->n}, hi = lo;
    pthread_t th;
    bool two = false;
    if (wrap_halves(wr)) {
        lo.to = hi.from = wr->n / 2;
        two = thread_start_quiet(&th, facts_range_main, &hi);
        if (!two)
            lo.to = wr->n;
    }
    facts_range_run(&lo);
    if (two)
        pthread_join(th, NULL);
}

static inline bool word_group_head(const struct wrap *wr, size_t i);

/* The evidence of a run of lines (struct wrap's ws, hang_est and word_est), gathered for
 * each half of a big input's lines on its own core and then merged (wrap_read_lines). */
struct wrap_evidence {
    const struct wrap *wr;     /* read only while the evidence is gathered */
    struct cl_wrap_scan ws;
    uint32_t hang_est, word_est;
    size_t from, to;           /* the lines whose pair with the line before is looked at */
};

/* The line before line i heads a hanging group with it, or may head a word-wrapped group:
 * the widest such lines are the hanging groups' width (hang_est) and the estimate of the
 * client's (word_est: a line was broken when the next line's first word would not have
 * fitted on it within the width the client wrapped at, the widest broken line).  Asked
 * where cl_wrap_scan_line has asked the same of both lines (a line at least WRAP_MIN_WIDTH
 * wide, then one that continues something), where they were two passes over every line.  Its evidence says it: hanging when it counted a hanging pair (the same
 * test), word-wrapped when it counted a word pair (word_head() of the line is
 * word_group_head() but for an unmarked line that is a root after the analyzed plan's
 * schema and a section line that is a subquery entry, asked here).  Both are the widest of
 * the lines that pass a test of their own (the test does not read the estimate): the
 * halves' estimates merge as their maximum. */
static void wrap_widths_at(struct wrap_evidence *ev, size_t i, uint32_t hanging_before,
                           uint32_t word_pairs_before)
{
    const struct wrap *wr = ev->wr;
    uint32_t w = wr->widths[i - 1];
    if (ev->ws.hanging != hanging_before && w > ev->hang_est)
        ev->hang_est = w;
    if (w <= ev->word_est || w > WORD_WRAP_MAX_WIDTH)
        return;
    enum cl_kind hk = (enum cl_kind)wr->facts[i - 1].kind;
    if (ev->ws.word_pairs != word_pairs_before ||
        ((hk == K_OTHER || hk == K_SECTION) && word_follower(&wr->v[i], &wr->facts[i], false) &&
         word_group_head(wr, i - 1)))
        ev->word_est = w;
}

/* The evidence of the pairs (line i - 1, line i) for i in [from, to), from lines whose facts
 * and widths are all made.  Reads the lines and the facts only (wr->wgh is not made yet), so
 * the two halves run at once.  A half that starts at from > 0 starts with what the scan
 * carries from line to line as one scan would have left it after line from - 1: the flags
 * about the line before (cl_wrap_scan_line and wrap_scan_nothing set them from line
 * from - 2 alike, the line before the first one none) and the
 * widest line so far, which cl_wrap_scan_merge makes good (a half with a narrower widest
 * line so far only runs cl_wrap_scan_line where wrap_scan_nothing would have passed:
 * nothing counts there but at the widest, which the merge settles). */
static void wrap_scan_range(struct wrap_evidence *ev)
{
    static const struct cl_line none = {"", 0, 0};
    static const struct cl_facts none_f = {.kind = K_BLANK};
    const struct wrap *wr = ev->wr;
    const struct cl_line *v = wr->v;
    const struct cl_facts *facts = wr->facts;
    const uint32_t *widths = wr->widths;
    size_t from = ev->from;
    cl_wrap_scan_init(&ev->ws);
    ev->hang_est = ev->word_est = 0;
    if (from) {
        const struct cl_line *pp = from >= 2 ? &v[from - 2] : &none;
        const struct cl_facts *pp_f = from >= 2 ? &facts[from - 2] : &none_f;
        ev->ws.prev_schema = pp_f->analyzed;
        ev->ws.prev_after_header = after_plan_header_line(pp, pp_f);
        ev->ws.prev_root_like = root_like_after(pp, pp_f);
    }
    /* The evidence of most lines is gathered by wrap_scan_nothing (clean_impl.h), as in the
       quick scan: a few compares where cl_wrap_scan_line took 80 instructions a line. */
    bool prev_plain = from ? wrap_prev_plain(&ev->ws, &v[from - 1], &facts[from - 1])
                           : wrap_prev_plain(&ev->ws, &none, &none_f);
    for (size_t i = from; i < ev->to; i++) {
        const struct cl_facts *prev_f = i ? &facts[i - 1] : &none_f;
        uint32_t prev_w = i ? widths[i - 1] : 0;
        if (!wrap_scan_nothing(&ev->ws, prev_plain, prev_f, prev_w, &facts[i], widths[i])) {
            uint32_t hanging = ev->ws.hanging, word_pairs = ev->ws.word_pairs;
            cl_wrap_scan_line(&ev->ws, i ? &v[i - 1] : &none, prev_f, prev_w, &v[i],
                              &facts[i], widths[i]);
            if (prev_w >= WRAP_MIN_WIDTH && continues(facts[i].kind))
                wrap_widths_at(ev, i, hanging, word_pairs);
        }
        prev_plain = wrap_prev_plain(&ev->ws, &v[i], &facts[i]);
    }
}

static void *wrap_scan_main(void *arg)
{
    wrap_scan_range(arg);
    return NULL;
}

/* Facts, kinds and widths of every line, and the wrap evidence they give: both on two cores
 * for a big input (each half's evidence, a fifth of the step on the corpus paste, merged as
 * one scan would have gathered it: cl_wrap_scan_merge). */
static void wrap_read_lines(struct wrap *wr)
{
    wrap_facts(wr);
    struct wrap_evidence lo = {.wr = wr, .from = 0, .to = wr->n}, hi = lo;
    pthread_t th;
    bool two = false;
    if (wrap_halves(wr)) {
        lo.to = hi.from = wr->n / 2;
        two = thread_start_quiet(&th, wrap_scan_main, &hi);
        if (!two)
            lo.to = wr->n;
    }
    wrap_scan_range(&lo);
    if (two) {
        pthread_join(th, NULL);
        cl_wrap_scan_merge(&lo.ws, &hi.ws);
        if (hi.hang_est > lo.hang_est)
            lo.hang_est = hi.hang_est;
        if (hi.word_est > lo.word_est)
            lo.word_est = hi.word_est;
    }
    wr->ws = lo.ws;
    wr->hang_est = lo.hang_est;
    wr->word_est = lo.word_est;
    wr->ws.last_w = wr->n ? wr->widths[wr->n - 1] : 0; /* what cl_wrap_scan_line leaves */
}

/* A terminal cuts every long line at exactly the widest width; an email client breaks lines
 * at spaces, most of them short of it.  Two lines broken short of the widest, whose next
 * word would not have fitted even there, mean word wrap. */
static bool wrap_is_terminal(const struct wrap *wr)
{
    if (!terminal_evidence(&wr->ws))
        return false;
    const struct cl_line *v = wr->v;
    const uint32_t *widths = wr->widths, max_w = wr->ws.max_w;
    uint32_t short_breaks = 0;
    for (size_t i = 0; i + 1 < wr->n && short_breaks < 2; i++)
        if (widths[i] >= WRAP_MIN_WIDTH && widths[i] < max_w &&
            widths[i] <= WORD_WRAP_MAX_WIDTH && word_head_at(v, wr->facts, i) &&
            word_follower(&v[i + 1], &wr->facts[i + 1], false) &&
            widths[i] + 1 + first_word_width(&v[i + 1]) > max_w)
            short_breaks++;
    return short_breaks < 2;
}

/* Which kinds of wrapping the evidence shows; false when none (nothing to join). */
static bool wrap_decide(struct wrap *wr)
{
    wr->terminal = wrap_is_terminal(wr);
    wr->word = !wr->terminal && wr->ws.word_pairs >= 2;
    wr->hanging = wr->ws.hanging >= 1;
    wr->schema = wr->ws.broken_schema >= 1;
    wr->header = wr->ws.broken_header >= 1;
    wr->long_words = wr->ws.long_word >= 1;
    return wr->terminal || wr->word || wr->hanging || wr->schema || wr->header ||
           wr->long_words;
}

/* Line i may head a word-wrapped group. */
static bool word_group_head_of(const struct wrap *wr, size_t i)
{
    return word_head_at(wr->v, wr->facts, i) ||
           (i + 1 < wr->n && subquery_entry_continues(&wr->v[i], &wr->facts[i], &wr->v[i + 1]));
}

/* word_group_head_of, asked once a line: the word-wrap passes and the join ask it of the
 * same lines two or three times (a third of the step on the corpus paste), and what it reads
 * (the line, the next one, the one before, the facts) is the same each time: the join only
 * writes lines back behind the one it asks about (wrap_join_all). */
static inline bool word_group_head(const struct wrap *wr, size_t i)
{
    /* Told by the kind alone but for unmarked lines (the root question) and section lines
       (a subquery entry): word_head_at(), and subquery_entry_continues() only of a section
       line.  Nearly every line of a paste is one of these, asked without the call. */
    switch ((enum cl_kind)wr->facts[i].kind) {
    case K_TREE:
        return !wr->facts[i].aqe_header;
    case K_FIELD:
    case K_DETAILS:
        return true;
    case K_BLANK:
    case K_HEADER:
        return false;
    default:
        break;
    }
    if (!wr->wgh)
        return word_group_head_of(wr, i);
    if (!wr->wgh[i])
        wr->wgh[i] = word_group_head_of(wr, i) ? 2 : 1;
    return wr->wgh[i] == 2;
}

/* What word_wrap_width carries from line to line. */
struct ww_state {
    uint32_t width;
    /* in_group: line i is in a group, as the line after a group's head is when it is a
       follower (word_follower), asked only when it is read (pending: not asked yet).  The
       line after a head is mostly a tree line or a field, which continues nothing: the group
       ends there without the question. */
    bool in_group, pending;
};

/* word_wrap_width's look at line i, whose next line continues something or is a field (any
 * other next line ends a group: the state is reset, ww_reset). */
static inline void ww_line(const struct wrap *wr, size_t i, struct ww_state *s)
{
    const struct cl_line *v = wr->v;
    const struct cl_facts *facts = wr->facts;
    const uint32_t *widths = wr->widths;
    if (widths[i] <= s->width && word_group_head(wr, i)) {
        s->pending = true; /* in_group = word_follower(&v[i + 1], &facts[i + 1], true) */
        return;
    }
    if (!continues(facts[i].kind)) {
        s->in_group = s->pending = false;
        return;
    }
    if (s->pending) {
        s->in_group = word_follower(&v[i], &facts[i], true);
        s->pending = false;
    }
    if (!s->in_group || !word_follower(&v[i + 1], &facts[i + 1], true)) {
        s->in_group = false;
        return;
    }
    if (widths[i] > s->width && widths[i] <= s->width + 10 && widths[i] <= WORD_WRAP_MAX_WIDTH)
        s->width = widths[i];
}

/* A line whose next one neither continues something nor is a field is no follower's head
 * nor a follower followed (word_follower): whether line i heads a group or continues one,
 * the group ends there, so neither is asked. */
static inline bool ww_ends(const struct wrap *wr, size_t i)
{
    unsigned nk = wr->kinds[i + 1];
    return !continues((enum cl_kind)nk) && nk != K_FIELD;
}

/* The lines of [from, n - 1) that word_wrap_width must look at (ww_ends false: about one in
 * seven of the corpus paste), found on the second core, where the one-thread loop looked at
 * every line; their word_group_head asked there too (kept in wr->wgh, the same answer as
 * asked later: it reads lines and facts, which nothing writes before the join). */
struct ww_half {
    const struct wrap *wr;
    size_t from;
    uint32_t *at;              /* the lines, k of them */
    size_t k;
};

static void *ww_half_main(void *arg)
{
    struct ww_half *h = arg;
    const struct wrap *wr = h->wr;
    size_t k = 0;
    for (size_t i = h->from; i + 1 < wr->n; i++)
        if (!ww_ends(wr, i)) {
            h->at[k++] = (uint32_t)i;
            (void)word_group_head(wr, i);
        }
    h->k = k;
    return NULL;
}

/* The broken lines after a group's first one fill the width better than the first ones (a
 * tree line's marker and name leave room): a continuation line a little wider than the
 * estimate, itself followed by the rest of its text, shows the client's real width.  Up to
 * 10 columns at a time, so one long unbroken line cannot pass for the width.  The cheap
 * tests first, the follower's only when its answer is used.  For a big input the lines of
 * the second half that are looked at at all are found on the second core meanwhile
 * (ww_half): the width carries from line to line and decides which lines head a group, so
 * the second half is gone through here, but only at those lines (a line skipped between
 * two ends the group, as ww_ends does). */
static uint32_t word_wrap_width(const struct wrap *wr, uint32_t width)
{
    struct ww_state s = {width, false, false};
    struct ww_half hi = {wr, wr->n, NULL, 0};
    pthread_t th;
    bool two = false;
    if (wrap_halves(wr) && wr->wgh && wr->n < UINT32_MAX) {
        hi.from = wr->n / 2;
        hi.at = malloc((wr->n - hi.from) * sizeof *hi.at);
        two = hi.at && thread_start_quiet(&th, ww_half_main, &hi);
        if (!two)
            hi.from = wr->n;
    }
    for (size_t i = 0; i + 1 < wr->n && i < hi.from; i++) {
        if (ww_ends(wr, i)) {
            s.in_group = s.pending = false;
            continue;
        }
        ww_line(wr, i, &s);
    }
    if (two) {
        pthread_join(th, NULL);
        size_t next = hi.from; /* the line after the last one looked at */
        for (size_t k = 0; k < hi.k; k++) {
            size_t i = hi.at[k];
            if (i != next)
                s.in_group = s.pending = false;
            ww_line(wr, i, &s);
            next = i + 1;
        }
    }
    free(hi.at);
    return s.width;
}

/* Formatted mode: a details header "(N) Name" after a blank line.  Only there does a "(N)"
 * at the start of a cut line stand for an outline id ("targetsize(536870912)" of a
 * simple-mode line cut before its parenthesis keeps no space). */
static bool has_formatted_details(const struct wrap *wr)
{
    for (size_t k = 1; k < wr->n; k++)
        if (wr->kinds[k] == K_DETAILS && wr->kinds[k - 1] == K_BLANK)
            return true;
    return false;
}

/* The group that starts at line i, as the rules below see it. */
struct wrap_group {
    size_t head;
    uint32_t hcol;            /* hanging_col() of the head, 0: no hanging group */
    int hcol_ok;              /* hanging_head_ok(): not yet asked (-1), yes, no */
    bool word_group;          /* the head may head a word-wrapped group */
    enum cl_kind kind;        /* the head's kind (K_TREE for a deep node cut in its prefix) */
};

static void group_start(const struct wrap *wr, size_t i, struct wrap_group *g)
{
    const struct cl_line *v = wr->v;
    const struct cl_facts *facts = wr->facts;
    g->head = i;
    /* A short line heads a hanging group too when the next line's first word would not have
       fitted on it (a long name or path moved down whole).  hanging_col() first: it reads
       only facts, and most lines cannot head a group (it asks whether the line follows a
       header only of an unmarked line).  Whether such a line may head one after all is
       asked when a line that could hang from it comes: most never meet one. */
    g->hcol = 0;
    if (wr->hanging && i + 1 < wr->n)
        g->hcol = hanging_col(&v[i], &facts[i],
                              facts[i].kind == K_OTHER && after_plan_header(v, facts, i));
    g->hcol_ok = -1;
    g->word_group = wr->word && word_group_head(wr, i) &&
                    !(i + 1 < wr->n && schema_line_stops(v, facts, i, &v[i + 1]));
    /* A deep node cut inside its prefix: the pieces after the prefix are a tree line's
       ("Filters: [...]" at column 0 is the rest of a scan, not a details field). */
    g->kind = facts[i].kind;
    if (wr->terminal && prefix_only(&v[i], &facts[i])) /* only the terminal rule reads it */
        g->kind = K_TREE;
}

static enum join join_rule_plan(struct wrap *wr, struct wrap_group *g, size_t last,
                                size_t nx);

/* The rules, first match wins: does line nx (after the group's line `last`) join it?
   Never a closing fence or tag, the end of a comment or a sentence; for a join at a word,
   never code, a separator or a tree line (even off the grid) either (lex_foreign_line). */
static enum join join_rule(struct wrap *wr, struct wrap_group *g, size_t last, size_t nx)
{
    enum join j = join_rule_plan(wr, g, last, nx);
    if (j == J_NONE)
        return J_NONE;
    const struct cl_line *n = &wr->v[nx];
    if (lex_closes_block(n->p, n->len) || lex_sentence_line(n->p, n->len))
        return J_NONE;
    /* A terminal's cut may fall anywhere in a line, inside a deep line's prefix too
       (terminal_follower decides); a join at a word never leads into code or a marker. */
    if (j == J_SPACE && (lex_tree_marker_line(n->p, n->len) || lex_foreign_line(n->p, n->len)))
        return J_NONE;
    return j;
}

/* The rules of Spark's own wrapped lines, first match wins. */
static enum join join_rule_plan(struct wrap *wr, struct wrap_group *g, size_t last, size_t nx)
{
    const struct cl_line *v = wr->v;
    const struct cl_facts *facts = wr->facts;
    const uint32_t *widths = wr->widths;
    size_t i = g->head;
    enum cl_kind nk = (enum cl_kind)wr->kinds[nx];
    /* A terminal cut the line at its width: the rest follows with nothing between. */
    if (wr->terminal && widths[last] == wr->ws.max_w &&
        terminal_follower(&v[last], &facts[last], g->kind, &v[nx], nk))
        return J_RAW;
    /* Indented deeper than the head's text, starting nothing. */
    if (hanging_follower(g->hcol, &v[nx], &facts[nx]) &&
        hanging_head_ok(v, facts, widths, i, wr->hang_width, &g->hcol_ok))
        return J_SPACE;
    /* Word wrap: the next word would not have fitted on the line. */
    if (g->word_group && widths[last] <= wr->wrap_width &&
        word_follower(&v[nx], &facts[nx], facts[i].kind == K_TREE || facts[i].kind == K_OTHER) &&
        widths[last] + 1 + first_word_width(&v[nx]) > wr->wrap_width)
        return J_SPACE;
    /* The rest of a schema line broken after ',' or ':' (any client, any width). */
    if (wr->schema && i > 0 && facts[i - 1].analyzed && schema_cut(&v[last]) && nk == K_OTHER &&
        v[nx].len && v[nx].p[0] != ' ')
        return J_SPACE;
    /* "== Subtree 1 / 2 (maxMethodCodeSize..." then "...) ==". */
    if (wr->header && last == i && header_cut(&v[i], facts[i].kind, &v[nx], nk))
        return J_SPACE;
    /* A tree line, then the rest of it led by a word too long to fit. */
    if (wr->long_words && last == i &&
        long_word_moved_down(&facts[i], widths[i], &v[nx], &facts[nx]))
        return J_SPACE;
    return J_NONE;
}

/* The last line of the group headed by line i, before line end (no group goes on past a
 * range's end: join_range); each follower's kind byte gets its join mark.
 * *total: the joined line's length (a separator byte counted for each follower). */
static size_t group_end(struct wrap *wr, size_t i, size_t end, size_t *total)
{
    struct wrap_group g;
    group_start(wr, i, &g);
    size_t last = i;
    *total = wr->v[i].len;
    /* Bound: last only moves forward; the caller resumes after the group. */
    while (last + 1 < end) {
        size_t nx = last + 1;
        enum join j = join_rule(wr, &g, last, nx);
        if (j == J_NONE)
            break;
        *total += (size_t)wr->v[nx].len + 1;
        last = nx;
        wr->kinds[nx] = (unsigned char)(j == J_RAW ? JOIN_MARK_RAW : JOIN_MARK_SPACE);
    }
    return last;
}

/* The groups of lines [from, to) joined and written back from line from on, on one core:
 * no group crosses `to` (an empty line ends the range before it, wrap_join_all), and the
 * range reads no line past to - 1 nor writes one outside itself.  Then, once any line of
 * the input was joined, its lines' facts made final (refresh_range). */
struct join_range {
    struct wrap *wr;
    struct arena *scratch;     /* where its joined lines are written (one a core) */
    size_t from, to;
    size_t w;                  /* the lines kept: [from, w) */
    uint32_t joined;           /* followers joined */
    uint32_t first_line;       /* the input line of the first group joined */
    bool nomem;
    bool refreshed;            /* refresh_range was run over [from, w) */
    struct cl_trail t;         /* ... and counted this */
};

/* Lines i..last written as one (in the range's scratch); false on allocation failure. */
static bool group_join(struct join_range *jr, size_t i, size_t last, size_t total,
                       struct cl_line *out)
{
    struct wrap *wr = jr->wr;
    const struct cl_line *v = wr->v;
    char *buf = arena_alloc(jr->scratch, total ? total : 1);
    if (!buf) {
        jr->nomem = true;
        return false;
    }
    memcpy(buf, v[i].p, v[i].len);
    size_t o = v[i].len;
    for (size_t m = i + 1; m <= last; m++) {
        const char *p = v[m].p;
        uint32_t len = v[m].len;
        /* Spark prints " (N)": an id cut off at the start of a line lost its space.  After
           '*' it is a codegen marker "*(N) Project" cut after the star. */
        if (wr->formatted && wr->kinds[m] == JOIN_MARK_RAW && len && p[0] == '(' && o &&
            buf[o - 1] != ' ' && buf[o - 1] != '*' && cl_kind(p, len) == K_DETAILS)
            buf[o++] = ' ';
        if (wr->kinds[m] == JOIN_MARK_SPACE) {
            /* One space where the line was broken; a client that kept the space at the end
               of the line (format=flowed, or one of two spaces) keeps it. */
            uint32_t ind = cl_indent(p, len);
            p += ind;
            len -= ind;
            if (!o || buf[o - 1] != ' ')
                buf[o++] = ' ';
        }
        memcpy(buf + o, p, len);
        o += len;
    }
    if (o > UINT32_MAX) {
        jr->nomem = true;
        return false;
    }
    struct cl_line one = {buf, (uint32_t)o, v[i].orig};
    *out = one;
    return true;
}

/* The facts follow the lines: line o of the result was line k, the head of a group (the kind
 * bytes of followers carry a join mark).  A joined line is new and gets its facts taken; the
 * others keep theirs (o <= k: read before it is written over; o == k is not written at all,
 * so a range with nothing joined before its last line leaves that line as the other range,
 * which may be reading it, sees it).  Line o and its facts are then final: the trailing
 * blanks' step is done here too (cl_trail_line), where it was a pass of its own over every
 * line.  Over the lines [from, to) of a join_range, kept in [from, w). */
static void refresh_range(struct join_range *jr)
{
    struct wrap *wr = jr->wr;
    struct cl_trail t = {0, 0, 0};
    struct cl_line *v = wr->v;
    struct cl_facts *facts = wr->facts;
    const unsigned char *kinds = wr->kinds;
    size_t o = jr->from, n = jr->to;
    for (size_t k = jr->from; k < n; k++) {
        if (kinds[k] & JOIN_MARKS)
            continue;
        if (k + 1 < n && (kinds[k + 1] & JOIN_MARKS))
            cl_facts(v[o].p, v[o].len, &facts[o]);
        else if (o != k)
            facts[o] = facts[k];
        /* cl_trail_line's first test inline: nearly every line ends in no blank. */
        if (facts[o].blank_end)
            cl_trail_line(wr->c, o, &t);
        else
            t.nonblank += v[o].len > 0;
        o++;
    }
    jr->t = t;
    jr->refreshed = true;
}

/* May line i + 1 join line i as the head of a group (join_rule_plan)?  No only where
 * none of its rules can match, told from the kinds and a width: a follower must continue
 * something (K_OTHER, K_DETAILS), or be a "Key: value" line after a tree line or a root (the
 * word rule's field_ok, the terminal rule's), or follow a line as wide as a terminal's cut
 * (a deep node cut in its prefix goes on with its marker).  Most lines of a paste are
 * followed by a tree line or a details field, and then the group's head is not looked at
 * (group_start's questions were most of the join pass).
 * The first line at or after i and before n - 1 that may head a group by that test, or n.  The arrays and
 * the terminal's width in locals: the loop (a few loads a line) is not made to read them
 * again after each store of the join loop, which may alias them. */
static size_t next_join_head(const struct wrap *wr, size_t i, size_t n)
{
    const unsigned char *kinds = wr->kinds;
    const uint32_t *widths = wr->widths;
    const bool terminal = wr->terminal;
    const uint32_t cut = wr->ws.max_w;
    /* Bound: one round a line, up to the last but one (the last heads no group). */
    for (; i + 1 < n; i++) {
        unsigned nk = kinds[i + 1], hk = kinds[i];
        if (nk == K_OTHER || nk == K_DETAILS || (terminal && widths[i] == cut) ||
            (nk == K_FIELD && (hk == K_TREE || hk == K_OTHER)))
            return i;
    }
    return n;
}

/* Joins every group of the range's lines; false on allocation failure. */
static bool join_range_run(struct join_range *jr)
{
    struct wrap *wr = jr->wr;
    struct cl_line *v = wr->v;
    const size_t end = jr->to;
    /* Joined lines are written back into v: the write index w never passes the read index
       i, and what the group tests read behind i (v[i - 1]) is only ever overwritten by itself
       (w == i until the first join, w <= i - 1 after it), so no second line array is needed
       (one was a peak of its own on inputs with wrapped lines). */
    size_t w = jr->from, i = jr->from;
    while (i < end) {
        /* The lines up to the next that may head a group are kept: moved down at once (not
           at all before the first join).  Slots [w, w + (j - i)) are written, below j - 1
           once w < i: v[j - 1] is still line j - 1 when line j's group is asked about. */
        size_t j = next_join_head(wr, i, end);
        if (j > i) {
            if (w != i)
                memmove(v + w, v + i, (j - i) * sizeof *v);
            w += j - i;
            i = j;
            continue;
        }
        size_t total;
        size_t last = group_end(wr, i, end, &total);
        if (last == i) {
            if (w != i)
                v[w] = v[i];
            w++;
            i++;
            continue;
        }
        struct cl_line one;
        if (!group_join(jr, i, last, total, &one))
            return false;
        if (!jr->joined)
            jr->first_line = v[i].orig;
        v[w++] = one;
        jr->joined += (uint32_t)(last - i);
        i = last + 1;
    }
    jr->w = w;
    return true;
}

/* The second range, on the second core: joined, and its facts made final when it joined
 * anything (the whole input then did). */
static void *join_range_main(void *arg)
{
    struct join_range *jr = arg;
    if (join_range_run(jr) && jr->joined)
        refresh_range(jr);
    return NULL;
}

/* Where a big input's lines are cut for the join in two ranges: after an empty line near
 * the middle, which no rule joins to anything (it heads no group and follows none: each
 * rule asks for a follower that continues something, is a field, or is not empty, and a
 * head as wide as a terminal's cut, a tree line, a schema line cut after ',' or ':', or a
 * header), so no group crosses it.  The first range ends with the empty line; the second
 * reads it (the line before its first one: a root's header, a schema line), and the first
 * never writes it (join_range_run writes below its read index, which heads no group at the
 * range's last line; refresh_range does not copy a line onto itself, and an empty line has
 * no trailing blank).  0: no empty line within a quarter of the lines past the middle (one
 * range). */
static size_t join_cut(const struct wrap *wr)
{
    if (!wrap_halves(wr))
        return 0;
    size_t n = wr->n, lim = n / 2 + n / 4 + 1;
    /* Bound: a quarter of the lines at most. */
    for (size_t k = n / 2; k < lim && k + 1 < n; k++)
        if (wr->v[k].len == 0)
            return k + 1;
    return 0;
}

/* Joins every group; false on allocation failure.  A big input's lines are joined in two
 * ranges, the second on the second core (about 60 instructions a line with the facts made
 * final), each written back into its own lines; the second's kept lines and facts are then
 * moved down behind the first's. */
static bool wrap_join_all(struct wrap *wr)
{
    struct cleaner *c = wr->c;
    struct arena hi_scratch;
    arena_init(&hi_scratch);
    struct join_range lo = {.wr = wr, .scratch = &c->scratch, .from = 0, .to = wr->n}, hi = lo;
    hi.scratch = &hi_scratch;
    pthread_t th;
    bool two = false;
    size_t cut = join_cut(wr);
    if (cut) {
        lo.to = hi.from = cut;
        two = thread_start_quiet(&th, join_range_main, &hi);
        if (!two)
            lo.to = wr->n;
    }
    bool ok = join_range_run(&lo);
    if (ok && lo.joined)
        refresh_range(&lo);
    if (two) {
        pthread_join(th, NULL);
        arena_adopt(&c->scratch, &hi_scratch);
        ok = ok && !hi.nomem;
    }
    if (!ok || lo.nomem) {
        c->nomem = true;
        return false;
    }
    uint32_t joined = lo.joined + hi.joined;
    if (!joined)
        return true;
    if (!lo.refreshed)
        refresh_range(&lo);
    size_t n = lo.w;
    if (two) {
        if (!hi.refreshed)
            refresh_range(&hi);
        size_t kept = hi.w - hi.from;
        if (hi.from != n) {
            memmove(wr->v + n, wr->v + hi.from, kept * sizeof *wr->v);
            memmove(wr->facts + n, wr->facts + hi.from, kept * sizeof *wr->facts);
        }
        n += kept;
        lo.t.nonblank += hi.t.nonblank;
        lo.t.trailing += hi.t.trailing;
        lo.t.on_tree += hi.t.on_tree;
    }
    source_note(c->src, lo.joined ? lo.first_line : hi.first_line,
                "%u wrapped line%s joined to the line before", joined, joined == 1 ? "" : "s");
    c->changed |= CL_WRAP;
    c->lines.n = n;
    cl_trail_done(c, &lo.t);
    c->trailing_done = true;
    return true;
}

bool cl_step_wrap(struct cleaner *c)
{
    size_t n = c->lines.n;
    if (n < 2)
        return true;
    struct wrap wr = {.c = c, .v = c->lines.v, .n = n};
    /* Kept in c->facts for the steps after this one (compacted with the lines). */
    free(c->facts);
    struct cl_prefault *pf = c->prefault;
    if (pf && n <= pf->cap && atomic_load(&pf->done)) {
        /* Made present on the second core (clean.c): taken over. */
        wr.kinds = pf->kinds;
        wr.widths = pf->widths;
        wr.facts = c->facts = pf->facts;
        pf->kinds = NULL;
        pf->widths = NULL;
        pf->facts = NULL;
        c->prefault = NULL;
    } else {
        wr.kinds = malloc(n);
        wr.widths = malloc(n * sizeof *wr.widths);
        wr.facts = c->facts = cl_take(c, n * sizeof *wr.facts);
    }
    bool ok = false;
    if (!wr.kinds || !wr.widths || !wr.facts) {
        c->nomem = true;
        goto done;
    }
    cl_wrap_scan_init(&wr.ws);
    wrap_read_lines(&wr);
    if (!wrap_decide(&wr)) {
        ok = true;
        goto done;
    }
    if (wr.word) {
        wr.wgh = calloc(n, 1); /* without it, each is asked as before */
        wr.wrap_width = word_wrap_width(&wr, wr.word_est);
    }
    if (wr.hanging)
        wr.hang_width = wr.hang_est;
    wr.formatted = has_formatted_details(&wr);
    ok = wrap_join_all(&wr);
done:
    free(wr.kinds);
    free(wr.widths);
    free(wr.wgh);
    if (!ok) {
        free(c->facts);
        c->facts = NULL;
    }
    return ok;
}
