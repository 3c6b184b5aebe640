/*
 * scan_host_check.cu - host-only check of the GPU scan's (cuda/scan/)
 * __host__ __device__ pieces against the CPU code; no GPU needed.
 *
 *   1. ieee.h's ieee_round (one rounding of (m + d) * 2^e), which the scan
 *      shares with the CPU, and scan_round_fast and scan_round_f64 against
 *      a slow reference written here (guard, round and sticky bits one at a
 *      time), itself checked against the host's long double conversions,
 *      every format;
 *   2. sum_round of random K-limb fixed-point values against xsum_round of
 *      the same value built in a struct xsum; scan_sum_hw's element and
 *      output conversions against scan_sum_window<T, 1>'s at random window lsbs
 *      of its range (chunks in 4 that take scan_sum_hw replay both);
 *   3. the prod monoids: a factor's bracket, the one-factor step and the
 *      full merge, the rounding, against cpu_reduce.c's fprod and iprod;
 *   4. whole scans: the kernels' three phases replayed on the host with the
 *      same monoids in the device's grouping (thread runs, warp shuffles,
 *      warp totals, tiles, the carry per column, chunk splits, the status
 *      and its message) against cpu_scan, byte for byte, for every type,
 *      op, output type, --exclusive and 1-3 columns. prod scans get data
 *      of every kind (near 1, 1 + ulp, zeros, signs, NaN and inf,
 *      subnormals, runs that overflow and underflow and come back, exact
 *      products and ties, engineered near-ties, integer overflow of the
 *      output type and of 128 bits). Where the CPU and the replay both
 *      fail they must fail alike, and the outputs before the first failure
 *      must be equal. A float prefix within about n * 2^-126 of a rounding
 *      tie may fail on one side only (the brackets depend on the grouping,
 *      as between the CPU's thread counts): counted, not a failure; every
 *      float prod output either side wrote is also checked against the
 *      exact prefix (a bignum) correctly rounded.
 *   5. --backend auto's hand-over of a scan: cpu_scan over a prefix of the
 *      data (or the threaded CPU's merged slice totals), its state turned
 *      into the GPU's carry by scan_seed_host (gpu_scan_seed's conversion),
 *      the rest replayed as in 4 from that carry, against one cpu_scan of
 *      everything: every type, op (prod is refused), output type, split,
 *      1-3 columns, --exclusive, with NaN, infinities, signed zeros, the
 *      largest and the subnormal values, cancellations and integer
 *      extremes; overflow errors must name the same record.
 *
 * Build and run (after make): sh tests/gpu/scan_host_check.sh; make check
 * runs it through tests/test_gpu_host.sh wherever nvcc is found.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>
#include "scan_handle.cuh"
extern "C" {
#include "cpu_red.h"
}

static unsigned long long fails, checks, scans, scan_errors;
static unsigned long long win_chunks[5], win_switches;	/* by mode */

#define EXPECT(cond, ...) do {                                            \
	checks++;                                                         \
	if (!(cond) && fails++ < 20) {                                    \
		printf("FAIL %s:%d: ", __FILE__, __LINE__);               \
		printf(__VA_ARGS__);                                      \
		printf("\n");                                             \
	}                                                                 \
} while (0)

static u64 rng_state = 0x9e3779b97f4a7c15ull;

static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#include "tie_pad.h"

static u64 rnd_bits(int nb)
{
	return nb <= 0 ? 0 : nb >= 64 ? rnd() : rnd() & ((1ull << nb) - 1);
}

/* ---- 1. ieee_round vs a slow reference ---------------------------------- */

/* Bit i of m (0 past the top). */
static bool bit_of(u128 m, long i)
{
	return i >= 0 && i < 128 && (m >> i & 1);
}

/* (neg ? -1 : 1) * (m + d) * 2^e rounded to nearest even into f, with
 * 0 < d < 1 iff sticky: the textbook way, unlike ieee_round's shifts and
 * compares. The kept bits are those of weight >= 2^q, q the last
 * significand bit's (never below the subnormals'); the guard bit is the one
 * below; every lower bit and d are the sticky. m == 0 gives a zero. */
static u64 ref_round(u128 m, bool sticky, long e, bool neg,
		     const struct ieee_fmt &f)
{
	u64 sign = (u64)neg << (f.width - 1), mant = 0;
	long h = 127, q;
	bool guard, rest = sticky;

	if (m == 0)
		return sign;
	while (!bit_of(m, h))
		h--;
	q = std::max(h + e - (f.p - 1), (long)f.emin - (f.p - 1));
	if (q - 1 - e > 127)	/* below half the smallest subnormal */
		return sign;
	for (long i = h; i >= q - e; i--)	/* at most p bits; zeros */
		mant = mant << 1 | bit_of(m, i);	/* below bit 0 */
	guard = bit_of(m, q - 1 - e);
	for (long i = q - 2 - e; i >= 0 && !rest; i--)
		rest = bit_of(m, i);
	if (guard && (rest || (mant & 1)))
		mant++;
	if (mant >> f.p) {		/* carried into the next binade */
		mant >>= 1;
		q++;
	}
	if (mant >> (f.p - 1) == 0)	/* subnormal (or rounded to zero) */
		return sign | mant;
	if (q + f.p - 1 > f.emax)
		return sign | f.inf;
	return sign | (u64)(q + f.p - 1 + f.emax) << (f.p - 1) |
	       (mant & ((1ull << (f.p - 1)) - 1));
}

/* The reference against the host's conversions where they apply: m below
 * 2^64 scaled into a long double exactly, then one rounding to f32 or f64. */
static void check_ref_hw(u128 m, long e, bool neg, int f)
{
	long double v = ldexpl((long double)(u64)m, (int)e);
	u64 want;

	if (m >> 64 || f < XF_F32)
		return;
	if (neg)
		v = -v;
	if (f == XF_F32) {
		float x = (float)v;

		want = exact_bits_f32(x);
	} else {
		want = exact_bits_f64((double)v);
	}
	u64 got = ref_round(m, false, e, neg, ieee_fmt_of((enum xfmt)f));
	EXPECT(want == got, "ref_round vs host fmt %d m %llx e %ld: %llx != %llx",
	       f, (u64)m, e, got, want);
}

/* scan_round_f64 (a min/max prefix's double) against the reference: the
 * double's fields as (m, e); a NaN is the format's NaN. */
static void check_round_f64(int f, int i)
{
	const struct ieee_fmt fmt = ieee_fmt_of((enum xfmt)f);
	u64 db = rnd(), be, want;
	double d;

	if (i % 5 == 0)		/* near the format's range */
		db = (db & 0x800fffffffffffffull) |
		     (u64)(1023 + rnd() % 300 - 150) << 52;
	if (i % 101 == 0)	/* NaNs and infinities */
		db |= 0x7ffull << 52;
	memcpy(&d, &db, sizeof(d));
	be = db >> 52 & 0x7ff;
	if (d != d)
		want = fmt.nan;
	else if (be == 0x7ff)
		want = (db >> 63) << (fmt.width - 1) | fmt.inf;
	else if (f == XF_F64)
		want = db;
	else
		want = ref_round((db & 0xfffffffffffffull) | (u64)(be != 0) << 52,
				 false, (long)(be + (be == 0)) - 1075, db >> 63, fmt);
	u64 got = scan_round_f64(d, fmt);
	EXPECT(want == got, "round_f64 fmt %d %a: %llx != %llx", f, d, got, want);
}

static void check_round(void)
{
	for (int f = XF_F16; f <= XF_F64; f++) {
		const struct ieee_fmt fmt = ieee_fmt_of((enum xfmt)f);

		for (int i = 0; i < 200000; i++) {
			int nb = 1 + (int)(rnd() % 128);
			u128 m = (u128)rnd_bits(nb - 64) << 64 | rnd_bits(nb);
			long e = (long)(rnd() % 2400) - 1250;
			bool neg = rnd() & 1;
			u64 want, got;

			if (i % 7 == 0)		/* ties and near-ties */
				m |= (u128)1 << (rnd() % 100);
			want = ref_round(m, false, e, neg, fmt);
			got = ieee_round(m, false, e, neg, &fmt);
			EXPECT(want == got, "round fmt %d m %llx:%llx e %ld: %llx != %llx",
			       f, (u64)(m >> 64), (u64)m, e, got, want);
			check_ref_hw(m, e, neg, f);
			/* the fast path, with and without a sticky bit below
			 * m (m * 2 + sticky at e - 1 is the same value) */
			got = scan_round_fast(m, false, e, neg, fmt);
			EXPECT(want == got, "fast round fmt %d m %llx:%llx e %ld: %llx != %llx",
			       f, (u64)(m >> 64), (u64)m, e, got, want);
			if (m >> 127 == 0) {
				u128 m2 = m << 1 | 1;
				bool st = rnd() & 1;

				want = ref_round(m2, st, e - 1, neg, fmt);
				got = ieee_round(m2, st, e - 1, neg, &fmt);
				EXPECT(want == got, "sticky fmt %d m %llx:%llx e %ld: %llx != %llx",
				       f, (u64)(m2 >> 64), (u64)m2, e - 1, got, want);
				got = scan_round_fast(m2, st, e - 1, neg, fmt);
				EXPECT(want == got, "fast sticky fmt %d m %llx:%llx e %ld: %llx != %llx",
				       f, (u64)(m2 >> 64), (u64)m2, e - 1, got, want);
			}
			check_round_f64(f, i);
		}
	}
}

/* ---- 2. sum_round vs xsum_round ----------------------------------------- */

template <int K, int L>
static void check_sum_round_one(int f)
{
	sum_val<K> v;
	struct xsum x;
	int top = (int)(rnd() % K), style = (int)(rnd() % 4);

	for (int j = 0; j < K; j++)
		v.l[j] = j > top ? 0 : style == 0 ? rnd() :
			 style == 1 ? (rnd() % 3 == 0 ? rnd() : 0) :
			 style == 2 ? (j == top ? rnd_bits(1 + (int)(rnd() % 64)) : 0) :
			 (j == top || j == 0 ? rnd() : ~0ull * (rnd() & 1));
	if (rnd() & 1) {	/* negate: two's complement of K limbs */
		u64 c = 1;

		for (int j = 0; j < K; j++) {
			v.l[j] = ~v.l[j] + c;
			c = c && v.l[j] == 0;
		}
	}
	/* the same value: the limbs, less 2^(64K) when the top bit is set */
	xsum_init(&x);
	for (int j = 0; j < K; j++)
		xsum_add_u128(&x, v.l[j], L + 64 * j, false);
	if (v.l[K - 1] >> 63)
		xsum_add_u128(&x, 1, L + 64 * K, true);
	v.flags = rnd() % 16 == 0 ? (unsigned)(1 + rnd() % 7) : 0;
	x.nan = v.flags & EXACT_NAN;
	x.pinf = v.flags & EXACT_PINF;
	x.ninf = v.flags & EXACT_NINF;
	u64 want = xsum_round(&x, (enum xfmt)f), got = sum_round<K>(v, L, ieee_fmt_of((enum xfmt)f));

	EXPECT(want == got, "sum_round K %d fmt %d top %d style %d: %llx != %llx",
	       K, f, top, style, got, want);
}

