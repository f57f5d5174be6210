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

#define WRAP_MIN_WIDTH 40 /* shorter lines are never taken for wrapped ones */
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

/* A line made only of tree-prefix characters: a deep node cut inside its prefix. */
static bool prefix_only(const struct cl_line *l)
{
    if (!l->len)
        return false;
    for (uint32_t i = 0; i < l->len; i++)
        if (l->p[i] != ' ' && l->p[i] != ':' && l->p[i] != '+' && l->p[i] != '-')
            return false;
    return true;
}

/* The rest of a cut line starts at column 0, or just after it when the cut fell before a
 * space; an indented line is the plan's own (an indentation-only tree, a literal). */
static bool terminal_follower(const struct cl_line *head, const struct cl_line *next,
                              enum cl_kind next_kind)
{
    if (continues(next_kind))
        return cl_indent(next->p, next->len) <= 2;
    return prefix_only(head) && next_kind != K_BLANK;
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
    if (after_header && f->kind == K_OTHER && cl_indent(head->p, head->len) == 0)
        return 1;
    return 0;
}

static bool hanging_follower(uint32_t col, const struct cl_line *next, enum cl_kind next_kind)
{
    return col && continues(next_kind) && cl_indent(next->p, next->len) >= col;
}

/* Word wrap is only undone on plan lines: a tree line, a details field, a plan's root. */
static bool word_head(const struct cl_line *head, const struct cl_facts *f, bool after_header)
{
    if (f->kind == K_TREE)
        return !f->aqe_header;
    return f->kind == K_FIELD ||
           (after_header && f->kind == K_OTHER && cl_indent(head->p, head->len) == 0);
}

static bool word_follower(const struct cl_line *next, enum cl_kind next_kind)
{
    return continues(next_kind) && next->len && next->p[0] != ' ';
}

void cl_wrap_scan_init(struct cl_wrap_scan *ws)
{
    memset(ws, 0, sizeof *ws);
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
    }
    if (prev_w >= WRAP_MIN_WIDTH) {
        /* Evidence comes from plan lines only: prose in a .sql.out file repeats itself, and
           two copies of its widest line prove nothing. */
        bool plan_line = (prev_kind == K_TREE && !prev_f->aqe_header) || prev_kind == K_FIELD ||
                         prev_kind == K_DETAILS || (ws->prev_after_header && prev_kind == K_OTHER) ||
                         prefix_only(prev);
        if (prev_w == ws->max_w && plan_line && terminal_follower(prev, cur, cur_kind)) {
            ws->at_max++;
            if (prev->len && cur->len && is_word_char(prev->p[prev->len - 1]) &&
                is_word_char(cur->p[0]))
                ws->at_max_midword++;
        }
        if (hanging_follower(hanging_col(prev, prev_f, ws->prev_after_header), cur, cur_kind))
            ws->hanging++;
        if (prev_w <= WORD_WRAP_MAX_WIDTH && word_head(prev, prev_f, ws->prev_after_header) &&
            word_follower(cur, cur_kind))
            ws->word_pairs++;
    }
    ws->prev_after_header = prev_kind == K_HEADER && cl_is_plan_header(prev->p, prev->len);
    ws->last_w = cur_w;
}

static bool terminal_evidence(const struct cl_wrap_scan *ws)
{
    if (ws->max_w < WRAP_MIN_WIDTH || ws->last_w > ws->max_w)
        return false;
    /* One cut line splitting a word is a terminal's, unless broken lines that ended at a
       space (word wrap) are the better explanation. */
    return ws->at_max >= 2 || (ws->at_max_midword >= 1 && ws->word_pairs < 2);
}

bool cl_wrap_scan_dirty(const struct cl_wrap_scan *ws)
{
    return terminal_evidence(ws) || ws->word_pairs >= 2 || ws->hanging >= 1;
}

enum join { J_NONE, J_RAW, J_SPACE };

static bool after_plan_header(const struct cl_line *v, const unsigned char *kinds, size_t i)
{
    return kinds[i - 1] == K_HEADER && cl_is_plan_header(v[i - 1].p, v[i - 1].len);
}

