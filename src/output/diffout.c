/* diffout.c: `--diff` text and JSON (see diffout.h). */
#include "sparkplan/diffout.h"

#include <errno.h>
#include <string.h>

#include "sparkplan/sanitize.h"

#define MAX_INDENT 100

const char *diff_mark(enum diff_change c, bool utf8)
{
    switch (c) {
    case DIFF_CHANGED:
        return "~";
    case DIFF_REPLACED:
        return utf8 ? "\xe2\x87\x84" : "!";
    case DIFF_ADDED:
        return "+";
    case DIFF_REMOVED:
        return "-";
    case DIFF_MOVED:
        return utf8 ? "\xe2\x86\xb7" : ">";
    default:
        return " ";
    }
}

static enum sp_status write_status(FILE *f, struct diag *err)
{
    if (fflush(f) != 0 || ferror(f)) {
        diag_set(err, 0, "write error: %s", strerror(errno ? errno : EIO));
        return SP_ERR_IO;
    }
    return SP_OK;
}

/* The first line of a node's text, or a heading's title. */
static struct slice entry_line(const struct diff_entry *e, bool side_b)
{
    const struct plan_node *n = side_b ? e->b : e->a;
    const struct diff_part *p = side_b ? e->part_b : e->part_a;
    struct slice s = n ? plan_node_text(n) : p ? p->title : slice_make("", 0);
    const char *nl = s.len ? memchr(s.ptr, '\n', s.len) : NULL;
    if (nl)
        s.len = (size_t)(nl - s.ptr);
    return s;
}

static void indent(FILE *f, uint32_t depth)
{
    for (uint32_t d = 0; d < depth && d < MAX_INDENT; d++)
        fputs("  ", f);
    if (depth > MAX_INDENT)
        fprintf(f, "[depth %u] ", depth);
}

static void stage_prefix(FILE *f, const struct plan_node *n)
{
    if (n && n->stage > 0)
        fprintf(f, "*(%d) ", n->stage);
    else if (n && n->stage == 0)
        fputs("* ", f);
}

static void print_fields(FILE *f, const struct diff_entry *e)
{
    for (uint32_t i = 0; i < e->n_fields; i++) {
        const struct diff_field *fl = &e->fields[i];
        for (int side = 0; side < 2; side++) {
            bool has = side ? fl->has_b : fl->has_a;
            if (!has)
                continue;
            fputs("  ", f);
            indent(f, e->depth + 1);
            fputs(side ? "+ " : "- ", f);
            sanitize_fwrite(f, fl->key);
            fputs(": ", f);
            sanitize_fwrite(f, side ? fl->b : fl->a);
            fputc('\n', f);
        }
    }
}

static void print_entry(FILE *f, const struct diff_entry *e, const struct diffout_options *o,
                        bool folded)
{
    bool side_b = e->b || e->part_b;
    fputs(diff_mark(e->change, o->utf8), f);
    fputc(' ', f);
    indent(f, e->depth);
    stage_prefix(f, side_b ? e->b : e->a);
    sanitize_fwrite(f, entry_line(e, side_b));
    if (e->change == DIFF_REPLACED) {
        fputs("  [was: ", f);
        sanitize_fwrite(f, entry_line(e, false));
        fputc(']', f);
    }
    if (folded)
        fprintf(f, "  [=%u]", e->subtree_size);
    fputc('\n', f);
    print_fields(f, e);
}

