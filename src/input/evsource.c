/* evsource.c: event-log bytes decompressed chunk by chunk, split into lines (evsource.h). */
#include "sparkplan/evsource.h"

#include <errno.h>
#include <fcntl.h>
#include <liblzf/lzf.h>
#include <lz4.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "sparkplan/thread.h"

#define RAW_CHUNK (1u << 20)   /* compressed bytes read at a time */
#define OUT_CHUNK (1u << 20)   /* decompressed bytes handed to the line splitter at a time */

static const unsigned char SNAPPY_MAGIC[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
#define SNAPPY_HEADER 16
#define LZ4_HEADER 21
#define LZ4_SEED 0x9747b28cu

const char *ev_codec_name(enum ev_codec c)
{
    static const char *const names[] = {"plain", "zstd", "gzip", "lz4", "snappy", "lzf"};
    return (unsigned)c < sizeof names / sizeof *names ? names[c] : "?";
}

enum ev_codec ev_codec_detect(const unsigned char *b, size_t n)
{
    if (n >= 4 && memcmp(b, "\x28\xb5\x2f\xfd", 4) == 0)
        return EV_ZSTD;
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return EV_GZIP;
    if (n >= 8 && memcmp(b, "LZ4Block", 8) == 0)
        return EV_LZ4;
    if (n >= 8 && memcmp(b, SNAPPY_MAGIC, 8) == 0)
        return EV_SNAPPY;
    if (n >= 3 && b[0] == 'Z' && b[1] == 'V' && (b[2] == 0 || b[2] == 1))
        return EV_LZF;
    return EV_PLAIN;
}

/* ---- XXH32 (the published algorithm; lz4-java's block checksum) ------------------------ */

#define P1 2654435761u
#define P2 2246822519u
#define P3 3266489917u
#define P4 668265263u
#define P5 374761393u

static uint32_t rotl(uint32_t x, int r) { return x << r | x >> (32 - r); }

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t round32(uint32_t acc, uint32_t in) { return rotl(acc + in * P2, 13) * P1; }

uint32_t ev_xxh32(const void *data, size_t n, uint32_t seed)
{
    const unsigned char *p = data, *end = p + n;
    uint32_t h;
    if (n >= 16) {
        uint32_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        for (; p + 16 <= end; p += 16) {
            v1 = round32(v1, rd32(p));
            v2 = round32(v2, rd32(p + 4));
            v3 = round32(v3, rd32(p + 8));
            v4 = round32(v4, rd32(p + 12));
        }
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    } else {
        h = seed + P5;
    }
    h += (uint32_t)n;
    for (; p + 4 <= end; p += 4)
        h = rotl(h + rd32(p) * P3, 17) * P4;
    for (; p < end; p++)
        h = rotl(h + *p * P5, 11) * P1;
    h ^= h >> 15;
    h *= P2;
    h ^= h >> 13;
    h *= P3;
    h ^= h >> 16;
    return h;
}

/* ---- raw input: a file read in chunks, or borrowed memory ------------------------------ */

struct raw {
    int fd;                    /* -1: memory */
    const unsigned char *mem;  /* memory input */
    size_t mem_len, mem_pos;
    unsigned char *buf;        /* file input: [pos, len) not consumed yet */
    size_t cap, len, pos;
    bool eof;
};

/* Reads more file bytes, keeping [pos, len).  False on a read error (errno set). */
static bool raw_fill(struct raw *r, size_t want)
{
    if (r->fd < 0 || r->eof)
        return true;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
    }
    if (want > r->cap) {
        unsigned char *nb = realloc(r->buf, want);
        if (!nb) {
            errno = ENOMEM;
            return false;
        }
        r->buf = nb;
        r->cap = want;
    }
    while (r->len < want) {
        ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return false;
        if (got == 0) {
            r->eof = true;
            break;
        }
        r->len += (size_t)got;
    }
    return true;
}

