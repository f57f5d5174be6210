/* sqlmetric.c: MetricUtils.stringValue and SQLAppStatusListener's bookkeeping (sqlmetric.h). */
#include "sparkplan/sqlmetric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- formatting ---------------------------------------------------------------------------- */

enum sqlm_type sqlm_type_parse(const char *s)
{
    static const char *const names[] = {"sum", "size", "timing", "nsTiming", "average"};
    for (size_t i = 0; s && i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i]) == 0)
            return (enum sqlm_type)i;
    return SQLM_OTHER;
}

const char *sqlm_type_name(enum sqlm_type t)
{
    static const char *const names[] = {"sum", "size", "timing", "nsTiming", "average", "other"};
    return (unsigned)t <= SQLM_OTHER ? names[t] : "other";
}

void sqlm_count_string(int64_t v, char *buf, size_t cap)
{
    char digits[32];
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)u);
    char out[48];
    size_t k = 0;
    if (v < 0)
        out[k++] = '-';
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = '\0';
    snprintf(buf, cap, "%s", out);
}

void sqlm_bytes_string(int64_t bytes, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    unsigned __int128 size = bytes < 0 ? 0 : (unsigned __int128)bytes;
    int u = 6;
    while (u > 0 && size < ((unsigned __int128)2 << (10 * u)))
        u--;
    unsigned __int128 unit = (unsigned __int128)1 << (10 * u);
    /* %.1f of a BigDecimal: HALF_UP at the first decimal, done exactly in integers. */
    unsigned __int128 tenths = (size * 20 + unit) / (unit * 2);
    snprintf(buf, cap, "%llu.%u %s", (unsigned long long)(tenths / 10), (unsigned)(tenths % 10),
             units[u]);
}

/* Java's %.Nf of a float argument: the float widened to double, its shortest decimal form
 * (Double.toString's digits), rounded HALF_UP to N decimals. */
static void java_fixed(float f, int decimals, char *buf, size_t cap)
{
    double d = f;
    char tmp[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    /* tmp = "D.DDDDe[+-]XX": digits and a decimal exponent. */
    char digits[32];
    size_t nd = 0;
    const char *p = tmp;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp10 = atoi(p + 1);
    /* value = 0.digits * 10^(exp10 + 1); scale to an integer of `decimals` decimals. */
    long long whole = 0;
    int point = exp10 + 1 + decimals; /* digits kept before rounding */
    for (int i = 0; i < point && i < (int)nd; i++)
        whole = whole * 10 + (digits[i] - '0');
    for (int i = (int)nd; i < point; i++)
        whole *= 10;
    if (point >= 0 && point < (int)nd && digits[point] >= '5')
        whole++;
    long long scale = 1;
    for (int i = 0; i < decimals; i++)
        scale *= 10;
    snprintf(buf, cap, "%lld.%0*lld", whole / scale, decimals, whole % scale);
}

void sqlm_ms_string(int64_t ms, char *buf, size_t cap)
{
    const int64_t second = 1000, minute = 60 * second, hour = 60 * minute;
    char num[48];
    if (ms < second) {
        snprintf(buf, cap, "%lld ms", (long long)ms);
        return;
    }
    float t = (float)ms;
    const char *unit = ms < minute ? "s" : ms < hour ? "m" : "h";
    float div = ms < minute ? 1000.0f : ms < hour ? 60000.0f : 3600000.0f;
    java_fixed(t / div, ms < hour ? 1 : 2, num, sizeof num);
    snprintf(buf, cap, "%s %s", num, unit);
}

/* NumberFormat.getNumberInstance(Locale.US) of v / 10: grouped, up to 3 decimals (v is a
 * whole number of tenths, so one decimal at most, none when it is 0). */
static void average_string(int64_t v, char *buf, size_t cap)
{
    char whole[48];
    sqlm_count_string(v / 10, whole, sizeof whole);
    int64_t frac = v % 10 < 0 ? -(v % 10) : v % 10;
    if (frac)
        snprintf(buf, cap, "%s%s.%lld", v < 0 && v / 10 == 0 ? "-" : "", whole, (long long)frac);
    else
        snprintf(buf, cap, "%s", whole);
}

bool sqlm_name_is_spark2(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    return n >= 15 && strcmp(name + n - 15, "(min, med, max)") == 0;
}

/* The value that would be at index k once v[0..n) is sorted: selection by three-way
 * partitions (a loop, linear on average, fast on the many zeros of empty tasks); v is
 * reordered. */
static int64_t nth_value(int64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        int64_t pivot = v[lo + (hi - lo) / 2], t;
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < pivot)
                t = v[lt], v[lt++] = v[i], v[i++] = t;
            else if (v[i] > pivot)
                t = v[--gt], v[gt] = v[i], v[i] = t;
            else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return v[lo];
}

