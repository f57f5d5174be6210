/* view_details.c: the details pane — the selected node once, as a bold heading (the
 * formatted-mode details header "(90) Sort [codegen id : 25]", else the node's text), its
 * findings, Spark's fields, statistics, codegen stage, input line and source, every line
 * after the heading labelled — with a line cursor when focused, and node references
 * (Reuses operator id: 9, Hosting operator id = 3) that Enter follows.  Long lines wrap
 * at spaces, '/', ',', '(' and '[', their continuations aligned under the field's value.  Lines are built once per
 * node and width (prepare), drawn many times.  The split view of the stack (view.h); its
 * state (the lines, the cursor) is its own. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/clip.h"
#include "sparkplan/draw.h"
#include "sparkplan/evview.h"
#include "sparkplan/insight.h"
#include "sparkplan/listbox.h"
#include "sparkplan/opclass.h"
#include "sparkplan/tui.h"

/* A node's text or details block longer than this is shown cut, with a note.  64 KB, the
 * tree's own cap on a row (WRAP_MAX_BYTES), wraps to about a thousand lines of the pane;
 * 256 KB took 17 % of the time to the first screen of a plan with a 50 MB line (wrapping
 * measures every character), for lines nobody scrolls to. */
#define DETAILS_MAX_BYTES (64 * 1024)

/* One display line of the details pane. */
struct dline {
    const char *ptr;              /* text in the document, or NULL: pooled */
    size_t off;                   /* pooled: offset in pool (which may move) */
    uint32_t len;
    uint8_t role;                 /* enum role */
    bool strong;                  /* the node's heading: drawn bold */
    bool cont;                    /* a wrapped line's continuation: drawn indented */
    uint8_t indent;               /* a continuation's columns before its text */
    uint16_t key_len;             /* bytes at the start drawn as a field name */
    int32_t link;                 /* formatted id this line refers to, -1 when none */
    int32_t link_at, link_len;    /* where the reference is in this line (-1: not here) */
};

/* The view's state: the lines of `node`, wrapped to `width`, and the line cursor. */
struct details {
    struct dline *lines;
    size_t n_lines, cap_lines;
    char *pool;                   /* generated lines */
    size_t pool_len, pool_cap;
    const struct plan_node *node;
    unsigned gen;                 /* t->details_gen the lines were built for */
    unsigned rev;                 /* and t->details_rev */
    int width;
    struct listbox lb;            /* sel: the cursor (drawn with focus); top */
};

static const char *const link_patterns[] = {"Reuses operator id: ", "Hosting operator id = "};

int32_t details_find_link(const char *s, size_t len, size_t *at, size_t *n)
{
    struct slice hay = slice_make(s, len);
    for (size_t p = 0; p < sizeof link_patterns / sizeof link_patterns[0]; p++) {
        long i = slice_find(hay, link_patterns[p]);
        if (i < 0)
            continue;
        size_t j = (size_t)i + strlen(link_patterns[p]);
        int32_t id = 0;
        size_t digits = 0;
        while (j < len && s[j] >= '0' && s[j] <= '9' && digits < 9) {
            id = id * 10 + (s[j] - '0');
            j++, digits++;
        }
        if (digits == 0)
            continue;
        if (at)
            *at = (size_t)i;
        if (n)
            *n = j - (size_t)i;
        return id;
    }
    return -1;
}

/* Does title hold token (not followed by another digit)? */
static bool title_names(struct slice title, const char *token, size_t n)
{
    const char *p = title.ptr, *end = title.ptr + title.len;
    while ((size_t)(end - p) >= n) { /* one header line */
        const char *hit = memchr(p, token[0], (size_t)(end - p) - n + 1);
        if (!hit)
            return false;
        if (memcmp(hit, token, n) == 0 && (hit + n == end || hit[n] < '0' || hit[n] > '9'))
            return true;
        p = hit + 1;
    }
    return false;
}

/* A subquery named in a line ("scalar-subquery#51", "dynamicpruning#12", "Subquery
 * subquery#7"): the formatted id of the root of the subquery section whose header names
 * it, or -1.  *at and *n say where the name is. */
