/*
 * unit_reduce.c - reduce_kernels and red_result: float sums, products and
 * min/max against exact-rational vectors (tests/gen_scan_vectors.py), also
 * split at many positions and merged; every integer op and type against a
 * plain __int128 reference (one column's blocked integer sums and several
 * columns' laned ones at their lanes' extremes, in both loops); empty input; integer product overflow;
 * swap_bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "unit.h"
#include "scan_vectors.h"

static uint64_t scratch_words[(1 << 17) / 8];

static void *scratch(const struct gs_job *job)
{
	if (reduce_kernels.scratch_size(job) > sizeof(scratch_words)) {
		printf("FAIL scratch too large\n");
		exit(1);
	}
	return scratch_words;
}

static struct gs_job mkjob(enum gs_type t, enum gs_op op, unsigned columns)
{
	struct gs_job job = { .cmd = CMD_REDUCE, .op = op, .columns = columns };

	job.dtype.type = t;
	return job;
}

static void put_bits(void *p, size_t i, size_t sz, uint64_t v)
{
	switch (sz) {
	case 1: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case 2: ((uint16_t *)p)[i] = (uint16_t)v; break;
	case 4: ((uint32_t *)p)[i] = (uint32_t)v; break;
	default: ((uint64_t *)p)[i] = v; break;
	}
}

/* Reduce records [0, n) of one column as pieces [0, a), [a, b), [b, n),
 * merged as (x + (y + z)), into c. */
static void reduce3(const struct gs_job *job, const void *in, size_t n,
		    size_t a, size_t b, struct red_col *c)
{
	size_t isz = type_size(job->dtype.type) * job->columns;
	struct red_col *y = malloc(reduce_kernels.acc_size(job));
	struct red_col *z = malloc(reduce_kernels.acc_size(job));

	reduce_kernels.acc_init(job, c);
	reduce_kernels.acc_init(job, y);
	reduce_kernels.acc_init(job, z);
	reduce_kernels.cpu_add(job, c, scratch(job), in, NULL, a);
	reduce_kernels.cpu_add(job, y, scratch(job), (const char *)in + a * isz,
			       NULL, b - a);
	reduce_kernels.cpu_add(job, z, scratch(job), (const char *)in + b * isz,
			       NULL, n - b);
	reduce_kernels.acc_merge(job, y, z);
	reduce_kernels.acc_merge(job, c, y);
	free(y);
	free(z);
}

static bool same_f64(double a, uint64_t want)
{
	uint64_t b;

	memcpy(&b, &a, sizeof(b));
	return b == want || (isnan(a) && (want & 0x7fffffffffffffffull) > 0x7ff0000000000000ull);
}

static void test_vectors(void)
{
	for (size_t k = 0; k < sizeof(red_vecs) / sizeof(red_vecs[0]); k++) {
		const struct red_vec *v = &red_vecs[k];
		struct gs_job job = mkjob(v->in, v->op, 1);
		size_t isz = type_size(v->in), fails = 0, step;
		void *in = malloc(v->n * isz);
		struct red_col c, c1;
		struct result r;
		struct gs_err err;

		for (size_t i = 0; i < v->n; i++)
			put_bits(in, i, isz, v->bits[i]);
		reduce3(&job, in, v->n, v->n, v->n, &c1);
		CHECKF(red_result(&job, &c1, &r, &err) == 0, "%s: %s", v->name, err.what);
		CHECKF(r.kind == RES_F64 && same_f64(r.f, v->expect),
		       "%s: got %a want %#llx", v->name, r.f, (unsigned long long)v->expect);
		/* every split of short vectors, a sample of long ones */
		step = v->n < 120 ? 1 : v->n / 37;
		for (size_t a = 0; a <= v->n; a += step)
			for (size_t b = a; b <= v->n; b += step * 3 + 1) {
				reduce3(&job, in, v->n, a, b, &c);
				fails += red_result(&job, &c, &r, &err) != 0 ||
					 !same_f64(r.f, v->expect) || c.count != v->n;
				if (v->op == OP_SUM)	/* the exact state itself */
					fails += memcmp(&c.u.sum, &c1.u.sum, sizeof(c.u.sum)) != 0;
			}
		CHECKF(fails == 0, "%s: %zu splits differ", v->name, fails);
		free(in);
	}
}

