/*
 * group_fold.c - --by's fast fold: one key column (i32, i64, u32, u64,
 * or f64: text's keys, their ids or numbers) and one value column (f32,
 * f64, i32, i64), the common shape of keyed records, folded by a loop
 * instantiated for those two types, so a record costs no type switch.
 *
 * A thread whose table fills with too few records a key (cpu_group.c's
 * group_full) sends the keys outside the window to the run's table by
 * partition instead (group_scatter.h), as (order key, value) pairs that
 * fold_ents_* fold there.
 *
 * Keys in a small range skip the hash: a thread keeps a direct array of
 * payloads (a window of W order keys from lo, W tied to the limit, its
 * bytes held against the limit: the run's windows take a quarter of it
 * at most, and a thread that finds no room has none), placed
 * at each call around the range of the call's first records; a key inside
 * it is its payload's index, a key outside goes to the thread's table as
 * before. At the end of the call the window's touched entries go to the
 * run's table (gs_absorb) as order keys with their payloads, as the
 * thread's table's do, and the window is empty again.
 *
 * A value folds as cpu_group.c's fold does (count, NaNs, min and max in
 * the type's order, exact sums); a finite term that adds into a ksum's
 * 128-bit integer without moving its base adds here inline, every other
 * through ksum's own path: the ksum's fields come out as ksum.c's would,
 * so the bytes printed are the same whichever loop folded them.
 */
#include <stdlib.h>
#include <string.h>
#include "colrd.h"
#include "cpu_group.h"
#include "fkeys.h"
#include "group_fold.h"
#include "group_scatter.h"
#include "group_shared.h"

#define SIGN64 (1ull << 63)
#define WINDOW_MAX (1u << 17)	/* a window's keys at most */
#define WINDOW_MIN 64u
#define SAMPLE 1024u		/* records that place the window */
#define BATCH 512u		/* entries per gs_absorb of the window */

struct gdense {
	size_t cap, psize;		/* payloads allocated, their bytes */
	uint64_t held;			/* bytes held in the run's table's windows */
	size_t w;			/* this call's window: cap or 0 */
	uint64_t lo;			/* the window: indices [lo, lo + w) */
	bool fint;			/* f64 keys: indices of integers (win_index) */
	unsigned char *pay;		/* w payloads, zeroed */
	uint32_t *touched;		/* indices whose payload has a record */
	size_t nt;
	uint64_t keys[BATCH];		/* a flush's batch */
	uint32_t order[BATCH];
	unsigned char *bpay;		/* BATCH payloads */
};

void group_fold_free(struct group_acc *g)
{
	if (!g->dense)
		return;
	if (g->dense->held)
		atomic_fetch_sub(&g->sh->windows, g->dense->held);
	free(g->dense->pay);
	free(g->dense->touched);
	free(g->dense->bpay);
	free(g->dense);
	g->dense = NULL;
}

/* The bytes of a window of w keys and its batch. */
static uint64_t window_bytes(size_t w, size_t psize)
{
	return sizeof(struct gdense) + (uint64_t)w * (psize +
		sizeof(uint32_t)) + (uint64_t)BATCH * psize;
}

/* The largest window of [WINDOW_MIN, w] keys (halved from w) whose bytes
 * the run's windows have room for, those bytes then held in it; 0 where
 * none has room. */
static size_t window_hold(struct gshared *sh, size_t w, size_t psize)
{
	uint64_t room = sh->limit / 4, b, held = atomic_load(&sh->windows);

	for (; w >= WINDOW_MIN; w /= 2)
		for (b = window_bytes(w, psize); held + b <= room;)
			if (atomic_compare_exchange_weak(&sh->windows, &held,
							 held + b))
				return w;
	return 0;
}

/* The window, made at a thread's first call: as many keys as a
 * sixty-fourth of the limit holds, a power of two in [WINDOW_MIN,
 * WINDOW_MAX], fewer where the run's windows have no room for them
 * (window_hold; none: every key goes to the thread's table). */
