/*
 * quantile_math.c - numpy.quantile's methods, exactly (quantile_math.h).
 *
 * q is a double, M * 2^-E with an integer M < 2^53 and 0 <= E <= 1074.
 * Every method's virtual index has the form v = (q * c1 + c0) / d with
 * integers c1 (up to 8n + 2), c0 and d in {1, 2, 3, 8} (numpy's
 * _compute_virtual_index n*q + alpha + q*(1 - alpha - beta) - 1 with
 * alpha, beta in {0, 1/3, 3/8, 1/2, 1}), so d * v = W + F * 2^-E where
 * W is an integer and F = (M * c1) mod 2^E < 2^121: floor(v) and
 * the fraction are exact in 128-bit integers whatever q's exponent.
 * The interpolation is a sum of products of such fractions with the
 * elements' significands, added exactly in an xsum and divided by d once.
 */
#include <math.h>
#include <string.h>

#include "quantile_math.h"
#include "xsum.h"

const char *const qmethod_names[QM_N] = {
	"inverted_cdf", "averaged_inverted_cdf", "closest_observation",
	"interpolated_inverted_cdf", "hazen", "weibull", "linear",
	"median_unbiased", "normal_unbiased", "lower", "higher", "midpoint",
	"nearest",
};

int qmethod_parse(const char *s, enum qmethod *m)
{
	for (int i = 0; i < QM_N; i++)
		if (strcmp(s, qmethod_names[i]) == 0) {
			*m = (enum qmethod)i;
			return 0;
		}
	return -1;
}

/* v = (q * c1 + c0) / d as floor w and fraction (r + f * 2^-e) / d. */
struct vindex {
	__int128 w;
	uint64_t r;
	unsigned __int128 f;
	int e;
	unsigned d;
};

static void vindex_of(double q, unsigned __int128 c1, int64_t c0, unsigned d,
		      struct vindex *v)
{
	uint64_t m = 0;
	int e = 0, ex;

	if (q > 0) {
		m = (uint64_t)ldexp(frexp(q, &ex), 53);
		e = 53 - ex;
		while (!(m & 1) && e > 0) {
			m >>= 1;
			e--;
		}
	}
	unsigned __int128 p = (unsigned __int128)m * c1;
	unsigned __int128 t = e >= 128 ? 0 : p >> e;
	__int128 wd = (__int128)t + c0;

	v->f = e >= 128 ? p : p & (((unsigned __int128)1 << e) - 1);
	v->e = e;
	v->d = d;
	v->w = wd >= 0 ? wd / d : -((-wd + d - 1) / d);
	v->r = (uint64_t)(wd - v->w * d);
}

static bool frac_zero(const struct vindex *v)
{
	return v->r == 0 && v->f == 0;
}

/* The fraction against 1/2 (d == 1): -1, 0 or 1. */
static int frac_cmp_half(const struct vindex *v)
{
	if (v->e == 0 || v->f == 0)
		return -1;
	if (v->e - 1 >= 128)
		return -1;
	unsigned __int128 half = (unsigned __int128)1 << (v->e - 1);

	return v->f < half ? -1 : v->f > half;
}

static void pick_element(struct qpick *p, __int128 i, uint64_t n)
{
	if (i < 0)
		i = 0;
	if (i > (__int128)n - 1)
		i = (__int128)n - 1;
	p->lo = p->hi = (uint64_t)i;
	p->element = true;
}

/* The continuous methods: numpy's _get_indexes (v >= n - 1: the last
 * element; v < 0: the first) and the fraction as the weight. */
static void pick_lerp(struct qpick *p, const struct vindex *v, uint64_t n)
{
	p->element = false;
	if (v->w >= (__int128)n - 1 || v->w < 0) {
		p->lo = p->hi = v->w < 0 ? 0 : n - 1;
		return;
	}
	p->lo = (uint64_t)v->w;
	p->hi = p->lo + 1;
	p->r = v->r;
	p->f = v->f;
	p->e = v->e;
	p->d = v->d;
}