/* ---- integers ----------------------------------------------------------- */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static __int128 load_int(enum gs_type t, const void *p, size_t i)
{
	unsigned sh = 64 - 8 * (unsigned)type_size(t);
	uint64_t b;

	switch (type_size(t)) {
	case 1: b = ((const uint8_t *)p)[i]; break;
	case 2: b = ((const uint16_t *)p)[i]; break;
	case 4: b = ((const uint32_t *)p)[i]; break;
	default: b = ((const uint64_t *)p)[i]; break;
	}
	if (type_is_signed(t))
		return (int64_t)(b << sh) >> sh;
	return b;
}

static void dec128(__int128 v, char *buf)
{
	unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	char tmp[48];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + (int)(m % 10));
		m /= 10;
	} while (m);
	if (v < 0)
		*buf++ = '-';
	while (n)
		*buf++ = tmp[--n];
	*buf = 0;
}

/* The reference, in the plainest terms. */
static __int128 ref_reduce(enum gs_op op, enum gs_type t, const void *in, size_t n)
{
	unsigned bits = 8 * (unsigned)type_size(t);
	__int128 acc = op == OP_PROD ? 1 : op == OP_AND ? -1 : 0, x;

	for (size_t i = 0; i < n; i++) {
		x = load_int(t, in, i);
		if (i == 0 && (op == OP_MIN || op == OP_MAX))
			acc = x;
		switch (op) {
		case OP_SUM: acc += x; break;
		case OP_PROD: acc *= x; break;
		case OP_MIN: acc = x < acc ? x : acc; break;
		case OP_MAX: acc = x > acc ? x : acc; break;
		case OP_AND: acc &= x; break;
		case OP_OR: acc |= x; break;
		default: acc ^= x; break;
		}
	}
	if (op == OP_AND && !type_is_signed(t))	/* all ones in the type */
		acc &= bits == 64 ? (__int128)~0ull : ((__int128)1 << bits) - 1;
	return acc;
}

static void test_int_op(enum gs_type t, enum gs_op op, size_t n)
{
	struct gs_job job = mkjob(t, op, 1);
	size_t sz = type_size(t);
	void *in = malloc(n * sz + 1);
	char want[64];
	struct red_col c;
	struct result r;
	struct gs_err err;
	int fails = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = rnd();

		/* factors 1..3 or +-1..3: |product| <= 3^70 < 2^127 */
		if (op == OP_PROD && type_is_signed(t))
			v = v % 6 < 3 ? (uint64_t)(int64_t)(v % 6) - 3 : v % 6 - 2;
		else if (op == OP_PROD)
			v = v % 3 + 1;
		put_bits(in, i, sz, v);
	}
	dec128(ref_reduce(op, t, in, n), want);
	for (size_t a = 0; a <= n; a += n / 5 + 1) {
		reduce3(&job, in, n, a, a + (n - a) / 2, &c);
		if (red_result(&job, &c, &r, &err) != 0 || r.kind != RES_INT_DEC ||
		    strcmp(r.dec, want)) {
			fails++;
			printf("  %s op %d n %zu: got %s want %s\n", type_name(t),
			       op, n, r.dec, want);
		}
	}
	CHECKF(fails == 0, "%s op %d n %zu", type_name(t), op, n);
	free(in);
}

static void test_int_ops(void)
{
	for (enum gs_type t = GS_U8; t <= GS_I64; t++)
		for (enum gs_op op = OP_SUM; op <= OP_XOR; op++) {
			test_int_op(t, op, op == OP_PROD ? 70 : 5000);
			test_int_op(t, op, 1);
			if (op != OP_MIN && op != OP_MAX)
				test_int_op(t, op, 0);
		}
}