static struct gdense *dense_of(const struct gs_job *job, struct group_acc *g,
			       size_t psize)
{
	struct gdense *dn;
	size_t w = WINDOW_MAX;

	if (g->dense)
		return g->dense;
	while (w > WINDOW_MIN && (uint64_t)w * psize > job->group->limit / 64)
		w /= 2;
	dn = calloc(1, sizeof(*dn));
	if (!dn)
		return NULL;
	g->dense = dn;
	dn->psize = psize;
	if (!(w = window_hold(g->sh, w, psize)))
		return dn;
	dn->held = window_bytes(w, psize);
	dn->cap = w;
	dn->pay = calloc(w, psize);
	dn->touched = malloc(w * sizeof(*dn->touched));
	dn->bpay = malloc(BATCH * psize);
	if (!dn->pay || !dn->touched || !dn->bpay) {
		group_fold_free(g);
		return NULL;
	}
	return dn;
}

/* The window's touched entries into the run's table (ok) or dropped
 * (their widened sums freed); the window then empty. */
static bool dense_flush(const struct gs_job *job, struct group_acc *g,
			bool ok)
{
	struct gdense *dn = g->dense;
	size_t n = 0;

	for (size_t t = 0; t < dn->nt; t++) {
		unsigned char *p = dn->pay + dn->touched[t] * dn->psize;

		if (ok) {
			uint64_t x = dn->lo + dn->touched[t];

			dn->keys[n] = dn->fint ?
				f64_ukey((double)(int64_t)(x ^ SIGN64)) : x;
			memcpy(dn->bpay + n * dn->psize, p, dn->psize);
			n++;
		} else {
			group_pay_free(job, p);
		}
		memset(p, 0, dn->psize);
		if (n == BATCH || (n && t + 1 == dn->nt)) {
			ok = gs_absorb(job, g->sh, dn->keys, dn->bpay, n,
				       dn->order) == 0;
			n = 0;
		}
	}
	dn->nt = 0;
	return ok;
}

/* ---- the fold, as cpu_group.c's ------------------------------------------ */

#define INLINE static inline __attribute__((always_inline))
/* out of line, but not marked cold: gcc moves the rest of the stats
 * loop after a cold call into the loop's cold section, and runs it there */
#define SLOW static __attribute__((noinline))
#define KS_MAX (((__int128)1 << 126) - 1)	/* ksum.c's |acc| at most */

/* k += (neg ? -m : m) * 2^e, m < 2^mb (mb <= 126, a bound on m's bits,
 * its trailing zeros kept), where ksum.c would add it into acc without
 * moving its base (acc nonzero, e at its base or above, the term and the
 * sum within 126 bits): true, k then as ksum.c leaves it (m * 2^e is
 * m's odd part at its own place shifted to the base); false: nothing
 * done. A bound mb above m's bits refuses some terms ksum.c would take:
 * those go through it. */
INLINE bool ks_fast(struct ksum *k, unsigned __int128 m, int mb, int e,
		    bool neg)
{
	unsigned d = (unsigned)(e - k->base);
	__int128 t, r;

	if (!k->acc || k->wide || d > (unsigned)(126 - mb))
		return false;
	t = (__int128)(m << d);
	r = k->acc + (neg ? -t : t);	/* both below 2^126: no wrap */
	if ((unsigned __int128)r + KS_MAX > 2 * (unsigned __int128)KS_MAX)
		return false;
	k->acc = r;
	if (!r)
		k->base = 0;
	k->flags |= KS_TERM | KS_NOTNEGZ;
	return true;
}

static inline int bits64(uint64_t m)
{
	return 64 - __builtin_clzll(m);
}

/* The terms ks_fast refused, or that it is not for (zeros, subnormals,
 * infs): the term's odd part tried inline again (its trailing zeros may
 * bring it to the base), else ksum.c's own path. */
/* A normal v as (neg ? -m : m) * 2^e, m odd: false for zeros,
 * subnormals and infs. */
