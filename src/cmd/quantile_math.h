/*
 * quantile_math.h - numpy.quantile's methods, exactly: which order
 * statistics a quantile needs and how they combine.
 *
 * numpy computes a virtual index v from q and the count n (e.g. linear's
 * (n - 1) * q), takes the elements at floor(v) and floor(v) + 1 of the
 * sorted data and interpolates by the fractional part g (or picks one
 * element, for the discontinuous methods). Here v is computed exactly
 * from q as the decimal typed (qdec.h: 0.1 is one tenth; numpy rounds
 * q to a double and v in floating point), with median_unbiased's 1/3 and
 * normal_unbiased's 3/8 as the exact fractions of Hyndman and Fan, and
 * the interpolation x_lo + g * (x_hi - x_lo) is the exact value rounded
 * once to f64.
 */
#ifndef QUANTILE_MATH_H
#define QUANTILE_MATH_H

#include <stdbool.h>
#include <stdint.h>
#include "qdec.h"

enum qmethod {
	QM_INVERTED_CDF, QM_AVERAGED_INVERTED_CDF, QM_CLOSEST_OBSERVATION,
	QM_INTERPOLATED_INVERTED_CDF, QM_HAZEN, QM_WEIBULL, QM_LINEAR,
	QM_MEDIAN_UNBIASED, QM_NORMAL_UNBIASED, QM_LOWER, QM_HIGHER,
	QM_MIDPOINT, QM_NEAREST,
	QM_N
};

extern const char *const qmethod_names[QM_N];
/* "linear" ... as numpy spells them; 0 or -1. */
int qmethod_parse(const char *s, enum qmethod *m);
/* The names, space-separated (completion and --help). */
#define QMETHOD_WORDS "inverted_cdf averaged_inverted_cdf closest_observation " \
	"interpolated_inverted_cdf hazen weibull linear median_unbiased " \
	"normal_unbiased lower higher midpoint nearest"

/* What quantile q of n sorted values (n >= 1) is: the elements of rank lo
 * and hi (0-based) and, for an interpolation (lo < hi), what its weight
 * g of hi is: the fraction of the method's virtual index for q and n, or
 * 1/2 (half). element: the result is element lo itself, in the input's
 * type (numpy's discontinuous methods return the input dtype); otherwise
 * it is an f64. q must outlive the pick. */
struct qpick {
	uint64_t lo, hi;
	uint64_t n;
	const struct qdec *q;
	enum qmethod m;
	bool element, half;
};

void qpick_of(enum qmethod m, const struct qdec *q, uint64_t n,
	      struct qpick *p);

/* x_lo + g * (x_hi - x_lo), exact, rounded once to nearest even. An
 * infinite element gives its infinity (-inf and +inf: nan); g = 0 gives
 * x_lo. */
double qlerp(const struct qpick *p, const struct qvalue *lo,
	     const struct qvalue *hi);

#endif
