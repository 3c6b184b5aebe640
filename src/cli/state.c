/*
 * state.c - see state.h. The header is text so that `head` shows what a
 * state holds; its keys are fixed, in a fixed order, every one present, so
 * reading is one strict pass and any difference between two states is
 * named by its key. Doubles (the range) are written in C's %a, which reads
 * back exactly.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "operation.h"
#include "command.h"
#include "hist2d_bin.h"
#include "state.h"

/* The keys after the magic line, in order. */
enum { K_COMMAND, K_OPERATION, K_TYPE, K_COLUMNS, K_OP, K_RANGED, K_BINS,
       K_LO, K_HI, K_YBINS, K_YLO, K_YHI, K_PAIRS, K_RECORDS, K_PAYLOAD,
       NKEYS };
static const char *const keys[NKEYS] = {
	"command", "operation", "type", "columns", "op", "ranged", "bins",
	"lo", "hi", "ybins", "ylo", "yhi", "pairs", "records", "payload",
};

/* Whether a state of job has key k: the y axis's only hist2d's (the
 * operation comes before them, so a reader knows). */
static bool has_key(const struct gs_job *job, int k)
{
	return (k != K_YBINS && k != K_YLO && k != K_YHI) ||
	       job->cmd == CMD_HIST2D || job->cmd == CMD_HIST2DW;
}
/* a value, a type list of GS_RECORD_MAX names among them */
#define VALUE_MAX 2048

/* "f32", or each column's type of mixed records: "i32,f32" (a state is
 * in no byte order of the input's). */
static void type_value(const struct gs_job *job, char *v)
{
	size_t at = 0;

	v[0] = 0;
	if (job->weighted) {	/* each column's, the weight's last */
		for (unsigned i = 0; i < job->columns; i++)
			if (i != job->wcol)
				at += (size_t)snprintf(v + at, VALUE_MAX - at,
					"%s,", type_name(job_col_dtype(job, i).type));
		snprintf(v + at, VALUE_MAX - at, "%s",
			 type_name(job_col_dtype(job, job->wcol).type));
		return;
	}
	for (unsigned k = 0; k < (job->rec ? job->rec->n : 1); k++)
		at += (size_t)snprintf(v + at, VALUE_MAX - at, "%s%s",
				       k ? "," : "",
				       type_name(job_col_dtype(job, k).type));
}

/* The value of key k, as the header writes it. */
static void key_value(const char *command, const struct gs_job *job,
		      uint64_t records, uint64_t payload, int k, char *v)
{
	switch (k) {
	case K_COMMAND: snprintf(v, VALUE_MAX, "%s", command); break;
	case K_OPERATION: snprintf(v, VALUE_MAX, "%s", operation_of(job)->name); break;
	case K_TYPE: type_value(job, v); break;
	case K_COLUMNS: snprintf(v, VALUE_MAX, "%u", job->columns); break;
	case K_OP: snprintf(v, VALUE_MAX, "%s", op_name(job->op)); break;
	case K_RANGED:	/* hist2d's bins are always ranged */
		snprintf(v, VALUE_MAX, "%d", job->ranged || job->cmd == CMD_HIST2D ||
			 job->cmd == CMD_HIST2DW);
		break;
	case K_BINS: snprintf(v, VALUE_MAX, "%llu", (unsigned long long)job->bins); break;
	case K_LO: snprintf(v, VALUE_MAX, "%a", job->lo); break;
	case K_HI: snprintf(v, VALUE_MAX, "%a", job->hi); break;
	case K_YBINS: snprintf(v, VALUE_MAX, "%llu", (unsigned long long)job->ybins); break;
	case K_YLO: snprintf(v, VALUE_MAX, "%a", job->ylo); break;
	case K_YHI: snprintf(v, VALUE_MAX, "%a", job->yhi); break;
	case K_PAIRS:
		snprintf(v, VALUE_MAX, "%d", job->cmd == CMD_DOT && !job->two_inputs);
		break;
	case K_RECORDS: snprintf(v, VALUE_MAX, "%llu", (unsigned long long)records); break;
	default: snprintf(v, VALUE_MAX, "%llu", (unsigned long long)payload); break;
	}
}