static inline bool odd_parts(double v, uint64_t *m, int *e, bool *neg)
{
	uint64_t u;
	unsigned be;
	int z;

	memcpy(&u, &v, sizeof(u));
	be = (unsigned)(u >> 52) & 0x7ff;
	if (be == 0 || be == 0x7ff)
		return false;
	*m = (u & 0xfffffffffffffull) | 1ull << 52;
	z = __builtin_ctzll(*m);
	*m >>= z;
	*e = (int)be - 1075 + z;
	*neg = u >> 63;
	return true;
}

SLOW bool add_f64_slow(struct ksum *k, double v)
{
	uint64_t m;
	int e;
	bool neg;

	if (!odd_parts(v, &m, &e, &neg))
		return ksum_add_f64(k, v);
	return ks_fast(k, m, bits64(m), e, neg) || ksum_add_f64(k, v);
}

SLOW bool add_sq_f64_slow(struct ksum *k, double v)
{
	uint64_t m;
	int e;
	bool neg;

	if (!odd_parts(v, &m, &e, &neg))
		return ksum_add_square_f64(k, v);
	return ks_fast(k, (unsigned __int128)m * m, 2 * bits64(m), 2 * e,
		       false) || ksum_add_square_f64(k, v);
}

SLOW bool add_i64_slow(struct ksum *k, int64_t v)
{
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int z;

	if (!m) {
		k->flags |= KS_TERM | KS_NOTNEGZ;
		return true;
	}
	z = __builtin_ctzll(m);
	return ks_fast(k, m >> z, bits64(m >> z), z, v < 0) ||
	       ksum_add_i64(k, v);
}

SLOW bool add_sq_i64_slow(struct ksum *k, int64_t v)
{
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int z;

	if (!m) {
		k->flags |= KS_TERM | KS_NOTNEGZ;
		return true;
	}
	z = __builtin_ctzll(m);
	m >>= z;
	if (ks_fast(k, (unsigned __int128)m * m, 2 * bits64(m), 2 * z, false))
		return true;
	m <<= z;
	return ksum_add_u128(k, (unsigned __int128)m * m, 0, false);
}

/* Min and max of a float column, in its order (-0 below +0). */
INLINE void minmax_f64(struct gcol *c, double v, bool first)
{
	if (first) {
		c->min.f = c->max.f = v;
		return;
	}
	if (v > c->min.f && v < c->max.f)
		return;			/* strictly inside: the keys agree */
	uint64_t a, lo, hi;

	memcpy(&a, &v, 8);
	memcpy(&lo, &c->min.f, 8);
	memcpy(&hi, &c->max.f, 8);
	if (key64(a) < key64(lo))
		c->min.f = v;
	if (key64(a) > key64(hi))
		c->max.f = v;
}

/* A float of eb exponent bits and mb significand bits (its implicit one
 * among them), as bits u: an f32's or an f64's. Its normal values' terms
 * go to ks_fast as they are, their trailing zeros kept: the common case
 * then takes no count of them. */
INLINE bool fold_fl(enum gs_group_what what, struct gcol *c, uint64_t u,
		    double v, int eb, int mb)
{
	bool first = c->count == c->nan;
	unsigned emax = (1u << eb) - 1, be = (unsigned)(u >> (mb - 1)) & emax;
	uint64_t m = (u & ((1ull << (mb - 1)) - 1)) | 1ull << (mb - 1);
	int e = (int)be - (int)(emax >> 1) - (mb - 1);
	bool neg = u >> (eb + mb - 1);

	c->count++;
	if (v != v) {
		c->nan++;
		return true;
	}
	if (what == GROUP_COUNT)
		return true;
	minmax_f64(c, v, first);
	if (what == GROUP_MINMAX)
		return true;
	if (be - 1 >= emax - 1)		/* zeros, subnormals, infs */
		return add_f64_slow(&c->s1, v) &&
		       (what != GROUP_STATS || add_sq_f64_slow(&c->s2, v));
	if (!ks_fast(&c->s1, m, mb, e, neg) && !add_f64_slow(&c->s1, v))
		return false;
	if (what != GROUP_STATS)
		return true;
	return ks_fast(&c->s2, (unsigned __int128)m * m, 2 * mb, 2 * e, false) ||
	       add_sq_f64_slow(&c->s2, v);
}

