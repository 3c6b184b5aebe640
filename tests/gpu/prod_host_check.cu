/*
 * prod_host_check.cu - reduce --op prod on the GPU (cuda/reduce_kernels.cu),
 * replayed on the host: the kernels' pieces are __host__ __device__, so
 * loops over blocks and threads, in the kernels' order and grouping, give
 * what the GPU would. No GPU needed.
 *
 *   1. (prod_check_arith.cuh) numerics/xprod_core.h, the arithmetic both
 *      sides run: the 128x64 and 128x128-bit multiplies against
 *      unsigned __int128; the one-limb
 *      bracket step (fprod_mul64) and the full merge (fprod_merge) against
 *      a reference step written in unsigned __int128 over 256-bit
 *      products, field for field, the carry past 2^128 included; brackets
 *      of many factors, and merges of them, against the exact product (a
 *      bignum): they must hold it, with ends a few units apart; integer
 *      steps and merges against unsigned __int128 and its overflow;
 *   2. whole runs: chunks round-robin over streams, each launch's threads
 *      -> block tree -> scratch -> gather into the stream's accumulator,
 *      then red_merge_host into a struct red_col, against one pass of the
 *      CPU's cpu_add, for every type, 1 to 64 columns, many sizes and grids
 *      and kinds of data (random bits, near 1, 1 + ulp repeated, overflow,
 *      underflow, subnormals, zeros, NaN, inf, exact products, engineered
 *      near-ties of the double rounding, integer products near 2^128).
 *      Where both give a result it must be the same (bits, or decimal
 *      digits); integer overflow must agree; a float result must also be
 *      the exact product correctly rounded, computed here with a bignum,
 *      whoever gave it. A float bracket that cannot round ("product cannot
 *      be rounded exactly") on one side only is no failure: the groupings
 *      differ, and only products within about n * 2^-126 (relative) of a
 *      rounding tie, n factors, get there (here: the engineered ones). How
 *      often each side could not round is counted, and the first cases
 *      where only the GPU could not are shown.
 *
 * Build and run from the repository root, after make:
 *   sh tests/gpu/prod_host_check.sh
 * (nvcc on this file with the C objects the script names).
 * The last line reads "prod_host_check: N checks, F failed" (exit 1 if F).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
#include "red_prod.cuh"

typedef unsigned long long u64;
typedef unsigned __int128 u128;

static u64 checks, fails;

#define EXPECT(cond, ...) do {                                            \
	checks++;                                                         \
	if (!(cond) && fails++ < 30) {                                    \
		printf("FAIL %s:%d: ", __FILE__, __LINE__);               \
		printf(__VA_ARGS__);                                      \
		printf("\n");                                             \
	}                                                                 \
} while (0)

/* Outcomes of the float comparisons. */
static u64 f_both, f_cpu_only, f_gpu_only, f_neither, f_oracle, i_both,
	   i_overflow, runs;

static u64 rng_state = 0x2545f4914f6cdd1dull;

static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unif(void)
{
	return (double)(rnd() >> 11) * 0x1p-53;
}

/* A 64-bit value with structure: edges, sparse bits, or random. */
#include "tie_pad.h"

static u64 rnd_edge(void)
{
	switch (rnd() % 8) {
	case 0: return 0;
	case 1: return ~0ull;
	case 2: return 1ull << 63;
	case 3: return ~0ull << (rnd() % 64);
	case 4: return 1ull << (rnd() % 64);
	default: return rnd();
	}
}

#include "prod_check_arith.cuh"

/* ---- 2. whole runs ------------------------------------------------------- */

/* How a run is spread: the grid's SM count, the streams, records per
 * chunk. */
struct sim {
	int nsm, streams;
	size_t chunk;
};

/* One launch of red_prod_launch, replayed: red_prod_kernel's blocks in
 * turn (every thread's fold, the tree, the scratch), then
 * red_prod_gather_kernel. */