/* The header of c's state of a payload of n bytes. */
static void put_header(const struct cli *c, uint64_t n, struct sbuf *b)
{
	char v[VALUE_MAX];

	sb_addf(b, "%s %d\n", STATE_MAGIC, STATE_VERSION);
	for (int k = 0; k < NKEYS; k++) {
		if (!has_key(&c->job, k))
			continue;
		key_value(c->command->name, &c->job, c->records, n, k, v);
		sb_addf(b, "%s %s\n", keys[k], v);
	}
	sb_add(b, "\n");
}

static bool to_sbuf(void *ctx, const void *p, size_t n)
{
	struct sbuf *b = ctx;

	sb_addn(b, p, n);
	return !b->oom;
}

int state_write(const struct cli *c, const void *acc, struct sbuf *b,
		struct gs_err *err)
{
	const struct gs_job *job = &c->job;
	const struct state_codec *codec = state_codec_for(job);
	size_t n = codec->bytes_of ? codec->bytes_of(job, acc)
				   : codec->bytes(job);
	unsigned char *payload;

	/* a group-by's table can fail as it is read (a spilled run) */
	if (codec->put_to) {	/* a key at a time, into b as it drains */
		struct gs_sink to = { to_sbuf, b };

		if (acc_check(job, acc, err) < 0)
			return -1;
		put_header(c, n, b);
		codec->put_to(job, acc, &to);
		return acc_check(job, acc, err);
	}
	if (!(payload = malloc(n ? n : 1)))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	codec->put(job, acc, payload);
	if (acc_check(job, acc, err) < 0) {
		free(payload);
		return -1;
	}
	put_header(c, n, b);
	sb_addn(b, payload, n);
	free(payload);
	return 0;
}

/* ---- reading -------------------------------------------------------------- */

/* The next "KEY VALUE\n" line at *p, for the expected key. */
static int read_line(const unsigned char **p, const unsigned char *end,
		     const char *key, char *value, const char *name,
		     struct gs_err *err)
{
	size_t klen = strlen(key);
	const unsigned char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t len = nl ? (size_t)(nl - *p) : 0;

	if (!nl)
		return gs_fail(err, GS_ERUNTIME, name, "truncated state header");
	if (len <= klen + 1 || memcmp(*p, key, klen) || (*p)[klen] != ' ' ||
	    len - klen - 1 >= VALUE_MAX)
		return gs_fail(err, GS_ERUNTIME, name, "state header: expected "
			       "'%s VALUE', not '%.*s'", key,
			       (int)(len < 60 ? len : 60), (const char *)*p);
	memcpy(value, *p + klen + 1, len - klen - 1);
	value[len - klen - 1] = '\0';
	*p = nl + 1;
	return 0;
}

static int bad_value(const char *name, const char *key, const char *v,
		     struct gs_err *err)
{
	return gs_fail(err, GS_ERUNTIME, name, "state header: bad %s '%s'",
		       key, v);
}

static int to_u64(const char *v, uint64_t max, uint64_t *out)
{
	char *end;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);

	if (errno || *end || x > max)
		return -1;
	*out = x;
	return 0;
}

static int find_operation(const char *v, enum gs_cmd *op)
{
	for (int i = 0; i < GS_NCMDS; i++) {
		struct gs_job j = { .cmd = (enum gs_cmd)i };

		if (strcmp(operation_of(&j)->name, v) == 0 &&
		    operation_of(&j)->state) {
			*op = (enum gs_cmd)i;
			return 0;
		}
	}
	return -1;
}

/* A "type" list: records of mixed types, each name as type_value writes
 * it. */
static int type_list_value(struct state *s, const char *v)
{
	char again[VALUE_MAX];
	size_t bad, len;

	if (record_parse(v, &s->rec, &bad, &len) < 0)
		return -1;
	s->job.rec = &s->rec;
	s->job.dtype = (struct gs_dtype){ .type = GS_U8 };
	type_value(&s->job, again);
	return strcmp(again, v) == 0 ? 0 : -1;
}

