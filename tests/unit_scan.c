/*
 * unit_scan.c - cpu_scan: float scans against exact-rational vectors
 * (tests/gen_scan_vectors.py), in one pass and chained over every kind of
 * split; integer scans of every op and type against a plain __int128
 * reference; overflow errors with their index; exclusive identities; the
 * CPU backend's scan state (what --backend auto hands the GPU).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "backend.h"
#include "unit.h"
#include "scan_vectors.h"

static struct red_col state[4];
static uint64_t scratch_words[(1 << 16) / 8];

static void *scratch(const struct gs_job *job)
{
	if (cpu_scan_scratch_size(job) > sizeof(scratch_words)) {
		printf("FAIL scratch too large\n");
		exit(1);
	}
	return scratch_words;
}

static struct gs_job mkjob(enum gs_type in, enum gs_type out, enum gs_op op,
			   bool excl, unsigned columns)
{
	struct gs_job job = { .cmd = CMD_SCAN, .op = op, .exclusive = excl };

	job.dtype.type = in;
	job.out_type = out;
	job.columns = columns;
	return job;
}

static uint64_t get_bits(const void *p, size_t i, size_t sz)
{
	switch (sz) {
	case 1: return ((const uint8_t *)p)[i];
	case 2: return ((const uint16_t *)p)[i];
	case 4: return ((const uint32_t *)p)[i];
	default: return ((const uint64_t *)p)[i];
	}
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

static bool is_nan_bits(uint64_t b, enum gs_type t)
{
	switch (t) {
	case GS_F16: return (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
	case GS_BF16: return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
	case GS_F32: return (b & 0x7f800000) == 0x7f800000 && (b & 0x7fffff);
	default: return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
			(b & 0xfffffffffffffull);
	}
}

/* Scan v in pieces of the given sizes (cycled), chaining the state. */
static int scan_pieces(const struct gs_job *job, const void *in, size_t n,
		       void *out, const size_t *sizes, size_t nsizes,
		       size_t *bad, struct gs_err *err)
{
	size_t isz = type_size(job->dtype.type), osz = type_size(job->out_type);
	size_t rec = job->columns, k = 0;

	reduce_kernels.acc_init(job, state);
	for (size_t at = 0; at < n; k++) {
		size_t m = sizes[k % nsizes];

		if (m > n - at)
			m = n - at;
		if (cpu_scan(job, state, scratch(job), (const char *)in + at * rec * isz,
			     m, (char *)out + at * rec * osz, bad, err) < 0) {
			*bad += at;
			return -1;
		}
		at += m;
	}
	return 0;
}

static int first_diff(const struct scan_vec *v, const void *out)
{
	size_t osz = type_size(v->out);

	for (size_t i = 0; i < v->n; i++) {
		uint64_t got = get_bits(out, i, osz), want = v->expect[i];

		if (got != want && !(is_nan_bits(got, v->out) && is_nan_bits(want, v->out)))
			return (int)i;
	}
	return -1;
}

static void test_vectors(void)
{
	static const size_t splits[][3] = {
		{ (size_t)-1 }, { 1 }, { 7, 1, 1000 }, { 1023, 2 }, { 1024 },
		{ 1025, 3 }, { 100 },
	};
	const size_t nv = sizeof(scan_vecs) / sizeof(scan_vecs[0]);

	for (size_t k = 0; k < nv; k++) {
		const struct scan_vec *v = &scan_vecs[k];
		struct gs_job job = mkjob(v->in, v->out, v->op, v->exclusive, 1);
		size_t isz = type_size(v->in), osz = type_size(v->out), bad;
		void *in = malloc(v->n * isz), *out = malloc(v->n * osz);
		struct gs_err err;

		for (size_t i = 0; i < v->n; i++)
			put_bits(in, i, isz, v->bits[i]);
		for (size_t s = 0; s < sizeof(splits) / sizeof(splits[0]); s++) {
			size_t ns = splits[s][2] ? 3 : splits[s][1] ? 2 : 1;
			int d;

			memset(out, 0xa5, v->n * osz);
			CHECKF(scan_pieces(&job, in, v->n, out, splits[s], ns,
					   &bad, &err) == 0, "%s: %s", v->name, err.what);
			d = first_diff(v, out);
			CHECKF(d < 0, "%s split %zu: element %d: got %#llx want %#llx",
			       v->name, splits[s][0], d,
			       d < 0 ? 0ull : (unsigned long long)get_bits(out, d, osz),
			       d < 0 ? 0ull : (unsigned long long)v->expect[d]);
		}
		free(in);
		free(out);
	}
}