bool cl_step_wrap(struct cleaner *c)
{
    size_t n = c->lines.n;
    if (n < 2)
        return true;
    struct cl_line *v = c->lines.v;
    unsigned char *kinds = malloc(n);
    uint32_t *widths = malloc(n * sizeof *widths);
    struct cl_facts *facts = malloc(n * sizeof *facts);
    struct cl_lines out = {0};
    bool ok = false;
    if (!kinds || !widths || !facts) {
        c->nomem = true;
        goto done;
    }
    struct cl_wrap_scan ws;
    cl_wrap_scan_init(&ws);
    struct cl_line none = {"", 0, 0};
    struct cl_facts none_f = {K_BLANK, 0, 0, 0, false, false};
    for (size_t i = 0; i < n; i++) {
        cl_facts(v[i].p, v[i].len, &facts[i]);
        kinds[i] = (unsigned char)facts[i].kind;
        widths[i] = cl_width(v[i].p, v[i].len);
        cl_wrap_scan_line(&ws, i ? &v[i - 1] : &none, i ? &facts[i - 1] : &none_f,
                          i ? widths[i - 1] : 0, &v[i], &facts[i], widths[i]);
    }
    bool terminal = terminal_evidence(&ws);
    bool word = !terminal && ws.word_pairs >= 2;
    bool hanging = ws.hanging >= 1;
    if (!terminal && !word && !hanging) {
        ok = true;
        goto done;
    }
    /* Word wrap: only lines near the widest broken line count as broken. */
    uint32_t word_min = WRAP_MIN_WIDTH;
    if (word) {
        uint32_t widest = 0;
        for (size_t i = 0; i + 1 < n; i++)
            if (widths[i] >= WRAP_MIN_WIDTH && widths[i] <= WORD_WRAP_MAX_WIDTH &&
                word_head(&v[i], &facts[i], i > 0 && after_plan_header(v, kinds, i)) &&
                word_follower(&v[i + 1], (enum cl_kind)kinds[i + 1]) && widths[i] > widest)
                widest = widths[i];
        if (widest > WRAP_MIN_WIDTH + 30)
            word_min = widest - 30;
    }
    uint32_t joined = 0, first_line = 0;
    size_t i = 0;
    while (i < n) {
        bool after_header = i > 0 && after_plan_header(v, kinds, i);
        uint32_t hcol = hanging && widths[i] >= WRAP_MIN_WIDTH
                            ? hanging_col(&v[i], &facts[i], after_header)
                            : 0;
        bool word_group = word && word_head(&v[i], &facts[i], after_header);
        size_t last = i;
        size_t total = v[i].len; /* + 1 a joined line: its separator */
        /* Bound: last only moves forward; the outer loop resumes after the group. */
        while (last + 1 < n) {
            size_t nx = last + 1;
            enum cl_kind nk = (enum cl_kind)kinds[nx];
            enum join j = J_NONE;
            if (terminal && widths[last] == ws.max_w && terminal_follower(&v[last], &v[nx], nk))
                j = J_RAW;
            else if (hanging_follower(hcol, &v[nx], nk))
                j = J_SPACE;
            else if (word_group && widths[last] >= word_min &&
                     widths[last] <= WORD_WRAP_MAX_WIDTH && word_follower(&v[nx], nk))
                j = J_SPACE;
            if (j == J_NONE)
                break;
            total += (size_t)v[nx].len + 1;
            last = nx;
            /* Remember how to join in the kind byte of the follower: it is not read again. */
            kinds[nx] = (unsigned char)(j == J_RAW ? 0x80 : 0x40);
        }
        if (last == i) {
            if (!cl_push(c, &out, v[i].p, v[i].len, v[i].orig))
                goto done;
            i++;
            continue;
        }
        char *buf = cl_alloc(c, total);
        if (!buf)
            goto done;
        size_t o = 0;
        memcpy(buf, v[i].p, v[i].len);
        o = v[i].len;
        for (size_t m = i + 1; m <= last; m++) {
            const char *p = v[m].p;
            uint32_t len = v[m].len;
            /* Spark prints " (N)": an id cut off at the start of a line lost its space. */
            if (kinds[m] == 0x80 && len && p[0] == '(' && o && buf[o - 1] != ' ' &&
                cl_kind(p, len) == K_DETAILS)
                buf[o++] = ' ';
            if (kinds[m] == 0x40) {
                while (o && (buf[o - 1] == ' ' || buf[o - 1] == '\t'))
                    o--;
                uint32_t ind = cl_indent(p, len);
                p += ind;
                len -= ind;
                buf[o++] = ' ';
            }
            memcpy(buf + o, p, len);
            o += len;
        }
        if (!cl_push(c, &out, buf, o, v[i].orig))
            goto done;
        if (!joined)
            first_line = v[i].orig;
        joined += (uint32_t)(last - i);
        i = last + 1;
    }
    if (joined) {
        document_warn(c->doc, first_line, "%u wrapped line%s joined to the line before", joined,
                      joined == 1 ? "" : "s");
        c->changed |= CL_WRAP;
        cl_replace(c, &out);
    }
    ok = true;
done:
    cl_lines_free(&out);
    free(kinds);
    free(widths);
    free(facts);
    return ok;
}
