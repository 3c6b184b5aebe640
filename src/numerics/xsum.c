/*
 * xsum.c - exact sums as fixed-point integers, and their correct rounding.
 *
 * An xsum is a 4352-bit two's complement integer L in 68 limbs; its value is
 * L * 2^-2176. Adding m * 2^e writes m, shifted, into at most three limbs
 * and ripples the carry (or borrow) only as far as it goes.
 *
 * Rounding reduces any exact value to a 128-bit integer q, a sticky bit and
 * an exponent ("the value is (q + d) * 2^e, 0 <= d < 1, d > 0 iff sticky")
 * and rounds that once (xsum_core.h's exact_top_round; round_q for the
 * statistics). Statistics do the same from a small
 * private bignum: mean, variances and their square roots are quotients of
 * exact integers, so a long division by 64-bit words and an integer square
 * root give q and sticky with no intermediate rounding.
 */
#include <math.h>
#include <string.h>
#include "xsum.h"

#define FRAC_LIMBS (XSUM_FRAC / 64)

static inline bool top_bit(const struct xsum *x)
{
	return x->limb[XSUM_LIMBS - 1] >> 63;
}

void xsum_init(struct xsum *x)
{
	memset(x, 0, sizeof(*x));
}

/* Add (or subtract) the three words w at limb k, then ripple. Limbs past
 * the top are dropped: the sum is modulo 2^4352 by design. */
static void add_words(struct xsum *x, const uint64_t w[3], unsigned k, bool sub)
{
	uint64_t c = 0;
	unsigned i;

	for (i = 0; i < 3 && k + i < XSUM_LIMBS; i++) {
		uint64_t a = x->limb[k + i], r;

		if (sub) {
			r = a - w[i] - c;
			c = (a < w[i]) || (a - w[i] < c);
		} else {
			r = a + w[i] + c;
			c = (r < a) || (c && r == a);
		}
		x->limb[k + i] = r;
	}
	for (k += i; c && k < XSUM_LIMBS; k++) {
		if (sub)
			c = x->limb[k]-- == 0;
		else
			c = ++x->limb[k] == 0;
	}
}

void xsum_add_u128(struct xsum *x, unsigned __int128 m, int e, bool neg)
{
	unsigned p = (unsigned)(e + XSUM_FRAC), s = p % 64;
	uint64_t lo = (uint64_t)m, hi = (uint64_t)(m >> 64), w[3];

	if (!m)
		return;
	if (s) {
		w[0] = lo << s;
		w[1] = (lo >> (64 - s)) | (hi << s);
		w[2] = hi >> (64 - s);
	} else {
		w[0] = lo;
		w[1] = hi;
		w[2] = 0;
	}
	add_words(x, w, p / 64, neg);
}

void xsum_add_i128(struct xsum *x, __int128 m, int e)
{
	if (m < 0)
		xsum_add_u128(x, -(unsigned __int128)m, e, true);
	else
		xsum_add_u128(x, (unsigned __int128)m, e, false);
}

static void or_flags(struct xsum *x, unsigned f)
{
	x->nan |= (f & EXACT_NAN) != 0;
	x->pinf |= (f & EXACT_PINF) != 0;
	x->ninf |= (f & EXACT_NINF) != 0;
}

void xsum_add_term(struct xsum *x, struct exact_term t)
{
	if (t.flags)
		or_flags(x, t.flags);
	else
		xsum_add_i128(x, t.m, t.e);
}

void xsum_add_f64(struct xsum *x, double v)
{
	xsum_add_term(x, exact_f64(v));
}

void xsum_add_prod_f64(struct xsum *x, double a, double b)
{
	xsum_add_term(x, exact_prod_f64(a, b));
}

/* Each slot, carried, is a signed 32-bit digit: one add of at most three
 * limbs. */
void xsum_add_slots(struct xsum *x, const struct exact_acc *a)
{
	long long s[EXACT_SLOTS];

	memcpy(s, a->slot, sizeof(s));
	exact_slots_carry(s, EXACT_SLOTS);
	for (int q = 0; q < EXACT_SLOTS; q++)
		if (s[q])
			xsum_add_i128(x, s[q], 32 * q + EXACT_EMIN);
	or_flags(x, (unsigned)a->flags);
}

void xsum_add_i64(struct xsum *x, int64_t v)
{
	xsum_add_i128(x, v, 0);
}

void xsum_add_u64(struct xsum *x, uint64_t v)
{
	xsum_add_u128(x, v, 0, false);
}

