/* libFuzzer target: bytes -> clean-up -> parser -> model.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined.  Besides crashes and
 * sanitizer reports it traps on broken model invariants: a load ends in SP_OK or
 * SP_ERR_NO_PLAN, every slice lies inside the text the parser read, depths follow parents,
 * line numbers stay within the input, the model finished from the builder's record of
 * node order is the one the walk over every node gives, and a parse that takes a details
 * list's blocks from a reader (parse_split_*) is the parse alone, and an input of one line
 * (a string decoded without an array of its lines, clean_literal.c) cleans up as the same
 * line behind a byte-order mark.  Not part of the Check runner (no main here).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/clean.h"
#include "sparkplan/emit.h"
#include "sparkplan/load.h"
#include "sparkplan/parse.h"
#include "sparkplan/source.h"

#include "fuzz.h"

static void check_slice(const struct document *doc, struct slice s)
{
    if (!s.len)
        return;
    check(s.ptr >= doc->src.text && s.ptr + s.len <= doc->src.text + doc->src.text_len);
}

/* The model document_finish took from the builder's record is the one its walk over every
   node gives (plan.h, plan_order_enable). */
static void same_as_the_walk(const struct document *doc, const uint8_t *data, size_t size)
{
    char *copy = fuzz_text(data, size);
    if (!copy)
        return;
    struct document *w = NULL;
    struct diag err = {0};
    plan_order_enable(false);
    enum sp_status s = load_bytes("fuzz", copy, size, &w, &err);
    plan_order_enable(true);
    check(s == SP_OK && w->n_all_nodes == doc->n_all_nodes);
    for (size_t i = 0; i < doc->n_all_nodes; i++) {
        const struct plan_node *a = document_node(doc, i), *b = document_node(w, i);
        check(a->line == b->line && a->depth == b->depth &&
              plan_node_preorder(a) == plan_node_preorder(b) &&
              a->subtree_size == b->subtree_size && a->id == b->id &&
              a->section->n_nodes == b->section->n_nodes);
    }
    for (const struct plan *p = doc->first_plan, *q = w->first_plan; p && q;
         p = p->next, q = q->next) {
        check(p->by_id_len == q->by_id_len);
        for (uint32_t k = 0; k < p->by_id_len; k++) {
            const struct plan_node *x = plan_node_find_by_id(p, (int32_t)k);
            const struct plan_node *y = plan_node_find_by_id(q, (int32_t)k);
            check(!x == !y && (!x || x->line == y->line));
        }
    }
    document_free(w);
}

/* The text read with a reader of its details list from a split point (parse.h,
   parse_split_*; the reader run first, on this thread) is the text read alone: every node's
   details, stage and flags, every plan's finality, every warning.  The input's first byte
   says where the split point is looked for. */
static void same_when_split(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    char *text = fuzz_text(data, size);
    if (!text)
        return;
    struct parse_split *sp = parse_split_new(text, size, (size_t)data[0] * size / 256);
    if (!sp) {
        free(text);
        return;
    }
    parse_split_read(sp);
    struct document *a = document_new("fuzz", NULL, 0), *b = document_new("fuzz", NULL, 0);
    if (a && b) {
        source_borrow(&a->src, text, size);
        source_borrow(&b->src, text, size);
        b->parse_split = sp;
        struct diag err = {0};
        enum sp_status sa = parse_document(a, &err), sb = parse_document(b, &err);
        b->parse_split = NULL;
        check(sa == sb);
        if (sa == SP_OK && document_finish(a) && document_finish(b)) {
            check(a->n_plans == b->n_plans && a->n_all_nodes == b->n_all_nodes &&
                  a->n_warnings == b->n_warnings);
            for (const struct plan *p = a->first_plan, *q = b->first_plan; p && q;
                 p = p->next, q = q->next)
                check(p->is_final == q->is_final && p->adaptive == q->adaptive);
            for (size_t i = 0; i < a->n_all_nodes; i++) {
                const struct plan_node *x = document_node(a, i), *y = document_node(b, i);
                check(x->id == y->id && x->stage == y->stage && x->flags == y->flags &&
                      x->n_details == y->n_details &&
                      plan_node_details_text(x).ptr == plan_node_details_text(y).ptr &&
                      plan_node_details_text(x).len == plan_node_details_text(y).len &&
                      plan_node_details_text_line(x) == plan_node_details_text_line(y));
            }
            for (const struct plan_warning *v = a->first_warning, *w = b->first_warning; v && w;
                 v = v->next, w = w->next)
                check(v->line == w->line && strcmp(v->message, w->message) == 0);
        }
    }
    document_free(a);
    document_free(b);
    parse_split_free(sp);
    free(text);
}

