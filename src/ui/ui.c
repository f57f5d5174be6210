/* ui.c: placeholder until the explorer lands. */
#include "sparkplan/ui.h"

#include <stdio.h>

int ui_run(struct document **docs, size_t n_docs, const struct ui_options *opts)
{
    (void)docs, (void)n_docs, (void)opts;
    fprintf(stderr, "sparkplan: the explorer is not built yet; use --print\n");
    return 1;
}