/* A narrow window's value at a random lsb against the wide one it
 * widens to (f64's 34 limbs, lsb -1074): the same rounding. */
template <int N>
static void check_sum_round_lsb(int f)
{
	sum_val<N> v;
	int w = -1074 + (int)(rnd() % (2176 - 64 * N));
	int top = (int)(rnd() % N);

	for (int j = 0; j < N; j++)
		v.l[j] = j > top ? 0 : rnd() % 3 ? rnd() : rnd_bits((int)(rnd() % 64));
	if (rnd() & 1) {
		u64 c = 1;

		for (int j = 0; j < N; j++) {
			v.l[j] = ~v.l[j] + c;
			c = c && v.l[j] == 0;
		}
	}
	v.flags = rnd() % 16 == 0 ? (unsigned)(1 + rnd() % 7) : 0;
	sum_val<34> wide = sum_widen<N, 34>(v, w + 1074);
	sum_val<N> back = sum_narrow<34, N>(wide, w + 1074);
	u64 want = sum_round<34>(wide, -1074, ieee_fmt_of((enum xfmt)f));
	u64 got = sum_round<N>(v, w, ieee_fmt_of((enum xfmt)f));

	EXPECT(want == got, "sum_round N %d lsb %d fmt %d: %llx != %llx", N, w,
	       f, got, want);
	EXPECT(!memcmp(back.l, v.l, sizeof(v.l)) && back.flags == v.flags,
	       "sum_narrow(sum_widen) N %d lsb %d", N, w);
}

/* scan_sum_hw<T, O>'s element and output at a random lsb w of its range
 * against scan_sum_window<T, 1>'s: an element n * 2^(w + s) with n below 2^p
 * (T's significand) and n * 2^s below 2^62; a prefix of any sign and
 * size below 2^63 (past O's largest finite value when w is high). */
template <typename T, typename O>
static void check_hsum_one(void)
{
	const int p = sizeof(T) == 8 ? 53 : sizeof(T) == 4 ? 24 : 8;
	int lo, hi, w, nb, sh;
	scan_cfg c;
	u64 got, want, n;
	long long v;
	T x;

	scan_sum_hw_range<T, O>(&lo, &hi);
	memset(&c, 0, sizeof(c));
	c.fmt = ieee_fmt_of(sizeof(O) == 8 ? XF_F64 : XF_F32);
	c.w = w = lo + (int)(rnd() % (u64)(hi - lo + 1));
	nb = (int)(rnd() % 64);
	v = (long long)rnd_bits(nb);
	v = rnd() & 1 ? -v : v;
	scan_sum_hw<T, O>::out(sum_hw_val{v}, c, &got, NULL);
	scan_sum_window<T, 1>::out(sum_val<1>{{(u64)v}, 0}, c, &want, NULL);
	EXPECT(got == want, "scan_sum_hw out: %lld * 2^%d: %llx != %llx", v, w,
	       got, want);
	nb = 1 + (int)(rnd() % p);
	n = rnd_bits(nb);
	sh = (int)(rnd() % (u64)(62 - nb + 1));
	double d = ldexp((double)n, w + sh) * (rnd() & 1 ? -1 : 1);

	if (!isfinite(d))	/* past f64's range */
		return;
	if constexpr (sizeof(T) == 8) {
		x = d;
	} else {
		float f = (float)d;

		if ((double)f != d)	/* past f32's range */
			return;
		if constexpr (std::is_same<T, bf16_bits>::value)
			x.v = (unsigned short)(exact_bits_f32(f) >> 16);
		else
			x = f;
	}
	got = (u64)scan_sum_hw<T, O>::of(x, c).v;
	want = scan_sum_window<T, 1>::of(x, c).l[0];
	EXPECT(got == want, "scan_sum_hw of: %llu * 2^%d at lsb %d: %llx != %llx",
	       n, w + sh, w, got, want);
}

static void check_sum_round(void)
{
	for (int i = 0; i < 100000; i++) {
		check_hsum_one<float, float>();
		check_hsum_one<float, double>();
		check_hsum_one<double, float>();
		check_hsum_one<double, double>();
		check_hsum_one<bf16_bits, float>();
		check_hsum_one<bf16_bits, double>();
	}
	for (int f = XF_F16; f <= XF_F64; f++) {
		for (int i = 0; i < 20000; i++) {
			check_sum_round_one<2, 0>(f);
			check_sum_round_one<2, -24>(f);
			check_sum_round_one<6, -149>(f);
			if (i % 4 == 0)
				check_sum_round_one<34, -1074>(f);
			check_sum_round_lsb<2>(f);
			check_sum_round_lsb<3>(f);
		}
	}
}

/* ---- 3. the product monoids against cpu_reduce.c ------------------------ */

static struct red_fprod fp_of_cpu(const struct fprod *p)
{
	struct red_fprod d;

	d.lo[0] = (u64)p->lo;
	d.lo[1] = (u64)(p->lo >> 64);
	d.hi[0] = (u64)p->hi;
	d.hi[1] = (u64)(p->hi >> 64);
	d.exp = p->exp;
	d.flags = (p->nan ? RED_PNAN : 0) | (p->zero ? RED_PZERO : 0) |
		  (p->inf ? RED_PINF : 0) | (p->neg ? RED_PNEG : 0);
	return d;
}

static bool fp_same(const struct red_fprod &a, const struct red_fprod &b)
{
	return !memcmp(a.lo, b.lo, sizeof(a.lo)) && !memcmp(a.hi, b.hi, sizeof(a.hi)) &&
	       a.exp == b.exp && a.flags == b.flags;
}

/* A double with structure: any bits, near 1, subnormal, or special. */
static double rnd_double(void)
{
	u64 u = rnd();
	double v;

	switch (rnd() % 6) {
	case 0: u &= 0x800fffffffffffffull; break;	/* subnormal or zero */
	case 1: u = (u & 0x800fffffffffffffull) | 0x3ff0000000000000ull; break;
	case 2: u = (u & 0x800fffffffffffffull) | 0x3fe0000000000000ull; break;
	case 3:
		if (rnd() % 8 == 0)
			u = (u & 0x8000000000000000ull) |
			    (rnd() & 1 ? 0x7ff0000000000000ull : 0x7ff8000000000000ull);
		break;
	default: break;
	}
	memcpy(&v, &u, 8);
	return v;
}

/*
 * scan_fprod against the CPU's fprod: of(x) is the bracket that
 * fprod_mul_f64 makes of one factor; add (the one-factor step, and the
 * full merge) is fprod_merge, field for field, the empty product on
 * either side included; out is fprod_round (bits and whether it rounds).
 * scan_iprod's add against iprod_merge.
 */
static void check_prod_monoids(void)
{
	typedef scan_fprod<double> F;
	scan_cfg c;

	memset(&c, 0, sizeof(c));
	for (int i = 0; i < 100000; i++) {
		struct fprod p, q, one;
		struct red_fprod a, b, r;
		int n = (int)(rnd() % 30), m = (int)(rnd() % 3);
		double x = rnd_double();

		fprod_init(&one);
		fprod_mul_f64(&one, x);
		b = F::of(x, c);
		/* a factor's bracket is 1's bracket times it, exactly */
		EXPECT(fp_same(b, x == x && x != 0 && !isinf(x) ? fp_of_cpu(&one) :
			       red_fprod{ {}, {}, 0, fp_of_cpu(&one).flags }),
		       "scan_fprod::of(%a)", x);
		fprod_init(&p);
		a = F::ident(c);
		for (int j = 0; j < n; j++) {
			double y = rnd_double();

			fprod_mul_f64(&p, y);
			a = F::add(a, F::of(y, c), c);
		}
		/* a from the empty product: compare with p where p has a
		 * bracket, then multiply in one factor or a bracket */
		fprod_init(&q);
		r = F::ident(c);
		for (int j = 0; j < m; j++) {
			double y = rnd_double();

			fprod_mul_f64(&q, y);
			r = F::add(r, F::of(y, c), c);
		}
		if (a.hi[1])
			EXPECT(fp_same(a, fp_of_cpu(&p)), "scan_fprod::add x%d", n);
		if (a.hi[1] && r.hi[1]) {
			struct red_fprod s = a;

			fprod_merge(&p, &q);
			s = F::add(s, r, c);
			EXPECT(!memcmp(s.lo, fp_of_cpu(&p).lo, 16) &&
			       !memcmp(s.hi, fp_of_cpu(&p).hi, 16) &&
			       s.exp == p.exp, "scan_fprod::add of brackets");
			/* the one-factor step against the full merge */
			s = a;
			red_p_merge(&s, &r);
			EXPECT(fp_same(s, F::add(a, r, c)), "one-factor step != merge");
		}
		EXPECT(fp_same(F::add(a, F::ident(c), c), a) &&
		       fp_same(F::add(F::ident(c), a, c), a), "empty product");
		for (int f = XF_F16; f <= XF_F64; f++) {
			struct fprod w;
			struct scan_bad why;
			uint64_t want;
			u64 got;
			bool okw, okg;

			fprod_init(&w);
			w.nan = a.flags & RED_PNAN;
			w.zero = a.flags & RED_PZERO;
			w.inf = a.flags & RED_PINF;
			w.neg = a.flags & RED_PNEG;
			if (a.hi[1]) {
				w.lo = (u128)a.lo[1] << 64 | a.lo[0];
				w.hi = (u128)a.hi[1] << 64 | a.hi[0];
				w.exp = a.exp;
			}
			c.fmt = ieee_fmt_of((enum xfmt)f);
			okw = fprod_round(&w, (enum xfmt)f, &want);
			okg = F::out(a, c, &got, &why);
			EXPECT(okw == okg && (!okw || want == got),
			       "scan_fprod::out fmt %d: %d %llx, cpu %d %llx", f,
			       okg, got, okw, (u64)want);
		}
	}
	for (int i = 0; i < 100000; i++) {
		typedef scan_iprod<long long> I;
		struct iprod p, q;
		struct red_iprod a = I::ident(c), b = I::ident(c);
		int n = (int)(rnd() % 6), m = (int)(rnd() % 3);

		iprod_init(&p);
		iprod_init(&q);
		for (int j = 0; j < n + m; j++) {
			long long x = (long long)(rnd() >> (1 + rnd() % 63));

			x = rnd() % 10 == 0 ? 0 : rnd() & 1 ? -x : x;
			iprod_mul(j < n ? &p : &q, x);
			if (j < n)
				a = I::add(a, I::of(x, c), c);
			else
				b = I::add(b, I::of(x, c), c);
		}
		iprod_merge(&p, &q);
		a = I::add(a, b, c);
		EXPECT(p.overflow == !!(a.flags & RED_POVER) &&
		       p.zero == !!(a.flags & RED_PZERO) &&
		       p.neg == !!(a.flags & RED_PNEG) &&
		       (p.overflow || p.mag == ((a.mag[0] | a.mag[1]) ?
						(u128)a.mag[1] << 64 | a.mag[0] : 1)),
		       "scan_iprod::add");
	}
}

