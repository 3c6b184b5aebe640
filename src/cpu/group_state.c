/*
 * group_state.c - a group-by's accumulator as bytes, for -f state and
 * merge (docs/STATE.md, "group"): the grouping, then every key in
 * ascending order with its exact state per value column. Little-endian:
 *
 *   u32 what (0 count, 1 min/max, 2 sum, 3 stats), u32 keys K, u32 values
 *   V, u32 key form (0 numbers, 1 strings), u32 key column[K], u32 value
 *   column[V], u32 0 where K + V is odd, u64 entries N; then N entries:
 *   the K keys, and per value column u64 count, u64 nan, and as what
 *   keeps them u64 min, u64 max (the bits of the column's union
 *   gs_scalar), a ksum of the values and one of their squares.
 *
 * A number key is its u64 order key (ktable.h), the entries in their
 * order. A string key (text input's: its id in the run's dictionary,
 * textkeys.h) is u64 length L, its L bytes and zeros to a multiple of 8,
 * the entries in the order of the keys' bytes, as the result prints them;
 * a state read back interns them into one dictionary for the whole
 * process, so that every state merged holds the same id for the same
 * bytes.
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
#include "textkeys.h"

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

/* The id that key column k's order key stands for (string keys). */
static uint64_t key_id(const struct gs_job *job, unsigned k, uint64_t key)
{
	enum gs_type t = job_col_dtype(job, job->group->key[k]).type;
	double d;

	if (!type_is_float(t))
		return type_is_signed(t) ? key ^ (uint64_t)1 << 63 : key;
	gkey_value(GS_F64, key, &d);
	return (uint64_t)d;
}

/* The order key of id as a value of key column k (string keys): false
 * where the column's type holds no such integer exactly. */
static bool id_key(const struct gs_job *job, unsigned k, uint64_t id,
		   uint64_t *key)
{
	struct gs_dtype t = job_col_dtype(job, job->group->key[k]);
	double d = (double)id;

	if (id > textkeys_max(t.type, t.boolean))
		return false;
	*key = type_is_float(t.type) ? gkey_of(GS_F64, &d) :
	       type_is_signed(t.type) ? id ^ (uint64_t)1 << 63 : id;
	return true;
}

/* A string of n bytes as a state holds it. */
static size_t str_bytes(size_t n)
{
	return 8 + (n + 7) / 8 * 8;
}

/* The bytes of an entry's keys. */
static size_t keys_bytes(const struct gs_job *job, const uint64_t *key)
{
	const struct gs_group *gr = job->group;
	size_t n = 0, len;

	if (!gr->text)
		return 8 * (size_t)gr->nkeys;
	for (unsigned k = 0; k < gr->nkeys; k++) {
		(void)textkeys_str(gr->text, key_id(job, k, key[k]), &len);
		n += str_bytes(len);
	}
	return n;
}

