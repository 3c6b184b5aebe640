/*
 * quantile_math.c - numpy.quantile's methods, exactly (quantile_math.h).
 *
 * Every method's virtual index has the form v = (q * c1 + c0) / d with
 * integers c1 (up to 8n + 2), c0 <= 0 and d in {1, 2, 3, 8} (numpy's
 * _compute_virtual_index n*q + alpha + q*(1 - alpha - beta) - 1 with
 * alpha, beta in {0, 1/3, 3/8, 1/2, 1}); q is the exact decimal typed,
 * so qdec.c finds floor(v), its fraction and the interpolation exactly.
 */
#include <math.h>
#include <string.h>

#include "quantile_math.h"

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
 * element; v < 0: the first), the fraction as the weight. */
static void pick_lerp(struct qpick *p, const struct qindex *v, uint64_t n)
{
	p->element = false;
	if (v->w >= (__int128)n - 1 || v->w < 0) {
		p->lo = p->hi = v->w < 0 ? 0 : n - 1;
		return;
	}
	p->lo = (uint64_t)v->w;
	p->hi = v->zero ? p->lo : p->lo + 1;	/* g = 0: x_lo */
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

void qpick_of(enum qmethod m, const struct qdec *q, uint64_t n,
	      struct qpick *p)
{
	unsigned __int128 c1;
	int64_t c0;
	unsigned d;
	struct qindex v;

	memset(p, 0, sizeof(*p));
	p->m = m;
	p->q = q;
	p->n = n;
	coefficients(m, n, &c1, &c0, &d);
	qdec_index(q, c1, c0, d, &v);
	switch (m) {
	case QM_LOWER:
		return pick_element(p, v.w, n);
	case QM_HIGHER:
		return pick_element(p, v.w + !v.zero, n);
	case QM_NEAREST:	/* np.around: halves to even */
		return pick_element(p, v.w + (v.half > 0 || (v.half == 0 &&
							    (v.w & 1))), n);
	case QM_INVERTED_CDF:
		return pick_element(p, v.w + !v.zero, n);
	case QM_CLOSEST_OBSERVATION:	/* at g = 0 the even order statistic */
		return pick_element(p, v.w + !(v.zero && (v.w & 1)), n);
	case QM_AVERAGED_INVERTED_CDF:
		/* numpy's fix_gamma: g = 0 becomes 1/2, any other g 1 */
		pick_lerp(p, &v, n);
		if (p->lo != p->hi)
			p->lo = p->hi;
		else if (v.zero && v.w >= 0 && v.w < (__int128)n - 1)
			p->hi = p->lo + 1, p->half = true;
		return;
	case QM_MIDPOINT:	/* between floor and ceil of (n - 1) q */
		pick_lerp(p, &v, n);
		p->half = p->lo != p->hi;
		return;
	default:
		return pick_lerp(p, &v, n);
	}
}

/* ---- the exact interpolation ---------------------------------------------- */

double qlerp(const struct qpick *p, const struct qvalue *lo,
	     const struct qvalue *hi)
{
	double a = lo->f, b = hi->f;
	unsigned __int128 c1;
	int64_t c0;
	unsigned d;

	if (p->lo == p->hi)
		return a;
	if (isinf(a) || isinf(b)) {
		if (isinf(a) && isinf(b) && a != b)
			return NAN;
		return isinf(a) ? a : b;
	}
	coefficients(p->m, p->n, &c1, &c0, &d);
	return qdec_lerp(p->half ? NULL : p->q, c1, c0, d, lo, hi);
}
