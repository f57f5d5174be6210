/* sanitize.c: control characters and bad UTF-8 become visible text (see sanitize.h). */
#include "sparkplan/sanitize.h"

#include <stdint.h>
#include <string.h>

/* See sanitize_utf8_len() in sanitize.h. */
static size_t utf8_valid_len(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

size_t sanitize_utf8_len(const char *s, size_t len, uint32_t *cp)
{
    uint32_t ignored;
    return len ? utf8_valid_len((const unsigned char *)s, len, cp ? cp : &ignored) : 0;
}

static const char hex[] = "0123456789ABCDEF";

/* Invisible characters that change what the text around them looks like: the bidirectional
 * embeddings, overrides and isolates (which can show "txt.exe" as "exe.txt"), the Arabic
 * letter mark, zero-width spaces and joiners, the line and paragraph separators, the word
 * joiner family and a byte-order mark inside text. */
static bool is_format_control(uint32_t cp)
{
    return cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

size_t sanitize_next(const char *s, size_t len, char out[SANITIZE_MAX_EXPANSION], size_t *out_len,
                     bool *safe)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t cp = 0;
    size_t n = utf8_valid_len(u, len, &cp);
    *safe = false;
    if (n == 0) {
        out[0] = '\\', out[1] = 'x', out[2] = hex[u[0] >> 4], out[3] = hex[u[0] & 15];
        *out_len = 4;
        return 1;
    }
    if (cp == '\t') {
        out[0] = ' ';
        *out_len = 1;
        return 1;
    }
    if (cp < 0x20 || cp == 0x7F) {
        out[0] = '^';
        out[1] = cp == 0x7F ? '?' : (char)(cp + 0x40);
        *out_len = 2;
        return 1;
    }
    if ((cp >= 0x80 && cp <= 0x9F) || is_format_control(cp)) {
        memcpy(out, "<U+", 3);
        out[3] = hex[cp >> 12], out[4] = hex[(cp >> 8) & 15];
        out[5] = hex[(cp >> 4) & 15], out[6] = hex[cp & 15], out[7] = '>';
        *out_len = 8;
        return n;
    }
    memcpy(out, s, n);
    *out_len = n;
    *safe = true;
    return n;
}

size_t sanitize_to_buf(struct slice in, char *out, size_t cap)
{
    size_t need = 0;
    size_t i = 0;
    while (i < in.len) {
        char item[SANITIZE_MAX_EXPANSION];
        size_t item_len;
        bool safe;
        i += sanitize_next(in.ptr + i, in.len - i, item, &item_len, &safe);
        if (cap && need + item_len < cap)
            memcpy(out + need, item, item_len);
        else if (cap && need < cap)
            cap = need + 1; /* stop writing: never split an item */
        need += item_len;
    }
    if (cap)
        out[need < cap ? need : cap - 1] = '\0';
    return need;
}

bool sanitize_fwrite(FILE *f, struct slice in)
{
    size_t i = 0, run = 0;
    /* Write safe runs in one call; only unsafe items are rewritten. */
    while (i < in.len) {
        /* Printable ASCII is kept as it is: skip it without asking sanitize_next. */
        unsigned char c = (unsigned char)in.ptr[i];
        if (c >= 0x20 && c < 0x7F) {
            i++;
            continue;
        }
        char item[SANITIZE_MAX_EXPANSION];
        size_t item_len;
        bool safe;
        size_t used = sanitize_next(in.ptr + i, in.len - i, item, &item_len, &safe);
        if (!safe) {
            if (i > run && fwrite(in.ptr + run, 1, i - run, f) != i - run)
                return false;
            if (fwrite(item, 1, item_len, f) != item_len)
                return false;
            run = i + used;
        }
        i += used;
    }
    if (i > run && fwrite(in.ptr + run, 1, i - run, f) != i - run)
        return false;
    return true;
}