/* One column's sums of 8- to 32-bit integers run in 1024-value blocks of
 * narrow lanes (cpu_reduce.c's ISUM_BLOCK): blocks of the type's extremes,
 * where a lane too narrow wraps, and random values, at lengths around the
 * block, split anywhere, in the AVX2 and the portable loops. */
static void test_int_sum_blocks(void)
{
	static const size_t lens[] = { 1023, 1024, 1025, 2048, 5 * 1024 + 3 };
	int fails = 0, runs = 0;

	for (int portable = 0; portable < 2; portable++) {
		cpu_portable = portable;
		for (enum gs_type t = GS_U8; t <= GS_I32; t++)
			for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
				for (int fill = 0; fill < 3; fill++) {
					size_t n = lens[l], sz = type_size(t);
					unsigned bits = 8 * (unsigned)sz;
					uint64_t hi = type_is_signed(t) ? (1ull << (bits - 1)) - 1
						      : bits == 64 ? ~0ull : (1ull << bits) - 1;
					uint64_t lo = type_is_signed(t) ? hi + 1 : 0;
					struct gs_job job = mkjob(t, OP_SUM, 1);
					void *in = malloc(n * sz);
					char want[64];
					struct red_col c;
					struct result r;
					struct gs_err err;

					for (size_t i = 0; i < n; i++)
						put_bits(in, i, sz, fill == 0 ? hi : fill == 1 ? lo : rnd());
					dec128(ref_reduce(OP_SUM, t, in, n), want);
					for (size_t a = 0; a <= n; a += 331) {
						reduce3(&job, in, n, a, a + (n - a) / 3, &c);
						runs++;
						if (red_result(&job, &c, &r, &err) != 0 ||
						    strcmp(r.dec, want)) {
							if (fails++ < 5)
								printf("  %s fill %d n %zu split %zu%s: got %s want %s\n",
								       type_name(t), fill, n, a,
								       portable ? " (portable)" : "", r.dec, want);
						}
					}
					free(in);
				}
	}
	cpu_portable = false;
	CHECKF(fails == 0, "%d of %d blocked integer sums differ", fails, runs);
}

/* Several columns' integer sums go through cpu_reduce.c's 48 lanes in
 * blocks of 3072 values when the columns divide 48: every such count and
 * two that do not, at the lanes' extremes and random, around a block,
 * split anywhere, in both loops; each column against a plain sum. */
static void test_int_sum_columns(void)
{
	static const unsigned cols[] = { 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 48 };
	int fails = 0, runs = 0;

	for (int portable = 0; portable < 2; portable++) {
		cpu_portable = portable;
		for (enum gs_type t = GS_U8; t <= GS_I64; t++)
			for (size_t ci = 0; ci < sizeof(cols) / sizeof(cols[0]); ci++)
				for (int fill = 0; fill < 3; fill++) {
					unsigned C = cols[ci];
					size_t per = 3072 / C, sz = type_size(t);
					size_t nrec = 2 * per + per / 2 + 1, n = nrec * C;
					unsigned bits = 8 * (unsigned)sz;
					uint64_t hi = type_is_signed(t) ? (1ull << (bits - 1)) - 1
						      : bits == 64 ? ~0ull : (1ull << bits) - 1;
					uint64_t lo = type_is_signed(t) ? hi + 1 : 0;
					struct gs_job job = mkjob(t, OP_SUM, C);
					void *in = malloc(n * sz);
					struct red_col *c = malloc(C * sizeof(*c));
					char want[48][64];
					struct result r;
					struct gs_err err;

					for (size_t i = 0; i < n; i++)
						put_bits(in, i, sz, fill == 0 ? hi : fill == 1 ? lo : rnd());
					for (unsigned j = 0; j < C; j++) {
						__int128 a = 0;

						for (size_t k = 0; k < nrec; k++)
							a += load_int(t, in, k * C + j);
						dec128(a, want[j]);
					}
					for (size_t a = 0; a <= nrec; a += per / 3 + 1) {
						reduce3(&job, in, nrec, a, a + (nrec - a) / 2, c);
						runs++;
						for (unsigned j = 0; j < C; j++)
							if (red_result(&job, &c[j], &r, &err) != 0 ||
							    strcmp(r.dec, want[j]) || c[j].count != nrec) {
								if (fails++ < 5)
									printf("  %s -c %u column %u fill %d split %zu%s: got %s want %s\n",
									       type_name(t), C, j, fill, a,
									       portable ? " (portable)" : "", r.dec, want[j]);
								break;
							}
					}
					free(c);
					free(in);
				}
	}
	cpu_portable = false;
	CHECKF(fails == 0, "%d of %d integer sums of columns differ", fails, runs);
}