enum sp_status diffout_text(FILE *f, const struct diff_result *r,
                            const struct diffout_options *o, struct diag *err)
{
    for (size_t k = 0; k < r->n; k++) {
        const struct diff_entry *e = &r->entries[k];
        bool folded = o->fold && e->subtree_same && e->subtree_size > 0;
        print_entry(f, e, o, folded);
        if (folded)
            k += e->subtree_size;
    }
    char sum[1024], ignored[160];
    diff_summary_format(&r->summary, o->utf8, sum, sizeof sum);
    const uint32_t *c = r->summary.count;
    fprintf(f, "diff: %s (%u same, %u changed, %u replaced, %u added, %u removed, %u moved; "
               "ignoring %s)\n",
            sum, c[DIFF_SAME], c[DIFF_CHANGED], c[DIFF_REPLACED], c[DIFF_ADDED],
            c[DIFF_REMOVED], c[DIFF_MOVED], diff_norm_format(r->norm, ignored, sizeof ignored));
    return write_status(f, err);
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_string(FILE *f, struct slice s)
{
    fputc('"', f);
    size_t i = 0;
    while (i < s.len) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            size_t j = i;
            while (j < s.len && (unsigned char)s.ptr[j] >= 0x20 && (unsigned char)s.ptr[j] < 0x7f &&
                   s.ptr[j] != '"' && s.ptr[j] != '\\')
                j++;
            fwrite(s.ptr + i, 1, j - i, f);
            i = j;
            continue;
        }
        uint32_t cp = c;
        size_t used = c >= 0x80 ? sanitize_utf8_len(s.ptr + i, s.len - i, &cp) : 1;
        if (c >= 0x80 && used && cp > 0x9f)
            fwrite(s.ptr + i, 1, used, f);
        else if (!used)
            fputs("\\ufffd", f), used = 1;
        else if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else
            fprintf(f, "\\u%04x", (unsigned)cp);
        i += used;
    }
    fputc('"', f);
}

static void json_side(FILE *f, const struct diff_entry *e, bool side_b)
{
    const struct plan_node *n = side_b ? e->b : e->a;
    const struct diff_part *p = side_b ? e->part_b : e->part_a;
    if (!n && !p) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"line\":%u,\"name\":", n ? n->line : p->line);
    json_string(f,
                n ? (plan_node_name(n).len ? plan_node_name(n) : entry_line(e, side_b)) : p->title);
    if (n && n->id >= 0)
        fprintf(f, ",\"id\":%d}", n->id);
    else
        fputs(",\"id\":null}", f);
}

static void json_entry(FILE *f, const struct diff_entry *e)
{
    fprintf(f, "{\"change\":\"%s\",\"a\":", diff_change_name(e->change));
    json_side(f, e, false);
    fputs(",\"b\":", f);
    json_side(f, e, true);
    fputs(",\"fields\":[", f);
    for (uint32_t i = 0; i < e->n_fields; i++) {
        const struct diff_field *fl = &e->fields[i];
        fputs(i ? ",{\"key\":" : "{\"key\":", f);
        json_string(f, fl->key);
        fputs(",\"a\":", f);
        if (fl->has_a)
            json_string(f, fl->a);
        else
            fputs("null", f);
        fputs(",\"b\":", f);
        if (fl->has_b)
            json_string(f, fl->b);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputs("]}", f);
}

static void json_ops(FILE *f, const char *key, const struct diff_op_count *ops, unsigned n,
                     bool pairs)
{
    fprintf(f, ",\"%s\":[", key);
    for (unsigned i = 0; i < n; i++) {
        fputs(i ? ",{" : "{", f);
        if (pairs) {
            fputs("\"a\":", f);
            json_string(f, slice_cstr(ops[i].a));
            fputs(",\"b\":", f);
            json_string(f, slice_cstr(ops[i].b));
        } else {
            fputs("\"name\":", f);
            json_string(f, slice_cstr(ops[i].a));
        }
        fprintf(f, ",\"count\":%u}", ops[i].count);
    }
    fputc(']', f);
}

static void json_summary(FILE *f, const struct diff_summary *s)
{
    fputc('{', f);
    for (int c = DIFF_SAME; c <= DIFF_MOVED; c++)
        fprintf(f, "%s\"%s\":%u", c ? "," : "", diff_change_name((enum diff_change)c),
                s->count[c]);
    char text[1024];
    diff_summary_format(s, 1, text, sizeof text);
    fputs(",\"text\":", f);
    json_string(f, slice_cstr(text));
    json_ops(f, "replacements", s->replaced, s->n_replaced, true);
    json_ops(f, "added_ops", s->added, s->n_added, false);
    json_ops(f, "removed_ops", s->removed, s->n_removed, false);
    fputc('}', f);
}

enum sp_status diffout_json(FILE *f, const struct diff_result *r, struct diag *err)
{
    fprintf(f, "{\"equal\":%s,\"summary\":", r->equal ? "true" : "false");
    json_summary(f, &r->summary);
    fputs(",\"nodes\":[", f);
    for (size_t k = 0; k < r->n; k++) {
        if (k)
            fputc(',', f);
        json_entry(f, &r->entries[k]);
    }
    fputs("]}\n", f);
    return write_status(f, err);
}
