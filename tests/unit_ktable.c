/*
 * unit_ktable.c - order keys and the group-by table.
 *
 * Order keys: for random pairs of elements of every type (integers at
 * their extremes, floats with zeros of both signs, subnormals, infinities
 * and NaNs of several payloads), the keys compare as the values do
 * (numerically; NaN after everything and equal to every NaN; -0 == +0),
 * and the key gives back an element of the same value.
 * The table: counts per key for 1- and 2-column keys, checked against a
 * sort of the input, in sorted order, across many growths, the keys
 * looked up one at a time and in batches (ktable_find, and
 * ktable_find_hashed given the low halves of the hashes) of sizes around
 * its prefetch distances.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "ktable.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Element bits of type t, biased to the edges. */
static uint64_t elem(enum gs_type t)
{
	static const uint64_t f64s[] = { 0, 1ull << 63, 0x7ff0000000000000ull,
		0xfff0000000000000ull, 0x7ff8000000000000ull,
		0xfff8000000000001ull, 1, 0x8000000000000001ull,
		0x3ff0000000000000ull };
	static const uint32_t f32s[] = { 0, 1u << 31, 0x7f800000, 0xff800000,
		0x7fc00000, 0xffc00001, 1, 0x80000001, 0x3f800000 };
	static const uint16_t f16s[] = { 0, 0x8000, 0x7c00, 0xfc00, 0x7e00,
		0xfe01, 1, 0x8001, 0x3c00 };
	static const uint16_t bf16s[] = { 0, 0x8000, 0x7f80, 0xff80, 0x7fc0,
		0xffc1, 1, 0x8001, 0x3f80 };
	uint64_t r = rnd();
	int edge = rnd() % 3 == 0;
	size_t bits = type_size(t) * 8;

	switch (t) {
	case GS_F64: return edge ? f64s[r % 9] : r;
	case GS_F32: return edge ? f32s[r % 9] : (uint32_t)r;
	case GS_F16: return edge ? f16s[r % 9] : (uint16_t)r;
	case GS_BF16: return edge ? bf16s[r % 9] : (uint16_t)r;
	default:
		if (edge)	/* 0, all ones, the sign bit, and next to them */
			r = (uint64_t[]){ 0, ~0ull, 1ull << (bits - 1),
					  (1ull << (bits - 1)) - 1, 1 }[r % 5];
		return bits == 64 ? r : r & ((1ull << bits) - 1);
	}
}

/* -1, 0, 1 by value; NaN last, all NaNs equal. */
static int valcmp(enum gs_type t, uint64_t a, uint64_t b)
{
	if (type_is_float(t)) {
		double x, y;

		switch (t) {
		case GS_F16: x = f16_to_f32((uint16_t)a); y = f16_to_f32((uint16_t)b); break;
		case GS_BF16: x = bf16_to_f32((uint16_t)a); y = bf16_to_f32((uint16_t)b); break;
		case GS_F32: {
			float f, g;
			uint32_t u = (uint32_t)a, v = (uint32_t)b;

			memcpy(&f, &u, 4);
			memcpy(&g, &v, 4);
			x = f, y = g;
			break;
		}
		default: memcpy(&x, &a, 8); memcpy(&y, &b, 8);
		}
		if (isnan(x) || isnan(y))
			return isnan(x) - isnan(y);
		return (x > y) - (x < y);
	}
	if (type_is_signed(t)) {
		int sh = 64 - (int)type_size(t) * 8;
		int64_t x = (int64_t)(a << sh) >> sh, y = (int64_t)(b << sh) >> sh;

		return (x > y) - (x < y);
	}
	return (a > b) - (a < b);
}

static void check_keys(void)
{
	for (enum gs_type t = GS_U8; t < GS_NTYPES; t++) {
		int bad = 0, badback = 0;

		for (int i = 0; i < 20000; i++) {
			uint64_t a = elem(t), b = elem(t), ka, kb, back = 0;
			int want = valcmp(t, a, b);

			ka = gkey_of(t, &a);
			kb = gkey_of(t, &b);
			bad += ((ka > kb) - (ka < kb)) != want;
			gkey_value(t, ka, &back);
			badback += valcmp(t, a, back) != 0;
		}
		CHECKF(!bad, "%s: %d pairs ordered unlike their values",
		       type_name(t), bad);
		CHECKF(!badback, "%s: %d keys gave another value back",
		       type_name(t), badback);
	}
}