INLINE bool fold_f32(enum gs_group_what what, struct gcol *c, uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return fold_fl(what, c, u, f, 8, 24);
}

INLINE bool fold_f64(enum gs_group_what what, struct gcol *c, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return fold_fl(what, c, u, v, 11, 53);
}

/* An integer of at most mb bits of magnitude (32: an i32's). */
INLINE bool fold_int(enum gs_group_what what, struct gcol *c, int64_t v,
		     int mb)
{
	bool first = c->count == c->nan;
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;

	c->count++;
	if (what == GROUP_COUNT)
		return true;
	if (first) {
		c->min.i = c->max.i = v;
	} else {
		if (v < c->min.i)
			c->min.i = v;
		if (v > c->max.i)
			c->max.i = v;
	}
	if (what == GROUP_MINMAX)
		return true;
	if (!ks_fast(&c->s1, m, mb, 0, v < 0) && !add_i64_slow(&c->s1, v))
		return false;
	if (what != GROUP_STATS)
		return true;
	if (mb <= 32 && ks_fast(&c->s2, (unsigned __int128)m * m, 2 * mb, 0,
				false))
		return true;
	return add_sq_i64_slow(&c->s2, v);
}

INLINE bool fold_i32(enum gs_group_what what, struct gcol *c, int32_t v)
{
	return fold_int(what, c, v, 32);
}

INLINE bool fold_i64(enum gs_group_what what, struct gcol *c, int64_t v)
{
	return fold_int(what, c, v, 64);
}

/* ---- many keys: the records by partition (group_scatter.h) ------------- */

/* How far ahead of the fold a partition's batch loads the payloads: the
 * lookups (ktable_find) loaded them too, but a batch's lines outgrow L2
 * before the fold comes back to its first ones. */
#define PF_PAY 16u

/* An entry: the order key, then the value's bits (value_bits): an f64's
 * or an i64's, or an f32's or an i32's in the low half, the key's hash's
 * low 32 bits in the high one (gscatter's hashed: the lookups take it). */
struct fent {
	uint64_t key, v;
};

/* The wide ksums of c (of a SUM or STATS). */
static inline unsigned wides_of(enum gs_group_what what, const struct gcol *c)
{
	return (c->s1.wide != NULL) +
	       (what == GROUP_STATS && c->s2.wide != NULL);
}

/* A value of type t, as value_bits wrote it, folded into c: the fold
 * made for its type and for what (constants in each instance). */
INLINE bool fold_bits(enum gs_group_what what, struct gcol *c, enum gs_type t,
		      uint64_t b)
{
	double d;

	switch (t) {
	case GS_F32: return fold_f32(what, c, (uint32_t)b);
	case GS_F64: memcpy(&d, &b, 8); return fold_f64(what, c, d);
	case GS_I32: return fold_i32(what, c, (int32_t)(uint32_t)b);
	default: return fold_i64(what, c, (int64_t)b);
	}
}

INLINE bool fold_ents(const struct fent *f, struct ktable *t, size_t n,
		      const uint32_t *idx, unsigned *wides,
		      enum gs_group_what what, enum gs_type vt)
{
	for (size_t i = 0; i < n; i++) {
		struct gcol *c = ktable_pay(t, idx[i]);
		unsigned w = what >= GROUP_SUM ? wides_of(what, c) : 0;

		if (i + PF_PAY < n)
			__builtin_prefetch(ktable_pay(t, idx[i + PF_PAY]), 1);
		if (!fold_bits(what, c, vt, f[i].v))
			return false;
		if (what >= GROUP_SUM)
			*wides += wides_of(what, c) - w;
	}
	return true;
}

/* ---- the loop ------------------------------------------------------------- */

