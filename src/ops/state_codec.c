/*
 * state_codec.c - each operation's accumulator as bytes, for `-f state`
 * and `gpustat merge` (docs/STATE.md has the layout): every field a
 * little-endian u64 in a fixed order, whatever the host, so a state written
 * on one machine merges on any other. Each is named by the STATE column
 * of its operation's row of ops.def; they never allocate: the caller sizes
 * the buffer with state_bytes and makes the accumulator with acc_init.
 */
#include <string.h>
#include "operation.h"

/* ---- little-endian words ------------------------------------------------ */

static unsigned char *put(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	return p + 8;
}

static const unsigned char *get(const unsigned char *p, uint64_t *v)
{
	*v = 0;
	for (int i = 0; i < 8; i++)
		*v |= (uint64_t)p[i] << (8 * i);
	return p + 8;
}

static uint64_t f64_bits(double f)
{
	uint64_t u;

	memcpy(&u, &f, 8);
	return u;
}

static double bits_f64(uint64_t u)
{
	double f;

	memcpy(&f, &u, 8);
	return f;
}

/* A scalar of type t as its 64 bits: two's complement for integers. */
static uint64_t scalar_bits(enum gs_type t, union gs_scalar v)
{
	return type_is_float(t) ? f64_bits(v.f) : v.u;
}

static union gs_scalar bits_scalar(enum gs_type t, uint64_t u)
{
	union gs_scalar v;

	if (type_is_float(t))
		v.f = bits_f64(u);
	else
		v.u = u;
	return v;
}

/* Flags as the low bits of one word, first argument in bit 0. */
static uint64_t flags4(bool a, bool b, bool c, bool d)
{
	return (uint64_t)a | (uint64_t)b << 1 | (uint64_t)c << 2 |
	       (uint64_t)d << 3;
}

static bool flag(uint64_t w, int bit)
{
	return (w >> bit) & 1;
}

/* ---- the exact sum ------------------------------------------------------ */

#define XSUM_WORDS (XSUM_LIMBS + 1)	/* the limbs, then the flags */

static unsigned char *put_xsum(unsigned char *p, const struct xsum *x)
{
	for (int i = 0; i < XSUM_LIMBS; i++)
		p = put(p, x->limb[i]);
	return put(p, flags4(x->nan, x->pinf, x->ninf, x->negzero));
}

static const unsigned char *get_xsum(const unsigned char *p, struct xsum *x)
{
	uint64_t f;

	for (int i = 0; i < XSUM_LIMBS; i++)
		p = get(p, &x->limb[i]);
	p = get(p, &f);
	x->nan = flag(f, 0);
	x->pinf = flag(f, 1);
	x->ninf = flag(f, 2);
	x->negzero = flag(f, 3);
	return p;
}

/* ---- hist: below, above, nan, then the counts, as in memory ------------- */

static size_t hist_words(const struct gs_job *job)
{
	return (hist_kernels.acc_size(job) - sizeof(struct hist_acc)) / 8;
}

static size_t hist_state_bytes(const struct gs_job *job)
{
	return hist_words(job) * 8;
}

static void hist_state_put(const struct gs_job *job, const void *acc,
			   unsigned char *p)
{
	const struct hist_acc *h = acc;

	for (size_t i = 0; i < hist_words(job); i++)
		p = put(p, h->v[i]);
}

static void hist_state_get(const struct gs_job *job, void *acc,
			   const unsigned char *p)
{
	struct hist_acc *h = acc;

	for (size_t i = 0; i < hist_words(job); i++)
		p = get(p, &h->v[i]);
}

/* ---- hist --weights: below, above, nan, then each bin's sum -------------
 * column by column: an xsum for float weights, two words (low first) of
 * the 128-bit sum for integer weights */

static size_t histw_bin_words(const struct gs_job *job)
{
	return histw_float(job) ? XSUM_WORDS : 2;
}

static size_t histw_state_bytes(const struct gs_job *job)
{
	uint64_t C = job->columns - 1;
	uint64_t n = job->ranged ? job->bins
				 : (uint64_t)1 << (8 * type_size(job->dtype.type));

	return (3 * C + C * n * histw_bin_words(job)) * 8;
}

