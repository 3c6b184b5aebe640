/*
 * scan_check_round.cuh - parts 1 to 3 of scan_host_check.cu, included by it
 * (one translation unit; its helpers rnd and rnd_bits come first): the
 * scan's rounding (ieee_round, ieee_round_fast, scan_round_f64) against a
 * slow reference, the scan's sums (windows, the hardware's one-limb sums,
 * the wide walk) against the one core's rounding of their K limbs, and the
 * product monoids against numerics/xprod.c.
 */

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
			got = ieee_round_fast(m, false, e, neg, &fmt);
			EXPECT(want == got, "fast round fmt %d m %llx:%llx e %ld: %llx != %llx",
			       f, (u64)(m >> 64), (u64)m, e, got, want);
			if (m >> 127 == 0) {
				u128 m2 = m << 1 | 1;
				bool st = rnd() & 1;

				want = ref_round(m2, st, e - 1, neg, fmt);
				got = ieee_round(m2, st, e - 1, neg, &fmt);
				EXPECT(want == got, "sticky fmt %d m %llx:%llx e %ld: %llx != %llx",
				       f, (u64)(m2 >> 64), (u64)m2, e - 1, got, want);
				got = ieee_round_fast(m2, st, e - 1, neg, &fmt);
				EXPECT(want == got, "fast sticky fmt %d m %llx:%llx e %ld: %llx != %llx",
				       f, (u64)(m2 >> 64), (u64)m2, e - 1, got, want);
			}
			check_round_f64(f, i);
		}
	}
}

/* ---- 2. the scan's sums against the one core --------------------------- */

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
			check_sum_round_lsb<2>(f);
			check_sum_round_lsb<3>(f);
		}
	}
}

/* The walk's pieces on their own, one prefix at a time against
 * scan_sum_wide's K-limb add and sum_round: after every term the kept
 * sign, top and lowest limbs must be what wide_find finds from scratch,
 * and the rounding sum_round's. The terms are made to hurt: every
 * exponent (subnormals, the largest), exact cancellation back to zero,
 * carries and borrows through runs of full or empty limbs, the sign
 * crossing zero again and again; a NaN or an infinity (random bits)
 * ends a sequence. */
template <typename T, int K, int L>
static void check_wide_walk_one(int style, int n, const struct ieee_fmt &f)
{
	typedef scan_sum_wide<T, K, L> Op;
	typedef dtype_bits<T> U;
	const int W = dtype_fmt<T>::w, FB = dtype_fmt<T>::p - 1;
	scan_cfg c = {};
	sum_val<K> v = Op::ident(c);
	u64 lim[K] = { 0 };
	struct wide_at w = { -1, K, false, 0 }, fresh;
	T last = 0;
	int ka, m;

	for (int i = 0; i < n; i++) {
		U u = (U)rnd_bits(W);
		T x;

		if (style == 1) {	/* only the top and bottom exponents */
			U e = (U)((1u << (W - FB - 1)) - 2 - rnd() % 4);

			u = (u & ~((U)((1u << (W - FB - 1)) - 1) << FB)) |
			    (rnd() & 1 ? (U)(rnd() % 4) : e) << FB;
		}
		memcpy(&x, &u, sizeof(x));
		if (style == 2 && i % 2)	/* back to where it was */
			x = -last;
		if (style == 3 && rnd() % 4 == 0)	/* a full run of limbs */
			x = (T)(rnd() & 1 ? 1 : -1) * std::numeric_limits<T>::denorm_min();
		if (style == 4)		/* small values around zero */
			x = (T)((double)(int)(rnd() % 7) - 3.0) *
			    std::numeric_limits<T>::denorm_min() * (T)(1 << (rnd() % 20));
		last = x;
		v = Op::add(v, Op::of(x, c), c);
		if (wide_elem<T, K, L>(lim, 1, x, &w.flags, &ka, &m))
			wide_fix<K>(lim, 1, &w, ka, m);
		fresh = w;
		wide_find<K>(lim, 1, &fresh);
		EXPECT(!memcmp(lim, v.l, sizeof(lim)) && w.flags == v.flags,
		       "wide_term: K %d style %d term %d: the limbs differ from "
		       "sum_add's", K, style, i);
		EXPECT(w.top == fresh.top && w.low == fresh.low && w.neg == fresh.neg,
		       "wide_fix: K %d style %d term %d: top %d low %d neg %d, "
		       "from scratch %d %d %d", K, style, i, w.top, w.low, w.neg,
		       fresh.top, fresh.low, fresh.neg);
		EXPECT(wide_round<K>(lim, 1, w, L, f) == sum_round<K>(v, L, f),
		       "wide_round: K %d style %d term %d differs from sum_round",
		       K, style, i);
		if (w.flags)	/* a NaN or inf sticks: start again */
			return;
	}
}