static void one(enum sqlm_type t, int64_t v, char *buf, size_t cap)
{
    if (t == SQLM_SIZE)
        sqlm_bytes_string(v, buf, cap);
    else if (t == SQLM_TIMING)
        sqlm_ms_string(v, buf, cap);
    else if (t == SQLM_NS_TIMING)
        sqlm_ms_string(v / 1000000, buf, cap);
    else if (t == SQLM_AVERAGE)
        average_string(v, buf, cap);
    else
        sqlm_count_string(v, buf, cap);
}

/* Keeps the values the type counts (size/timing: >= 0; average: > 0) at the front. */
static size_t keep_valid(enum sqlm_type t, int64_t *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (t == SQLM_AVERAGE ? v[i] > 0 : v[i] >= 0)
            v[k++] = v[i];
    return k;
}

void sqlm_format(enum sqlm_type t, bool spark2, int64_t *values, size_t n,
                 const int64_t *max_task, struct sqlm_value *out, char *buf, size_t cap)
{
    out->type = t;
    out->max_from_task = max_task != NULL;
    if (max_task)
        out->max_stage = (int32_t)max_task[1], out->max_attempt = (int32_t)max_task[2],
        out->max_task = max_task[3];
    if (t == SQLM_OTHER) {
        snprintf(buf, cap, "N/A");
        return;
    }
    size_t k = t == SQLM_SUM ? n : keep_valid(t, values, n);
    int64_t total = 0, vmin = k ? values[0] : 0, vmax = vmin;
    for (size_t i = 0; i < k; i++) {
        total += values[i];
        vmin = values[i] < vmin ? values[i] : vmin;
        vmax = values[i] > vmax ? values[i] : vmax;
    }
    out->n = (uint32_t)k;
    out->total = total;
    out->min = vmin;
    out->med = k ? nth_value(values, k, k / 2) : 0; /* sorted[n / 2], as Spark takes it */
    out->max = vmax;
    if (t == SQLM_SUM) {
        sqlm_count_string(total, buf, cap);
        return;
    }
    char s[48], mn[48], md[48], mx[48], info[96];
    if (k <= 1 && !spark2) {
        one(t, k ? values[0] : 0, buf, cap);
        return;
    }
    if (t != SQLM_AVERAGE)
        one(t, total, s, sizeof s);
    one(t, out->min, mn, sizeof mn);
    one(t, out->med, md, sizeof md);
    one(t, out->max, mx, sizeof mx);
    if (spark2) {
        if (t == SQLM_AVERAGE)
            snprintf(buf, cap, "\n(%s, %s, %s)", mn, md, mx);
        else
            snprintf(buf, cap, "\n%s (%s, %s, %s)", s, mn, md, mx);
        return;
    }
    if (max_task)
        snprintf(info, sizeof info, "(stage %lld.%lld: task %lld)", (long long)max_task[1],
                 (long long)max_task[2], (long long)max_task[3]);
    else
        snprintf(info, sizeof info, "(driver)");
    if (t == SQLM_AVERAGE)
        snprintf(buf, cap, "(min, med, max (stageId: taskId)):\n(%s, %s, %s %s)", mn, md, mx,
                 info);
    else
        snprintf(buf, cap, "total (min, med, max (stageId: taskId))\n%s (%s, %s, %s %s)", s, mn,
                 md, mx, info);
}

/* ---- a map from 64-bit ids to 64-bit values or pointers ------------------------------------- */

struct imap {
    int64_t *keys;
    union { int64_t i; void *p; } *vals;
    uint8_t *used;
    size_t cap, n;
};

