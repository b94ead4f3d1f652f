// cupar JIT: prelude of every kernel set compiled with NVRTC (at library build time for the
// precompiled element types, at run time for the others).
#pragma once

#if defined(__CUDACC_RTC__) && !defined(CUB_RUNTIME_FUNCTION)
// CUB's tuning headers mark host-side helpers CUB_RUNTIME_FUNCTION, which is host-only unless
// relocatable device code is on; NVRTC rejects host-only functions, so make them host-device.
#define CUB_RUNTIME_FUNCTION __host__ __device__
#endif

#if defined(__CUDACC_RTC__)
// Device-runtime intrinsics CUB uses (cudaGridDependencySynchronize for programmatic dependent
// launch), which NVRTC declares by itself only for relocatable device code.
#include <cuda_device_runtime_api.h>
#endif

#include <cub/thread/thread_reduce.cuh>
#include <cub/thread/thread_scan.cuh>
#include <cub/util_device.cuh>

#if defined(__CUDACC_RTC__)
// CCCL 3.0.1 defines cub::detail::PolicyWrapper only for host compilers, yet CUB's tuning headers
// name it in host-side helpers NVRTC still parses; give them the same (never called) wrapper.
CUB_NAMESPACE_BEGIN
namespace detail {
template <typename Policy, typename = void>
struct PolicyWrapper : Policy {
  __host__ __device__ PolicyWrapper(Policy base) : Policy(base) {}
};
template <typename Policy>
__host__ __device__ PolicyWrapper<Policy> MakePolicyWrapper(Policy policy) {
  return PolicyWrapper<Policy>{policy};
}
}  // namespace detail
CUB_NAMESPACE_END
#endif

#ifndef CUPAR_STATE_BYTES
#define CUPAR_STATE_BYTES 64
#endif

/// The operator's run-time parameters, passed by value to every kernel.
struct alignas(16) cupar_op_state {
  unsigned char bytes[CUPAR_STATE_BYTES];
};

/// The same parameters as the out-of-line (tier-1) kernels hold them: a union of the bytes and
/// 16-byte words, same size, alignment and layout. The out-of-line operator takes the state by
/// address, so every copy of a functor that CUB makes (one per step of a warp reduction, for
/// instance) is stored to local memory; as bytes that copy is 64 one-byte stores, as words 4.
/// The set source (codegen.cpp, set_source) names the form a build uses `cupar_functor_state`:
/// words in the relocatable cubin (CUPAR_OUT_OF_LINE), bytes in the LTO-IR, whose optimised
/// links inline the operator and keep the registers they were tuned with.
static_assert(CUPAR_STATE_BYTES % 16 == 0, "the state is made of 16-byte words");
struct alignas(16) cupar_op_words {
  union {
    unsigned char bytes[CUPAR_STATE_BYTES];
    uint4 words[CUPAR_STATE_BYTES / 16];
  };
};

/// The parameters as the out-of-line (tier-1) kernels of the families that take them by
/// reference hold them (family records' states_by_reference, CUPAR_STATE_BY_REFERENCE): the
/// address of a device copy of the 64 bytes that the call wrote before its kernels
/// (kernel_states, src/jit/core/calls.hpp), in a block of the same size, so the kernels'
/// parameters keep their layout. A functor holding it copies as one pointer: none of the copies
/// CUB makes of a functor is stored to local memory (with the bytes, every copy whose address the
/// out-of-line operator took was: 64 bytes stored and loaded per copy, most of a tier-1 scan's
/// local-memory traffic).
struct alignas(16) cupar_op_ref {
  const unsigned char* bytes;
  unsigned char unused[CUPAR_STATE_BYTES - sizeof(const unsigned char*)];
};

// Also written into operator sources linked with precompiled sets (codegen.cpp,
// storage_definition): keep the two the same.
#ifndef CUPAR_STORAGE_DEFINED
#define CUPAR_STORAGE_DEFINED
/// The unsigned word type of a size.
template <int Bytes>
struct cupar_word;
template <>
struct cupar_word<1> {
  typedef unsigned char type;
};
template <>
struct cupar_word<2> {
  typedef unsigned short type;
};
template <>
struct cupar_word<4> {
  typedef unsigned int type;
};
template <>
struct cupar_word<8> {
  typedef unsigned long long type;
};

/// Opaque storage for values a kernel only moves (sort payloads), as words of its alignment (up to
/// 8 bytes): a struct of bytes is moved byte by byte in places, which made a merge sort with
/// 4-byte payloads 1.17-1.29x slower (docs/probes/midsize.cu).
template <int Size, int Align>
struct alignas(Align) cupar_storage {
  typename cupar_word<(Align > 8 ? 8 : Align)>::type words[Size / (Align > 8 ? 8 : Align)];
};
#endif

/// An initial value of reduce and the scans (CUB's InitT / InitValueT): `value`, or, when `from`
/// is not null, the value at `from` in device memory, read when the kernel runs
/// (cupar::device_value: a result of an earlier kernel on the stream, without a trip to the
/// host). The host writes the same layout: the value at offset 0, the pointer at the value's
/// size rounded up to 8 (jit_init_value in src/jit/core/launch.hpp).
template <class T>
struct cupar_init {
  typedef T value_type;
  T value;
  const T* from;
  __device__ __forceinline__ operator T() const { return from != nullptr ? *from : value; }
};

/// Carries compile-time facts about a kernel set to the host: its template arguments appear in
/// the lowered (mangled) name NVRTC reports for an instantiation of this empty kernel.
template <long long... Values>
__global__ void cupar_meta() {}