static int cmp2(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* n keys of kw words from a pool of about m distinct ones, one at a time
 * (batch 0: ktable_get) or in batches of up to batch (ktable_find, every
 * batch's size drawn, the table growing within them). */
static void check_table(size_t kw, size_t n, uint64_t m, size_t batch)
{
	uint64_t *in = malloc(n * 2 * sizeof(*in));
	uint64_t *h = malloc((batch + 1) * sizeof(*h));
	uint32_t *idx = malloc((batch + 1) * sizeof(*idx));
	struct ktable t;
	size_t *order, runs = 0, bad = 0, fresh_n = 0, hbad = 0;

	CHECK(ktable_init(&t, kw, sizeof(uint64_t)) == 0);
	for (size_t i = 0; i < n; i++) {
		in[2 * i] = rnd() % m * 0x9e3779b97f4a7c15ull;
		in[2 * i + 1] = kw > 1 ? rnd() % 3 : 0;
	}
	for (size_t i = 0, b; i < n; i += b) {
		bool fresh;
		uint64_t *c;

		if (batch) {
			b = 1 + rnd() % batch;
			b = b < n - i ? b : n - i;
			/* every other batch with its hashes given, their
			 * low halves only (ktable_find_hashed) */
			if (i / b % 2) {
				for (size_t j = 0; j < b; j++)
					h[j] = (uint32_t)ktable_hash(in + 2 * (i + j), kw);
				CHECK(ktable_find_hashed(&t, in + 2 * i, 2, b, h,
							 idx) == 0);
			} else {
				CHECK(ktable_find(&t, in + 2 * i, 2, b, h, idx) == 0);
			}
			for (size_t j = 0; j < b; j++) {
				hbad += (uint32_t)h[j] !=
					(uint32_t)ktable_hash(in + 2 * (i + j), kw);
				++*(uint64_t *)ktable_pay(&t, idx[j]);
			}
			continue;
		}
		b = 1;
		c = ktable_get(&t, in + 2 * i, &fresh);
		fresh_n += fresh;
		++*c;
	}
	if (batch)
		fresh_n = t.n;	/* a batch does not tell */
	qsort(in, n, 2 * sizeof(*in), cmp2);
	order = ktable_sorted(&t);
	for (size_t i = 0; i < n; runs++) {
		size_t j = i;

		while (j < n && !cmp2(in + 2 * i, in + 2 * j))
			j++;
		if (runs >= t.n || memcmp(ktable_key(&t, order[runs]), in + 2 * i,
					  kw * sizeof(*in)) ||
		    *(uint64_t *)ktable_pay(&t, order[runs]) != j - i)
			bad++;
		i = j;
	}
	CHECKF(runs == t.n && fresh_n == t.n && !bad && !hbad,
	       "kw %zu batch %zu: %zu keys, %zu runs, %zu fresh, %zu wrong, "
	       "%zu hashes wrong", kw, batch, t.n, runs, fresh_n, bad, hbad);
	/* a payload never straddles more cache lines than its size needs */
	CHECK(!t.n || (uintptr_t)t.pay % 64 == 0);
	CHECK(ktable_sort(&t) == 0);
	CHECK(!t.n || (uintptr_t)t.pay % 64 == 0);
	for (size_t i = 1; kw == 1 && i < t.n; i++)
		bad += ktable_key(&t, i - 1)[0] >= ktable_key(&t, i)[0];
	CHECKF(!bad, "kw %zu: sorted out of order", kw);
	free(order);
	free(in);
	free(h);
	free(idx);
	ktable_free(&t);
}

int main(void)
{
	check_keys();
	for (size_t batch = 0; batch <= 1024; batch = batch ? batch * 32 : 1) {
		check_table(1, 1, 10, batch);
		check_table(1, 1000, 10, batch);
		check_table(1, 200000, 50000, batch);
		check_table(2, 200000, 50000, batch);
		check_table(1, 300000, 1ull << 62, batch);
	}
	UNIT_END();
}