static int32_t subquery_link(const struct plan_node *node, const char *s, size_t len,
                             size_t *at, size_t *n)
{
    if (!node || !node->section || !node->section->plan)
        return -1;
    static const char *const kinds[] = {"scalar-subquery#", "dynamicpruning#", "subquery#"};
    struct slice hay = slice_make(s, len);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        long i = slice_find(hay, kinds[k]);
        if (i < 0)
            continue;
        size_t j = (size_t)i + strlen(kinds[k]);
        while (j < len && s[j] >= '0' && s[j] <= '9')
            j++;
        if (j == (size_t)i + strlen(kinds[k]) || j - (size_t)i > 40)
            continue;
        char token[48];
        memcpy(token, s + i, j - (size_t)i);
        token[j - (size_t)i] = '\0';
        for (const struct plan_section *sec = node->section->plan->first_section; sec;
             sec = sec->next) /* a plan has a few sections */
            if (sec->kind == SECTION_SUBQUERY && sec != node->section && sec->first_root &&
                sec->first_root->id >= 0 && title_names(sec->title, token, j - (size_t)i)) {
                *at = (size_t)i;
                *n = j - (size_t)i;
                return sec->first_root->id;
            }
    }
    return -1;
}

static const char *line_text(const struct details *ds, const struct dline *d)
{
    return d->ptr ? d->ptr : ds->pool + d->off;
}

static bool add_dline(struct details *ds, struct dline d)
{
    if (ds->n_lines == ds->cap_lines) {
        size_t cap = ds->cap_lines ? ds->cap_lines * 2 : 128;
        struct dline *nd = realloc(ds->lines, cap * sizeof *nd);
        if (!nd)
            return false;
        ds->lines = nd;
        ds->cap_lines = cap;
    }
    ds->lines[ds->n_lines++] = d;
    return true;
}

/* Copy a generated line into the pool; returns its offset, or (size_t)-1. */
static size_t pool_add(struct details *ds, const char *s, size_t len)
{
    if (ds->pool_len + len + 1 > ds->pool_cap) {
        size_t cap = ds->pool_cap ? ds->pool_cap : 1024;
        while (cap < ds->pool_len + len + 1)
            cap *= 2;
        char *np = realloc(ds->pool, cap);
        if (!np)
            return (size_t)-1;
        ds->pool = np;
        ds->pool_cap = cap;
    }
    size_t off = ds->pool_len;
    memcpy(ds->pool + off, s, len);
    ds->pool[off + len] = '\0';
    ds->pool_len += len + 1;
    return off;
}

/* Continuation lines of a wrapped line are indented by this many columns, or aligned
 * under the field's value ("Output [2]: [" ) when that leaves half the pane. */
#define WRAP_INDENT 2

static int continuation_indent(const char *text, size_t len, size_t key_len, int width)
{
    if (key_len == 0 || key_len >= len || text[key_len] != ':')
        return WRAP_INDENT;
    size_t v = key_len + 1;
    while (v < len && text[v] == ' ')
        v++;
    if (v < len && (text[v] == '[' || text[v] == '('))
        v++;
    int cols = draw_width(slice_make(text, v), true);
    return cols <= width / 2 && cols < 200 ? cols : WRAP_INDENT;
}

