/*
 * group_state.c - a group-by's accumulator as bytes, for -f state and
 * merge (docs/STATE.md, "group"): the grouping, then every key in
 * ascending order with its exact state per value column. Little-endian:
 *
 *   u32 what (0 count, 1 min/max, 2 sum, 3 stats), u32 keys K, u32 values
 *   V, u32 0, u32 key column[K], u32 value column[V], u32 0 where K + V is
 *   odd, u64 entries N; then N entries: u64 order key[K] (ktable.h), and
 *   per value column u64 count, u64 nan, and as what keeps them u64 min,
 *   u64 max (the bits of the column's union gs_scalar), a ksum of the
 *   values and one of their squares.
 *
 * A ksum is u32 flags (ksum.h's KS_*), u32 form: 0, then i64 low and i64
 * high halves of acc and i32 base, u32 0 (the sum acc * 2^base, acc odd
 * or 0); 1, then the XSUM_LIMBS u64 limbs of the exact sum (struct xsum).
 * Both are exact; the compact form is written wherever the sum fits it
 * (compact_of), so a key's bytes depend on its value only: the same for
 * every -j, chunking, order and merge of states.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_group.h"
#include "group_shared.h"
#include "ksum_state.h"

#define KS_BYTES 32			/* the compact form */
#define KW_BYTES (8 + 8 * XSUM_LIMBS)	/* the wide form */

static size_t head_bytes(const struct gs_group *gr)
{
	return 16 + 4 * (size_t)(gr->nkeys + gr->nvals + (gr->nkeys + gr->nvals) % 2) + 8;
}

/* k's finite sum as acc * 2^base, acc odd (or 0) and |acc| < 2^126, the
 * compact form: false where the sum needs the wide one. The value alone
 * decides (not whether k widened on the way, which depends on the order of
 * its terms), so every -j, chunking and merge writes the same bytes. */
static bool compact_of(const struct ksum *k, __int128 *acc, int32_t *base)
{
	uint64_t m[XSUM_LIMBS], c = 1;
	bool neg;
	int lo = -1, hi = -1;
	unsigned __int128 u = 0;

	*acc = k->acc;
	*base = k->base;
	if (!k->wide) {
		while (*acc && !(*acc & 1)) {
			*acc /= 2;
			++*base;
		}
		*base = *acc ? *base : 0;
		return true;
	}
	neg = k->wide->limb[XSUM_LIMBS - 1] >> 63;
	for (int i = 0; i < XSUM_LIMBS; i++) {	/* the magnitude */
		m[i] = neg ? ~k->wide->limb[i] + c : k->wide->limb[i];
		c = neg && c && m[i] == 0;
	}
	for (int i = 0; i < XSUM_LIMBS; i++)
		if (m[i]) {
			lo = lo < 0 ? 64 * i + __builtin_ctzll(m[i]) : lo;
			hi = 64 * i + 63 - __builtin_clzll(m[i]);
		}
	if (lo < 0) {
		*acc = 0;
		*base = 0;
		return true;
	}
	if (hi - lo >= 126 || lo - XSUM_FRAC > 2048)
		return false;
	for (int b = hi; b >= lo; b--)
		u = u << 1 | (m[b / 64] >> (b % 64) & 1);
	*acc = neg ? -(__int128)u : (__int128)u;
	*base = lo - XSUM_FRAC;
	return true;
}

size_t ks_bytes(const struct ksum *k)
{
	__int128 a;
	int32_t e;

	return compact_of(k, &a, &e) ? KS_BYTES : KW_BYTES;
}

static void put32(unsigned char **p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char **p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char **p)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)*(*p)++ << (8 * i);
	return v;
}

static uint64_t get64(const unsigned char **p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)*(*p)++ << (8 * i);
	return v;
}