// --- batched operator calls of the out-of-line (tier-1) kernels ---------------------------------
// CUB's agents reduce a thread's items with cub::ThreadReduce and block scans scan them with
// cub::internal::ThreadScanInclusive / ThreadScanExclusive, which call the operator once per
// item. In the out-of-line kernels each such call is a call across the link that clobbers the
// registers holding the other items (the tier-1 kernels ran at 0.07-0.5 of the inlined ones).
// The overloads below, more specialised than CUB's, make one call per eight (or four) items
// instead for a functor that opts in: a specialisation F<K> of a class template whose
// `cupar_batched` is true (the families' functors in a compile with CUPAR_OUT_OF_LINE), with
// `cupar_fold_width` (8 or 4) and members fold8 / fold4(acc, x0, ...)
// (CUPAR_OPERATOR_FOLD_MEMBERS), which pass the items by value to the operator's batched forms
// (codegen.cpp, batch_functions; the operator is inlined there). Through local memory (a pointer to
// the items) the batches ran 1.6x slower than a call per item (docs/PERFORMANCE_NOTES.md). The
// thread scans get their chunk's results back by value (cupar_items: registers for up to eight
// words). The order of the operations is CUB's for an operator it does not know (sequential), so
// the results are the inlined build's bit for bit. They are declared here, before any CUB agent or
// block scan is parsed (the calls name cub:: and internal:: explicitly, so only declarations
// visible there count), and do not depend on the set, so the precompile tool's shared prefix may
// hold them.
template <class F, class = void>
struct cupar_batched_functor : ::cuda::std::false_type {};
template <class F>
struct cupar_batched_functor<F, ::cuda::std::void_t<decltype(F::cupar_batched)>>
    : ::cuda::std::integral_constant<bool, F::cupar_batched> {};

/// J, or N - 1 past the end of an array of N items: a compile-time index for a batch's unused
/// slots.
template <int J, int N>
__device__ __forceinline__ constexpr int cupar_clamp() {
  return J < N ? J : N - 1;
}

/// acc op items[I] op ... op items[N-1], left to right: chunks of F::cupar_fold_width items by
/// value (one out-of-line call of the operator's fold each, no local memory), the rest one call
/// per item. The indices are constants once unrolled, so the items stay in registers.
template <int I, int N, class F, class T>
__device__ __forceinline__ T cupar_fold_items(const F& op, T acc, const T (&items)[N]) {
  constexpr int W = F::cupar_fold_width;
  if constexpr (W == 8 && I + 8 <= N) {
    acc = op.fold8(acc, items[I], items[I + 1], items[I + 2], items[I + 3], items[I + 4],
                   items[I + 5], items[I + 6], items[I + 7]);
    return cupar_fold_items<I + 8, N>(op, acc, items);
  } else if constexpr (W == 4 && I + 4 <= N) {
    acc = op.fold4(acc, items[I], items[I + 1], items[I + 2], items[I + 3]);
    return cupar_fold_items<I + 4, N>(op, acc, items);
  } else if constexpr (W == 8 && I + 2 <= N) {
    // The last two to seven items in one call (the slots past the end repeat the last item and
    // are not folded).
    return op.fold_upto8(acc, items[I], items[cupar_clamp<I + 1, N>()],
                         items[cupar_clamp<I + 2, N>()], items[cupar_clamp<I + 3, N>()],
                         items[cupar_clamp<I + 4, N>()], items[cupar_clamp<I + 5, N>()],
                         items[cupar_clamp<I + 6, N>()], items[cupar_clamp<I + 7, N>()], N - I);
  } else if constexpr (W == 4 && I + 2 <= N) {
    return op.fold_upto4(acc, items[I], items[cupar_clamp<I + 1, N>()],
                         items[cupar_clamp<I + 2, N>()], items[cupar_clamp<I + 3, N>()], N - I);
  } else if constexpr (I < N) {
    acc = op(acc, items[I]);
    return cupar_fold_items<I + 1, N>(op, acc, items);
  } else {
    return acc;
  }
}

/// N values returned by value from an out-of-line call (a thread scan's chunk): up to 8 words
/// come back in registers under the call ABI (sm_90: eight floats or four doubles do; arguments
/// and results beyond about 12 words go through local memory).
#ifndef CUPAR_ITEMS_DEFINED
#define CUPAR_ITEMS_DEFINED
template <class T, int N>
struct cupar_items {
  T v[N];
};
#endif

/// The out-of-line folds and scans of the operator slot cupar_jit_op on T (generated beside the
/// operator: codegen.cpp, batch_functions), and the members of a functor with `state` that call
/// them: the reduce and scan families' functors expand both where their cupar_T is known.
#define CUPAR_OPERATOR_FOLDS_DECLARE(T)                                                            \
  extern "C" __device__ T cupar_jit_op_fold8(const unsigned char*, T, T, T, T, T, T, T, T, T);     \
  extern "C" __device__ T cupar_jit_op_fold4(const unsigned char*, T, T, T, T, T);                 \
  extern "C" __device__ T cupar_jit_op_fold_upto8(const unsigned char*, T, T, T, T, T, T, T, T, T, \
                                                  int);                                            \
  extern "C" __device__ T cupar_jit_op_fold_upto4(const unsigned char*, T, T, T, T, T, int);       \
  extern "C" __device__ T cupar_jit_op_warp_reduce(const unsigned char*, T);                       \
  extern "C" __device__ T cupar_jit_op_warp_reduce_partial(const unsigned char*, T, int);          \
  extern "C" __device__ cupar_items<T, 8> cupar_jit_op_scan8(const unsigned char*, T, T, T, T, T,  \
                                                             T, T, T, T);                          \
  extern "C" __device__ cupar_items<T, 4> cupar_jit_op_scan4(const unsigned char*, T, T, T, T, T); \
  extern "C" __device__ cupar_items<T, 8> cupar_jit_op_scan_upto8(const unsigned char*, T, T, T,   \
                                                                  T, T, T, T, T, T, int);          \
  extern "C" __device__ cupar_items<T, 4> cupar_jit_op_scan_upto4(const unsigned char*, T, T, T,   \
                                                                  T, T, int);                      \
  extern "C" __device__ T cupar_jit_op_warp_scan(const unsigned char*, T);                         \
  extern "C" __device__ T cupar_jit_op_warp_tail_reduce(const unsigned char*, T, int);