/* A key's index in the window: its order key, but for an f64 key its
 * value's as an i64's (text's keys are f64 ids 0, 1, 2, ...: their order
 * keys are far apart) where it is an integer of at most 2^53, else
 * UINT64_MAX, outside every window. -0 is 0's index, as its key is 0's. */
INLINE uint64_t win_index(enum gs_type t, const unsigned char *p)
{
	double d;

	if (t != GS_F64)
		return gkey_at(t, p);
	memcpy(&d, p, 8);
	if (d >= -0x1p53 && d <= 0x1p53 && d == (double)(int64_t)d)
		return (uint64_t)(int64_t)d ^ SIGN64;
	return UINT64_MAX;
}

/* Whether a value of type t leaves an entry's high half to the hash. */
INLINE bool narrow(enum gs_type t)
{
	return t == GS_F32 || t == GS_I32;
}

/* The value at p as a struct fent's bits. */
INLINE uint64_t value_bits(enum gs_type t, const unsigned char *p)
{
	uint32_t u32;
	uint64_t u;

	switch (t) {
	case GS_F32: memcpy(&u32, p, 4); return u32;
	case GS_I32: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u, p, 8); return u;
	}
}

struct loop {
	const struct gs_job *job;
	struct group_acc *g;
	struct gdense *dn;
	size_t rs, koff, voff;
};

/* The window around the keys of the first records (none where their span
 * is the window's or more: then every key goes to the table). */
