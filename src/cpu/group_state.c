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
 *
 * The payload is written a key at a time (group_state_write), through a
 * small buffer into the result's, which drains to the output: its length
 * is counted first (group_state_bytes, for the header), so it is never
 * held whole. group_state_read.c reads it back the same way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu_group.h"
#include "group_shared.h"
#include "group_state.h"
#include "ksum_state.h"
#include "spill_io.h"
#include "textkeys.h"

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

/* A state's bytes as they are made: through a buffer handed to the sink
 * whenever it is full, so the payload is never held whole. */
struct stream {
	const struct gs_sink *out;
	unsigned char *buf;
	size_t len, cap;
	bool failed;		/* the sink refused (its owner says why) */
	bool oom;
};

#define STREAM_BYTES ((size_t)1 << 16)

static bool flush(struct stream *s)
{
	if (s->len && !s->failed && !s->out->put(s->out->ctx, s->buf, s->len))
		s->failed = true;
	s->len = 0;
	return !s->failed;
}

/* Room for n bytes more (an entry): the buffer handed on first where they
 * do not fit, grown where one entry is more than it holds. NULL: the sink
 * failed, or out of memory. */
static unsigned char *room(struct stream *s, size_t n)
{
	if (s->len + n > s->cap && !flush(s))
		return NULL;
	if (n > s->cap) {
		unsigned char *p = realloc(s->buf, n);

		if (!p) {
			s->oom = true;
			return NULL;
		}
		s->buf = p;
		s->cap = n;
	}
	return s->buf + s->len;
}

/* One entry, as many bytes as put_entry writes. */
static bool emit(struct stream *s, const struct gs_job *job,
		 const uint64_t *key, const unsigned char *pay)
{
	size_t n = keys_bytes(job, key) + cols_bytes(job, pay);
	unsigned char *p = room(s, n);

	if (!p)
		return false;
	put_entry(job, key, pay, &p);
	s->len += n;
	return true;
}

/* A spilled table's entries of string keys, each at its place off[i] in
 * the order of their bytes: the table is read in its own order (through
 * its window), its entries written at their offsets into a temp file,
 * which is then handed on front to back. */
static bool put_spilled(const struct gs_job *job, struct gshared *sh,
			const size_t *idx, const size_t *off, size_t n,
			struct stream *s)
{
	int fd = spill_tmpfile(), none = 0;
	uint64_t end = 0;
	bool ok = fd >= 0;