/* One logical line, wrapped to the pane width into display lines. */
static void add_logical_as(struct details *ds, const char *ptr, size_t off, size_t len,
                           enum role role, size_t key_len, bool strong)
{
    const char *text = ptr ? ptr : ds->pool + off;
    size_t at = 0, n = 0;
    int32_t link = details_find_link(text, len, &at, &n);
    if (link < 0) /* Enter on a subquery's name goes to its section */
        link = subquery_link(ds->node, text, len > 4096 ? 4096 : len, &at, &n);
    int width = ds->width > 4 + WRAP_INDENT ? ds->width : 4 + WRAP_INDENT;
    int indent = continuation_indent(text, len, key_len, width);
    size_t done = 0;
    do { /* one pass over the line */
        text = ptr ? ptr : ds->pool + off; /* the pool does not move while wrapping */
        struct slice rest = slice_make(text + done, len - done);
        bool cont = done > 0;
        size_t take = draw_wrap(rest, cont ? width - indent : width, WRAP_PATHS);
        struct dline d = {.ptr = ptr ? ptr + done : NULL,
                          .off = ptr ? 0 : off + done,
                          .len = (uint32_t)take,
                          .role = (uint8_t)role,
                          .strong = strong,
                          .cont = cont,
                          .indent = (uint8_t)indent,
                          .key_len = (uint16_t)(key_len > done ? (key_len - done < take ? key_len - done : take) : 0),
                          .link = link,
                          .link_at = -1,
                          .link_len = 0};
        if (link >= 0 && at + n > done && at < done + take) {
            size_t s = at > done ? at - done : 0;
            size_t e = at + n < done + take ? at + n - done : take;
            d.link_at = (int32_t)s;
            d.link_len = (int32_t)(e - s);
        }
        if (!add_dline(ds, d))
            return;
        done += take;
    } while (done < len);
}

static void add_logical(struct details *ds, const char *ptr, size_t off, size_t len, enum role role,
                        size_t key_len)
{
    add_logical_as(ds, ptr, off, len, role, key_len, false);
}

static void add_generated(struct details *ds, enum role role, size_t key_len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_generated(struct details *ds, enum role role, size_t key_len, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    size_t off = pool_add(ds, buf, len);
    if (off != (size_t)-1)
        add_logical(ds, NULL, off, len, role, key_len);
}

static void add_line(struct details *ds, enum role role, size_t key_len, const char *text)
{
    size_t len = strlen(text);
    size_t off = pool_add(ds, text, len);
    if (off != (size_t)-1)
        add_logical(ds, NULL, off, len, role, key_len);
}

/* Every line of text as its own logical line; field names ("Output [2]") as keys; the
 * first line drawn bold when it is the node's heading. */
static void add_block(struct details *ds, struct slice text, enum role role, bool keys, bool heading)
{
    size_t len = text.len > DETAILS_MAX_BYTES ? DETAILS_MAX_BYTES : text.len;
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(text.ptr + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text.ptr) : len;
        size_t key_len = 0;
        if (keys) {
            const char *colon = memchr(text.ptr + i, ':', end - i);
            if (colon && colon - (text.ptr + i) < 40 && text.ptr[i] != '(')
                key_len = (size_t)(colon - (text.ptr + i));
        }
        add_logical_as(ds, text.ptr + i, 0, end - i, role, key_len, heading && i == 0);
        i = end + 1;
    }
    if (len < text.len)
        add_generated(ds, ROLE_HINT, 0, "... (%zu more bytes not shown)", text.len - len);
}

/* "Label: value" as one line, the label drawn as a field name; value capped at 4 KiB. */
static void add_labelled(struct details *ds, const char *label, struct slice value)
{
    size_t k = strlen(label), len = value.len > 4096 ? 4096 : value.len;
    char *line = malloc(k + 2 + len + 1);
    if (!line)
        return;
    memcpy(line, label, k);
    memcpy(line + k, ": ", 2);
    memcpy(line + k + 2, value.ptr, len);
    line[k + 2 + len] = '\0';
    add_line(ds, ROLE_NORMAL, k, line);
    free(line);
}

static void human_bytes(double b, char *buf, size_t cap)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024 && u < 6) {
        b /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", b, units[u]);
}

/* The heading of a formatted-mode node: the details header "(10) BroadcastHashJoin
 * [codegen id : 2]" with what the tree line adds to the name put in after it, from
 * "BroadcastHashJoin Inner BuildRight (10)": "(10) BroadcastHashJoin Inner BuildRight
 * [codegen id : 2]".  Pooled; false when the two lines do not have those shapes. */
