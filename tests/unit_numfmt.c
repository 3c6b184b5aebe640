/*
 * unit_numfmt.c - the integer-only double formatter (fmt_double) against
 * the printf/strtod one it replaced (fmt_double_slow, kept as the
 * reference), and fmt_u64 against printf.
 *
 * Compared (the structured sets with both signs): the special values;
 * every power of two and every power of ten strtod makes, with their
 * neighbours; the first 4096 subnormals and the last ones; every binade's
 * first and last significands and four random ones (every exponent, so
 * every entry of the table of powers of ten); short decimals (what people
 * type: 0.1, 2.5e-07); the edges of ranged histograms; small integers; every
 * number written in fixtures/expected; and 200000 random bit patterns.
 * Special values, powers, the first subnormals and the integers go through
 * the whole slow search (some 30 us each). The rest start the slow search at
 * one digit fewer than the fast text has, some 5 us: that gives the same
 * answer whenever the fast text is right, and a different one when it is too
 * long (the shorter text is found) or has a wrong digit (the search at its
 * length finds the right one). Starting there misses nothing shorter: a
 * decimal of fewer digits inside the rounding interval is also one of p - 1
 * digits (pad it with zeros), and the p - 1 digit roundings of v up and down
 * are the nearest such on each side. fmt_double_fast must decide every one
 * of them without the slow path (it says -1 where it cannot).
 * The last line before the summary says how many doubles were checked.
 */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "numfmt.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static long checked, undecided, shown;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double from_bits(uint64_t u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* Significant digits of a formatted number: "1200" has two. */
static int sig_digits(const char *s)
{
	const char *c = s, *end;
	int p = 0;

	while (*c == '-' || *c == '0' || *c == '.')
		c++;
	end = c + strcspn(c, "e");
	while (end > c && (end[-1] == '0' || end[-1] == '.'))
		end--;
	for (; c < end; c++)
		p += *c != '.';
	return p;
}

/* fmt_double(v) against the slow search from min_digits (0: from one digit
 * fewer than the fast text has); -v too when both is set. */
static void compare_sign(double v, int min_digits, bool both)
{
	for (int sign = 0; sign < 1 + both; sign++, v = -v) {
		char fast[FMT_DOUBLE_MAX], viaf[FMT_DOUBLE_MAX], slow[FMT_DOUBLE_MAX];
		int n = fmt_double_fast(fast, v), m = fmt_double(viaf, sizeof(viaf), v);
		int from = min_digits ? min_digits : sig_digits(viaf) - 1;
		int k = fmt_double_slow(slow, sizeof(slow), v, from);

		checked++;
		undecided += n < 0;
		if (n >= 0)
			CHECKF(!strcmp(fast, viaf), "%a: fast %s, fmt_double %s", v, fast, viaf);
		if (strcmp(viaf, slow) || m != k || m != (int)strlen(viaf)) {
			CHECKF(0, "%a (%.17g): new %s (%d), old %s (%d)", v, v, viaf, m, slow, k);
			if (++shown > 20)
				exit(1);
		} else {
			unit_passed++;
		}
	}
}

static void compare_from(double v, int min_digits)
{
	compare_sign(v, min_digits, true);
}

static void compare(double v)
{
	compare_from(v, 1);
}

static void compare_near(double v)
{
	compare(v);
	compare(nextafter(v, INFINITY));
	compare(nextafter(v, 0));
}

static void test_special(void)
{
	static const double v[] = { 0.0, 1.0, 0.1, 0.3, 2.5, 1e16, 1e15, 9007199254740993.0,
		123456789012345678.0, 1e-4, 1e-5, 0.00012345, 5e-324, 2.2250738585072014e-308,
		2.2250738585072009e-308, 1.7976931348623157e308, 5.9604644775390625e-08 };
	char buf[FMT_DOUBLE_MAX];

	for (size_t i = 0; i < NELEM(v); i++)
		compare(v[i]);
	compare(NAN);
	compare(INFINITY);
	CHECK(fmt_double(buf, sizeof(buf), -0.0) == 2 && !strcmp(buf, "-0"));
	CHECK(fmt_double(buf, sizeof(buf), -INFINITY) == 4 && !strcmp(buf, "-inf"));
	CHECK(fmt_double(buf, sizeof(buf), 1e22) == 5 && !strcmp(buf, "1e+22"));
	CHECK(fmt_double(buf, sizeof(buf), 5e-324) == 6 && !strcmp(buf, "5e-324"));
	CHECK(fmt_double(buf, sizeof(buf), 123456.75) == 9 && !strcmp(buf, "123456.75"));
	CHECK(fmt_double(buf, sizeof(buf), 0.0001) == 6 && !strcmp(buf, "0.0001"));
	CHECK(fmt_double(buf, sizeof(buf), 1e16) == 5 && !strcmp(buf, "1e+16"));
	CHECK(fmt_double(buf, sizeof(buf), 9999999999999998.0) == 16 &&
	      !strcmp(buf, "9999999999999998"));
	CHECK(fmt_double(buf, sizeof(buf), -1.2345e-300) == 12 && !strcmp(buf, "-1.2345e-300"));
}

/* Cut like snprintf: every buffer size from 0 up, fast and slow alike. */
static void test_cut(void)
{
	static const double v[] = { -1.2345678901234567e-300, 0.1, -0.0, NAN, 1e16 };

	for (size_t i = 0; i < NELEM(v); i++) {
		char full[FMT_DOUBLE_MAX];
		int len = fmt_double(full, sizeof(full), v[i]);

		for (size_t n = 0; n <= (size_t)len + 1; n++) {
			char a[FMT_DOUBLE_MAX], b[FMT_DOUBLE_MAX];

			memset(a, 'x', sizeof(a));
			memset(b, 'x', sizeof(b));
			CHECK(fmt_double(a, n, v[i]) == len);
			snprintf(b, n, "%s", full);
			CHECK(!memcmp(a, b, sizeof(a)));
		}
	}
}

