/* Float literals as text: the shortest decimal that reads back to the same bits,
 * and the one reader shared by the .fir parser and the .fmas assembler. */
#include "IRInternal.h"
#include "fmag/FloatText.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

char *fmag_format_float(char *buf, float f)
{
    if (isnan(f)) {
        strcpy(buf, signbit(f) ? "-nan" : "nan");
        return buf;
    }
    if (isinf(f)) {
        strcpy(buf, f < 0 ? "-inf" : "inf");
        return buf;
    }
    uint32_t bits = fmag_bits_of(f);
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, 32, "%.*g", prec, (double)f);
        if (fmag_bits_of(strtof(buf, NULL)) == bits) break;
    }
    /* Keep a literal visibly a float: 1 -> 1.0, -0 -> -0.0. */
    if (!strpbrk(buf, ".e")) strcat(buf, ".0");
    return buf;
}

void fmag_print_float(FILE *out, float f)
{
    char buf[40];
    fputs(fmag_format_float(buf, f), out);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}
static bool is_xdigit(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Digits [. digits] from i: the significand of a decimal or (hex) a hex float.
 * Returns the end; *ndigits counts the digits on both sides of the point. */
static size_t scan_significand(const char *s, size_t len, size_t i, bool hex, size_t *ndigits)
{
    bool (*digit)(char) = hex ? is_xdigit : is_digit;
    while (i < len && digit(s[i]))
        i++, ++*ndigits;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && digit(s[i]))
            i++, ++*ndigits;
    }
    return i;
}

/* An exponent (marker, optional sign, decimal digits) at i, or nothing: a marker
 * without digits is not part of the literal. Returns the end. */
static size_t scan_exponent(const char *s, size_t len, size_t i, char marker)
{
    if (i >= len || (s[i] | 32) != marker) return i;
    size_t j = i + 1;
    if (j < len && (s[j] == '+' || s[j] == '-')) j++;
    if (j >= len || !is_digit(s[j])) return i;
    while (j < len && is_digit(s[j]))
        j++;
    return j;
}

size_t fmag_parse_float(const char *s, size_t len, float *out)
{
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    /* Words: the printer writes inf and nan; the verifier rejects them. */
    if (len - i >= 3 && (!strncmp(s + i, "inf", 3) || !strncmp(s + i, "nan", 3))) {
        size_t n = i + 3;
        if (n < len &&
            (is_digit(s[n]) || s[n] == '_' || ((s[n] | 32) >= 'a' && (s[n] | 32) <= 'z')))
            return 0;
        float v = s[i] == 'i' ? INFINITY : NAN;
        *out = s[0] == '-' ? -v : v;
        return n;
    }
    bool hex = len - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    size_t digits = 0;
    i = scan_significand(s, len, hex ? i + 2 : i, hex, &digits);
    if (!digits) return 0;
    i = scan_exponent(s, len, i, hex ? 'p' : 'e');
    /* strtof needs a terminated copy; an absurdly long literal goes through the heap. */
    char tmp[128];
    char *buf = i < sizeof tmp ? tmp : fmag_tmp_malloc(i + 1);
    if (!buf) return 0; /* out of memory: not read as a literal, so a parse error */
    memcpy(buf, s, i);
    buf[i] = 0;
    *out = strtof(buf, NULL);
    if (buf != tmp) fmag_tmp_free(buf);
    return i;
}

bool fmag_float_literal_underflows(const char *s, size_t len, float value)
{
    if (value != 0.0f) return false;
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    if (len - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) return false;
    /* Only the significand decides: 0e-99 is zero, 1e-99 is not. */
    for (; i < len && s[i] != 'e' && s[i] != 'E'; i++)
        if (s[i] >= '1' && s[i] <= '9') return true;
    return false;
}
