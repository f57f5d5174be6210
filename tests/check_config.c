/* The settings file: what each line sets, what a bad line says, what saving keeps. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sparkplan/config.h"
#include "testutil.h"

static void parse(struct config *c, const char *text)
{
    memset(c, 0, sizeof *c);
    config_parse(c, text, strlen(text), "config");
}

START_TEST(every_setting_is_read)
{
    struct config c;
    parse(&c, "# mine\n\ntheme = projector  # big room\nsplit=70\n  ascii = yes  \nexplain = off\r\n");
    ck_assert(c.has_theme && c.has_split && c.has_ascii && c.has_explain);
    ck_assert_str_eq(c.theme, "projector");
    ck_assert_int_eq(c.split, 70);
    ck_assert(c.ascii);
    ck_assert(!c.explain);
    ck_assert_str_eq(c.msg, "");
}
END_TEST

START_TEST(a_bad_line_names_its_number_and_the_rest_counts)
{
    struct config c;
    parse(&c, "theme = light\ncolour = red\nsplit = 95\n");
    ck_assert_str_eq(c.msg, "config line 2: unknown setting 'colour' (ignored)");
    ck_assert_uint_eq(c.n_problems, 2);
    ck_assert_str_eq(c.theme, "light");
    ck_assert(!c.has_split);
    parse(&c, "theme = neon\n");
    ck_assert_str_eq(c.msg, "config line 1: bad value 'neon' (ignored)");
    ck_assert(!c.has_theme);
    parse(&c, "\n\nthis is not a setting\n");
    ck_assert_str_eq(c.msg, "config line 3: expected key = value, not 'this is not a setting' "
                            "(ignored)");
}
END_TEST

START_TEST(saving_changes_one_line_and_keeps_the_rest)
{
    char dir[] = "/tmp/sparkplan-config-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/sparkplan/config", dir);
    char err[256];
    ck_assert(config_save(path, "theme", "light", err, sizeof err)); /* creates the folder */
    ck_assert(config_save(path, "split", "60", err, sizeof err));
    ck_assert(config_save(path, "theme", "projector", err, sizeof err));
    size_t len;
    char *text = tu_read_file(path, &len);
    ck_assert_str_eq(text, "theme = projector\nsplit = 60\n");
    free(text);
    struct config c;
    config_load(&c, path);
    ck_assert_str_eq(c.theme, "projector");
    ck_assert_int_eq(c.split, 60);
    unlink(path);
    snprintf(path, sizeof path, "%s/sparkplan", dir);
    rmdir(path);
    rmdir(dir);
}
END_TEST

START_TEST(the_path_follows_xdg_then_home)
{
    char buf[256];
    char *old = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
    setenv("XDG_CONFIG_HOME", "/x/cfg", 1);
    ck_assert(config_path(buf, sizeof buf));
    ck_assert_str_eq(buf, "/x/cfg/sparkplan/config");
    unsetenv("XDG_CONFIG_HOME");
    if (getenv("HOME")) {
        ck_assert(config_path(buf, sizeof buf));
        ck_assert(strstr(buf, "/.config/sparkplan/config") != NULL);
    }
    if (old)
        setenv("XDG_CONFIG_HOME", old, 1);
    free(old);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, every_setting_is_read);
    tcase_add_test(tc, a_bad_line_names_its_number_and_the_rest_counts);
    tcase_add_test(tc, saving_changes_one_line_and_keeps_the_rest);
    tcase_add_test(tc, the_path_follows_xdg_then_home);
    suite_add_tcase(s, tc);
    return s;
}
