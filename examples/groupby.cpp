// cupar example: a group-by on a table of rows (u32 key, f32 value), the way a query engine runs
// it, with run-time operators only (this file is built by the host compiler alone):
//
//   SELECT key, COUNT(*), SUM(value), MIN(value), MAX(value) FROM t GROUP BY key
//   HAVING SUM(value) / COUNT(*) > 600
//
// on the GPU: sort the rows by key (radix sort), turn each row into a partial group, reduce the
// runs of equal keys with one struct accumulator (count, sum, min, max), keep the groups whose
// mean passes the filter. The CPU does the same with the standard library, each step is timed on
// both, and the results are compared.
//
//   groupby [rows] [distinct keys]      (defaults: 2^26 rows, about 2^20 distinct keys)
//
// Exit status: 0 when the GPU and the CPU agree, 1 when they do not, 77 without a GPU.
#include <cupar/cupar.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

/// One group: its key and the aggregates of its rows. A row becomes a group of one.
struct group {
  std::uint32_t key;
  std::uint32_t count;
  float sum;
  float min;
  float max;
};
CUPAR_JIT_TYPE(group, "group",
               "struct group { unsigned int key; unsigned int count; float sum; float min; "
               "float max; };")

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

/// splitmix64: the table's rows are a function of their index.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Times `f` on the GPU: wall time of the call and a synchronisation of its stream.
template <class F>
double gpu_ms(cudaStream_t s, F&& f) {
  cudaStreamSynchronize(s);
  const auto t0 = clock_type::now();
  f();
  cudaStreamSynchronize(s);
  return ms_since(t0);
}