/* A short vector split at every position gives the one-pass bits. */
static void test_every_split(const char *name)
{
	const struct scan_vec *v = NULL;

	for (size_t k = 0; k < sizeof(scan_vecs) / sizeof(scan_vecs[0]); k++)
		if (!strcmp(scan_vecs[k].name, name))
			v = &scan_vecs[k];
	CHECKF(v != NULL, "%s", name);
	if (!v)
		return;
	struct gs_job job = mkjob(v->in, v->out, v->op, v->exclusive, 1);
	size_t isz = type_size(v->in), osz = type_size(v->out), bad;
	void *in = malloc(v->n * isz), *out = malloc(v->n * osz);
	struct gs_err err;
	int fails = 0;

	for (size_t i = 0; i < v->n; i++)
		put_bits(in, i, isz, v->bits[i]);
	for (size_t at = 0; at <= v->n; at++) {
		size_t sizes[2] = { at ? at : 1, v->n };

		if (scan_pieces(&job, in, v->n, out, sizes, 2, &bad, &err) < 0 ||
		    first_diff(v, out) >= 0)
			fails++;
	}
	CHECKF(fails == 0, "%s: %d split positions differ", name, fails);
	free(in);
	free(out);
}

/* ---- multiple columns --------------------------------------------------- */

static void test_columns(void)
{
	const struct scan_vec *v[3] = { NULL };
	const char *names[3] = { "rand32 sum -> f32", "naive32 sum -> f32",
				 "zeros sum -> f32" };
	size_t n = 2100, bad;
	float *in = calloc(3 * n, 4), *out = malloc(3 * n * 4);
	struct gs_job job = mkjob(GS_F32, GS_F32, OP_SUM, false, 3);
	struct gs_err err;
	size_t sizes[] = { 333, 1024, 5 };
	int fails = 0;

	for (size_t k = 0; k < sizeof(scan_vecs) / sizeof(scan_vecs[0]); k++)
		for (int c = 0; c < 3; c++)
			if (!strcmp(scan_vecs[k].name, names[c]))
				v[c] = &scan_vecs[k];
	for (int c = 0; c < 3; c++) {
		/* shorter vectors are padded with zeros: the prefix stays */
		for (size_t i = 0; i < n; i++) {
			uint32_t b = (uint32_t)(i < v[c]->n ? v[c]->bits[i] : 0);

			memcpy(&in[i * 3 + c], &b, 4);
		}
	}
	CHECK(scan_pieces(&job, in, n, out, sizes, 3, &bad, &err) == 0);
	for (int c = 0; c < 3; c++)
		for (size_t i = 0; i < n; i++) {
			uint32_t b;

			memcpy(&b, &out[i * 3 + c], 4);
			fails += b != v[c]->expect[i < v[c]->n ? i : v[c]->n - 1];
		}
	CHECKF(fails == 0, "%d outputs differ", fails);
	free(in);
	free(out);
}

/* ---- integer scans ------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static __int128 load_int(enum gs_type t, const void *p, size_t i)
{
	uint64_t b = get_bits(p, i, type_size(t));
	unsigned sh = 64 - 8 * (unsigned)type_size(t);

	if (type_is_signed(t))
		return (int64_t)(b << sh) >> sh;
	return b;
}

/* The reference: plain loops over __int128, -1 for "does not fit". */
static __int128 ref_step(enum gs_op op, enum gs_type t, __int128 acc, __int128 x)
{
	uint64_t m = type_size(t) == 8 ? ~0ull : (1ull << 8 * type_size(t)) - 1;
	uint64_t a = (uint64_t)acc, b = (uint64_t)x;

	switch (op) {
	case OP_SUM: return acc + x;
	case OP_PROD: return acc * x;
	case OP_MIN: return x < acc ? x : acc;
	case OP_MAX: return x > acc ? x : acc;
	case OP_AND: a &= b; break;
	case OP_OR: a |= b; break;
	default: a ^= b; break;
	}
	if (type_is_signed(t))
		return (int64_t)a;
	return a & m;
}