static void test_int_prod(void)
{
	int64_t a[] = { INT64_MIN, INT64_MIN, -2, 3 };
	uint64_t b[] = { ~0ull, ~0ull, 0 };
	struct gs_job job = mkjob(GS_I64, OP_PROD, 1);
	struct red_col c;
	struct result r;
	struct gs_err err;

	reduce3(&job, a, 2, 1, 1, &c);	/* 2^126 */
	CHECK(red_result(&job, &c, &r, &err) == 0);
	CHECK(!strcmp(r.dec, "85070591730234615865843651857942052864"));
	reduce3(&job, a, 3, 1, 2, &c);	/* -2^127 */
	CHECK(red_result(&job, &c, &r, &err) == 0);
	CHECK(!strcmp(r.dec, "-170141183460469231731687303715884105728"));
	reduce3(&job, a, 4, 2, 3, &c);	/* 3 * 2^127 > 2^128 */
	CHECK(red_result(&job, &c, &r, &err) < 0 && err.code == GS_ERUNTIME);
	CHECKF(strstr(err.what, "overflows 128 bits") != NULL, "%s", err.what);
	job = mkjob(GS_U64, OP_PROD, 1);
	reduce3(&job, b, 2, 1, 2, &c);	/* (2^64 - 1)^2 fits */
	CHECK(red_result(&job, &c, &r, &err) == 0);
	CHECK(!strcmp(r.dec, "340282366920938463426481119284349108225"));
	reduce3(&job, b, 3, 0, 3, &c);	/* zero wins */
	CHECK(red_result(&job, &c, &r, &err) == 0 && !strcmp(r.dec, "0"));
}

/* ---- empty input, columns, floats by hand ------------------------------- */

static void test_empty(void)
{
	static const char *const want_u8[] = { "0", "1", NULL, NULL, "255", "0", "0" };
	static const char *const want_i32[] = { "0", "1", NULL, NULL, "-1", "0", "0" };
	struct red_col c;
	struct result r;
	struct gs_err err;

	for (enum gs_op op = OP_SUM; op <= OP_XOR; op++) {
		struct gs_job ju = mkjob(GS_U8, op, 1), ji = mkjob(GS_I32, op, 1);
		struct gs_job jf = mkjob(GS_F32, op, 1);

		reduce_kernels.acc_init(&ju, &c);
		CHECK(red_result(&ju, &c, &r, &err) == 0);
		CHECK(want_u8[op] ? !strcmp(r.dec, want_u8[op]) : r.kind == RES_NONE);
		reduce_kernels.acc_init(&ji, &c);
		CHECK(red_result(&ji, &c, &r, &err) == 0);
		CHECK(want_i32[op] ? !strcmp(r.dec, want_i32[op]) : r.kind == RES_NONE);
		if (op > OP_MAX)
			continue;
		reduce_kernels.acc_init(&jf, &c);
		CHECK(red_result(&jf, &c, &r, &err) == 0);
		if (op == OP_SUM)
			CHECK(r.kind == RES_F64 && r.f == 0 && !signbit(r.f));
		else if (op == OP_PROD)
			CHECK(r.kind == RES_F64 && r.f == 1);
		else
			CHECK(r.kind == RES_NONE);
	}
}