template <typename T>
static void replay_launch(const struct gs_job *job, void *dacc, size_t bytes,
			  const T *d, size_t nrec, int nsm)
{
	typedef red_prod_t<T> P;
	static P part[RED_THREADS];
	unsigned c = job->columns;
	size_t n = nrec * c;
	unsigned blocks = red_prod_blocks(n, nsm);
	struct red_dev_head *h = (struct red_dev_head *)dacc;
	P *acc = (P *)(h + 1), *scratch = acc + c;
	size_t total = (size_t)blocks * RED_THREADS, stride = total - total % c;

	EXPECT(blocks <= RED_PROD_BLOCKS &&
	       (char *)(scratch + (size_t)blocks * c) <= (char *)dacc + bytes,
	       "scratch of %u blocks * %u columns outside the accumulator",
	       blocks, c);
	h->count += nrec;
	for (unsigned b = 0; b < blocks; b++) {
		for (unsigned t = 0; t < RED_THREADS; t++) {
			size_t g = (size_t)b * RED_THREADS + t;

			red_prod_thread(&part[t], d, g < stride ? n : 0, g, stride);
		}
		red_p_tree(part, RED_THREADS, c);
		for (unsigned t = 0; t < c; t++)
			scratch[red_prod_slot(b, t, c)] = part[t];
	}
	for (unsigned t = 0; t < RED_THREADS; t++)
		red_p_gather(&part[t], scratch, (size_t)blocks * c, t,
			     RED_THREADS / c * c);
	red_p_tree(part, RED_THREADS, c);
	for (unsigned t = 0; t < c; t++)
		red_p_merge(&acc[t], &part[t]);
}

/* The backend's run: chunks round-robin over zeroed per-stream
 * accumulators (no launch for an empty chunk), then merge_host of each. */
template <typename T>
static void gpu_run(const struct gs_job *job, const T *d, size_t nrec,
		    const struct sim *s, struct red_col *out)
{
	size_t bytes = red_dev_acc_bytes(job);
	std::vector<std::vector<u64>> acc(s->streams,
					  std::vector<u64>((bytes + 7) / 8, 0));
	size_t k = 0;

	for (size_t r = 0; r < nrec; r += s->chunk, k++) {
		size_t cn = nrec - r < s->chunk ? nrec - r : s->chunk;

		replay_launch(job, acc[k % s->streams].data(), bytes,
			      d + r * job->columns, cn, s->nsm);
	}
	reduce_kernels.acc_init(job, out);
	for (int i = 0; i < s->streams; i++)
		red_merge_host(job, out, acc[i].data());
}

static void cpu_run(const struct gs_job *job, const void *d, size_t nrec,
		    struct red_col *out)
{
	static void *scratch;

	if (!scratch)
		scratch = malloc(reduce_kernels.scratch_size(job));
	reduce_kernels.acc_init(job, out);
	reduce_kernels.cpu_add(job, out, scratch, d, NULL, nrec);
}

/* The exact product of one column's values, as a bignum (odd parts of the
 * mantissas) times 2^e, and its correct rounding to double. */
struct oracle {
	std::vector<u64> w;
	long long e;
	bool nan, zero, inf, neg, too_big;
};

static void oracle_init(struct oracle *o)
{
	o->w.assign(1, 1);
	o->e = 0;
	o->nan = o->zero = o->inf = o->neg = o->too_big = false;
}

static void oracle_mul(struct oracle *o, double v)
{
	struct exact_term t;
	u128 m;
	u64 c = 0;

	o->neg ^= signbit(v) != 0;
	if (isnan(v) || isinf(v) || v == 0) {
		o->nan |= isnan(v) != 0;
		o->inf |= isinf(v) != 0;
		o->zero |= v == 0;
		return;
	}
	t = exact_f64(v);
	m = t.m < 0 ? -(u128)t.m : (u128)t.m;
	while (!(m & 1)) {
		m >>= 1;
		t.e++;
	}
	o->e += t.e;
	if (o->too_big || m == 1)
		return;
	if (o->w.size() > 6000) {	/* quadratic: leave it to the CPU */
		o->too_big = true;
		return;
	}
	for (u64 &x : o->w) {
		u128 p = (u128)x * (u64)m + c;

		x = (u64)p;
		c = (u64)(p >> 64);
	}
	if (c)
		o->w.push_back(c);
}

/* Bits [pos, pos + 64) of w. */
static u64 big_bits(const std::vector<u64> &w, size_t pos)
{
	size_t i = pos / 64, s = pos % 64;
	u64 lo = i < w.size() ? w[i] >> s : 0;
	u64 hi = s && i + 1 < w.size() ? w[i + 1] << (64 - s) : 0;

	return lo | hi;
}

