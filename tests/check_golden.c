/* Golden outputs: for every samples/NAME.txt, `sparkplan --print` and `--json` must equal
 * tests/golden/NAME.print and NAME.json byte for byte.  `make golden` rewrites them; each
 * rewritten file is read against its sample before it is committed.
 *
 * tests/golden/PENDING lists samples whose goldens wait for a reason (one "NAME<TAB>why" a
 * line); they are skipped with a message.  Every other sample must have both files, and
 * every golden file must have its sample. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define GOLDEN_DIR "tests/golden"
#define MAX_SAMPLES 256

static int compare_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Sorted base names (without .txt) of the .txt files in samples/. */
static size_t list_samples(char names[][128])
{
    DIR *d = opendir("samples");
    ck_assert_msg(d != NULL, "samples/ not found (tests run from the repository root)");
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || len >= 128 || strcmp(e->d_name + len - 4, ".txt") != 0)
            continue;
        ck_assert_uint_lt(n, MAX_SAMPLES);
        memcpy(names[n], e->d_name, len - 4);
        names[n][len - 4] = '\0';
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof names[0], compare_names);
    return n;
}

static bool is_pending(const char *name)
{
    char *list = tu_read_file(GOLDEN_DIR "/PENDING", NULL);
    if (!list)
        return false;
    bool found = false;
    size_t n = strlen(name);
    for (char *line = list; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, name, n) == 0 && line[n] == '\t') {
            found = true;
            break;
        }
    free(list);
    return found;
}

/* 1-based number of the first line where a and b differ, and that line of each. */
static void first_difference(const char *a, const char *b, char *msg, size_t cap)
{
    unsigned line = 1;
    const char *la = a, *lb = b;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++, b++;
    }
    int wa = (int)strcspn(la, "\n"), wb = (int)strcspn(lb, "\n");
    snprintf(msg, cap, "line %u:\n  golden: %.*s\n  actual: %.*s", line, wa > 300 ? 300 : wa, la,
             wb > 300 ? 300 : wb, lb);
}

static void check_one(const char *name, const char *flag, const char *ext)
{
    char golden_path[256], cmd[512], msg[1024];
    snprintf(golden_path, sizeof golden_path, GOLDEN_DIR "/%s.%s", name, ext);
    char *golden = tu_read_file(golden_path, NULL);
    ck_assert_msg(golden != NULL, "%s is missing: run `make golden`, then read it against "
                                  "samples/%s.txt", golden_path, name);
    snprintf(cmd, sizeof cmd, "'%s' %s samples/%s.txt", tu_binary(), flag, name);
    int status = -1;
    char *out = tu_run(cmd, &status);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(status == 0, "%s exited with %d", cmd, status);
    if (strcmp(golden, out) != 0) {
        first_difference(golden, out, msg, sizeof msg);
        ck_abort_msg("%s differs from %s at %s", cmd, golden_path, msg);
    }
    free(out);
    free(golden);
}

START_TEST(every_sample_matches_its_golden_outline_and_json)
{
    static char names[MAX_SAMPLES][128];
    size_t n = list_samples(names);
    ck_assert_msg(n > 0, "no samples/*.txt");
    for (size_t i = 0; i < n; i++) {
        if (is_pending(names[i])) {
            fprintf(stderr, "SKIP: golden for samples/%s.txt pending (see %s/PENDING)\n",
                    names[i], GOLDEN_DIR);
            continue;
        }
        check_one(names[i], "--print", "print");
        check_one(names[i], "--json", "json");
    }
}
END_TEST

START_TEST(every_golden_file_has_its_sample)
{
    DIR *d = opendir(GOLDEN_DIR);
    if (!d)
        return; /* no goldens yet: nothing can be stale */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".print") != 0 && strcmp(dot, ".json") != 0))
            continue;
        char sample[512];
        snprintf(sample, sizeof sample, "samples/%.*s.txt", (int)(dot - e->d_name), e->d_name);
        FILE *f = fopen(sample, "rb");
        ck_assert_msg(f != NULL, "%s/%s has no sample %s", GOLDEN_DIR, e->d_name, sample);
        fclose(f);
    }
    closedir(d);
}
END_TEST

Suite *golden_suite(void)
{
    Suite *s = suite_create("golden");
    TCase *tc = tcase_create("golden");
    tcase_add_test(tc, every_sample_matches_its_golden_outline_and_json);
    tcase_add_test(tc, every_golden_file_has_its_sample);
    suite_add_tcase(s, tc);
    return s;
}
