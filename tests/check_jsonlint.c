/* The tests' JSON checker (see jsonlint.h) and its own suite. */
#include "jsonlint.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/sanitize.h"

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* At '"': moves *i past the closing quote, or returns a message. */
static const char *lex_string(const char *s, size_t *i, size_t n)
{
    size_t k = *i + 1;
    while (k < n) {
        unsigned char c = (unsigned char)s[k];
        if (c == '"') {
            *i = k + 1;
            return NULL;
        }
        if (c < 0x20) {
            *i = k;
            return "raw control character in string";
        }
        if (c == '\\') {
            if (k + 1 >= n)
                break;
            char e = s[k + 1];
            if (e == 'u') {
                for (int j = 2; j < 6; j++)
                    if (k + (size_t)j >= n || hexval(s[k + (size_t)j]) < 0) {
                        *i = k;
                        return "bad \\u escape";
                    }
                k += 6;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                k += 2;
            } else {
                *i = k;
                return "bad escape";
            }
            continue;
        }
        if (c >= 0x80) {
            size_t used = sanitize_utf8_len(s + k, n - k, NULL);
            if (!used) {
                *i = k;
                return "invalid UTF-8 in string";
            }
            k += used;
            continue;
        }
        k++;
    }
    *i = k;
    return "unterminated string";
}

static const char *lex_number(const char *s, size_t *i, size_t n)
{
    size_t k = *i;
    if (k < n && s[k] == '-')
        k++;
    if (k < n && s[k] == '0') {
        k++;
    } else if (k < n && s[k] >= '1' && s[k] <= '9') {
        while (k < n && s[k] >= '0' && s[k] <= '9')
            k++;
    } else {
        return "bad number";
    }
    if (k < n && s[k] == '.') {
        k++;
        if (k >= n || s[k] < '0' || s[k] > '9')
            return "bad fraction";
        while (k < n && s[k] >= '0' && s[k] <= '9')
            k++;
    }
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        if (k >= n || s[k] < '0' || s[k] > '9')
            return "bad exponent";
        while (k < n && s[k] >= '0' && s[k] <= '9')
            k++;
    }
    *i = k;
    return NULL;
}

static const char *lex_scalar(const char *s, size_t *i, size_t n)
{
    static const char *const words[] = {"true", "false", "null"};
    if (s[*i] == '"')
        return lex_string(s, i, n);
    for (size_t w = 0; w < 3; w++) {
        size_t l = strlen(words[w]);
        if (n - *i >= l && memcmp(s + *i, words[w], l) == 0) {
            *i += l;
            return NULL;
        }
    }
    return lex_number(s, i, n);
}

enum want { WANT_VALUE, WANT_VALUE_OR_CLOSE, WANT_KEY, WANT_KEY_OR_CLOSE, WANT_COMMA_OR_CLOSE };

const char *jsonlint_check(const char *s, size_t len, size_t *at)
{
    size_t cap = 64, depth = 0, i = 0;
    char *stack = malloc(cap);
    const char *msg = NULL;
    enum want want = WANT_VALUE;
    if (!stack)
        return "out of memory";
    for (;;) {
        i = skip_ws(s, i, len);
        if (i >= len) {
            msg = "unexpected end";
            break;
        }
        char c = s[i];
        bool closed_value = false;
        if (want == WANT_VALUE || want == WANT_VALUE_OR_CLOSE) {
            if (want == WANT_VALUE_OR_CLOSE && c == ']') {
                depth--, i++;
                closed_value = true;
            } else if (c == '{' || c == '[') {
                if (depth == cap) {
                    char *ns = realloc(stack, cap * 2);
                    if (!ns) {
                        msg = "out of memory";
                        break;
                    }
                    stack = ns, cap *= 2;
                }
                stack[depth++] = c, i++;
                want = c == '{' ? WANT_KEY_OR_CLOSE : WANT_VALUE_OR_CLOSE;
                continue;
            } else if ((msg = lex_scalar(s, &i, len)) != NULL) {
                break;
            } else {
                closed_value = true;
            }
        } else if (want == WANT_KEY || want == WANT_KEY_OR_CLOSE) {
            if (want == WANT_KEY_OR_CLOSE && c == '}') {
                depth--, i++;
                closed_value = true;
            } else if (c != '"') {
                msg = "expected a key";
                break;
            } else if ((msg = lex_string(s, &i, len)) != NULL) {
                break;
            } else {
                i = skip_ws(s, i, len);
                if (i >= len || s[i] != ':') {
                    msg = "expected ':'";
                    break;
                }
                i++;
                want = WANT_VALUE;
                continue;
            }
        } else { /* WANT_COMMA_OR_CLOSE */
            char top = stack[depth - 1];
            if (c == ',') {
                i++;
                want = top == '{' ? WANT_KEY : WANT_VALUE;
                continue;
            }
            if (c != (top == '{' ? '}' : ']')) {
                msg = "expected ',' or a closing bracket";
                break;
            }
            depth--, i++;
            closed_value = true;
        }
        if (closed_value) {
            if (depth == 0) {
                i = skip_ws(s, i, len);
                if (i != len)
                    msg = "text after the value";
                break;
            }
            want = WANT_COMMA_OR_CLOSE;
        }
    }
    free(stack);
    if (msg && at)
        *at = i;
    return msg;
}

static bool valid(const char *s)
{
    return jsonlint_check(s, strlen(s), NULL) == NULL;
}

START_TEST(accepts_well_formed_json)
{
    ck_assert(valid("{}"));
    ck_assert(valid(" [1, -2.5e+3, true, false, null, \"a\\u00e9\\n\"]\n"));
    ck_assert(valid("{\"a\": {\"b\": [[], {}]}, \"c\": \"\xc3\xa9\"}"));
    ck_assert(valid("0"));
}
END_TEST

START_TEST(rejects_malformed_json)
{
    ck_assert(!valid(""));
    ck_assert(!valid("{"));
    ck_assert(!valid("[1,]"));
    ck_assert(!valid("{\"a\" 1}"));
    ck_assert(!valid("{\"a\":1,}"));
    ck_assert(!valid("[01]"));
    ck_assert(!valid("[\"tab\there\"]"));
    ck_assert(!valid("[\"\x1b\"]"));
    ck_assert(!valid("[\"\xff\"]"));
    ck_assert(!valid("[\"\\x41\"]"));
    ck_assert(!valid("{} {}"));
    ck_assert(!valid("[1}"));
    ck_assert(!valid("nul"));
}
END_TEST

START_TEST(checks_deep_nesting_without_recursion)
{
    size_t depth = 200000;
    char *s = malloc(2 * depth + 1);
    ck_assert_ptr_nonnull(s);
    memset(s, '[', depth);
    memset(s + depth, ']', depth);
    s[2 * depth] = '\0';
    ck_assert(valid(s));
    s[2 * depth - 1] = '}';
    ck_assert(!valid(s));
    free(s);
}
END_TEST

Suite *jsonlint_suite(void)
{
    Suite *s = suite_create("jsonlint");
    TCase *tc = tcase_create("jsonlint");
    tcase_add_test(tc, accepts_well_formed_json);
    tcase_add_test(tc, rejects_malformed_json);
    tcase_add_test(tc, checks_deep_nesting_without_recursion);
    suite_add_tcase(s, tc);
    return s;
}