/* The bytes of one entry's value columns. */
static size_t cols_bytes(const struct gs_job *job, const unsigned char *pay)
{
	const struct gs_group *gr = job->group;
	size_t n = 0, cs = gcol_size(job);

	for (unsigned j = 0; j < gr->nvals; j++, pay += cs) {
		const struct gcol *c = (const struct gcol *)pay;

		n += 16;
		if (gr->what >= GROUP_MINMAX)
			n += 16;
		if (gr->what >= GROUP_SUM)
			n += ks_bytes(&c->s1);
		if (gr->what == GROUP_STATS)
			n += ks_bytes(&c->s2);
	}
	return n;
}

struct sizing {
	const struct gs_job *job;
	size_t n;
};

static bool size_entry(void *ctx, const uint64_t *key, unsigned char *pay)
{
	struct sizing *z = ctx;

	(void)key;
	z->n += 8 * z->job->group->nkeys + cols_bytes(z->job, pay);
	return true;
}

/* A spilled table is merged into one run first (gs_final); a failure
 * stays in the table, for acc_error after the bytes are put. */
size_t group_state_bytes(const struct gs_job *job, const void *acc)
{
	const struct group_acc *g = acc;
	struct sizing z = { job, head_bytes(job->group) };

	if (g->sh && gs_final(job, g->sh) == 0)
		(void)gs_walk(g->sh, size_entry, &z);
	return z.n;
}

void put_ksum(unsigned char **p, const struct ksum *k)
{
	__int128 a;
	int32_t base;
	bool compact = compact_of(k, &a, &base);

	put32(p, k->flags);
	put32(p, !compact);
	if (!compact) {
		for (int i = 0; i < XSUM_LIMBS; i++)
			put64(p, k->wide->limb[i]);
		return;
	}
	put64(p, (uint64_t)a);
	put64(p, (uint64_t)(a >> 64));
	put32(p, (uint32_t)base);
	put32(p, 0);
}

void group_state_put(const struct gs_job *job, const void *acc,
		     unsigned char *p)
{
	const struct gs_group *gr = job->group;
	const struct group_acc *g = acc;
	size_t n = 0, cs = gcol_size(job);
	bool oom = false;
	size_t *idx = g->sh && !atomic_load(&g->sh->err) ?
		      gs_sorted(g->sh, &n, &oom) : NULL;
	int none = 0;

	if (oom)	/* no entries written: refused (acc_error) */
		atomic_compare_exchange_strong(&g->sh->err, &none, ENOMEM);

	put32(&p, gr->what);
	put32(&p, gr->nkeys);
	put32(&p, gr->nvals);
	put32(&p, 0);
	for (unsigned k = 0; k < gr->nkeys; k++)
		put32(&p, gr->key[k]);
	for (unsigned j = 0; j < gr->nvals; j++)
		put32(&p, gr->val[j]);
	if ((gr->nkeys + gr->nvals) % 2)
		put32(&p, 0);
	put64(&p, n);
	for (size_t i = 0; i < n; i++) {
		const unsigned char *pay = gs_pay(g->sh, idx[i]);
		const uint64_t *key = gs_key(g->sh, idx[i]);

		if (!pay || !key)
			break;		/* a read failed: acc_error says so */
		for (unsigned k = 0; k < gr->nkeys; k++)
			put64(&p, key[k]);
		for (unsigned j = 0; j < gr->nvals; j++, pay += cs) {
			const struct gcol *c = (const struct gcol *)pay;

			put64(&p, c->count);
			put64(&p, c->nan);
			if (gr->what >= GROUP_MINMAX) {
				put64(&p, c->min.u);
				put64(&p, c->max.u);
			}
			if (gr->what >= GROUP_SUM)
				put_ksum(&p, &c->s1);
			if (gr->what == GROUP_STATS)
				put_ksum(&p, &c->s2);
		}
	}
	free(idx);
}

/* A ksum at *p (end: the payload's end) into k: false if it is cut short
 * or malformed, or out of memory. */
bool get_ksum(const unsigned char **p, const unsigned char *end,
	      struct ksum *k)
{
	uint32_t form;

