// cupar example: a group-by and a sort over every GPU of the machine (or of a cluster, one
// process per GPU), with run-time operators only (this file is built by the host compiler alone):
//
//   SELECT key, COUNT(*), SUM(value), MIN(value), MAX(value) FROM t GROUP BY key
//   SELECT key FROM t ORDER BY key
//
// where t is spread over the GPUs, each holding its own rows. Each GPU's rows are generated on
// it; cupar::dist::reduce_by_key gives every key's group to exactly one GPU, cupar::dist::sort_keys
// leaves each GPU with a sorted slice of the keys. The results are checked against the same
// queries run by cupar on one GPU over all the rows, and both are timed.
//
//   dist_groupby [rows per GPU] [distinct keys]                      one process, every GPU
//   dist_groupby --rank R --size P --id-file F [rows] [keys]         one process per GPU
//
// For the second form start P processes (rank 0 writes the NCCL id to F, the others read it):
//   for r in 0 1 2 3; do ./dist_groupby --rank $r --size 4 --id-file /tmp/job.id & done; wait
//
// Exit status: 0 when the results match one GPU's, 1 when they do not, 77 without a GPU.
#include <cupar/dist.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

/// A group's aggregates (a row is a group of one).
struct agg {
  std::uint32_t count;
  float sum;
  float min;
  float max;
};
CUPAR_JIT_TYPE(agg, "agg", "struct agg { unsigned int count; float sum; float min; float max; };")

namespace {

namespace dist = cupar::dist;
namespace jit = cupar::jit;
using clock_type = std::chrono::steady_clock;

const jit::op merge(
    "agg{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");

/// Rows [first, first + n) of the table, on the stream's device: key = a hash of the row's index
/// modulo `keys`, value = a number in [0, 100).
void make_rows(std::uint64_t first, std::size_t n, std::uint32_t keys, std::uint32_t* d_keys,
               agg* d_rows, cudaStream_t s) {
  jit::op key("(unsigned)(((x + 1) * 0x9E3779B97F4A7C15ull >> 17) % k)");
  key.param("k", static_cast<unsigned long long>(keys));
  cupar::transform(jit::counting(static_cast<unsigned long long>(first)), jit::output(d_keys), n,
                   key, s);
  cupar::transform(jit::counting(static_cast<unsigned long long>(first)), jit::output(d_rows), n,
                   jit::op("agg{1u, (float)(x % 100), (float)(x % 100), (float)(x % 100)}"), s);
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

struct one_gpu_result {
  std::vector<std::uint32_t> keys;  // groups' keys, ascending
  std::vector<agg> groups;
  std::vector<std::uint32_t> sorted;  // every key, sorted
  double group_ms = 0, sort_ms = 0;
};

/// The same queries with cupar on one GPU (the current one), over all P * n rows.
one_gpu_result one_gpu(std::size_t total, std::uint32_t keys, cudaStream_t s) {
  one_gpu_result r;
  cupar::device_buffer<std::uint32_t> k(total, s), sk(total, s), gk(total, s);
  cupar::device_buffer<agg> v(total, s), sv(total, s), gv(total, s);
  make_rows(0, total, keys, k.data(), v.data(), s);
  std::size_t g = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the first builds the operators
    cudaStreamSynchronize(s);
    const auto t0 = clock_type::now();
    cupar::sort_pairs(static_cast<const std::uint32_t*>(k.data()), sk.data(),
                      static_cast<const agg*>(v.data()), sv.data(), total, s);
    g = cupar::reduce_by_key_count(static_cast<const std::uint32_t*>(sk.data()),
                                   static_cast<const agg*>(sv.data()), gk.data(), gv.data(), total,
                                   merge, s);
    r.group_ms = ms_since(t0);
  }
  r.keys = gk.to_host(g);
  r.groups = gv.to_host(g);
  for (int pass = 0; pass < 2; ++pass) {
    cudaStreamSynchronize(s);
    const auto t0 = clock_type::now();
    cupar::sort_keys(static_cast<const std::uint32_t*>(k.data()), sk.data(), total, s);
    cudaStreamSynchronize(s);
    r.sort_ms = ms_since(t0);
  }
  r.sorted = sk.to_host();
  return r;
}

struct rank_result {
  double group_ms = 0, sort_ms = 0;
  std::size_t groups = 0, sorted = 0;
  bool ok = true;
  std::string why;
};

/// One rank's part: the distributed queries, timed, and checked against `ref` (one GPU's).
rank_result run_rank(dist::communicator& c, std::size_t n, std::uint32_t keys,
                     const one_gpu_result& ref) {
  rank_result out;
  cudaStream_t s = nullptr;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  {
    cupar::device_buffer<std::uint32_t> k(n, s);
    cupar::device_buffer<agg> v(n, s);
    make_rows(static_cast<std::uint64_t>(n) * c.rank(), n, keys, k.data(), v.data(), s);
    dist::groups<std::uint32_t, agg> g;
    for (int pass = 0; pass < 2; ++pass) {  // the first builds the operators
      c.synchronize(s);
      const auto t0 = clock_type::now();
      g = dist::reduce_by_key(c, static_cast<const std::uint32_t*>(k.data()),
                              static_cast<const agg*>(v.data()), n, merge, s);
      c.synchronize(s);
      out.group_ms = ms_since(t0);
    }
    cupar::device_buffer<std::uint32_t> sorted;
    for (int pass = 0; pass < 2; ++pass) {
      c.synchronize(s);
      const auto t0 = clock_type::now();
      sorted = dist::sort_keys(c, static_cast<const std::uint32_t*>(k.data()), n, s);
      c.synchronize(s);
      out.sort_ms = ms_since(t0);
    }
    // Check: each of this rank's groups is the one-GPU group of its key ...
    const auto gk = g.keys.to_host();
    const auto gv = g.values.to_host();
    out.groups = gk.size();
    for (std::size_t i = 0; i < gk.size() && out.ok; ++i) {
      const auto it = std::lower_bound(ref.keys.begin(), ref.keys.end(), gk[i]);
      const agg* want =
          it != ref.keys.end() && *it == gk[i] ? &ref.groups[it - ref.keys.begin()] : nullptr;
      if (want == nullptr || want->count != gv[i].count || want->sum != gv[i].sum ||
          want->min != gv[i].min || want->max != gv[i].max) {
        out.ok = false;
        out.why = "group of key " + std::to_string(gk[i]) + " differs from one GPU's";
      }
    }
    // ... and this rank's sorted keys are the one-GPU sorted keys at its offset (every rank's
    // count, from an all-reduce of one-hot counts).
    const auto mine = sorted.to_host();
    out.sorted = mine.size();
    std::vector<unsigned long long> counts(static_cast<std::size_t>(c.size()), 0);
    counts[static_cast<std::size_t>(c.rank())] = mine.size();
    unsigned long long group_count = gk.size();
    cupar::device_buffer<unsigned long long> d(counts, s),
        dg(std::vector<unsigned long long>{group_count}, s);
    dist::all_reduce(c, d.data(), d.data(), counts.size(), jit::plus, s);
    dist::all_reduce(c, dg.data(), dg.data(), 1, jit::plus, s);
    counts = d.to_host();
    group_count = dg.to_host()[0];
    std::size_t at = 0;
    for (int r = 0; r < c.rank(); ++r)
      at += counts[static_cast<std::size_t>(r)];
    if (out.ok && (at + mine.size() > ref.sorted.size() ||
                   !std::equal(mine.begin(), mine.end(), ref.sorted.begin() + at))) {
      out.ok = false;
      out.why = "sorted keys differ from one GPU's";
    }
    if (out.ok && group_count != ref.keys.size()) {
      out.ok = false;
      out.why = std::to_string(group_count) + " groups over the GPUs, one GPU has " +
                std::to_string(ref.keys.size());
    }
  }
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  return out;
}

void print(int P, std::size_t n, const one_gpu_result& ref, const std::vector<rank_result>& rs) {
  double group = 0, sort = 0;
  for (const auto& r : rs) {
    group = std::max(group, r.group_ms);
    sort = std::max(sort, r.sort_ms);
  }
  std::printf("%d GPUs x %zu rows, %zu groups\n\n", P, n, ref.keys.size());
  std::printf("| query | %d GPUs (ms) | one GPU (ms) | speed-up |\n|---|---|---|---|\n", P);
  std::printf("| GROUP BY key: count, sum, min, max | %.2f | %.2f | %.2fx |\n", group, ref.group_ms,
              ref.group_ms / group);
  std::printf("| ORDER BY key | %.2f | %.2f | %.2fx |\n", sort, ref.sort_ms, ref.sort_ms / sort);
}

}  // namespace