static void test_powers(void)
{
	char s[16];

	for (int e = -1074; e <= 1023; e++)
		compare_near(ldexp(1.0, e));
	for (int e = -324; e <= 308; e++) {
		snprintf(s, sizeof(s), "1e%d", e);
		compare_near(strtod(s, NULL));
	}
}

/* The first 4096 subnormals, the last ones, and each binade's ends and a
 * few random significands (every exponent, so every entry of the table of
 * powers of ten that doubles use). */
static void test_binades(void)
{
	uint64_t s = 88172645463325252u;
	const uint64_t frac = (UINT64_C(1) << 52) - 1;

	for (uint64_t c = 1; c <= 4096; c++) {
		compare(from_bits(c));
		compare_from(from_bits(frac + 1 - c), 0);
	}
	for (uint64_t e = 0; e < 2047; e++) {
		static const uint64_t f[] = { 0, 1, 2, 3, 5, (UINT64_C(1) << 51),
			frac, frac - 1 };

		for (size_t i = 0; i < NELEM(f); i++)
			compare_from(from_bits(e << 52 | f[i]), 0);
		for (int i = 0; i < 4; i++)
			compare_from(from_bits(e << 52 | (rnd(&s) & frac)), 0);
	}
}

/* Short decimals, as typed or as a histogram's edges: 1-7 random digits at
 * every decimal exponent, i / 10^6 and i / 1000 + a small offset. */
static void random_decimals(uint64_t s, long n)
{
	char t[48];

	for (long i = 0; i < n; i++) {
		int nd = 1 + (int)(rnd(&s) % 7), e = (int)(rnd(&s) % 650) - 330;
		uint64_t m = rnd(&s) % 10000000;

		while (m >= 10 && nd-- > 1)
			m /= 10;
		snprintf(t, sizeof(t), "%llue%d", (unsigned long long)m + 1, e);
		compare_from(strtod(t, NULL), 0);
	}
}

static void test_decimals(void)
{
	random_decimals(0x9e3779b97f4a7c15u, 30000);
	for (int i = 0; i <= 10000; i++)
		compare_sign(i / 1e6, 0, false);
	for (int i = 0; i < 5000; i++)
		compare_sign(-3.5 + i / 1000.0, 0, false);
	for (int i = 0; i < 3000; i++)
		compare(i);
}

/* Every number written in fixtures/expected (text files). */
static void test_fixtures(void)
{
	DIR *d = opendir("fixtures/expected");
	struct dirent *de;
	long files = 0;

	CHECKF(d != NULL, "fixtures/expected not found (run from the repository root)");
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512], line[4096];
		FILE *f;

		snprintf(path, sizeof(path), "fixtures/expected/%s", de->d_name);
		if (!strstr(de->d_name, ".out") || !(f = fopen(path, "rb")))
			continue;
		files++;
		while (fgets(line, sizeof(line), f)) {
			if (memchr(line, '\0', strlen(line) + 1) != line + strlen(line))
				break;
			for (char *c = line; *c; ) {
				char *end;
				double v;

				if (!strchr("-0123456789", *c)) {
					c++;
					continue;
				}
				v = strtod(c, &end);
				if (end == c) {
					c++;
					continue;
				}
				compare_sign(v, 0, false);
				c = end;
			}
		}
		fclose(f);
	}
	closedir(d);
	CHECK(files > 100);
}

static void test_random(uint64_t s, long n)
{
	for (long i = 0; i < n; i++)
		compare_sign(from_bits(rnd(&s)), 0, false);
}

static void test_u64(void)
{
	static const uint64_t v[] = { 0, 1, 9, 10, 99, 100, 4294967295u, 4294967296u,
		999999999999999999u, 1000000000000000000u, UINT64_MAX - 1, UINT64_MAX };
	uint64_t s = 1;
	char a[FMT_U64_MAX], b[32];

	for (size_t i = 0; i < NELEM(v); i++) {
		int n = fmt_u64(a, v[i]);

		snprintf(b, sizeof(b), "%llu", (unsigned long long)v[i]);
		CHECKF(!strcmp(a, b) && n == (int)strlen(b), "%s vs %s", a, b);
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t x = rnd(&s) >> (rnd(&s) % 64);
		int n = fmt_u64(a, x);

		snprintf(b, sizeof(b), "%llu", (unsigned long long)x);
		if (strcmp(a, b) || n != (int)strlen(b))
			CHECKF(0, "%s vs %s", a, b);
	}
	unit_passed++;
}

/* unit_numfmt --random N SEED, --decimals N SEED: only N random bit
 * patterns, or N short decimals, from SEED (the large comparisons run by
 * hand; bench/RESULTS.md). */
int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--random")) {
		test_random(strtoull(argv[3], NULL, 0) | 1, atol(argv[2]));
		goto done;
	}
	if (argc == 4 && !strcmp(argv[1], "--decimals")) {
		random_decimals(strtoull(argv[3], NULL, 0) | 1, atol(argv[2]));
		goto done;
	}
	test_special();
	test_cut();
	test_powers();
	test_binades();
	test_decimals();
	test_fixtures();
	test_random(2463534242u, 200000);
	test_u64();
done:
	CHECKF(undecided == 0, "the fast path could not decide %ld doubles", undecided);
	printf("numfmt: %ld doubles checked against the printf/strtod formatter, "
	       "%ld left to it by the fast path\n", checked, undecided);
	UNIT_END();
}