	if (end - *p < KS_BYTES)
		return false;
	ksum_init(k);
	k->flags = get32(p);
	form = get32(p);
	if (form > 1 || k->flags >= 32 || (form && end - *p < KW_BYTES - 8))
		return false;
	if (form) {
		if (!(k->wide = malloc(sizeof(*k->wide))))
			return false;
		xsum_init(k->wide);
		for (int i = 0; i < XSUM_LIMBS; i++)
			k->wide->limb[i] = get64(p);
		return true;
	}
	uint64_t lo = get64(p), hi = get64(p);

	k->acc = (__int128)((unsigned __int128)hi << 64 | lo);
	k->base = (int32_t)get32(p);
	/* |acc| < 2^126, ksum.c's invariant: its adds cannot wrap */
	return get32(p) == 0 && (k->acc || !k->base) &&
	       k->acc < (__int128)1 << 126 && k->acc > -((__int128)1 << 126) &&
	       k->base >= -XSUM_FRAC && k->base <= 2048;
}

/* Whether k is the order key of an element of key column k's type:
 * one value per key (-0 and NaNs of other bits are no keys). */
static bool canonical(const struct gs_job *job, unsigned k, uint64_t key)
{
	enum gs_type t = job_col_dtype(job, job->group->key[k]).type;
	unsigned char v[8] = { 0 };

	gkey_value(t, key, v);
	return gkey_of(t, v) == key;
}

int group_state_get(struct gs_job *job, void *acc, const unsigned char *p,
		    size_t n)
{
	const unsigned char *end = p + n;
	struct gs_group *gr = calloc(1, sizeof(*gr));
	unsigned *cols;
	struct group_acc *g = acc;
	uint64_t entries;

	if (!gr || n < 16)
		return -1;
	gr->what = (enum gs_group_what)get32(&p);
	gr->nkeys = get32(&p);
	gr->nvals = get32(&p);
	gr->limit = UINT64_MAX;	/* what the states hold is read already */
	if (get32(&p) || gr->what > GROUP_STATS || !gr->nkeys || !gr->nvals ||
	    gr->nkeys > job->columns || gr->nvals > job->columns ||
	    (size_t)(end - p) < head_bytes(gr) - 16)
		return -1;
	cols = malloc(((size_t)gr->nkeys + gr->nvals) * sizeof(*cols));
	if (!cols)
		return -1;
	for (unsigned i = 0; i < gr->nkeys + gr->nvals; i++)
		if ((cols[i] = get32(&p)) >= job->columns)
			return -1;
	if ((gr->nkeys + gr->nvals) % 2 && get32(&p))
		return -1;
	gr->key = cols;
	gr->val = cols + gr->nkeys;
	job->group = gr;
	entries = get64(&p);
	for (uint64_t i = 0; i < entries; i++) {
		uint64_t key[GS_RECORD_MAX];
		unsigned char *pay;

		if (gr->nkeys > GS_RECORD_MAX ||
		    (size_t)(end - p) < 8 * (size_t)gr->nkeys)
			return -1;
		for (unsigned k = 0; k < gr->nkeys; k++)
			if (!canonical(job, k, key[k] = get64(&p)))
				return -1;
		if (!group_table(job, g) || !(pay = group_payload(job, g, key)))
			return -1;
		if (((struct gcol *)pay)->count)
			return -1;	/* a key twice */
		for (unsigned j = 0; j < gr->nvals; j++) {
			struct gcol *c = (struct gcol *)(pay + j * gcol_size(job));

			if (end - p < 16)
				return -1;
			c->count = get64(&p);
			c->nan = get64(&p);
			if (c->count == 0 || c->nan > c->count)
				return -1;
			if (gr->what >= GROUP_MINMAX) {
				if (end - p < 16)
					return -1;
				c->min.u = get64(&p);
				c->max.u = get64(&p);
			}
			if (gr->what >= GROUP_SUM && !get_ksum(&p, end, &c->s1))
				return -1;
			if (gr->what == GROUP_STATS && !get_ksum(&p, end, &c->s2))
				return -1;
		}
	}
	return p == end ? 0 : -1;
}