INLINE void place(struct gdense *dn, enum gs_type kt, const unsigned char *d,
		  size_t n, size_t rs, size_t koff)
{
	uint64_t lo = UINT64_MAX, hi = 0, slack;

	dn->fint = kt == GS_F64;
	for (size_t r = 0; r < n && r < SAMPLE; r++) {
		uint64_t k = win_index(kt, d + r * rs + koff);

		if (k == UINT64_MAX)
			continue;
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	dn->lo = 0;
	dn->w = 0;
	if (lo > hi || hi - lo >= dn->cap)
		return;
	dn->w = dn->cap;
	slack = (dn->w - 1 - (hi - lo)) / 2;
	dn->lo = lo - (slack < lo ? slack : lo);
}

enum { RUN_OK, RUN_OOM, RUN_FLUSH, RUN_SCATTER };

/* Records [0, nrec) at d: RUN_OK, or where it stopped: out of memory,
 * the thread's table's flush failed (the run's table has the error), or
 * g->scat's did (group_scatter_failed says which). An instance per key
 * type, value type and what (fold_ents' too): a record costs no switch. */
INLINE int run(const struct loop *l, const unsigned char *d, size_t nrec,
	       enum gs_type kt, enum gs_type vt, enum gs_group_what what,
	       gscatter_fold by)
{
	struct gdense *dn = l->dn;
	struct group_acc *g = l->g;
	struct gscatter *sc = g->scat;
	unsigned char *pay = dn->pay;
	uint64_t lo = dn->lo, w = dn->w;
	size_t rs = l->rs, koff = l->koff, voff = l->voff, ps = dn->psize;

	for (size_t r = 0; r < nrec; r++, d += rs) {
		uint64_t k = win_index(kt, d + koff), i = k - lo;
		uint64_t v = value_bits(vt, d + voff);
		struct gcol *c;

		if (i < w) {
			c = (struct gcol *)(pay + i * ps);
			if (!c->count)
				dn->touched[dn->nt++] = (uint32_t)i;
			if (!fold_bits(what, c, vt, v))
				return RUN_OOM;
			continue;
		}
		if (kt == GS_F64)	/* the order key, not the index */
			k = gkey_at(kt, d + koff);
		if (sc) {
			uint64_t h = ktable_hash1(k);
			unsigned p = gs_part(sc->sh, h);
			struct fent *f = (struct fent *)gscatter_room(sc, p);

			f->key = k;
			f->v = narrow(vt) ? v | h << 32 : v;
			/* the partition's next line, written a few hundred
			 * records on: loaded now, its store does not wait */
			__builtin_prefetch((const char *)f + 64, 1);
			if (!gscatter_push(sc, p))
				return RUN_SCATTER;
			continue;
		}
		if (!(c = ktable_get(g->loc, &k, NULL)) ||
		    !fold_bits(what, c, vt, v))
			return RUN_OOM;
		if (g->loc->n >= g->cap) {
			if (!group_full(l->job, g, sizeof(uint64_t), by))
				return RUN_FLUSH;
			if ((sc = g->scat))
				sc->hashed = narrow(vt);
		}
	}
	return RUN_OK;
}

typedef int (*run_fn)(const struct loop *, const unsigned char *, size_t);

#define WH(X, K, V) X(K, V, GROUP_COUNT) X(K, V, GROUP_MINMAX) \
	X(K, V, GROUP_SUM) X(K, V, GROUP_STATS)
#define KT(X, V) WH(X, GS_I32, V) WH(X, GS_I64, V) WH(X, GS_U32, V) \
	WH(X, GS_U64, V) WH(X, GS_F64, V)
#define VT(X) KT(X, GS_F32) KT(X, GS_F64) KT(X, GS_I32) KT(X, GS_I64)
#define ENTS(V, W) \
static bool ents_##V##_##W(void *ctx, const struct gs_job *job, \
		struct ktable *t, const unsigned char *ents, size_t esize, \
		size_t n, const uint32_t *idx, unsigned *wides) \
{ \
	(void)ctx; (void)job; (void)esize; \
	return fold_ents((const struct fent *)ents, t, n, idx, wides, W, V); \
}
#define ENTS_V(K, V, W) ENTS(V, W)
WH(ENTS_V, GS_I32, GS_F32) WH(ENTS_V, GS_I32, GS_F64)
WH(ENTS_V, GS_I32, GS_I32) WH(ENTS_V, GS_I32, GS_I64)
#define FN(K, V, W) static int run_##K##_##V##_##W(const struct loop *l, \
	const unsigned char *d, size_t n) \
	{ return run(l, d, n, K, V, W, ents_##V##_##W); }
VT(FN)

static run_fn pick(enum gs_type kt, enum gs_type vt, enum gs_group_what what)
{
#define CASE(K, V, W) if (kt == K && vt == V && what == W) \
	return run_##K##_##V##_##W;
	VT(CASE)
#undef CASE
	return NULL;
}

bool group_fold(const struct gs_job *job, struct group_acc *g,
		const unsigned char *d, size_t nrec)
{
	const struct gs_group *gr = job->group;
	struct colrd kc, vc;
	struct loop l;
	run_fn fn;
	int rc;

	if (gr->nkeys != 1 || gr->nvals != 1)
		return false;
	kc = colrd_of(job, gr->key[0]);
	vc = colrd_of(job, gr->val[0]);
	if (kc.swap || kc.boolean || vc.swap || vc.boolean ||
	    !(fn = pick(kc.t, vc.t, gr->what)))
		return false;
	l = (struct loop){ .job = job, .g = g, .rs = job_record_size(job),
			   .koff = kc.off, .voff = vc.off };
	if (!(l.dn = dense_of(job, g, gcol_size(job)))) {
		group_fail_oom(g);
		return true;
	}
	place(l.dn, kc.t, d, nrec, l.rs, l.koff);
	if (g->scat) {
		g->scat->job = job;
		g->scat->hashed = narrow(vc.t);
	}
	rc = fn(&l, d, nrec);
	if (rc == RUN_OK && g->scat && !gscatter_drain(g->scat))
		rc = RUN_SCATTER;
	if (rc == RUN_OOM)
		group_fail_oom(g);	/* the thread's table stays, as cpu_group.c's */
	if (rc == RUN_SCATTER)
		(void)group_scatter_failed(g);
	if (dense_flush(job, g, rc == RUN_OK) && rc == RUN_OK)
		(void)group_flush(job, g);
	return true;
}