#define CUPAR_OPERATOR_FOLD_MEMBERS(T)                                                           \
  static constexpr bool cupar_batched = true;                                                    \
  /* Eight 4-byte items, or four wider ones, as parameters: registers under the call ABI. */     \
  static constexpr int cupar_fold_width = sizeof(T) <= 4 ? 8 : 4;                                \
  /* A scan's chunk comes back by value too: eight 4-byte or four 8-byte results, else none. */  \
  static constexpr int cupar_scan_width = sizeof(T) <= 4 ? 8 : (sizeof(T) <= 8 ? 4 : 0);         \
  __device__ __forceinline__ T fold8(T acc, T x0, T x1, T x2, T x3, T x4, T x5, T x6, T x7)      \
      const {                                                                                    \
    return cupar_jit_op_fold8(state.bytes, acc, x0, x1, x2, x3, x4, x5, x6, x7);                 \
  }                                                                                              \
  __device__ __forceinline__ T fold4(T acc, T x0, T x1, T x2, T x3) const {                      \
    return cupar_jit_op_fold4(state.bytes, acc, x0, x1, x2, x3);                                 \
  }                                                                                              \
  /* The first m items only (0 <= m <= 8, or 4). */                                              \
  __device__ __forceinline__ T fold_upto8(T acc, T x0, T x1, T x2, T x3, T x4, T x5, T x6, T x7, \
                                          int m) const {                                         \
    return cupar_jit_op_fold_upto8(state.bytes, acc, x0, x1, x2, x3, x4, x5, x6, x7, m);         \
  }                                                                                              \
  __device__ __forceinline__ T fold_upto4(T acc, T x0, T x1, T x2, T x3, int m) const {          \
    return cupar_jit_op_fold_upto4(state.bytes, acc, x0, x1, x2, x3, m);                         \
  }                                                                                              \
  __device__ __forceinline__ cupar_items<T, 8> scan8(T acc, T x0, T x1, T x2, T x3, T x4, T x5,  \
                                                     T x6, T x7) const {                         \
    return cupar_jit_op_scan8(state.bytes, acc, x0, x1, x2, x3, x4, x5, x6, x7);                 \
  }                                                                                              \
  __device__ __forceinline__ cupar_items<T, 4> scan4(T acc, T x0, T x1, T x2, T x3) const {      \
    return cupar_jit_op_scan4(state.bytes, acc, x0, x1, x2, x3);                                 \
  }                                                                                              \
  /* The first m running values only (the rest unspecified). */                                  \
  __device__ __forceinline__ cupar_items<T, 8> scan_upto8(T acc, T x0, T x1, T x2, T x3, T x4,   \
                                                          T x5, T x6, T x7, int m) const {       \
    return cupar_jit_op_scan_upto8(state.bytes, acc, x0, x1, x2, x3, x4, x5, x6, x7, m);         \
  }                                                                                              \
  __device__ __forceinline__ cupar_items<T, 4> scan_upto4(T acc, T x0, T x1, T x2, T x3, int m)  \
      const {                                                                                    \
    return cupar_jit_op_scan_upto4(state.bytes, acc, x0, x1, x2, x3, m);                         \
  }                                                                                              \
  /* The look-back's tail-segmented warp reduction, the later lane's value first. */             \
  __device__ __forceinline__ T warp_tail_reduce(T x, int last) const {                           \
    return cupar_jit_op_warp_tail_reduce(state.bytes, x, last);                                  \
  }

/// A chunk's M running values into out[I..I + M): as they are (inclusive), or one place on with
/// `before`, the running value before the chunk, first (exclusive).
template <bool Exclusive, int I, int M, class T, int N, int K>
__device__ __forceinline__ void cupar_store_running(T (&out)[N], const T& before,
                                                    const T (&running)[K]) {
  static_assert(M <= K && I + M <= N, "a chunk within both arrays");
  if constexpr (Exclusive) {
    out[I] = before;
#pragma unroll
    for (int k = 1; k < M; ++k)
      out[I + k] = running[k - 1];
  } else {
#pragma unroll
    for (int k = 0; k < M; ++k)
      out[I + k] = running[k];
  }
}

/// The running value acc op items[I] op ... written to out[I], ... (inclusive) or out[I + 1],
/// ... (exclusive: out[I] = acc before item I) up to item N - 1, in chunks of
/// F::cupar_scan_width items by value (one out-of-line call each, results in registers), the
/// rest one call per item; returns acc op items[I] op ... op items[N - 1]. `items` and `out`
/// may be the same array: a chunk's items are read before its results are written.
template <bool Exclusive, int I, int N, class F, class T>
__device__ __forceinline__ T cupar_scan_items(const F& op, T acc, const T (&items)[N],
                                              T (&out)[N]) {
  constexpr int W = F::cupar_scan_width;
  if constexpr (W == 8 && I + 8 <= N) {
    const cupar_items<T, 8> r = op.scan8(acc, items[I], items[I + 1], items[I + 2], items[I + 3],
                                         items[I + 4], items[I + 5], items[I + 6], items[I + 7]);
    cupar_store_running<Exclusive, I, 8>(out, acc, r.v);
    return cupar_scan_items<Exclusive, I + 8, N>(op, r.v[7], items, out);
  } else if constexpr (W >= 4 && I + 4 <= N) {
    const cupar_items<T, 4> r = op.scan4(acc, items[I], items[I + 1], items[I + 2], items[I + 3]);
    cupar_store_running<Exclusive, I, 4>(out, acc, r.v);
    return cupar_scan_items<Exclusive, I + 4, N>(op, r.v[3], items, out);
  } else if constexpr (W >= 4 && I + 2 <= N) {
    // The last two to W - 1 items in one call (scan_upto: the first N - I running values).
    constexpr int M = N - I;
    if constexpr (W == 8) {
      const cupar_items<T, 8> r =
          op.scan_upto8(acc, items[I], items[cupar_clamp<I + 1, N>()],
                        items[cupar_clamp<I + 2, N>()], items[cupar_clamp<I + 3, N>()],
                        items[cupar_clamp<I + 4, N>()], items[cupar_clamp<I + 5, N>()],
                        items[cupar_clamp<I + 6, N>()], items[cupar_clamp<I + 7, N>()], M);
      cupar_store_running<Exclusive, I, M>(out, acc, r.v);
      return r.v[M - 1];
    } else {
      const cupar_items<T, 4> r =
          op.scan_upto4(acc, items[I], items[cupar_clamp<I + 1, N>()],
                        items[cupar_clamp<I + 2, N>()], items[cupar_clamp<I + 3, N>()], M);
      cupar_store_running<Exclusive, I, M>(out, acc, r.v);
      return r.v[M - 1];
    }
  } else if constexpr (I < N) {
    const T next = op(acc, items[I]);
    out[I] = Exclusive ? acc : next;
    return cupar_scan_items<Exclusive, I + 1, N>(op, next, items, out);
  } else {
    return acc;
  }
}

