/*
 * ksum.h - a compact exact sum, for tables that hold one sum per key.
 *
 * A struct xsum is exact for any terms but takes 550 bytes; a group-by with
 * 100 million keys cannot afford one per key. A struct ksum is 32 bytes and
 * just as exact: while the terms' bits fit, the sum is a 128-bit integer
 * times 2^base, base being the lowest bit any term had (after its trailing
 * zeros are dropped, so whole numbers keep base >= 0). A term that does not
 * fit (an overflow, or an exponent too far from the others) widens that key
 * alone to a struct xsum on the heap. Typical keys (values of a similar
 * scale, fewer than 2^40 of them) never widen.
 *
 * Like xsum, it merges exactly in any grouping, and rounds once at the end.
 * It also keeps what IEEE addition would make of the sign of a zero sum:
 * -0 when every term was -0.
 */
#ifndef KSUM_H
#define KSUM_H

#include <stdbool.h>
#include <stdint.h>
#include "ieee.h"
#include "xsum.h"

#define KS_NAN EXACT_NAN	/* a NaN term, or +inf and -inf */
#define KS_PINF EXACT_PINF
#define KS_NINF EXACT_NINF
#define KS_TERM 8u		/* at least one term */
#define KS_NOTNEGZ 16u		/* a term other than -0 */

struct ksum {
	__int128 acc;		/* the finite part is acc * 2^base */
	struct xsum *wide;	/* or this, once acc could not hold it */
	int32_t base;
	uint32_t flags;		/* KS_* */
};

void ksum_init(struct ksum *k);
/* Frees the wide form, if any; k is then empty. */
void ksum_free(struct ksum *k);
/* k += v. Only a failed allocation fails (false; k is unchanged). */
bool ksum_add_f64(struct ksum *k, double v);
bool ksum_add_i64(struct ksum *k, int64_t v);
bool ksum_add_u64(struct ksum *k, uint64_t v);
/* k += (neg ? -m : m) * 2^e, a finite term (a square of a double's
 * significand, an integer's square); e >= -XSUM_FRAC. */
bool ksum_add_u128(struct ksum *k, unsigned __int128 m, int e, bool neg);
/* k += v * v, exactly (a double's significand squared; an inf's square
 * or a NaN as ksum_add_f64 takes them). */
bool ksum_add_square_f64(struct ksum *k, double v);
/* k += q; q is unchanged. false: out of memory (k unchanged). */
bool ksum_merge(struct ksum *k, const struct ksum *q);
/* k rounded once into f (bits in the low bits): NaN, +-inf, the exact
 * finite sum, or a zero with IEEE's sign (+0 for no terms). */
uint64_t ksum_round(const struct ksum *k, enum xfmt f);
/* k as a struct xsum (negzero set as the rounding would). */
void ksum_to_xsum(const struct ksum *k, struct xsum *x);

#endif