static __int128 ref_identity(enum gs_op op, enum gs_type t)
{
	unsigned bits = 8 * (unsigned)type_size(t);
	bool s = type_is_signed(t);
	__int128 max = s ? ((__int128)1 << (bits - 1)) - 1 : ((__int128)1 << bits) - 1;

	switch (op) {
	case OP_PROD: return 1;
	case OP_MIN: return max;
	case OP_MAX: return s ? -max - 1 : 0;
	case OP_AND: return s ? -1 : max;
	default: return 0;
	}
}

static void test_int_op(enum gs_type t, enum gs_op op, bool excl)
{
	enum gs_type ot = type_is_signed(t) ? GS_I64 : GS_U64;
	struct gs_job job = mkjob(t, ot, op, excl, 1);
	size_t n = op == OP_PROD ? 40 : 3000, sz = type_size(t), bad;
	void *in = malloc(n * sz);
	int64_t *out = malloc(n * 8);
	size_t sizes[] = { 17, 1024, 1 };
	struct gs_err err;
	__int128 acc = ref_identity(op, t), want;
	int fails = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = rnd();

		if (op == OP_PROD)	/* small factors: the product fits i64 */
			r = type_is_signed(t) ? (uint64_t)(int64_t)(r % 5) - 2 : r % 3 + 1;
		if (op == OP_SUM && sz == 8)
			r >>= 14;	/* keep the prefix within 63 bits */
		put_bits(in, i, sz, r);
	}
	if (op == OP_PROD)
		put_bits(in, n - 5, sz, 0);
	CHECKF(scan_pieces(&job, in, n, out, sizes, 3, &bad, &err) == 0,
	       "%s %d: %s", type_name(t), op, err.what);
	for (size_t i = 0; i < n; i++) {
		if (!excl)
			acc = ref_step(op, t, acc, load_int(t, in, i));
		want = acc;
		if (excl)
			acc = ref_step(op, t, acc, load_int(t, in, i));
		fails += ot == GS_I64 ? out[i] != (int64_t)want
				      : (uint64_t)out[i] != (uint64_t)want;
	}
	CHECKF(fails == 0, "%s op %d excl %d: %d outputs differ", type_name(t),
	       op, excl, fails);
	free(in);
	free(out);
}

static void test_int_ops(void)
{
	for (enum gs_type t = GS_U8; t <= GS_I64; t++)
		for (enum gs_op op = OP_SUM; op <= OP_XOR; op++) {
			test_int_op(t, op, false);
			test_int_op(t, op, true);
		}
}

/* An output that does not fit: the error names the record and the value. */
static void test_int_overflow(void)
{
	uint8_t u[] = { 100, 100, 100, 0 };
	int8_t s[] = { 5, -3, -3, 1 };
	int64_t big[] = { 1ll << 62, 1ll << 62, 4, 1 };
	struct gs_job job = mkjob(GS_U8, GS_U8, OP_SUM, false, 1);
	uint64_t out[4];
	size_t bad = 99;
	struct gs_err err;

	CHECK(cpu_scan(&job, (reduce_kernels.acc_init(&job, state), state),
		       scratch(&job), u, 4, out, &bad, &err) < 0);
	CHECK(bad == 2);
	CHECK(err.code == GS_ERUNTIME);
	CHECKF(strstr(err.what, "prefix sum 300 overflows u8") != NULL, "%s", err.what);
	/* chained: the message counts records from the start of the stream */
	size_t one = 1;
	CHECK(scan_pieces(&job, u, 4, out, &one, 1, &bad, &err) < 0);
	CHECK(bad == 2);
	CHECKF(strstr(err.what, "element 2 column 0") != NULL, "%s", err.what);

	job = mkjob(GS_I8, GS_U64, OP_SUM, false, 1);
	CHECK(scan_pieces(&job, s, 4, out, &one, 1, &bad, &err) < 0);
	CHECKF(bad == 2 && strstr(err.what, "prefix sum -1 overflows u64"), "%s", err.what);

	job = mkjob(GS_I64, GS_I64, OP_PROD, false, 1);
	CHECK(scan_pieces(&job, big, 4, out, &one, 1, &bad, &err) < 0);
	CHECKF(bad == 1 && strstr(err.what, "prefix prod 21267647932558653966460912964485513216 overflows i64"),
	       "%zu %s", bad, err.what);
	job.out_type = GS_F64;	/* 2^124 fits a double, 2^126 too, then 2^126 */
	CHECK(scan_pieces(&job, big, 4, out, &one, 1, &bad, &err) == 0);
	CHECK(out[3] == 0x47d0000000000000ull);

	job = mkjob(GS_U8, GS_U8, OP_MIN, true, 1);	/* identity 255 fits */
	CHECK(scan_pieces(&job, u, 4, out, &one, 1, &bad, &err) == 0);
	CHECK(((uint8_t *)out)[0] == 255 && ((uint8_t *)out)[3] == 100);
	job = mkjob(GS_U16, GS_U8, OP_MIN, true, 1);	/* 65535 does not */
	CHECK(scan_pieces(&job, u, 2, out, &one, 1, &bad, &err) < 0 && bad == 0);
}