static size_t ihash(int64_t k, size_t cap)
{
    uint64_t x = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    return (size_t)(x ^ (x >> 29)) & (cap - 1);
}

static long imap_find(const struct imap *m, int64_t k)
{
    if (!m->cap)
        return -1;
    for (size_t i = ihash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return -1;
        if (m->keys[i] == k)
            return (long)i;
    }
}

static bool imap_grow(struct imap *m)
{
    struct imap g = {0};
    g.cap = m->cap ? m->cap * 2 : 16;
    g.keys = malloc(g.cap * sizeof *g.keys);
    g.vals = malloc(g.cap * sizeof *g.vals);
    g.used = calloc(g.cap, 1);
    if (!g.keys || !g.vals || !g.used) {
        free(g.keys), free(g.vals), free(g.used);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        size_t j = ihash(m->keys[i], g.cap);
        while (g.used[j])
            j = (j + 1) & (g.cap - 1);
        g.used[j] = 1, g.keys[j] = m->keys[i], g.vals[j] = m->vals[i];
    }
    g.n = m->n;
    free(m->keys), free(m->vals), free(m->used);
    *m = g;
    return true;
}

/* The slot of k, added (value zeroed) when absent; -1 when memory ran out. */
static long imap_slot(struct imap *m, int64_t k, bool *added)
{
    long at = imap_find(m, k);
    *added = false;
    if (at >= 0)
        return at;
    if ((m->n + 1) * 2 > m->cap && !imap_grow(m))
        return -1;
    size_t i = ihash(k, m->cap);
    while (m->used[i])
        i = (i + 1) & (m->cap - 1);
    m->used[i] = 1, m->keys[i] = k, m->vals[i].i = 0, m->n++;
    *added = true;
    return (long)i;
}

/* Removal by re-inserting the run after the hole (linear probing). */
static void imap_remove(struct imap *m, int64_t k)
{
    long at = imap_find(m, k);
    if (at < 0)
        return;
    size_t i = (size_t)at;
    m->used[i] = 0, m->n--;
    for (size_t j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
        int64_t key = m->keys[j];
        size_t want = ihash(key, m->cap);
        /* Move j into the hole when its home is not between the hole and j (cyclically). */
        bool move = i <= j ? (want <= i || want > j) : (want <= i && want > j);
        if (move) {
            m->used[i] = 1, m->keys[i] = key, m->vals[i] = m->vals[j];
            m->used[j] = 0;
            i = j;
        }
    }
}

static void imap_free(struct imap *m)
{
    free(m->keys), free(m->vals), free(m->used);
    memset(m, 0, sizeof *m);
}

/* ---- the listener ---------------------------------------------------------------------------- */

struct exec_state {
    int64_t id;
    struct imap types;       /* acc -> (order << 8 | type << 1 | spark2) */
    size_t n_types;
    int32_t *stages;
    size_t n_stages, cap_stages;
    int64_t *drv_acc, *drv_val;  /* driver updates in arrival order */
    size_t n_drv, cap_drv;
    bool finished;
};

struct stage_table {          /* LiveStageMetrics */
    int32_t stage, attempt;
    uint32_t num_tasks;
    struct exec_state *exec;  /* whose metric types it tracks ... */
    size_t n_types;           /* ... as they were at its JobStart */
    struct imap values;       /* acc -> int64_t[num_tasks] */
    struct imap maxes;        /* acc -> int64_t[2] {value, task id} */
    uint8_t *completed;       /* one bit a task index */
};

struct sqll {
    struct imap execs;        /* exec id -> struct exec_state * */
    struct imap stages;       /* stage id -> struct stage_table * */
};

struct sqll *sqll_new(void) { return calloc(1, sizeof(struct sqll)); }

static void table_free(struct stage_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->values.cap; i++)
        if (t->values.used[i])
            free(t->values.vals[i].p);
    for (size_t i = 0; i < t->maxes.cap; i++)
        if (t->maxes.used[i])
            free(t->maxes.vals[i].p);
    imap_free(&t->values);
    imap_free(&t->maxes);
    free(t->completed);
    free(t);
}

static void exec_free(struct exec_state *e)
{
    imap_free(&e->types);
    free(e->stages), free(e->drv_acc), free(e->drv_val);
    free(e);
}