/* ---- 4. whole scans against cpu_scan ------------------------------------ */

/* block_scan on the host, in the device's grouping (each warp's shuffle
 * steps, then warp 0's shuffle steps over the warps' totals), for the
 * first act threads, the others holding the empty prefix: ex[t] thread t's
 * exclusive prefix, *tot (when not NULL) the block's total. A product's
 * bracket depends on the grouping, so this is the device's, step for
 * step. Adding the empty prefix changes nothing in any monoid, so the
 * whole warps past act are left out. */
template <class Op>
static void emu_block_scan(const scan_cfg &c, const typename Op::V *in,
			   unsigned act, typename Op::V *ex, typename Op::V *tot)
{
	typedef typename Op::V V;
	unsigned nt = (act + 31) / 32 * 32, nw = nt / 32;
	std::vector<V> inc(in, in + nt), o;
	V v[SCAN_WARPS], ov[SCAN_WARPS], wp[SCAN_WARPS];

	for (unsigned d = 1; d < 32; d <<= 1) {
		o = inc;
		for (unsigned t = 0; t < nt; t++)
			if (t % 32 >= d)
				inc[t] = Op::add(o[t - d], o[t], c);
	}
	/* warp 0's scan of the warps' totals (those past nw are empty) */
	for (unsigned w = 0; w < nw; w++)
		v[w] = inc[w * 32 + 31];
	for (unsigned d = 1; d < SCAN_WARPS; d <<= 1) {
		for (unsigned w = 0; w < nw; w++)
			ov[w] = v[w];
		for (unsigned w = d; w < nw; w++)
			v[w] = Op::add(ov[w - d], ov[w], c);
	}
	for (unsigned w = 0; w < nw; w++)
		wp[w] = w ? v[w - 1] : Op::ident(c);
	for (unsigned t = 0; t < nt; t++)
		ex[t] = t % 32 ? Op::add(wp[t / 32], inc[t - 1], c) : wp[t / 32];
	if (tot)
		*tot = nw ? v[nw - 1] : Op::ident(c);
}

/* Threads of tile `tile` that own records (the rest hold the empty
 * prefix). */
static unsigned emu_active(size_t nrec, size_t tile)
{
	size_t left = nrec - tile * SCAN_TILE;

	return left >= SCAN_TILE ? SCAN_THREADS
				 : (unsigned)((left + SCAN_ITEMS - 1) / SCAN_ITEMS);
}

/* scan_load: the totals of the first act threads' records of a tile. */
template <class Op>
static void emu_load(const scan_cfg &c, const typename Op::elem *in,
		     unsigned C, unsigned col, size_t nrec, size_t tile,
		     unsigned act, typename Op::V *thr)
{
	for (unsigned th = 0; th < (act + 31) / 32 * 32; th++) {
		size_t r0 = tile * SCAN_TILE + (size_t)th * SCAN_ITEMS;

		thr[th] = Op::ident(c);
		for (int j = 0; j < SCAN_ITEMS; j++)
			if (r0 + j < nrec)
				thr[th] = Op::add(thr[th], Op::of(in[(r0 + j) * C + col], c), c);
	}
}

/* The blocks the replayed launch has (scan_split_for gives the GPU's SMs
 * times the out kernel's occupancy): the number of parts a column is cut
 * into, and so how a product's factors are grouped. */
static unsigned emu_blocks = 528;

/* The kernels' phases on the host, in their grouping: part totals (each
 * thread's records tile after tile, then the block's total), the carry
 * per column, then every part's tiles in order from the part's prefix;
 * the status as scan_fail and scan_status_kernel leave it. Returns the
 * chunk's status. */
template <class Op>
static struct scan_status emu_chunk(const scan_cfg &c, unsigned C,
				    std::vector<typename Op::V> &carry,
				    const typename Op::elem *in, size_t nrec,
				    unsigned osize, unsigned char *out)
{
	typedef typename Op::V V;
	size_t ntiles = (nrec + SCAN_TILE - 1) / SCAN_TILE;
	struct scan_split sp = scan_split_of(ntiles, C, emu_blocks);
	std::vector<V> partv(C * sp.parts), thr(SCAN_THREADS),
		sum(SCAN_THREADS), ex(SCAN_THREADS);
	std::vector<scan_bad> bad(C * sp.parts);
	struct scan_status st;
	V tot;

	memset(&st, 0xff, sizeof(st));
	for (unsigned col = 0; col < C; col++)
		for (unsigned p = 0; p < sp.parts; p++) {
			size_t t0 = p * sp.tpp, t1 = std::min(t0 + sp.tpp, ntiles);
			unsigned act = emu_active(nrec, t0);	/* the fullest */

			for (unsigned th = 0; th < SCAN_THREADS; th++)
				sum[th] = Op::ident(c);
			for (size_t t = t0; t < t1; t++) {
				emu_load<Op>(c, in, C, col, nrec, t,
					     emu_active(nrec, t), thr.data());
				for (unsigned th = 0; th < (act + 31) / 32 * 32; th++)
					sum[th] = Op::add(sum[th],
							  th < (emu_active(nrec, t) + 31) / 32 * 32 ?
							  thr[th] : Op::ident(c), c);
			}
			emu_block_scan<Op>(c, sum.data(), act, ex.data(), &tot);
			partv[col * sp.parts + p] = tot;
		}
	for (unsigned col = 0; col < C; col++)
		for (size_t p0 = 0; p0 < sp.parts; p0 += SCAN_THREADS) {
			unsigned act = sp.parts - p0 < SCAN_THREADS ?
				       (unsigned)(sp.parts - p0) : SCAN_THREADS;

			for (unsigned th = 0; th < SCAN_THREADS; th++)
				thr[th] = th < act ? partv[col * sp.parts + p0 + th]
						   : Op::ident(c);
			emu_block_scan<Op>(c, thr.data(), act, ex.data(), &tot);
			for (unsigned th = 0; th < act; th++)
				partv[col * sp.parts + p0 + th] =
					Op::add(carry[col], ex[th], c);
			carry[col] = Op::add(carry[col], tot, c);
		}
	for (unsigned col = 0; col < C; col++)
		for (unsigned p = 0; p < sp.parts; p++) {
			size_t t0 = p * sp.tpp, t1 = std::min(t0 + sp.tpp, ntiles);
			V pre = partv[col * sp.parts + p];
			bool failed = false;

			for (size_t t = t0; t < t1; t++) {
				unsigned act = emu_active(nrec, t);
				u64 least = SCAN_NONE;
				struct scan_bad lwhy = {};

				emu_load<Op>(c, in, C, col, nrec, t, act, thr.data());
				emu_block_scan<Op>(c, thr.data(), act, ex.data(), &tot);
				for (unsigned th = 0; th < act; th++) {
					size_t r0 = t * SCAN_TILE + (size_t)th * SCAN_ITEMS;
					V run = Op::add(pre, ex[th], c);
					u64 key = SCAN_NONE, bits;
					struct scan_bad fail = {}, why;

					for (int j = 0; j < SCAN_ITEMS && r0 + j < nrec; j++) {
						size_t r = r0 + j;
						V e = Op::of(in[r * C + col], c);

						if (!c.excl)
							run = Op::add(run, e, c);
						if (!Op::out(run, c, &bits, &why) &&
						    key == SCAN_NONE) {
							key = (u64)r * C + col;
							fail = why;
						}
						memcpy(out + (r * C + col) * osize, &bits, osize);
						if (c.excl)
							run = Op::add(run, e, c);
					}
					if (key < least) {
						least = key;
						lwhy = fail;
					}
				}
				pre = Op::add(pre, tot, c);
				if (c.can_fail && !failed && least != SCAN_NONE) {
					failed = true;
					bad[col * sp.parts + p] = lwhy;
					if (least < st.key)
						st.key = least;
				}
			}
		}
	if (st.key != SCAN_NONE) {
		st.rec = st.key / C;
		st.col = (unsigned)(st.key % C);
		st.why = bad[st.col * sp.parts + st.rec / SCAN_TILE / sp.tpp];
	}
	return st;
}

/* Where the replay starts: the empty prefix (seed NULL, first 0), or the
 * carry gpu_scan_seed would make of the CPU's state after `first`
 * records (seed: scan_seed_host's values). */
struct emu_from {
	const void *seed;
	uint64_t first;
};

/* The carry the replay starts from. */
template <class V>
static std::vector<V> emu_carry(const struct emu_from &from, unsigned C,
				const V &ident)
{
	std::vector<V> carry(C, ident);

	if (from.seed)
		memcpy(carry.data(), from.seed, C * sizeof(V));
	return carry;
}

/* The GPU path replayed over chunks of `chunk` records; 0 or -1 with the
 * status check's error and the failing record's index in data. */
template <class Op>
static int emu_scan(const struct gs_job *job, const void *data, size_t n,
		    size_t chunk, unsigned char *out, size_t *bad,
		    struct gs_err *err, const struct emu_from &from)
{
	scan_cfg c = scan_cfg_of(job);
	unsigned C = job->columns, osize = (unsigned)type_size(job->out_type);
	std::vector<typename Op::V> carry = emu_carry(from, C, Op::ident(c));
	const typename Op::elem *in = (const typename Op::elem *)data;

	for (size_t f = 0; f < n; f += chunk) {
		size_t k = n - f < chunk ? n - f : chunk;
		struct scan_status st = emu_chunk<Op>(c, C, carry, in + f * C, k,
						      osize, out + f * C * osize);

		if (gpu_scan_status_check(job, &st, from.first + f, bad, err)) {
			*bad += f;
			return -1;
		}
	}
	return 0;
}

/* An element's exact.cuh bits (scan_exact_bits, on the host). */
static unsigned x_bits(float x) { return exact_bits_f32(x); }
static unsigned x_bits(bf16_bits x) { return (unsigned)x.v << 16; }
static u64 x_bits(double x) { return exact_bits_f64(x); }
static void x_add(exact_w32 *w, exact_thr *t, unsigned u, long long *s)
{
	exact_w32_add(w, t, u, s);
}
static void x_add(exact_w64 *w, exact_thr *t, u64 u, long long *s)
{
	exact_w64_add(w, t, u, s);
}
static void x_fold(exact_w32 *w, exact_thr *t, long long *s)
{
	exact_w32_fold(w, t, s);
}
static void x_fold(exact_w64 *w, exact_thr *t, long long *s)
{
	exact_w64_fold(w, t, s);
}

/* Column col's exact total of k records as scan_win_totals_kernel keeps it
 * (a window, a thread accumulator, slots; here one thread), widened by
 * scan_slots_wide; it must equal the K-limb sum of the same values. */
