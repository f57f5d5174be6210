/* keys-man: regenerate the KEYS section of the man page from the key table.
 *
 * Usage: keys-man man/sparkplan.1 — rewrites the lines between `.\" KEYS-BEGIN` and
 * `.\" KEYS-END` in place (through a temporary file and rename).  Run by `make man`;
 * tests/check_keys.c fails when the committed page differs from what this would write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/keys.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: keys-man MANPAGE\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    size_t cap = 1 << 16, len = 0, n;
    char *text = malloc(cap);
    while (text && (n = fread(text + len, 1, cap - len, in)) > 0) {
        len += n;
        if (len == cap) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger)
                free(text);
            text = bigger;
        }
    }
    fclose(in);
    if (!text) {
        fprintf(stderr, "keys-man: out of memory\n");
        return 1;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    FILE *out = fopen(tmp, "wb");
    if (!out) {
        perror(tmp);
        return 1;
    }
    bool ok = keys_splice_man(text, len, out);
    free(text);
    if (fclose(out) != 0 || !ok) {
        fprintf(stderr, "keys-man: %s: %s\n", argv[1],
                ok ? "write failed" : "no .\\\" KEYS-BEGIN / KEYS-END markers");
        remove(tmp);
        return 1;
    }
    if (rename(tmp, argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
