/*
 * The dialect layer of the contract: the few macros that let one text compile as C, C++,
 * CUDA, OpenCL C and GLSL. Every other file of src/contract/ is written against these.
 */
#ifndef IMGHIST_CONTRACT_LANG_H
#define IMGHIST_CONTRACT_LANG_H

#if defined(VULKAN) || defined(GL_core_profile)
/* GLSL: needs GL_EXT_shader_explicit_arithmetic_types_int64 for the general integer path. */
#define IH_GLSL 1
#define IH_FN
#define IH_U32 uint
#define IH_I32 int
#define IH_I64 int64_t
#define IH_U64 uint64_t
#define IH_PRECISE precise
#define IH_FLOAT_BITS(x) floatBitsToUint(x)
#define IH_BITS_FLOAT(x) uintBitsToFloat(x)
#define IH_U(x) uint(x)
#define IH_CAST(T, x) T(x)
#elif defined(__OPENCL_C_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#define IH_FN inline
#define IH_U32 uint
#define IH_I32 int
#define IH_I64 long
#define IH_U64 ulong
#define IH_PRECISE
#define IH_FLOAT_BITS(x) as_uint(x)
#define IH_BITS_FLOAT(x) as_float(x)
#define IH_U(x) x##u
#define IH_CAST(T, x) ((T)(x))
#elif defined(__CUDACC__)
#include <stdint.h>
#define IH_FN static __host__ __device__ __forceinline__
#define IH_U32 uint32_t
#define IH_I32 int32_t
#define IH_I64 int64_t
#define IH_U64 uint64_t
#define IH_PRECISE
#ifdef __CUDA_ARCH__
#define IH_FLOAT_BITS(x) __float_as_uint(x)
#define IH_BITS_FLOAT(x) __uint_as_float(x)
#else
#define IH_FLOAT_BITS(x) ih_float_bits_(x)
#define IH_BITS_FLOAT(x) ih_bits_float_(x)
#endif
#define IH_U(x) x##u
#define IH_CAST(T, x) ((T)(x))
#else /* C / C++: build with -ffp-contract=off */
#include <stdint.h>
#define IH_FN static inline
#define IH_U32 uint32_t
#define IH_I32 int32_t
#define IH_I64 int64_t
#define IH_U64 uint64_t
#define IH_PRECISE
#define IH_FLOAT_BITS(x) ih_float_bits_(x)
#define IH_BITS_FLOAT(x) ih_bits_float_(x)
#define IH_U(x) x##u
#define IH_CAST(T, x) ((T)(x))
#endif

#if !defined(IH_GLSL) && !defined(__OPENCL_C_VERSION__) && !(defined(__CUDACC__) && defined(__CUDA_ARCH__))
#include <string.h>
static inline uint32_t ih_float_bits_(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static inline float ih_bits_float_(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
#endif

/* A plain struct that every dialect declares the same way: IH_STRUCT(name) { ... } IH_END(name) */
#if defined(IH_GLSL)
#define IH_STRUCT(name) struct name
#define IH_END(name) ;
#else
#define IH_STRUCT(name) typedef struct name
#define IH_END(name) name;
#endif

/*
 * The edge keys of edge bins (binning.h, ih_classify_edge_key): a function that reads them takes
 * IH_EDGES_PARAM last, a caller passes IH_EDGES_ARG(keys), and IH_EDGE_KEY(i) reads key i.
 * GLSL has no pointers: a shader that classifies by edges declares its buffer and defines
 * IH_EDGE_KEY(i) itself before including the contract; the parameter is then empty.
 */
#if defined(IH_GLSL)
#define IH_EDGES_PARAM
#define IH_EDGES_ARG(keys)
#elif defined(__OPENCL_C_VERSION__)
#define IH_EDGES_PARAM , __global const uint* ih_edge_keys
#define IH_EDGES_ARG(keys) , keys
#define IH_EDGE_KEY(i) ih_edge_keys[i]
#else
#define IH_EDGES_PARAM , const IH_U32* ih_edge_keys
#define IH_EDGES_ARG(keys) , keys
#define IH_EDGE_KEY(i) ih_edge_keys[i]
#endif

/* Products and sums that must not be contracted into an FMA. */
#if defined(__CUDACC__) && defined(__CUDA_ARCH__)
#define IH_FMUL(a, b) __fmul_rn((a), (b))
#define IH_FADD(a, b) __fadd_rn((a), (b))
#define IH_FSUB(a, b) __fsub_rn((a), (b))
#else
#define IH_FMUL(a, b) ((a) * (b))
#define IH_FADD(a, b) ((a) + (b))
#define IH_FSUB(a, b) ((a) - (b))
#endif

#endif /* IMGHIST_CONTRACT_LANG_H */