static bool add_merged_heading(struct details *ds, const struct plan_node *n, struct slice head,
                               enum role role)
{
    char id[16];
    int k = snprintf(id, sizeof id, "(%d) ", n->id);
    struct slice name = slice_trim(plan_node_name(n)), tree = slice_trim(plan_node_text(n));
    size_t idk = (size_t)k;
    if (n->id < 0 || name.len == 0 || head.len < idk + name.len ||
        memcmp(head.ptr, id, idk) != 0 || memcmp(head.ptr + idk, name.ptr, name.len) != 0)
        return false;
    /* The tree line: name, what it adds, " (10)". */
    if (tree.len < name.len + idk || memcmp(tree.ptr, name.ptr, name.len) != 0 ||
        memchr(tree.ptr, '\n', tree.len) != NULL)
        return false;
    struct slice suffix = slice_make(tree.ptr + tree.len - idk, idk);
    if (suffix.ptr[0] != ' ' || memcmp(suffix.ptr + 1, id, idk - 1) != 0)
        return false;
    struct slice adds = slice_make(tree.ptr + name.len, (size_t)(suffix.ptr - tree.ptr) - name.len);
    struct slice rest = slice_make(head.ptr + idk + name.len, head.len - idk - name.len);
    size_t len = idk + name.len + adds.len + rest.len;
    char *line = malloc(len + 1);
    if (!line)
        return false;
    char *p = line;
    memcpy(p, id, idk), p += idk;
    memcpy(p, name.ptr, name.len), p += name.len;
    memcpy(p, adds.ptr, adds.len), p += adds.len;
    memcpy(p, rest.ptr, rest.len), p += rest.len;
    size_t off = pool_add(ds, line, len);
    free(line);
    if (off == (size_t)-1)
        return false;
    add_logical_as(ds, NULL, off, len, role, 0, true);
    return true;
}

static void add_wrapped(struct details *ds, enum role role, const char *text, int indent)
{
    struct insight_text lines;
    int width = ds->width > 12 ? ds->width - 1 : 12;
    if (!insight_wrap_text(text, width, indent, &lines))
        return;
    for (size_t i = 0; i < lines.n_lines; i++)
        add_line(ds, role, 0, lines.lines[i]);
    insight_text_free(&lines);
}

static void add_insight(struct details *ds, const struct tui *t, const struct plan_node *n)
{
    const struct analysis *a = jobs_known(&t->ws.jobs, n->section->plan->doc);
    size_t k = 0;
    struct finding *const *f = a ? analysis_node_findings(a, n, &k) : NULL;
    if (k) {
        add_line(ds, ROLE_NORMAL, 0, "");
        add_line(ds, ROLE_TITLE, 0, k == 1 ? "Finding" : "Findings");
        for (size_t i = 0; i < k; i++) {
            const struct rule *r = &analyze_rules[f[i]->rule];
            char line[600];
            snprintf(line, sizeof line, "%s %s %s: %s", f[i]->severity == SEVERITY_WARNING ? "!" : "i",
                     r->id, severity_name(f[i]->severity), f[i]->message);
            add_wrapped(ds, f[i]->severity == SEVERITY_WARNING ? ROLE_ERROR : ROLE_NORMAL, line, 0);
            if (f[i]->severity == SEVERITY_WARNING)
                add_wrapped(ds, ROLE_HINT, r->todo, 2);
        }
    }
    if (!t->explain)
        return;
    add_line(ds, ROLE_NORMAL, 0, "");
    struct insight_text entry;
    int width = ds->width > 12 ? ds->width - 1 : 12;
    bool known = insight_format_entry(plan_node_name(n).len ? plan_node_name(n) : plan_node_text(n),
                                      width, &entry);
    for (size_t i = 0; i < entry.n_lines; i++) {
        const char *line = entry.lines[i];
        enum role role = ROLE_NORMAL;
        if (i == 0 || strcmp(line, "What it does") == 0 || strcmp(line, "What to check") == 0)
            role = ROLE_TITLE;
        add_line(ds, role, 0, line);
    }
    if (!known)
        add_line(ds, ROLE_HINT, 0, "(its text above is all there is to go on)");
    insight_text_free(&entry);
}