void xsum_merge(struct xsum *x, const struct xsum *y)
{
	unsigned char c = 0;
	unsigned i;

	for (i = 0; i < XSUM_LIMBS; i++) {
		unsigned long long r;

		c = __builtin_add_overflow(x->limb[i], (unsigned long long)c, &r) |
		    __builtin_add_overflow(r, y->limb[i], &r);
		x->limb[i] = r;
	}
	x->nan |= y->nan;
	x->pinf |= y->pinf;
	x->ninf |= y->ninf;
}

static void limbs_neg(uint64_t *l, unsigned n)
{
	unsigned i;
	bool c = true;

	for (i = 0; i < n; i++) {
		l[i] = ~l[i] + c;
		c = c && l[i] == 0;
	}
}

void xsum_neg(struct xsum *x)
{
	bool p = x->pinf;

	limbs_neg(x->limb, XSUM_LIMBS);
	x->pinf = x->ninf;
	x->ninf = p;
}

size_t xsum_negzero_run(const void *p, size_t n, size_t stride, enum xfmt f,
			bool big, bool skip_nan)
{
	struct ieee_fmt F = ieee_fmt_of(f);
	uint64_t neg0 = (uint64_t)1 << (F.width - 1);
	const unsigned char *q = p;
	size_t r, sz = (size_t)F.width / 8;

	for (r = 0; r < n; r++, q += stride) {
		uint64_t b = 0;

		for (size_t k = 0; k < sz; k++)
			b = b << 8 | q[big ? k : sz - 1 - k];
		if (b != neg0 && !(skip_nan && (b & ~neg0) > F.inf))
			break;
	}
	return r;
}

void xsum_scan_negzero(void *out, size_t n, size_t stride, enum xfmt f,
		       bool exclusive, bool lead, size_t run)
{
	size_t sz = (size_t)ieee_fmt_of(f).width / 8;
	/* output r sums inputs [0, r] after the prefix (exclusive: [0, r)) */
	size_t from = exclusive && !lead, to = !exclusive ? run : run + 1;
	unsigned char *o = (unsigned char *)out + from * stride;

	for (size_t r = from; r < to && r < n; r++, o += stride) {
		memset(o, 0, sz);
		o[sz - 1] = 0x80;
	}
}

bool xsum_is_zero(const struct xsum *x)
{
	unsigned i;

	if (x->nan || x->pinf || x->ninf)
		return false;
	for (i = 0; i < XSUM_LIMBS; i++)
		if (x->limb[i])
			return false;
	return true;
}

int xsum_sign(const struct xsum *x)
{
	unsigned i;

	if (top_bit(x))
		return -1;
	for (i = 0; i < XSUM_LIMBS; i++)
		if (x->limb[i])
			return 1;
	return 0;
}

/* ---- rounding ------------------------------------------------------------
 * Every rounding goes through ieee_round (ieee.h), from a 128-bit q with a
 * sticky bit: "the value is (q + d) * 2^e, 0 <= d < 1, d > 0 iff sticky".
 * The callers below give q at least p + 2 bits whenever sticky is set, as
 * ieee_round asks.
 */

static uint64_t round_q(unsigned __int128 q, bool sticky, long e, bool neg,
			enum xfmt fi)
{
	struct ieee_fmt f = ieee_fmt_of(fi);

	return ieee_round(q, sticky, e, neg, &f);
}

/* 64 bits of l[0..n) starting at bit pos (may be negative); bits outside
 * the limbs read as 0. */
static uint64_t bits64(const uint64_t *l, unsigned n, long pos)
{
	long k = pos >= 0 ? pos / 64 : -((-pos + 63) / 64);
	unsigned s = (unsigned)(pos - k * 64);
	uint64_t a = k >= 0 && k < (long)n ? l[k] : 0;
	uint64_t b = k + 1 >= 0 && k + 1 < (long)n ? l[k + 1] : 0;

	return s ? (a >> s) | (b << (64 - s)) : a;
}

/* Any bit of l below bit pos set? */
static bool any_below(const uint64_t *l, unsigned n, long pos)
{
	long k;

	if (pos <= 0)
		return false;
	for (k = 0; k < pos / 64 && k < (long)n; k++)
		if (l[k])
			return true;
	if (pos % 64 && k < (long)n)
		return (l[k] & ((1ull << (pos % 64)) - 1)) != 0;
	return false;
}

/* The index of the top set bit of l[0..n), or -1 for none. */
static long top_index(const uint64_t *l, unsigned n)
{
	while (n && !l[n - 1])
		n--;
	return n ? (long)n * 64 - 1 - ieee_clz64(l[n - 1]) : -1;
}

