/*
 * prod_check_arith.cuh - prod_host_check.cu's part 1, included by it (one
 * translation unit): xprod_core.h's multiplies, bracket steps and merges
 * against references in unsigned __int128 over 256-bit products.
 */

/* ---- 1. arithmetic ------------------------------------------------------- */

static void ref_mul(u64 a1, u64 a0, u64 b1, u64 b0, uint64_t r[4])
{
	u128 ll = (u128)a0 * b0, lh = (u128)a0 * b1, hl = (u128)a1 * b0;
	u128 hh = (u128)a1 * b1;
	u128 mid = (ll >> 64) + (u64)lh + (u64)hl;
	u128 top = hh + (lh >> 64) + (hl >> 64) + (mid >> 64);

	r[0] = (u64)ll;
	r[1] = (u64)mid;
	r[2] = (u64)top;
	r[3] = (u64)(top >> 64);
}

static void check_mul(void)
{
	for (int i = 0; i < 300000; i++) {
		uint64_t a[2] = { rnd_edge(), rnd_edge() }, b[2] = { rnd_edge(), rnd_edge() };
		uint64_t r[4], w[4], x[3];

		prod_mul_128x128(a, b, r);
		ref_mul(a[1], a[0], b[1], b[0], w);
		EXPECT(!memcmp(r, w, sizeof r), "128x128 %llx:%llx * %llx:%llx",
		       (u64)a[1], (u64)a[0], (u64)b[1], (u64)b[0]);
		prod_mul_128x64(a, b[0], x);
		ref_mul(a[1], a[0], 0, b[0], w);
		EXPECT(!memcmp(x, w, sizeof x) && w[3] == 0, "128x64 %llx:%llx * %llx",
		       (u64)a[1], (u64)a[0], (u64)b[0]);
	}
}

static u128 u128_of(const uint64_t l[2])
{
	return (u128)l[1] << 64 | l[0];
}

static bool fp_same(const struct fprod *a, const struct fprod *b)
{
	return !memcmp(a->lo, b->lo, sizeof a->lo) &&
	       !memcmp(a->hi, b->hi, sizeof a->hi) && a->exp == b->exp &&
	       a->flags == b->flags;
}

/* A finite nonzero double: any exponent, subnormals, or near 1. */
static double rnd_finite(void)
{
	u64 u;
	double v;

	do {
		u = rnd();
		switch (rnd() % 4) {
		case 0: u &= 0x800fffffffffffffull; break;	/* subnormal */
		case 1: u = (u & 0x800fffffffffffffull) | 0x3ff0000000000000ull; break;
		case 2: u = (u & 0x800fffffffffffffull) | 0x3fe0000000000000ull; break;
		default: break;
		}
		memcpy(&v, &u, 8);
	} while (!isfinite(v) || v == 0);
	return v;
}

/* |v| = *m * 2^*e, the way a thread takes one f64. */
static void f64_parts(double v, u64 *m, long long *e)
{
	struct exact_term t = exact_f64(v);

	*m = (u64)(t.m < 0 ? -(u128)t.m : (u128)t.m);
	*e = t.e;
}

/* m * 2^e as a bracket of one limb, as scan_fprod::of makes it. */
static struct fprod fp_factor(u64 m, long long e)
{
	struct fprod q = {};
	int z = __builtin_clzll(m);

	q.lo[1] = q.hi[1] = m << z;
	q.exp = e - z - 64;
	return q;
}

/*
 * The reference step, written apart from xprod_core.h's limbs, in
 * unsigned __int128 over a 256-bit product: the bracket times [lo2, hi2]
 * * 2^exp2 (hi2's top bit set), hi rounded up and lo down to 128 bits
 * with the shift that brings hi back to 128 bits, one more where hi
 * rounded up past 2^128.
 */
struct ref_fp {
	u128 lo, hi;
	long long exp;
};

static void mul_256(u128 a, u128 b, u128 *h, u128 *l)
{
	const u128 M = ~(u64)0;
	u128 ll = (a & M) * (b & M), lh = (a & M) * (b >> 64);
	u128 hl = (a >> 64) * (b & M), hh = (a >> 64) * (b >> 64);
	u128 mid = (ll >> 64) + (lh & M) + (hl & M);

	*l = (mid << 64) | (ll & M);
	*h = hh + (lh >> 64) + (hl >> 64) + (mid >> 64);
}

/* (h, l) >> s for 1 <= s <= 128, and whether bits were dropped. */
static u128 shr_256(u128 h, u128 l, int s, bool *inexact)
{
	if (s == 128) {
		*inexact = l != 0;
		return h;
	}
	*inexact = (l << (128 - s)) != 0;
	return (h << (128 - s)) | (l >> s);
}

