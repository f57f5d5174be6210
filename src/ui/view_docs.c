/* view_docs.c: the tabs of a document (one per section, plus AQE Final/Initial subtrees)
 * and the document list overlay (D), which shows where each document came from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/opclass.h"
#include "sparkplan/tui.h"

static void section_label(const struct plan_section *s, unsigned codegen_i,
                          unsigned codegen_n, char *buf, size_t cap)
{
    switch (s->kind) {
    case SECTION_PARSED:
        snprintf(buf, cap, "Parsed");
        break;
    case SECTION_ANALYZED:
        snprintf(buf, cap, "Analyzed");
        break;
    case SECTION_OPTIMIZED:
        snprintf(buf, cap, "Optimized");
        break;
    case SECTION_PHYSICAL:
        snprintf(buf, cap, "Physical");
        break;
    case SECTION_SUBQUERY: {
        /* "Subquery:1 Hosting operator id = 3 ..." -> "Subquery:1" */
        size_t n = 0;
        while (n < s->title.len && n < 20 && s->title.ptr[n] != ' ')
            n++;
        if (n == 0)
            snprintf(buf, cap, "Subquery");
        else
            snprintf(buf, cap, "%.*s", (int)n, s->title.ptr);
        break;
    }
    case SECTION_CODEGEN:
        snprintf(buf, cap, "Codegen %u/%u", codegen_i, codegen_n);
        break;
    }
}

/* "== Final Plan ==" -> "Final" */
static void label_name(const struct plan_node *n, char *buf, size_t cap)
{
    struct slice s = slice_trim(n->text.len ? n->text : n->name);
    while (s.len && (s.ptr[0] == '=' || s.ptr[0] == ' '))
        s.ptr++, s.len--;
    while (s.len && (s.ptr[s.len - 1] == '=' || s.ptr[s.len - 1] == ' '))
        s.len--;
    if (s.len > 5 && memcmp(s.ptr + s.len - 5, " Plan", 5) == 0)
        s.len -= 5;
    if (s.len > 20)
        s.len = 20;
    snprintf(buf, cap, "%.*s", (int)s.len, s.ptr);
}

static bool add_tab(struct doc_view *dv, size_t *cap, struct plan_section *s,
                    struct plan_node *scope, const char *label, unsigned plan_no,
                    bool several_plans)
{
    if (dv->n_tabs == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        struct tab *nt = realloc(dv->tabs, nc * sizeof *nt);
        if (!nt)
            return false;
        dv->tabs = nt;
        *cap = nc;
    }
    struct tab *t = &dv->tabs[dv->n_tabs++];
    memset(t, 0, sizeof *t);
    t->section = s;
    t->scope = scope;
    char clean[40];
    /* Labels come from the input: keep printable ASCII only. */
    size_t j = 0;
    for (size_t i = 0; label[i] && j + 1 < sizeof clean; i++) {
        unsigned char c = (unsigned char)label[i];
        clean[j++] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
    }
    clean[j] = '\0';
    if (several_plans && s->plan->source.cell)
        /* A notebook's plans are known by their cells: "c12:Physical". */
        snprintf(t->label, sizeof t->label, "c%u:%.30s", (unsigned)s->plan->source.cell, clean);
    else if (several_plans)
        snprintf(t->label, sizeof t->label, "%u:%s", plan_no, clean);
    else
        snprintf(t->label, sizeof t->label, "%s", clean);
    return true;
}

/* The outermost AdaptiveSparkPlan of a section, found in pre-order (linear once). */
static struct plan_node *outer_adaptive(const struct plan_section *s)
{
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct slice w = op_word(s->preorder[i]);
        if (slice_eq_cstr(w, "AdaptiveSparkPlan"))
            return s->preorder[i];
    }
    return NULL;
}

