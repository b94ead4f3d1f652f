// cupar: plans. A plan builds a run-time operator for one algorithm and element types once (for
// the architecture of the current device) and is then called with new data, skipping the
// per-call cache lookup: the lowest host overhead per call. Its calls run on the device of their
// stream, any device of that architecture (std::invalid_argument for another architecture).
// Parameter values may change between calls (set); the operator's source may not. A plan follows
// the tiered build: when the optimised build finishes in the background, the next call uses it
// (wait_optimized blocks until then).
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_compile.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>

namespace cupar::jit {
namespace detail {

/// What all plans share: the operator (its parameter values can change) and the build.
class plan_base {
 public:
  /// Sets a run-time parameter of the plan's operator (as op::set).
  template <class V>
  void set(std::string_view name, V value) {
    op_.set(name, value);
  }
  const op& get_op() const noexcept { return op_; }
  /// Blocks until the optimised (inlined) build of every operator queued so far is ready, so
  /// the next call runs it.
  static void wait_optimized() { wait_for_background_builds(); }

 protected:
  /// Builds the plan of `call` on `types` with the operator `o`.
  plan_base(op o, const ::cupar::detail::jit_call& call, const ::cupar::detail::jit_type* t0,
            const ::cupar::detail::jit_type* t1 = nullptr)
      : op_(std::move(o)) {
    ::cupar::detail::jit_args args{"cupar::jit::plan", &call, {t0, t1}};
    args.ops[0] = &op_;
    state_ = ::cupar::detail::jit_make_plan(args);
  }
  /// A call's arguments: the plan's operation, operator and build.
  ::cupar::detail::jit_args args(const char* fn, const ::cupar::detail::jit_call& call) const {
    ::cupar::detail::jit_args a{fn, &call};
    a.ops[0] = &op_;
    a.plan = state_.get();
    return a;
  }
  op op_;
  std::shared_ptr<::cupar::detail::plan_state> state_;
};

}  // namespace detail

/// reduce with a fixed operator on T. Built by the constructor (throws cupar::jit_error).
template <class T>
class reduce_plan : public detail::plan_base {
 public:
  explicit reduce_plan(op o)
      : plan_base(std::move(o), ::cupar::detail::reduce_call(),
                  &::cupar::detail::jit_type_of<T>()) {}
  /// As cupar::reduce.
  void operator()(const T* d_in, T* d_out, std::size_t n, T init, stream_ref stream,
                  memory_resource& mr = default_resource()) const {
    auto a = args("cupar::jit::reduce_plan", ::cupar::detail::reduce_call());
    a.types[0] = &::cupar::detail::jit_type_of<T>();
    a.in[0] = d_in;
    a.out[0] = d_out;
    a.n = n;
    a.init = &init;
    ::cupar::detail::jit_run(a, stream, mr);
  }
  /// As cupar::reduce_value (synchronises the stream).
  T value(const T* d_in, std::size_t n, T init, stream_ref stream,
          memory_resource& mr = default_resource()) const {
    T result;
    auto a = args("cupar::jit::reduce_plan", ::cupar::detail::reduce_call());
    a.types[0] = &::cupar::detail::jit_type_of<T>();
    a.in[0] = d_in;
    a.host_out = &result;
    a.n = n;
    a.init = &init;
    ::cupar::detail::jit_run(a, stream, mr);
    return result;
  }
};

/// inclusive or exclusive scan with a fixed operator on T.
template <class T>
class scan_plan : public detail::plan_base {
 public:
  scan_plan(op o, bool inclusive)
      : plan_base(std::move(o),
                  inclusive ? ::cupar::detail::inclusive_scan_call()
                            : ::cupar::detail::exclusive_scan_call(),
                  &::cupar::detail::jit_type_of<T>()),
        inclusive_(inclusive) {}
  /// As cupar::inclusive_scan (the plan must have been made with inclusive = true).
  void inclusive(const T* d_in, T* d_out, std::size_t n, stream_ref stream,
                 memory_resource& mr = default_resource()) const {
    check(true);
    auto a = args("cupar::jit::scan_plan", ::cupar::detail::inclusive_scan_call());
    a.types[0] = &::cupar::detail::jit_type_of<T>();
    a.in[0] = d_in;
    a.out[0] = d_out;
    a.n = n;
    ::cupar::detail::jit_run(a, stream, mr);
  }
  /// As cupar::exclusive_scan (the plan must have been made with inclusive = false).
  void exclusive(const T* d_in, T* d_out, std::size_t n, T init, stream_ref stream,
                 memory_resource& mr = default_resource()) const {
    check(false);
    auto a = args("cupar::jit::scan_plan", ::cupar::detail::exclusive_scan_call());
    a.types[0] = &::cupar::detail::jit_type_of<T>();
    a.in[0] = d_in;
    a.out[0] = d_out;
    a.n = n;
    a.init = &init;
    ::cupar::detail::jit_run(a, stream, mr);
  }

