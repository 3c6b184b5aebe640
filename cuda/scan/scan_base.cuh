/*
 * scan_base.cuh - what every part of the GPU scan shares: the element
 * types (the half types as raw bits), the output formats, the job's
 * configuration as the kernels see it (struct scan_cfg) and the loop
 * unrolling that keeps a value's limbs in registers.
 */
#ifndef SCAN_BASE_CUH
#define SCAN_BASE_CUH

#include <limits.h>
#include <string.h>
#include <type_traits>
#include "exact.cuh"
#include "prod.cuh"
#include "scan_policy.cuh"

/* Unroll the loops over limbs on the device, so that a value's limbs stay
 * in registers (the host check compiles the same code without it). */
#ifdef __CUDA_ARCH__
#define SCAN_UNROLL _Pragma("unroll")
#else
#define SCAN_UNROLL
#endif

#define SCAN_SIGN (1ull << 63)
#define SCAN_NONE (~0ull)

typedef unsigned long long u64;
typedef unsigned __int128 u128;

/* The half types, as raw bits. */
struct scan_f16 { unsigned short v; };
struct scan_bf16 { unsigned short v; };

template <typename T> struct scan_is_float : std::false_type {};
template <> struct scan_is_float<scan_f16> : std::true_type {};
template <> struct scan_is_float<scan_bf16> : std::true_type {};
template <> struct scan_is_float<float> : std::true_type {};
template <> struct scan_is_float<double> : std::true_type {};

/* ---- output formats and the job's configuration ---------------------- */

struct scan_fmt {
	int p;			/* significand bits, hidden bit included */
	int emin, emax;		/* emax is also the bias */
	int width;
	u64 inf, nan;		/* +inf; the NaN the CPU writes (quiet, +) */
};

/* Indexed by enum xfmt (F16, BF16, F32, F64). */
static const struct scan_fmt scan_fmts[] = {
	{ 11, -14, 15, 16, 0x7c00, 0x7e00 },
	{ 8, -126, 127, 16, 0x7f80, 0x7fc0 },
	{ 24, -126, 127, 32, 0x7f800000, 0x7fc00000 },
	{ 53, -1022, 1023, 64, 0x7ff0000000000000ull, 0x7ff8000000000000ull },
};

/* The output format of float type t (host). */
static inline enum xfmt scan_xfmt(enum gs_type t)
{
	switch (t) {
	case GS_F16: return XF_F16;
	case GS_BF16: return XF_BF16;
	case GS_F32: return XF_F32;
	default: return XF_F64;
	}
}

/* What the kernels need to know of the job, fixed at open. */
struct scan_cfg {
	int op;			/* OP_SUM, OP_MIN ... OP_XOR */
	bool excl;
	bool can_fail;		/* an integer scan into an integer type, or a
				 * product (overflow, a bracket that cannot
				 * round) */
	bool ofloat, osigned;
	unsigned osize;		/* bytes of an output element */
	struct scan_fmt fmt;	/* the output's, when ofloat */
	u64 ident;		/* word ops: the empty prefix's word */
	int w;			/* narrow sums: the chunk's window lsb */
};

#endif
