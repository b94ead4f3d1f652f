// cupar internal: launching JIT kernels through the driver from CUB's host dispatch (its
// KernelLauncherFactory seam), and the type-erased kernel arguments.
#pragma once

#include "driver.hpp"
#include "engine.hpp"

#include <cupar/detail/cuda_check.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace cupar::detail::jit {

/// a / b rounded up (grid sizes, tiles), for positive b.
inline long long ceil_div(long long a, long long b) {
  return (a + b - 1) / b;
}

/// A kernel argument whose bytes live elsewhere (an element value, the operator's state): the
/// launch passes the pointer to them, and the driver copies as many bytes as the kernel's
/// parameter has.
struct erased_arg {
  const void* ptr;
};

template <class T>
void* arg_address(const T& a) {
  return const_cast<void*>(static_cast<const void*>(std::addressof(a)));
}
inline void* arg_address(const erased_arg& a) {
  return const_cast<void*>(a.ptr);
}

/// The bytes of a cupar_init<T> kernel argument (jit_ops/cupar_prelude.cuh: the initial value of
/// reduce and the scans) for a T of `size` bytes and `align`: the host value `value` (may be null
/// with `from`), and `from`, a device address the kernel reads the value at instead (null: use
/// `value`). Pass it as erased_arg{init.bytes()}. Made on every reduce and scan call: held in
/// place up to 256 bytes (every arithmetic type and struct class), on the heap beyond.
class jit_init_value {
 public:
  jit_init_value(const void* value, const void* from, std::size_t size, std::size_t align) {
    const std::size_t at = (size + 7) / 8 * 8;  // the pointer's offset
    const std::size_t a = align > 8 ? align : 8;
    const std::size_t total = (at + sizeof from + a - 1) / a * a;  // sizeof(cupar_init<T>)
    if (total > sizeof local_) heap_.reset(new unsigned char[total]());
    unsigned char* p = heap_ ? heap_.get() : local_;
    if (value != nullptr) std::memcpy(p, value, size);
    std::memcpy(p + at, &from, sizeof from);
  }
  const void* bytes() const { return heap_ ? heap_.get() : local_; }

 private:
  alignas(16) unsigned char local_[256] = {};
  std::unique_ptr<unsigned char[]> heap_;
};

/// First launch failure of a dispatch. CUB's host dispatch checks cudaPeekAtLastError after each
/// launch, which says nothing about driver launches; failures are collected here instead and
/// reported after the dispatch returns.
struct launch_status {
  CUresult first = CUDA_SUCCESS;
  void record(CUresult r) {
    if (first == CUDA_SUCCESS) first = r;
  }
};

struct jit_launcher {
  dim3 grid, block;
  std::size_t smem;
  CUstream stream;
  bool dependent;
  const device_info* dev;
  launch_status* status;

  template <class... Args>
  cudaError_t doit(CUkernel kernel, const Args&... args) const {
    void* params[] = {arg_address(args)...};
    const auto& d = driver::get();
    CUfunction f = nullptr;
    CUresult r = d.kernel_get_function(&f, kernel);
    if (r == CUDA_SUCCESS) {
      if (dependent && dev->arch >= 90) {
        // Programmatic dependent launch, as CUB's own launcher does for these kernels.
        CUlaunchAttribute attribute[1];
        attribute[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attribute[0].value.programmaticStreamSerializationAllowed = 1;
        CUlaunchConfig config{};
        config.gridDimX = grid.x;
        config.gridDimY = grid.y;
        config.gridDimZ = grid.z;
        config.blockDimX = block.x;
        config.blockDimY = block.y;
        config.blockDimZ = block.z;
        config.sharedMemBytes = static_cast<unsigned>(smem);
        config.hStream = stream;
        config.attrs = attribute;
        config.numAttrs = 1;
        r = d.launch_kernel_ex(&config, f, params, nullptr);
      } else {
        r = d.launch_kernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                            static_cast<unsigned>(smem), stream, params, nullptr);
      }
    }
    if (r != CUDA_SUCCESS) {
      status->record(r);
      return cudaErrorLaunchFailure;
    }
    return cudaSuccess;
  }
};

struct jit_launcher_factory {
  const device_info* dev;
  const loaded_module* mod;
  launch_status* status;

  jit_launcher operator()(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                          bool dependent = false) const {
    return jit_launcher{grid, block, smem, stream, dependent, dev, status};
  }
  cudaError_t PtxVersion(int& version) const {
    version = dev->arch * 10;
    return cudaSuccess;
  }
  cudaError_t MultiProcessorCount(int& count) const {
    count = dev->sm_count;
    return cudaSuccess;
  }
  cudaError_t MaxSmOccupancy(int& occupancy, CUkernel kernel, int block, int smem = 0) const {
    try {
      occupancy = mod->occupancy(kernel, block, static_cast<std::size_t>(smem));
      return cudaSuccess;
    } catch (const std::exception&) {
      status->record(CUDA_ERROR_INVALID_VALUE);
      return cudaErrorInvalidValue;
    }
  }
  cudaError_t MaxGridDimX(int& x) const {
    x = dev->max_grid_dim_x;
    return cudaSuccess;
  }
};

/// Runtime agent policy (CUB's dispatch reads BlockThreads / ItemsPerThread through wrappers
/// whose primary templates accept any type with these members).
struct agent_policy {
  int block_threads;
  int items_per_thread;
  int BlockThreads() const { return block_threads; }
  int ItemsPerThread() const { return items_per_thread; }
  int ItemsPerTile() const { return block_threads * items_per_thread; }
};

/// Throws for a failed dispatch: a recorded launch failure first, else CUB's status.
inline void check_dispatch(cudaError_t status, const launch_status& launches, const char* call) {
  if (launches.first != CUDA_SUCCESS) driver::throw_error(launches.first, call);
  check_cuda(status, call);
}

// The "+index" and "+io" inputs and outputs (scans, stream compaction).
/// The "+index" sets' input as the kernels take it by value (jit_ops/cupar_expr_input.cuh,
/// cupar_expr_iterator): the expression's state, then the first index.
struct alignas(16) expression_input {
  unsigned char state[cupar::jit::max_param_bytes];
  unsigned long long base;
  /// The input of the expression whose operator state is `state` (null: zeros), from index 0.
  static expression_input of(const void* state) {
    expression_input e{};
    if (state != nullptr) std::memcpy(e.state, state, sizeof e.state);
    return e;
  }
};
static_assert(sizeof(expression_input) == cupar::jit::max_param_bytes + 16,
              "cupar_expr_iterator's layout: 64 state bytes, the index, padding to 16");

// The host dispatch of each family is in its file (families/<family>.cu). All are CUB-style
// two-phase: with temp == null they only compute `temp_bytes`.

}  // namespace cupar::detail::jit
