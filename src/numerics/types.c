/*
 * types.c - element types (sizes, names, the spellings -t accepts), exact
 * conversion of the 16-bit float types, and gs_fail().
 *
 * Spellings, with numpy's meanings (numpy 2 on 64-bit Linux): our names
 * (u8 ... f64, bf16); numpy's names (uint8, float32, half, single, double,
 * float = f64, int = i64, uint, short, intc, longlong, ...); numpy's one-letter
 * codes (b B h H i I l L q Q p P e f d); numpy typestrings (a kind letter
 * i/u/f and a byte count: "f4", "<f4", ">i2", "|u1"); and bool ("bool",
 * "?", "b1"), read as u8, whose bytes numpy writes as 0 and 1. A bare
 * "u8"/"i8" is ours (8 bits); after a byte-order mark it is numpy's (8
 * bytes). '<' and '>' are explicit byte orders, and so is '=' (native:
 * this host's); '|' means "not applicable", as in numpy's "|u1".
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "gs.h"
#include "ieee.h"

static const struct {
	const char *name;
	size_t size;
	bool is_float, is_signed;
} types[GS_NTYPES] = {
	[GS_U8] = { "u8", 1, false, false },
	[GS_I8] = { "i8", 1, false, true },
	[GS_U16] = { "u16", 2, false, false },
	[GS_I16] = { "i16", 2, false, true },
	[GS_U32] = { "u32", 4, false, false },
	[GS_I32] = { "i32", 4, false, true },
	[GS_U64] = { "u64", 8, false, false },
	[GS_I64] = { "i64", 8, false, true },
	[GS_F16] = { "f16", 2, true, true },
	[GS_BF16] = { "bf16", 2, true, true },
	[GS_F32] = { "f32", 4, true, true },
	[GS_F64] = { "f64", 8, true, true },
};

size_t type_size(enum gs_type t)
{
	return t < GS_NTYPES ? types[t].size : 0;
}

bool type_is_float(enum gs_type t)
{
	return t < GS_NTYPES && types[t].is_float;
}

bool type_is_signed(enum gs_type t)
{
	return t < GS_NTYPES && types[t].is_signed;
}

const char *type_name(enum gs_type t)
{
	return t < GS_NTYPES ? types[t].name : "?";
}

/* numpy's names and one-letter codes (np.dtype(name) in numpy 2.4). */
static const struct {
	const char *name;
	enum gs_type type;
} aliases[] = {
	{ "uint8", GS_U8 }, { "int8", GS_I8 }, { "uint16", GS_U16 },
	{ "int16", GS_I16 }, { "uint32", GS_U32 }, { "int32", GS_I32 },
	{ "uint64", GS_U64 }, { "int64", GS_I64 }, { "float16", GS_F16 },
	{ "float32", GS_F32 }, { "float64", GS_F64 }, { "bfloat16", GS_BF16 },
	{ "bool", GS_U8 }, { "bool_", GS_U8 },
	{ "byte", GS_I8 }, { "ubyte", GS_U8 }, { "short", GS_I16 },
	{ "ushort", GS_U16 }, { "intc", GS_I32 }, { "uintc", GS_U32 },
	{ "int", GS_I64 }, { "int_", GS_I64 }, { "intp", GS_I64 },
	{ "long", GS_I64 }, { "longlong", GS_I64 }, { "uint", GS_U64 },
	{ "uintp", GS_U64 }, { "ulong", GS_U64 }, { "ulonglong", GS_U64 },
	{ "half", GS_F16 }, { "single", GS_F32 }, { "float", GS_F64 },
	{ "double", GS_F64 },
	{ "?", GS_U8 }, { "b", GS_I8 }, { "B", GS_U8 }, { "h", GS_I16 },
	{ "H", GS_U16 }, { "i", GS_I32 }, { "I", GS_U32 }, { "l", GS_I64 },
	{ "L", GS_U64 }, { "q", GS_I64 }, { "Q", GS_U64 }, { "p", GS_I64 },
	{ "P", GS_U64 }, { "e", GS_F16 }, { "f", GS_F32 }, { "d", GS_F64 },
};

