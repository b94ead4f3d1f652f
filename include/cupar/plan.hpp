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
  plan_base(op o, ::cupar::detail::jit_compile_args args) : op_(std::move(o)) {
    args.op = &op_;
    state_ = ::cupar::detail::jit_make_plan(args);
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
      : plan_base(std::move(o), {::cupar::detail::jit_compile_args::reduce,
                                 {&::cupar::detail::jit_type_of<T>(), nullptr, nullptr},
                                 ::cupar::detail::scalar{},
                                 0,
                                 nullptr,
                                 0,
                                 true}) {}
  /// As cupar::reduce.
  void operator()(const T* d_in, T* d_out, std::size_t n, T init, stream_ref stream,
                  memory_resource& mr = default_resource()) const {
    ::cupar::detail::jit_reduce({"cupar::jit::reduce_plan", &::cupar::detail::jit_type_of<T>(),
                                 d_in, d_out, nullptr, n, &op_, &init, state_.get()},
                                stream, mr);
  }
  /// As cupar::reduce_value (synchronises the stream).
  T value(const T* d_in, std::size_t n, T init, stream_ref stream,
          memory_resource& mr = default_resource()) const {
    T result;
    ::cupar::detail::jit_reduce({"cupar::jit::reduce_plan", &::cupar::detail::jit_type_of<T>(),
                                 d_in, nullptr, &result, n, &op_, &init, state_.get()},
                                stream, mr);
    return result;
  }
};

/// inclusive or exclusive scan with a fixed operator on T.
template <class T>
class scan_plan : public detail::plan_base {
 public:
  scan_plan(op o, bool inclusive)
      : plan_base(std::move(o), {inclusive ? ::cupar::detail::jit_compile_args::scan_inclusive
                                           : ::cupar::detail::jit_compile_args::scan_exclusive,
                                 {&::cupar::detail::jit_type_of<T>(), nullptr, nullptr},
                                 ::cupar::detail::scalar{},
                                 0,
                                 nullptr,
                                 0,
                                 true}),
        inclusive_(inclusive) {}
  /// As cupar::inclusive_scan (the plan must have been made with inclusive = true).
  void inclusive(const T* d_in, T* d_out, std::size_t n, stream_ref stream,
                 memory_resource& mr = default_resource()) const {
    check(true);
    ::cupar::detail::jit_scan({"cupar::jit::scan_plan", &::cupar::detail::jit_type_of<T>(), d_in,
                               d_out, n, &op_, nullptr, state_.get()},
                              stream, mr);
  }
  /// As cupar::exclusive_scan (the plan must have been made with inclusive = false).
  void exclusive(const T* d_in, T* d_out, std::size_t n, T init, stream_ref stream,
                 memory_resource& mr = default_resource()) const {
    check(false);
    ::cupar::detail::jit_scan({"cupar::jit::scan_plan", &::cupar::detail::jit_type_of<T>(), d_in,
                               d_out, n, &op_, &init, state_.get()},
                              stream, mr);
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
      : plan_base(std::move(o), {::cupar::detail::jit_compile_args::transform_unary,
                                 {&::cupar::detail::jit_type_of<In>(),
                                  &::cupar::detail::jit_type_of<Out>(), nullptr},
                                 ::cupar::detail::scalar{},
                                 0,
                                 nullptr,
                                 0,
                                 true}) {}
  /// As cupar::transform.
  void operator()(const In* d_in, Out* d_out, std::size_t n, stream_ref stream) const {
    ::cupar::detail::jit_transform({"cupar::jit::transform_plan",
                                    1,
                                    {&::cupar::detail::jit_type_of<In>(), nullptr},
                                    {d_in, nullptr},
                                    &::cupar::detail::jit_type_of<Out>(),
                                    d_out,
                                    n,
                                    &op_,
                                    state_.get()},
                                   stream);
  }
};

/// comparison sort of Key (with Value payloads unless Value is void) with a fixed comparator.
template <class Key, class Value = void>
class sort_plan : public detail::plan_base {
 public:
  explicit sort_plan(op comparator)
      : plan_base(std::move(comparator),
                  {std::is_void_v<Value> ? ::cupar::detail::jit_compile_args::sort_keys
                                         : ::cupar::detail::jit_compile_args::sort_pairs,
                   {&::cupar::detail::jit_type_of<Key>(), value_type(), nullptr},
                   ::cupar::detail::scalar{},
                   0,
                   nullptr,
                   0,
                   true}) {}
  /// As cupar::stable_sort_keys (the sort is stable).
  template <class V = Value, std::enable_if_t<std::is_void_v<V>, int> = 0>
  void operator()(const Key* d_keys_in, Key* d_keys_out, std::size_t n, stream_ref stream,
                  memory_resource& mr = default_resource()) const {
    ::cupar::detail::jit_sort(
        {"cupar::jit::sort_plan", true, &::cupar::detail::jit_type_of<Key>(), nullptr, d_keys_in,
         d_keys_out, nullptr, nullptr, n, &op_, state_.get()},
        stream, mr);
  }
  /// As cupar::stable_sort_pairs.
  template <class V = Value, std::enable_if_t<!std::is_void_v<V>, int> = 0>
  void operator()(const Key* d_keys_in, Key* d_keys_out, const V* d_values_in, V* d_values_out,
                  std::size_t n, stream_ref stream,
                  memory_resource& mr = default_resource()) const {
    ::cupar::detail::jit_sort(
        {"cupar::jit::sort_plan", true, &::cupar::detail::jit_type_of<Key>(), value_type(),
         d_keys_in, d_keys_out, d_values_in, d_values_out, n, &op_, state_.get()},
        stream, mr);
  }

 private:
  static const ::cupar::detail::jit_type* value_type() {
    if constexpr (std::is_void_v<Value>) {
      return nullptr;
    } else {
      static const ::cupar::detail::jit_type t{static_cast<::cupar::detail::scalar>(0), "", nullptr,
                                               sizeof(Value), alignof(Value)};
      return &t;
    }
  }
};

}  // namespace cupar::jit
