/* parse.c: lines → plan model (see parse.h).  Stub: one plan, one node per line. */
#include "sparkplan/parse.h"

#include <string.h>

enum sp_status parse_document(struct document *doc, struct diag *err)
{
    const char *p = doc->text, *end = doc->text + doc->text_len;
    uint32_t line = 0;
    struct plan_section *s = NULL;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        line++;
        if (e > p) {
            if (!s) {
                struct plan *pl = document_add_plan(doc, line);
                s = pl ? plan_add_section(pl, SECTION_PHYSICAL, slice_make(NULL, 0), line) : NULL;
                if (!s)
                    return SP_ERR_NOMEM;
            }
            struct plan_node *n = plan_node_new(s);
            if (!n)
                return SP_ERR_NOMEM;
            n->text = n->name = slice_make(p, (size_t)(e - p));
            n->line = n->text_line = line;
            plan_section_append_root(s, n);
        }
        p = nl ? nl + 1 : end;
    }
    if (!s) {
        diag_set(err, 0, "no Spark plan found");
        return SP_ERR_NO_PLAN;
    }
    return SP_OK;
}