template <typename T, int K, int L>
static sum_val<K> emu_win_total(const T *in, unsigned C, unsigned col, size_t k)
{
	typedef typename std::conditional<sizeof(T) == 8, exact_w64,
					  exact_w32>::type W;
	std::vector<long long> slot(EXACT_SLOTS, 0);
	scan_cfg c = {};
	sum_val<K> wide, direct = scan_sum_wide<T, K, L>::ident(c);
	struct exact_thr th;
	W w;

	exact_thr_init(&th, EXACT_EMIN);
	w.acc = 0;
	w.b = 1;
	for (size_t r = 0; r < k; r++) {
		if (r % (EXACT_WIN_TERMS / 2) == 0)	/* as a thread's bound */
			x_fold(&w, &th, slot.data());
		x_add(&w, &th, x_bits(in[r * C + col]), slot.data());
		direct = scan_sum_wide<T, K, L>::add(direct,
						scan_sum_wide<T, K, L>::of(in[r * C + col], c), c);
	}
	x_fold(&w, &th, slot.data());
	exact_thr_flush(&th, slot.data());
	wide = scan_slots_wide<K, L>(slot.data(), th.flags);
	EXPECT(!memcmp(wide.l, direct.l, sizeof(wide.l)) && wide.flags == direct.flags,
	       "scan_slots_wide: %s column %u of %zu records: the slots' sum differs "
	       "from the K-limb sum", type_name(sizeof(T) == 8 ? GS_F64 : sizeof(T) == 4 ?
	       GS_F32 : GS_BF16), col, k);
	return wide;
}

/* The lowest and top bits of n values as scan_win_totals_kernel finds them
 * (scan_wbits, in runs as a thread's), checked against a bit count of
 * each value. */
template <typename T>
static void emu_wbits(const T *in, size_t n, struct scan_win *win)
{
	int lo = SCAN_WIN_NONE, nhi = SCAN_WIN_NONE;

	for (size_t i = 0; i < n; i += 37) {
		scan_wbits<T> wb;

		scan_wbits_init(&wb);
		for (size_t j = i; j < n && j < i + 37; j++)
			scan_wbits_add(&wb, in[j]);
		scan_wbits_done(&wb, &win->lo, &win->nhi);
	}
	for (size_t i = 0; i < n; i++) {
		bool neg;
		u64 m;
		int e, l, h;

		if (scan_fields(in[i], &neg, &m, &e) || !m)
			continue;
		l = e + scan_ctz64(m);
		h = e + 63 - exact_clz64(m);
		lo = l < lo ? l : lo;
		nhi = -h < nhi ? -h : nhi;
	}
	EXPECT(lo == win->lo && nhi == win->nhi,
	       "scan_wbits: lowest bit %d, top %d; counted %d, %d", win->lo,
	       -win->nhi, lo, -nhi);
}

/* scan_sum_hw<T, O>'s out pass of a chunk (mode 4) from the one-limb carry
 * c1 (before the chunk), which must write what scan_sum_window<T, 1>'s wrote
 * (ref) and leave its carry (after, c1n). */
template <typename T, typename O>
static void emu_sum_hw(const scan_cfg &c, unsigned C,
		     const std::vector<sum_val<1>> &c1,
		     const std::vector<sum_val<1>> &c1n, const T *in, size_t k,
		     unsigned osize, const unsigned char *ref)
{
	std::vector<sum_hw_val> h(C);
	std::vector<unsigned char> out(k * C * osize);

	for (unsigned col = 0; col < C; col++)
		h[col].v = (long long)c1[col].l[0];
	emu_chunk<scan_sum_hw<T, O>>(c, C, h, in, k, osize, out.data());
	EXPECT(!memcmp(out.data(), ref, out.size()),
	       "scan_sum_hw: %zu records of %u columns (w %d) differ from the "
	       "one-limb window's outputs", k, C, c.w);
	for (unsigned col = 0; col < C; col++)
		EXPECT((u64)h[col].v == c1n[col].l[0],
		       "scan_sum_hw: column %u's carry differs", col);
}

/* The window lsbs that take scan_sum_hw for output format f (an empty range
 * for f16 and bf16 outputs), as scan_run_win finds them. */
template <typename T>
static void emu_sum_hw_range(const struct ieee_fmt &f, int *lo, int *hi)
{
	*lo = 1;
	*hi = 0;
	if (f.width == 32)
		scan_sum_hw_range<T, float>(lo, hi);
	if (f.width == 64)
		scan_sum_hw_range<T, double>(lo, hi);
}

/* A float sum as scan_run_win runs it: the chunk's bits and exact totals
 * (checked against the K-limb sums), the window, the chosen variant's
 * out pass from the carry narrowed to it (the parts' prefixes are exact,
 * so only their values matter, not their grouping), the wide carry
 * advanced by the totals (and checked against the narrow one). A chunk
 * that takes scan_sum_hw (mode 4) is replayed as the one-limb variant too,
 * and the two must agree. */
template <typename T, int K, int L>
static int emu_scan_win(const struct gs_job *job, const void *data, size_t n,
			size_t chunk, unsigned char *out,
			const struct emu_from &from)
{
	scan_cfg c = scan_cfg_of(job);
	unsigned C = job->columns, osize = (unsigned)type_size(job->out_type);
	std::vector<sum_val<K>> carry = emu_carry(from, C,
						  scan_sum_wide<T, K, L>::ident(c));
	std::vector<sum_val<K>> next(C);
	std::vector<sum_val<1>> c1(C);
	std::vector<sum_val<2>> c2(C);
	std::vector<sum_val<3>> c3(C);
	const T *in = (const T *)data;
	int last = -1;

	for (size_t f = 0; f < n; f += chunk) {
		size_t k = n - f < chunk ? n - f : chunk;
		struct scan_win win;
		unsigned fl = 0;
		int d, hlo, hhi;

		memset(&win, 0x7f, 2 * sizeof(int));
		emu_wbits(in + f * C, k * C, &win);
		scan_window_pick<K, L>(&win, carry.data(), C, k);
		for (size_t i = 0; i < k * C; i++) {
			bool neg;
			u64 m;
			int e;

			fl |= scan_fields(in[f * C + i], &neg, &m, &e);
		}
		for (unsigned col = 0; col < C; col++)
			fl |= carry[col].flags;
		emu_sum_hw_range<T>(c.fmt, &hlo, &hhi);
		scan_sum_hw_pick(&win, fl, hlo, hhi);
		d = win.w - L;
		for (unsigned col = 0; col < C; col++) {
			next[col] = scan_sum_wide<T, K, L>::add(carry[col],
				emu_win_total<T, K, L>(in + f * C, C, col, k), c);
			c1[col] = sum_narrow<K, 1>(carry[col], d);
			c2[col] = sum_narrow<K, 2>(carry[col], d);
			c3[col] = sum_narrow<K, 3>(carry[col], d);
		}
		c.w = win.w;
		if (win.mode == 1 || win.mode == 4) {
			std::vector<sum_val<1>> before = c1;

			emu_chunk<scan_sum_window<T, 1>>(c, C, c1, in + f * C, k, osize,
						   out + f * C * osize);
			if (win.mode == 4 && c.fmt.width == 32)
				emu_sum_hw<T, float>(c, C, before, c1, in + f * C, k,
						   osize, out + f * C * osize);
			if (win.mode == 4 && c.fmt.width == 64)
				emu_sum_hw<T, double>(c, C, before, c1, in + f * C, k,
						    osize, out + f * C * osize);
		} else if (win.mode == 2) {
			emu_chunk<scan_sum_window<T, 2>>(c, C, c2, in + f * C, k, osize,
						   out + f * C * osize);
		} else if (win.mode == 3) {
			emu_chunk<scan_sum_window<T, 3>>(c, C, c3, in + f * C, k, osize,
						   out + f * C * osize);
		} else {
			emu_chunk<scan_sum_wide<T, K, L>>(c, C, carry, in + f * C, k,
						     osize, out + f * C * osize);
		}
		for (unsigned col = 0; col < C; col++) {
			sum_val<K> back = win.mode == 1 || win.mode == 4 ?
					  sum_widen<1, K>(c1[col], d)
					: win.mode == 2 ? sum_widen<2, K>(c2[col], d)
					: win.mode == 3 ? sum_widen<3, K>(c3[col], d)
					: carry[col];

			EXPECT(!memcmp(back.l, next[col].l, sizeof(back.l)) &&
			       back.flags == next[col].flags,
			       "window mode %d: the chunk's carry differs from the "
			       "carry plus the exact total", win.mode);
			carry[col] = next[col];
		}
		win_chunks[win.mode]++;
		win_switches += last >= 0 && last != win.mode;
		last = win.mode;
	}
	return 0;
}

/* The same choice as scan_bind_elem. */
template <typename T, int K, int L>
static int emu_type(const struct gs_job *job, const void *data, size_t n,
		    size_t chunk, unsigned char *out, size_t *bad,
		    struct gs_err *err, const struct emu_from &from)
{
	if (job->op == OP_PROD) {
		if constexpr (dtype_is_float<T>::value)
			return emu_scan<scan_fprod<T>>(job, data, n, chunk, out,
						       bad, err, from);
		else
			return emu_scan<scan_iprod<T>>(job, data, n, chunk, out,
						       bad, err, from);
	}
	if constexpr (K > 2)	/* float sums with a window */
		if (job->op == OP_SUM)
			return emu_scan_win<T, K, L>(job, data, n, chunk, out,
						     from);
	if (job->op == OP_SUM)
		return emu_scan<scan_sum_wide<T, K, L>>(job, data, n, chunk, out, bad,
						   err, from);
	return scan_word_op<T>(job->op, [&](auto w) {
		return emu_scan<decltype(w)>(job, data, n, chunk, out, bad, err,
					     from);
	});
}

/* The same dispatch as scan_bind_job. */
static int emu(const struct gs_job *job, const void *data, size_t n,
	       size_t chunk, unsigned char *out, size_t *bad, struct gs_err *err,
	       const struct emu_from &from = emu_from{ NULL, 0 })
{
#define EMU(T, K, L) emu_type<T, K, L>(job, data, n, chunk, out, bad, err, from)
	switch (job->dtype.type) {
	case GS_U8: return EMU(unsigned char, 2, 0);
	case GS_I8: return EMU(signed char, 2, 0);
	case GS_U16: return EMU(unsigned short, 2, 0);
	case GS_I16: return EMU(short, 2, 0);
	case GS_U32: return EMU(unsigned, 2, 0);
	case GS_I32: return EMU(int, 2, 0);
	case GS_U64: return EMU(unsigned long long, 2, 0);
	case GS_I64: return EMU(long long, 2, 0);
	case GS_F16: return EMU(f16_bits, 2, -24);
	case GS_BF16: return EMU(bf16_bits, 6, -149);
	case GS_F32: return EMU(float, 6, -149);
	default: return EMU(double, 34, -1074);
	}
#undef EMU
}