static void histw_state_put(const struct gs_job *job, const void *acc,
			    unsigned char *p)
{
	struct hist_acc *h = (struct hist_acc *)acc;
	uint64_t bins = h->columns * h->nbins;

	for (uint64_t i = 0; i < 3 * h->columns; i++)
		p = put(p, h->v[i]);
	for (uint64_t i = 0; i < bins; i++) {
		if (histw_float(job)) {
			p = put_xsum(p, histw_xsum(h, 0) + i);
		} else {
			p = put(p, histw_isum(h, 0)[2 * i]);
			p = put(p, histw_isum(h, 0)[2 * i + 1]);
		}
	}
}

static void histw_state_get(const struct gs_job *job, void *acc,
			    const unsigned char *p)
{
	struct hist_acc *h = acc;
	uint64_t bins = h->columns * h->nbins;

	for (uint64_t i = 0; i < 3 * h->columns; i++)
		p = get(p, &h->v[i]);
	for (uint64_t i = 0; i < bins; i++) {
		if (histw_float(job)) {
			p = get_xsum(p, histw_xsum(h, 0) + i);
		} else {
			p = get(p, &histw_isum(h, 0)[2 * i]);
			p = get(p, &histw_isum(h, 0)[2 * i + 1]);
		}
	}
}

const struct state_codec histw_state = {
	.bytes = histw_state_bytes,
	.put = histw_state_put,
	.get = histw_state_get,
};

/* ---- hist2d: nan, outside, then the counts [x bin][y bin] --------------- */

static size_t hist2d_words(const struct gs_job *job)
{
	return 2 + job->bins * job->ybins;
}

static size_t hist2d_state_bytes(const struct gs_job *job)
{
	return hist2d_words(job) * 8;
}

static void hist2d_state_put(const struct gs_job *job, const void *acc,
			     unsigned char *p)
{
	const struct hist2d_acc *h = acc;

	p = put(put(p, h->nan), h->outside);
	for (size_t i = 0; i + 2 < hist2d_words(job); i++)
		p = put(p, h->counts[i]);
}

static void hist2d_state_get(const struct gs_job *job, void *acc,
			     const unsigned char *p)
{
	struct hist2d_acc *h = acc;

	p = get(get(p, &h->nan), &h->outside);
	for (size_t i = 0; i + 2 < hist2d_words(job); i++)
		p = get(p, &h->counts[i]);
}

/* ---- hist2d --weights: nan, outside, then each bin's exact sum, of a
 * length of its own (cpu_hist2d_w.c) ---------------------------------------- */

const struct state_codec hist2dw_state = {
	.put = hist2dw_state_put,
	.bytes_of = hist2dw_state_bytes,
	.get_n = hist2dw_state_get,
};

/* ---- stats: count, nan, min, max, sum, sum of squares per column -------- */

static size_t stats_state_bytes(const struct gs_job *job)
{
	return (size_t)job->columns * (4 + 2 * XSUM_WORDS) * 8;
}

static void stats_state_put(const struct gs_job *job, const void *acc,
			    unsigned char *p)
{
	const struct stats_col *s = acc;
	enum gs_type t = job->dtype.type;

	for (unsigned k = 0; k < job->columns; k++, s++) {
		p = put(put(p, s->count), s->nan);
		p = put(put(p, scalar_bits(t, s->min)), scalar_bits(t, s->max));
		p = put_xsum(put_xsum(p, &s->s1), &s->s2);
	}
}

static void stats_state_get(const struct gs_job *job, void *acc,
			    const unsigned char *p)
{
	struct stats_col *s = acc;
	enum gs_type t = job->dtype.type;
	uint64_t mn, mx;

	for (unsigned k = 0; k < job->columns; k++, s++) {
		p = get(get(p, &s->count), &s->nan);
		p = get(get(p, &mn), &mx);
		s->min = bits_scalar(t, mn);
		s->max = bits_scalar(t, mx);
		p = get_xsum(get_xsum(p, &s->s1), &s->s2);
	}
}

/* ---- dot: count and sum per column -------------------------------------- */

static size_t dot_state_bytes(const struct gs_job *job)
{
	return dot_kernels.acc_size(job) / sizeof(struct dot_col) *
	       (1 + XSUM_WORDS) * 8;
}

static void dot_state_put(const struct gs_job *job, const void *acc,
			  unsigned char *p)
{
	const struct dot_col *d = acc;
	size_t n = dot_kernels.acc_size(job) / sizeof(*d);

	for (size_t k = 0; k < n; k++)
		p = put_xsum(put(p, d[k].count), &d[k].s);
}