/* xsum_core.h's rounding of a fixed-point sum, the device scan's too. */
uint64_t xsum_round(const struct xsum *x, enum xfmt f)
{
	struct ieee_fmt fmt = ieee_fmt_of(f);
	unsigned flags = (x->nan ? EXACT_NAN : 0) | (x->pinf ? EXACT_PINF : 0) |
			 (x->ninf ? EXACT_NINF : 0);

	if (!flags && x->negzero && xsum_is_zero(x))
		return (uint64_t)1 << (fmt.width - 1);
	return exact_limbs_round(x->limb, XSUM_LIMBS, flags, -XSUM_FRAC, &fmt);
}

double xsum_to_f64(const struct xsum *x)
{
	return ieee_f64_from_bits(xsum_round(x, XF_F64));
}

/* ---- integers ------------------------------------------------------------ */

static bool is_integer(const struct xsum *x)
{
	unsigned i;

	if (x->nan || x->pinf || x->ninf)
		return false;
	for (i = 0; i < FRAC_LIMBS; i++)
		if (x->limb[i])
			return false;
	return true;
}

/* Divide the magnitude l[0..n) by d in place; return the remainder. */
static uint64_t limbs_divmod(uint64_t *l, unsigned n, uint64_t d)
{
	unsigned __int128 r = 0;

	while (n--) {
		r = r << 64 | l[n];
		l[n] = (uint64_t)(r / d);
		r %= d;
	}
	return (uint64_t)r;
}

/* Digits come out 19 at a time from the low end, into tmp backwards. */
bool xsum_to_dec(const struct xsum *x, char *buf)
{
	enum { INT_LIMBS = XSUM_LIMBS - FRAC_LIMBS };
	uint64_t mag[INT_LIMBS];
	char tmp[XSUM_DEC_MAX];
	size_t n = 0, len;
	bool neg = top_bit(x);
	unsigned used = INT_LIMBS;

	if (!is_integer(x))
		return false;
	memcpy(mag, x->limb + FRAC_LIMBS, sizeof(mag));
	if (neg)
		limbs_neg(mag, INT_LIMBS);
	do {
		uint64_t r = limbs_divmod(mag, used, 10000000000000000000ull);
		int i;

		while (used && !mag[used - 1])
			used--;
		for (i = 0; i < 19 && (used || r); i++, r /= 10)
			tmp[n++] = (char)('0' + r % 10);
	} while (used);
	if (!n)
		tmp[n++] = '0';
	len = 0;
	if (neg)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return true;
}

bool xsum_to_i64(const struct xsum *x, int64_t *out)
{
	uint64_t lo = x->limb[FRAC_LIMBS], ext = -(lo >> 63);
	unsigned i;

	if (!is_integer(x))
		return false;
	for (i = FRAC_LIMBS + 1; i < XSUM_LIMBS; i++)
		if (x->limb[i] != ext)
			return false;
	*out = (int64_t)lo;
	return true;
}

bool xsum_to_u64(const struct xsum *x, uint64_t *out)
{
	unsigned i;

	if (!is_integer(x))
		return false;
	for (i = FRAC_LIMBS + 1; i < XSUM_LIMBS; i++)
		if (x->limb[i])
			return false;
	*out = x->limb[FRAC_LIMBS];
	return true;
}

/* ---- statistics: a small bignum ------------------------------------------
 * Unsigned magnitudes with n used limbs. The largest is n*s2*2^2176 or
 * s1^2, at most 2 * 68 + 1 limbs, plus the 4-limb headroom of ratio(). */
#define BIG_LIMBS 144

struct big {
	unsigned n;
	uint64_t d[BIG_LIMBS];
};

static void big_trim(struct big *a)
{
	while (a->n && !a->d[a->n - 1])
		a->n--;
}

/* |x| as an integer in units of 2^(64 *z - 2176): its low zero limbs
 * (most of the 2176 fraction bits, for a double's 53) dropped, so the
 * arithmetic below runs on a few limbs; returns whether x < 0. A two's
 * complement negation keeps the low zero limbs zero. */
static bool big_from_xsum(struct big *a, const struct xsum *x, unsigned *z)
{
	bool neg = top_bit(x);
	unsigned lo = 0;

	while (lo < XSUM_LIMBS && !x->limb[lo])
		lo++;
	*z = lo;
	a->n = XSUM_LIMBS - lo;
	memcpy(a->d, x->limb + lo, a->n * sizeof(*a->d));
	if (neg)
		limbs_neg(a->d, a->n);
	big_trim(a);
	return neg;
}

static void big_mul_u64(struct big *a, uint64_t m)
{
	unsigned __int128 c = 0;
	unsigned i;

	for (i = 0; i < a->n; i++) {
		c += (unsigned __int128)a->d[i] * m;
		a->d[i] = (uint64_t)c;
		c >>= 64;
	}
	if (c)
		a->d[a->n++] = (uint64_t)c;
}