void sqll_free(struct sqll *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->stages.cap; i++)
        if (l->stages.used[i])
            table_free(l->stages.vals[i].p);
    for (size_t i = 0; i < l->execs.cap; i++)
        if (l->execs.used[i])
            exec_free(l->execs.vals[i].p);
    imap_free(&l->stages);
    imap_free(&l->execs);
    free(l);
}

static struct exec_state *exec_get(struct sqll *l, int64_t id, bool create)
{
    bool added;
    long at = create ? imap_slot(&l->execs, id, &added) : imap_find(&l->execs, id);
    if (at < 0)
        return NULL;
    if (create && added) {
        struct exec_state *e = calloc(1, sizeof *e);
        if (!e) {
            imap_remove(&l->execs, id);
            return NULL;
        }
        e->id = id;
        l->execs.vals[at].p = e;
    }
    return l->execs.vals[at].p;
}

bool sqll_exec_metric(struct sqll *l, int64_t exec, int64_t acc, enum sqlm_type type,
                      bool spark2)
{
    struct exec_state *e = exec_get(l, exec, true);
    bool added;
    long at = e ? imap_slot(&e->types, acc, &added) : -1;
    if (at < 0)
        return false;
    /* A later plan's type for the same id wins (Scala's toMap); the order stays. */
    int64_t order = added ? (int64_t)e->n_types++ : e->types.vals[at].i >> 8;
    e->types.vals[at].i = order << 8 | (int64_t)type << 1 | (spark2 ? 1 : 0);
    return true;
}

static bool add_stage_id(struct exec_state *e, int32_t s)
{
    for (size_t i = 0; i < e->n_stages; i++)
        if (e->stages[i] == s)
            return true;
    if (e->n_stages == e->cap_stages) {
        size_t cap = e->cap_stages ? e->cap_stages * 2 : 8;
        int32_t *nb = realloc(e->stages, cap * sizeof *nb);
        if (!nb)
            return false;
        e->stages = nb, e->cap_stages = cap;
    }
    e->stages[e->n_stages++] = s;
    return true;
}

static struct stage_table *table_new(int32_t stage, int32_t attempt, uint32_t num_tasks,
                                     struct exec_state *e, size_t n_types)
{
    struct stage_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->completed = calloc(num_tasks / 8 + 1, 1);
    if (!t->completed) {
        free(t);
        return NULL;
    }
    t->stage = stage, t->attempt = attempt, t->num_tasks = num_tasks;
    t->exec = e, t->n_types = n_types;
    return t;
}

static bool put_table(struct sqll *l, struct stage_table *t)
{
    bool added;
    long at = imap_slot(&l->stages, t->stage, &added);
    if (at < 0) {
        table_free(t);
        return false;
    }
    if (!added)
        table_free(l->stages.vals[at].p);
    l->stages.vals[at].p = t;
    return true;
}

bool sqll_job_start(struct sqll *l, int64_t exec, const int32_t *stage_ids,
                    const uint32_t *num_tasks, size_t n)
{
    struct exec_state *e = exec_get(l, exec, true);
    if (!e)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!add_stage_id(e, stage_ids[i]))
            return false;
        if (e->n_types == 0) /* no metrics yet: Spark keeps no table */
            continue;
        struct stage_table *t = table_new(stage_ids[i], 0, num_tasks[i], e, e->n_types);
        if (!t || !put_table(l, t))
            return false;
    }
    return true;
}

void sqll_stage_submitted(struct sqll *l, int32_t stage, int32_t attempt)
{
    long at = imap_find(&l->stages, stage);
    if (at < 0)
        return;
    struct stage_table *old = l->stages.vals[at].p;
    if (old->attempt == attempt)
        return;
    struct stage_table *t = table_new(stage, attempt, old->num_tasks, old->exec, old->n_types);
    if (t)
        put_table(l, t);
}

/* The type of acc if the table tracks it (the execution had it at the table's JobStart). */
static bool table_tracks(const struct stage_table *t, int64_t acc, enum sqlm_type *type)
{
    long at = imap_find(&t->exec->types, acc);
    if (at < 0)
        return false;
    int64_t v = t->exec->types.vals[at].i;
    if ((size_t)(v >> 8) >= t->n_types)
        return false;
    *type = (enum sqlm_type)((v >> 1) & 0x7f);
    return true;
}

