// cupar family: lower_bound and upper_bound of needles in a sorted range (cupar's kernel,
// include/cupar/detail/device/binary_search.cuh, through jit_ops/cupar_binary_search.cuh).
// Size classes {T, Index (u32 or u64)}.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_T;\ntypedef " + s.types[1].name + " cupar_I;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  return {comparator_slot(s.types[0])};
}

std::vector<std::string> names(const set_spec&) {
  return {
      "cupar::detail::bsearch::kernel<cub::NullType, cupar_T, cupar_I, "
      "cupar_binary_search_comp>",
      meta_expression(1)};
}

// The default comparator `<` needs the user's type: it is the precompiled named `less` of that
// type, linked to the class's kernels.
const char* const rules[] = {
    "precompile c=classes i=u32|u64: binary_search<$c,$i>",
    // Records searched by a comparator on their fields: a set of the struct's class serves every
    // struct of it (the comparator's wrapper bit-casts the class's storage to the struct).
    "precompile s=dp_structs i=u32|u64: binary_search<$s,$i>",
};

}  // namespace

extern const family_def binary_search_family =
    family_def::make(family::binary_search, "binary_search", "cupar_binary_search.cuh", 1, typedefs,
                     slots, names)
        .for_size_classes()
        .taking_states_by_reference()
        .precompiling(rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/launch.hpp"

#include <cupar/detail/dp_checks.hpp>
#include <cupar/detail/dp_dispatch.cuh>

#include <cstddef>
#include <cstdint>
#include <limits>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// lower_bound / upper_bound (module meta: block threads). No temporary storage.
struct search_launch {
  const void* sorted;
  std::size_t n;
  const void* needles;
  std::size_t m;
  void* out;
  const void* comp_state;
  bool upper;
};
cudaError_t run_binary_search(const loaded_module& m, const device_info& dev, launch_status& st,
                              const search_launch& s, cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {

cudaError_t run_binary_search(const loaded_module& m, const device_info& dev, launch_status& st,
                              const search_launch& s, cudaStream_t stream) {
  const cudaError_t error = bsearch::dispatch(
      m.kernel(0), jit_launcher_factory{&dev, &m, &st}, static_cast<int>(m.meta(0)), dev.sm_count,
      s.sorted, s.n, s.needles, s.m, s.out, erased_arg{s.comp_state}, s.upper, stream);
  return st.first == CUDA_SUCCESS ? error : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {
namespace {

/// The largest value of the positions' integer type.
std::uint64_t index_max(const jit_type& t) {
  switch (t.kind) {
    case scalar::i32:
      return static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
    case scalar::u32:
      return std::numeric_limits<std::uint32_t>::max();
    case scalar::i64:
      return static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    case scalar::u64:
      return std::numeric_limits<std::uint64_t>::max();
    default:
      return 0;  // not a position type
  }
}

/// lower_bound and upper_bound (types {T, Index}; in[0] the n sorted elements, in[1] the m
/// needles, out[0] their m positions; ops {comparator (null: <)}).
void call_search(const jit_args& a, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending, bool upper) {
  const char* fn = a.function;
  const jit_type& index = *a.types[1];
  if (index_max(index) == 0) {
    throw_invalid_argument(fn, "the positions' type must be a 4- or 8-byte integer");
  }
  check_binary_search(fn, a.in[0], a.n, a.in[1], a.m, a.out[0], a.types[0]->size, index.size,
                      index_max(index));
  write_pending(pending, s, mr);
  if (a.m == 0) return;
  const jit::set_request req = dp_request(a, false);
  const jit::resolved resolved = jit::resolve(req, nullptr, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const cupar::jit::op& comp = a.ops[0] != nullptr ? *a.ops[0] : cupar::jit::less;
  const kernel_states states(*module, {comp.state()}, s, mr);
  const jit::search_launch launch{a.in[0], a.n, a.in[1], a.m, a.out[0], states[0], upper};
  jit::launch_status st;
  const char* call = "cupar binary search (run-time comparator)";
  jit::check_dispatch(jit::run_binary_search(*module, *devp, st, launch, s.get()), st, call);
}

void run_lower_bound(const jit_args& a, stream_ref s, memory_resource& mr,
                     const pending_inputs* p) {
  call_search(a, s, mr, p, false);
}
void run_upper_bound(const jit_args& a, stream_ref s, memory_resource& mr,
                     const pending_inputs* p) {
  call_search(a, s, mr, p, true);
}

/// The needles have the sorted range's type and m elements; the positions, m of them, Index's.
constexpr call_io search_io() {
  call_io io{};
  io.input_type[1] = 0;
  io.input_m[1] = true;
  io.output_type[0] = 1;
  io.output_m = true;
  return io;
}

}  // namespace

extern const jit_call lower_bound_jit_call =
    jit_call::make("lower_bound", jit::family::binary_search, run_lower_bound, dp_compile_request)
        .with_io(search_io());
extern const jit_call upper_bound_jit_call =
    jit_call::make("upper_bound", jit::family::binary_search, run_upper_bound, dp_compile_request)
        .with_io(search_io());

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