struct step {
  const char* name;
  double build_ms;  // the first call: run-time compilation of the operator (0: none)
  double gpu_ms;
  double cpu_ms;
};

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t(1) << 26;
  const std::uint32_t distinct =
      argc > 2 ? static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 1u << 20;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("groupby needs a GPU\n");
    return 77;
  }
  const float mean_threshold = 600.0f;

  // The table.
  std::vector<std::uint32_t> keys(n);
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t h = mix(i);
    keys[i] = static_cast<std::uint32_t>(h % distinct);
    values[i] = static_cast<float>((h >> 40) % 1000000) / 1000.0f;  // [0, 1000) in steps of 0.001
  }

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  std::vector<step> steps;
  bool ok = true;
  {
    cupar::device_buffer<std::uint32_t> d_keys(keys, stream), d_sorted_keys(n, stream),
        d_group_keys(n, stream);
    cupar::device_buffer<float> d_values(values, stream), d_sorted_values(n, stream);
    cupar::device_buffer<group> d_rows(n, stream), d_groups(n, stream), d_kept(n, stream);

    // The operators, as a query engine would receive them (text known at run time).
    const cupar::jit::op to_group("group{a, 1u, b, b, b}");
    const cupar::jit::op merge(
        "group{a.key, a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), "
        "fmaxf(a.max, b.max)}");
    cupar::jit::op having("x.sum > t * static_cast<float>(x.count)");
    having.param("t", mean_threshold);

    // 1. Sort the rows by key (radix sort, precompiled in the library: nothing to compile).
    auto sort = [&] {
      cupar::sort_pairs(d_keys.data(), d_sorted_keys.data(), d_values.data(),
                        d_sorted_values.data(), n, stream);
    };
    // 2. Each row as a group of one (a binary transform to a struct).
    auto rows = [&] {
      cupar::transform(d_sorted_keys.data(), d_sorted_values.data(), d_rows.data(), n, to_group,
                       stream);
    };
    // 3. Reduce the runs of equal keys: one struct accumulator for the four aggregates.
    std::size_t num_groups = 0;
    auto reduce = [&] {
      num_groups =
          cupar::reduce_by_key_count(d_sorted_keys.data(), d_rows.data(), d_group_keys.data(),
                                     d_groups.data(), n, merge, stream);
    };
    // 4. HAVING: keep the groups whose mean passes the threshold.
    std::size_t num_kept = 0;
    auto filter = [&] {
      num_kept = cupar::select_if_count(d_groups.data(), d_kept.data(), num_groups, having, stream);
    };

    // First calls: the operators on the `group` struct are compiled at run time (once per
    // machine: later runs load them from the disk cache).
    const double build_sort = gpu_ms(stream, sort), build_rows = gpu_ms(stream, rows);
    const double build_reduce = gpu_ms(stream, reduce), build_filter = gpu_ms(stream, filter);
    cupar::jit::wait_for_background_builds();
    steps.push_back({"sort rows by key (radix)", build_sort, gpu_ms(stream, sort), 0});
    steps.push_back({"row -> group of one", build_rows, gpu_ms(stream, rows), 0});
    steps.push_back({"reduce_by_key (struct)", build_reduce, gpu_ms(stream, reduce), 0});
    steps.push_back({"select_if (HAVING)", build_filter, gpu_ms(stream, filter), 0});

    // The CPU: the same steps with the standard library.
    auto t0 = clock_type::now();
    std::vector<std::pair<std::uint32_t, float>> sorted(n);
    for (std::size_t i = 0; i < n; ++i)
      sorted[i] = {keys[i], values[i]};
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    steps[0].cpu_ms = ms_since(t0);
    t0 = clock_type::now();
    std::vector<group> cpu_rows(n);
    for (std::size_t i = 0; i < n; ++i) {
      const float v = sorted[i].second;
      cpu_rows[i] = {sorted[i].first, 1u, v, v, v};
    }
    steps[1].cpu_ms = ms_since(t0);
    t0 = clock_type::now();
    std::vector<group> cpu_groups;
    for (const group& r : cpu_rows) {
      if (!cpu_groups.empty() && cpu_groups.back().key == r.key) {
        group& g = cpu_groups.back();
        g.count += r.count;
        g.sum += r.sum;
        g.min = std::min(g.min, r.min);
        g.max = std::max(g.max, r.max);
      } else {
        cpu_groups.push_back(r);
      }
    }
    steps[2].cpu_ms = ms_since(t0);
    t0 = clock_type::now();
    std::vector<group> cpu_kept;
    std::copy_if(
        cpu_groups.begin(), cpu_groups.end(), std::back_inserter(cpu_kept),
        [&](const group& g) { return g.sum > mean_threshold * static_cast<float>(g.count); });
    steps[3].cpu_ms = ms_since(t0);

    // Compare: keys, counts, minima and maxima exactly; sums (added in another order on the GPU)
    // within float rounding. The filter compares a sum with a threshold, so a group whose mean is
    // within rounding of the threshold may fall on either side: compare the kept sets with that
    // allowance.
    const std::vector<std::uint32_t> got_keys = d_group_keys.to_host();
    std::vector<group> got = d_groups.to_host();
    got.resize(num_groups);
    if (num_groups != cpu_groups.size()) {
      std::printf("MISMATCH: %zu groups on the GPU, %zu on the CPU\n", num_groups,
                  cpu_groups.size());
      ok = false;
    }
    std::size_t bad = 0;
    for (std::size_t g = 0; ok && g < num_groups; ++g) {
      const group& a = got[g];
      const group& b = cpu_groups[g];
      const float tol = 1e-5f * static_cast<float>(b.count) * std::max(b.max, 1.0f);
      if (got_keys[g] != b.key || a.key != b.key || a.count != b.count || a.min != b.min ||
          a.max != b.max || std::fabs(a.sum - b.sum) > tol) {
        if (bad++ < 3) {
          std::printf("MISMATCH in group %zu: GPU {%u, %u, %g, %g, %g}, CPU {%u, %u, %g, %g, %g}\n",
                      g, a.key, a.count, a.sum, a.min, a.max, b.key, b.count, b.sum, b.min, b.max);
        }
      }
    }
    std::vector<group> kept = d_kept.to_host();
    kept.resize(num_kept);
    std::size_t kept_bad = 0;
    for (const group& k : kept) {
      const auto it =
          std::lower_bound(cpu_groups.begin(), cpu_groups.end(), k.key,
                           [](const group& g, std::uint32_t key) { return g.key < key; });
      if (it == cpu_groups.end() || it->key != k.key) {
        ++kept_bad;
        continue;
      }
      const double mean = static_cast<double>(it->sum) / it->count;
      if (mean < mean_threshold * (1 - 1e-5)) ++kept_bad;  // clearly below: should not be kept
    }
    const long long diff =
        static_cast<long long>(num_kept) - static_cast<long long>(cpu_kept.size());
    if (bad != 0 || kept_bad != 0 || std::llabs(diff) > 0.001 * cpu_kept.size() + 2) ok = false;

    std::printf("group-by of %zu rows (u32 keys, about %u distinct; f32 values) on %s\n", n,
                distinct,
                cupar::jit::cache_directory().empty() ? "a GPU (disk cache off)" : "a GPU");
    std::printf("%zu groups, %zu with a mean above %g (CPU: %zu groups, %zu kept)\n", num_groups,
                num_kept, mean_threshold, cpu_groups.size(), cpu_kept.size());
    std::printf(
        "\n| step | first call (ms) | GPU (ms) | CPU (ms) | speed-up |\n|---|---|---|---|---|\n");
    double gpu_total = 0, cpu_total = 0;
    for (const step& s : steps) {
      std::printf("| %s | %.1f | %.3f | %.1f | %.0fx |\n", s.name, s.build_ms, s.gpu_ms, s.cpu_ms,
                  s.cpu_ms / s.gpu_ms);
      gpu_total += s.gpu_ms;
      cpu_total += s.cpu_ms;
    }
    std::printf("| total | | %.3f | %.1f | %.0fx |\n", gpu_total, cpu_total, cpu_total / gpu_total);
    std::printf("\nresults %s\n", ok ? "match the CPU" : "DIFFER from the CPU");
  }
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