/* The clean-up of data alone and behind a UTF-8 byte-order mark: the same text, map,
   depths and notes.  Only for data of one line, the shape clean_literal.c decodes without
   an array of lines (the mark makes it take the array's way), and a first byte that is no
   mark already. */
static struct document *cleaned(const char *head, size_t hn, const uint8_t *data, size_t size)
{
    char *copy = malloc(hn + size + 1);
    if (!copy)
        return NULL;
    memcpy(copy, head, hn);
    memcpy(copy + hn, data, size);
    copy[hn + size] = '\0';
    struct document *doc = document_new("fuzz", copy, hn + size);
    struct diag err = {0};
    if (!doc) {
        free(copy);
        return NULL;
    }
    if (clean_document_full(doc, &err) != SP_OK) {
        document_free(doc);
        return NULL;
    }
    return doc;
}

static void same_behind_a_mark(const uint8_t *data, size_t size)
{
    const uint8_t *nl = size ? memchr(data, '\n', size) : NULL;
    if (!size || (nl && nl != data + size - 1) || data[0] == 0xEF || data[0] == 0xFE ||
        data[0] == 0xFF)
        return;
    struct document *a = cleaned("", 0, data, size), *b = cleaned("\xEF\xBB\xBF", 3, data, size);
    if (a && b && (a->src.n_text_lines || a->src.text != a->src.bytes)) {
        const struct source *x = &a->src, *y = &b->src;
        check(x->text_len == y->text_len && memcmp(x->text, y->text, x->text_len) == 0);
        check(x->n_text_lines == y->n_text_lines && !x->line_depth == !y->line_depth);
        for (uint32_t i = 1; i <= x->n_text_lines; i++) {
            check(source_input_line(x, i) == source_input_line(y, i));
            check(!x->line_depth || x->line_depth[i] == y->line_depth[i]);
        }
        check(x->n_notes == y->n_notes);
        for (unsigned k = 0; k < x->n_notes && k < y->n_notes; k++)
            check(x->notes[k].line == y->notes[k].line &&
                  strcmp(x->notes[k].message, y->notes[k].message) == 0);
    }
    document_free(a);
    document_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    same_when_split(data, size);
    same_behind_a_mark(data, size);
    char *copy = fuzz_text(data, size);
    if (!copy)
        return 0;
    uint32_t lines = fuzz_lines(copy, size);
    struct document *doc = NULL;
    struct diag err = {0};
    enum sp_status s = load_bytes("fuzz", copy, size, &doc, &err);
    check(s == SP_OK || s == SP_ERR_NO_PLAN);
    if (s != SP_OK) {
        check(doc == NULL);
        return 0;
    }
    size_t seen = 0;
    for (const struct plan *p = doc->first_plan; p; p = p->next)
        for (const struct plan_section *sec = p->first_section; sec; sec = sec->next) {
            check_slice(doc, sec->title);
            for (uint32_t i = 0; i < sec->n_nodes; i++) {
                const struct plan_node *n = plan_section_node(sec, i);
                check(n->section == sec);
                check(plan_node_preorder(n) == i);
                check(i + 1 + (size_t)n->subtree_size <= sec->n_nodes);
                check(plan_node_parent(n) ? n->depth == plan_node_parent(n)->depth + 1
                                          : n->depth == 0);
                check(n->line >= 1 && n->line <= lines);
                check_slice(doc, plan_node_name(n));
                check_slice(doc, plan_node_text(n));
                /* The fields split on demand are the ones the parser counted. */
                struct plan_details it;
                struct plan_detail d;
                uint32_t k = 0;
                plan_details_init(&it, n);
                for (; plan_details_next(&it, &d); k++) {
                    check_slice(doc, d.key);
                    check_slice(doc, d.value);
                    check_slice(doc, plan_node_details_text(n));
                    check(d.key.ptr >= plan_node_details_text(n).ptr &&
                          d.value.ptr + d.value.len <=
                              plan_node_details_text(n).ptr + plan_node_details_text(n).len);
                    check(d.line >= plan_node_details_line(n) && d.line <= lines);
                }
                check(k == n->n_details);
                seen++;
            }
        }
    check(seen == doc->n_all_nodes);
    same_as_the_walk(doc, data, size);
    for (const struct plan_warning *w = doc->first_warning; w; w = w->next)
        check(w->line <= lines);
    /* The outputs read every field of the model. */
    FILE *out = fopen("/dev/null", "w");
    if (out) {
        emit_print(out, doc, &err);
        emit_json(out, doc, &err);
        fclose(out);
    }
    document_free(doc);
    return 0;
}