	for (size_t i = 0; ok && i < n; i++) {
		const unsigned char *pay = gs_pay(sh, idx[i]);
		const uint64_t *key = gs_key(sh, idx[i]);
		size_t b = key && pay ? keys_bytes(job, key) +
					cols_bytes(job, pay) : 0;
		unsigned char *p = b ? room(s, b) : NULL;

		if (!p)	/* a read failed: acc_error says so */
			break;
		put_entry(job, key, pay, &p);
		ok = spill_write(fd, s->buf + s->len, b, off[i]) == 0;
		end = off[i] + b > end ? off[i] + b : end;
	}
	for (uint64_t at = 0; ok && at < end; ) {
		size_t b = end - at < STREAM_BYTES ? (size_t)(end - at) : STREAM_BYTES;
		unsigned char *p = room(s, b);

		if (!p)
			break;
		ok = spill_read(fd, p, b, at) == 0;
		s->len += b;
		at += b;
	}
	if (!ok && atomic_compare_exchange_strong(&sh->err, &none, errno)) {
		sh->err_keys = n;	/* acc_error: the temp file failed */
		sh->err_bytes = end;
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Entries of string keys in the order of their bytes: the table holds
 * them in the order of their ids; they are ranked (a counting sort per
 * key column) and written in that order, from memory, or where the table
 * spilled, through put_spilled. An index of every key, as the result's
 * (the strings are all in memory already). false: out of memory. */
static bool put_by_bytes(const struct gs_job *job, struct gshared *sh,
			 const size_t *idx, size_t n, struct stream *s)
{
	const struct gs_group *gr = job->group;
	unsigned nk = gr->nkeys;
	uint64_t nid = textkeys_count(gr->text);
	uint64_t *rank = textkeys_ranks(gr->text);
	uint64_t *rk = malloc(n * nk * sizeof(*rk));
	size_t *off = sh->nruns ? malloc(n * sizeof(*off)) : NULL;
	size_t *order = malloc(n * sizeof(*order));
	size_t *tmp = malloc(n * sizeof(*tmp));
	size_t *cnt = calloc(nid + 1, sizeof(*cnt));
	bool ok = rank && rk && (off || !sh->nruns) && order && tmp && cnt;

	for (size_t i = 0; ok && i < n; i++) {
		const unsigned char *pay = gs_pay(sh, idx[i]);
		const uint64_t *key = gs_key(sh, idx[i]);

		if (!pay || !key) {	/* a read failed: acc_error says so */
			ok = false;
			break;
		}
		for (unsigned k = 0; k < nk; k++)
			rk[i * nk + k] = rank[key_id(job, k, key[k])];
		if (off)
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
	for (size_t i = 0, at = 0, b; ok && off && i < n; i++, at += b) {
		b = off[order[i]];
		off[order[i]] = at;
	}
	if (ok && off)
		(void)put_spilled(job, sh, idx, off, n, s);
	for (size_t i = 0; ok && !off && i < n; i++) {
		size_t id = idx[order[i]];

		if (!emit(s, job, gs_key(sh, id), gs_pay(sh, id)))
			break;
	}
	free(rank);
	free(rk);
	free(off);
	free(order);
	free(tmp);
	free(cnt);
	return ok;
}

/* Number keys: the table's entries in key order, one at a time. false:
 * out of memory. */
static bool put_in_order(const struct gs_job *job, struct gshared *sh,
			 struct stream *s)
{
	struct gs_iter it;
	uint64_t id;

	if (gs_iter_start(sh, &it, NULL) < 0)
		return false;
	while (gs_iter_next(&it, &id)) {
		const unsigned char *pay = gs_pay(sh, id);
		const uint64_t *key = gs_key(sh, id);

		if (!pay || !key || !emit(s, job, key, pay))
			break;	/* a read failed: acc_error says so */
	}
	return true;
}

void group_state_write(const struct gs_job *job, const void *acc,
		       const struct gs_sink *out)
{
	const struct gs_group *gr = job->group;
	const struct group_acc *g = acc;
	struct gshared *sh = g->sh && !atomic_load(&g->sh->err) ? g->sh : NULL;
	size_t n = sh ? (size_t)gs_keys(sh) : 0;
	struct stream s = { .out = out, .buf = malloc(STREAM_BYTES),
			    .cap = STREAM_BYTES };
	size_t *idx = NULL;
	bool idx_oom = false, ok;
	unsigned char *p = s.buf;
	int none = 0;

	if (!s.buf) {
		s.oom = true;
		goto out;
	}
	put32(&p, gr->what);
	put32(&p, gr->nkeys);
	put32(&p, gr->nvals);
	put32(&p, gr->text != NULL);
	s.len = 4 * 4;
	for (unsigned k = 0; k < gr->nkeys + gr->nvals; k++) {
		if (!(p = room(&s, 8)))
			goto out;
		put32(&p, k < gr->nkeys ? gr->key[k] : gr->val[k - gr->nkeys]);
		s.len += 4;
	}
	if (!(p = room(&s, 12)))
		goto out;
	if ((gr->nkeys + gr->nvals) % 2) {
		put32(&p, 0);
		s.len += 4;
	}
	put64(&p, n);
	s.len += 8;
	if (gr->text && n)
		idx = gs_sorted(sh, &n, &idx_oom);
	ok = !n || (gr->text ? idx && put_by_bytes(job, sh, idx, n, &s)
			     : put_in_order(job, sh, &s));
	s.oom = s.oom || !ok;
	(void)flush(&s);
out:
	if (s.oom && g->sh)	/* entries missing: refused (acc_error) */
		atomic_compare_exchange_strong(&g->sh->err, &none, ENOMEM);
	free(idx);
	free(s.buf);
}