static struct ref_fp ref_step(struct ref_fp p, u128 lo2, u128 hi2, long long exp2)
{
	u128 h, l;
	bool inexact;
	int s;

	mul_256(p.hi, hi2, &h, &l);
	s = 128 - (h >> 64 ? __builtin_clzll((u64)(h >> 64)) : 64 + __builtin_clzll((u64)h));
	p.hi = shr_256(h, l, s, &inexact);
	if (inexact && ++p.hi == 0) {
		p.hi = (u128)1 << 127;
		s++;
	}
	mul_256(p.lo, lo2, &h, &l);
	p.lo = s > 128 ? h >> 1 : shr_256(h, l, s, &inexact);
	p.exp += exp2 + s;
	return p;
}

static struct ref_fp ref_of(const struct fprod *p)
{
	return ref_fp{ u128_of(p->lo), u128_of(p->hi), (long long)p->exp };
}

static bool ref_same(const struct fprod *p, struct ref_fp r)
{
	return u128_of(p->lo) == r.lo && u128_of(p->hi) == r.hi &&
	       (long long)p->exp == r.exp;
}

/* hi rounding up past 2^128: a * m just under 2^191 with bits cut, for a
 * in [2^127, 2^128) and m in [2^63, 2^64): a = floor((2^191 - 1) / m)
 * lands there about half the time. The step (fprod_mul64) and the merge
 * of m as a bracket (fprod_merge) must give the same bracket, 2^127 with
 * one exponent step more. */
static void check_carry(void)
{
	u64 hits = 0;

	for (int i = 0; i < 20000; i++) {
		u64 m = 1ull << 63 | rnd(), top[3] = { ~0ull, ~0ull, ~0ull >> 1 };
		u128 rem = 0, a = 0, lo;
		struct fprod d, e, q;
		struct ref_fp r;
		long long ex = (long long)(rnd() % 200) - 100;

		for (int j = 2; j >= 0; j--) {	/* (2^191 - 1) / m */
			u128 cur = rem << 64 | top[j];

			a = a << 64 | (u64)(cur / m);
			rem = cur % m;
		}
		lo = a - rnd() % 3;
		fprod_one(&d);
		d.hi[0] = (u64)a;
		d.hi[1] = (u64)(a >> 64);
		d.lo[0] = (u64)lo;
		d.lo[1] = (u64)(lo >> 64);
		e = d;
		q = fp_factor(m, ex);
		r = ref_step(ref_of(&d), u128_of(q.lo), u128_of(q.hi), q.exp);
		fprod_mul64(&d, m, ex);
		fprod_merge(&e, &q);
		hits += d.hi[1] == 1ull << 63 && d.hi[0] == 0;
		EXPECT(fp_same(&d, &e) && ref_same(&d, r),
		       "carry past 2^128: a %llx:%llx m %llx",
		       (u64)(a >> 64), (u64)a, m);
	}
	EXPECT(hits > 1000, "only %llu carries past 2^128", hits);
}

/* The one-factor step against the full merge, the empty product on either
 * side of a merge, and the flags of a merge. */