/// Whether F<K> takes the batched thread scans (a functor with a scan width).
template <class F, class = void>
struct cupar_batched_scan : ::cuda::std::false_type {};
template <class F>
struct cupar_batched_scan<F, ::cuda::std::void_t<decltype(F::cupar_scan_width)>>
    : ::cuda::std::integral_constant<bool, (F::cupar_scan_width > 0)> {};

// --- batched head flags of the out-of-line (tier-1) kernels ------------------------------------
// CUB's BlockDiscontinuity flags a thread's items 1.. with one call of the flag operator an item
// (Iterate::FlagHeads); with a run-time equality each is a call across the link. The unique and
// by-key kernels specialise that loop for their equality (CUPAR_BATCHED_FLAG_HEADS) to take the
// flags from the equality slot's head flags instead (batch::heads, codegen.cpp: bit k set when
// item k differs from the one before it, the equality inlined there), eight items a call for
// items of up to 4 bytes, four up to 8, the rest one call each, in CUB's argument order
// eq(item before, item).
template <class T>
struct cupar_eq_heads;
/// The head flags of the equality slot cupar_jit_eq on T, declared, and cupar_eq_heads<T> calling
/// them (expanded once per set, where its key type is known).
#define CUPAR_EQUALITY_HEADS(T)                                                                    \
  extern "C" __device__ unsigned int cupar_jit_eq_heads8(const unsigned char*, T, T, T, T, T, T,   \
                                                         T, T, T);                                 \
  extern "C" __device__ unsigned int cupar_jit_eq_heads4(const unsigned char*, T, T, T, T, T);     \
  template <>                                                                                      \
  struct cupar_eq_heads<T> {                                                                       \
    static constexpr int width = sizeof(T) <= 4 ? 8 : (sizeof(T) <= 8 ? 4 : 1);                    \
    static __device__ __forceinline__ unsigned int heads8(const unsigned char* s, T p, T x0, T x1, \
                                                          T x2, T x3, T x4, T x5, T x6, T x7) {    \
      return cupar_jit_eq_heads8(s, p, x0, x1, x2, x3, x4, x5, x6, x7);                            \
    }                                                                                              \
    static __device__ __forceinline__ unsigned int heads4(const unsigned char* s, T p, T x0, T x1, \
                                                          T x2, T x3) {                            \
      return cupar_jit_eq_heads4(s, p, x0, x1, x2, x3);                                            \
    }                                                                                              \
  };

/// flags[I..N) of items[I..N), each against the item before it (I >= 1): 1 where they differ.
/// `eq` is the kernel's equality functor (its state in `state.bytes`).
template <int I, int N, class Eq, class T, class Flag>
__device__ __forceinline__ void cupar_head_flags(const Eq& eq, const T (&items)[N],
                                                 Flag (&flags)[N]) {
  typedef cupar_eq_heads<T> heads;
  if constexpr (heads::width == 8 && I + 8 <= N) {
    const unsigned int m =
        heads::heads8(eq.state.bytes, items[I - 1], items[I], items[I + 1], items[I + 2],
                      items[I + 3], items[I + 4], items[I + 5], items[I + 6], items[I + 7]);
#pragma unroll
    for (int k = 0; k < 8; ++k)
      flags[I + k] = static_cast<Flag>((m >> k) & 1u);
    cupar_head_flags<I + 8, N>(eq, items, flags);
  } else if constexpr (heads::width >= 4 && I + 4 <= N) {
    const unsigned int m = heads::heads4(eq.state.bytes, items[I - 1], items[I], items[I + 1],
                                         items[I + 2], items[I + 3]);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      flags[I + k] = static_cast<Flag>((m >> k) & 1u);
    cupar_head_flags<I + 4, N>(eq, items, flags);
  } else if constexpr (I < N) {
    flags[I] = static_cast<Flag>(!eq(items[I - 1], items[I]));
    cupar_head_flags<I + 1, N>(eq, items, flags);
  }
}

/// BlockDiscontinuity<T, BLOCK>'s loop over a thread's items 1.. (Iterate::FlagHeads) for flags of
/// type FLAG and the inequality of the equality functor EQ, from the head flags above. Expand at
/// file scope after CUB's block headers and before the kernels that use it are instantiated.
#define CUPAR_BATCHED_FLAG_HEADS(T, BLOCK, ITEMS, FLAG, EQ)                             \
  CUB_NAMESPACE_BEGIN                                                                   \
  template <>                                                                           \
  template <>                                                                           \
  __device__ __forceinline__ void                                                       \
  BlockDiscontinuity<T, BLOCK>::Iterate::FlagHeads<ITEMS, FLAG, InequalityWrapper<EQ>>( \
      int, FLAG(&flags)[ITEMS], T(&input)[ITEMS], T(&preds)[ITEMS],                     \
      InequalityWrapper<EQ> flag_op) {                                                  \
    _Pragma("unroll") for (int i = 1; i < ITEMS; ++i) preds[i] = input[i - 1];          \
    cupar_head_flags<1, ITEMS>(flag_op.op, input, flags);                               \
  }                                                                                     \
  CUB_NAMESPACE_END

CUB_NAMESPACE_BEGIN
template <template <int> class F, int K, class T, int N,
          ::cuda::std::enable_if_t<cupar_batched_functor<F<K>>::value, int> = 0>
__device__ __forceinline__ T ThreadReduce(const T (&input)[N], const F<K>& op) {
  return cupar_fold_items<1, N>(op, input[0], input);
}
template <template <int> class F, int K, class T, int N,
          ::cuda::std::enable_if_t<cupar_batched_functor<F<K>>::value, int> = 0>