/* ---- data ---------------------------------------------------------------- */

/* Random data of type t: a mode picks how hard (small values, full range,
 * wide exponents with cancellation, rare specials; for floats, 4: runs of
 * 1500 values that alternate narrow and wide exponent ranges, so chunks
 * switch between the narrow and wide kernels, 5: a huge first value
 * cancelled halfway, so the carry alone forces the wide window and then
 * lets a narrow one back). */
static void gen(enum gs_type t, void *data, size_t n, int mode)
{
	unsigned char *p = (unsigned char *)data;
	size_t sz = type_size(t);

	for (size_t i = 0; i < n; i++) {
		u64 b = rnd();
		bool special = mode == 3 && rnd() % 500 == 0;

		if (!type_is_float(t)) {
			if (mode == 0)
				b = (u64)((long long)(rnd() % 7) - 3);
			memcpy(p + i * sz, &b, sz);
			continue;
		}
		if (t == GS_F16 || t == GS_BF16) {
			uint16_t h = (uint16_t)b;
			int eb = t == GS_F16 ? 10 : 7, ef = t == GS_F16 ? 0x1f : 0xff;

			if (((h >> eb) & ef) == ef && !special)
				h &= (uint16_t)~(1u << (eb + 1));	/* finite */
			if (mode == 0)
				h &= (uint16_t)~(3u << (eb + 2));
			memcpy(p + i * sz, &h, 2);
			continue;
		}
		double v;
		int span = t == GS_F32 ? 250 : 2000;
		int m = mode == 4 ? (int)(i / 1500 % 3) : mode == 5 ? 1 : mode;
		int ex = m == 0 ? (int)(rnd() % 10) : m == 1 ? (int)(rnd() % 60) - 30
			 : (int)(rnd() % span) - span / 2;

		v = ldexp((double)(rnd() >> 11), ex - 53);
		if (rnd() & 1)
			v = -v;
		if (i && rnd() % 5 == 0)	/* cancel the last value exactly */
			v = t == GS_F32 ? -(double)((float *)p)[i - 1]
					: -((double *)p)[i - 1];
		if (mode == 5 && (i == 0 || i == n / 2))
			v = ldexp(i ? -1.0 : 1.0, span / 2 - 3);
		if (special) {
			static const double sp[] = { NAN, INFINITY, -INFINITY, -0.0 };

			v = sp[rnd() % 4];
		}
		if (t == GS_F32) {
			float fv = (float)v;

			memcpy(p + i * sz, &fv, 4);
		} else {
			memcpy(p + i * sz, &v, 8);
		}
	}
}

/* ---- products: data ------------------------------------------------------ */

/* Kinds of float factors for prod scans. */
enum pkind {
	P_BITS,		/* random bit patterns: NaN, inf, zeros, subnormals */
	P_NEAR1,	/* [0.5, 2), both signs */
	P_ULP,		/* 1 + ulp, now and then the value just below 1 */
	P_BIG,		/* the top binades: the prefix overflows */
	P_TINY,		/* subnormals and the lowest binades: it underflows */
	P_SWING,	/* runs of 2^S then of 2^-S: far out of range and back */
	P_ZEROS,	/* near 1 with signed zeros and infinities */
	P_NANS,		/* near 1 with NaNs and -inf */
	P_SMALLINT,	/* small odd integers and powers of two: exact, ties */
	P_TIE,		/* engineered prefixes at or near a rounding tie */
	P_NKINDS
};

/* Kinds of integer factors. */
enum qkind {
	Q_BITS,		/* random bits: past 2^128 soon */
	Q_SMALL,	/* -3 .. 3 (0 .. 3 unsigned): zeros */
	Q_SMALLNZ,	/* +-1 .. 3: the output type overflows, then 2^128 */
	Q_ONES,		/* +-1, a rare zero: the sign alone */
	Q_EXTREME,	/* the type's extremes and +-1 */
	Q_ZFIRST,	/* random bits after an early zero: no overflow */
	Q_EDGE,		/* factors whose product ends near 2^128, then +-1 */
	Q_NKINDS
};

static const char *const pkind_name[P_NKINDS] = {
	"bits", "near1", "ulp", "big", "tiny", "swing", "zeros", "nans",
	"smallint", "tie",
};
static const char *const qkind_name[Q_NKINDS] = {
	"bits", "small", "smallnz", "ones", "extreme", "zfirst", "edge",
};

/* Significand bits (hidden bit included) and largest exponent of the
 * float types. */
static int fmt_p(enum gs_type t)
{
	return ieee_fmt_of(type_xfmt(t)).p;
}

static int fmt_emax(enum gs_type t)
{
	return ieee_fmt_of(type_xfmt(t)).emax;
}

static double unif(void)
{
	return (double)(rnd() >> 11) * 0x1p-53;
}

/* Element i of a float array of type t: v rounded to t (exact where v is
 * representable), or raw bits. */
static void put_float(enum gs_type t, unsigned char *p, size_t i, double v)
{
	u64 b = round_f64(v, type_xfmt(t));

	memcpy(p + i * type_size(t), &b, type_size(t));
}

static void put_bits(enum gs_type t, unsigned char *p, size_t i, u64 b)
{
	memcpy(p + i * type_size(t), &b, type_size(t));
}

static double get_float(enum gs_type t, const unsigned char *p, size_t i)
{
	uint16_t h;
	float f;
	double d;

	switch (t) {
	case GS_F16: memcpy(&h, p + i * 2, 2); return f16_to_f32(h);
	case GS_BF16: memcpy(&h, p + i * 2, 2); return bf16_to_f32(h);
	case GS_F32: memcpy(&f, p + i * 4, 4); return f;
	default: memcpy(&d, p + i * 8, 8); return d;
	}
}

/* Lists of integer factors whose product is 2^k + sign (sign -1 or +1),
 * for near-ties: a prefix at a tie times them and 2^-k sits 2^-k
 * (relative) off it. Found at start by trial division of 2^j -+ 1 (j <=
 * 64) and of 2^2j - 1 = (2^j - 1)(2^j + 1); maxbits is the widest factor
 * (an input type holds the list when it is at most its significand). */
struct recipe {
	int k, sign, maxbits;
	std::vector<u64> f;
};

static std::vector<struct recipe> recipes;

static int bitlen128(u128 v)
{
	return v >> 64 ? 128 - __builtin_clzll((u64)(v >> 64))
		       : v ? 64 - __builtin_clzll((u64)v) : 0;
}

static bool factor(u128 n, const std::vector<u64> &primes, struct recipe *r)
{
	for (u64 p : primes) {
		if ((u128)p * p > n)
			break;
		while (n % p == 0) {
			r->f.push_back(p);
			n /= p;
		}
	}
	if (n > 1) {
		if (n >> 53)
			return false;	/* no input type holds it */
		r->f.push_back((u64)n);
	}
	r->maxbits = 0;
	for (u64 x : r->f)
		r->maxbits = std::max(r->maxbits, bitlen128(x));
	return true;
}

static void find_recipes(void)
{
	const unsigned lim = 1u << 20;
	std::vector<bool> comp(lim);
	std::vector<u64> primes;

	for (unsigned i = 2; i < lim; i++) {
		if (comp[i])
			continue;
		primes.push_back(i);
		for (unsigned j = 2 * i; j < lim; j += i)
			comp[j] = true;
	}
	for (int j = 2; j <= 64; j++) {
		struct recipe m = { j, -1, 0, {} }, p = { j, 1, 0, {} };
		bool okm = factor(((u128)1 << j) - 1, primes, &m);
		bool okp = factor(((u128)1 << j) + 1, primes, &p);

		if (okm)
			recipes.push_back(m);
		if (okp)
			recipes.push_back(p);
		if (okm && okp) {
			struct recipe b = { 2 * j, -1, std::max(m.maxbits, p.maxbits), m.f };

			b.f.insert(b.f.end(), p.f.begin(), p.f.end());
			recipes.push_back(b);
		}
	}
}

/*
 * One engineered column of nrec factors (exact in type t): an odd N of
 * p_out + 1 bits (3^a 5^b 7^c), a tie of the output format; mostly times
 * a recipe's 2^k +- 1 and 2^-k, so N (1 +- 2^-k): at k of 124 and more
 * (f64 factors only), as near the tie as the brackets resolve. Pairs 2^j,
 * 2^-j, a sign and ones around them, shuffled.
 */
static void gen_tie(enum gs_type t, enum gs_type ot, std::vector<double> &v,
		    size_t nrec)
{
	int pin = fmt_p(t), pout = fmt_p(ot);
	int step = t == GS_F16 ? 12 : 100;	/* powers of two t holds */
	std::vector<double> f;
	long long scale = 0;
	u64 pick = rnd() % 4;	/* 0: the tie itself */

	do {		/* random odd primes until N has pout + 1 bits */
		u128 n = 1;

		f.clear();
		while (bitlen128(n) < pout + 1) {
			int q = 3 + 2 * (int)(rnd() % 3);

			n *= q;
			f.push_back(q);
		}
		if (bitlen128(n) == pout + 1)
			break;
	} while (true);
	if (pick) {
		std::vector<const struct recipe *> ok;
		int kmax = 0;

		for (const struct recipe &r : recipes)
			if (r.maxbits <= pin)
				kmax = std::max(kmax, r.k);
		/* half of them as near as t's factors get (f64: 2^-124 ..
		 * 2^-128, where the brackets give out) */
		for (const struct recipe &r : recipes)
			if (r.maxbits <= pin && (pick == 1 || r.k >= kmax - 4))
				ok.push_back(&r);
		if (!ok.empty()) {
			const struct recipe *r = ok[rnd() % ok.size()];

			for (u64 x : r->f)
				f.push_back((double)x);
			scale -= r->k;
		}
	}
	tie_pad(f, scale, step, v, nrec);
}