static void big_shl(struct big *a, unsigned s)
{
	unsigned k = s / 64, b = s % 64, i;

	if (!a->n)
		return;
	a->d[a->n + k] = 0;
	for (i = a->n; i-- > 0;) {
		if (b)
			a->d[i + k + 1] |= a->d[i] >> (64 - b);
		a->d[i + k] = a->d[i] << b;
	}
	for (i = 0; i < k; i++)
		a->d[i] = 0;
	a->n += k + 1;
	big_trim(a);
}

static void big_sqr(struct big *r, const struct big *a)
{
	unsigned i, j;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < a->n; i++) {
		unsigned __int128 c = 0;

		for (j = 0; j < a->n; j++) {
			c += (unsigned __int128)a->d[i] * a->d[j] + r->d[i + j];
			r->d[i + j] = (uint64_t)c;
			c >>= 64;
		}
		r->d[i + a->n] = (uint64_t)c;
	}
	r->n = 2 * a->n;
	big_trim(r);
}

static int big_cmp(const struct big *a, const struct big *b)
{
	unsigned i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n; i-- > 0;)
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	return 0;
}

/* a -= b, for a >= b. */
static void big_sub(struct big *a, const struct big *b)
{
	unsigned i;
	bool c = false;

	for (i = 0; i < a->n; i++) {
		uint64_t bi = i < b->n ? b->d[i] : 0, r = a->d[i] - bi - c;

		c = a->d[i] < bi || (a->d[i] == bi && c);
		a->d[i] = r;
	}
	big_trim(a);
}

/*
 * a / (d1 * d2) as (q + d) * 2^*e (see round_q), a destroyed, *e on entry
 * the exponent of a's unit. a is first scaled to at least 256 bits so the
 * quotient keeps at least 128; floor(floor(a/d1)/d2) = floor(a/(d1*d2)).
 * With even, every shift is even, so the square root of the result is the
 * square root of q times 2^(*e / 2).
 */
static unsigned __int128 ratio(struct big *a, uint64_t d1, uint64_t d2,
			       bool even, bool *sticky, long *e)
{
	long bits = top_index(a->d, a->n) + 1, shift;
	unsigned __int128 q;

	if (bits < 256) {
		unsigned s = (unsigned)(256 - bits + (even && (bits & 1)));

		big_shl(a, s);
		*e -= s;
	}
	*sticky = limbs_divmod(a->d, a->n, d1) != 0;
	if (d2 > 1)
		*sticky |= limbs_divmod(a->d, a->n, d2) != 0;
	big_trim(a);
	bits = top_index(a->d, a->n) + 1;
	shift = bits - 128;
	if (even)
		shift += shift & 1;
	*sticky |= any_below(a->d, a->n, shift);
	q = (unsigned __int128)bits64(a->d, a->n, shift + 64) << 64 |
	    bits64(a->d, a->n, shift);
	*e += shift;
	return q;
}

/* A double's root of v is within a few thousand units of the true one
 * (below 2^64: v rounded to 53 bits, the root rounded once); one Newton
 * step on the integers leaves it a unit or so above (never below: x + v/x
 * is at least twice the root, and flooring v/x loses less than one), and
 * the step down sets it. Taking the root a bit pair at a time (64 steps)
 * was most of the time of a stats --by's rows. */
uint64_t xsum_isqrt128(unsigned __int128 v, bool *exact)
{
	double d = sqrt((double)v);
	unsigned __int128 x = d >= 0x1p64 ? UINT64_MAX : d < 1 ? 1 : (uint64_t)d;

	x = (x + v / x) / 2;
	if (x > UINT64_MAX)
		x = UINT64_MAX;
	while (x * x > v)
		x--;
	*exact = x * x == v;
	return (uint64_t)x;
}

/* l[0 .. nl) as a trimmed struct big. */
static void big_of(struct big *a, const uint64_t *l, unsigned nl)
{
	a->n = nl;
	memcpy(a->d, l, nl * sizeof(*l));
	big_trim(a);
}

double xsum_limbs_mean(const uint64_t *l, unsigned nl, uint64_t d, long e,
		       bool neg)
{
	struct big a;
	unsigned __int128 q;
	bool sticky;

	big_of(&a, l, nl);
	q = ratio(&a, d, 1, false, &sticky, &e);
	return ieee_f64_from_bits(round_q(q, sticky, e, neg, XF_F64));
}