/* (c1, c0, d) of each method's virtual index. */
static void coefficients(enum qmethod m, uint64_t n, unsigned __int128 *c1,
			 int64_t *c0, unsigned *d)
{
	unsigned __int128 nn = n;

	*c0 = 0;
	*d = 1;
	switch (m) {
	case QM_INVERTED_CDF: case QM_AVERAGED_INVERTED_CDF:
	case QM_INTERPOLATED_INVERTED_CDF:
		*c1 = nn; *c0 = -1; break;		/* n q - 1 */
	case QM_CLOSEST_OBSERVATION:
		*c1 = 2 * nn; *c0 = -3; *d = 2; break;	/* n q - 1 - 1/2 */
	case QM_HAZEN:
		*c1 = 2 * nn; *c0 = -1; *d = 2; break;	/* n q - 1/2 */
	case QM_WEIBULL:
		*c1 = nn + 1; *c0 = -1; break;		/* (n + 1) q - 1 */
	case QM_MEDIAN_UNBIASED:			/* (n + 1/3) q - 2/3 */
		*c1 = 3 * nn + 1; *c0 = -2; *d = 3; break;
	case QM_NORMAL_UNBIASED:			/* (n + 1/4) q - 5/8 */
		*c1 = 8 * nn + 2; *c0 = -5; *d = 8; break;
	default:					/* (n - 1) q */
		*c1 = nn - 1; break;
	}
}

void qpick_of(enum qmethod m, double q, uint64_t n, struct qpick *p)
{
	unsigned __int128 c1;
	int64_t c0;
	unsigned d;
	struct vindex v;

	memset(p, 0, sizeof(*p));
	coefficients(m, n, &c1, &c0, &d);
	vindex_of(q, c1, c0, d, &v);
	switch (m) {
	case QM_LOWER:
		return pick_element(p, v.w, n);
	case QM_HIGHER:
		return pick_element(p, v.w + !frac_zero(&v), n);
	case QM_NEAREST: {	/* np.around: halves to even */
		int c = frac_cmp_half(&v);

		return pick_element(p, v.w + (c > 0 || (c == 0 && (v.w & 1))), n);
	}
	case QM_INVERTED_CDF:
		return pick_element(p, v.w + !frac_zero(&v), n);
	case QM_CLOSEST_OBSERVATION:	/* at g = 0 the even order statistic */
		return pick_element(p, v.w + !(frac_zero(&v) && (v.w & 1)), n);
	case QM_AVERAGED_INVERTED_CDF:
		/* numpy's fix_gamma: g = 0 becomes 1/2, any other g 1 */
		pick_lerp(p, &v, n);
		if (p->lo != p->hi && frac_zero(&v)) {
			p->r = 1;
			p->d = 2;
		} else if (p->lo != p->hi) {
			p->lo = p->hi;
		}
		return;
	case QM_MIDPOINT:	/* between floor and ceil of (n - 1) q */
		pick_lerp(p, &v, n);
		if (p->lo != p->hi && !frac_zero(&v)) {
			p->r = 1;
			p->f = 0;
			p->e = 0;
			p->d = 2;
		}
		return;
	default:
		return pick_lerp(p, &v, n);
	}
}

/* ---- the exact interpolation ---------------------------------------------- */

/* s += sign * c * 2^ce * x for a 128-bit c (below 2^121) and a finite
 * element x. */
static void add_term(struct xsum *s, unsigned __int128 c, int ce,
		     const struct qvalue *x, bool neg)
{
	uint64_t mant;
	int xe = 0;

	if (x->is_int) {
		mant = x->mag;
		neg ^= x->neg;
	} else {
		int ex;
		double fr = frexp(fabs(x->f), &ex);

		mant = (uint64_t)ldexp(fr, 53);
		xe = ex - 53;
		neg ^= signbit(x->f) != 0;
	}
	if (!mant || !c)
		return;
	xsum_add_u128(s, (c & UINT64_MAX) * mant, ce + xe, neg);
	if (c >> 64)
		xsum_add_u128(s, (c >> 64) * mant, ce + 64 + xe, neg);
}

static double qvalue_double(const struct qvalue *x)
{
	return x->f;
}

double qlerp(const struct qpick *p, const struct qvalue *lo,
	     const struct qvalue *hi)
{
	double a = qvalue_double(lo), b = qvalue_double(hi);

	if (p->lo == p->hi || (p->r == 0 && p->f == 0))
		return a;
	if (isinf(a) || isinf(b)) {
		if (isinf(a) && isinf(b) && a != b)
			return NAN;
		return isinf(a) ? a : b;
	}
	struct xsum s;

	/* d * x_lo + (r + f 2^-e) * (x_hi - x_lo), then / d */
	xsum_init(&s);
	add_term(&s, p->d, 0, lo, false);
	add_term(&s, p->r, 0, hi, false);
	add_term(&s, p->r, 0, lo, true);
	add_term(&s, p->f, -p->e, hi, false);
	add_term(&s, p->f, -p->e, lo, true);
	return p->d == 1 ? xsum_to_f64(&s) : xsum_mean(&s, p->d);
}