static void dot_state_get(const struct gs_job *job, void *acc,
			  const unsigned char *p)
{
	struct dot_col *d = acc;
	size_t n = dot_kernels.acc_size(job) / sizeof(*d);

	for (size_t k = 0; k < n; k++)
		p = get_xsum(get(p, &d[k].count), &d[k].s);
}

/* ---- reduce: count, then the op's state, padded to the widest ----------- *
 * sum: the xsum. prod of floats: flags (nan, zero, inf, neg), exp, lo, hi.
 * prod of integers: flags (zero, overflow, neg), at, magnitude. min, max:
 * flags (nan), the value's bits. and, or, xor: the bits. */

#define RED_WORDS (1 + XSUM_WORDS)

static size_t reduce_state_bytes(const struct gs_job *job)
{
	return (size_t)job->columns * RED_WORDS * 8;
}

static unsigned char *put_red(const struct gs_job *job, unsigned char *p,
			      const struct red_col *r)
{
	bool flt = type_is_float(job->dtype.type);
	const struct iprod *ip;

	switch (job->op) {
	case OP_SUM:
		return put_xsum(p, &r->u.sum);
	case OP_PROD:
		if (flt) {	/* the PROD_ flags are the state's bits */
			const struct fprod *f = &r->u.fp;

			p = put(put(p, f->flags), (uint64_t)f->exp);
			p = put(put(p, f->lo[0]), f->lo[1]);
			return put(put(p, f->hi[0]), f->hi[1]);
		}
		ip = &r->u.ip.p;
		p = put(p, flags4(ip->flags & PROD_ZERO, ip->flags & PROD_OVER,
				  ip->flags & PROD_NEG, 0));
		p = put(p, r->u.ip.at);
		return put(put(p, ip->mag[0]), ip->mag[1]);
	case OP_MIN:
	case OP_MAX:
		p = put(p, flags4(r->u.mm.nan, 0, 0, 0));
		return put(p, scalar_bits(job->dtype.type, r->u.mm.v));
	default:
		return put(p, r->u.bits);
	}
}

static const unsigned char *get_red(const struct gs_job *job,
				    const unsigned char *p, struct red_col *r)
{
	bool flt = type_is_float(job->dtype.type);
	uint64_t f, w;

	switch (job->op) {
	case OP_SUM:
		return get_xsum(p, &r->u.sum);
	case OP_PROD:
		p = get(p, &f);
		if (flt) {
			r->u.fp.flags = f & (PROD_NAN | PROD_ZERO | PROD_INF |
					     PROD_NEG);
			p = get(p, &w);
			r->u.fp.exp = (int64_t)w;
			p = get(get(p, &r->u.fp.lo[0]), &r->u.fp.lo[1]);
			return get(get(p, &r->u.fp.hi[0]), &r->u.fp.hi[1]);
		}
		r->u.ip.p.flags = (flag(f, 0) ? PROD_ZERO : 0) |
				  (flag(f, 1) ? PROD_OVER : 0) |
				  (flag(f, 2) ? PROD_NEG : 0);
		p = get(p, &r->u.ip.at);
		return get(get(p, &r->u.ip.p.mag[0]), &r->u.ip.p.mag[1]);
	case OP_MIN:
	case OP_MAX:
		p = get(get(p, &f), &w);
		r->u.mm.nan = flag(f, 0);
		r->u.mm.v = bits_scalar(job->dtype.type, w);
		return p;
	default:
		return get(p, &r->u.bits);
	}
}

static void reduce_state_put(const struct gs_job *job, const void *acc,
			     unsigned char *p)
{
	const struct red_col *r = acc;

	for (unsigned k = 0; k < job->columns; k++) {
		unsigned char *end = p + RED_WORDS * 8;

		p = put_red(job, put(p, r[k].count), &r[k]);
		memset(p, 0, (size_t)(end - p));
		p = end;
	}
}

static void reduce_state_get(const struct gs_job *job, void *acc,
			     const unsigned char *p)
{
	struct red_col *r = acc;

	for (unsigned k = 0; k < job->columns; k++, p += RED_WORDS * 8)
		get_red(job, get(p, &r[k].count), &r[k]);
}

/* A float product's bounds have their top bits set (fprod_one starts
 * from 2^127 and every step renormalizes), lo <= hi, and an exponent far
 * from overflowing when two are added. */