static void gen_fprod(enum gs_type t, enum gs_type ot, unsigned char *p,
		      size_t nrec, unsigned cols, int kind)
{
	const int pb = fmt_p(t), w = 8 * (int)type_size(t);
	const u64 one = round_f64(1.0, type_xfmt(t)), sign = 1ull << (w - 1);
	const u64 emaxf = 2 * (u64)fmt_emax(t) + 1;	/* the all-ones field */
	const int S = t == GS_F16 ? 7 : t == GS_F64 ? 40 : 20;
	std::vector<double> v;

	for (unsigned c = 0; c < cols; c++) {
		if (kind == P_TIE) {
			gen_tie(t, ot, v, nrec);
			for (size_t i = 0; i < nrec; i++)
				put_float(t, p, i * cols + c, v[i]);
			continue;
		}
		for (size_t i = 0; i < nrec; i++) {
			size_t at = i * cols + c;
			u64 r = rnd(), b;
			double x;

			switch (kind) {
			case P_BITS:
				put_bits(t, p, at, r);
				continue;
			case P_ULP:
				put_bits(t, p, at, r % 5 ? one + 1 : one - 1);
				continue;
			case P_BIG:
				b = emaxf - 1 - (r >> 40) % 3;
				b = b << (pb - 1) | (r & ((1ull << (pb - 1)) - 1));
				put_bits(t, p, at, b | (r >> 63 ? sign : 0));
				continue;
			case P_TINY:
				b = (r >> 40) % 3 << (pb - 1) | (r & ((1ull << (pb - 1)) - 1));
				put_bits(t, p, at, (b ? b : 1) | (r >> 63 ? sign : 0));
				continue;
			case P_SWING:
				x = ldexp(1 + unif() / 2, i / 300 % 2 ? -S : S);
				put_float(t, p, at, r >> 63 ? -x : x);
				continue;
			case P_SMALLINT:
				x = r % 3 ? (double)(1 + r % 7 * 2) :
					    ldexp(1, (int)((r >> 8) % 9) - 4);
				put_float(t, p, at, r >> 63 ? -x : x);
				continue;
			default:
				break;
			}
			x = (1 + unif()) * (r & 1 ? 0.5 : 1);	/* near 1 */
			if (r >> 63)
				x = -x;
			if (kind == P_ZEROS && r % 60 == 7)
				x = r & 2 ? -0.0 : 0.0;
			if (kind == P_ZEROS && r % 300 == 11)
				x = r & 2 ? -INFINITY : INFINITY;
			if (kind == P_NANS && r % 100 == 3)
				x = NAN;
			if (kind == P_NANS && r % 150 == 5)
				x = -INFINITY;
			put_float(t, p, at, x);
		}
	}
}

/* An integer element of type t from a value (two's complement bits). */
static void put_int(enum gs_type t, unsigned char *p, size_t i, long long v)
{
	memcpy(p + i * type_size(t), &v, type_size(t));
}

static void gen_iprod(enum gs_type t, unsigned char *p, size_t nrec,
		      unsigned cols, int kind)
{
	const bool sgn = type_is_signed(t);
	const int bits = 8 * (int)type_size(t);
	const long long mone = sgn ? -1 : 1;
	const u64 umax = bits == 64 ? ~0ull : (1ull << bits) - 1;

	for (unsigned c = 0; c < cols; c++) {
		size_t zat = nrec ? rnd() % (nrec / 10 + 1) : 0;
		double lg = 0, goal = 125.5 + 3.5 * unif();

		for (size_t i = 0; i < nrec; i++) {
			size_t at = i * cols + c;
			u64 r = rnd(), m;

			switch (kind) {
			case Q_BITS:
				put_bits(t, p, at, r);
				break;
			case Q_SMALL:
				put_int(t, p, at, sgn ? (long long)(r % 7) - 3 : (long long)(r % 4));
				break;
			case Q_SMALLNZ:
				put_int(t, p, at, (long long)(1 + r % 3) * (sgn && r >> 63 ? -1 : 1));
				break;
			case Q_ONES:
				put_int(t, p, at, r % 500 == 0 ? 0 : r & 1 ? 1 : mone);
				break;
			case Q_EXTREME:	/* min, max, +-1 */
				put_bits(t, p, at, r % 4 == 0 ? (sgn ? 1ull << (bits - 1) : umax) :
						   r % 4 == 1 ? (sgn ? umax >> 1 : umax) :
						   (u64)(r & 4 ? 1 : mone));
				break;
			case Q_ZFIRST:
				put_bits(t, p, at, i == zat ? 0 : r);
				break;
			default: {	/* Q_EDGE: mb-bit factors up to the goal */
				int mb = 2 + (int)(rnd() % (unsigned)(bits - 1 - sgn));

				if (lg >= goal) {
					put_int(t, p, at, r & 1 ? 1 : mone);
					break;
				}
				m = r >> (64 - mb) | 1ull << (mb - 1);
				lg += log2((double)m);
				put_bits(t, p, at, sgn && rnd() % 2 ? 0 - m : m);
				break;
			}
			}
		}
	}
}

/* ---- products: the exact prefix ----------------------------------------- */

/* The exact product of one column's factors so far: the odd part of the
 * finite nonzero factors' product as a bignum w (w[0] is odd) times 2^e,
 * and the flags. Rounded to a format from its top 128 bits with a sticky
 * bit for the rest: an independent check of every rounded output. */
struct oracle {
	std::vector<u64> w;
	long long e;
	bool nan, zero, inf, neg, gave_up;
};

/* Bignums past this many limbs take too long here (quadratic). */
#define ORACLE_LIMBS 2048

static void oracle_init(struct oracle *o)
{
	o->w.assign(1, 1);
	o->e = 0;
	o->nan = o->zero = o->inf = o->neg = o->gave_up = false;
}

static void oracle_mul(struct oracle *o, double v)
{
	struct exact_term t;
	u64 m, carry = 0;
	int z;

	o->neg ^= signbit(v) != 0;
	if (isnan(v) || isinf(v) || v == 0) {
		o->nan |= isnan(v) != 0;
		o->inf |= isinf(v) != 0;
		o->zero |= v == 0;
		return;
	}
	t = exact_f64(v);
	m = (u64)(t.m < 0 ? -t.m : t.m);
	z = __builtin_ctzll(m);
	m >>= z;
	o->e += t.e + z;
	if (m == 1 || o->gave_up)
		return;
	if (o->w.size() > ORACLE_LIMBS) {
		o->gave_up = true;
		return;
	}
	for (u64 &x : o->w) {
		u128 p = (u128)x * m + carry;

		x = (u64)p;
		carry = (u64)(p >> 64);
	}
	if (carry)
		o->w.push_back(carry);
}

/* Bits [pos, pos + 64) of w. */
static u64 big_bits(const std::vector<u64> &w, size_t pos)
{
	size_t i = pos / 64, s = pos % 64;
	u64 lo = i < w.size() ? w[i] >> s : 0;
	u64 hi = s && i + 1 < w.size() ? w[i + 1] << (64 - s) : 0;

	return lo | hi;
}

/* The correctly rounded prefix in format f, or false (gave up). */
static bool oracle_round(const struct oracle *o, int f, u64 *bits)
{
	const struct ieee_fmt d = ieee_fmt_of((enum xfmt)f);
	size_t nb, sh;
	u128 m;

	if (o->nan || (o->zero && o->inf)) {
		*bits = d.nan;
		return true;
	}
	if (o->inf || o->zero) {
		*bits = (u64)o->neg << (d.width - 1) | (o->inf ? d.inf : 0);
		return true;
	}
	if (o->gave_up)
		return false;
	nb = 64 * o->w.size() - (size_t)__builtin_clzll(o->w.back());
	sh = nb > 128 ? nb - 128 : 0;
	m = (u128)big_bits(o->w, sh + 64) << 64 | big_bits(o->w, sh);
	/* w[0] is odd: anything cut off below is nonzero, a sticky bit far
	 * below the rounding point */
	if (sh)
		m |= 1;
	*bits = round_u128(m, o->e + (long long)sh, o->neg, (enum xfmt)f);
	return true;
}

/* ---- comparing ----------------------------------------------------------- */

/* Outcomes of the prod scans. Float: both wrote every output (equal), both
 * failed at the same element with the same message, or one side failed
 * first (where the other rounded), or both at one record in other
 * columns; outputs checked against the exact prefix. Integer: both wrote
 * everything, both failed alike (overflow of the type, of 128 bits). */
static unsigned long long pf_ok, pf_fail, pf_cpu_first, pf_gpu_first,
	pf_other_col, pf_oracle, pi_ok, pi_type, pi_wide;

/* Every output of column col the CPU (written: cw records) and the
 * emulation (gw) wrote against the exact prefix, until the bignum grows
 * too large for this test. */
static void oracle_check(const struct gs_job *job, const unsigned char *in,
			 unsigned col, const unsigned char *cout,
			 size_t cw, const unsigned char *gout, size_t gw,
			 const char *what)
{
	unsigned C = job->columns, osz = (unsigned)type_size(job->out_type);
	int f = (int)type_xfmt(job->out_type);
	struct oracle o;
	size_t n = std::max(cw, gw);

	oracle_init(&o);
	for (size_t r = 0; r < n; r++) {
		double x = get_float(job->dtype.type, in, r * C + col);
		u64 want, got;

		if (!job->exclusive)
			oracle_mul(&o, x);
		if (!oracle_round(&o, f, &want))
			return;
		pf_oracle++;
		if (r < cw) {
			got = 0;
			memcpy(&got, cout + (r * C + col) * osz, osz);
			EXPECT(got == want, "%s: cpu output %zu col %u %llx, exact %llx",
			       what, r, col, got, want);
		}
		if (r < gw) {
			got = 0;
			memcpy(&got, gout + (r * C + col) * osz, osz);
			EXPECT(got == want, "%s: gpu output %zu col %u %llx, exact %llx",
			       what, r, col, got, want);
		}
		if (job->exclusive)
			oracle_mul(&o, x);
	}
}

/*
 * A prod scan's results. The records before the first failure on either
 * side are written by both and must be equal. Integers (and every other
 * op) must fail alike. A float prefix near a rounding tie may fail on one
 * side only (the brackets differ with the grouping): counted, and every
 * float output is checked against the exact prefix.
 */
static void compare_prod(const struct gs_job *job, const unsigned char *in,
			 size_t nrec, int crc, size_t cbad,
			 const struct gs_err &cerr, const unsigned char *cout,
			 int grc, size_t gbad, const struct gs_err &gerr,
			 const unsigned char *gout, const char *what)
{
	size_t cw = crc ? cbad : nrec, gw = grc ? gbad : nrec;
	size_t rec = job->columns * type_size(job->out_type);
	bool same = crc == grc && (!crc || (cbad == gbad && !strcmp(cerr.what, gerr.what)));
	static int notes;

	EXPECT(!memcmp(cout, gout, std::min(cw, gw) * rec),
	       "%s: the written outputs differ", what);
	if (!type_is_float(job->dtype.type)) {
		EXPECT(same, "%s: cpu %d at %zu '%s', gpu %d at %zu '%s'", what,
		       crc, cbad, crc ? cerr.what : "", grc, gbad,
		       grc ? gerr.what : "");
		pi_ok += same && !crc;
		pi_type += same && crc && strstr(cerr.what, "(try --out-type)");
		pi_wide += same && crc && strstr(cerr.what, "128 bits");
		return;
	}
	if (same) {
		pf_ok += !crc;
		pf_fail += crc != 0;
		EXPECT(!crc || strstr(cerr.what, "cannot be rounded exactly"),
		       "%s: %s", what, cerr.what);
	} else if (cw == gw) {
		pf_other_col++;
	} else {
		pf_cpu_first += cw < gw;
		pf_gpu_first += gw < cw;
		if (notes++ < 6)
			printf("note: %s: the %s could not round element %zu ('%s'), "
			       "the %s %s\n", what, cw < gw ? "CPU" : "GPU",
			       std::min(cw, gw), cw < gw ? cerr.what : gerr.what,
			       cw < gw ? "GPU" : "CPU",
			       (cw < gw ? grc : crc) ? "failed later" : "rounded every one");
	}
	if (nrec * job->columns <= 30000)
		for (unsigned col = 0; col < job->columns; col++)
			oracle_check(job, in, col, cout, cw, gout, gw, what);
}

