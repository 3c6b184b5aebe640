/*
 * qdec.h - a quantile's P as the decimal the user typed, and the exact
 * rational arithmetic of quantile_math.c on it.
 *
 * P = N / 10^k exactly (0.1 is one tenth, 1e-1 too), never the double
 * nearest it: numpy's virtual index v = (P * c1 + c0) / d (quantile_math.c
 * says which c1, c0, d each method has) then has the floor and fraction a
 * person computes by hand, and an interpolation is the exact value of
 * x_lo + g * (x_hi - x_lo), rounded once to f64. Both are done on a small
 * private bignum: 10^k and the aligned elements need a few thousand bits.
 */
#ifndef QDEC_H
#define QDEC_H

#include <stdbool.h>
#include <stdint.h>

/* N has at most this many digits (an operand of -q is shorter). */
#define QDEC_DIGITS 63
#define QDEC_NLIMBS 7		/* 10^63 < 2^224 */
#define QDEC_TEXT 96		/* "0.", 20 zeros, 63 digits */

struct qdec {
	uint32_t n[QDEC_NLIMBS];	/* N, little-endian 32-bit limbs */
	unsigned nn;			/* limbs used (0: P = 0) */
	unsigned k;
	char text[QDEC_TEXT];		/* how P prints (qdec_parse) */
};

/* s as P: a decimal in [0, 1] ("0.25", ".5", "1", "1e-3", "2.5E-1"; no
 * hex, inf or nan, no white space). text becomes the shortest decimal of
 * the double nearest P where that reads back as P itself, else P's own
 * digits ("1e-800", "0.30000000000000000001"). Returns 0, or -1 when s is
 * not such a decimal. */
int qdec_parse(const char *s, struct qdec *q);

/* An element's exact value: a double (floats), or an integer. */
struct qvalue {
	bool is_int, neg;	/* integers: |v| in mag, neg for a negative one */
	uint64_t mag;
	double f;		/* floats (and the integer's nearest double) */
};

/* The virtual index v = (P * c1 + c0) / d (c0 <= 0, 1 <= d <= 8): its
 * floor w, whether its fraction is 0, and the fraction against 1/2 (-1,
 * 0, 1). Any v < 0 gives w = -1, fraction 0 (every method then takes the
 * first element). */
struct qindex {
	__int128 w;
	bool zero;
	int half;
};
void qdec_index(const struct qdec *q, unsigned __int128 c1, int64_t c0,
		unsigned d, struct qindex *v);

/* x_lo + g * (x_hi - x_lo), exact, rounded once to nearest even, for
 * finite elements, with g the fraction of qdec_index's v (q != NULL) or
 * 1/2 (q == NULL). A zero result is +0. */
double qdec_lerp(const struct qdec *q, unsigned __int128 c1, int64_t c0,
		 unsigned d, const struct qvalue *lo, const struct qvalue *hi);

#endif