__device__ __forceinline__ T ThreadReduce(const T (&input)[N], const F<K>& op, T prefix) {
  return cupar_fold_items<0, N>(op, prefix, input);
}
namespace internal {
// CUB's thread scans (thread_scan.cuh, the array forms every block scan calls), in CUB's order:
// the first item, with the prefix when applied, then a running value through the rest.
template <int N, template <int> class F, int K, class T,
          ::cuda::std::enable_if_t<cupar_batched_scan<F<K>>::value, int> = 0>
__device__ __forceinline__ T ThreadScanExclusive(T (&input)[N], T (&output)[N], F<K> scan_op,
                                                 T prefix, bool apply_prefix = true) {
  T inclusive = input[0];
  if (apply_prefix) inclusive = scan_op(prefix, inclusive);
  output[0] = prefix;
  return cupar_scan_items<true, 1, N>(scan_op, inclusive, input, output);
}
template <int N, template <int> class F, int K, class T,
          ::cuda::std::enable_if_t<cupar_batched_scan<F<K>>::value, int> = 0>
__device__ __forceinline__ T ThreadScanInclusive(T (&input)[N], T (&output)[N], F<K> scan_op) {
  T inclusive = input[0];
  output[0] = inclusive;
  return cupar_scan_items<false, 1, N>(scan_op, inclusive, input, output);
}
template <int N, template <int> class F, int K, class T,
          ::cuda::std::enable_if_t<cupar_batched_scan<F<K>>::value, int> = 0>
__device__ __forceinline__ T ThreadScanInclusive(T (&input)[N], T (&output)[N], F<K> scan_op,
                                                 T prefix, bool apply_prefix = true) {
  T inclusive = input[0];
  if (apply_prefix) inclusive = scan_op(prefix, inclusive);
  output[0] = inclusive;
  return cupar_scan_items<false, 1, N>(scan_op, inclusive, input, output);
}
}  // namespace internal
CUB_NAMESPACE_END

// --- batched segmented folds and scans of the out-of-line (tier-1) by-key kernels --------------
// The by-key kernels' block scans run on (flag, value) pairs with CUB's ReduceBySegmentOp
// (reduce_by_key: flags summed) or ScanBySegmentOp (scan_by_key: flags or-ed), whose value is
// `second.key ? second.value : op(first.value, second.value)`: a thread's pairs are reduced and
// scanned one call of the value operator each. The overloads below take a chunk of eight (or four)
// pairs to one call of the operator's segmented batches instead (batch::segmented, codegen.cpp:
// bit k of the mask set where item k's flag is, the operator inlined there), the flags combined
// here, in CUB's order, so the results are the inlined build's bit for bit. A value operator opts
// in with `cupar_segment_width` (CUPAR_SEGMENT_MEMBERS).
#define CUPAR_SEGMENT_DECLARE(T)                                                                   \
  extern "C" __device__ T cupar_jit_op_segfold8(const unsigned char*, T, unsigned int, T, T, T, T, \
                                                T, T, T, T);                                       \
  extern "C" __device__ T cupar_jit_op_segfold4(const unsigned char*, T, unsigned int, T, T, T,    \
                                                T);                                                \
  extern "C" __device__ cupar_items<T, 8> cupar_jit_op_segscan8(                                   \
      const unsigned char*, T, unsigned int, T, T, T, T, T, T, T, T);                              \
  extern "C" __device__ cupar_items<T, 4> cupar_jit_op_segscan4(const unsigned char*, T,           \
                                                                unsigned int, T, T, T, T);         \
  extern "C" __device__ T cupar_jit_op_segwarp_scan(const unsigned char*, T, unsigned int);        \
  extern "C" __device__ T cupar_jit_op_segwarp_tail_reduce(const unsigned char*, T, unsigned int,  \
                                                           int);
#define CUPAR_SEGMENT_MEMBERS(T)                                                                   \
  /* Eight 4-byte values or four 8-byte ones a call (parameters and results in registers). */      \
  static constexpr int cupar_segment_width = sizeof(T) <= 4 ? 8 : (sizeof(T) <= 8 ? 4 : 0);        \
  __device__ __forceinline__ T segfold8(T acc, unsigned int m, T x0, T x1, T x2, T x3, T x4, T x5, \
                                        T x6, T x7) const {                                        \
    return cupar_jit_op_segfold8(state.bytes, acc, m, x0, x1, x2, x3, x4, x5, x6, x7);             \
  }                                                                                                \
  __device__ __forceinline__ T segfold4(T acc, unsigned int m, T x0, T x1, T x2, T x3) const {     \
    return cupar_jit_op_segfold4(state.bytes, acc, m, x0, x1, x2, x3);                             \
  }                                                                                                \
  __device__ __forceinline__ cupar_items<T, 8> segscan8(T acc, unsigned int m, T x0, T x1, T x2,   \
                                                        T x3, T x4, T x5, T x6, T x7) const {      \
    return cupar_jit_op_segscan8(state.bytes, acc, m, x0, x1, x2, x3, x4, x5, x6, x7);             \
  }                                                                                                \
  __device__ __forceinline__ cupar_items<T, 4> segscan4(T acc, unsigned int m, T x0, T x1, T x2,   \
                                                        T x3) const {                              \
    return cupar_jit_op_segscan4(state.bytes, acc, m, x0, x1, x2, x3);                             \
  }                                                                                                \
  /* A warp's inclusive scan of the values, segments starting where f is set. */                   \
  __device__ __forceinline__ T segwarp_scan(T x, unsigned int f) const {                           \
    return cupar_jit_op_segwarp_scan(state.bytes, x, f);                                           \
  }                                                                                                \
  /* The look-back's tail-segmented warp reduction of the values, the later lane's pair first. */  \
  __device__ __forceinline__ T segwarp_tail_reduce(T x, unsigned int f, int last) const {          \
    return cupar_jit_op_segwarp_tail_reduce(state.bytes, x, f, last);                              \
  }

/// Whether the value operator Op takes the segmented batches.
template <class Op, class = void>
struct cupar_segment_batched : ::cuda::std::false_type {};
template <class Op>
struct cupar_segment_batched<Op, ::cuda::std::void_t<decltype(Op::cupar_segment_width)>>
    : ::cuda::std::integral_constant<bool, (Op::cupar_segment_width > 0)> {};

/// Two flags combined: summed (ReduceBySegmentOp, Sum) or or-ed (ScanBySegmentOp).
template <bool Sum, class K>
__device__ __forceinline__ K cupar_segment_key(K a, K b) {
  if constexpr (Sum) {
    return static_cast<K>(a + b);
  } else {
    return static_cast<K>(a | b);
  }
}