 private:
  void check(bool inclusive) const {
    if (inclusive != inclusive_) {
      ::cupar::detail::throw_invalid_argument(
          "cupar::jit::scan_plan",
          inclusive_ ? "the plan is for inclusive scans" : "the plan is for exclusive scans");
    }
  }
  bool inclusive_;
};

/// transform In -> Out with a fixed unary operator.
template <class In, class Out>
class transform_plan : public detail::plan_base {
 public:
  explicit transform_plan(op o)
      : plan_base(std::move(o), ::cupar::detail::transform_call(),
                  &::cupar::detail::jit_type_of<In>(), &::cupar::detail::jit_type_of<Out>()) {}
  /// As cupar::transform.
  void operator()(const In* d_in, Out* d_out, std::size_t n, stream_ref stream) const {
    auto a = args("cupar::jit::transform_plan", ::cupar::detail::transform_call());
    a.types[0] = &::cupar::detail::jit_type_of<In>();
    a.types[1] = &::cupar::detail::jit_type_of<Out>();
    a.in[0] = d_in;
    a.out[0] = d_out;
    a.n = n;
    ::cupar::detail::jit_run(a, stream, default_resource());
  }
};

/// comparison sort of Key (with Value payloads unless Value is void) with a fixed comparator.
template <class Key, class Value = void>
class sort_plan : public detail::plan_base {
 public:
  explicit sort_plan(op comparator)
      : plan_base(std::move(comparator), ::cupar::detail::stable_sort_call(),
                  &::cupar::detail::jit_type_of<Key>(), value_type()) {}
  /// As cupar::stable_sort_keys (the sort is stable).
  template <class V = Value, std::enable_if_t<std::is_void_v<V>, int> = 0>
  void operator()(const Key* d_keys_in, Key* d_keys_out, std::size_t n, stream_ref stream,
                  memory_resource& mr = default_resource()) const {
    auto a = args("cupar::jit::sort_plan", ::cupar::detail::stable_sort_call());
    a.types[0] = &::cupar::detail::jit_type_of<Key>();
    a.in[0] = d_keys_in;
    a.out[0] = d_keys_out;
    a.n = n;
    ::cupar::detail::jit_run(a, stream, mr);
  }
  /// As cupar::stable_sort_pairs.
  template <class V = Value, std::enable_if_t<!std::is_void_v<V>, int> = 0>
  void operator()(const Key* d_keys_in, Key* d_keys_out, const V* d_values_in, V* d_values_out,
                  std::size_t n, stream_ref stream,
                  memory_resource& mr = default_resource()) const {
    auto a = args("cupar::jit::sort_plan", ::cupar::detail::stable_sort_call());
    a.types[0] = &::cupar::detail::jit_type_of<Key>();
    a.types[1] = value_type();
    a.in[0] = d_keys_in;
    a.in[1] = d_values_in;
    a.out[0] = d_keys_out;
    a.out[1] = d_values_out;
    a.n = n;
    ::cupar::detail::jit_run(a, stream, mr);
  }

 private:
  static const ::cupar::detail::jit_type* value_type() {
    if constexpr (std::is_void_v<Value>) {
      return nullptr;
    } else {
      return &::cupar::detail::payload_type<Value>();
    }
  }
};

}  // namespace cupar::jit