/* One key's value into s. */
static int set_key(struct state *s, int k, const char *v, uint64_t *payload)
{
	struct gs_job *job = &s->job;
	struct gs_dtype d;
	uint64_t u = 0;
	char *end;

	switch (k) {
	case K_COMMAND:
		return snprintf(s->command, sizeof(s->command), "%s", v) <
		       (int)sizeof(s->command) ? 0 : -1;
	case K_OPERATION:
		return find_operation(v, &job->cmd);
	case K_TYPE:
		if (strchr(v, ','))
			return type_list_value(s, v);
		if (type_parse(v, &d, NULL) < 0 || strcmp(type_name(d.type), v))
			return -1;
		job->dtype.type = d.type;
		return 0;
	case K_OP:
		return parse_op(v, &job->op);
	case K_LO:
	case K_HI:
	case K_YLO:
	case K_YHI:
		errno = 0;
		*(k == K_LO ? &job->lo : k == K_HI ? &job->hi :
		  k == K_YLO ? &job->ylo : &job->yhi) = strtod(v, &end);
		return errno || *end ? -1 : 0;
	}
	if (to_u64(v, UINT64_MAX, &u) < 0)
		return -1;
	switch (k) {
	case K_COLUMNS:
		job->columns = (unsigned)u;
		return u >= 1 && u <= 1048576 ? 0 : -1;
	case K_RANGED:
		job->ranged = u;
		return u <= 1 ? 0 : -1;
	case K_BINS:	/* each command's limit: header_sane */
		job->bins = u;
		return 0;
	case K_YBINS:
		job->ybins = u;
		return 0;
	case K_PAIRS:	/* after operation: only dot has pairs */
		job->two_inputs = job->cmd == CMD_DOT && !u;
		return u <= 1 && (u == 0 || job->cmd == CMD_DOT) ? 0 : -1;
	case K_RECORDS:
		s->records = u;
		return 0;
	default:
		*payload = u;
		return 0;
	}
}

/* A state of mixed records: one type per column, an operation that reads
 * them (cpu_mixed.c), and what the command line refuses of them. */
static int mixed_sane(const struct gs_job *job, const char *name,
		      struct gs_err *err)
{
	bool bits = job->op == OP_AND || job->op == OP_OR || job->op == OP_XOR;

	if (job->columns != job->rec->n ||
	    (!mixed_supports(job->cmd) && job->cmd != CMD_GROUP))
		return bad_value(name, "type", "a list", err);
	for (unsigned k = 0; k < job->columns; k++) {
		enum gs_type t = job->rec->type[k].type;

		if (job->cmd == CMD_REDUCE &&
		    ((bits && type_is_float(t)) ||
		     (job->op == OP_PROD && !type_is_float(t))))
			return gs_fail(err, GS_ERUNTIME, name, "state header: "
				       "op %s of %s", op_name(job->op),
				       type_name(t));
	}
	return 0;
}

/* hist2d: bins on both axes within HIST2D_MAX_BINS, over finite ranges of
 * lo < hi (after numpy's widening of equal ends), x and y among the
 * columns, of one type. */
static int hist2d_sane(const struct gs_job *job, const char *name,
		       struct gs_err *err)
{
	if (!job->ranged)
		return bad_value(name, "ranged", "0", err);
	if (job->bins < 1 || job->ybins < 1 ||
	    job->bins > HIST2D_MAX_BINS / job->ybins)
		return gs_fail(err, GS_ERUNTIME, name, "state header: no hist2d "
			       "has bins %llu by %llu",
			       (unsigned long long)job->bins,
			       (unsigned long long)job->ybins);
	if (!(job->lo < job->hi) || !isfinite(job->lo) || !isfinite(job->hi) ||
	    !(job->ylo < job->yhi) || !isfinite(job->ylo) ||
	    !isfinite(job->yhi))
		return gs_fail(err, GS_ERUNTIME, name, "state header: no hist2d "
			       "has the range %g:%g,%g:%g", job->lo, job->hi,
			       job->ylo, job->yhi);
	if (job->columns < 2 || job->rec ||
	    (job->cmd == CMD_HIST2DW && job->columns != 3))
		return bad_value(name, "columns", job->cmd == CMD_HIST2DW ?
				 "not x, y and weight of one type" :
				 "not x and y of one type", err);
	return 0;
}

/* What the command line would have refused: a state is read from a file
 * that may have been made by anything. */
static int header_sane(const struct gs_job *job, const char *name,
		       struct gs_err *err)
{
	enum gs_type t = job->dtype.type;
	bool bits = job->op == OP_AND || job->op == OP_OR || job->op == OP_XOR;

	bool hist = job->cmd == CMD_HIST || job->cmd == CMD_HISTW;