/* numpy typestring bodies: kind letter and byte count. */
static const struct {
	const char *code;
	enum gs_type type;
} typestrs[] = {
	{ "u1", GS_U8 }, { "i1", GS_I8 }, { "u2", GS_U16 }, { "i2", GS_I16 },
	{ "u4", GS_U32 }, { "i4", GS_I32 }, { "u8", GS_U64 }, { "i8", GS_I64 },
	{ "f2", GS_F16 }, { "f4", GS_F32 }, { "f8", GS_F64 }, { "b1", GS_U8 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int parse_typestr(const char *s, enum gs_type *t)
{
	for (size_t i = 0; i < NELEM(typestrs); i++) {
		if (!strcmp(s, typestrs[i].code)) {
			*t = typestrs[i].type;
			return 0;
		}
	}
	return -1;
}

static int parse_name(const char *s, enum gs_type *t)
{
	size_t i;

	for (i = 0; i < GS_NTYPES; i++) {
		if (!strcmp(s, types[i].name)) {
			*t = (enum gs_type)i;
			return 0;
		}
	}
	for (i = 0; i < NELEM(aliases); i++) {
		if (!strcmp(s, aliases[i].name)) {
			*t = aliases[i].type;
			return 0;
		}
	}
	return -1;
}

/* A name that may follow a byte order besides a typestring: a one-letter
 * numpy code ('>d'), or bf16. Returns true with *t set. */
static bool after_order(const char *s, enum gs_type *t)
{
	if (strlen(s) != 1 && strcmp(s, "bf16") && strcmp(s, "bfloat16"))
		return false;
	return parse_name(s, t) == 0;
}

/* numpy's names of its bool, which reads a nonzero byte as True (1). */
static bool is_bool_name(const char *s)
{
	return !strcmp(s, "bool") || !strcmp(s, "bool_") || !strcmp(s, "?") ||
	       !strcmp(s, "b1");
}

int type_parse(const char *s, struct gs_dtype *out, bool *explicit_endian)
{
	bool order = *s && strchr("<>|=", *s), one;
	enum gs_type t;

	out->boolean = is_bool_name(s + order);
	if (!order && (!parse_name(s, &t) || !parse_typestr(s, &t))) {
		out->type = t;
		out->big_endian = false;
		if (explicit_endian)
			*explicit_endian = false;
		return 0;
	}
	/* after a byte order only numpy's typestrings and one-letter codes
	 * ('<f16' is numpy's float128, not f16; '<float32' is no dtype), and
	 * bf16, which numpy has no spelling for */
	if (!order || (parse_typestr(s + 1, &t) && !after_order(s + 1, &t)))
		return -1;
	/* a byte order means nothing for one byte: numpy's ">u1" is "|u1" */
	one = type_size(t) == 1;
	out->type = t;
	out->big_endian = !one && (*s == '>' || (*s == '=' &&
				   __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
	if (explicit_endian)
		*explicit_endian = !one && *s != '|';
	return 0;
}

size_t type_list(char *buf, size_t n)
{
	size_t used = 0, i;

	for (i = 0; i < GS_NTYPES && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s",
					 i ? " " : "", types[i].name);
	for (i = 0; i < NELEM(aliases) && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s",
					 i ? " " : ", ", aliases[i].name);
	if (used < n)
		used += (size_t)snprintf(buf + used, n - used,
					 ", or typestrings like <f4 >i2 |u1 b1");
	return used;
}

size_t type_spellings(const char **names, size_t max)
{
	size_t n = 0, i;

	for (i = 0; i < GS_NTYPES && n < max; i++)
		names[n++] = types[i].name;
	for (i = 0; i < NELEM(aliases) && n < max; i++)
		names[n++] = aliases[i].name;
	for (i = 0; i < NELEM(typestrs) && n < max; i++)
		names[n++] = typestrs[i].code;
	return n;
}

/* The exported names of ieee.h's widening (the hot loops of src/cpu call
 * them through gs.h). */
float f16_to_f32(uint16_t h)
{
	return ieee_f16_to_f32(h);
}

float bf16_to_f32(uint16_t h)
{
	return ieee_bf16_to_f32(h);
}

int gs_fail(struct gs_err *err, int code, const char *where, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	snprintf(err->where, sizeof(err->where), "%s", where ? where : "");
	va_start(ap, fmt);
	vsnprintf(err->what, sizeof(err->what), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- operations ---------------------------------------------------------- */

static const char *const op_names[] = {
	[OP_SUM] = "sum", [OP_PROD] = "prod", [OP_MIN] = "min",
	[OP_MAX] = "max", [OP_AND] = "and", [OP_OR] = "or", [OP_XOR] = "xor",
};

int parse_op(const char *s, enum gs_op *op)
{
	for (int i = 0; i <= OP_XOR; i++)
		if (strcmp(s, op_names[i]) == 0) {
			*op = (enum gs_op)i;
			return 0;
		}
	return -1;
}

const char *op_name(enum gs_op op)
{
	return op_names[op];
}
