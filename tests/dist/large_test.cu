// cupar tests: distributed sorts past 2^31 elements in total, and past what one GPU can sort
// alone (label `large`: run alone, `ctest -L large`, on a machine with several GPUs of ~80 GB).
// Too large to gather: each rank checks on its own GPU that its shard is sorted, the ranks
// compare their first and last keys, and the multiset of keys is checked by count, sum and xor
// of the keys before and after (dist::reduce), and the shards' balance.
#include "common/gpu.hpp"

#include <cupar/dist.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>
#include <thrust/iterator/zip_iterator.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace {

namespace dist = cupar::dist;
namespace jit = cupar::jit;

/// Sorts `per_rank` random keys of K on every rank and checks the result; returns a message per
/// failure. `range` > 0 draws keys below it (duplicates).
template <class K>
std::vector<std::string> sort_and_check(std::size_t per_rank, unsigned long long range) {
  auto comms = dist::communicator::local();
  std::mutex m;
  std::vector<std::string> failures;
  const int P = static_cast<int>(comms.size());
  std::vector<K> first(static_cast<std::size_t>(P)), last(static_cast<std::size_t>(P));
  std::vector<std::size_t> sizes(static_cast<std::size_t>(P));
  dist::run_on_ranks(comms, [&](dist::communicator& c) {
    auto fail = [&](const std::string& s) {
      std::lock_guard<std::mutex> lock(m);
      failures.push_back("rank " + std::to_string(c.rank()) + ": " + s);
    };
    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    {
      unsigned long long sum_in = 0, xor_in = 0, sum_out = 0, xor_out = 0;
      cupar::device_buffer<K> out;
      {
        cupar::device_buffer<K> keys(per_rank, s);
        jit::op gen(range == 0 ? "(x + 1) * 0x9E3779B97F4A7C15ull ^ (x >> 7)"
                               : "((x + 1) * 0x9E3779B97F4A7C15ull >> 11) % r");
        gen.param("r", range == 0 ? 1ull : range);
        cupar::transform(jit::counting(static_cast<unsigned long long>(per_rank) * c.rank()),
                         jit::output(keys.data()), per_rank, gen, s);
        const auto as_u64 = jit::transform<unsigned long long>(keys.data(), jit::op("x"));
        sum_in = cupar::reduce_value(as_u64, per_rank, jit::plus, 0ull, s);
        xor_in = cupar::reduce_value(as_u64, per_rank, jit::bit_xor, 0ull, s);
        out = dist::sort_keys(c, static_cast<const K*>(keys.data()), per_rank, s);
      }
      const std::size_t n = out.size();
      if (n > 1) {
        // Sorted: no element after its successor.
        const auto bad = cupar::transform_reduce_value(
            thrust::make_zip_iterator(out.data(), out.data() + 1), n - 1,
            [] __device__(cuda::std::tuple<K, K> t) {
              return cuda::std::get<1>(t) < cuda::std::get<0>(t) ? 1ull : 0ull;
            },
            cuda::std::plus<unsigned long long>{}, 0ull, s);
        if (bad != 0) fail(std::to_string(bad) + " keys out of order in the shard");
      }
      if (n > 0) {
        const auto as_u64 = jit::transform<unsigned long long>(out.data(), jit::op("x"));
        sum_out = cupar::reduce_value(as_u64, n, jit::plus, 0ull, s);
        xor_out = cupar::reduce_value(as_u64, n, jit::bit_xor, 0ull, s);
        cudaMemcpyAsync(&first[static_cast<std::size_t>(c.rank())], out.data(), sizeof(K),
                        cudaMemcpyDeviceToHost, s);
        cudaMemcpyAsync(&last[static_cast<std::size_t>(c.rank())], out.data() + (n - 1), sizeof(K),
                        cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
      }
      sizes[static_cast<std::size_t>(c.rank())] = n;
      // The multiset of keys over all ranks: count, sum and xor before and after.
      std::vector<unsigned long long> v{sum_in, xor_in, sum_out, xor_out, per_rank, n};
      // One all-reduce for the sums and the counts, one for the xors.
      cupar::device_buffer<unsigned long long> sums(
          std::vector<unsigned long long>{v[0], v[2], v[4], v[5]}, s),
          xors(std::vector<unsigned long long>{v[1], v[3]}, s);
      dist::all_reduce(c, sums.data(), sums.data(), 4, jit::plus, s);
      dist::all_reduce(c, xors.data(), xors.data(), 2, jit::bit_xor, s);
      const auto hs = sums.to_host();
      const auto hx = xors.to_host();
      if (hs[0] != hs[1] || hx[0] != hx[1] || hs[2] != hs[3]) {
        fail("the keys changed: sums " + std::to_string(hs[0]) + " / " + std::to_string(hs[1]) +
             ", xors " + std::to_string(hx[0]) + " / " + std::to_string(hx[1]) + ", counts " +
             std::to_string(hs[2]) + " / " + std::to_string(hs[3]));
      }
      const double bound = static_cast<double>(hs[2]) / P * 1.05 + 1;
      if (static_cast<double>(n) > bound) fail("shard of " + std::to_string(n) + " over the bound");
    }
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  });
  // Shards in order across ranks.
  int prev = -1;
  for (int r = 0; r < P; ++r) {
    if (sizes[static_cast<std::size_t>(r)] == 0) continue;
    if (prev >= 0 && first[static_cast<std::size_t>(r)] < last[static_cast<std::size_t>(prev)]) {
      failures.push_back("rank " + std::to_string(r) + " starts before rank " +
                         std::to_string(prev) + " ends");
    }
    prev = r;
  }
  return failures;
}

TEST(DistLarge, SortOfMoreThan2To32KeysInAll) {
  CUPAR_REQUIRE_GPU();
  const std::size_t per_rank = (std::size_t(1) << 31) + 7;  // > 2^31 on every rank
  for (const auto& f : sort_and_check<unsigned>(per_rank, 0))
    ADD_FAILURE() << f;
  for (const auto& f : sort_and_check<int>(per_rank, 1000))  // heavy duplicates
    ADD_FAILURE() << f;
}

TEST(DistLarge, SortOfMoreKeysThanOneGpuCanSortAlone) {
  CUPAR_REQUIRE_GPU();
  int devices = 0;
  cudaGetDeviceCount(&devices);
  if (devices < 4) GTEST_SKIP() << "needs four GPUs, this machine has " << devices;
  // 64-bit keys whose total size exceeds one GPU's whole memory by 2%: one GPU cannot even hold
  // them, let alone sort them (a radix sort needs the keys twice). H100: about 2.6 x 10^9 keys
  // per GPU (21 GB), H200: about 4.6 x 10^9 (37 GB); each GPU needs about 3.3 times its share.
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);
  const std::size_t per_rank =
      static_cast<std::size_t>(static_cast<double>(p.totalGlobalMem) * 1.02 /
                               (sizeof(unsigned long long) * static_cast<double>(devices))) +
      1;
  RecordProperty("keys", std::to_string(per_rank * devices));
  RecordProperty("one_gpu_bytes", std::to_string(p.totalGlobalMem));
  EXPECT_GT(per_rank * devices * sizeof(unsigned long long), p.totalGlobalMem);
  for (const auto& f : sort_and_check<unsigned long long>(per_rank, 0))
    ADD_FAILURE() << f;
}

}  // namespace