static bool size_entry(void *ctx, const uint64_t *key, unsigned char *pay)
{
	struct sizing *z = ctx;

	z->n += keys_bytes(z->job, key) + cols_bytes(z->job, pay);
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

/* One entry: its keys, then its value columns. */
static void put_entry(const struct gs_job *job, const uint64_t *key,
		      const unsigned char *pay, unsigned char **p)
{
	const struct gs_group *gr = job->group;
	size_t cs = gcol_size(job);

	for (unsigned k = 0; k < gr->nkeys; k++) {
		size_t len;
		const char *s;

		if (!gr->text) {
			put64(p, key[k]);
			continue;
		}
		s = textkeys_str(gr->text, key_id(job, k, key[k]), &len);
		put64(p, len);
		memcpy(*p, s, len);
		memset(*p + len, 0, str_bytes(len) - 8 - len);
		*p += str_bytes(len) - 8;
	}
	for (unsigned j = 0; j < gr->nvals; j++, pay += cs) {
		const struct gcol *c = (const struct gcol *)pay;

		put64(p, c->count);
		put64(p, c->nan);
		if (gr->what >= GROUP_MINMAX) {
			put64(p, c->min.u);
			put64(p, c->max.u);
		}
		if (gr->what >= GROUP_SUM)
			put_ksum(p, &c->s1);
		if (gr->what == GROUP_STATS)
			put_ksum(p, &c->s2);
	}
}

/* Entries of string keys in the order of their bytes, at p: the table
 * holds them in the order of their ids, and a spilled one is read through
 * a window, so the table is read twice in its own order, once for each
 * entry's rank and size, once to write it where its rank puts it. false:
 * out of memory, nothing written. */
static bool put_by_bytes(const struct gs_job *job, struct gshared *sh,
			 const size_t *idx, size_t n, unsigned char *p)
{
	const struct gs_group *gr = job->group;
	unsigned nk = gr->nkeys;
	uint64_t nid = textkeys_count(gr->text);
	uint64_t *rank = textkeys_ranks(gr->text);
	uint64_t *rk = malloc((n ? n : 1) * nk * sizeof(*rk));
	size_t *off = malloc((n ? n : 1) * sizeof(*off));
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	size_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	size_t *cnt = calloc(nid + 1, sizeof(*cnt));
	bool ok = rank && rk && off && order && tmp && cnt;

	for (size_t i = 0; ok && i < n; i++) {
		const unsigned char *pay = gs_pay(sh, idx[i]);
		const uint64_t *key = gs_key(sh, idx[i]);

		if (!pay || !key) {	/* a read failed: acc_error says so */
			ok = false;
			break;
		}
		for (unsigned k = 0; k < nk; k++)
			rk[i * nk + k] = rank[key_id(job, k, key[k])];
		off[i] = keys_bytes(job, key) + cols_bytes(job, pay);
		order[i] = i;
	}
	/* ranks below nid: a counting sort per key column, the last first */
	for (unsigned k = nk; ok && k-- > 0; ) {
		size_t *t;

		memset(cnt, 0, (nid + 1) * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[rk[order[i] * nk + k] + 1]++;
		for (uint64_t r = 0; r < nid; r++)
			cnt[r + 1] += cnt[r];
		for (size_t i = 0; i < n; i++)
			tmp[cnt[rk[order[i] * nk + k]]++] = order[i];
		t = order;
		order = tmp;
		tmp = t;
	}
	for (size_t i = 0, at = 0, b; ok && i < n; i++, at += b) {
		b = off[order[i]];
		off[order[i]] = at;
	}
	for (size_t i = 0; ok && i < n; i++) {
		const unsigned char *pay = gs_pay(sh, idx[i]);
		const uint64_t *key = gs_key(sh, idx[i]);
		unsigned char *at = p + off[i];

		if (!pay || !key)
			break;
		put_entry(job, key, pay, &at);
	}
	free(rank);
	free(rk);
	free(off);
	free(order);
	free(tmp);
	free(cnt);
	return ok;
}

void group_state_put(const struct gs_job *job, const void *acc,
		     unsigned char *p)
{
	const struct gs_group *gr = job->group;
	const struct group_acc *g = acc;
	size_t n = 0;
	bool oom = false;
	size_t *idx = g->sh && !atomic_load(&g->sh->err) ?
		      gs_sorted(g->sh, &n, &oom) : NULL;
	int none = 0;

	put32(&p, gr->what);
	put32(&p, gr->nkeys);
	put32(&p, gr->nvals);
	put32(&p, gr->text != NULL);
	for (unsigned k = 0; k < gr->nkeys; k++)
		put32(&p, gr->key[k]);
	for (unsigned j = 0; j < gr->nvals; j++)
		put32(&p, gr->val[j]);
	if ((gr->nkeys + gr->nvals) % 2)
		put32(&p, 0);
	put64(&p, n);
	if (gr->text && n && !put_by_bytes(job, g->sh, idx, n, p))
		oom = true;
	for (size_t i = 0; !gr->text && i < n; i++) {
		const unsigned char *pay = gs_pay(g->sh, idx[i]);
		const uint64_t *key = gs_key(g->sh, idx[i]);

		if (!pay || !key)
			break;		/* a read failed: acc_error says so */
		put_entry(job, key, pay, &p);
	}
	if (oom)	/* entries missing: refused (acc_error) */
		atomic_compare_exchange_strong(&g->sh->err, &none, ENOMEM);
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

/* The dictionary of every string key read from states: one for the
 * process, so that the same bytes are the same key in every state. */
static struct textkeys *read_keys;

/* A string key at *p into *key (its id in read_keys as key column k's
 * order key), its bytes into s[0..*len); false: cut short, not zero
 * padded, more keys than the column's type numbers, or out of memory. */
static bool get_str(const struct gs_job *job, unsigned k,
		    const unsigned char **p, const unsigned char *end,
		    uint64_t *key, const char **s, size_t *len)
{
	uint64_t n;
	int64_t id;

	if (end - *p < 8)
		return false;
	n = get64(p);
	if (n > (uint64_t)(end - *p) || str_bytes(n) - 8 > (size_t)(end - *p))
		return false;
	*s = (const char *)*p;
	*len = n;
	for (size_t i = n; i < str_bytes(n) - 8; i++)
		if ((*p)[i])
			return false;
	*p += str_bytes(n) - 8;
	id = textkeys_intern(read_keys, *s, n);
	return id >= 0 && id_key(job, k, (uint64_t)id, key);
}

/* Whether the string keys s[0..nk) (of lengths len) come after the
 * previous entry's, ps and plen (nk 0 for the first), in the order of
 * their bytes: one entry per key, in the order the output prints. */
static bool after(unsigned nk, const char *const *s, const size_t *len,
		  const char *const *ps, const size_t *plen)
{
	for (unsigned k = 0; k < nk; k++) {
		size_t m = len[k] < plen[k] ? len[k] : plen[k];
		int r = memcmp(s[k], ps[k], m);

		if (r || len[k] != plen[k])
			return r ? r > 0 : len[k] > plen[k];
	}
	return false;
}

/* An entry's keys at *p into key. */
static bool get_keys(const struct gs_job *job, const unsigned char **p,
		     const unsigned char *end, uint64_t *key, const char **s,
		     size_t *len, const char **ps, size_t *plen, bool first)
{
	const struct gs_group *gr = job->group;

	if (!gr->text) {
		if ((size_t)(end - *p) < 8 * (size_t)gr->nkeys)
			return false;
		for (unsigned k = 0; k < gr->nkeys; k++)
			if (!canonical(job, k, key[k] = get64(p)))
				return false;
		return true;
	}
	for (unsigned k = 0; k < gr->nkeys; k++)
		if (!get_str(job, k, p, end, &key[k], &s[k], &len[k]))
			return false;
	if (!first && !after(gr->nkeys, s, len, ps, plen))
		return false;
	memcpy(ps, s, gr->nkeys * sizeof(*s));
	memcpy(plen, len, gr->nkeys * sizeof(*len));
	return true;
}

/* An entry's value columns at *p into pay. */
static bool get_cols(const struct gs_job *job, const unsigned char **p,
		     const unsigned char *end, unsigned char *pay)
{
	const struct gs_group *gr = job->group;

	for (unsigned j = 0; j < gr->nvals; j++) {
		struct gcol *c = (struct gcol *)(pay + j * gcol_size(job));

		if (end - *p < 16)
			return false;
		c->count = get64(p);
		c->nan = get64(p);
		if (c->count == 0 || c->nan > c->count)
			return false;
		if (gr->what >= GROUP_MINMAX) {
			if (end - *p < 16)
				return false;
			c->min.u = get64(p);
			c->max.u = get64(p);
		}
		if (gr->what >= GROUP_SUM && !get_ksum(p, end, &c->s1))
			return false;
		if (gr->what == GROUP_STATS && !get_ksum(p, end, &c->s2))
			return false;
	}
	return true;
}

int group_state_get(struct gs_job *job, void *acc, const unsigned char *p,
		    size_t n)
{
	const unsigned char *end = p + n;
	struct gs_group *gr = calloc(1, sizeof(*gr));
	unsigned *cols;
	struct group_acc *g = acc;
	uint64_t entries, form;
	const char *s[GS_RECORD_MAX], *ps[GS_RECORD_MAX];
	size_t len[GS_RECORD_MAX], plen[GS_RECORD_MAX];

	if (!gr || n < 16)
		return -1;
	gr->what = (enum gs_group_what)get32(&p);
	gr->nkeys = get32(&p);
	gr->nvals = get32(&p);
	gr->limit = UINT64_MAX;	/* what the states hold is read already */
	form = get32(&p);
	if (form > 1 || gr->what > GROUP_STATS || !gr->nkeys || !gr->nvals ||
	    gr->nkeys > job->columns || gr->nvals > job->columns ||
	    gr->nkeys > GS_RECORD_MAX || (size_t)(end - p) < head_bytes(gr) - 16)
		return -1;
	if (form && !read_keys && !(read_keys = textkeys_new()))
		return -1;
	gr->text = form ? read_keys : NULL;
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

		if (!get_keys(job, &p, end, key, s, len, ps, plen, i == 0))
			return -1;
		if (!group_table(job, g) || !(pay = group_payload(job, g, key)))
			return -1;
		if (((struct gcol *)pay)->count)
			return -1;	/* a key twice */
		if (!get_cols(job, &p, end, pay))
			return -1;
	}
	return p == end ? 0 : -1;
}
