/*
 * unit_types.c - element types, every -t spelling, the half-float
 * conversions (all 65536 patterns against checksums made by Python's struct
 * module in tests/gen_xsum_vectors.py), gs_fail and fmt_double.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "gs.h"
#include "numfmt.h"
#include "xsum_vectors.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void test_basics(void)
{
	static const size_t size[GS_NTYPES] = { 1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8 };
	int t;

	for (t = 0; t < GS_NTYPES; t++) {
		struct gs_dtype d;
		bool ex = true;

		CHECKF(type_size(t) == size[t], "size %d", t);
		CHECKF(type_parse(type_name(t), &d, &ex) == 0 && d.type == (enum gs_type)t &&
		       !d.big_endian && !ex, "name %s", type_name(t));
	}
	CHECK(type_is_float(GS_F16) && type_is_float(GS_BF16) && !type_is_float(GS_I64));
	CHECK(type_is_signed(GS_I8) && type_is_signed(GS_F32) && !type_is_signed(GS_U64));
	CHECK(!strcmp(type_name(GS_BF16), "bf16"));
}

enum { BIG = 1, EXPL = 2 };

static void test_parse(void)
{
	static const struct {
		const char *s;
		int type;	/* -1: must fail */
		int order;	/* BIG, EXPL */
	} cases[] = {
		{ "u8", GS_U8, 0 }, { "i8", GS_I8, 0 }, { "f64", GS_F64, 0 }, { "bf16", GS_BF16, 0 },
		{ "uint8", GS_U8, 0 }, { "int8", GS_I8, 0 }, { "uint16", GS_U16, 0 },
		{ "int16", GS_I16, 0 }, { "uint32", GS_U32, 0 }, { "int32", GS_I32, 0 },
		{ "uint64", GS_U64, 0 }, { "int64", GS_I64, 0 }, { "float16", GS_F16, 0 },
		{ "float32", GS_F32, 0 }, { "float64", GS_F64, 0 }, { "bfloat16", GS_BF16, 0 },
		{ "half", GS_F16, 0 }, { "single", GS_F32, 0 }, { "double", GS_F64, 0 },
		{ "byte", GS_I8, 0 }, { "ubyte", GS_U8, 0 },
		{ "f2", GS_F16, 0 }, { "f4", GS_F32, 0 }, { "f8", GS_F64, 0 }, { "u1", GS_U8, 0 },
		{ "i1", GS_I8, 0 }, { "u2", GS_U16, 0 }, { "i4", GS_I32, 0 },
		{ "<f4", GS_F32, EXPL }, { ">f4", GS_F32, BIG | EXPL },
		{ ">i2", GS_I16, BIG | EXPL }, { "|u1", GS_U8, 0 },
		{ "<u8", GS_U64, EXPL }, { ">i8", GS_I64, BIG | EXPL },
		{ "<f8", GS_F64, EXPL }, { "|i1", GS_I8, 0 }, { ">u4", GS_U32, BIG | EXPL },
		{ ">f2", GS_F16, BIG | EXPL }, { ">bf16", GS_BF16, BIG | EXPL },
		{ "=u2", GS_U16, EXPL },
		/* numpy's names and codes: np.dtype(s).str in numpy 2.4 */
		{ "float", GS_F64, 0 }, { "d", GS_F64, 0 }, { "double", GS_F64, 0 },
		{ "f", GS_F32, 0 }, { "single", GS_F32, 0 }, { "half", GS_F16, 0 },
		{ "e", GS_F16, 0 }, { "int", GS_I64, 0 }, { "l", GS_I64, 0 },
		{ "q", GS_I64, 0 }, { "longlong", GS_I64, 0 }, { "int_", GS_I64, 0 },
		{ "intp", GS_I64, 0 }, { "long", GS_I64, 0 }, { "uint", GS_U64, 0 },
		{ "uintp", GS_U64, 0 }, { "ulong", GS_U64, 0 }, { "ulonglong", GS_U64, 0 },
		{ "b", GS_I8, 0 }, { "B", GS_U8, 0 }, { "h", GS_I16, 0 }, { "H", GS_U16, 0 },
		{ "i", GS_I32, 0 }, { "I", GS_U32, 0 }, { "L", GS_U64, 0 }, { "Q", GS_U64, 0 },
		{ "p", GS_I64, 0 }, { "P", GS_U64, 0 }, { "byte", GS_I8, 0 },
		{ "ubyte", GS_U8, 0 }, { "short", GS_I16, 0 }, { "ushort", GS_U16, 0 },
		{ "intc", GS_I32, 0 }, { "uintc", GS_U32, 0 }, { "bool", GS_U8, 0 },
		{ "?", GS_U8, 0 }, { "bool_", GS_U8, 0 }, { "b1", GS_U8, 0 },
		{ "<b1", GS_U8, 0 }, { "|b1", GS_U8, 0 }, { ">?", GS_U8, 0 },
		{ "=?", GS_U8, 0 }, { ">d", GS_F64, BIG | EXPL }, { "<e", GS_F16, EXPL },
		{ ">l", GS_I64, BIG | EXPL }, { ">q", GS_I64, BIG | EXPL },
		{ "<f", GS_F32, EXPL }, { "=f4", GS_F32, EXPL }, { ">b", GS_I8, 0 },
		{ ">B", GS_U8, 0 }, { ">u1", GS_U8, 0 }, { "|f4", GS_F32, 0 },
		{ "=u8", GS_U64, EXPL }, { ">u8", GS_U64, BIG | EXPL },
		/* numpy rejects these too */
		{ "float_", -1, 0 }, { "int0", -1, 0 }, { "bool8", -1, 0 }, { "u", -1, 0 },
		{ "longdouble", -1, 0 }, { "g", -1, 0 }, { "complex", -1, 0 },
		{ "", -1, 0 }, { "<", -1, 0 }, { "u3", -1, 0 }, { "f1", -1, 0 },
		{ "<f16x", -1, 0 }, { "float128", -1, 0 },
		/* numpy: '<f16' is float128, '<float32' and '>half' no dtype */
		{ "<f16", -1, 0 }, { ">f16", -1, 0 }, { "=f16", -1, 0 },
		{ "<float32", -1, 0 }, { ">half", -1, 0 }, { ">bool", -1, 0 },
		{ "<i16", -1, 0 }, { ">int", -1, 0 }, { "F32", -1, 0 }, { "f32 ", -1, 0 },
		{ "<<f4", -1, 0 }, { "i16le", -1, 0 },
	};
	unsigned i;

	for (i = 0; i < NELEM(cases); i++) {
		struct gs_dtype d = { GS_U8, true, false };
		bool big = cases[i].order & BIG, expl = cases[i].order & EXPL;
		bool ex = !expl;
		int rc = type_parse(cases[i].s, &d, &ex);

		if (cases[i].type < 0) {
			CHECKF(rc == -1, "\"%s\" accepted", cases[i].s);
			continue;
		}
		CHECKF(rc == 0 && d.type == (enum gs_type)cases[i].type &&
		       d.big_endian == big && ex == expl,
		       "\"%s\": rc %d type %d big %d explicit %d", cases[i].s, rc,
		       d.type, d.big_endian, ex);
	}
	{
		struct gs_dtype d;

		CHECK(type_parse(">f4", &d, NULL) == 0 && d.big_endian);
	}
}

