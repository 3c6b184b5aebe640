/*
 * dtype.cuh - the element types of the kernels: the C++ type of each enum
 * gs_type, the IEEE fields of the float ones, and the one dispatch from a
 * job's type to a kernel template.
 *
 * The half types are read as raw bits (f16_bits, bf16_bits) and decoded
 * exactly, never through the device's half arithmetic, so that every
 * kernel sees the values the CPU sees. What an element is as an exact term,
 * a double or bits is exact.cuh's (exact_elem, exact_elem_f64,
 * exact_elem_bits): a kernel with no exact sums (hist) includes this file
 * alone. dtype_dispatch() is the only switch over enum gs_type in the
 * kernel files: each command's launcher is a template on the element type,
 * called once per type from there.
 */
#ifndef DTYPE_CUH
#define DTYPE_CUH

#include <type_traits>
#include "fkeys.h"
#include "gpu.h"

/* The half types, as they lie in memory. */
struct f16_bits { unsigned short v; };
struct bf16_bits { unsigned short v; };

template <typename T> struct dtype_is_float : std::false_type {};
template <> struct dtype_is_float<f16_bits> : std::true_type {};
template <> struct dtype_is_float<bf16_bits> : std::true_type {};
template <> struct dtype_is_float<float> : std::true_type {};
template <> struct dtype_is_float<double> : std::true_type {};

/* The IEEE fields of the float types: significand bits p (hidden bit
 * included), width w, the all-ones exponent field emax, and bias + p - 1
 * (the exponent of the last significand bit is the field less bias_p). */
template <typename T> struct dtype_fmt;
template <> struct dtype_fmt<f16_bits> { enum { p = 11, w = 16, emax = 0x1f, bias_p = 25 }; };
template <> struct dtype_fmt<bf16_bits> { enum { p = 8, w = 16, emax = 0xff, bias_p = 134 }; };
template <> struct dtype_fmt<float> { enum { p = 24, w = 32, emax = 0xff, bias_p = 150 }; };
template <> struct dtype_fmt<double> { enum { p = 53, w = 64, emax = 0x7ff, bias_p = 1075 }; };
/* The unsigned integer that holds a float type's bits (32 of them for the
 * types up to 4 bytes). */
template <typename T>
using dtype_bits = typename std::conditional<sizeof(T) == 8,
		unsigned long long, unsigned>::type;

/* An empty value that names a type: dtype_dispatch's argument. */
template <typename T> struct dtype_tag { typedef T type; };
/* The element type of a dtype_tag parameter (in a generic lambda). */
#define DTYPE_OF(tag) typename decltype(tag)::type

/*
 * fn(dtype_tag<T>{}) for the C++ type T of element type t; an unknown type
 * is cudaErrorInvalidValue (every supports() refuses it first). Called as
 *   return dtype_dispatch(t, [&](auto tag) {
 *           return my_launch<DTYPE_OF(tag)>(...); });
 * so that each launcher template is instantiated for the twelve types.
 */
template <typename Fn>
static inline cudaError_t dtype_dispatch(enum gs_type t, Fn &&fn)
{
	switch (t) {
	case GS_U8: return fn(dtype_tag<unsigned char>{});
	case GS_I8: return fn(dtype_tag<signed char>{});
	case GS_U16: return fn(dtype_tag<unsigned short>{});
	case GS_I16: return fn(dtype_tag<short>{});
	case GS_U32: return fn(dtype_tag<unsigned>{});
	case GS_I32: return fn(dtype_tag<int>{});
	case GS_U64: return fn(dtype_tag<unsigned long long>{});
	case GS_I64: return fn(dtype_tag<long long>{});
	case GS_F16: return fn(dtype_tag<f16_bits>{});
	case GS_BF16: return fn(dtype_tag<bf16_bits>{});
	case GS_F32: return fn(dtype_tag<float>{});
	case GS_F64: return fn(dtype_tag<double>{});
	default: return cudaErrorInvalidValue;
	}
}

#endif
