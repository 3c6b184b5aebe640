/*
 * group_state.h - what group_state.c (a group-by's state written) and
 * group_state_read.c (read back) share of the payload's layout
 * (group_state.c's comment, docs/STATE.md): little-endian words, the
 * ksums' two forms, the strings' padding.
 */
#ifndef GROUP_STATE_H
#define GROUP_STATE_H

#include <stddef.h>
#include <stdint.h>
#include "gs.h"
#include "xsum.h"

#define KS_BYTES 32			/* the compact form */
#define KW_BYTES (8 + 8 * XSUM_LIMBS)	/* the wide form */

static inline size_t head_bytes(const struct gs_group *gr)
{
	return 16 + 4 * (size_t)(gr->nkeys + gr->nvals + (gr->nkeys + gr->nvals) % 2) + 8;
}

static inline void put32(unsigned char **p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

static inline void put64(unsigned char **p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

static inline uint32_t get32(const unsigned char **p)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)*(*p)++ << (8 * i);
	return v;
}

static inline uint64_t get64(const unsigned char **p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)*(*p)++ << (8 * i);
	return v;
}

/* A string of n bytes as a state holds it. */
static inline size_t str_bytes(size_t n)
{
	return 8 + (n + 7) / 8 * 8;
}

#endif