	if (hist && !job->ranged && (type_is_float(t) || type_size(t) > 2))
		return bad_value(name, "ranged", "0", err);
	if (hist && job->ranged &&
	    (job->bins < 1 || !(job->lo < job->hi) || !isfinite(job->lo) ||
	     !isfinite(job->hi)))
		return gs_fail(err, GS_ERUNTIME, name, "state header: no ranged "
			       "bins have bins %llu over %g:%g",
			       (unsigned long long)job->bins, job->lo, job->hi);
	if (job->cmd == CMD_HIST && job->bins > (1u << 24))
		return bad_value(name, "bins", "over 2^24", err);
	if (job->cmd == CMD_HIST2D || job->cmd == CMD_HIST2DW)
		return hist2d_sane(job, name, err);
	if (job->cmd == CMD_DOT && !job->two_inputs && job->columns % 2)
		return bad_value(name, "columns", "odd, with pairs", err);
	if (bits && type_is_float(t))
		return gs_fail(err, GS_ERUNTIME, name, "state header: op %s of "
			       "%s", op_name(job->op), type_name(t));
	return job->rec && !job->weighted ? mixed_sane(job, name, err) : 0;
}

/* hist --weights: the type list is each column's, the weight's last; the
 * value columns of one type, the job's type. hist2d --weights: x, y and
 * the weight, all of one type. */
static int weighted_header(struct gs_job *job, const char *name,
			   struct gs_err *err)
{
	const struct gs_record *r = job->rec;

	if (job->cmd != CMD_HISTW && job->cmd != CMD_HIST2DW)
		return 0;
	if (!r || r->n != job->columns || r->n < 2)
		return bad_value(name, "type", "not a list of values and weight",
				 err);
	if (job->cmd == CMD_HIST2DW &&
	    (r->type[2].type != r->type[0].type ||
	     r->type[2].boolean != r->type[0].boolean))
		return bad_value(name, "type", "x, y and weight of several types",
				 err);
	for (unsigned k = 1; k + 1 < r->n; k++)
		if (r->type[k].type != r->type[0].type ||
		    r->type[k].boolean != r->type[0].boolean)
			return bad_value(name, "type", "values of several types",
					 err);
	job->weighted = true;
	job->wcol = r->n - 1;
	job->dtype = (struct gs_dtype){ .type = r->type[0].type,
					.boolean = r->type[0].boolean };
	/* the weight of the values' type: records of one type, as the run
	 * read them (-t T -c N) */
	if (r->type[r->n - 1].type == r->type[0].type &&
	    r->type[r->n - 1].boolean == r->type[0].boolean)
		job->rec = NULL;
	return 0;
}

static int read_header(const unsigned char **p, const unsigned char *end,
		       const char *name, struct state *s, uint64_t *payload,
		       struct gs_err *err)
{
	char v[VALUE_MAX];

	if (read_line(p, end, STATE_MAGIC, v, name, err) < 0)
		return -1;
	if (strcmp(v, "1") != 0)
		return gs_fail(err, GS_ERUNTIME, name, "state version %s; this "
			       "gpustat reads version %d", v, STATE_VERSION);
	for (int k = 0; k < NKEYS; k++) {
		if (!has_key(&s->job, k))
			continue;
		if (read_line(p, end, keys[k], v, name, err) < 0)
			return -1;
		if (set_key(s, k, v, payload) < 0)
			return bad_value(name, keys[k], v, err);
	}
	if (*p >= end || **p != '\n')
		return gs_fail(err, GS_ERUNTIME, name, "state header: no empty "
			       "line after 'payload'");
	(*p)++;
	if (weighted_header(&s->job, name, err) < 0)
		return -1;
	return header_sane(&s->job, name, err);
}

ssize_t state_header(const unsigned char *p, size_t n, const char *where,
		     struct state *s, uint64_t *payload, struct gs_err *err)
{
	const unsigned char *start = p, *end = p + n;

	memset(s, 0, sizeof(*s));
	*payload = 0;
	if (n < 8 || memcmp(p, STATE_MAGIC, 8) != 0)
		return gs_fail(err, GS_ERUNTIME, where, "not a gpustat state "
			       "(made by -f state)");
	if (read_header(&p, end, where, s, payload, err) < 0)
		return -1;
	return p - start;
}