static void check_step(void)
{
	for (int i = 0; i < 20000; i++) {
		struct fprod d, e, z = {};
		int n = 1 + (int)(rnd() % (i % 10 ? 40 : 400));

		struct ref_fp r;

		fprod_one(&d);
		e = d;
		r = ref_of(&d);
		for (int j = 0; j < n; j++) {
			u64 m;
			long long ex;
			struct fprod q;

			if (i % 2) {
				f64_parts(rnd_finite(), &m, &ex);
			} else {	/* exact products, cut bits on the edge */
				m = 1ull << (rnd() % 64) | 1ull << (rnd() % 64);
				m |= rnd() % 2 ? 1ull << (rnd() % 64) : 0;
				ex = (long long)(rnd() % 100) - 50;
			}
			q = fp_factor(m, ex);
			r = ref_step(r, u128_of(q.lo), u128_of(q.hi), q.exp);
			fprod_mul64(&d, m, ex);
			fprod_merge(&e, &q);
		}
		EXPECT(fp_same(&d, &e) && ref_same(&d, r),
		       "fprod_mul64 x%d: lo %llx:%llx hi %llx:%llx exp %lld", n,
		       (u64)d.lo[1], (u64)d.lo[0], (u64)d.hi[1], (u64)d.hi[0],
		       (long long)d.exp);
		/* a merge of two brackets */
		e = d;
		r = ref_step(ref_of(&e), u128_of(d.lo), u128_of(d.hi), d.exp);
		fprod_merge(&e, &d);
		EXPECT(ref_same(&e, r), "fprod_merge of brackets");
		e = d;
		z.flags = rnd() % 32;
		fprod_merge(&e, &z);
		d.flags = prod_flags(d.flags, z.flags);
		EXPECT(fp_same(&e, &d), "merge with the empty product");
		fprod_merge(&z, &d);
		EXPECT(!memcmp(z.lo, d.lo, sizeof z.lo) && !memcmp(z.hi, d.hi, sizeof z.hi) &&
		       z.exp == d.exp, "merge into the empty product");
	}
	for (int i = 0; i < 20000; i++) {	/* sparse ends: cut bits on the edge */
		struct fprod p[2];
		struct ref_fp r;

		for (int k = 0; k < 2; k++) {
			u128 hi = (u128)1 << 127 | (u128)1 << (rnd() % 127), lo;

			hi |= rnd() % 2 ? (u128)1 << (rnd() % 127) : 0;
			lo = hi - rnd() % 3;
			fprod_one(&p[k]);
			p[k].hi[0] = (u64)hi;
			p[k].hi[1] = (u64)(hi >> 64);
			p[k].lo[0] = (u64)lo;
			p[k].lo[1] = (u64)(lo >> 64);
			p[k].exp = (long long)(rnd() % 400) - 200;
		}
		r = ref_step(ref_of(&p[0]), u128_of(p[1].lo), u128_of(p[1].hi), p[1].exp);
		fprod_merge(&p[0], &p[1]);
		EXPECT(ref_same(&p[0], r), "fprod_merge of sparse brackets");
	}
	for (u64 a = 0; a < 32; a++)
		for (u64 b = 0; b < 32; b++)
			EXPECT(prod_flags(a, b) == (((a | b) & ~(u64)PROD_NEG) |
						    ((a ^ b) & PROD_NEG)) &&
			       (prod_flags(a, b) & PROD_NEG) ==
			       ((a & PROD_NEG) != (b & PROD_NEG) ? PROD_NEG : 0),
			       "prod_flags(%llu, %llu)", a, b);
	check_carry();
}

static u128 rnd_mag(void)
{
	int nb = 1 + (int)(rnd() % 128);
	u128 m = (u128)rnd() << 64 | rnd();

	m >>= 128 - nb;
	return m | (u128)1 << (nb - 1);
}

/* Integer products against unsigned __int128 arithmetic: the magnitude
 * while under 2^128, the low 128 bits and PROD_OVER past it (then frozen),
 * the flags, the empty product. */
static void check_imerge(void)
{
	for (int i = 0; i < 200000; i++) {
		u128 a = rnd_mag(), b = rnd_mag(), w;
		u64 fa = rnd() % 10 == 0 ? PROD_ZERO : 0, fb = rnd() & PROD_NEG;
		struct iprod p = { { (u64)a, (u64)(a >> 64) }, fa | (rnd() & PROD_NEG) };
		struct iprod q = { { (u64)b, (u64)(b >> 64) }, fb }, z = {}, s;
		bool over = __builtin_mul_overflow(a, b, &w);

		if (rnd() % 10 == 0)
			q.flags |= PROD_OVER;
		s = p;
		iprod_merge(&p, &q);
		EXPECT(p.flags == (prod_flags(s.flags, q.flags) | (over ? PROD_OVER : 0)) &&
		       u128_of(p.mag) == ((q.flags & PROD_OVER) ? a : w),
		       "iprod_merge %llx:%llx * %llx:%llx", (u64)(a >> 64),
		       (u64)a, (u64)(b >> 64), (u64)b);
		s = p;
		iprod_merge(&p, &q);	/* frozen once over */
		EXPECT(!(s.flags & PROD_OVER) ||
		       (u128_of(p.mag) == u128_of(s.mag) && (p.flags & PROD_OVER)),
		       "iprod_merge after overflow");
		p = s;
		iprod_merge(&p, &z);
		EXPECT(!memcmp(&p, &s, sizeof p), "merge with the empty product");
		z.flags = 0;
		iprod_merge(&z, &q);
		EXPECT(z.flags == q.flags && ((q.flags & PROD_OVER) ||
					      u128_of(z.mag) == u128_of(q.mag)),
		       "merge into the empty product");
		z = iprod{};
		p = iprod{ { (u64)a, (u64)(a >> 64) }, 0 };
		iprod_mul64(&p, (u64)b);
		over = __builtin_mul_overflow(a, (u128)(u64)b, &w);
		EXPECT(u128_of(p.mag) == w && !!(p.flags & PROD_OVER) == over,
		       "iprod_mul64 %llx:%llx * %llx", (u64)(a >> 64), (u64)a, (u64)b);
	}
}
