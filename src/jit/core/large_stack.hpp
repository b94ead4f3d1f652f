// cupar internal: running NVRTC and nvJitLink on a thread with a large stack.
//
// NVRTC's parser recurses on nested expressions and crashed the process (stack overflow) on
// operators nested a few thousand levels deep on an 8 MiB stack (snippet_check.cpp); the calling
// thread's stack may be smaller still. Compiles and links therefore run on a thread of their own
// with a 64 MiB stack (address space only: the pages are touched as the recursion needs them),
// and the operator's text is held to limits that stay well inside it.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <type_traits>
#include <utility>

namespace cupar::detail::jit {

inline constexpr std::size_t large_stack_bytes = std::size_t(64) << 20;

/// Runs `f()` on a new thread with a `large_stack_bytes` stack and waits for it; an exception
/// from `f` is rethrown here. Falls back to running `f` on the calling thread if no thread can
/// be made. Costs a thread start (tens of microseconds), negligible beside a compile.
template <class F>
void run_on_large_stack(F&& f) {
  using fn_type = std::remove_reference_t<F>;
  struct job {
    fn_type* fn;
    std::exception_ptr error;
    static void* run(void* p) {
      auto* j = static_cast<job*>(p);
      try {
        (*j->fn)();
      } catch (...) {
        j->error = std::current_exception();
      }
      return nullptr;
    }
  };
  job j{&f, nullptr};
  pthread_attr_t attr;
  bool started = false;
  pthread_t thread{};
  if (pthread_attr_init(&attr) == 0) {
    if (pthread_attr_setstacksize(&attr, large_stack_bytes) == 0) {
      started = pthread_create(&thread, &attr, &job::run, &j) == 0;
    }
    pthread_attr_destroy(&attr);
  }
  if (!started) {
    f();
    return;
  }
  pthread_join(thread, nullptr);
  if (j.error) std::rethrow_exception(j.error);
}

}  // namespace cupar::detail::jit