int state_payload(struct state *s, const unsigned char *p, size_t n,
		  uint64_t payload, const char *where, struct gs_err *err)
{
	const struct operation *op = operation_of(&s->job);
	const struct state_codec *codec = state_codec_for(&s->job);
	const struct acc_kernels *k = acc_kernels_for(&s->job);
	char t[VALUE_MAX];

	type_value(&s->job, t);
	if (!codec->get_n && payload != codec->bytes(&s->job))
		return gs_fail(err, GS_ERUNTIME, where, "state header: payload "
			       "%llu, but %s of %.200s needs %zu bytes",
			       (unsigned long long)payload, op->name, t,
			       codec->bytes(&s->job));
	if ((uint64_t)n < payload)
		return state_truncated(where, n, payload, err);
	s->acc = malloc(k->acc_size(&s->job));
	if (!s->acc)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	k->acc_init(&s->job, s->acc);
	if (codec->get_n && codec->get_n(&s->job, s->acc, p, payload) < 0) {
		acc_release(&s->job, s->acc);
		s->acc = NULL;
		return state_malformed(&s->job, where, err);
	}
	if (!codec->get_n)
		codec->get(&s->job, s->acc, p);
	if (codec->valid && !codec->valid(&s->job, s->acc)) {
		free(s->acc);
		s->acc = NULL;
		return gs_fail(err, GS_ERUNTIME, where, "state payload: values "
			       "no run makes (a product's bounds)");
	}
	return 0;
}

int state_truncated(const char *where, uint64_t have, uint64_t payload,
		    struct gs_err *err)
{
	return gs_fail(err, GS_ERUNTIME, where, "truncated state: %llu of %llu "
		       "payload bytes", (unsigned long long)have,
		       (unsigned long long)payload);
}

int state_malformed(const struct gs_job *job, const char *where,
		    struct gs_err *err)
{
	return gs_fail(err, GS_ERUNTIME, where, "state payload: not what a %s "
		       "state holds", operation_of(job)->name);
}

/* Group-by states: the same key and value columns (the payload's). */
static int group_same(const struct state *a, const char *aname,
		      const struct state *b, const char *bname,
		      struct gs_err *err)
{
	const struct gs_group *x = a->job.group, *y = b->job.group;

	if (a->job.cmd != CMD_GROUP)
		return 0;
	if (!x->text != !y->text)
		return gs_fail(err, GS_ERUNTIME, bname, "cannot merge with %s: "
			       "its keys are %s, these %s", aname,
			       x->text ? "strings" : "numbers",
			       y->text ? "strings" : "numbers");
	if (x->what == y->what && x->nkeys == y->nkeys &&
	    x->nvals == y->nvals &&
	    !memcmp(x->key, y->key, x->nkeys * sizeof(*x->key)) &&
	    !memcmp(x->val, y->val, x->nvals * sizeof(*x->val)))
		return 0;
	return gs_fail(err, GS_ERUNTIME, bname, "cannot merge with %s: "
		       "grouped by other key or value columns", aname);
}

/* The end of a range that key k names. */
static double range_end(const struct gs_job *job, int k)
{
	return k == K_LO ? job->lo : k == K_HI ? job->hi :
	       k == K_YLO ? job->ylo : job->yhi;
}

int state_check(const struct state *a, const char *aname,
		const struct state *b, const char *bname, struct gs_err *err)
{
	char va[VALUE_MAX], vb[VALUE_MAX];

	/* every key but the counts; the range as people write it */
	for (int k = 0; k < K_RECORDS; k++) {
		if (!has_key(&a->job, k))	/* the operations are equal */
			continue;
		key_value(a->command, &a->job, 0, 0, k, va);
		key_value(b->command, &b->job, 0, 0, k, vb);
		if (strcmp(va, vb) != 0 && (k == K_LO || k == K_HI ||
					    k == K_YLO || k == K_YHI)) {
			snprintf(va, sizeof(va), "%.17g", range_end(&a->job, k));
			snprintf(vb, sizeof(vb), "%.17g", range_end(&b->job, k));
		}
		if (strcmp(va, vb) != 0)
			return gs_fail(err, GS_ERUNTIME, bname, "cannot merge "
				       "with %s: %s %s, not %s", aname, keys[k],
				       vb, va);
	}
	return group_same(a, aname, b, bname, err);
}