/* false when the oracle gave up (a bignum too large to finish here). */
static bool oracle_round(const struct oracle *o, u64 *bits)
{
	u64 sign = (u64)o->neg << 63;
	size_t nb, sh;
	u128 m;
	bool sticky = false;

	if (o->nan || (o->zero && o->inf)) {
		*bits = 0x7ff8000000000000ull;
		return true;
	}
	if (o->inf || o->zero) {
		*bits = sign | (o->inf ? 0x7ff0000000000000ull : 0);
		return true;
	}
	if (o->too_big)
		return false;
	nb = 64 * o->w.size() - (size_t)__builtin_clzll(o->w.back());
	sh = nb > 128 ? nb - 128 : 0;
	m = (u128)big_bits(o->w, sh + 64) << 64 | big_bits(o->w, sh);
	for (size_t i = 0; i < sh / 64 && !sticky; i++)
		sticky = o->w[i] != 0;
	if (sh % 64)
		sticky |= (o->w[sh / 64] << (64 - sh % 64)) != 0;
	/* a sticky bit far below the double's rounding point */
	*bits = round_u128(m | sticky, o->e + (long long)sh, o->neg, XF_F64);
	return true;
}

/* Bignums of 64-bit limbs, low first: w << s, and the sign of a - b. */
static std::vector<u64> big_shl(const std::vector<u64> &w, size_t s)
{
	std::vector<u64> r(s / 64, 0);
	u64 c = 0;

	for (u64 x : w) {
		r.push_back(x << (s % 64) | c);
		c = s % 64 ? x >> (64 - s % 64) : 0;
	}
	r.push_back(c);
	return r;
}

