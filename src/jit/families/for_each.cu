// cupar family: one kernel walking indices (jit_ops/cupar_for_each.cuh). Its only slot,
// cupar_jit_apply (generated, iterator.cpp), loads, applies the operator and stores with the
// caller's types, so one set, {u64}, serves transforms of every type combination, iterator
// expressions and output expressions included.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec&) {
  return std::string();
}

std::vector<slot_spec> slots(const set_spec& s) {
  // The thread's first index and the count (the generated code knows its stride and items).
  return {{"cupar_jit_apply",
           "iterator expression",
           {s.types[0], s.types[0]},
           type_ref::of(scalar::i32),
           {"cupar_i", "cupar_n"}}};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_for_each_kernel", meta_expression(1)};
}

const char* const rules[] = {
    "precompile: for_each<u64>",
};

}  // namespace

extern const family_def for_each_family =
    family_def::make(family::for_each, "for_each", "cupar_for_each.cuh", 1, typedefs, slots, names)
        .precompiling(rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cuda_runtime_api.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// The "for_each" set (module meta: block threads): `items` indices per thread (the generated
/// slot's choice), one tile of block threads x items per block, at most the grid's limit of
/// blocks (the kernel strides over the rest). No temporary storage.
cudaError_t run_for_each(const loaded_module& m, const device_info& dev, launch_status& st,
                         std::size_t n, unsigned items, const void* op_state, cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {

cudaError_t run_for_each(const loaded_module& m, const device_info& dev, launch_status& st,
                         std::size_t n_total, unsigned items, const void* op_state,
                         cudaStream_t stream) {
  if (n_total == 0) return cudaSuccess;
  const auto block = static_cast<unsigned long long>(m.meta(0));
  const unsigned long long n = n_total;
  const unsigned long long tile = block * items;
  const unsigned long long tiles = (n + tile - 1) / tile;
  const auto grid = static_cast<unsigned>(
      std::min<unsigned long long>(tiles, static_cast<unsigned long long>(dev.max_grid_dim_x)));
  jit_launcher_factory launch{&dev, &m, &st};
  launch(grid, static_cast<unsigned>(block), 0, stream)
      .doit(m.kernel(0), erased_arg{op_state}, n, tile);
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {

using jit::family;
using jit::resolve;
using jit::set_request;

for_each_pass prepare_for_each(jit::for_each_op apply, std::size_t n, const char* fn) {
  for_each_pass p{std::move(apply), n, {}};
  if (n == 0) return p;
  set_request req{family::for_each, {&jit::index_type()}};
  req.ops[0] = &p.apply.op;
  p.module = resolve(req, nullptr, fn);
  return p;
}

void for_each_pass::launch(stream_ref s, memory_resource& mr, const char* call) const {
  if (n == 0) return;
  // A wide state is placed in a copy of the operator (the pass may be launched again).
  std::optional<cupar::jit::op> wide;
  if (apply.op.wide_state() != nullptr) wide.emplace(apply.op);
  const placed_state placed(wide, s, mr);
  const cupar::jit::op& op = wide ? *wide : apply.op;
  jit::launch_status st;
  jit::check_dispatch(
      jit::run_for_each(*module.module, *module.dev, st, n, apply.items, op.state(), s.get()), st,
      call);
}

namespace {

/// Bytes as a kernel parameter, Words 16-byte words (CUDA passes up to 32 KB of them by value).
template <unsigned Words>
struct device_words {
  uint4 words[Words];
};
/// An iterator expression's wide state; the operators' parameter blocks of one call.
using wide_state_bytes = device_words<cupar::jit::max_expression_state_bytes / 16>;
using kernel_state_bytes =
    device_words<kernel_states::max_states * cupar::jit::max_param_bytes / 16>;
static_assert(cupar::jit::max_expression_state_bytes % 16 == 0 &&
              cupar::jit::max_param_bytes % 16 == 0);

template <unsigned Words>
__global__ void write_words(device_words<Words> bytes, uint4* dst, unsigned words) {
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    dst[i] = bytes.words[i];
}

/// The first `words` words of `bytes` written on `s` by one block into `mem`, allocated here
/// from `mr` (freed stream-ordered with it); returns its address. Throws cupar::out_of_memory or
/// cupar::cuda_error (`what`).
template <unsigned Words>
void* write_to_device(const device_words<Words>& bytes, unsigned words,
                      std::optional<temp_storage>& mem, stream_ref s, memory_resource& mr,
                      const char* what) {
  mem.emplace(mr, std::size_t(words) * 16, s);
  write_words<Words><<<1, 64, 0, s.get()>>>(bytes, static_cast<uint4*>(mem->get()), words);
  check_cuda(cudaGetLastError(), what);
  return mem->get();
}

}  // namespace

placed_state::placed_state(std::optional<cupar::jit::op>& op, stream_ref s, memory_resource& mr) {
  if (!op || op->wide_state() == nullptr) return;
  const std::vector<unsigned char>& wide = *op->wide_state();
  wide_state_bytes bytes{};
  std::memcpy(&bytes, wide.data(), wide.size());
  op->place_wide_state(
      write_to_device(bytes, static_cast<unsigned>((wide.size() + 15) / 16), mem_, s, mr,
                      "cupar: an iterator expression's state written to the device"));
}

kernel_states::kernel_states(const jit::loaded_module& m, std::initializer_list<const void*> states,
                             stream_ref s, memory_resource& mr) {
  if (states.size() > max_states) {
    throw std::logic_error("cupar internal: more operator states than kernel_states holds");
  }
  std::copy(states.begin(), states.end(), blocks_.begin());
  if (!m.states_by_reference()) return;
  constexpr std::size_t block = cupar::jit::max_param_bytes;
  kernel_state_bytes bytes{};
  std::size_t placed = 0;
  for (const void* state : blocks_) {
    if (state != nullptr)
      std::memcpy(reinterpret_cast<unsigned char*>(&bytes) + placed++ * block, state, block);
  }
  if (placed == 0) return;
  const auto* copies = static_cast<const unsigned char*>(
      write_to_device(bytes, static_cast<unsigned>(placed * block / 16), mem_, s, mr,
                      "cupar: the operators' parameters written to the device"));
  placed = 0;
  for (std::size_t i = 0; i < max_states; ++i) {
    if (blocks_[i] == nullptr) continue;
    const unsigned char* copy = copies + placed++ * block;
    std::memcpy(references_[i].bytes, &copy, sizeof copy);
    blocks_[i] = &references_[i];
  }
}

namespace {

/// Runs the "for_each" set with its generated slot `apply` over n indices. The slot is generated
/// (and its arrays checked) by the caller also for n == 0, so a malformed call fails on every n.
void run_for_each_op(jit::for_each_op apply, std::size_t n, stream_ref s, memory_resource& mr,
                     const char* fn, const char* call) {
  prepare_for_each(std::move(apply), n, fn).launch(s, mr, call);
}

}  // namespace

void run_apply(const char* fn, int arity, const cupar::jit::iterator* const* in,
               const cupar::jit::output& out, std::size_t n, const cupar::jit::op& op, stream_ref s,
               memory_resource& mr) {
  run_for_each_op(jit::transform_apply_op(in, arity, out, op, n, fn), n, s, mr, fn,
                  "cupar transform (run-time operator)");
}

void materialize(const cupar::jit::iterator& in, const jit_type& t, void* dst, std::size_t n,
                 stream_ref s, memory_resource& mr, const char* fn) {
  const cupar::jit::output out(cupar::jit::detail::output_pointer(t, dst));
  run_for_each_op(jit::convert_apply_op(in, out, n, fn), n, s, mr, fn,
                  "cupar: an iterator expression materialised (run-time operator)");
}

void pending_inputs::write(stream_ref s, memory_resource& mr) const {
  for (const input& x : slot) {
    if (x.expression != nullptr) {
      materialize(*x.expression, *x.type, x.dst, x.count, s, mr, function);
    } else if (x.copy != nullptr && x.count != 0) {
      check_cuda(
          cudaMemcpyAsync(x.dst, x.copy, x.count * x.type->size, cudaMemcpyDeviceToDevice, s.get()),
          function);
    }
  }
}

namespace {

/// materialize (types {T}, in_iter[0], out[0]): the first n elements of the expression,
/// converted to T, written to the device array out[0] (the histograms' sample expressions).
void run_materialize(const jit_args& a, stream_ref s, memory_resource& mr, const pending_inputs*) {
  const char* fn = a.function;
  if (a.in_iter[0] == nullptr || a.types[0] == nullptr)
    throw_invalid_argument(fn, "malformed call");
  require_size(fn, a.n, a.types[0]->size);
  require_data(fn, "the temporary array", a.out[0], a.n);
  materialize(*a.in_iter[0], *a.types[0], a.out[0], a.n, s, mr, fn);
}

}  // namespace

// No compile-only build: the expression's code is what transform's compile builds.
extern const jit_call materialize_jit_call =
    jit_call::make("materialize", jit::family::for_each, run_materialize, nullptr);

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