/* The unread bytes, at least `want` of them unless the input ends first. */
static bool raw_peek(struct raw *r, size_t want, const unsigned char **p, size_t *n)
{
    if (r->fd < 0) {
        *p = r->mem + r->mem_pos;
        *n = r->mem_len - r->mem_pos;
        return true;
    }
    if (r->len - r->pos < want && !raw_fill(r, want > RAW_CHUNK ? want : RAW_CHUNK))
        return false;
    *p = r->buf + r->pos;
    *n = r->len - r->pos;
    return true;
}

static void raw_skip(struct raw *r, size_t n)
{
    if (r->fd < 0)
        r->mem_pos += n;
    else
        r->pos += n;
}

/* ---- decoders: each fills the output chunk from raw input ------------------------------ */

struct ev_lines {
    const char *const *files;
    size_t n_files, file;      /* file: the one being read (index) */
    struct raw raw;
    bool open;                 /* a file (or the memory) is open */
    enum ev_codec codec;
    ZSTD_DCtx *zstd;
    size_t zstd_pending;       /* 0 at a frame boundary */
    z_stream gz;
    bool gz_init, gz_in_member;
    char *out;                 /* the decoder's chunk */
    size_t out_cap, out_len, out_pos;
    char *cur;                 /* the chunk lines are cut from (the reader's) */
    size_t cur_cap, cur_len, cur_pos;
    bool file_end;             /* the reader has had every chunk of the file */
    char *line;                /* a line that straddles chunks */
    size_t line_cap, line_len;
    uint64_t lineno, bytes;
    bool truncated, stream_end;
    /* A compressed file is decoded on a thread of its own while the reader cuts lines:
     * decoded chunks pass through a queue of QUEUE buffers (swapped, never copied).  The
     * decoder owns raw, the codecs' state, out, truncated and stream_end while it runs. */
    bool threaded;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct chunk {
        char *buf;
        size_t cap, len;
    } q[4];
    size_t q_head, q_n;
    bool dec_done, dec_stop;
    enum sp_status dec_status;
    struct diag dec_err;
};
#define QUEUE 4

static bool out_reserve(struct ev_lines *r, size_t n)
{
    if (n <= r->out_cap)
        return true;
    char *nb = realloc(r->out, n);
    if (!nb)
        return false;
    r->out = nb;
    r->out_cap = n;
    return true;
}

static enum sp_status corrupt(struct ev_lines *r, struct diag *err, const char *what)
{
    diag_set(err, 0, "corrupt %s data (%s)", ev_codec_name(r->codec), what);
    return SP_ERR_IO;
}

static enum sp_status read_error(struct ev_lines *r, struct diag *err)
{
    diag_set(err, 0, "%s: %s", r->files ? r->files[r->file] : "log", strerror(errno));
    return errno == ENOMEM ? SP_ERR_NOMEM : SP_ERR_IO;
}

static enum sp_status decode_plain(struct ev_lines *r, struct diag *err)
{
    const unsigned char *p;
    size_t n;
    if (!raw_peek(&r->raw, 1, &p, &n))
        return read_error(r, err);
    if (n > OUT_CHUNK)
        n = OUT_CHUNK;
    if (!out_reserve(r, n + 1))
        return read_error(r, err);
    memcpy(r->out, p, n);
    raw_skip(&r->raw, n);
    r->out_len = n;
    r->stream_end = n == 0;
    return SP_OK;
}

static enum sp_status decode_zstd(struct ev_lines *r, struct diag *err)
{
    if (!out_reserve(r, OUT_CHUNK))
        return read_error(r, err);
    r->out_len = 0;
    while (r->out_len == 0) {
        const unsigned char *p;
        size_t n;
        if (!raw_peek(&r->raw, 1, &p, &n))
            return read_error(r, err);
        if (n == 0) {
            r->truncated = r->truncated || r->zstd_pending != 0;
            r->stream_end = true;
            return SP_OK;
        }
        ZSTD_inBuffer in = {p, n, 0};
        ZSTD_outBuffer o = {r->out, OUT_CHUNK, 0};
        size_t rc = ZSTD_decompressStream(r->zstd, &o, &in);
        if (ZSTD_isError(rc))
            return corrupt(r, err, ZSTD_getErrorName(rc));
        r->zstd_pending = rc;
        raw_skip(&r->raw, in.pos);
        r->out_len = o.pos;
        if (in.pos == 0 && o.pos == 0) { /* no progress: nothing more can come out */
            r->truncated = true;
            r->stream_end = true;
            return SP_OK;
        }
    }
    return SP_OK;
}

