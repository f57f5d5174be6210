/* keys-man: regenerate the key lists of the man page and docs/keys.md from the key table.
 *
 * Usage: keys-man man/sparkplan.1 docs/keys.md — rewrites, in place (through a temporary
 * file and rename), the lines between `.\" KEYS-BEGIN` and `.\" KEYS-END` of a man page,
 * or between <!-- KEYS-BEGIN --> and <!-- KEYS-END --> of a .md file.  Run by `make man`;
 * tests/check_keys.c fails when a committed file differs from what this would write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/keys.h"

static int splice_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        perror(path);
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
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "wb");
    if (!out) {
        perror(tmp);
        free(text);
        return 1;
    }
    size_t plen = strlen(path);
    bool markdown = plen > 3 && strcmp(path + plen - 3, ".md") == 0;
    bool ok = markdown ? keys_splice_readme(text, len, out) : keys_splice_man(text, len, out);
    free(text);
    if (fclose(out) != 0 || !ok) {
        fprintf(stderr, "keys-man: %s: %s\n", path, ok ? "write failed" : "no KEYS-BEGIN / KEYS-END markers");
        remove(tmp);
        return 1;
    }
    if (rename(tmp, path) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: keys-man MANPAGE|FILE.md...\n");
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; i++)
        status |= splice_file(argv[i]);
    return status;
}