static bool task_update(struct stage_table *t, int64_t task_id, uint32_t index, int64_t acc,
                        int64_t value)
{
    enum sqlm_type type;
    if (!table_tracks(t, acc, &type))
        return true;
    bool added;
    long at = imap_slot(&t->values, acc, &added);
    if (at < 0)
        return false;
    if (added && !(t->values.vals[at].p = calloc(t->num_tasks ? t->num_tasks : 1, 8))) {
        imap_remove(&t->values, acc);
        return false;
    }
    ((int64_t *)t->values.vals[at].p)[index] = value;
    if (type == SQLM_SUM)
        return true;
    long m = imap_slot(&t->maxes, acc, &added);
    if (m < 0)
        return false;
    int64_t *mx = t->maxes.vals[m].p;
    if (added) {
        if (!(mx = malloc(2 * sizeof *mx))) {
            imap_remove(&t->maxes, acc);
            return false;
        }
        mx[0] = value, mx[1] = task_id;
        t->maxes.vals[m].p = mx;
    } else if (value > mx[0]) {
        mx[0] = value, mx[1] = task_id;
    }
    return true;
}

bool sqll_task_end(struct sqll *l, int32_t stage, int32_t attempt, int64_t task_id,
                   uint32_t index, bool successful, const int64_t *acc_ids,
                   const int64_t *updates, size_t n)
{
    long at = imap_find(&l->stages, stage);
    if (at < 0)
        return true;
    struct stage_table *t = l->stages.vals[at].p;
    if (t->attempt != attempt || index >= t->num_tasks || t->exec->finished)
        return true;
    if (t->completed[index / 8] & (1u << (index % 8)))
        return true;
    for (size_t i = 0; i < n; i++)
        if (updates[i] >= 0 && !task_update(t, task_id, index, acc_ids[i], updates[i]))
            return false;
    if (successful)
        t->completed[index / 8] |= (uint8_t)(1u << (index % 8));
    return true;
}

bool sqll_driver_update(struct sqll *l, int64_t exec, int64_t acc, int64_t value)
{
    struct exec_state *e = exec_get(l, exec, false);
    if (!e || e->finished)
        return true;
    if (e->n_drv == e->cap_drv) {
        size_t cap = e->cap_drv ? e->cap_drv * 2 : 8;
        int64_t *a = realloc(e->drv_acc, cap * sizeof *a);
        if (!a)
            return false;
        e->drv_acc = a;
        int64_t *v = realloc(e->drv_val, cap * sizeof *v);
        if (!v)
            return false;
        e->drv_val = v, e->cap_drv = cap;
    }
    e->drv_acc[e->n_drv] = acc, e->drv_val[e->n_drv++] = value;
    return true;
}