/* The blocks of a replayed launch, at random: parts of one tile each (an
 * H100's 528 blocks for these sizes), or of several tiles. */
static unsigned rnd_blocks(void)
{
	static const unsigned b[] = { 1, 2, 3, 5, 528 };

	return b[rnd() % (sizeof(b) / sizeof(b[0]))];
}

/* kind: gen's mode, or for prod scans a pkind / qkind. chunk 0: one of the
 * awkward sizes at random; blocks 0: rnd_blocks(). */
static void check_scan_one(enum gs_type t, enum gs_op op, enum gs_type ot,
			   bool excl, unsigned cols, size_t nrec, int kind,
			   size_t chunk = 0, unsigned blocks = 0)
{
	struct gs_job job;
	size_t n = nrec * cols, osz = type_size(ot), cbad = 0, gbad = 0;
	std::vector<unsigned char> data(n * type_size(t) + 8), cout(n * osz + 8),
		gout(n * osz + 8);
	std::vector<struct red_col> state(cols);
	struct gs_err cerr, gerr;
	size_t chunks[] = { 1, 7, SCAN_TILE - 1, SCAN_TILE, SCAN_TILE + 1, 5000, nrec };
	void *scratch;
	char what[160];
	int crc, grc;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_SCAN;
	job.dtype.type = t;
	job.columns = cols;
	job.op = op;
	job.exclusive = excl;
	job.out_type = ot;
	if (op != OP_PROD)
		gen(t, data.data(), n, kind);
	else if (type_is_float(t))
		gen_fprod(t, ot, data.data(), nrec, cols, kind);
	else
		gen_iprod(t, data.data(), nrec, cols, kind);
	scratch = malloc(cpu_scan_scratch_size(&job));
	reduce_kernels.acc_init(&job, state.data());
	crc = cpu_scan(&job, state.data(), scratch, data.data(), nrec, cout.data(),
		       &cbad, &cerr);
	free(scratch);
	if (!chunk)
		chunk = chunks[rnd() % (sizeof(chunks) / sizeof(chunks[0]))];
	if (chunk == 0)
		chunk = 1;
	emu_blocks = blocks ? blocks : rnd_blocks();
	grc = emu(&job, data.data(), nrec, chunk, gout.data(), &gbad, &gerr);
	snprintf(what, sizeof(what), "%s op %d %s -> %s excl %d cols %u n %zu chunk %zu blocks %u",
		 type_name(t), op, op != OP_PROD ? "" : type_is_float(t) ?
		 pkind_name[kind] : qkind_name[kind], type_name(ot), excl, cols,
		 nrec, chunk, emu_blocks);
	scans++;
	scan_errors += crc != 0;
	if (op == OP_PROD) {
		compare_prod(&job, data.data(), nrec, crc, cbad, cerr, cout.data(),
			     grc, gbad, gerr, gout.data(), what);
		return;
	}
	EXPECT(crc == grc, "%s mode %d: rc cpu %d emu %d (%s)", what, kind, crc,
	       grc, crc ? cerr.what : gerr.what);
	if (crc != grc)
		return;
	if (crc) {
		EXPECT(cbad == gbad && !strcmp(cerr.what, gerr.what),
		       "%s: error cpu '%s' at %zu, emu '%s' at %zu", what,
		       cerr.what, cbad, gerr.what, gbad);
		EXPECT(!memcmp(cout.data(), gout.data(), cbad * cols * osz),
		       "%s: the outputs before the error differ", what);
		return;
	}
	size_t at = 0;

	while (at < n * osz && cout[at] == gout[at])
		at++;
	EXPECT(at == n * osz, "%s mode %d: output differs at element %zu", what,
	       kind, at / osz);
}

/* ---- drivers ------------------------------------------------------------- */

static void check_scans(void)
{
	static const enum gs_op ops[] = { OP_SUM, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };
	static const size_t sizes[] = { 0, 1, 2, 100, SCAN_TILE + 3, 3 * SCAN_TILE + 17 };

	for (int t = GS_U8; t < GS_NTYPES; t++)
		for (unsigned o = 0; o < 6; o++) {
			if (type_is_float((enum gs_type)t) && ops[o] >= OP_AND)
				continue;
			for (int ot = GS_U8; ot < GS_NTYPES; ot++) {
				if (type_is_float((enum gs_type)t) &&
				    !type_is_float((enum gs_type)ot))
					continue;
				for (int k = 0; k < 4; k++)
					check_scan_one((enum gs_type)t, ops[o],
						       (enum gs_type)ot, rnd() & 1,
						       1 + (unsigned)(rnd() % 3),
						       sizes[rnd() % 6], (int)(rnd() % 6));
			}
		}
}

/* More float sums where the window matters: narrow, 3 limbs, switching. */
static void check_windows(void)
{
	static const enum gs_type ts[] = { GS_BF16, GS_F32, GS_F64 };
	static const size_t sizes[] = { 100, 3000, 7000 };
	static const int modes[] = { 1, 4, 5 };

	for (int i = 0; i < 120; i++)
		check_scan_one(ts[i % 3], OP_SUM,
			       (enum gs_type)(GS_F16 + (int)(rnd() % 4)), rnd() & 1,
			       1 + (unsigned)(rnd() % 2), sizes[rnd() % 3],
			       modes[rnd() % 3]);
}

/* prod scans: every input and output type, every kind of data, 1-3
 * columns, --exclusive or not, chunk splits; then near-ties, and long
 * runs whose chunks have more tiles than the carry kernel's block. */
static void check_prods(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 9, 100, SCAN_TILE + 3,
					3 * SCAN_TILE + 17, 7000 };
	const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);

	for (int t = GS_U8; t < GS_NTYPES; t++) {
		bool flt = type_is_float((enum gs_type)t);

		for (int ot = flt ? GS_F16 : GS_U8; ot < GS_NTYPES; ot++)
			for (int k = 0; k < (flt ? (int)P_NKINDS : (int)Q_NKINDS); k++)
				for (int r = 0; r < 2; r++)
					check_scan_one((enum gs_type)t, OP_PROD,
						       (enum gs_type)ot, rnd() & 1,
						       1 + (unsigned)(rnd() % 3),
						       sizes[rnd() % nsizes], k);
	}
	for (int i = 0; i < 1600; i++)
		check_scan_one((enum gs_type)(GS_F16 + i % 4), OP_PROD,
			       (enum gs_type)(GS_F16 + i / 4 % 4), rnd() & 1,
			       1 + (unsigned)(rnd() % 2), 50 + rnd() % 3000, P_TIE);
	/* 600000 records: 293 tiles, in 293 parts (two rounds of the carry
	 * kernel) or, with 264 blocks, 147 parts of two tiles */
	for (int k : { P_ULP, P_NEAR1, P_SWING, P_ZEROS })
		check_scan_one(GS_F32, OP_PROD, k == P_SWING ? GS_F64 : GS_F32,
			       rnd() & 1, 1, 600000, k, k == P_ULP ? 300000 : 600000,
			       528);
	check_scan_one(GS_F64, OP_PROD, GS_F64, true, 1, 600000, P_NEAR1, 0, 264);
	check_scan_one(GS_I16, OP_PROD, GS_I64, false, 1, 600000, Q_ONES, 0, 528);
	check_scan_one(GS_U8, OP_PROD, GS_F32, true, 2, 300000, Q_ONES, 0, 528);
}

/* ---- 5. the hybrid's hand-over: the CPU's state as the GPU's carry ------- */

/* Edge values of type t. Floats: +-0, the largest finite, the smallest
 * subnormal, huge and subnormal values, values near 1 and of any binade,
 * exact cancellations of the previous one; style 1 adds one or two of NaN,
 * +inf, -inf at random places. Integers: the type's extremes, 0, +-1, and
 * small values (style 0: extremes rare) or random bits (style 1). */
static void gen_edge(enum gs_type t, unsigned char *p, size_t n, int style)
{
	const int w = 8 * (int)type_size(t);
	const u64 sign = 1ull << (w - 1), umax = w == 64 ? ~0ull : (1ull << w) - 1;

	for (size_t i = 0; i < n; i++) {
		u64 r = rnd(), b;

		if (!type_is_float(t)) {
			bool sgn = type_is_signed(t);

			if (style == 0 && r % 100)
				b = (u64)((long long)(r >> 8 & 7) - 3);
			else if (r % 5 == 0)
				b = sgn ? sign : 0;		/* the least */
			else if (r % 5 == 1)
				b = sgn ? umax >> 1 : umax;	/* the largest */
			else if (r % 5 == 2)
				b = r >> 8 & 1 ? ~0ull : r >> 9 & 1;	/* -1, 0, 1 */
			else
				b = rnd();
			put_bits(t, p, i, b);
			continue;
		}
		const int pb = fmt_p(t), bias = fmt_emax(t);
		const u64 mant = (1ull << (pb - 1)) - 1, s = r >> 63 ? sign : 0;
		u64 e;

		switch (r % 12) {
		case 0: b = s | (u64)(2 * bias) << (pb - 1) | mant; break;
		case 1: b = s | 1; break;
		case 2: b = s; break;
		case 3: b = s | (u64)(2 * bias - (int)((r >> 8) % 4)) << (pb - 1) |
			    (rnd() & mant); break;
		case 4: b = s | (rnd() & mant); break;
		case 5:
			if (i) {
				b = 0;
				memcpy(&b, p + (i - 1) * type_size(t), type_size(t));
				b ^= sign;
				break;
			}
			/* fall through */
		case 6:
		case 7:		/* any binade */
			e = 1 + (r >> 8) % (2 * (u64)bias);
			b = s | e << (pb - 1) | (rnd() & mant);
			break;
		default:	/* near 1 */
			e = (u64)(bias + (int)((r >> 8) % 21) - 10);
			b = s | e << (pb - 1) | (rnd() & mant);
			break;
		}
		put_bits(t, p, i, b);
	}
	for (int k = style && n ? 1 + (int)(rnd() % 2) : 0; k > 0; k--) {
		const int pb = fmt_p(t);
		const u64 inf = (u64)(2 * fmt_emax(t) + 1) << (pb - 1);
		u64 r = rnd();

		put_bits(t, p, rnd() % n, r % 3 == 0 ? inf | 1ull << (pb - 2) :
				       r % 3 == 1 ? inf : inf | sign);
	}
}

/* Hand-overs replayed, by outcome: every output equal; an error after the
 * hand-over (on the GPU's side), equal; an error in the CPU's part; a
 * NaN/inf flag in the carry; states made the threaded CPU's way. */
