/*
 * group_state_read.c - a group-by's state read back (acc.h's
 * group_state_head and group_state_entries; the layout is group_state.c's
 * and docs/STATE.md's): a piece at a time from its source, each key
 * checked (its own value, once, in the order of the output) and merged
 * into the table as it comes, so that no state is ever held whole.
 */
#include <stdlib.h>
#include <string.h>
#include "cpu_group.h"
#include "group_shared.h"
#include "group_state.h"
#include "ksum_state.h"
#include "textkeys.h"

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

/* The previous entry's keys, to check that each comes after it: one
 * entry per key, in the order the output prints. */
struct prev {
	bool any;
	uint64_t key[GS_RECORD_MAX];	/* numbers */
	char *s;			/* strings, one after another */
	size_t len[GS_RECORD_MAX], cap;
};

/* Whether the string keys s[0..nk) (of lengths len) come after pv's, in
 * the order of their bytes; then they are pv's. false: not after, or out
 * of memory. */
static bool after_str(struct prev *pv, unsigned nk, const char *const *s,
		      const size_t *len)
{
	const char *ps = pv->s;
	size_t all = 0;
	int r = 0;

	for (unsigned k = 0; pv->any && !r && k < nk; ps += pv->len[k], k++) {
		size_t m = len[k] < pv->len[k] ? len[k] : pv->len[k];

		r = m ? memcmp(s[k], ps, m) : 0;	/* ps may be NULL: no bytes yet */
		if (!r && len[k] != pv->len[k])
			r = len[k] > pv->len[k] ? 1 : -1;
	}
	if (pv->any && r <= 0)
		return false;
	for (unsigned k = 0; k < nk; k++)
		all += len[k];
	if (all > pv->cap) {
		char *q = realloc(pv->s, all);

		if (!q)
			return false;
		pv->s = q;
		pv->cap = all;
	}
	all = 0;
	for (unsigned k = 0; k < nk; all += len[k], k++) {
		if (len[k])	/* an empty key may have no bytes at all */
			memcpy(pv->s + all, s[k], len[k]);
		pv->len[k] = len[k];
	}
	pv->any = true;
	return true;
}

/* Whether the order keys key[0..nk) come after pv's; then they are. */
static bool after_num(struct prev *pv, unsigned nk, const uint64_t *key)
{
	unsigned k = 0;

	while (pv->any && k + 1 < nk && key[k] == pv->key[k])
		k++;
	if (pv->any && key[k] <= pv->key[k])
		return false;
	memcpy(pv->key, key, nk * sizeof(*key));
	pv->any = true;
	return true;
}

