/* evencode.c: writes text the way Spark's codecs frame it (evsource.h), for the tests'
 * fixtures and the benchmark's generator.  The libraries compress; the framings are ours.
 * Calls evsource.c (codec names, XXH32), never the other way. */
#include "sparkplan/evsource.h"

#include <liblzf/lzf.h>
#include <lz4.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* ---- a growing output buffer ---------------------------------------------------------------- */

struct obuf {
    char *p;
    size_t len, cap;
    bool failed;
};

static char *ob_room(struct obuf *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        char *nb = realloc(b->p, cap);
        if (!nb) {
            b->failed = true;
            return NULL;
        }
        b->p = nb;
        b->cap = cap;
    }
    return b->p + b->len;
}

static void ob_put(struct obuf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    char *d = ob_room(b, n);
    if (d) {
        memcpy(d, p, n);
        b->len += n;
    }
}

static void put_le32(unsigned char *d, uint32_t v)
{
    d[0] = (unsigned char)v, d[1] = (unsigned char)(v >> 8);
    d[2] = (unsigned char)(v >> 16), d[3] = (unsigned char)(v >> 24);
}

static void put_be32(unsigned char *d, uint32_t v)
{
    d[0] = (unsigned char)(v >> 24), d[1] = (unsigned char)(v >> 16);
    d[2] = (unsigned char)(v >> 8), d[3] = (unsigned char)v;
}

/* ---- the framings ------------------------------------------------------------------------------ */

static int log2_at_least(size_t n)
{
    int k = 10;
    while (k < 25 && ((size_t)1 << k) < n)
        k++;
    return k;
}

static bool enc_lz4_block(struct obuf *b, const char *p, size_t n, int level)
{
    unsigned char hdr[21];
    int bound = LZ4_compressBound((int)n);
    char *tmp = malloc((size_t)bound + 1);
    if (!tmp)
        return false;
    int c = n ? LZ4_compress_default(p, tmp, (int)n, bound) : 0;
    bool raw = c <= 0 || (size_t)c >= n;
    memcpy(hdr, "LZ4Block", 8);
    hdr[8] = (unsigned char)((raw ? 0x10 : 0x20) | (level - 10));
    put_le32(hdr + 9, raw ? (uint32_t)n : (uint32_t)c);
    put_le32(hdr + 13, (uint32_t)n);
    put_le32(hdr + 17, ev_xxh32(p, n, 0x9747b28cu) & 0x0fffffffu);
    ob_put(b, hdr, sizeof hdr);
    ob_put(b, raw ? p : tmp, raw ? n : (size_t)c);
    free(tmp);
    return true;
}

static bool enc_lz4(struct obuf *b, const char *text, size_t len, size_t block)
{
    int level = log2_at_least(block);
    for (size_t at = 0; at < len; at += block)
        if (!enc_lz4_block(b, text + at, len - at < block ? len - at : block, level))
            return false;
    return enc_lz4_block(b, "", 0, level); /* the empty block closing the stream */
}

static bool enc_snappy(struct obuf *b, const char *text, size_t len, size_t block)
{
    unsigned char hdr[16] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    put_be32(hdr + 8, 1);
    put_be32(hdr + 12, 1);
    ob_put(b, hdr, sizeof hdr);
    for (size_t at = 0; at < len; at += block) {
        size_t n = len - at < block ? len - at : block;
        size_t c = snappy_max_compressed_length(n);
        unsigned char *d = (unsigned char *)ob_room(b, 4 + c);
        if (!d || snappy_compress(text + at, n, (char *)d + 4, &c) != SNAPPY_OK)
            return false;
        put_be32(d, (uint32_t)c);
        b->len += 4 + c;
    }
    return true;
}

static bool enc_lzf(struct obuf *b, const char *text, size_t len, size_t block)
{
    if (block > 65535)
        block = 65535;
    for (size_t at = 0; at < len; at += block) {
        size_t n = len - at < block ? len - at : block;
        unsigned char *d = (unsigned char *)ob_room(b, 7 + n);
        if (!d)
            return false;
        unsigned c = lzf_compress(text + at, (unsigned)n, d + 7, (unsigned)n - 1);
        d[0] = 'Z', d[1] = 'V';
        if (c == 0) { /* did not shrink: a raw chunk */
            d[2] = 0, d[3] = (unsigned char)(n >> 8), d[4] = (unsigned char)n;
            memcpy(d + 5, text + at, n);
            b->len += 5 + n;
        } else {
            d[2] = 1, d[3] = (unsigned char)(c >> 8), d[4] = (unsigned char)c;
            d[5] = (unsigned char)(n >> 8), d[6] = (unsigned char)n;
            b->len += 7 + c;
        }
    }
    return true;
}

static bool enc_zstd(struct obuf *b, const char *text, size_t len, size_t block)
{
    for (size_t at = 0; at < len; at += block) {
        size_t n = len - at < block ? len - at : block;
        size_t bound = ZSTD_compressBound(n);
        char *d = ob_room(b, bound);
        if (!d)
            return false;
        size_t c = ZSTD_compress(d, bound, text + at, n, 3);
        if (ZSTD_isError(c))
            return false;
        b->len += c;
    }
    return true;
}

static bool enc_gzip(struct obuf *b, const char *text, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return false;
    size_t bound = deflateBound(&z, len) + 64;
    char *d = ob_room(b, bound);
    bool ok = false;
    if (d) {
        z.next_in = (unsigned char *)text;
        z.avail_in = (unsigned)len;
        z.next_out = (unsigned char *)d;
        z.avail_out = (unsigned)bound;
        ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
        b->len += bound - z.avail_out;
    }
    deflateEnd(&z);
    return ok;
}

enum sp_status ev_encode(enum ev_codec c, const char *text, size_t len, size_t block_size,
                         char **out, size_t *out_len, struct diag *err)
{
    struct obuf b = {0};
    bool ok;
    if (block_size == 0)
        block_size = 32768;
    switch (c) {
    case EV_LZ4: ok = enc_lz4(&b, text, len, block_size); break;
    case EV_SNAPPY: ok = enc_snappy(&b, text, len, block_size); break;
    case EV_LZF: ok = enc_lzf(&b, text, len, block_size); break;
    case EV_ZSTD: ok = enc_zstd(&b, text, len, block_size); break;
    case EV_GZIP: ok = len <= UINT32_MAX / 2 && enc_gzip(&b, text, len); break;
    default: ob_put(&b, text, len), ok = true; break;
    }
    if (!ok || b.failed) {
        free(b.p);
        diag_set(err, 0, b.failed ? "out of memory" : "%s encoder failed", ev_codec_name(c));
        return b.failed ? SP_ERR_NOMEM : SP_ERR_IO;
    }
    *out = b.p ? b.p : calloc(1, 1);
    *out_len = b.len;
    return *out ? SP_OK : SP_ERR_NOMEM;
}