/* An event log's metrics of the node, as the Spark UI labels them, then its runtime
 * findings (evview.h), under a title of their own. */
struct metric_lines {
    struct details *ds;
    bool titled;
};

static void add_metric_line(void *ctx, size_t key_len, const char *text)
{
    struct metric_lines *m = ctx;
    if (!m->titled) {
        add_line(m->ds, ROLE_NORMAL, 0, "");
        add_line(m->ds, ROLE_TITLE, 0, "Metrics (as the Spark UI shows them)");
        m->titled = true;
    }
    bool finding = key_len == 5 && strncmp(text, "SP0", 3) == 0;
    add_line(m->ds, finding ? ROLE_ERROR : ROLE_NORMAL, key_len, text);
}

/* The node once, as its heading: the details block's header line when there is one
 * ("(90) Sort [codegen id : 25]": id, name, stage, reference), else its own text.  Then
 * its findings (and the explanation with i), Spark's fields, and where it comes from;
 * every line after the heading carries a label. */
static void build(struct details *ds, const struct tui *t, const struct plan_node *n)
{
    ds->n_lines = 0;
    ds->pool_len = 0;
    if (t->narration[0]) { /* the guided walk's step, wrapped, above the node */
        add_line(ds, ROLE_TITLE, 0, t->narration);
        add_line(ds, ROLE_NORMAL, 0, "");
    }
    enum role role = tree_node_role(n);
    struct slice fields = {0};
    if (plan_node_details_text(n).len) {
        const char *nl = memchr(plan_node_details_text(n).ptr, '\n', plan_node_details_text(n).len);
        size_t head =
            nl ? (size_t)(nl - plan_node_details_text(n).ptr) : plan_node_details_text(n).len;
        struct slice header = slice_make(plan_node_details_text(n).ptr, head > 4096 ? 4096 : head);
        if (nl)
            fields = slice_make(nl + 1, plan_node_details_text(n).len - head - 1);
        if (!add_merged_heading(ds, n, header, role)) {
            /* Unusual shapes: the header, then the tree line, labelled. */
            add_logical_as(ds, header.ptr, 0, header.len, role, 0, true);
            add_labelled(ds, "Tree line",
                         plan_node_text(n).len ? plan_node_text(n) : plan_node_name(n));
        }
    } else {
        add_block(ds, plan_node_text(n).len ? plan_node_text(n) : plan_node_name(n), role, false,
                  true);
    }
    if (n->flags & NODE_TRUNCATED)
        add_generated(ds, ROLE_HINT, 0, "(the plan printed this node's text cut short)");
    /* A subquery's header names the operator that hosts it ("Hosting operator id = 3"). */
    if (!plan_node_parent(n) && n->section->title.len &&
        (n->section->kind == SECTION_SUBQUERY || n->section->kind == SECTION_CODEGEN))
        add_labelled(ds, "Section", n->section->title);
    add_insight(ds, t, n); /* findings, and with i the operator's explanation */
    if (t->ev) {
        struct metric_lines m = {ds, false};
        evview_details(t->ev, n, add_metric_line, &m);
    }
    while (fields.len && (fields.ptr[fields.len - 1] == '\n' || fields.ptr[fields.len - 1] == ' '))
        fields.len--;
    if (fields.len) {
        add_generated(ds, ROLE_NORMAL, 0, "%s", "");
        add_block(ds, fields, ROLE_NORMAL, true, false);
    } else if (!plan_node_details_text(n).len && n->n_details) {
        add_generated(ds, ROLE_NORMAL, 0, "%s", "");
        struct plan_details it;
        struct plan_detail d;
        plan_details_init(&it, n);
        while (plan_details_next(&it, &d)) { /* the node's fields */
            size_t klen = d.key.len;
            add_generated(ds, ROLE_NORMAL, klen, "%.*s:%.*s", (int)d.key.len, d.key.ptr,
                          (int)(d.value.len > 400 ? 400 : d.value.len), d.value.ptr);
        }
    }
    add_generated(ds, ROLE_NORMAL, 0, "%s", "");
    struct plan_stats st;
    if (plan_node_stats(n, &st)) {
        char size[32] = "", rows[48] = "";
        if (st.has_size)
            human_bytes(st.size_bytes, size, sizeof size);
        if (st.has_rows)
            snprintf(rows, sizeof rows, "%.0f", st.row_count);
        add_generated(ds, ROLE_NORMAL, 10, "Statistics: %s%s%s%s%s", st.has_size ? "size " : "",
                      size, st.has_size && st.has_rows ? ", " : "",
                      st.has_rows ? "rows " : "", rows);
    }
    char label[16];
    if (n->stage == 0)
        add_generated(ds, ROLE_NORMAL, 13, "Codegen stage: * (its number was not printed)");
    else if (n->stage > 0)
        add_generated(ds, ROLE_NORMAL, 13, "Codegen stage: %s",
                      tree_stage_label(n, label, sizeof label));
    else
        add_generated(ds, ROLE_NORMAL, 13, "Codegen stage: none");
    if (plan_node_details_line(n))
        add_generated(ds, ROLE_NORMAL, 10, "Input line: %u (details at line %u)", n->line,
                      plan_node_details_line(n));
    else
        add_generated(ds, ROLE_NORMAL, 10, "Input line: %u", n->line);
    /* The document's name: a path, "stdin", "paste 2". */
    add_labelled(ds, "Source", slice_cstr(n->section->plan->doc->name));
    /* And where in it the plan came from: a notebook cell, a query, a log record. */
    char where[320];
    plan_source_describe(&n->section->plan->source, where, sizeof where);
    if (where[0])
        add_labelled(ds, "From", slice_cstr(where));
}