/* As in gen_xsum_vectors.py: FNV-1a 64 over little-endian 32-bit words. */
static uint64_t fnv(uint64_t h, uint32_t w)
{
	int k;

	for (k = 0; k < 4; k++) {
		h ^= (w >> (8 * k)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint32_t word(float f)
{
	uint32_t u;

	if (isnan(f))
		return 0xffffffff;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static void test_halves(void)
{
	uint64_t h16 = 0xcbf29ce484222325ull, hbf = h16;
	uint32_t h;

	for (h = 0; h < 65536; h++) {
		h16 = fnv(h16, word(f16_to_f32((uint16_t)h)));
		hbf = fnv(hbf, word(bf16_to_f32((uint16_t)h)));
	}
	CHECK(h16 == XV_F16_FNV);
	CHECK(hbf == XV_BF16_FNV);
	CHECK(f16_to_f32(0x0001) == 0x1p-24f);
	CHECK(f16_to_f32(0x03ff) == 0x3ffp-24f);
	CHECK(f16_to_f32(0x7bff) == 65504.0f);
	CHECK(f16_to_f32(0x3c00) == 1.0f);
	CHECK(f16_to_f32(0xfc00) == -INFINITY);
	CHECK(word(f16_to_f32(0x8000)) == 0x80000000u);
	CHECK(word(f16_to_f32(0x8001)) == word(-0x1p-24f));
	CHECK(isnan(f16_to_f32(0x7e00)) && isnan(f16_to_f32(0xfc01)));
	CHECK(bf16_to_f32(0x3f80) == 1.0f && bf16_to_f32(0x0001) == 0x1p-133f);
	CHECK(isnan(bf16_to_f32(0x7fc1)) && bf16_to_f32(0xff80) == -INFINITY);
}

static void test_fail(void)
{
	struct gs_err err;
	char longw[400];

	CHECK(gs_fail(&err, GS_EUSAGE, "x.f32", "bad %s at %d", "thing", 7) == -1);
	CHECK(err.code == GS_EUSAGE && !strcmp(err.where, "x.f32") &&
	      !strcmp(err.what, "bad thing at 7"));
	CHECK(gs_fail(&err, GS_ERUNTIME, NULL, "no where") == -1 && err.where[0] == '\0');
	memset(longw, 'a', sizeof(longw) - 1);
	longw[sizeof(longw) - 1] = '\0';
	gs_fail(&err, GS_ERUNTIME, longw, "%s", longw);
	CHECK(strlen(err.where) == sizeof(err.where) - 1);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_fmt(void)
{
	static const struct {
		double v;
		const char *s;
	} cases[] = {
		{ 0.1, "0.1" }, { 1e100, "1e+100" }, { 3, "3" }, { -0.0, "-0" },
		{ 0.0, "0" }, { 5e-324, "5e-324" }, { NAN, "nan" }, { -NAN, "nan" },
		{ INFINITY, "inf" }, { -INFINITY, "-inf" }, { 1.0 / 3, "0.3333333333333333" },
		{ 0.30000000000000004, "0.30000000000000004" }, { 123456789, "123456789" },
		{ 1.7976931348623157e308, "1.7976931348623157e+308" }, { -2.5, "-2.5" },
		{ 9007199254740993.0, "9007199254740992" }, { 1e21, "1e+21" }, { 1e-7, "1e-07" },
		{ 100, "100" }, { 1e15, "1000000000000000" }, { 1e16, "1e+16" },
		{ 1.5e16, "1.5e+16" }, { 0.0001, "0.0001" }, { 1e-5, "1e-05" },
		{ 1234.5, "1234.5" }, { -0.00012345, "-0.00012345" },
		{ 0x1p-24, "5.960464477539063e-08" },
	};
	char buf[FMT_DOUBLE_MAX], small[4];
	uint64_t s = 88172645463325252ull;
	unsigned i, bad = 0;

	for (i = 0; i < NELEM(cases); i++) {
		int n = fmt_double(buf, sizeof(buf), cases[i].v);

		CHECKF(!strcmp(buf, cases[i].s) && n == (int)strlen(buf), "%s", buf);
	}
	CHECK(fmt_double(small, sizeof(small), -1.5e300) == 9 && !strcmp(small, "-1."));
	CHECK(fmt_double(small, sizeof(small), 12345.0) == 5 && !strcmp(small, "123"));
	/* random patterns read back, and one digit fewer would not */
	for (i = 0; i < 50000; i++) {
		uint64_t u = rnd(&s);
		double v, back;
		char shorter[400];
		const char *c = buf;
		int n, p;

		memcpy(&v, &u, sizeof(v));
		if (!isfinite(v))
			continue;
		n = fmt_double(buf, sizeof(buf), v);
		back = strtod(buf, NULL);
		/* significant digits: leading zeros do not count */
		while (*c == '-' || *c == '0' || *c == '.')
			c++;
		for (p = 0; *c && *c != 'e'; c++)
			p += *c != '.';
		/* "1200" has two significant digits */
		if (!strchr(buf, '.') && !strchr(buf, 'e'))
			for (c = buf + strlen(buf) - 1; p > 1 && *c == '0'; c--)
				p--;
		if (p > 1) {
			snprintf(shorter, sizeof(shorter), "%.*g", p - 1, v);
			bad += strtod(shorter, NULL) == v;
		}
		bad += memcmp(&back, &v, sizeof(v)) != 0 || n >= FMT_DOUBLE_MAX;
	}
	CHECKF(bad == 0, "%u bad", bad);
}

/* The list an unknown -t prints: every word in it that looks like a type
 * parses, and it fits the CLI's 400-byte buffer. */
static void test_list(void)
{
	char buf[1024], *w, *save;
	size_t n = type_list(buf, sizeof(buf));
	int words = 0;

	CHECKF(n == strlen(buf) && n < 400, "type_list: %zu bytes", n);
	for (w = strtok_r(buf, " ,;", &save); w; w = strtok_r(NULL, " ,;", &save)) {
		struct gs_dtype d;

		if (!strcmp(w, "or") || !strcmp(w, "typestrings") || !strcmp(w, "like"))
			continue;
		CHECKF(type_parse(w, &d, NULL) == 0, "listed '%s' does not parse", w);
		words++;
	}
	CHECKF(words > 60, "type_list: %d names", words);
}

/* -t lists: each name as type_parse reads it, packed offsets, the name
 * back, and where a bad one is. */
static void test_record(void)
{
	struct gs_record r, q;
	size_t at, len;
	char buf[64];

	CHECK(record_parse("i32,<f4,>i2,bool,u8", &r, &at, &len) == 0);
	CHECK(r.n == 5 && r.size == 12);
	CHECK(r.off[0] == 0 && r.off[1] == 4 && r.off[2] == 8 &&
	      r.off[3] == 10 && r.off[4] == 11);
	CHECK(r.type[1].type == GS_F32 && !r.type[1].big_endian && r.endian[1]);
	CHECK(r.type[2].type == GS_I16 && r.type[2].big_endian && r.endian[2]);
	CHECK(!r.endian[0] && r.type[3].boolean && !r.type[4].boolean);
	CHECK(!strcmp(record_name(&r, buf, sizeof(buf)), "i32,f32,>i16,bool,u8"));
	CHECK(record_parse("int32,float32,int16,?,B", &q, &at, &len) == 0);
	q.type[2].big_endian = true;
	CHECK(record_same(&r, &q));
	q.off[4]++;
	CHECK(!record_same(&r, &q));
	CHECK(record_parse("i32,f33,u8", &r, &at, &len) < 0 && at == 4 && len == 3);
	CHECK(record_parse("i32,,u8", &r, &at, &len) < 0 && at == 4 && len == 0);
	CHECK(record_parse("i32,", &r, &at, &len) < 0 && at == 4 && len == 0);
}

int main(void)
{
	test_record();
	test_basics();
	test_parse();
	test_list();
	test_halves();
	test_fail();
	test_fmt();
	UNIT_END();
}
