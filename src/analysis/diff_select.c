/* diff_select: which trees of a document a side of a diff compares (diff.h's selection).
 *
 * Owns the parts array of a struct diff_side (malloc, diff_side_free).  Never prints.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sparkplan/diff.h"
#include "sparkplan/nodeinfo.h"

void diff_side_free(struct diff_side *side)
{
    if (!side)
        return;
    free(side->parts);
    side->parts = NULL;
    side->n_parts = 0;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

size_t diff_spec_split(const char *arg)
{
    size_t len = strlen(arg);
    if (strcmp(arg, "-") == 0 || is_file(arg))
        return len;
    for (size_t i = 1; i < len; i++) {
        if (arg[i] != '#' && arg[i] != '@')
            continue;
        char *prefix = malloc(i + 1);
        if (!prefix)
            return len;
        memcpy(prefix, arg, i);
        prefix[i] = '\0';
        bool ok = strcmp(prefix, "-") == 0 || is_file(prefix);
        free(prefix);
        if (ok)
            return i;
    }
    return len;
}

static bool add_part(struct diff_side *side, size_t cap, struct slice title, uint32_t line,
                     const struct plan_node *first, const struct plan_section *s)
{
    if (side->n_parts >= cap || !first)
        return first == NULL;
    struct diff_part *p = &side->parts[side->n_parts++];
    p->title = title;
    p->line = line;
    p->first_root = first;
    p->section = s;
    return true;
}

/* A section title as people know it: its header, or "== <kind> plan ==" without one. */
static struct slice section_title(const struct plan_section *s)
{
    static const char *const names[] = {
        "== Parsed Logical Plan ==", "== Analyzed Logical Plan ==",
        "== Optimized Logical Plan ==", "== Physical Plan ==", "== Subquery ==",
        "== Codegen subtree ==",
    };
    if (s->title.len)
        return s->title;
    return slice_cstr(names[s->kind <= SECTION_CODEGEN ? s->kind : SECTION_PHYSICAL]);
}

/* The label child "== Final Plan ==" / "== Current Plan ==" (final) or "== Initial Plan =="
 * of an AdaptiveSparkPlan in section s; NULL when none. */
static const struct plan_node *aqe_label(const struct plan_section *s, bool initial)
{
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        const struct plan_node *n = plan_section_node(s, i);
        if (!node_is_label(n))
            continue;
        bool is_initial = node_is_initial_plan_label(n);
        if (is_initial == initial)
            return n;
    }
    return NULL;
}

static bool kind_named(const char *what, enum section_kind *kind)
{
    static const char *const words[] = {"parsed", "analyzed", "optimized", "physical",
                                        "subquery", "codegen"};
    for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
        if (strcmp(what, words[k]) == 0) {
            *kind = (enum section_kind)k;
            return true;
        }
    }
    return false;
}

/* Parts of plan p that `what` names (NULL: all of them). */
static bool select_in_plan(const struct plan *p, const char *what, struct diff_side *side,
                           size_t cap)
{
    enum section_kind kind = SECTION_PHYSICAL;
    bool by_kind = what && kind_named(what, &kind);
    bool aqe = what && (strcmp(what, "initial") == 0 || strcmp(what, "final") == 0);
    long number = 0;
    if (what && !by_kind && !aqe) {
        char *end;
        number = strtol(what, &end, 10);
        if (*end || number <= 0)
            return false;
    }
    long k = 0;
    bool ok = true;
    for (const struct plan_section *s = p->first_section; s; s = s->next) {
        k++;
        if (aqe) {
            const struct plan_node *label = aqe_label(s, what[0] == 'i');
            if (label && plan_node_first_child(label)) {
                ok = ok && add_part(side, cap, plan_node_text(label), label->line,
                                    plan_node_first_child(label), s);
                return ok;  /* the first adaptive plan of the plan */
            }
            continue;
        }
        if ((by_kind && s->kind != kind) || (number && k != number))
            continue;
        ok = ok && add_part(side, cap, section_title(s), s->line, s->first_root, s);
    }
    return ok;
}

static void spec_usage(struct diag *err, const char *spec, const char *why)
{
    diag_set(err, 0, "selection '%.60s': %s", spec, why);
}

enum sp_status diff_select(const struct document *doc, const char *spec, struct diff_side *out,
                           struct diag *err)
{
    memset(out, 0, sizeof *out);
    out->doc = doc;
    long plan_no = 0;
    const char *what = NULL;
    const char *p = spec ? spec : "";
    if (*p == '#') {
        char *end;
        plan_no = strtol(p + 1, &end, 10);
        if (end == p + 1 || plan_no <= 0 || (*end && *end != '@')) {
            spec_usage(err, spec, "'#' takes a plan number from 1");
            return SP_ERR_USAGE;
        }
        p = end;
    }
    if (*p == '@')
        what = p + 1;
    else if (*p) {
        spec_usage(err, spec, "expected #PLAN and/or @SECTION");
        return SP_ERR_USAGE;
    }
    size_t cap = 0;
    for (const struct plan *pl = doc->first_plan; pl; pl = pl->next)
        cap += pl->n_sections;
    out->parts = calloc(cap ? cap : 1, sizeof *out->parts);
    if (!out->parts) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    out->skip_shadowed = true;
    long k = 0;
    for (const struct plan *pl = doc->first_plan; pl; pl = pl->next) {
        k++;
        if (plan_no && k != plan_no)
            continue;
        if (!select_in_plan(pl, what, out, cap)) {
            diff_side_free(out);
            spec_usage(err, spec, "unknown section (parsed, analyzed, optimized, physical, "
                                  "subquery, initial, final or a number)");
            return SP_ERR_USAGE;
        }
    }
    if (out->n_parts == 0) {
        diff_side_free(out);
        if (plan_no > k)
            spec_usage(err, spec, "there are fewer plans");
        else
            spec_usage(err, spec, what && (what[0] == 'i' || what[0] == 'f')
                                      ? "no adaptive plan with that tree"
                                      : "no such section");
        return SP_ERR_USAGE;
    }
    return SP_OK;
}