static void check_wide_walk(void)
{
	for (int fm = XF_F16; fm <= XF_F64; fm++)
		for (int style = 0; style < 5; style++)
			for (int r = 0; r < 20; r++) {
				check_wide_walk_one<double, 34, -1074>(style, 400,
							ieee_fmt_of((enum xfmt)fm));
				check_wide_walk_one<float, 6, -149>(style, 400,
							ieee_fmt_of((enum xfmt)fm));
			}
}

/* ---- 3. the product monoids against xprod.c ----------------------------- */

static bool fp_same(const struct fprod &a, const struct fprod &b)
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
 * scan_fprod against the CPU's element step and rounding (the step and
 * merge themselves are numerics/xprod_core.h's on both sides, checked by
 * prod_host_check): of(x) is the bracket that fprod_mul_f64 makes of one
 * factor from 1; add, a factor at a time, is fprod_mul_f64's chain, and
 * with a bracket of several factors (the one-factor step where it can)
 * the full merge. out is xprod_core.h's fprod_round_fmt, the CPU's own
 * (unit_xprod checks it). scan_iprod's of and add against iprod_mul.
 */
static void check_fprod_monoid(void)
{
	typedef scan_fprod<double> F;
	scan_cfg c;

	memset(&c, 0, sizeof(c));
	for (int i = 0; i < 100000; i++) {
		struct fprod p, one;
		struct fprod a, r;
		int n = (int)(rnd() % 30), m = (int)(rnd() % 3);
		double x = rnd_double();

		fprod_one(&one);
		fprod_mul_f64(&one, x);
		/* a factor's bracket is 1's bracket times it, exactly */
		EXPECT(fp_same(F::of(x, c), x == x && x != 0 && !isinf(x) ? one :
			       fprod{ {}, {}, 0, one.flags }),
		       "scan_fprod::of(%a)", x);
		fprod_one(&p);
		a = F::ident(c);
		for (int j = 0; j < n; j++) {
			double y = rnd_double();

			fprod_mul_f64(&p, y);
			a = F::add(a, F::of(y, c), c);
		}
		/* a from the empty product: compare with p where p has a
		 * bracket, then multiply in one factor or a bracket */
		r = F::ident(c);
		for (int j = 0; j < m; j++)
			r = F::add(r, F::of(rnd_double(), c), c);
		if (a.hi[1])
			EXPECT(fp_same(a, p), "scan_fprod::add x%d", n);
		if (a.hi[1] && r.hi[1]) {
			struct fprod s = a;

			/* the one-factor step against the full merge */
			red_p_merge(&s, &r);
			EXPECT(fp_same(s, F::add(a, r, c)), "one-factor step != merge");
		}
		EXPECT(fp_same(F::add(a, F::ident(c), c), a) &&
		       fp_same(F::add(F::ident(c), a, c), a), "empty product");
	}
}

static void check_iprod_monoid(void)
{
	scan_cfg c;

	memset(&c, 0, sizeof(c));
	for (int i = 0; i < 100000; i++) {
		typedef scan_iprod<long long> I;
		struct iprod p = { { 1, 0 }, 0 };
		struct iprod a = I::ident(c), b = I::ident(c);
		int n = (int)(rnd() % 6), m = (int)(rnd() % 3);

		for (int j = 0; j < n + m; j++) {
			long long x = (long long)(rnd() >> (1 + rnd() % 63));

			x = rnd() % 10 == 0 ? 0 : rnd() & 1 ? -x : x;
			iprod_mul(&p, x);
			if (j < n)
				a = I::add(a, I::of(x, c), c);
			else
				b = I::add(b, I::of(x, c), c);
		}
		a = I::add(a, b, c);
		EXPECT(p.flags == a.flags &&
		       ((p.flags & PROD_OVER) ||
			(p.mag[0] == ((a.mag[0] | a.mag[1]) ? a.mag[0] : 1) &&
			 p.mag[1] == a.mag[1])),
		       "scan_iprod::add");
	}
}

static void check_prod_monoids(void)
{
	check_fprod_monoid();
	check_iprod_monoid();
}
