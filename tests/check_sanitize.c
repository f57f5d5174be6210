/* The sanitizer: nothing from a plan reaches the terminal as a control sequence. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/sanitize.h"

static const char *clean(const char *in, size_t len)
{
    static char buf[512];
    sanitize_to_buf(slice_make(in, len), buf, sizeof buf);
    return buf;
}

START_TEST(escape_sequences_are_shown_not_sent)
{
    const char in[] = "Filter \x1b[31mred\x1b]0;title\x07 end";
    ck_assert_str_eq(clean(in, sizeof in - 1), "Filter ^[[31mred^[]0;title^G end");
}
END_TEST

START_TEST(c1_controls_and_bad_utf8_become_visible)
{
    ck_assert_str_eq(clean("a\xc2\x9b" "b", 4), "a<U+009B>b");
    ck_assert_str_eq(clean("x\xff\xc3", 3), "x\\xFF\\xC3");
    ck_assert_str_eq(clean("\xed\xa0\x80", 3), "\\xED\\xA0\\x80"); /* surrogate */
    ck_assert_str_eq(clean("nul\0x", 5), "nul^@x");
}
END_TEST

START_TEST(printable_unicode_and_tabs)
{
    ck_assert_str_eq(clean("caf\xc3\xa9 \xe2\x94\x80\tok", 12), "caf\xc3\xa9 \xe2\x94\x80 ok");
}
END_TEST

START_TEST(small_buffers_never_split_an_item)
{
    char buf[4];
    size_t need = sanitize_to_buf(slice_cstr("ab\x1b" "c"), buf, sizeof buf);
    ck_assert_uint_eq(need, 5);
    ck_assert_str_eq(buf, "ab");
}
END_TEST

#define CLEAN(lit) clean((lit), sizeof(lit) - 1)

START_TEST(bidi_and_zero_width_controls_become_visible)
{
    /* RLO (U+202E) would show "txt.exe" as "exe.txt"; each control is named instead. */
    ck_assert_str_eq(CLEAN("a\xe2\x80\xaetxt.exe"), "a<U+202E>txt.exe");
    ck_assert_str_eq(CLEAN("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad"),
                     "<U+202A><U+202B><U+202C><U+202D>");
    ck_assert_str_eq(CLEAN("\xe2\x81\xa6x\xe2\x81\xa9"), "<U+2066>x<U+2069>");
    ck_assert_str_eq(CLEAN("z\xe2\x80\x8bw\xe2\x80\x8f"), "z<U+200B>w<U+200F>");
    ck_assert_str_eq(CLEAN("b\xef\xbb\xbf" "c"), "b<U+FEFF>c");
    /* Neighbours that are ordinary text stay as they are. */
    ck_assert_str_eq(CLEAN("\xe2\x80\x94\xe2\x80\xb0"), "\xe2\x80\x94\xe2\x80\xb0");
}
END_TEST

START_TEST(writing_to_a_file_gives_the_same_bytes_as_the_buffer)
{
    /* Runs of plain ASCII around every kind of item, at several offsets of a 16-byte step. */
    static const char *const pieces[] = {"Project [a#1, b#2]", "\t", "\x1b[31m", "\x7f", "caf\xc3\xa9",
                                         "\xc2\x9b", "\xff", "~", " ", "\xe2\x94\x80", "\0"};
    static const size_t lens[] = {18, 1, 5, 1, 5, 2, 1, 1, 1, 3, 1};
    char in[400], want[2000], *got = NULL;
    size_t len = 0, got_len = 0;
    for (size_t i = 0; len + 20 < sizeof in; i = (i * 7 + 3) % 11) { /* bound: the buffer */
        memcpy(in + len, pieces[i], lens[i]);
        len += lens[i];
    }
    sanitize_to_buf(slice_make(in, len), want, sizeof want);
    FILE *f = open_memstream(&got, &got_len);
    ck_assert_ptr_nonnull(f);
    ck_assert(sanitize_fwrite(f, slice_make(in, len)));
    fclose(f);
    ck_assert_str_eq(got, want);
    free(got);
}
END_TEST

Suite *sanitize_suite(void)
{
    Suite *s = suite_create("sanitize");
    TCase *tc = tcase_create("sanitize");
    tcase_add_test(tc, escape_sequences_are_shown_not_sent);
    tcase_add_test(tc, c1_controls_and_bad_utf8_become_visible);
    tcase_add_test(tc, printable_unicode_and_tabs);
    tcase_add_test(tc, small_buffers_never_split_an_item);
    tcase_add_test(tc, bidi_and_zero_width_controls_become_visible);
    tcase_add_test(tc, writing_to_a_file_gives_the_same_bytes_as_the_buffer);
    suite_add_tcase(s, tc);
    return s;
}