static void test_columns(void)
{
	int16_t d[] = { 1, -5, 7, 2, -5, 100, 3, 32767, -32768 };
	float f[] = { 1e30f, -0.0f, 1, 1e-30f, 0.0f, 2, -1e30f, -0.0f, 3 };
	struct gs_job job = mkjob(GS_I16, OP_SUM, 3);
	struct red_col c[3];
	struct result r;
	struct gs_err err;
	static const char *const want[] = { "6", "32757", "-32661" };

	reduce_kernels.acc_init(&job, c);
	reduce_kernels.cpu_add(&job, c, scratch(&job), d, NULL, 3);
	for (int i = 0; i < 3; i++) {
		CHECK(red_result(&job, &c[i], &r, &err) == 0);
		CHECKF(!strcmp(r.dec, want[i]), "%d: %s", i, r.dec);
		CHECK(c[i].count == 3);
	}
	job = mkjob(GS_F32, OP_SUM, 3);
	reduce_kernels.acc_init(&job, c);
	reduce_kernels.cpu_add(&job, c, scratch(&job), f, NULL, 3);
	CHECK(red_result(&job, &c[0], &r, &err) == 0 && r.f == (double)1e-30f);
	CHECK(red_result(&job, &c[1], &r, &err) == 0 && r.f == 0 && !signbit(r.f));
	job.op = OP_MAX;
	reduce_kernels.acc_init(&job, c);
	reduce_kernels.cpu_add(&job, c, scratch(&job), f, NULL, 3);
	CHECK(red_result(&job, &c[1], &r, &err) == 0 && r.f == 0 && !signbit(r.f));
	CHECK(red_result(&job, &c[2], &r, &err) == 0 && r.f == 3);
	job.op = OP_MIN;
	reduce_kernels.acc_init(&job, c);
	reduce_kernels.cpu_add(&job, c, scratch(&job), f, NULL, 3);
	CHECK(red_result(&job, &c[1], &r, &err) == 0 && r.f == 0 && signbit(r.f));
}

/* Products: exact while small, correctly rounded, the IEEE special cases. */
static void test_fprod(void)
{
	double d[] = { 0.1, 0.1, 0.1, 1e300, 1e300, 1e-300, 1e-300 };
	double s[] = { -0.0, 3, INFINITY, NAN };
	struct gs_job job = mkjob(GS_F64, OP_PROD, 1);
	struct red_col c;
	struct result r;
	struct gs_err err;

	/* 0.1^3 and 0.1^3 * 1e300^2 * 1e-300^2 (exact products of the doubles,
	 * by fractions.Fraction) both round to 0x1.0624dd2f1a9fdp-10 */
	reduce3(&job, d, 3, 1, 2, &c);
	CHECK(red_result(&job, &c, &r, &err) == 0 && r.f == 0x1.0624dd2f1a9fdp-10);
	/* beyond the double range in between, then back */
	reduce3(&job, d, 7, 3, 5, &c);
	CHECKF(red_result(&job, &c, &r, &err) == 0 && r.f == 0x1.0624dd2f1a9fdp-10, "%a", r.f);
	reduce3(&job, s, 2, 1, 1, &c);
	CHECK(red_result(&job, &c, &r, &err) == 0 && r.f == 0 && signbit(r.f));
	reduce3(&job, s, 3, 1, 2, &c);	/* 0 * inf */
	CHECK(red_result(&job, &c, &r, &err) == 0 && isnan(r.f));
	reduce3(&job, s + 1, 2, 1, 2, &c);
	CHECK(red_result(&job, &c, &r, &err) == 0 && r.f == INFINITY);
	reduce3(&job, s + 1, 3, 0, 3, &c);
	CHECK(red_result(&job, &c, &r, &err) == 0 && isnan(r.f));
	job.op = OP_AND;
	CHECK(red_result(&job, &c, &r, &err) < 0 && err.code == GS_EUSAGE);
}