/* An entry's keys at *p into key, after pv's. */
static bool get_keys(const struct gs_job *job, const unsigned char **p,
		     const unsigned char *end, uint64_t *key, struct prev *pv)
{
	const struct gs_group *gr = job->group;
	const char *s[GS_RECORD_MAX];
	size_t len[GS_RECORD_MAX];

	if (!gr->text) {
		if ((size_t)(end - *p) < 8 * (size_t)gr->nkeys)
			return false;
		for (unsigned k = 0; k < gr->nkeys; k++)
			if (!canonical(job, k, key[k] = get64(p)))
				return false;
		return after_num(pv, gr->nkeys, key);
	}
	for (unsigned k = 0; k < gr->nkeys; k++)
		if (!get_str(job, k, p, end, &key[k], &s[k], &len[k]))
			return false;
	return after_str(pv, gr->nkeys, s, len);
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

int group_state_head(struct gs_job *job, const struct gs_src *src,
		     uint64_t limit, uint64_t *entries)
{
	const unsigned char *p = src->need(src->ctx, 16);
	struct gs_group *gr = calloc(1, sizeof(*gr));
	unsigned *cols;
	uint64_t form;
	size_t head;

	if (!gr || !p) {
		free(gr);
		return -1;
	}
	gr->what = (enum gs_group_what)get32(&p);
	gr->nkeys = get32(&p);
	gr->nvals = get32(&p);
	gr->limit = limit;
	form = get32(&p);
	head = head_bytes(gr);
	if (form > 1 || gr->what > GROUP_STATS || !gr->nkeys || !gr->nvals ||
	    gr->nkeys > job->columns || gr->nvals > job->columns ||
	    gr->nkeys > GS_RECORD_MAX || !(p = src->need(src->ctx, head)) ||
	    (form && !read_keys && !(read_keys = textkeys_new())) ||
	    !(cols = malloc(((size_t)gr->nkeys + gr->nvals) * sizeof(*cols)))) {
		free(gr);
		return -1;
	}
	p += 16;
	gr->text = form ? read_keys : NULL;
	gr->key = cols;
	gr->val = cols + gr->nkeys;
	job->group = gr;	/* the caller's to free, failing or not */
	for (unsigned i = 0; i < gr->nkeys + gr->nvals; i++)
		if ((cols[i] = get32(&p)) >= job->columns)
			return -1;
	if ((gr->nkeys + gr->nvals) % 2 && get32(&p))
		return -1;
	*entries = get64(&p);
	src->take(src->ctx, head);
	return 0;
}

void group_state_head_free(struct gs_job *job)
{
	if (job->group)
		free((void *)job->group->key);
	free((void *)job->group);
	job->group = NULL;
}

/* The bytes of the entry at the front of src: its parts' lengths read as
 * far as they are needed. 0: cut short, or no such entry. */
static size_t entry_bytes(const struct gs_job *job, const struct gs_src *src)
{
	const struct gs_group *gr = job->group;
	const unsigned char *p;
	uint64_t at = 0;

	for (unsigned k = 0; k < gr->nkeys; k++) {
		if (!gr->text) {
			at += 8;
			continue;
		}
		if (!(p = src->need(src->ctx, at + 8)))
			return 0;
		p += at;
		uint64_t len = get64(&p);

		if (len > ((uint64_t)1 << 40))	/* more than any input */
			return 0;
		at += str_bytes(len);
	}
	for (unsigned j = 0; j < gr->nvals; j++) {
		at += gr->what >= GROUP_MINMAX ? 32 : 16;
		for (int i = 0; i < (gr->what == GROUP_STATS ? 2 :
				     gr->what == GROUP_SUM); i++) {
			if (!(p = src->need(src->ctx, at + 8)))
				return 0;
			p += at + 4;
			at += get32(&p) ? KW_BYTES : KS_BYTES;
		}
	}
	return at;
}

int group_state_entries(const struct gs_job *job, void *acc,
			const struct gs_src *src, uint64_t entries)
{
	struct group_acc *g = acc;
	size_t psize = gcol_size(job) * job->group->nvals;
	unsigned char *one = aligned_alloc(16, (psize + 15) / 16 * 16);
	struct prev pv = { .any = false };
	int rc = one && group_table(job, g) ? 0 : -1;

	for (uint64_t i = 0; rc == 0 && i < entries; i++) {
		uint64_t key[GS_RECORD_MAX];
		size_t n = entry_bytes(job, src);
		const unsigned char *p = n ? src->need(src->ctx, n) : NULL;
		const unsigned char *end = p + n;
		unsigned char *pay;
		bool fresh;

		memset(one, 0, psize);
		rc = -1;
		if (!p || !get_keys(job, &p, end, key, &pv) ||
		    !get_cols(job, &p, end, one) || p != end) {
			group_pay_free(job, one);
			break;
		}
		src->take(src->ctx, n);
		/* into the table: a key of an earlier state merges exactly */
		if (!(pay = gs_payload(job, g->sh, key, &fresh))) {
			group_pay_free(job, one);
			break;
		}
		if (fresh)
			memcpy(pay, one, psize);	/* its sums move */
		else if (!group_pay_merge(job, pay, one))
			break;
		rc = 0;
	}
	free(one);
	free(pv.s);
	return rc;
}
