/*
 * suffix.c - see suffix.h.
 */
#include <string.h>
#include "suffix.h"

static const struct {
	const char *ext;
	enum gs_type type;
} suffixes[] = {
	{ "u8", GS_U8 }, { "i8", GS_I8 }, { "u16", GS_U16 }, { "i16", GS_I16 },
	{ "u32", GS_U32 }, { "i32", GS_I32 }, { "u64", GS_U64 },
	{ "i64", GS_I64 }, { "f16", GS_F16 }, { "bf16", GS_BF16 },
	{ "f32", GS_F32 }, { "f64", GS_F64 },
	{ "uint8", GS_U8 }, { "int8", GS_I8 }, { "uint16", GS_U16 },
	{ "int16", GS_I16 }, { "uint32", GS_U32 }, { "int32", GS_I32 },
	{ "uint64", GS_U64 }, { "int64", GS_I64 }, { "float16", GS_F16 },
	{ "bfloat16", GS_BF16 }, { "float32", GS_F32 }, { "float64", GS_F64 },
	{ "u1", GS_U8 }, { "i1", GS_I8 }, { "u2", GS_U16 }, { "i2", GS_I16 },
	{ "u4", GS_U32 }, { "i4", GS_I32 }, { "f2", GS_F16 }, { "f4", GS_F32 },
	{ "f8", GS_F64 },
};

/* The extension of base[0, n) (after its last '.', not a leading one) is
 * a type's: true with *t. */
static bool ext_type(const char *base, size_t n, enum gs_type *t)
{
	size_t dot = n;

	while (dot > 0 && base[dot - 1] != '.')
		dot--;
	if (dot < 2)		/* no '.', or ".f32" alone: a name, no extension */
		return false;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (strlen(suffixes[i].ext) == n - dot &&
		    !memcmp(base + dot, suffixes[i].ext, n - dot)) {
			*t = suffixes[i].type;
			return true;
		}
	return false;
}

/* The length of a compressed file's extension ending base[0, n): ".zst"
 * or ".gz", else 0. */
static size_t codec_ext(const char *base, size_t n)
{
	if (n > 4 && !memcmp(base + n - 4, ".zst", 4))
		return 4;
	return n > 3 && !memcmp(base + n - 3, ".gz", 3) ? 3 : 0;
}

bool suffix_type(const char *path, bool raw, enum gs_type *t)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (!raw)	/* decompressed: the name before */
		n -= codec_ext(base, n);
	return ext_type(base, n, t);
}

/* "-t f32 contradicts the name x.f64 (f64)", with the way to read its
 * bytes as -t says: --raw, or stdin for a .zst or .gz that --raw would not
 * decompress. */
static int contradicts(const struct cli *c, const char *name, enum gs_type t,
		       struct gs_err *err)
{
	char rec[200];
	const char *tt = c->job.rec ? record_name(c->job.rec, rec, sizeof(rec))
		       : type_name(c->job.dtype.type), *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	if (codec_ext(base, strlen(base)))
		return gs_fail(err, GS_EUSAGE, "", "-t %s contradicts the name "
			       "%.200s (%s): rename it, or give it as stdin "
			       "(< %.200s) to read it as %s", tt, name,
			       type_name(t), name, tt);
	return gs_fail(err, GS_EUSAGE, "", "-t %s contradicts the name %.200s "
		       "(%s): rename it, or add --raw to read its bytes as %s",
		       tt, name, type_name(t), tt);
}

/* Whether every column of r is of type t (-t f32,f32 and x.f32 agree). */
static bool all_of(const struct gs_record *r, enum gs_type t)
{
	for (unsigned k = 0; k < r->n; k++)
		if (r->type[k].type != t)
			return false;
	return true;
}

int suffix_settle(struct cli *c, struct gs_err *err)
{
	const char *first = NULL;
	enum gs_type t, ft = GS_U8;

	if (c->raw && c->type_set)	/* the bytes, as -t says */
		return 0;
	for (int i = 0; i < c->noperands; i++) {
		if (!suffix_type(c->operands[i], c->raw, &t))
			continue;
		if (c->type_set && (c->job.rec ? !all_of(c->job.rec, t)
					       : t != c->job.dtype.type))
			return contradicts(c, c->operands[i], t, err);
		if (first && t != ft)
			return gs_fail(err, GS_EUSAGE, "", "the names %.200s (%s) "
				       "and %.200s (%s) say different types, "
				       "and the operands are one stream of one "
				       "type", first, type_name(ft),
				       c->operands[i], type_name(t));
		if (!first) {
			first = c->operands[i];
			ft = t;
		}
	}
	if (first && !c->type_set) {
		c->job.dtype.type = ft;
		c->job.dtype.boolean = false;
		c->type_from_name = first;
	}
	return 0;
}
