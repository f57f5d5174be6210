/* main.c: command line → load → emit or explorer.  Only main prints errors. */
#include <stdio.h>
#include <string.h>

#include "sparkplan/load.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("sparkplan %s\n", SPARKPLAN_VERSION);
        return 0;
    }
    const char *path = argc > 1 ? argv[1] : "-";
    struct document *doc = NULL;
    struct diag err = {0};
    enum sp_status s = load_path(path, &doc, &err);
    if (s != SP_OK) {
        fprintf(stderr, "sparkplan: %s: %s\n", path, err.message);
        return sp_status_exit_code(s);
    }
    printf("%zu nodes\n", doc->n_all_nodes);
    document_free(doc);
    return 0;
}