/* xprod_core.h as C: the CPU's products start from 1 as a bracket (or a
 * magnitude of 1) and the GPU's from all zeros, and both must mean 1; an
 * element's step is the merge of its one-limb bracket; an integer product
 * past 2^128 keeps __builtin_mul_overflow's low bits, then stays. */
static void test_prod_core(void)
{
	struct fprod p, q, z = { { 0, 0 }, { 0, 0 }, 0, 0 }, f;
	struct iprod a = { { 1, 0 }, 0 }, b, c, zi = { { 0, 0 }, 0 };
	unsigned __int128 m = 1, w;
	uint64_t bits, x = 0x9e3779b97f4a7c15ull;
	bool over = false;

	CHECK(fprod_round(&z, XF_F64, &bits) && bits == 0x3ff0000000000000ull);
	fprod_one(&p);
	for (int i = 0; i < 1000; i++) {
		double v;
		uint64_t u;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		u = (x >> 12) | 0x3fe0000000000000ull;	/* [0.5, 1) */
		memcpy(&v, &u, sizeof(v));
		q = p;
		fprod_mul_f64(&p, v);
		f = z;		/* v as a bracket of one limb */
		f.hi[1] = f.lo[1] = ((u & ((1ull << 52) - 1)) | 1ull << 52) << 11;
		f.exp = (int)(u >> 52) - 1075 - 75;	/* v = hi * 2^exp */
		fprod_merge(&q, &f);
		CHECKF(!memcmp(&p, &q, sizeof(p)), "step %d", i);
	}
	q = p;
	fprod_merge(&q, &z);
	CHECK(!memcmp(&p, &q, sizeof(p)));
	q = z;
	fprod_merge(&q, &p);
	CHECK(!memcmp(&p, &q, sizeof(p)));
	for (int i = 0; i < 40; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		b = a;
		iprod_mul(&a, (__int128)(x >> (i % 60)) * (i % 3 ? 1 : -1));
		if (!over) {
			over = __builtin_mul_overflow(m, (unsigned __int128)(x >> (i % 60)), &w);
			m = w;
		}
		CHECK(!!(a.flags & PROD_OVER) == over &&
		      ((unsigned __int128)a.mag[1] << 64 | a.mag[0]) == m &&
		      !!(a.flags & PROD_NEG) == ((i / 3 + 1) % 2 == 1));
		c = b;
		iprod_merge(&c, &zi);
		CHECK(!memcmp(&b, &c, sizeof(b)));
	}
	CHECK(over);
}

static void test_swap(void)
{
	uint8_t b[24], w[24];

	for (int i = 0; i < 24; i++)
		b[i] = w[i] = (uint8_t)i;
	swap_bytes(b, 11, 2);
	CHECK(b[0] == 1 && b[1] == 0 && b[20] == 21 && b[21] == 20 && b[22] == 22);
	memcpy(b, w, 24);
	swap_bytes(b, 5, 4);
	CHECK(b[0] == 3 && b[3] == 0 && b[16] == 19 && b[19] == 16 && b[20] == 20);
	memcpy(b, w, 24);
	swap_bytes(b + 1, 2, 8);	/* unaligned is fine */
	CHECK(b[1] == 8 && b[8] == 1 && b[9] == 16 && b[16] == 9 && b[17] == 17);
	memcpy(b, w, 24);
	swap_bytes(b, 24, 1);
	CHECK(!memcmp(b, w, 24));
}

int main(void)
{
	test_vectors();
	test_int_ops();
	test_int_sum_blocks();
	test_int_sum_columns();
	test_int_prod();
	test_empty();
	test_columns();
	test_fprod();
	test_prod_core();
	test_swap();
	UNIT_END();
}