static bool reduce_state_valid(const struct gs_job *job, const void *acc)
{
	const struct red_col *r = acc;
	const int64_t far = (int64_t)1 << 62;

	if (job->op != OP_PROD || !type_is_float(job->dtype.type))
		return true;
	for (unsigned k = 0; k < job->columns; k++) {
		const struct fprod *f = &r[k].u.fp;
		bool le = f->lo[1] != f->hi[1] ? f->lo[1] < f->hi[1]
					       : f->lo[0] <= f->hi[0];

		if (!(f->lo[1] >> 63) || !(f->hi[1] >> 63) || !le ||
		    f->exp < -far || f->exp > far)
			return false;
	}
	return true;
}

const struct state_codec hist_state = {
	.bytes = hist_state_bytes,
	.put = hist_state_put,
	.get = hist_state_get,
};
const struct state_codec hist2d_state = {
	.bytes = hist2d_state_bytes,
	.put = hist2d_state_put,
	.get = hist2d_state_get,
};
const struct state_codec stats_state = {
	.bytes = stats_state_bytes,
	.put = stats_state_put,
	.get = stats_state_get,
};
const struct state_codec dot_state = {
	.bytes = dot_state_bytes,
	.put = dot_state_put,
	.get = dot_state_get,
};
const struct state_codec reduce_state = {
	.bytes = reduce_state_bytes,
	.put = reduce_state_put,
	.get = reduce_state_get,
	.valid = reduce_state_valid,
};

/* ---- records of mixed types ----------------------------------------------
 * Each column's state as its operation's codec writes it for that column
 * alone (job_column), one after another: for stats and reduce, whose
 * states are a struct per column, the layout of -c N of one type. */

/* Where column k's state starts in the payload (bytes) and in the
 * accumulator (acc, cpu_mixed.c's layout). */
static void mixed_at(const struct gs_job *job, unsigned k, size_t *bytes,
		     size_t *acc)
{
	*bytes = *acc = 0;
	for (unsigned j = 0; j < k; j++) {
		struct gs_job cj = job_column(job, j);
		const struct operation *op = operation_of(&cj);

		*bytes += op->state->bytes(&cj);
		*acc += op->cpu->acc_size(&cj);
	}
}

static size_t mixed_state_bytes(const struct gs_job *job)
{
	size_t bytes, acc;

	mixed_at(job, job->columns, &bytes, &acc);
	return bytes;
}

static void mixed_state_put(const struct gs_job *job, const void *acc,
			    unsigned char *p)
{
	for (unsigned k = 0; k < job->columns; k++) {
		struct gs_job cj = job_column(job, k);
		size_t b, a;

		mixed_at(job, k, &b, &a);
		operation_of(&cj)->state->put(&cj, (const char *)acc + a, p + b);
	}
}

static void mixed_state_get(const struct gs_job *job, void *acc,
			    const unsigned char *p)
{
	for (unsigned k = 0; k < job->columns; k++) {
		struct gs_job cj = job_column(job, k);
		size_t b, a;

		mixed_at(job, k, &b, &a);
		operation_of(&cj)->state->get(&cj, (char *)acc + a, p + b);
	}
}

static bool mixed_state_valid(const struct gs_job *job, const void *acc)
{
	for (unsigned k = 0; k < job->columns; k++) {
		struct gs_job cj = job_column(job, k);
		const struct state_codec *c = operation_of(&cj)->state;
		size_t b, a;

		mixed_at(job, k, &b, &a);
		if (c->valid && !c->valid(&cj, (const char *)acc + a))
			return false;
	}
	return true;
}

static const struct state_codec mixed_state = {
	.bytes = mixed_state_bytes,
	.put = mixed_state_put,
	.get = mixed_state_get,
	.valid = mixed_state_valid,
};

/* a group-by: the keys and their states (cpu/group_state.c) */
const struct state_codec group_state = {
	.bytes_of = group_state_bytes,
	.put_to = group_state_write,
	.head = group_state_head,
	.entries = group_state_entries,
	.head_free = group_state_head_free,
};

const struct state_codec *state_codec_for(const struct gs_job *job)
{
	const struct state_codec *own = operation_of(job)->state;

	/* a group-by reads mixed records itself, and a weighted hist's record
	 * is its values and weight, whole */
	return job->rec && own && !own->get_n && !own->head &&
	       job->cmd != CMD_HISTW ?
		&mixed_state : own;
}