static void draw_frame(const struct tui *t)
{
    const struct layout *L = &t->L;
    bool focused = t->focus == FOCUS_DETAILS;
    attr_t border = theme_attr(focused ? ROLE_TITLE : ROLE_BORDER, VAR_PLAIN);
    if (L->det_side) {
        /* UTF-8 box drawing rather than ACS: some terminals (and tmux captures) show the
         * alternate character set as letters. */
        for (int i = 0; i < L->det_h; i++) {
            struct draw_line dl;
            draw_line_start(&dl, L->det_y + i, L->det_x - 1, 1, 0);
            draw_puts(&dl, t->ws.utf8 && !t->ascii ? "\xE2\x94\x82" : "|", border);
        }
    } else {
        struct draw_line dl;
        draw_line_start(&dl, L->det_y - 1, L->det_x, L->det_w, 0);
        const char *rule = t->ws.utf8 && !t->ascii ? "\xE2\x94\x80" : "-";
        draw_puts(&dl, rule, border);
        draw_puts(&dl, rule, border);
        draw_puts(&dl, focused ? " Details (Esc: back to the tree) " : " Details (Enter) ", border);
        while (dl.x < dl.limit) /* bounded by the width */
            draw_puts(&dl, rule, border);
    }
}

/* text with the matches of the search pattern (pat, may be NULL) in hl. */
static void put_matches(struct draw_line *dl, struct slice text, attr_t attr, attr_t hl,
                        const char *pat)
{
    size_t m = pat ? strlen(pat) : 0;
    bool fold = true;
    for (const char *p = pat; p && *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            fold = false;
    size_t from = 0;
    for (size_t i = 0; m && i + m <= text.len;) { /* one display line */
        size_t k = 0;
        while (k < m) {
            unsigned char c = (unsigned char)text.ptr[i + k];
            if (fold && c >= 'A' && c <= 'Z')
                c = (unsigned char)(c + 32);
            if (c != (unsigned char)pat[k])
                break;
            k++;
        }
        if (k < m) {
            i++;
            continue;
        }
        draw_put(dl, slice_make(text.ptr + from, i - from), attr, true);
        draw_put(dl, slice_make(text.ptr + i, m), hl, true);
        i += m;
        from = i;
    }
    draw_put(dl, slice_make(text.ptr + from, text.len - from), attr, true);
}

static void draw_dline(const struct details *ds, const struct dline *d, struct draw_line *dl,
                       enum variant v, const char *pat)
{
    const char *text = line_text(ds, d);
    draw_puts(dl, " ", theme_attr(ROLE_NORMAL, v));
    for (int i = 0; d->cont && i < d->indent; i++) /* at most half the pane */
        draw_puts(dl, " ", theme_attr(ROLE_NORMAL, v));
    attr_t bold = d->strong ? A_BOLD : 0;
    size_t pos = 0;
    if (d->key_len) {
        draw_put(dl, slice_make(text, d->key_len), theme_attr(ROLE_KEY, v), true);
        pos = d->key_len;
    }
    if (d->link_at >= 0 && (size_t)d->link_at >= pos) {
        draw_put(dl, slice_make(text + pos, (size_t)d->link_at - pos),
                 theme_attr((enum role)d->role, v) | bold, true);
        draw_put(dl, slice_make(text + d->link_at, (size_t)d->link_len),
                 theme_attr(ROLE_LINK, v) | bold, true);
        pos = (size_t)(d->link_at + d->link_len);
    }
    put_matches(dl, slice_make(text + pos, d->len - pos), theme_attr((enum role)d->role, v) | bold,
                theme_attr(ROLE_MATCH, v), pat);
    draw_fill(dl, theme_attr(ROLE_NORMAL, v));
}

static void details_draw(const struct tui *t, const void *state)
{
    const struct details *ds = state;
    const struct layout *L = &t->L;
    if (!L->det_visible || L->det_w <= 0 || L->det_h <= 0)
        return;
    if (!L->det_side && L->tree_h == 0)
        draw_clear(L->det_y - 1, 0, 1, COLS, theme_attr(ROLE_NORMAL, VAR_PLAIN));
    draw_frame(t);
    bool focused = t->focus == FOCUS_DETAILS;
    for (int row = 0; row < L->det_h; row++) {
        size_t i = ds->lb.top + (size_t)row;
        struct draw_line dl;
        draw_line_start(&dl, L->det_y + row, L->det_x, L->det_w, 0);
        if (t->ws.loading) { /* a preview: the node's details may lie past it */
            if (row == 0)
                draw_puts(&dl, t->ws.utf8 ? " loading\xE2\x80\xA6" : " loading...",
                          theme_attr(ROLE_HINT, VAR_PLAIN));
            draw_fill(&dl, theme_attr(ROLE_NORMAL, VAR_PLAIN));
        } else if (i >= ds->n_lines)
            draw_fill(&dl, theme_attr(ROLE_NORMAL, VAR_PLAIN));
        else
            draw_dline(ds, &ds->lines[i], &dl,
                       focused && i == ds->lb.sel ? VAR_SELECTED : VAR_PLAIN,
                       ws_tab_c(&t->ws)->rows.pattern);
    }
}

static void details_prepare(struct tui *t, void *state)
{
    struct details *ds = state;
    struct tab *tab = ws_tab(&t->ws);
    const struct plan_node *n = tab->rows.sel;
    int width = t->L.det_w - 1;
    bool same_node = n == ds->node && ds->gen == t->details_gen;
    ds->lb.rows = t->L.det_h > 0 ? (size_t)t->L.det_h : 1;
    if (same_node && width == ds->width && ds->rev == t->details_rev)
        return;
    ds->node = n;
    ds->gen = t->details_gen;
    ds->rev = t->details_rev;
    ds->width = width;
    ds->n_lines = 0;
    ds->lb.n = 0;
    if (!n)
        return;
    build(ds, t, n);
    ds->lb.n = ds->n_lines;
    if (!same_node) {
        ds->lb.top = 0;
        ds->lb.sel = 0;
        /* Start on the first reference, so Enter Enter follows it. */
        for (size_t i = 0; i < ds->n_lines; i++)
            if (ds->lines[i].link >= 0) {
                ds->lb.sel = i;
                break;
            }
    }
    if (ds->lb.sel >= ds->n_lines)
        ds->lb.sel = ds->n_lines ? ds->n_lines - 1 : 0;
    if (ds->lb.top > ds->lb.sel) /* fewer lines than before (a rebuild keeps the place) */
        ds->lb.top = ds->lb.sel;
    /* The cursor is only drawn with focus: without it the pane shows the heading. */
    if (t->focus == FOCUS_DETAILS && t->L.det_h > 0 &&
        ds->lb.sel >= ds->lb.top + (size_t)t->L.det_h)
        ds->lb.top = ds->lb.sel - (size_t)t->L.det_h + 1;
}

/* Hidden details are not built (a narrow screen): only once shown, or for a key. */
static void details_prepare_shown(struct tui *t, void *state)
{
    if (t->L.det_visible)
        details_prepare(t, state);
}

static int follow_link(struct tui *t, struct details *ds)
{
    if (ds->lb.sel >= ds->n_lines || ds->lines[ds->lb.sel].link < 0) {
        ws_message(&t->ws, true, "no node reference on this line");
        return RE_DRAW;
    }
    if (ws_goto_id(&t->ws, ds->lines[ds->lb.sel].link))
        return RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT;
    return RE_DRAW | RE_LAYOUT;
}

/* The details as shown, wrapped lines joined again, to $PAGER. */
static int pipe_details(struct tui *t, const struct details *ds)
{
    size_t cap = 1;
    for (size_t i = 0; i < ds->n_lines; i++)
        cap += ds->lines[i].len + 1;
    char *buf = malloc(cap);
    if (!buf) {
        ws_message(&t->ws, true, "out of memory");
        return RE_DRAW;
    }
    size_t n = 0;
    for (size_t i = 0; i < ds->n_lines; i++) {
        if (i > 0 && !ds->lines[i].cont)
            buf[n++] = '\n';
        memcpy(buf + n, line_text(ds, &ds->lines[i]), ds->lines[i].len);
        n += ds->lines[i].len;
    }
    buf[n++] = '\n';
    int re = clip_pipe(t, slice_make(buf, n));
    free(buf);
    return re;
}

static int details_key(struct tui *t, void *state, enum key_action a,
                       const struct input_event *ev)
{
    struct details *ds = state;
    details_prepare(t, ds);
    switch (a) {
    case KA_CLICK: {
        long row = ev->line - t->L.det_y;
        if (row >= 0 && ds->lb.top + (size_t)row < ds->n_lines) {
            ds->lb.sel = ds->lb.top + (size_t)row;
            return RE_FOCUS_DETAILS | RE_DRAW;
        }
        return RE_DRAW;
    }
    case KA_D_FOLLOW:
        return follow_link(t, ds);
    case KA_D_LEAVE:
        return RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT;
    case KA_PIPE:
        return pipe_details(t, ds);
    default: {
        long delta = listbox_delta(&ds->lb, a);
        if (!delta)
            return RE_PASS;
        listbox_move(&ds->lb, delta);
        return RE_DRAW;
    }
    }
}

static void *details_open(struct tui *t)
{
    (void)t;
    return calloc(1, sizeof(struct details));
}

static void details_close(struct tui *t, void *state)
{
    (void)t;
    struct details *ds = state;
    free(ds->lines);
    free(ds->pool);
    free(ds);
}

static struct view_area details_area(const struct tui *t)
{
    const struct layout *L = &t->L;
    if (!L->det_visible)
        return (struct view_area){0, 0, 0, 0};
    return (struct view_area){L->det_y, L->det_x, L->det_h, L->det_w};
}

const struct view_ops view_details = {
    .name = "details",
    .layer = LAYER_SPLIT,
    .keys = KCTX_DETAILS,
    .open = details_open,
    .close = details_close,
    .prepare = details_prepare_shown,
    .draw = details_draw,
    .key = details_key,
    .area = details_area,
};