static enum sp_status decode_gzip(struct ev_lines *r, struct diag *err)
{
    if (!out_reserve(r, OUT_CHUNK))
        return read_error(r, err);
    r->out_len = 0;
    while (r->out_len == 0) {
        const unsigned char *p;
        size_t n;
        if (!raw_peek(&r->raw, 1, &p, &n))
            return read_error(r, err);
        if (n == 0) {
            r->truncated = r->truncated || r->gz_in_member;
            r->stream_end = true;
            return SP_OK;
        }
        if (!r->gz_in_member) {
            if (inflateReset2(&r->gz, 16 + MAX_WBITS) != Z_OK)
                return corrupt(r, err, "gzip header");
            r->gz_in_member = true;
        }
        r->gz.next_in = (unsigned char *)p;
        r->gz.avail_in = n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
        r->gz.next_out = (unsigned char *)r->out;
        r->gz.avail_out = OUT_CHUNK;
        int rc = inflate(&r->gz, Z_NO_FLUSH);
        size_t used = (size_t)(r->gz.next_in - p);
        raw_skip(&r->raw, used);
        r->out_len = OUT_CHUNK - r->gz.avail_out;
        if (rc == Z_STREAM_END)
            r->gz_in_member = false;
        else if (rc == Z_BUF_ERROR && used == 0 && r->out_len == 0)
            raw_skip(&r->raw, n); /* cannot go on: treat the rest as a cut member */
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
            return corrupt(r, err, r->gz.msg ? r->gz.msg : "inflate");
    }
    return SP_OK;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* A block whose header promises more bytes than the file holds: a log cut mid-write. */
static enum sp_status cut_block(struct ev_lines *r, size_t n)
{
    raw_skip(&r->raw, n);
    r->truncated = true;
    r->stream_end = true;
    r->out_len = 0;
    return SP_OK;
}

/* A block's `want` bytes at the read position, header included: true with *p on them; false
 * with *st what the decoder returns (a read error, or a log cut inside the block). */
static bool whole_block(struct ev_lines *r, size_t want, const unsigned char **p,
                        enum sp_status *st, struct diag *err)
{
    size_t n;
    if (!raw_peek(&r->raw, want, p, &n))
        *st = read_error(r, err);
    else if (n < want)
        *st = cut_block(r, n);
    else
        return true;
    return false;
}

/* lz4-java: "LZ4Block", token, compressed length, original length, checksum, payload. */
static enum sp_status decode_lz4(struct ev_lines *r, struct diag *err)
{
    r->out_len = 0;
    while (r->out_len == 0) {
        const unsigned char *p;
        size_t n;
        if (!raw_peek(&r->raw, LZ4_HEADER, &p, &n))
            return read_error(r, err);
        if (n == 0) {
            r->stream_end = true;
            return SP_OK;
        }
        if (n < LZ4_HEADER)
            return cut_block(r, n);
        if (memcmp(p, "LZ4Block", 8) != 0)
            return corrupt(r, err, "no LZ4Block magic");
        unsigned method = p[8] & 0xf0;
        uint32_t clen = le32(p + 9), olen = le32(p + 13), check = le32(p + 17);
        if ((method != 0x10 && method != 0x20) || clen > (1u << 30) || olen > (1u << 30) ||
            (method == 0x10 && clen != olen))
            return corrupt(r, err, "bad block header");
        enum sp_status st;
        if (!whole_block(r, LZ4_HEADER + (size_t)clen, &p, &st, err))
            return st;
        if (!out_reserve(r, olen + 1))
            return read_error(r, err);
        if (method == 0x10) {
            memcpy(r->out, p + LZ4_HEADER, olen);
        } else if (olen > 0) {
            int got = LZ4_decompress_safe((const char *)p + LZ4_HEADER, r->out, (int)clen,
                                          (int)olen);
            if (got < 0 || (uint32_t)got != olen)
                return corrupt(r, err, "LZ4 block");
        }
        if ((ev_xxh32(r->out, olen, LZ4_SEED) & 0x0fffffffu) != check)
            return corrupt(r, err, "checksum mismatch");
        raw_skip(&r->raw, LZ4_HEADER + (size_t)clen);
        r->out_len = olen; /* an empty block ends one stream; another may follow */
    }
    return SP_OK;
}

/* snappy-java: a 16-byte header (which may come again), then big-endian length + raw
 * snappy block, again and again. */
static enum sp_status decode_snappy(struct ev_lines *r, struct diag *err)
{
    r->out_len = 0;
    while (r->out_len == 0) {
        const unsigned char *p;
        size_t n;
        if (!raw_peek(&r->raw, SNAPPY_HEADER, &p, &n))
            return read_error(r, err);
        if (n == 0) {
            r->stream_end = true;
            return SP_OK;
        }
        if (n >= 8 && memcmp(p, SNAPPY_MAGIC, 8) == 0) {
            if (n < SNAPPY_HEADER)
                return cut_block(r, n);
            raw_skip(&r->raw, SNAPPY_HEADER);
            continue;
        }
        if (n < 4)
            return cut_block(r, n);
        uint32_t clen = be32(p);
        if (clen > (1u << 30))
            return corrupt(r, err, "bad block length");
        enum sp_status st;
        if (!whole_block(r, 4 + (size_t)clen, &p, &st, err))
            return st;
        size_t olen;
        if (snappy_uncompressed_length((const char *)p + 4, clen, &olen) != SNAPPY_OK ||
            olen > (1u << 30))
            return corrupt(r, err, "block length");
        if (!out_reserve(r, olen + 1))
            return read_error(r, err);
        size_t got = olen;
        if (snappy_uncompress((const char *)p + 4, clen, r->out, &got) != SNAPPY_OK)
            return corrupt(r, err, "snappy block");
        raw_skip(&r->raw, 4 + (size_t)clen);
        r->out_len = got;
    }
    return SP_OK;
}

/* ning compress: 'Z' 'V' type; type 0: 2-byte length + bytes; type 1: 2-byte compressed
 * length, 2-byte original length, liblzf payload (all big-endian). */
static enum sp_status decode_lzf(struct ev_lines *r, struct diag *err)
{
    if (!out_reserve(r, 65536))
        return read_error(r, err);
    r->out_len = 0;
    while (r->out_len == 0) {
        const unsigned char *p;
        size_t n;
        if (!raw_peek(&r->raw, 7, &p, &n))
            return read_error(r, err);
        if (n == 0) {
            r->stream_end = true;
            return SP_OK;
        }
        if (n < 5)
            return cut_block(r, n);
        if (p[0] != 'Z' || p[1] != 'V' || p[2] > 1)
            return corrupt(r, err, "no ZV chunk header");
        size_t clen = (size_t)p[3] << 8 | p[4], hdr = p[2] == 0 ? 5 : 7;
        if (n < hdr)
            return cut_block(r, n);
        enum sp_status st;
        if (!whole_block(r, hdr + clen, &p, &st, err))
            return st;
        if (p[2] == 0) {
            memcpy(r->out, p + hdr, clen);
            r->out_len = clen;
        } else {
            size_t olen = (size_t)p[5] << 8 | p[6];
            unsigned got = olen ? lzf_decompress(p + hdr, (unsigned)clen, r->out, (unsigned)olen)
                                : 0;
            if (got != olen)
                return corrupt(r, err, "lzf chunk");
            r->out_len = olen;
        }
        raw_skip(&r->raw, hdr + clen);
    }
    return SP_OK;
}

static enum sp_status decode_next(struct ev_lines *r, struct diag *err)
{
    r->out_pos = 0;
    switch (r->codec) {
    case EV_ZSTD: return decode_zstd(r, err);
    case EV_GZIP: return decode_gzip(r, err);
    case EV_LZ4: return decode_lz4(r, err);
    case EV_SNAPPY: return decode_snappy(r, err);
    case EV_LZF: return decode_lzf(r, err);
    case EV_PLAIN: break;
    }
    return decode_plain(r, err);
}

/* ---- files ------------------------------------------------------------------------------ */

static void stop_decoder(struct ev_lines *r);

static void close_file(struct ev_lines *r)
{
    stop_decoder(r);
    if (r->raw.fd >= 0)
        close(r->raw.fd);
    r->raw.fd = -1;
    r->raw.len = r->raw.pos = 0;
    r->raw.eof = false;
    r->open = false;
}

static void start_decoder(struct ev_lines *r);

/* Opens files[file] (or the memory) and detects its codec from its first bytes; a
 * compressed file is decoded on a thread when one can be had. */
static enum sp_status open_file(struct ev_lines *r, bool allow_thread, struct diag *err)
{
    if (r->files) {
        r->raw.fd = open(r->files[r->file], O_RDONLY);
        if (r->raw.fd < 0)
            return read_error(r, err);
    }
    r->open = true;
    r->stream_end = false;
    r->file_end = false;
    r->cur_len = r->cur_pos = 0;
    r->lineno = 0;
    const unsigned char *p;
    size_t n;
    if (!raw_peek(&r->raw, 16, &p, &n))
        return read_error(r, err);
    r->codec = ev_codec_detect(p, n);
    if (r->codec == EV_ZSTD) {
        if (!r->zstd && !(r->zstd = ZSTD_createDCtx()))
            goto nomem;
        ZSTD_DCtx_reset(r->zstd, ZSTD_reset_session_only);
        r->zstd_pending = 0;
    } else if (r->codec == EV_GZIP && !r->gz_init) {
        memset(&r->gz, 0, sizeof r->gz);
        if (inflateInit2(&r->gz, 16 + MAX_WBITS) != Z_OK)
            goto nomem;
        r->gz_init = true;
    }
    r->gz_in_member = false;
    if (allow_thread && r->files && r->codec != EV_PLAIN)
        start_decoder(r);
    return SP_OK;
nomem:
    diag_set(err, 0, "out of memory");
    return SP_ERR_NOMEM;
}

/* ---- the decoder thread ------------------------------------------------------------------ */

static void swap_buf(char **a, size_t *acap, char **b, size_t *bcap)
{
    char *t = *a;
    size_t c = *acap;
    *a = *b, *acap = *bcap;
    *b = t, *bcap = c;
}

static void *decoder_main(void *arg)
{
    struct ev_lines *r = arg;
    for (;;) {
        struct diag err = {0};
        enum sp_status s = decode_next(r, &err);
        pthread_mutex_lock(&r->mu);
        if (s != SP_OK || r->stream_end || r->dec_stop) {
            r->dec_status = s;
            r->dec_err = err;
            r->dec_done = true;
            pthread_cond_broadcast(&r->cv);
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
        while (r->q_n == QUEUE && !r->dec_stop)
            pthread_cond_wait(&r->cv, &r->mu);
        if (!r->dec_stop) {
            struct chunk *c = &r->q[(r->q_head + r->q_n) % QUEUE];
            swap_buf(&c->buf, &c->cap, &r->out, &r->out_cap);
            c->len = r->out_len;
            r->q_n++;
            pthread_cond_broadcast(&r->cv);
        }
        pthread_mutex_unlock(&r->mu);
    }
}

static void start_decoder(struct ev_lines *r)
{
    if (pthread_mutex_init(&r->mu, NULL) != 0)
        return;
    if (pthread_cond_init(&r->cv, NULL) != 0) {
        pthread_mutex_destroy(&r->mu);
        return;
    }
    r->q_head = r->q_n = 0;
    r->dec_done = r->dec_stop = false;
    r->dec_status = SP_OK;
    r->threaded = thread_start_quiet(&r->th, decoder_main, r);
    if (!r->threaded) { /* no thread: the reader decodes itself */
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
    }
}

static void stop_decoder(struct ev_lines *r)
{
    if (!r->threaded)
        return;
    pthread_mutex_lock(&r->mu);
    r->dec_stop = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->th, NULL);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    r->threaded = false;
    r->q_n = 0;
}

/* The next decoded chunk into cur; file_end when the file has no more. */
static enum sp_status next_chunk(struct ev_lines *r, struct diag *err)
{
    r->cur_pos = r->cur_len = 0;
    if (!r->threaded) {
        enum sp_status s = decode_next(r, err);
        if (s != SP_OK)
            return s;
        swap_buf(&r->cur, &r->cur_cap, &r->out, &r->out_cap);
        r->cur_len = r->out_len;
        r->out_len = 0;
        r->file_end = r->stream_end;
        r->bytes += r->cur_len;
        return SP_OK;
    }
    pthread_mutex_lock(&r->mu);
    while (r->q_n == 0 && !r->dec_done)
        pthread_cond_wait(&r->cv, &r->mu);
    if (r->q_n > 0) {
        struct chunk *c = &r->q[r->q_head];
        swap_buf(&c->buf, &c->cap, &r->cur, &r->cur_cap);
        r->cur_len = c->len;
        r->q_head = (r->q_head + 1) % QUEUE;
        r->q_n--;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        r->bytes += r->cur_len;
        return SP_OK;
    }
    enum sp_status s = r->dec_status;
    struct diag derr = r->dec_err;
    pthread_mutex_unlock(&r->mu);
    stop_decoder(r); /* done: joined */
    if (s != SP_OK) {
        *err = derr;
        return s;
    }
    r->file_end = true;
    return SP_OK;
}

static enum sp_status lines_new(struct ev_lines **out, struct diag *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    (*out)->raw.fd = -1;
    return SP_OK;
}

enum sp_status ev_lines_open(const char *const *files, size_t n, struct ev_lines **out,
                             struct diag *err)
{
    enum sp_status s = lines_new(out, err);
    if (s != SP_OK)
        return s;
    (*out)->files = files;
    (*out)->n_files = n;
    return SP_OK;
}

enum sp_status ev_lines_open_mem(const void *bytes, size_t len, struct ev_lines **out,
                                 struct diag *err)
{
    enum sp_status s = lines_new(out, err);
    if (s != SP_OK)
        return s;
    (*out)->raw.mem = bytes;
    (*out)->raw.mem_len = len;
    (*out)->n_files = 1;
    return SP_OK;
}

/* Appends [p, p+n) to the straddling line. */
static bool line_append(struct ev_lines *r, const char *p, size_t n)
{
    if (r->line_len + n + 1 > r->line_cap) {
        size_t cap = r->line_cap ? r->line_cap : 4096;
        while (cap < r->line_len + n + 1)
            cap *= 2;
        char *nb = realloc(r->line, cap);
        if (!nb)
            return false;
        r->line = nb;
        r->line_cap = cap;
    }
    memcpy(r->line + r->line_len, p, n);
    r->line_len += n;
    return true;
}

static struct slice chomp(const char *p, size_t n)
{
    if (n && p[n - 1] == '\r')
        n--;
    return slice_make(p, n);
}

enum sp_status ev_lines_next(struct ev_lines *r, struct slice *line, bool *last, bool *eof,
                             struct diag *err)
{
    *eof = *last = false;
    r->line_len = 0;
    for (;;) {
        if (!r->open) {
            if (r->file >= r->n_files) {
                *eof = true;
                return SP_OK;
            }
            enum sp_status s = open_file(r, true, err);
            if (s != SP_OK)
                return s;
        }
        if (r->cur_pos < r->cur_len) {
            const char *p = r->cur + r->cur_pos;
            size_t n = r->cur_len - r->cur_pos;
            const char *nl = memchr(p, '\n', n);
            if (nl) {
                size_t k = (size_t)(nl - p);
                r->cur_pos += k + 1;
                r->lineno++;
                if (r->line_len == 0) {
                    *line = chomp(p, k);
                    return SP_OK;
                }
                if (!line_append(r, p, k))
                    goto nomem;
                *line = chomp(r->line, r->line_len);
                return SP_OK;
            }
            if (!line_append(r, p, n))
                goto nomem;
            r->cur_pos = r->cur_len;
        }
        if (r->file_end) { /* this file is done: its last line may lack a '\n' */
            close_file(r);
            r->file++;
            if (r->line_len > 0) {
                r->lineno++;
                *last = true;
                *line = chomp(r->line, r->line_len);
                return SP_OK;
            }
            continue;
        }
        enum sp_status s = next_chunk(r, err);
        if (s != SP_OK)
            return s;
    }
nomem:
    diag_set(err, 0, "out of memory (a line of %zu bytes)", r->line_len);
    return SP_ERR_NOMEM;
}

size_t ev_lines_file(const struct ev_lines *r)
{
    /* After a file's unterminated last line, file already points past it. */
    return r->open || r->file == 0 ? r->file : r->file - 1;
}

uint64_t ev_lines_lineno(const struct ev_lines *r) { return r->lineno; }
enum ev_codec ev_lines_codec(const struct ev_lines *r) { return r->codec; }
bool ev_lines_truncated(const struct ev_lines *r) { return r->truncated; }
uint64_t ev_lines_bytes(const struct ev_lines *r) { return r->bytes; }

void ev_lines_close(struct ev_lines *r)
{
    if (!r)
        return;
    close_file(r);
    free(r->raw.buf);
    ZSTD_freeDCtx(r->zstd);
    if (r->gz_init)
        inflateEnd(&r->gz);
    free(r->out);
    free(r->cur);
    for (size_t i = 0; i < QUEUE; i++)
        free(r->q[i].buf);
    free(r->line);
    free(r);
}

/* ev_file_is_eventlog for a regular file that is not compressed: its first 12 bytes answer
 * (a byte-order mark, then the record's opening), read alone.  The general way reads a
 * first chunk of 1 MB and copies it into the decoder's buffer: 2 MB of fresh memory (about
 * 500 page faults, 3-10 ms on the benchmark VM) before `--summary` of a 150 MB plan reads
 * a byte of it.  -1 (the general way decides) for anything else: a compressed file, a FIFO
 * (opened once only), a read error. */
static int plain_file_is_eventlog(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    unsigned char head[16]; /* ev_codec_detect reads 8 at most; open_file peeks 16 */
    ssize_t got;
    do
        got = pread(fd, head, sizeof head, 0);
    while (got < 0 && errno == EINTR);
    close(fd);
    if (got < 0 || ev_codec_detect(head, (size_t)got) != EV_PLAIN)
        return -1;
    size_t n = (size_t)got, at = n >= 3 && memcmp(head, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    return n - at >= 9 && memcmp(head + at, "{\"Event\":", 9) == 0;
}

bool ev_file_is_eventlog(const char *path)
{
    int plain = plain_file_is_eventlog(path);
    if (plain >= 0)
        return plain;
    const char *files[1] = {path};
    struct ev_lines *r = NULL;
    struct diag err = {0};
    struct slice line;
    bool last, eof, yes = false;
    if (ev_lines_open(files, 1, &r, &err) != SP_OK)
        return false;
    /* One decoded chunk is enough to see the first line's start. */
    if (open_file(r, false, &err) == SP_OK && decode_next(r, &err) == SP_OK) {
        const char *p = r->out;
        size_t n = r->out_len;
        if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
            p += 3, n -= 3;
        line = slice_make(p, n);
        yes = slice_starts_with(line, "{\"Event\":");
    }
    (void)last, (void)eof;
    ev_lines_close(r);
    return yes;
}
