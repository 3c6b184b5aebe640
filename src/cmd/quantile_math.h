/*
 * quantile_math.h - numpy.quantile's methods, exactly: which order
 * statistics a quantile needs and how they combine.
 *
 * numpy computes a virtual index v from q and the count n (e.g. linear's
 * (n - 1) * q), takes the elements at floor(v) and floor(v) + 1 of the
 * sorted data and interpolates by the fractional part g (or picks one
 * element, for the discontinuous methods). Here v is computed exactly
 * from q's double value (numpy rounds it in floating point), with
 * median_unbiased's 1/3 and normal_unbiased's 3/8 as the exact fractions
 * of Hyndman and Fan, and the interpolation x_lo + g * (x_hi - x_lo) is
 * the exact value rounded once to f64.
 */
#ifndef QUANTILE_MATH_H
#define QUANTILE_MATH_H

#include <stdbool.h>
#include <stdint.h>

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
 * and hi (0-based) and the weight g = (r + f * 2^-e) / d of hi, exactly.
 * element: the result is element lo itself, in the input's type (numpy's
 * discontinuous methods return the input dtype); otherwise it is an f64. */
struct qpick {
	uint64_t lo, hi;
	bool element;
	uint64_t r;
	unsigned __int128 f;
	int e;
	unsigned d;
};

void qpick_of(enum qmethod m, double q, uint64_t n, struct qpick *p);

/* An element's exact value: a double (floats), or an integer. */
struct qvalue {
	bool is_int, neg;	/* integers: |v| in mag, neg for a negative one */
	uint64_t mag;
	double f;		/* floats (and the integer's nearest double) */
};

/* x_lo + g * (x_hi - x_lo), exact, rounded once to nearest even. An
 * infinite element gives its infinity (-inf and +inf: nan); g = 0 gives
 * x_lo. */
double qlerp(const struct qpick *p, const struct qvalue *lo,
	     const struct qvalue *hi);

#endif