const int32_t *sqll_exec_stages(const struct sqll *l, int64_t exec, size_t *n)
{
    long at = imap_find(&l->execs, exec);
    struct exec_state *e = at >= 0 ? l->execs.vals[at].p : NULL;
    *n = e ? e->n_stages : 0;
    return e && e->n_stages ? e->stages : NULL;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_value(const void *a, const void *b)
{
    int64_t x = ((const struct sqlm_value *)a)->acc_id, y = ((const struct sqlm_value *)b)->acc_id;
    return (x > y) - (x < y);
}

/* One accumulator of a finishing execution: its values over the stages (sorted ids), the
 * max over them, the driver's values; false when there is nothing to show. */
static bool aggregate_one(const struct sqll *l, const struct exec_state *e, const int32_t *st,
                          int64_t acc, enum sqlm_type type, bool spark2, int64_t **buf,
                          size_t *cap, struct sqlm_value *out, struct arena *a, bool *nomem)
{
    size_t n = 0;
    int64_t max[4];
    bool have_max = false, any = false;
    for (size_t i = 0; i < e->n_stages; i++) {
        long at = imap_find(&l->stages, st[i]);
        if (at < 0)
            continue;
        const struct stage_table *t = l->stages.vals[at].p;
        long v = imap_find(&t->values, acc);
        if (v >= 0) {
            if (n + t->num_tasks > *cap) {
                size_t c = (*cap ? *cap : 64);
                while (c < n + t->num_tasks)
                    c *= 2;
                int64_t *nb = realloc(*buf, c * sizeof *nb);
                if (!nb)
                    return *nomem = true, false;
                *buf = nb, *cap = c;
            }
            memcpy(*buf + n, t->values.vals[v].p, t->num_tasks * sizeof(int64_t));
            n += t->num_tasks;
            any = true;
        }
        long m = imap_find(&t->maxes, acc);
        if (m >= 0) {
            const int64_t *mx = t->maxes.vals[m].p;
            if (!have_max || mx[0] > max[0])
                max[0] = mx[0], max[1] = t->stage, max[2] = t->attempt, max[3] = mx[1];
            have_max = true;
        }
    }
    for (size_t i = 0; i < e->n_drv; i++) {
        if (e->drv_acc[i] != acc)
            continue;
        if (have_max && any && e->drv_val[i] > max[0])
            have_max = false;
        if (n + 1 > *cap) {
            size_t c = *cap ? *cap * 2 : 64;
            int64_t *nb = realloc(*buf, c * sizeof *nb);
            if (!nb)
                return *nomem = true, false;
            *buf = nb, *cap = c;
        }
        (*buf)[n++] = e->drv_val[i];
        any = true;
    }
    if (!any)
        return false;
    char text[512];
    memset(out, 0, sizeof *out);
    out->acc_id = acc;
    sqlm_format(type, spark2, *buf, n, have_max ? max : NULL, out, text, sizeof text);
    out->text = arena_strdup(a, text);
    if (!out->text)
        *nomem = true;
    return out->text != NULL;
}

/* Drops the tables of e's stages that no other unfinished execution lists. */
static void drop_tables(struct sqll *l, struct exec_state *e)
{
    for (size_t i = 0; i < e->n_stages; i++) {
        bool shared = false;
        for (size_t j = 0; j < l->execs.cap && !shared; j++) {
            const struct exec_state *o = l->execs.used[j] ? l->execs.vals[j].p : NULL;
            if (!o || o == e || o->finished)
                continue;
            for (size_t k = 0; k < o->n_stages && !shared; k++)
                shared = o->stages[k] == e->stages[i];
        }
        long at = shared ? -1 : imap_find(&l->stages, e->stages[i]);
        if (at >= 0) {
            table_free(l->stages.vals[at].p);
            imap_remove(&l->stages, e->stages[i]);
        }
    }
}

struct sqlm_value *sqll_exec_finish(struct sqll *l, int64_t exec, struct arena *a, size_t *n,
                                    bool *nomem)
{
    *n = 0;
    *nomem = false;
    struct exec_state *e = exec_get(l, exec, false);
    if (!e || e->finished || e->types.n == 0) {
        if (e && !e->finished)
            drop_tables(l, e), e->finished = true;
        return NULL;
    }
    struct sqlm_value *out = arena_alloc(a, e->types.n * sizeof *out);
    int32_t *st = malloc((e->n_stages ? e->n_stages : 1) * sizeof *st);
    int64_t *buf = NULL;
    size_t cap = 0;
    if (!out || !st) {
        free(st);
        *nomem = true;
        return NULL;
    }
    if (e->n_stages) {
        memcpy(st, e->stages, e->n_stages * sizeof *st);
        qsort(st, e->n_stages, sizeof *st, cmp_i32);
    }
    for (size_t i = 0; i < e->types.cap && !*nomem; i++) {
        if (!e->types.used[i])
            continue;
        int64_t v = e->types.vals[i].i;
        if (aggregate_one(l, e, st, e->types.keys[i], (enum sqlm_type)((v >> 1) & 0x7f), v & 1,
                          &buf, &cap, &out[*n], a, nomem))
            (*n)++;
    }
    free(buf);
    free(st);
    drop_tables(l, e);
    e->finished = true;
    if (*nomem)
        return NULL;
    qsort(out, *n, sizeof *out, cmp_value);
    return *n ? out : NULL;
}

const struct sqlm_value *sqlm_find(const struct sqlm_value *v, size_t n, int64_t acc)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].acc_id < acc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].acc_id == acc ? &v[lo] : NULL;
}