/* Sums of 8- to 32-bit integers into i64 or u64 add a block at a time in
 * 64 bits when no prefix of it can leave the range (cpu_scan.c's
 * isum_wide), the checked way otherwise: from starts (a carry) at and near
 * both ends of the output's range, in one and two columns, inclusive and
 * exclusive, every output against the reference until the first that
 * does not fit, which must be the one reported. */
static void test_int_wide_ends(void)
{
	static const enum gs_type ts[] = { GS_U8, GS_I8, GS_U16, GS_I16, GS_U32, GS_I32 };
	/* from the end: a few, and (the last two) just inside and at the
	 * reach of one block of the type's extreme */
	static const int64_t offs[] = { 0, 1, 5000, 3000000, (int64_t)1 << 40,
					(int64_t)3 << 40, (int64_t)1 << 45, -1, 0 };
	const size_t n = 3000;
	int fails = 0, runs = 0;

	for (size_t ti = 0; ti < sizeof ts / sizeof ts[0]; ti++)
		for (int osg = 0; osg < 2; osg++)
			for (unsigned C = 1; C <= 2; C++)
				for (int excl = 0; excl < 2; excl++)
					for (size_t oi = 0; oi < sizeof offs / sizeof offs[0]; oi++)
						for (int way = 0; way < 4; way++) {
		enum gs_type t = ts[ti], ot = osg ? GS_I64 : GS_U64;
		struct gs_job job = mkjob(t, ot, OP_SUM, excl, C);
		size_t sz = type_size(t), bad = (size_t)-1, want_bad = (size_t)-1;
		unsigned bits = 8 * (unsigned)sz;
		__int128 hi = osg ? INT64_MAX : (__int128)UINT64_MAX;
		__int128 lo = osg ? INT64_MIN : 0, start, acc[2], v;
		struct gs_err err;
		int rc, f = 0;

		if (type_is_signed(t) && !osg)
			continue;	/* the checked way only */
		void *in = malloc(n * C * sz);
		uint64_t *out = malloc(n * C * 8);
		/* values pushing toward the end the start is near: random
		 * (mostly of that end's sign), or (top 2, 3) all the type's
		 * extreme toward it */
		bool ext = way >= 2;
		int top = way & 1;

		for (size_t i = 0; i < n * C; i++) {
			uint64_t r = rnd() >> (64 - bits);

			if (ext)
				r = !type_is_signed(t) ? ~0ull >> (64 - bits)
				    : top ? (1ull << (bits - 1)) - 1
				    : (uint64_t)-(int64_t)(1ull << (bits - 1));
			else if (type_is_signed(t))	/* mostly one sign, the end's */
				r = (rnd() % 8 ? top : !top) ? r >> 1
				    : (uint64_t)-(int64_t)(r >> 1);
			put_bits(in, i, sz, r);
		}
		int64_t off = offs[oi];

		if (oi >= 7) {	/* the extreme toward that end, 1024 times */
			int64_t m = !type_is_signed(t) ? (int64_t)(~0ull >> (64 - bits))
				    : top ? (int64_t)(1ull << (bits - 1)) - 1
				    : (int64_t)(1ull << (bits - 1));
			off = m * 1024 + (oi == 7 ? -1 : 0);
		}
		start = top ? hi - off : lo + off;
		reduce_kernels.acc_init(&job, state);
		for (unsigned c = 0; c < C; c++)
			xsum_add_i128(&state[c].u.sum, start, 0);
		memset(out, 0xa5, n * C * 8);
		rc = cpu_scan(&job, state, scratch(&job), in, n, out, &bad, &err);
		acc[0] = acc[1] = start;
		for (size_t i = 0; i < n && want_bad == (size_t)-1; i++)
			for (unsigned c = 0; c < C; c++) {
				__int128 x = load_int(t, in, i * C + c);

				v = excl ? acc[c] : acc[c] + x;
				acc[c] += x;
				if (v < lo || v > hi) {
					want_bad = i;
					break;
				}
				if (osg ? (int64_t)out[i * C + c] != (int64_t)v
					: out[i * C + c] != (uint64_t)v)
					f++;
			}
		runs++;
		if (f || (want_bad == (size_t)-1 ? rc != 0 : rc == 0 || bad != want_bad)) {
			if (fails++ < 5)
				printf("  %s into %s, %u columns, excl %d, %s end - %lld: "
				       "%d outputs differ, bad %zu want %zu (rc %d)\n",
				       type_name(t), type_name(ot), C, excl,
				       top ? "top" : "bottom", (long long)off, f,
				       bad, want_bad, rc);
		}
		free(in);
		free(out);
	}
	CHECKF(fails == 0, "%d of %d scans from near the ends differ", fails, runs);
}