int main(int argc, char** argv) {
  int rank = -1, size = 0;
  std::string id_file;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rank" && i + 1 < argc) {
      rank = std::atoi(argv[++i]);
    } else if (a == "--size" && i + 1 < argc) {
      size = std::atoi(argv[++i]);
    } else if (a == "--id-file" && i + 1 < argc) {
      id_file = argv[++i];
    } else {
      rest.push_back(a);
    }
  }
  const std::size_t n =
      rest.size() > 0 ? std::strtoull(rest[0].c_str(), nullptr, 10) : std::size_t(1) << 24;
  const auto keys = static_cast<std::uint32_t>(
      rest.size() > 1 ? std::strtoul(rest[1].c_str(), nullptr, 10) : 1u << 20);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("dist_groupby needs a GPU\n");
    return 77;
  }
  try {
    if (rank >= 0) {
      // One process per GPU.
      const auto id = dist::unique_id::exchange_via_file(id_file, rank, std::chrono::seconds(120));
      dist::config cfg;
      cfg.timeout = std::chrono::seconds(300);
      dist::communicator c(id, size, rank, rank % devices, cfg);
      cudaSetDevice(c.device());
      cudaStream_t s = nullptr;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      const auto ref = one_gpu(n * static_cast<std::size_t>(size), keys, s);
      cudaStreamDestroy(s);
      const auto r = run_rank(c, n, keys, ref);
      std::printf(
          "rank %d: group-by %.2f ms, sort %.2f ms (one GPU: %.2f, %.2f ms), %zu groups, "
          "%zu keys: %s%s\n",
          rank, r.group_ms, r.sort_ms, ref.group_ms, ref.sort_ms, r.groups, r.sorted,
          r.ok ? "matches one GPU" : "MISMATCH: ", r.why.c_str());
      return r.ok ? 0 : 1;
    }
    // One process, every GPU: a thread per rank.
    auto comms = dist::communicator::local();
    const int P = static_cast<int>(comms.size());
    cudaSetDevice(0);
    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const auto ref = one_gpu(n * static_cast<std::size_t>(P), keys, s);
    cudaStreamDestroy(s);
    std::vector<rank_result> results(static_cast<std::size_t>(P));
    dist::run_on_ranks(comms, [&](dist::communicator& c) {
      results[static_cast<std::size_t>(c.rank())] = run_rank(c, n, keys, ref);
    });
    print(P, n, ref, results);
    bool ok = true;
    for (const auto& r : results) {
      if (!r.ok) std::printf("MISMATCH: %s\n", r.why.c_str());
      ok = ok && r.ok;
    }
    std::printf("%s\n", ok ? "results match one GPU's" : "results differ");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("dist_groupby failed: %s\n", e.what());
    return 1;
  }
}
