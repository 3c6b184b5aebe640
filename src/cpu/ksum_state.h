/*
 * ksum_state.h - a struct ksum as bytes in a state (docs/STATE.md): u32
 * flags (ksum.h's KS_*), u32 form, then the compact form (0: i64 low and
 * high halves of acc, i32 base, u32 0; the sum acc * 2^base, acc odd or 0)
 * or the wide one (1: the XSUM_LIMBS u64 limbs of a struct xsum). The
 * compact form is written wherever the sum fits it, so the bytes depend on
 * the value only. cpu/group_state.c defines them; a group-by's sums and a
 * weighted hist2d's bins (cpu_hist2d_w.c) use them.
 */
#ifndef KSUM_STATE_H
#define KSUM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include "ksum.h"

/* The bytes k takes. */
size_t ks_bytes(const struct ksum *k);
/* k at *p, which moves past it. */
void put_ksum(unsigned char **p, const struct ksum *k);
/* A ksum at *p (end: the payload's end) into k: false if it is cut short
 * or malformed, or out of memory. */
bool get_ksum(const unsigned char **p, const unsigned char *end,
	      struct ksum *k);

#endif