/// The running pairs from acc through the M pairs items[I..I + M) (2 <= M <= W), one call of the
/// operator's segmented scan of width W: slots past M hold the last pair with their segment bit
/// set, so the operator is not called on them. The last running pair into *last and, with
/// `running`, the M running pairs into running[0..M).
template <bool Sum, int I, int M, int N, class Op, class P>
__device__ __forceinline__ void cupar_segment_chunk(const Op& op, const P& acc, const P (&items)[N],
                                                    P* last, P* running = nullptr) {
  constexpr int W = Op::cupar_segment_width;
  static_assert(M >= 2 && M <= W && I + M <= N, "a chunk of two to W pairs");
  unsigned int m = M < W ? ~0u << M : 0u;  // the padding slots start segments
  decltype(acc.key) keys[M];
  decltype(acc.key) key = acc.key;
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (items[I + k].key) m |= 1u << k;
    key = cupar_segment_key<Sum>(key, items[I + k].key);
    keys[k] = key;
  }
  decltype(acc.value) v[W];
  if constexpr (W == 8) {
    const auto r =
        op.segscan8(acc.value, m & 0xffu, items[I].value, items[cupar_clamp<I + 1, N>()].value,
                    items[cupar_clamp<I + 2, N>()].value, items[cupar_clamp<I + 3, N>()].value,
                    items[cupar_clamp<I + 4, N>()].value, items[cupar_clamp<I + 5, N>()].value,
                    items[cupar_clamp<I + 6, N>()].value, items[cupar_clamp<I + 7, N>()].value);
#pragma unroll
    for (int k = 0; k < M; ++k)
      v[k] = r.v[k];
  } else {
    const auto r =
        op.segscan4(acc.value, m & 0xfu, items[I].value, items[cupar_clamp<I + 1, N>()].value,
                    items[cupar_clamp<I + 2, N>()].value, items[cupar_clamp<I + 3, N>()].value);
#pragma unroll
    for (int k = 0; k < M; ++k)
      v[k] = r.v[k];
  }
  if (running != nullptr) {
#pragma unroll
    for (int k = 0; k < M; ++k) {
      running[k].key = keys[k];
      running[k].value = v[k];
    }
  }
  last->key = keys[M - 1];
  last->value = v[M - 1];
}

/// The pairs items[I..N) folded into acc, left to right (CUB's ThreadReduceSequential).
template <bool Sum, int I, int N, class Op, class P>
__device__ __forceinline__ P cupar_segment_fold(const Op& op, P acc, const P (&items)[N]) {
  constexpr int W = Op::cupar_segment_width;
  if constexpr (W >= 4 && I + W <= N) {
    unsigned int m = 0u;
#pragma unroll
    for (int k = 0; k < W; ++k) {
      if (items[I + k].key) m |= 1u << k;
      acc.key = cupar_segment_key<Sum>(acc.key, items[I + k].key);
    }
    if constexpr (W == 8) {
      acc.value = op.segfold8(acc.value, m, items[I].value, items[I + 1].value, items[I + 2].value,
                              items[I + 3].value, items[I + 4].value, items[I + 5].value,
                              items[I + 6].value, items[I + 7].value);
    } else {
      acc.value = op.segfold4(acc.value, m, items[I].value, items[I + 1].value, items[I + 2].value,
                              items[I + 3].value);
    }
    return cupar_segment_fold<Sum, I + W, N>(op, acc, items);
  } else if constexpr (W >= 4 && I + 2 <= N) {
    // The last two to W - 1 pairs in one call: the chunk's scan, whose slots past the end start
    // segments of their own (no operator call), its value at the last pair.
    P last = acc;
    cupar_segment_chunk<Sum, I, N - I>(op, acc, items, &last);
    return last;
  } else if constexpr (I < N) {
    P next;
    next.key = cupar_segment_key<Sum>(acc.key, items[I].key);
    next.value = items[I].key ? items[I].value : op(acc.value, items[I].value);
    return cupar_segment_fold<Sum, I + 1, N>(op, next, items);
  } else {
    return acc;
  }
}

/// The running pairs from acc through items[I..N) into out[I..N) (inclusive; exclusive: out[I] is
/// the pair before item I), as CUB's thread scans; returns the last running pair. `items` and
/// `out` may be the same array: a chunk's items are read before its results are written.
template <bool Exclusive, bool Sum, int I, int N, class Op, class P>
__device__ __forceinline__ P cupar_segment_scan(const Op& op, P acc, const P (&items)[N],
                                                P (&out)[N]) {
  constexpr int W = Op::cupar_segment_width;
  if constexpr (W >= 4 && I + 2 <= N) {
    // A chunk of W pairs, or the last two to W - 1, in one call (cupar_segment_chunk).
    constexpr int M = I + W <= N ? W : N - I;
    P running[M];
    P last = acc;
    cupar_segment_chunk<Sum, I, M>(op, acc, items, &last, running);
    cupar_store_running<Exclusive, I, M>(out, acc, running);
    return cupar_segment_scan<Exclusive, Sum, I + M, N>(op, last, items, out);
  } else if constexpr (I < N) {
    P next;
    next.key = cupar_segment_key<Sum>(acc.key, items[I].key);
    next.value = items[I].key ? items[I].value : op(acc.value, items[I].value);
    out[I] = Exclusive ? acc : next;
    return cupar_segment_scan<Exclusive, Sum, I + 1, N>(op, next, items, out);
  } else {
    return acc;
  }
}

/// CUB's array thread scans (thread_scan.cuh) on pairs: the first pair, with the prefix when
/// applied, then the running pairs through the rest; output[0] is the prefix (exclusive) or the
/// first running pair. `input` and `output` may be the same array.
template <bool Exclusive, bool Sum, class S, class P, int N>
__device__ __forceinline__ P cupar_segment_thread_scan(S scan_op, P (&input)[N], P (&output)[N],
                                                       P prefix, bool apply_prefix) {
  P inclusive = input[0];
  if (apply_prefix) inclusive = scan_op(prefix, inclusive);
  output[0] = Exclusive ? prefix : inclusive;
  return cupar_segment_scan<Exclusive, Sum, 1, N>(scan_op.op, inclusive, input, output);
}