/* Integer input, float output: the exact prefix rounded once. */
static void test_int_to_float(void)
{
	int64_t a[] = { 1ll << 53, 1, 1, -3, 1 };
	uint32_t b[] = { 1 << 24, 1, 2, 0x7fffffff };
	uint64_t c[] = { ~0ull, 1, ~0ull };
	double d[5];
	float f[4];
	struct gs_job job = mkjob(GS_I64, GS_F64, OP_SUM, false, 1);
	size_t bad, one = 1;
	struct gs_err err;

	CHECK(scan_pieces(&job, a, 5, d, &one, 1, &bad, &err) == 0);
	/* 2^53 + 1 is a tie: to even 2^53; 2^53 + 2 is exact */
	CHECK(d[0] == 0x1p53 && d[1] == 0x1p53 && d[2] == 0x1p53 + 2);
	CHECK(d[3] == 0x1p53 - 1 && d[4] == 0x1p53);
	job = mkjob(GS_U32, GS_F32, OP_SUM, false, 1);
	CHECK(scan_pieces(&job, b, 4, f, &one, 1, &bad, &err) == 0);
	/* 2^24 + 1: tie to 2^24; 2^24 + 3: tie to 2^24 + 4 */
	CHECK(f[1] == 0x1p24f && f[2] == 0x1p24f + 4);
	CHECK(f[3] == (float)(0x1p24 + 3 + 0x7fffffff));
	job = mkjob(GS_U64, GS_F64, OP_SUM, false, 1);
	CHECK(scan_pieces(&job, c, 3, d, &one, 1, &bad, &err) == 0);
	CHECK(d[0] == 0x1p64 && d[1] == 0x1p64 && d[2] == 0x1p65);
}

static void test_refused(void)
{
	float x[2] = { 1, 2 };
	int32_t o[2];
	struct gs_job job = mkjob(GS_F32, GS_I32, OP_SUM, false, 1);
	size_t bad;
	struct gs_err err;

	reduce_kernels.acc_init(&job, state);
	CHECK(cpu_scan(&job, state, scratch(&job), x, 2, o, &bad, &err) < 0);
	CHECK(err.code == GS_EUSAGE);
	job = mkjob(GS_F32, GS_F32, OP_XOR, false, 1);
	CHECK(cpu_scan(&job, state, scratch(&job), x, 2, o, &bad, &err) < 0);
}

/* ---- the CPU backend's scan state ---------------------------------------- */

struct mem_sink {
	unsigned char *p;
	size_t n;
};

static int mem_write(void *ctx, const void *buf, size_t n, struct gs_err *err)
{
	struct mem_sink *m = ctx;

	memcpy(m->p + m->n, buf, n);
	m->n += n;
	return 0;
}

static void no_release(void *engine, int id)
{
}