static int big_cmp(std::vector<u64> a, std::vector<u64> b)
{
	while (!a.empty() && !a.back())
		a.pop_back();
	while (!b.empty() && !b.back())
		b.pop_back();
	if (a.size() != b.size())
		return a.size() < b.size() ? -1 : 1;
	for (size_t i = a.size(); i-- > 0;)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* The sign of m * 2^e - |the oracle's product|. */
static int cmp_exact(u128 m, long long e, const struct oracle *o)
{
	std::vector<u64> a = { (u64)m, (u64)(m >> 64) };

	if (e >= o->e)
		return big_cmp(big_shl(a, (size_t)(e - o->e)), o->w);
	return big_cmp(a, big_shl(o->w, (size_t)(o->e - e)));
}

/* Brackets against the exact product (the oracle's bignum): n finite
 * factors stepped in one at a time, and two such brackets merged, must
 * hold it, lo * 2^exp <= |product| <= hi * 2^exp, with hi's top bit set.
 * A step rounds each end by under a unit and scales the earlier gap by
 * hi'/hi, so what step k left is under 2 * hi_n / hi_k < 4 units at the
 * end: a chain of n steps is checked against 6n units. */
static void check_bracket_exact(void)
{
	for (int i = 0; i < 6000; i++) {
		struct fprod p[2];
		struct oracle o;
		int n[2];

		oracle_init(&o);
		for (int k = 0; k < 2; k++) {
			n[k] = 1 + (int)(rnd() % (i % 10 ? 30 : 300));
			fprod_one(&p[k]);
			for (int j = 0; j < n[k]; j++) {
				double v = rnd_finite();
				u64 m;
				long long e;

				f64_parts(v, &m, &e);
				fprod_mul64(&p[k], m, e);
				oracle_mul(&o, v);
			}
			if (k == 0 && !o.too_big) {
				u128 lo = u128_of(p[0].lo), hi = u128_of(p[0].hi);

				EXPECT(cmp_exact(lo, p[0].exp, &o) <= 0 &&
				       cmp_exact(hi, p[0].exp, &o) >= 0 &&
				       hi >> 127 && hi - lo <= (u128)6 * n[0],
				       "bracket of %d factors: lo %llx:%llx hi %llx:%llx",
				       n[0], (u64)(lo >> 64), (u64)lo,
				       (u64)(hi >> 64), (u64)hi);
			}
		}
		fprod_merge(&p[0], &p[1]);
		if (o.too_big)
			continue;
		EXPECT(cmp_exact(u128_of(p[0].lo), p[0].exp, &o) <= 0 &&
		       cmp_exact(u128_of(p[0].hi), p[0].exp, &o) >= 0 &&
		       p[0].hi[1] >> 63, "merge of %d and %d factors", n[0], n[1]);
	}
}

#include "prod_check_data.cuh"

/* ---- comparing ----------------------------------------------------------- */

static u64 f64_bits(double v)
{
	u64 u;

	memcpy(&u, &v, 8);
	return u;
}

static double f64_of(u64 u)
{
	double v;

	memcpy(&v, &u, 8);
	return v;
}

template <typename T>
static void run_one(const std::vector<std::vector<T>> &cols, size_t nrec,
		    const struct sim *s, const char *what)
{
	unsigned c = (unsigned)cols.size();
	struct gs_job job;
	std::vector<T> d((size_t)nrec * c);
	std::vector<struct red_col> cpu(c), gpu(c);
	const bool flt = dtype_is_float<T>::value;
	const char *why = "";

	memset(&job, 0, sizeof job);
	job.cmd = CMD_REDUCE;
	job.op = OP_PROD;
	job.dtype.type = gs_of(T{});
	job.columns = c;
	EXPECT(red_supports(&job, &why), "red_supports refuses prod: %s", why);
	for (size_t r = 0; r < nrec; r++)
		for (unsigned j = 0; j < c; j++)
			d[r * c + j] = cols[j][r];
	cpu_run(&job, d.data(), nrec, cpu.data());
	gpu_run(&job, d.data(), nrec, s, gpu.data());
	runs++;
	for (unsigned j = 0; j < c; j++) {
		struct result rc, rg;
		struct gs_err ec, eg;
		bool okc = red_result(&job, &cpu[j], &rc, &ec) == 0;
		bool okg = red_result(&job, &gpu[j], &rg, &eg) == 0;

		EXPECT(cpu[j].count == gpu[j].count && gpu[j].count == nrec,
		       "%s: count %llu != %llu", what,
		       (u64)gpu[j].count, (u64)cpu[j].count);
		if (!flt) {
			i_both += okc && okg;
			i_overflow += !okc;
			EXPECT(okc == okg && (!okc || !strcmp(rc.dec, rg.dec)),
			       "%s col %u nsm %d streams %d chunk %zu: gpu %s cpu %s",
			       what, j, s->nsm, s->streams, s->chunk,
			       okg ? rg.dec : eg.what, okc ? rc.dec : ec.what);
			continue;
		}
		f_both += okc && okg;
		f_cpu_only += !okc && okg;
		f_gpu_only += okc && !okg;
		if (okc && !okg && f_gpu_only <= 5)	/* no failure: see the top */
			printf("note: %s col %u (nsm %d, %d streams, chunk %zu): "
			       "the CPU rounded to %a, the GPU's bracket could "
			       "not\n", what, j, s->nsm, s->streams, s->chunk,
			       rc.f);
		f_neither += !okc && !okg;
		if (okc && okg)
			EXPECT(f64_bits(rc.f) == f64_bits(rg.f),
			       "%s col %u nsm %d streams %d chunk %zu: gpu %a cpu %a",
			       what, j, s->nsm, s->streams, s->chunk, rg.f, rc.f);
		if constexpr (dtype_is_float<T>::value) {
			struct oracle o;
			u64 want;

			if (nrec > 20000)
				continue;
			oracle_init(&o);
			for (size_t r = 0; r < nrec; r++)
				oracle_mul(&o, exact_elem_f64(cols[j][r]));
			if (!oracle_round(&o, &want))
				continue;
			f_oracle++;
			EXPECT(!okg || f64_bits(rg.f) == want,
			       "%s col %u: gpu %a, exact product rounds to %a",
			       what, j, rg.f, f64_of(want));
			EXPECT(!okc || f64_bits(rc.f) == want,
			       "%s col %u: cpu %a, exact product rounds to %a",
			       what, j, rc.f, f64_of(want));
		}
	}
}

/* ---- drivers ------------------------------------------------------------- */

static const struct sim sims[] = {
	{ 1, 1, (size_t)-1 },	/* one launch, 4 blocks at most */
	{ 2, 2, 333 },
	{ 132, 2, 1000 },	/* H100's grid */
	{ 3, 3, 77 },
	{ 132, 1, (size_t)-1 },
};
#define NSIMS (sizeof sims / sizeof *sims)

static const size_t sizes[] = { 0, 1, 2, 3, 5, 7, 8, 9, 16, 17, 100, 255,
				256, 257, 1000, 4099 };
static const unsigned colss[] = { 1, 2, 3, 5, 64 };

template <typename T>
static void float_runs(const char *tname)
{
	unsigned si = 0;
	char what[128];

	for (int k = 0; k < F_NKINDS; k++)
		for (size_t n : sizes)
			for (unsigned c : colss) {
				std::vector<std::vector<T>> cols(c);

				if (c == 64 && n > 257)
					continue;
				for (unsigned j = 0; j < c; j++)
					gen_float((enum fkind)k, cols[j], n);
				snprintf(what, sizeof what, "%s %s n=%zu c=%u",
					 tname, fkind_name[k], n, c);
				for (int r = 0; r < 2; r++)
					run_one(cols, n, &sims[si++ % NSIMS], what);
			}
	/* long runs: 2^20 records, products far out of range or of many
	 * factors near 1 */
	for (int k : { F_ULP, F_ULPMIX, F_NEAR1, F_BIG, F_TINY, F_ZEROS })
		for (unsigned c : { 1u, 3u }) {
			size_t n = (size_t)1 << 20;
			std::vector<std::vector<T>> cols(c);
			const struct sim big[2] = { { 132, 2, 65536 }, { 4, 2, 300000 } };

			for (unsigned j = 0; j < c; j++)
				gen_float((enum fkind)k, cols[j], n);
			snprintf(what, sizeof what, "%s long %s n=%zu c=%u",
				 tname, fkind_name[k], n, c);
			for (const struct sim &s : big)
				run_one(cols, n, &s, what);
		}
	/* many engineered near-ties, one column each */
	for (int i = 0; i < 3000; i++) {
		size_t n = 60 + rnd() % 100;
		std::vector<std::vector<T>> cols(1);

		gen_float(F_TIE, cols[0], n);
		snprintf(what, sizeof what, "%s tie #%d n=%zu", tname, i, n);
		run_one(cols, n, &sims[si++ % NSIMS], what);
	}
}

template <typename T>
static void int_runs(const char *tname)
{
	unsigned si = 0;
	char what[128];

	for (int k = 0; k < I_NKINDS; k++)
		for (size_t n : sizes)
			for (unsigned c : colss) {
				std::vector<std::vector<T>> cols(c);

				if (c == 64 && n > 257)
					continue;
				for (unsigned j = 0; j < c; j++)
					gen_int((enum ikind)k, cols[j], n);
				snprintf(what, sizeof what, "%s %s n=%zu c=%u",
					 tname, ikind_name[k], n, c);
				for (int r = 0; r < 2; r++)
					run_one(cols, n, &sims[si++ % NSIMS], what);
			}
	for (int k : { I_ONES, I_ZLAST, I_BITS })
		for (unsigned c : { 1u, 3u }) {
			size_t n = (size_t)1 << 20;
			std::vector<std::vector<T>> cols(c);
			const struct sim big[2] = { { 132, 2, 65536 }, { 4, 2, 300000 } };

			for (unsigned j = 0; j < c; j++)
				gen_int((enum ikind)k, cols[j], n);
			snprintf(what, sizeof what, "%s long %s n=%zu c=%u",
				 tname, ikind_name[k], n, c);
			for (const struct sim &s : big)
				run_one(cols, n, &s, what);
		}
	for (int i = 0; i < 3000; i++) {
		size_t n = 1 + rnd() % 200;
		std::vector<std::vector<T>> cols(1);

		gen_int(I_EDGE, cols[0], n);
		snprintf(what, sizeof what, "%s edge #%d n=%zu", tname, i, n);
		run_one(cols, n, &sims[si++ % NSIMS], what);
	}
}

int main(void)
{
	check_mul();
	check_step();
	check_imerge();
	check_recipes();
	check_bracket_exact();
	printf("arithmetic: %llu checks, %llu failed\n", checks, fails);
	float_runs<double>("f64");
	float_runs<float>("f32");
	float_runs<f16_bits>("f16");
	float_runs<bf16_bits>("bf16");
	int_runs<unsigned char>("u8");
	int_runs<signed char>("i8");
	int_runs<unsigned short>("u16");
	int_runs<short>("i16");
	int_runs<unsigned>("u32");
	int_runs<int>("i32");
	int_runs<unsigned long long>("u64");
	int_runs<long long>("i64");
	printf("runs: %llu (each against one CPU pass)\n", runs);
	printf("float columns: %llu both rounded (equal), %llu only the GPU "
	       "rounded, %llu only the CPU, %llu neither; %llu checked against "
	       "the exact product\n", f_both, f_cpu_only, f_gpu_only,
	       f_neither, f_oracle);
	printf("integer columns: %llu both exact (equal), %llu both "
	       "overflowed\n", i_both, i_overflow);
	printf("prod_host_check: %llu checks, %llu failed\n", checks, fails);
	return fails != 0;
}