bool docs_build_tabs(struct doc_view *dv)
{
    size_t cap = 0;
    unsigned plan_no = 0;
    bool several = dv->doc->n_plans > 1;
    for (struct plan *p = dv->doc->first_plan; p; p = p->next) {
        plan_no++;
        unsigned codegen_n = 0, codegen_i = 0;
        for (struct plan_section *s = p->first_section; s; s = s->next)
            codegen_n += s->kind == SECTION_CODEGEN;
        for (struct plan_section *s = p->first_section; s; s = s->next) {
            char label[40];
            codegen_i += s->kind == SECTION_CODEGEN;
            section_label(s, codegen_i, codegen_n, label, sizeof label);
            if (!add_tab(dv, &cap, s, NULL, label, plan_no, several))
                return false;
            if (s->kind != SECTION_PHYSICAL)
                continue;
            /* Only an adaptive plan has labels to split on: no pass over the others. */
            struct plan_node *a = p->adaptive ? outer_adaptive(s) : NULL;
            for (struct plan_node *c = a ? a->first_child : NULL; c; c = c->next_sibling) {
                if (!(c->flags & NODE_LABEL))
                    continue;
                label_name(c, label, sizeof label);
                if (!add_tab(dv, &cap, s, c, label, plan_no, several))
                    return false;
            }
        }
    }
    dv->cur = 0;
    /* Open on the physical plan: what people usually look at first. */
    for (size_t i = 0; i < dv->n_tabs; i++)
        if (dv->tabs[i].section->kind == SECTION_PHYSICAL && !dv->tabs[i].scope) {
            dv->cur = i;
            break;
        }
    return dv->n_tabs > 0;
}

void docs_draw(const struct tui *t)
{
    static const char *const titles[] = {"Documents (Enter opens, q closes)", "Documents",
                                         NULL};
    struct box in = overlay_draw(t, overlay_place(74, (int)t->n_docs + 2), titles);
    int rows = in.h > 0 ? in.h : 1;
    size_t first = t->docs_sel >= (size_t)rows ? t->docs_sel - (size_t)rows + 1 : 0;
    for (int r = 0; r < rows && first + (size_t)r < t->n_docs; r++) {
        size_t i = first + (size_t)r;
        const struct document *d = t->docs[i].doc;
        enum variant v = i == t->docs_sel ? VAR_SELECTED : VAR_PLAIN;
        struct draw_line dl;
        draw_line_start(&dl, in.y + r, in.x, in.w, 0);
        char num[32];
        snprintf(num, sizeof num, " %c%zu  ", i == t->cur_doc ? '*' : ' ', i + 1);
        draw_puts(&dl, num, theme_attr(ROLE_NORMAL, v));
        draw_puts(&dl, d->name, theme_attr(ROLE_TITLE, v)); /* sanitized by draw */
        char info[96];
        const char *format = d->first_plan ? d->first_plan->source.format : NULL;
        snprintf(info, sizeof info, "   %u plan%s, %zu nodes%s%s%s", d->n_plans,
                 d->n_plans == 1 ? "" : "s", d->n_all_nodes,
                 t->docs[i].owned ? " (pasted)" : "", format ? ", " : "",
                 format ? format : "");
        draw_puts(&dl, info, theme_attr(ROLE_SUMMARY, v));
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
    }
}

int docs_key(struct tui *t, enum key_action a)
{
    switch (a) {
    case KA_L_DOWN:
        if (t->docs_sel + 1 < t->n_docs)
            t->docs_sel++;
        break;
    case KA_L_UP:
        if (t->docs_sel > 0)
            t->docs_sel--;
        break;
    case KA_L_OPEN:
        t->cur_doc = t->docs_sel;
        t->overlay = OVERLAY_NONE;
        t->focus = FOCUS_TREE;
        return RE_DRAW | RE_LAYOUT | RE_FULL;
    case KA_L_CLOSE:
        t->overlay = OVERLAY_NONE;
        return RE_DRAW | RE_FULL;
    default:
        return RE_NONE;
    }
    return RE_DRAW;
}