CUB_NAMESPACE_BEGIN
// The array forms of the thread reduction and scans that CUB's block scans call, for the two
// segment operators over a batched value operator (Sum: ReduceBySegmentOp).
#define CUPAR_SEGMENT_OVERLOADS(SEGMENT_OP, SUM)                                                  \
  template <class Op, class K, class V, int N,                                                    \
            ::cuda::std::enable_if_t<cupar_segment_batched<Op>::value, int> = 0>                  \
  __device__ __forceinline__ KeyValuePair<K, V> ThreadReduce(const KeyValuePair<K, V>(&input)[N], \
                                                             const SEGMENT_OP<Op>& op) {          \
    return cupar_segment_fold<SUM, 1, N>(op.op, input[0], input);                                 \
  }                                                                                               \
  namespace internal {                                                                            \
  template <int N, class Op, class K, class V,                                                    \
            ::cuda::std::enable_if_t<cupar_segment_batched<Op>::value, int> = 0>                  \
  __device__ __forceinline__ KeyValuePair<K, V> ThreadScanExclusive(                              \
      KeyValuePair<K, V> (&input)[N], KeyValuePair<K, V> (&output)[N], SEGMENT_OP<Op> scan_op,    \
      KeyValuePair<K, V> prefix, bool apply_prefix = true) {                                      \
    return cupar_segment_thread_scan<true, SUM>(scan_op, input, output, prefix, apply_prefix);    \
  }                                                                                               \
  template <int N, class Op, class K, class V,                                                    \
            ::cuda::std::enable_if_t<cupar_segment_batched<Op>::value, int> = 0>                  \
  __device__ __forceinline__ KeyValuePair<K, V> ThreadScanInclusive(                              \
      KeyValuePair<K, V> (&input)[N], KeyValuePair<K, V> (&output)[N], SEGMENT_OP<Op> scan_op,    \
      KeyValuePair<K, V> prefix, bool apply_prefix = true) {                                      \
    return cupar_segment_thread_scan<false, SUM>(scan_op, input, output, prefix, apply_prefix);   \
  }                                                                                               \
  template <int N, class Op, class K, class V,                                                    \
            ::cuda::std::enable_if_t<cupar_segment_batched<Op>::value, int> = 0>                  \
  __device__ __forceinline__ KeyValuePair<K, V> ThreadScanInclusive(                              \
      KeyValuePair<K, V> (&input)[N], KeyValuePair<K, V> (&output)[N], SEGMENT_OP<Op> scan_op) {  \
    return cupar_segment_thread_scan<false, SUM>(scan_op, input, output, input[0], false);        \
  }                                                                                               \
  }
CUPAR_SEGMENT_OVERLOADS(ReduceBySegmentOp, true)
CUPAR_SEGMENT_OVERLOADS(detail::ScanBySegmentOp, false)
#undef CUPAR_SEGMENT_OVERLOADS
CUB_NAMESPACE_END

// --- the block scans' warp prefixes in one call
// --------------------------------------------------- CUB's BlockScanWarpScans::ComputeWarpPrefix
// folds the warps' aggregates one call of the scan operator a warp, in every thread
// (ApplyWarpAggregates); the out-of-line kernels of the scans and the by-key families take the
// running values of that fold from one batched scan instead (cupar_scan_items / cupar_segment_scan,
// so a block of up to 8 + 1 warps makes one call), in CUB's order: warp w's prefix is aggregate 0
// op ... op aggregate w - 1 (warp 0's is not used), the block's aggregate the fold of all.

/// Which segment operator S is (ReduceBySegmentOp: flags summed; ScanBySegmentOp: or-ed) and
/// whether its value operator takes the segmented batches.
template <class S>
struct cupar_segment_op_traits {
  static constexpr bool batched = false;
};
template <class Op>
struct cupar_segment_op_traits<cub::ReduceBySegmentOp<Op>> {
  static constexpr bool batched = cupar_segment_batched<Op>::value;
  static constexpr bool sum = true;
};
template <class Op>
struct cupar_segment_op_traits<cub::detail::ScanBySegmentOp<Op>> {
  static constexpr bool batched = cupar_segment_batched<Op>::value;
  static constexpr bool sum = false;
};

/// running[k] = agg[0] op ... op agg[k], returns running[N - 1]: one batched scan for a functor
/// with the scan batches or a segment operator over a batched value operator, else a call an
/// aggregate as CUB makes them (structs too wide for the batches' registers).
template <class Op, class T, int N>
__device__ __forceinline__ T cupar_prefix_scan(Op op, const T (&agg)[N], T (&running)[N]) {
  running[0] = agg[0];
  if constexpr (cupar_batched_scan<Op>::value) {
    return cupar_scan_items<false, 1, N>(op, agg[0], agg, running);
  } else if constexpr (cupar_segment_op_traits<Op>::batched) {
    return cupar_segment_scan<false, cupar_segment_op_traits<Op>::sum, 1, N>(op.op, agg[0], agg,
                                                                             running);
  } else {
#pragma unroll
    for (int w = 1; w < N; ++w)
      running[w] = op(running[w - 1], agg[w]);
    return running[N - 1];
  }
}

/// BlockScanWarpScans<T, BLOCK>::ComputeWarpPrefix for the scan operator SCAN_OP, from
/// cupar_prefix_scan. Expand at file scope after CUB's headers, before the kernels are
/// instantiated (a block scan of another algorithm never calls it).
#define CUPAR_BATCHED_WARP_PREFIX(T, BLOCK, SCAN_OP)                                            \
  CUB_NAMESPACE_BEGIN                                                                           \
  namespace detail {                                                                            \
  template <>                                                                                   \
  template <>                                                                                   \
  __device__ __forceinline__ T BlockScanWarpScans<T, BLOCK, 1, 1>::ComputeWarpPrefix<SCAN_OP>(  \
      SCAN_OP scan_op, T warp_aggregate, T& block_aggregate) {                                  \
    if (lane_id == WARP_THREADS - 1) {                                                          \
      uninitialized_copy_single(temp_storage.warp_aggregates + warp_id, warp_aggregate);        \
    }                                                                                           \
    __syncthreads();                                                                            \
    T agg[WARPS];                                                                               \
    _Pragma("unroll") for (int w = 0; w < WARPS; ++w) agg[w] = temp_storage.warp_aggregates[w]; \
    T running[WARPS];                                                                           \
    block_aggregate = cupar_prefix_scan(scan_op, agg, running);                                 \
    T warp_prefix;                                                                              \
    _Pragma("unroll") for (int w = 1; w < WARPS; ++w) if (warp_id == w) warp_prefix =           \
        running[w - 1];                                                                         \
    return warp_prefix;                                                                         \
  }                                                                                             \
  }                                                                                             \
  CUB_NAMESPACE_END