static unsigned long long ho_ok, ho_gpu_err, ho_cpu_err, ho_flags, ho_threaded;

/* Whether column states carry a NaN or an infinity. */
static bool ho_special(const struct gs_job *job, const struct red_col *st)
{
	for (unsigned c = 0; c < job->columns; c++)
		if (type_is_float(job->dtype.type) &&
		    (job->op == OP_SUM ? st[c].u.sum.nan || st[c].u.sum.pinf ||
					 st[c].u.sum.ninf
				       : st[c].u.mm.nan))
			return true;
	return false;
}

/* The state of the first n records as the threaded CPU backend leaves it:
 * two slices' totals (reduce_kernels, as total_task) merged. */
static void ho_threaded_state(const struct gs_job *job, const unsigned char *data,
			      size_t n, void *scratch, struct red_col *st)
{
	size_t a = n ? rnd() % (n + 1) : 0, rec = job_record_size(job);
	std::vector<struct red_col> s1(job->columns), s2(job->columns);

	reduce_kernels.acc_init(job, st);
	reduce_kernels.acc_init(job, s1.data());
	reduce_kernels.acc_init(job, s2.data());
	if (a)
		reduce_kernels.cpu_add(job, s1.data(), scratch, data, NULL, a);
	if (n - a)
		reduce_kernels.cpu_add(job, s2.data(), scratch, data + a * rec,
				       NULL, n - a);
	reduce_kernels.acc_merge(job, st, s1.data());
	reduce_kernels.acc_merge(job, st, s2.data());
}

/*
 * --backend auto's scan: cpu_scan over the first `split` records (two
 * calls, as two chunks), its state converted by scan_seed_host (what
 * gpu_scan_seed copies to the device) into the carry of the variant
 * scan_bind_job binds, the rest replayed on the GPU path from that carry
 * (the status naming records from `split` on). Every output, and any
 * error (record, message, the outputs before it), must be those of one
 * cpu_scan over everything.
 */
static void check_handover_one(enum gs_type t, enum gs_op op, enum gs_type ot,
			       bool excl, unsigned cols, size_t nrec, size_t split,
			       int kind, size_t chunk)
{
	struct gs_job job;
	size_t isz = type_size(t), rec = cols * type_size(ot), a;
	size_t cbad = 0, hbad = 0, gbad = 0;
	std::vector<unsigned char> data(nrec * cols * isz + 8), cout(nrec * rec + 8),
		hout(nrec * rec + 8);
	std::vector<struct red_col> full(cols), st(cols);
	struct gs_err cerr, herr, gerr;
	struct gpu_scan g = {};
	void *scratch;
	char what[160];
	int crc, hrc, grc;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_SCAN;
	job.dtype.type = t;
	job.columns = cols;
	job.op = op;
	job.exclusive = excl;
	job.out_type = ot;
	g.job = job;
	scan_bind_job(&g);
	std::vector<unsigned char> seed(cols * g.vsize);

	if (kind < 6)
		gen(t, data.data(), nrec * cols, kind);
	else
		gen_edge(t, data.data(), nrec * cols, kind - 6);
	snprintf(what, sizeof(what), "hand-over %s op %d -> %s excl %d cols %u "
		 "n %zu split %zu kind %d chunk %zu", type_name(t), op,
		 type_name(ot), excl, cols, nrec, split, kind, chunk);
	scratch = malloc(std::max(cpu_scan_scratch_size(&job),
				  reduce_kernels.scratch_size(&job)));
	reduce_kernels.acc_init(&job, full.data());
	crc = cpu_scan(&job, full.data(), scratch, data.data(), nrec, cout.data(),
		       &cbad, &cerr);
	/* the CPU's part, as two chunks */
	a = split ? rnd() % (split + 1) : 0;
	reduce_kernels.acc_init(&job, st.data());
	hrc = cpu_scan(&job, st.data(), scratch, data.data(), a, hout.data(),
		       &hbad, &herr);
	if (hrc == 0) {
		hrc = cpu_scan(&job, st.data(), scratch, data.data() + a * cols * isz,
			       split - a, hout.data() + a * rec, &hbad, &herr);
		hbad += a;
	}
	if (hrc) {	/* stopped on the CPU: no hand-over */
		EXPECT(crc && cbad == hbad && !strcmp(cerr.what, herr.what) &&
		       !memcmp(cout.data(), hout.data(), cbad * rec),
		       "%s: the CPU's part failed otherwise (%s)", what, herr.what);
		ho_cpu_err++;
		free(scratch);
		return;
	}
	if (rnd() % 3 == 0) {
		ho_threaded_state(&job, data.data(), split, scratch, st.data());
		ho_threaded++;
	}
	free(scratch);
	ho_flags += ho_special(&job, st.data());
	if (!scan_seed_host(&job, st.data(), seed.data(), g.vsize)) {
		EXPECT(false, "%s: the state has no carry", what);
		return;
	}
	emu_blocks = rnd_blocks();
	grc = emu(&job, data.data() + split * cols * isz, nrec - split, chunk,
		  hout.data() + split * rec, &gbad, &gerr,
		  emu_from{ seed.data(), split });
	gbad += split;
	EXPECT(crc == grc, "%s: rc cpu %d, hand-over %d (%s)", what, crc, grc,
	       crc ? cerr.what : gerr.what);
	if (crc != grc)
		return;
	if (crc) {
		EXPECT(cbad == gbad && !strcmp(cerr.what, gerr.what) &&
		       !memcmp(cout.data(), hout.data(), cbad * rec),
		       "%s: error cpu '%s' at %zu, hand-over '%s' at %zu", what,
		       cerr.what, cbad, gerr.what, gbad);
		ho_gpu_err++;
		return;
	}
	size_t at = 0;

	while (at < nrec * rec && cout[at] == hout[at])
		at++;
	EXPECT(at == nrec * rec, "%s: output differs at element %zu", what,
	       at / type_size(ot));
	ho_ok++;
}

/* A hand-over of each op, type and output type; more float sums, where
 * the seeded carry decides the first GPU chunks' windows; prod is never
 * seeded. */
static void check_handovers(void)
{
	static const enum gs_op ops[] = { OP_SUM, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };
	static const size_t sizes[] = { 1, 2, 100, SCAN_TILE + 3, 3 * SCAN_TILE + 17, 7000 };
	static const size_t chunks[] = { 1, 7, SCAN_TILE - 1, SCAN_TILE + 1, 5000 };
	static const int fkinds[] = { 1, 2, 3, 4, 5, 6, 7 }, ikinds[] = { 0, 2, 6, 7 };

	for (int t = GS_U8; t < GS_NTYPES; t++) {
		bool flt = type_is_float((enum gs_type)t);

		for (unsigned o = 0; o < 6; o++) {
			if (flt && ops[o] >= OP_AND)
				continue;
			for (int ot = flt ? GS_F16 : GS_U8; ot < GS_NTYPES; ot++)
				for (int r = 0; r < (flt ? 3 : 1); r++) {
					size_t n = sizes[rnd() % 6];
					size_t sp[] = { 0, 1, n / 2, rnd() % (n + 1), n - 1, n };

					check_handover_one((enum gs_type)t, ops[o],
							   (enum gs_type)ot, rnd() & 1,
							   1 + (unsigned)(rnd() % 3), n,
							   sp[rnd() % 6],
							   flt ? fkinds[rnd() % 7] : ikinds[rnd() % 4],
							   chunks[n > 100 ? 1 + rnd() % 4 : rnd() % 5]);
				}
		}
	}
	for (int i = 0; i < 150; i++) {
		static const enum gs_type ts[] = { GS_F16, GS_BF16, GS_F32, GS_F64 };
		size_t n = 3000 + rnd() % 5000;

		check_handover_one(ts[i % 4], OP_SUM,
				   (enum gs_type)(GS_F16 + (int)(rnd() % 4)), rnd() & 1,
				   1 + (unsigned)(rnd() % 2), n, rnd() % (n + 1),
				   fkinds[3 + rnd() % 4], chunks[2 + rnd() % 3]);
	}
	for (int t = GS_U8; t < GS_NTYPES; t++) {
		struct gs_job job;
		struct gpu_scan g = {};
		struct red_col st[1];

		memset(&job, 0, sizeof(job));
		job.cmd = CMD_SCAN;
		job.dtype.type = (enum gs_type)t;
		job.columns = 1;
		job.op = OP_PROD;
		job.out_type = type_is_float(job.dtype.type) ? GS_F64 : GS_I64;
		g.job = job;
		scan_bind_job(&g);
		reduce_kernels.acc_init(&job, st);
		std::vector<unsigned char> seed(g.vsize);

		EXPECT(!scan_seed_host(&job, st, seed.data(), g.vsize),
		       "a prod scan of %s was seeded", type_name(job.dtype.type));
	}
}

int main(void)
{
	find_recipes();
	check_round();
	check_sum_round();
	check_prod_monoids();
	check_scans();
	check_windows();
	check_prods();
	check_handovers();
	EXPECT(ho_ok && ho_gpu_err && ho_cpu_err && ho_flags && ho_threaded,
	       "hand-overs of every outcome replayed");
	EXPECT(win_chunks[0] && win_chunks[1] && win_chunks[2] &&
	       win_chunks[3] && win_chunks[4] && win_switches,
	       "every window mode and a switch between them replayed");
	EXPECT(pf_ok && pf_fail && pi_ok && pi_type && pi_wide,
	       "prod scans of every outcome replayed");
	printf("float sum chunks: %llu wide, %llu in 1 limb (%llu of them by "
	       "the hardware's conversions), %llu in 2, %llu in 3, %llu mode "
	       "switches\n", win_chunks[0], win_chunks[1] + win_chunks[4],
	       win_chunks[4], win_chunks[2], win_chunks[3], win_switches);
	printf("float prod scans: %llu both wrote every output (equal), %llu "
	       "both failed alike; one side failed first: the CPU %llu, the "
	       "GPU %llu; %llu failed at one record in other columns; %llu "
	       "outputs checked against the exact prefix\n", pf_ok, pf_fail,
	       pf_cpu_first, pf_gpu_first, pf_other_col, pf_oracle);
	printf("integer prod scans: %llu both wrote every output (equal), "
	       "both failed alike: %llu overflowing the output type, %llu "
	       "past 128 bits\n", pi_ok, pi_type, pi_wide);
	printf("hand-overs (CPU state -> GPU carry): %llu equal to one CPU "
	       "scan, %llu failing after the hand-over alike, %llu failing in "
	       "the CPU's part; %llu carried a NaN or inf, %llu states made "
	       "the threaded CPU's way\n", ho_ok, ho_gpu_err, ho_cpu_err,
	       ho_flags, ho_threaded);
	printf("scan_host_check: %llu checks (%llu scans, %llu of them "
	       "errors on the CPU), %llu failed\n", checks, scans, scan_errors,
	       fails);
	return fails != 0;
}