static bool same_state(const struct gs_job *job, const struct red_col *a,
		       const struct red_col *b)
{
	for (unsigned c = 0; c < job->columns; c++) {
		const struct xsum *x = &a[c].u.sum, *y = &b[c].u.sum;

		if (a[c].count != b[c].count)
			return false;
		switch (job->op) {
		case OP_SUM:
			if (memcmp(x->limb, y->limb, sizeof(x->limb)) ||
			    x->nan != y->nan || x->pinf != y->pinf || x->ninf != y->ninf)
				return false;
			break;
		case OP_MIN:
		case OP_MAX:
			if (a[c].u.mm.nan != b[c].u.mm.nan ||
			    a[c].u.mm.v.u != b[c].u.mm.v.u)
				return false;
			break;
		default:
			if (a[c].u.bits != b[c].u.bits)
				return false;
			break;
		}
	}
	return true;
}

/* Finite values of every binade (f32, f64) or random bits (integers). */
static void fill_random(enum gs_type t, void *p, size_t n)
{
	static uint64_t x = 88172645463325252ull;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (t == GS_F64)
			put_bits(p, i, 8, (x & 0x800fffffffffffffull) |
				 ((x >> 20) % 2000 + 20) << 52);
		else if (t == GS_F32)
			put_bits(p, i, 4, (x & 0x807fffff) | ((x >> 40) % 250 + 2) << 23);
		else
			put_bits(p, i, type_size(t), x);
	}
}

/*
 * backend_cpu scans three chunks of 70000 records, on one thread and on 4
 * (each slice's total from reduce_kernels, merged): after each chunk its
 * scan_state is the state one cpu_scan of the same records leaves, and the
 * sink holds every output of that one scan.
 */
static void test_backend_state(enum gs_type t, enum gs_type ot, enum gs_op op,
			       unsigned cols, int threads)
{
	enum { CHUNK = 70000, NCHUNK = 3 };
	struct gs_job job = mkjob(t, ot, op, false, cols);
	size_t rec = job_record_size(&job), orec = cols * type_size(ot);
	unsigned char *in = malloc(NCHUNK * CHUNK * rec);
	unsigned char *want = malloc(NCHUNK * CHUNK * orec);
	struct mem_sink ms = { malloc(NCHUNK * CHUNK * orec), 0 };
	struct sink sink = { mem_write, &ms };
	struct backend_env env = {
		.job = &job, .chunk_records = CHUNK, .threads = threads,
		.sink = &sink, .release = no_release,
	};
	struct gs_err err;
	size_t bad;
	void *ctx = NULL;

	if (!in || !want || !ms.p || backend_cpu.open(&ctx, &env, &err) < 0) {
		CHECK(!"backend_cpu.open");
		goto out;
	}
	fill_random(t, in, NCHUNK * CHUNK * cols);
	reduce_kernels.acc_init(&job, state);
	for (int k = 0; k < NCHUNK; k++) {
		struct chunk ch = { .id = k, .data = in + k * CHUNK * rec,
				    .nrec = CHUNK, .first_rec = (uint64_t)k * CHUNK };

		CHECK(cpu_scan(&job, state, scratch(&job), ch.data, CHUNK,
			       want + k * CHUNK * orec, &bad, &err) == 0);
		CHECK(backend_cpu.submit(ctx, &ch, &err) == 0);
		CHECKF(same_state(&job, backend_cpu.scan_state(ctx), state),
		       "%s op %d, %d threads, chunk %d", type_name(t), op,
		       threads, k);
	}
	CHECK(ms.n == NCHUNK * CHUNK * orec && !memcmp(ms.p, want, ms.n));
out:
	backend_cpu.close(ctx);
	free(in);
	free(want);
	free(ms.p);
}

static void test_backend_states(void)
{
	for (int th = 1; th <= 4; th += 3) {
		test_backend_state(GS_F64, GS_F64, OP_SUM, 1, th);
		test_backend_state(GS_F32, GS_F32, OP_SUM, 2, th);
		test_backend_state(GS_I32, GS_I64, OP_SUM, 1, th);
		test_backend_state(GS_I16, GS_I64, OP_MIN, 3, th);
		test_backend_state(GS_F32, GS_F32, OP_MAX, 1, th);
		test_backend_state(GS_U32, GS_U64, OP_XOR, 2, th);
	}
}

int main(void)
{
	test_vectors();
	test_every_split("naive32 sum -> f32");
	test_every_split("ties16 sum -> f16 excl");
	test_every_split("cancel sum -> f64");
	test_every_split("specials prod -> f32");
	test_columns();
	test_int_ops();
	test_int_wide_ends();
	test_int_overflow();
	test_int_to_float();
	test_refused();
	test_backend_states();
	UNIT_END();
}
