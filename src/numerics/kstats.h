/*
 * kstats.h - the statistics of a key's values straight from its compact
 * sums (ksum.h), for group-by's rows: a key's sum and sum of squares are
 * 128-bit integers times a power of two, so its mean and variances take
 * a few limbs of arithmetic, not xsum's 550-byte form (xsum_mean,
 * xsum_var: a million keys' rows spent most of their time making and
 * reading those). Each result is rounded once from the exact value, as
 * xsum's are, so the bits are theirs.
 */
#ifndef KSTATS_H
#define KSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include "ksum.h"

/* The mean, variances and deviations of n >= 1 values whose exact sum is
 * s1 and sum of squares s2, as xsum_mean and xsum_var give them (svar and
 * sstdev NaN for n == 1). false, nothing written: a sum is wide or has a
 * NaN or an infinity, or the two sums' scales are too far apart for the
 * few limbs here (then xsum's way computes them). */
bool ksum_stats(const struct ksum *s1, const struct ksum *s2, uint64_t n,
		double *mean, double *pvar, double *svar, double *pstdev,
		double *sstdev);

/* k's exact value in decimal into buf (KSUM_DEC_MAX bytes), as
 * xsum_to_dec writes it; false where k is wide, not a whole number, has a
 * special, or is 2^127 or more. */
#define KSUM_DEC_MAX 42
bool ksum_to_dec(const struct ksum *k, char *buf);

#endif
