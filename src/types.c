/*
 * types.c - element types (sizes, names, the spellings -t accepts), exact
 * conversion of the 16-bit float types, and gs_fail().
 *
 * Spellings: our names (u8 ... f64, bf16), numpy names (uint8, float32,
 * half, single, double, byte, ubyte, bfloat16) and numpy typestrings (a kind
 * letter i/u/f and a byte count, e.g. "f4", "<f4", ">i2", "|u1"). A bare
 * "u8"/"i8" is ours (8 bits); after a byte-order mark it is numpy's (8
 * bytes). '<' and '>' are explicit byte orders; '|' and '=' mean native.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "gs.h"

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

static const struct {
	const char *name;
	enum gs_type type;
} aliases[] = {
	{ "uint8", GS_U8 }, { "int8", GS_I8 }, { "uint16", GS_U16 },
	{ "int16", GS_I16 }, { "uint32", GS_U32 }, { "int32", GS_I32 },
	{ "uint64", GS_U64 }, { "int64", GS_I64 }, { "float16", GS_F16 },
	{ "float32", GS_F32 }, { "float64", GS_F64 }, { "bfloat16", GS_BF16 },
	{ "half", GS_F16 }, { "single", GS_F32 }, { "double", GS_F64 },
	{ "byte", GS_I8 }, { "ubyte", GS_U8 },
};

/* numpy typestring body: kind letter and byte count ("f4", "u1"). */
static int parse_typestr(const char *s, enum gs_type *t)
{
	static const char *const codes[GS_NTYPES] = {
		[GS_U8] = "u1", [GS_I8] = "i1", [GS_U16] = "u2", [GS_I16] = "i2",
		[GS_U32] = "u4", [GS_I32] = "i4", [GS_U64] = "u8", [GS_I64] = "i8",
		[GS_F16] = "f2", [GS_BF16] = NULL, [GS_F32] = "f4", [GS_F64] = "f8",
	};
	int i;

	for (i = 0; i < GS_NTYPES; i++) {
		if (codes[i] && !strcmp(s, codes[i])) {
			*t = (enum gs_type)i;
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
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		if (!strcmp(s, aliases[i].name)) {
			*t = aliases[i].type;
			return 0;
		}
	}
	return -1;
}

int type_parse(const char *s, struct gs_dtype *out, bool *explicit_endian)
{
	bool order = *s && strchr("<>|=", *s);
	enum gs_type t;

	if (!order && (!parse_name(s, &t) || !parse_typestr(s, &t))) {
		out->type = t;
		out->big_endian = false;
		if (explicit_endian)
			*explicit_endian = false;
		return 0;
	}
	if (!order || (parse_typestr(s + 1, &t) && parse_name(s + 1, &t)))
		return -1;
	out->type = t;
	out->big_endian = *s == '>';
	if (explicit_endian)
		*explicit_endian = *s == '<' || *s == '>';
	return 0;
}

static float f32_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Subnormal halves are m * 2^-24: exact as a float product. NaN payloads
 * move to the top of the float's fraction, as hardware does. */
float f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f;
	uint32_t m = h & 0x3ff;
	float sub;

	if (e == 0x1f)
		return f32_from_bits(sign | 0x7f800000 | m << 13);
	if (e)
		return f32_from_bits(sign | (e + 112) << 23 | m << 13);
	sub = (float)m * 0x1p-24f;
	return sign ? -sub : sub;
}

/* bfloat16 is the top half of a float. */
float bf16_to_f32(uint16_t h)
{
	return f32_from_bits((uint32_t)h << 16);
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