double xsum_mean(const struct xsum *s1, uint64_t n)
{
	struct big a;
	bool neg;
	unsigned z;

	if (!n)
		return NAN;
	if (s1->negzero && xsum_is_zero(s1))
		return -0.0;
	neg = big_from_xsum(&a, s1, &z);
	return xsum_limbs_mean(a.d, a.n, n, 64l * z - XSUM_FRAC, neg);
}

/* var = a / (d1 * d2) * 2^e and its root, each rounded once. */
static void var_root(const struct big *num, uint64_t d1, uint64_t d2, long e,
		     double *var, double *root)
{
	struct big a = *num;
	unsigned __int128 q;
	uint64_t r;
	bool sticky, exact;

	q = ratio(&a, d1, d2, true, &sticky, &e);
	*var = ieee_f64_from_bits(round_q(q, sticky, e, false, XF_F64));
	r = xsum_isqrt128(q, &exact);
	*root = ieee_f64_from_bits(round_q(r, sticky || !exact, e / 2, false, XF_F64));
}

/* The variances and deviations of N = t1 * 2^s1 - t2 * 2^s2 in units of
 * 2^e (trimmed bigs, destroyed); NaN where N < 0. */
static void var_of(struct big *t1, unsigned s1, struct big *t2, unsigned s2,
		   uint64_t n, long e, double *pvar, double *svar,
		   double *pstdev, double *sstdev)
{
	*pvar = *svar = *pstdev = *sstdev = NAN;
	big_shl(t1, s1);
	big_shl(t2, s2);
	if (big_cmp(t1, t2) < 0)
		return;
	big_sub(t1, t2);
	var_root(t1, n, n, e, pvar, pstdev);
	if (n > 1)
		var_root(t1, n, n - 1, e, svar, sstdev);
}

void xsum_limbs_var(const uint64_t *a, unsigned sa, const uint64_t *b,
		    unsigned sb, unsigned nl, uint64_t n, long e, double *pvar,
		    double *svar, double *pstdev, double *sstdev)
{
	struct big t1, t2;

	big_of(&t1, a, nl);
	big_of(&t2, b, nl);
	var_of(&t1, sa, &t2, sb, n, e, pvar, svar, pstdev, sstdev);
}

/* pvar = N / n^2 and svar = N / (n (n - 1)), in units of 2^-4352, with
 * N = n * L2 * 2^2176 - L1^2 for the integers L1, L2 of s1, s2. The low
 * zero limbs of L1 and L2 (most of them: 2176 fraction bits against a
 * double's 53) are dropped first, N then being N' * 2^m for the lower of
 * the two terms' exponents m: the same value, rounded the same (m is a
 * multiple of 64, so even, as the root needs), in a few limbs, not 140. */
void xsum_var(const struct xsum *s1, const struct xsum *s2, uint64_t n,
	      double *pvar, double *svar, double *pstdev, double *sstdev)
{
	struct big t1, t2, l1;
	long ea, eb, m;
	unsigned z;

	*pvar = *svar = *pstdev = *sstdev = NAN;
	if (!n)
		return;
	if (big_from_xsum(&t1, s2, &z))
		return;
	ea = 64l * z + XSUM_FRAC;	/* n * L2 * 2^2176 */
	big_mul_u64(&t1, n);
	big_from_xsum(&l1, s1, &z);
	eb = 128l * z;			/* L1^2 */
	big_sqr(&t2, &l1);
	m = !t2.n || (t1.n && ea < eb) ? ea : eb;
	var_of(&t1, (unsigned)(ea - m), &t2, (unsigned)(eb - m), n,
	       m - 2l * XSUM_FRAC, pvar, svar, pstdev, sstdev);
}

/* ---- fast bins ----------------------------------------------------------- */

void xbins_init(struct xbins *b)
{
	memset(b, 0, sizeof(*b));
}

/* Scanning all 4200 bins takes about a microsecond, a fraction of a percent
 * of the 2^20 adds between flushes; tracking the touched range in the adders
 * instead made them twice as slow (4.6 vs 2.4 ns per f64). */
void xbins_flush(struct xbins *b, struct xsum *x)
{
	unsigned i;

	for (i = 0; i < XBINS_N; i++) {
		if (b->bin[i]) {
			xsum_add_i128(x, b->bin[i], (int)i - XBINS_BIAS);
			b->bin[i] = 0;
		}
	}
	or_flags(x, b->flags);
	b->flags = 0;
	b->special = 0;
}

void xbins_add_special(struct xbins *b, double a, double b2, bool prod)
{
	struct exact_term t = exact_f64(a);

	b->special++;
	b->flags |= (prod ? exact_mul(t, exact_f64(b2)) : t).flags;
}
