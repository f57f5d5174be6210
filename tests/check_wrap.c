/* The one wrap rule (wrap.h), measured in bytes: where each mode ends a line. */
#include "testutil.h"

#include <string.h>

#include "sparkplan/wrap.h"

static size_t next(const char *s, int width, enum wrap_mode mode)
{
    return wrap_next(slice_cstr(s), width, mode, NULL, NULL);
}

START_TEST(each_mode_ends_the_line_where_its_readers_expect)
{
    const char *s = "aaaa bbbb cccc";
    ck_assert_uint_eq(next(s, 9, WRAP_CHARS), 9);
    ck_assert_uint_eq(next(s, 9, WRAP_SPACES), 5);  /* "aaaa " : the help */
    ck_assert_uint_eq(next(s, 9, WRAP_WORDS), 9);   /* "aaaa bbbb", the space left over */
    ck_assert_uint_eq(next(s, 7, WRAP_WORDS), 4);   /* "aaaa" */
    ck_assert_uint_eq(next("abcdefghij", 4, WRAP_WORDS), 4);   /* one long word: cut */
    ck_assert_uint_eq(next("/usr/local/share/x", 12, WRAP_PATHS), 11); /* "/usr/local/" */
    /* Before a bracket, never inside a name while a break exists (even early in the line). */
    ck_assert_uint_eq(next("hashpartitioning(item#1, 200)", 20, WRAP_PATHS), 16);
    ck_assert_uint_eq(next("a, long_identifier_name", 20, WRAP_PATHS), 3); /* "a, " */
    ck_assert_uint_eq(next("long_identifier_name_x", 10, WRAP_PATHS), 10); /* no break */
    ck_assert_uint_eq(next("short", 40, WRAP_SPACES), 5);
    ck_assert_uint_eq(next("", 10, WRAP_WORDS), 0);
}
END_TEST

Suite *wrap_suite(void)
{
    Suite *s = suite_create("wrap");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, each_mode_ends_the_line_where_its_readers_expect);
    suite_add_tcase(s, tc);
    return s;
}