/// WarpScanShfl<PAIR, 32>::InclusiveScan for the segment operator SEGMENT_OP (flags summed when
/// SUM, or-ed otherwise) over a batched value operator: CUB's five steps on the flags inline,
/// the values' five steps in one call of the operator's segwarp_scan, in CUB's order.
#define CUPAR_BATCHED_SEGMENT_WARP_SCAN(PAIR, SEGMENT_OP, SUM)                             \
  CUB_NAMESPACE_BEGIN                                                                      \
  namespace detail {                                                                       \
  template <>                                                                              \
  template <>                                                                              \
  __device__ __forceinline__ void WarpScanShfl<PAIR, 32>::InclusiveScan<PAIR, SEGMENT_OP>( \
      PAIR input, PAIR& inclusive_output, SEGMENT_OP scan_op) {                            \
    auto key = input.key;                                                                  \
    _Pragma("unroll") for (int offset = 1; offset < 32; offset *= 2) {                     \
      const auto up = __shfl_up_sync(0xffffffffu, key, offset);                            \
      const auto combined = cupar_segment_key<SUM>(up, key);                               \
      if (static_cast<int>(lane_id) >= offset) key = combined;                             \
    }                                                                                      \
    const auto value = scan_op.op.segwarp_scan(input.value, input.key ? 1u : 0u);          \
    inclusive_output.key = key;                                                            \
    inclusive_output.value = value;                                                        \
  }                                                                                        \
  }                                                                                        \
  CUB_NAMESPACE_END

// --- the decoupled look-back's warp reduction in one call ---------------------------------------
// The scans' and the by-key families' TilePrefixCallbackOp (warp 0 of every tile, while the
// block waits at a barrier) reduces a window of 32 predecessor tiles with WarpReduce's
// TailSegmentedReduce under CUB's SwizzleScanOp: five steps, one call of the scan operator each
// in the out-of-line kernels. The macro below takes them to one call of the operator's
// warp_tail_reduce (a functor with the scan batches) or, for the two segment operators over a
// batched value operator, the flags' steps inline and the values' in one segwarp_tail_reduce; in
// CUB's order, so the results are the inlined build's. SwizzleScanOp keeps its operator private,
// so the macro specialises it for SCAN_OP with the operator public (the same behaviour).

/// Whether the look-back of scan operator Op takes one batched call.
template <class Op>
struct cupar_look_back_batched {
  static constexpr bool value =
      cupar_batched_functor<Op>::value || cupar_segment_op_traits<Op>::batched;
};

/// The tail-segmented reduction of x over lanes lane..last in one batched call (the later lane's
/// value the operator's first argument).
template <class Op, class T>
__device__ __forceinline__ T cupar_look_back_reduce(const Op& op, T x, int last) {
  if constexpr (cupar_batched_functor<Op>::value) {
    return op.warp_tail_reduce(x, last);
  } else {
    unsigned int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    auto key = x.key;
    _Pragma("unroll") for (int offset = 1; offset < 32; offset *= 2) {
      const auto down = __shfl_down_sync(0xffffffffu, key, offset);
      if (static_cast<int>(lane) + offset <= last) {
        key = cupar_segment_key<cupar_segment_op_traits<Op>::sum>(down, key);
      }
    }
    T r;
    r.value = op.op.segwarp_tail_reduce(x.value, x.key ? 1u : 0u, last);
    r.key = key;
    return r;
  }
}

/// CUB's SwizzleScanOp<SCAN_OP> with its operator public, and WarpReduceShfl<T, 32>'s tail-
/// segmented reduction under it: CUB's flags and last lane, then cupar_look_back_reduce (CUB's
/// steps where the operator takes no batch). Expand at file scope after CUB's headers, before
/// the kernels are instantiated.
#define CUPAR_BATCHED_LOOK_BACK(T, SCAN_OP)                                        \
  CUB_NAMESPACE_BEGIN                                                              \
  template <>                                                                      \
  class SwizzleScanOp<SCAN_OP> {                                                   \
   public:                                                                         \
    SCAN_OP scan_op;                                                               \
    __host__ __device__ __forceinline__ SwizzleScanOp(SCAN_OP op) : scan_op(op) {} \
    template <class U>                                                             \
    __host__ __device__ __forceinline__ U operator()(const U& a, const U& b) {     \
      U a_(a);                                                                     \
      U b_(b);                                                                     \
      return scan_op(b_, a_);                                                      \
    }                                                                              \
  };                                                                               \
  namespace detail {                                                               \
  template <>                                                                      \
  template <>                                                                      \
  __device__ __forceinline__ T                                                     \
  WarpReduceShfl<T, 32>::SegmentedReduce<false, int, SwizzleScanOp<SCAN_OP>>(      \
      T input, int flag, SwizzleScanOp<SCAN_OP> reduction_op) {                    \
    int warp_flags = __ballot_sync(member_mask, flag);                             \
    warp_flags &= ::cuda::ptx::get_sreg_lanemask_ge();                             \
    warp_flags |= 1u << 31;                                                        \
    const int last_lane = __clz(__brev(warp_flags));                               \
    if constexpr (cupar_look_back_batched<SCAN_OP>::value) {                       \
      return cupar_look_back_reduce(reduction_op.scan_op, input, last_lane);       \
    } else {                                                                       \
      T output = input;                                                            \
      ReduceStep(output, reduction_op, last_lane, constant_v<0>);                  \
      return output;                                                               \
    }                                                                              \
  }                                                                                \
  }                                                                                \
  CUB_NAMESPACE_END

/// Everything the by-key and segmented-scan kernels' block scans of (flag, value) pairs PAIR under
/// the segment operator PAIR_OP (flags summed when SUM, or-ed otherwise) call once a step, each in
/// one call: the warp prefixes of a block of BLOCK threads, the warp scans and the look-back.
#define CUPAR_BATCHED_SEGMENT_BLOCK_SCAN(PAIR, BLOCK, PAIR_OP, SUM) \
  CUPAR_BATCHED_WARP_PREFIX(PAIR, BLOCK, PAIR_OP)                   \
  CUPAR_BATCHED_SEGMENT_WARP_SCAN(PAIR, PAIR_OP, SUM)               \
  CUPAR_BATCHED_LOOK_BACK(PAIR, PAIR_OP)
