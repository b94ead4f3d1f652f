// cupar::dist benchmark runner: scaling of the distributed algorithms on 1, 2, 4 ... GPUs of
// this machine, with NCCL's own collectives on the same buffers in the same run, written as one
// Markdown report (and the raw rows as JSON). Built by the host compiler alone, run-time
// operators only.
//
//   cupar_dist_bench [--out bench/RESULTS_DIST.md] [--json FILE] [--quick] [--command TEXT]
//
// Timing: every rank waits at a barrier (a one-element all-reduce, then its stream), runs the
// call and waits for its stream; a repetition's time is the slowest rank's, the row's time the
// median of the repetitions after one warm-up. Rates count the keys (rows, bytes) of all ranks.
#include <cupar/dist.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

CUPAR_JIT_STRUCT(bench_agg, int count; float sum; float min; float max;)

namespace {

namespace dist = cupar::dist;
namespace jit = cupar::jit;
using clock_type = std::chrono::steady_clock;

struct row {
  std::string group, name, unit;
  int ranks = 1;
  std::size_t per_rank = 0, total = 0;
  double ms = 0, rate = 0;  // rate in `unit`
  double reference_ms = 0;  // NCCL's or one GPU's, when the row has one
  std::string reference;    // what it is
  double efficiency = 0;    // scaling efficiency, when the row has one
};

std::vector<row> rows;

/// CUPAR_DIST_PROFILE=1: rank 0's phases of the last repetition of each sort row.
struct phase_row {
  std::string what;
  std::vector<std::pair<std::string, double>> phases;
};
std::vector<phase_row> sort_phases;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

/// A direct NCCL call on a cupar communicator (non-blocking: it may answer ncclInProgress until
/// it is queued).
void check_nccl(ncclResult_t r, const char* what, ncclComm_t comm) {
  while (r == ncclInProgress) {
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(comm, &state) != ncclSuccess) break;
    r = state;
  }
  if (r != ncclSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, ncclGetErrorString(r));
    std::exit(2);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Times `body(rank)` on every rank: warm-up + reps, the slowest rank per repetition, median.
/// `setup` makes the rank's data on its stream, `teardown` frees it (before the stream goes).
double time_ranks(std::vector<dist::communicator>& comms, int reps,
                  const std::function<void(dist::communicator&, cudaStream_t)>& setup,
                  const std::function<void(dist::communicator&, cudaStream_t)>& body,
                  const std::function<void(dist::communicator&)>& teardown) {
  const std::size_t P = comms.size();
  std::vector<std::vector<double>> times(P);
  dist::run_on_ranks(comms, [&](dist::communicator& c) {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    {
      setup(c, s);
      cupar::device_buffer<int> one(std::vector<int>{1}, s);
      for (int r = 0; r < reps + 1; ++r) {
        dist::all_reduce(c, one.data(), one.data(), 1, jit::plus, s);  // barrier
        c.synchronize(s);
        const auto t0 = clock_type::now();
        body(c, s);
        c.synchronize(s);
        const auto t1 = clock_type::now();
        if (r > 0) {
          times[static_cast<std::size_t>(c.rank())].push_back(
              std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
      }
      teardown(c);
    }
    check(cudaStreamSynchronize(s), "sync");
    check(cudaStreamDestroy(s), "cudaStreamDestroy");
  });
  std::vector<double> slowest(static_cast<std::size_t>(reps), 0.0);
  for (std::size_t r = 0; r < P; ++r)
    for (int k = 0; k < reps; ++k)
      slowest[static_cast<std::size_t>(k)] =
          std::max(slowest[static_cast<std::size_t>(k)], times[r][static_cast<std::size_t>(k)]);
  return median(slowest);
}

/// Random u32 keys on the device: a hash of the global index.
void fill_keys(unsigned* d, std::size_t n, unsigned long long first, cudaStream_t s) {
  cupar::transform(jit::counting(first), jit::output(d), n,
                   jit::op("(unsigned)(((x + 1) * 0x9E3779B97F4A7C15ull) >> 29)"), s);
}

std::vector<int> first_devices(int p) {
  std::vector<int> d;
  for (int i = 0; i < p; ++i)
    d.push_back(i);
  return d;
}

// ---- one GPU, no communicator: the reference of the scaling efficiencies ----------------------

double single_gpu_sort_ms(std::size_t n, int reps) {
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  double ms = 0;
  {
    cupar::device_buffer<unsigned> in(n, s), out(n, s);
    fill_keys(in.data(), n, 0, s);
    std::vector<double> t;
    for (int r = 0; r < reps + 1; ++r) {
      check(cudaStreamSynchronize(s), "sync");
      const auto t0 = clock_type::now();
      cupar::sort_keys(static_cast<const unsigned*>(in.data()), out.data(), n, s);
      check(cudaStreamSynchronize(s), "sync");
      if (r > 0)
        t.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    }
    ms = median(t);
  }
  check(cudaStreamDestroy(s), "cudaStreamDestroy");
  return ms;
}

// ---- the cases -------------------------------------------------------------------------------

void bench_sort(int P, std::size_t per_rank, const char* kind, double one_gpu_ms,
                std::size_t one_gpu_n, int reps) {
  auto comms = dist::communicator::local(first_devices(P));
  std::vector<cupar::device_buffer<unsigned>> keys(static_cast<std::size_t>(P));
  const double ms = time_ranks(
      comms, reps,
      [&](dist::communicator& c, cudaStream_t s) {
        auto& k = keys[static_cast<std::size_t>(c.rank())];
        k = cupar::device_buffer<unsigned>(per_rank, s);
        fill_keys(k.data(), per_rank, per_rank * static_cast<std::size_t>(c.rank()), s);
      },
      [&](dist::communicator& c, cudaStream_t s) {
        (void)dist::sort_keys(
            c, static_cast<const unsigned*>(keys[static_cast<std::size_t>(c.rank())].data()),
            per_rank, s);
        if (c.rank() == 0 && dist::detail::profiling()) {
          phase_row pr;
          pr.what = std::string(kind) + ", " + std::to_string(P) + " GPUs, " +
                    std::to_string(per_rank) + " keys per GPU";
          for (const auto& [name, ms] : dist::detail::last_phases())
            pr.phases.emplace_back(name, ms);
          if (!sort_phases.empty() && sort_phases.back().what == pr.what) sort_phases.pop_back();
          sort_phases.push_back(pr);
        }
      },
      [&](dist::communicator& c) { keys[static_cast<std::size_t>(c.rank())] = {}; });
  row r;
  r.group = std::string("sort_keys u32 (") + kind + ")";
  r.name = "cupar::dist::sort_keys";
  r.unit = "Gkeys/s";
  r.ranks = P;
  r.per_rank = per_rank;
  r.total = per_rank * static_cast<std::size_t>(P);
  r.ms = ms;
  r.rate = static_cast<double>(r.total) / (ms * 1e6);
  r.reference = "cupar::sort_keys, one GPU, " + std::to_string(one_gpu_n) + " keys";
  r.reference_ms = one_gpu_ms;
  // Strong: T1 / (P T_P); weak: T1(n) / T_P(P n per GPU... n per GPU).
  r.efficiency = one_gpu_ms / (std::strcmp(kind, "strong") == 0 ? P * ms : ms);
  rows.push_back(r);
  std::fprintf(stderr, "sort %s P=%d: %.3f ms (one GPU %.3f ms), efficiency %.3f\n", kind, P, ms,
               one_gpu_ms, r.efficiency);
}

void bench_all_reduce(int P, std::size_t n, int reps) {
  auto comms = dist::communicator::local(first_devices(P));
  std::vector<cupar::device_buffer<float>> in(static_cast<std::size_t>(P)),
      out(static_cast<std::size_t>(P));
  auto setup = [&](dist::communicator& c, cudaStream_t s) {
    auto& a = in[static_cast<std::size_t>(c.rank())];
    a = cupar::device_buffer<float>(n, s);
    out[static_cast<std::size_t>(c.rank())] = cupar::device_buffer<float>(n, s);
    cupar::transform(jit::counting(0ll), jit::output(a.data()), n, jit::op("(float)(x % 1000)"), s);
  };
  auto teardown = [&](dist::communicator& c) {
    in[static_cast<std::size_t>(c.rank())] = {};
    out[static_cast<std::size_t>(c.rank())] = {};
  };
  const double nccl_ms = time_ranks(
      comms, reps, setup,
      [&](dist::communicator& c, cudaStream_t s) {
        check_nccl(ncclAllReduce(in[static_cast<std::size_t>(c.rank())].data(),
                                 out[static_cast<std::size_t>(c.rank())].data(), n, ncclFloat32,
                                 ncclSum, c.get(), s),
                   "ncclAllReduce", c.get());
      },
      teardown);
  const double named_ms = time_ranks(
      comms, reps, setup,
      [&](dist::communicator& c, cudaStream_t s) {
        dist::all_reduce(c,
                         static_cast<const float*>(in[static_cast<std::size_t>(c.rank())].data()),
                         out[static_cast<std::size_t>(c.rank())].data(), n, jit::plus, s);
      },
      teardown);
  const jit::op custom("a + b");
  const double custom_ms = time_ranks(
      comms, reps, setup,
      [&](dist::communicator& c, cudaStream_t s) {
        dist::all_reduce(c,
                         static_cast<const float*>(in[static_cast<std::size_t>(c.rank())].data()),
                         out[static_cast<std::size_t>(c.rank())].data(), n, custom, s);
      },
      teardown);
  in.clear();
  out.clear();
  const double bytes = static_cast<double>(n) * sizeof(float);
  const double bus = P > 1 ? 2.0 * (P - 1) / P : 1.0;
  for (auto [name, ms] :
       {std::pair<const char*, double>{"cupar::dist::all_reduce(jit::plus)", named_ms},
        std::pair<const char*, double>{"cupar::dist::all_reduce(\"a + b\")", custom_ms}}) {
    row r;
    r.group = "all_reduce f32";
    r.name = name;
    r.unit = "GB/s bus";
    r.ranks = P;
    r.per_rank = n;
    r.total = n;
    r.ms = ms;
    r.rate = bytes * bus / (ms * 1e6);
    r.reference = "ncclAllReduce, same buffers";
    r.reference_ms = nccl_ms;
    r.efficiency = nccl_ms / ms;
    rows.push_back(r);
  }
  std::fprintf(stderr, "all_reduce P=%d: nccl %.3f, named %.3f, custom %.3f ms\n", P, nccl_ms,
               named_ms, custom_ms);
}

void bench_all_to_all(int P, std::size_t bytes_per_rank, int reps) {
  if (P < 2) return;
  auto comms = dist::communicator::local(first_devices(P));
  const std::size_t part = bytes_per_rank / 4 / static_cast<std::size_t>(P);  // floats per peer
  const std::size_t n = part * static_cast<std::size_t>(P);
  std::vector<cupar::device_buffer<float>> in(static_cast<std::size_t>(P)),
      out(static_cast<std::size_t>(P));
  auto teardown = [&](dist::communicator& c) {
    in[static_cast<std::size_t>(c.rank())] = {};
    out[static_cast<std::size_t>(c.rank())] = {};
  };
  auto setup = [&](dist::communicator& c, cudaStream_t s) {
    in[static_cast<std::size_t>(c.rank())] = cupar::device_buffer<float>(n, s);
    out[static_cast<std::size_t>(c.rank())] = cupar::device_buffer<float>(n, s);
    in[static_cast<std::size_t>(c.rank())].fill_bytes(1);
  };
  const double nccl_ms = time_ranks(
      comms, reps, setup,
      [&](dist::communicator& c, cudaStream_t s) {
        check_nccl(ncclAlltoAll(in[static_cast<std::size_t>(c.rank())].data(),
                                out[static_cast<std::size_t>(c.rank())].data(), part, ncclFloat32,
                                c.get(), s),
                   "ncclAlltoAll", c.get());
      },
      teardown);
  const std::vector<std::uint64_t> counts(static_cast<std::size_t>(P), part);
  const double ours_ms = time_ranks(
      comms, reps, setup,
      [&](dist::communicator& c, cudaStream_t s) {
        dist::detail::exchange(c,
                               {{in[static_cast<std::size_t>(c.rank())].data(),
                                 out[static_cast<std::size_t>(c.rank())].data(), sizeof(float)}},
                               counts, counts, s);
      },
      teardown);
  in.clear();
  out.clear();
  const double moved = static_cast<double>(part) * 4 * (P - 1);  // bytes each rank sends away
  row r;
  r.group = "all-to-all (the sort's exchange)";
  r.name = "cupar::dist exchange (ncclSend/ncclRecv)";
  r.unit = "GB/s per rank";
  r.ranks = P;
  r.per_rank = n * 4;
  r.total = n * 4 * static_cast<std::size_t>(P);
  r.ms = ours_ms;
  r.rate = moved / (ours_ms * 1e6);
  r.reference =
      "ncclAlltoAll, same buffers: " + std::to_string(static_cast<int>(moved / (nccl_ms * 1e6))) +
      " GB/s";
  r.reference_ms = nccl_ms;
  r.efficiency = nccl_ms / ours_ms;
  rows.push_back(r);
  std::fprintf(stderr, "all-to-all P=%d: nccl %.3f, ours %.3f ms\n", P, nccl_ms, ours_ms);
}

void bench_histogram(int P, std::size_t per_rank, double one_gpu_ms, int reps) {
  auto comms = dist::communicator::local(first_devices(P));
  std::vector<cupar::device_buffer<float>> x(static_cast<std::size_t>(P));
  std::vector<cupar::device_buffer<unsigned>> h(static_cast<std::size_t>(P));
  const double ms = time_ranks(
      comms, reps,
      [&](dist::communicator& c, cudaStream_t s) {
        auto& a = x[static_cast<std::size_t>(c.rank())];
        a = cupar::device_buffer<float>(per_rank, s);
        h[static_cast<std::size_t>(c.rank())] = cupar::device_buffer<unsigned>(256, s);
        cupar::transform(jit::counting(0ll), jit::output(a.data()), per_rank,
                         jit::op("(float)((x * 2654435761ll) % 1000)"), s);
      },
      [&](dist::communicator& c, cudaStream_t s) {
        dist::histogram_even(
            c, static_cast<const float*>(x[static_cast<std::size_t>(c.rank())].data()),
            h[static_cast<std::size_t>(c.rank())].data(), 257, 0.0f, 1000.0f, per_rank, s);
      },
      [&](dist::communicator& c) {
        x[static_cast<std::size_t>(c.rank())] = {};
        h[static_cast<std::size_t>(c.rank())] = {};
      });
  row r;
  r.group = "histogram_even f32, 256 bins (weak)";
  r.name = "cupar::dist::histogram_even";
  r.unit = "GB/s";
  r.ranks = P;
  r.per_rank = per_rank;
  r.total = per_rank * static_cast<std::size_t>(P);
  r.ms = ms;
  r.rate = static_cast<double>(r.total) * 4 / (ms * 1e6);
  r.reference = "the same call on one GPU";
  r.reference_ms = one_gpu_ms;
  r.efficiency = one_gpu_ms / ms;
  rows.push_back(r);
  std::fprintf(stderr, "histogram P=%d: %.3f ms\n", P, ms);
}

void bench_group_by(int P, std::size_t per_rank, std::size_t groups, const char* kind,
                    double one_gpu_ms, int reps) {
  auto comms = dist::communicator::local(first_devices(P));
  std::vector<cupar::device_buffer<unsigned>> keys(static_cast<std::size_t>(P));
  std::vector<cupar::device_buffer<bench_agg>> vals(static_cast<std::size_t>(P));
  const jit::op merge(
      "bench_agg{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  const double ms = time_ranks(
      comms, reps,
      [&](dist::communicator& c, cudaStream_t s) {
        auto& k = keys[static_cast<std::size_t>(c.rank())];
        k = cupar::device_buffer<unsigned>(per_rank, s);
        vals[static_cast<std::size_t>(c.rank())] = cupar::device_buffer<bench_agg>(per_rank, s);
        jit::op key_op("(unsigned)((((x + 1) * 0x9E3779B97F4A7C15ull) >> 20) % g)");
        key_op.param("g", static_cast<unsigned long long>(groups));
        cupar::transform(jit::counting(static_cast<unsigned long long>(per_rank) * c.rank()),
                         jit::output(k.data()), per_rank, key_op, s);
        cupar::transform(
            jit::counting(0ll), jit::output(vals[static_cast<std::size_t>(c.rank())].data()),
            per_rank, jit::op("bench_agg{1, (float)(x % 100), (float)(x % 100), (float)(x % 100)}"),
            s);
      },
      [&](dist::communicator& c, cudaStream_t s) {
        (void)dist::reduce_by_key(
            c, static_cast<const unsigned*>(keys[static_cast<std::size_t>(c.rank())].data()),
            static_cast<const bench_agg*>(vals[static_cast<std::size_t>(c.rank())].data()),
            per_rank, merge, s);
      },
      [&](dist::communicator& c) {
        keys[static_cast<std::size_t>(c.rank())] = {};
        vals[static_cast<std::size_t>(c.rank())] = {};
      });
  row r;
  r.group = std::string("reduce_by_key u32 -> {count, sum, min, max}, ") + std::to_string(groups) +
            " groups (" + kind + ")";
  r.name = "cupar::dist::reduce_by_key";
  r.unit = "Grows/s";
  r.ranks = P;
  r.per_rank = per_rank;
  r.total = per_rank * static_cast<std::size_t>(P);
  r.ms = ms;
  r.rate = static_cast<double>(r.total) / (ms * 1e6);
  r.reference = "the same call on one GPU";
  r.reference_ms = one_gpu_ms;
  r.efficiency = one_gpu_ms / (std::strcmp(kind, "strong") == 0 ? P * ms : ms);
  rows.push_back(r);
  std::fprintf(stderr, "group-by %s P=%d: %.3f ms\n", kind, P, ms);
}

/// Host cost of the device check of pointer arguments (cupar::set_device_checks), per call, on a
/// machine with several GPUs: a loop of small reduces with it off and on.
void bench_device_check() {
  int count = 0;
  cudaGetDeviceCount(&count);
  if (count < 2) return;
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  double per_call[2] = {0, 0};
  {
    cupar::device_buffer<int> x(std::vector<int>(1024, 1), s), out(1, s);
    // Off and on interleaved, 11 rounds of 20,000 calls each: the medians.
    std::vector<double> t[2];
    for (int round = 0; round < 12; ++round) {
      for (int on = 0; on < 2; ++on) {
        cupar::set_device_checks(on != 0);
        const int calls = 20000;
        check(cudaStreamSynchronize(s), "sync");
        const auto t0 = clock_type::now();
        for (int i = 0; i < calls; ++i)
          cupar::reduce(static_cast<const int*>(x.data()), out.data(), 1024, jit::plus, 0, s);
        const double us = std::chrono::duration<double, std::micro>(clock_type::now() - t0).count();
        check(cudaStreamSynchronize(s), "sync");
        if (round > 0) t[on].push_back(us / calls);
      }
    }
    per_call[0] = median(t[0]);
    per_call[1] = median(t[1]);
    cupar::set_device_checks(false);
  }
  check(cudaStreamDestroy(s), "cudaStreamDestroy");
  row r;
  r.group = "device check (cupar::set_device_checks), host time per call";
  r.name = "cupar::reduce(1,024 int, jit::plus): checks on";
  r.unit = "us/call";
  r.ranks = 1;
  r.ms = per_call[1] / 1000.0;
  r.rate = per_call[1];
  r.reference = "checks off: " + std::to_string(per_call[0]).substr(0, 5) + " us/call";
  r.reference_ms = per_call[0] / 1000.0;
  r.efficiency = per_call[1] - per_call[0];  // the added cost (us)
  rows.push_back(r);
  std::fprintf(stderr, "device check: off %.3f us, on %.3f us per call\n", per_call[0],
               per_call[1]);
}

std::string escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o.push_back('\\');
    o.push_back(ch);
  }
  return o;
}

std::string fmt(double v, int digits = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "bench/RESULTS_DIST.md", json, command;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out = argv[++i];
    else if (a == "--json" && i + 1 < argc)
      json = argv[++i];
    else if (a == "--command" && i + 1 < argc)
      command = argv[++i];
    else if (a == "--quick")
      quick = true;
    else {
      std::fprintf(stderr, "usage: %s [--out FILE.md] [--json FILE] [--quick] [--command TEXT]\n",
                   argv[0]);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "cupar_dist_bench: no GPU\n");
    return 77;
  }
  std::vector<int> counts;
  for (int p = 1; p <= devices; p *= 2)
    counts.push_back(p);
  if (counts.back() != devices) counts.push_back(devices);
  const int reps = quick ? 3 : 5;
  const std::size_t strong_n = quick ? (std::size_t(1) << 26) : (std::size_t(1) << 30);
  const std::size_t weak_n = quick ? (std::size_t(1) << 24) : (std::size_t(1) << 28);

  bench_device_check();
  const double t1_strong = single_gpu_sort_ms(strong_n, reps);
  const double t1_weak = single_gpu_sort_ms(weak_n, reps);
  for (int P : counts)
    bench_sort(P, strong_n / static_cast<std::size_t>(P), "strong", t1_strong, strong_n, reps);
  for (int P : counts)
    bench_sort(P, weak_n, "weak", t1_weak, weak_n, reps);
  for (int P : counts)
    bench_all_reduce(P, quick ? (std::size_t(1) << 24) : (std::size_t(1) << 26), reps);
  for (int P : counts)
    bench_all_to_all(P, quick ? (std::size_t(1) << 28) : (std::size_t(1) << 30), reps);
  double hist1 = 0;
  for (int P : counts) {
    bench_histogram(P, weak_n, P == 1 ? 0.0 : hist1, reps);
    if (P == 1) {
      hist1 = rows.back().ms;
      rows.back().reference_ms = hist1;
      rows.back().efficiency = 1.0;
    }
  }
  const std::size_t rows_n = quick ? (std::size_t(1) << 22) : (std::size_t(1) << 26);
  for (const char* kind : {"strong", "weak"}) {
    double g1 = 0;
    for (int P : counts) {
      const std::size_t per =
          std::strcmp(kind, "strong") == 0 ? rows_n / static_cast<std::size_t>(P) : rows_n;
      bench_group_by(P, per, std::size_t(1) << 20, kind, P == 1 ? 0.0 : g1, reps);
      if (P == 1) {
        g1 = rows.back().ms;
        rows.back().reference_ms = g1;
        rows.back().efficiency = 1.0;
      }
    }
  }

  // The report.
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  char when[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::ostringstream md;
  md << "# cupar::dist: scaling on one machine\n\n"
     << "Generated by `cupar_dist_bench` (bench/dist_bench.cpp) in one run: " << when << ", "
     << devices << " x " << prop.name << " (" << prop.multiProcessorCount << " SMs each), NCCL "
     << dist::nccl_version() << ", command `" << (command.empty() ? "cupar_dist_bench" : command)
     << "`" << (quick ? " (quick sizes)" : "") << ".\n\n"
     << "Each time is the slowest rank's, from a barrier to the end of the call, median of " << reps
     << " after a warm-up. Strong scaling: the same total split over P GPUs, efficiency = "
        "T(1 GPU) / (P T(P)); weak scaling: the same count per GPU, efficiency = T(1) / T(P). "
        "T(1 GPU) of the sorts is cupar::sort_keys on one GPU (no communicator).\n\n";
  std::string group;
  for (const auto& r : rows) {
    if (r.group != group) {
      group = r.group;
      md << "\n## " << group << "\n\n| GPUs | call | per rank | total | time (ms) | " << r.unit
         << " | reference | reference (ms) | ratio / efficiency "
            "|\n|---|---|---|---|---|---|---|---|---|\n";
    }
    md << "| " << r.ranks << " | " << r.name << " | " << r.per_rank << " | " << r.total << " | "
       << fmt(r.ms) << " | " << fmt(r.rate, 2) << " | " << r.reference << " | "
       << fmt(r.reference_ms) << " | " << fmt(r.efficiency) << " |\n";
  }
  if (!sort_phases.empty()) {
    md << "\n## sort_keys phases (rank 0, last repetition; CUPAR_DIST_PROFILE=1 waits at each "
          "boundary)\n\n| run | phases (ms) |\n|---|---|\n";
    for (const auto& pr : sort_phases) {
      md << "| " << pr.what << " | ";
      for (std::size_t i = 0; i < pr.phases.size(); ++i)
        md << (i ? ", " : "") << pr.phases[i].first << " " << fmt(pr.phases[i].second);
      md << " |\n";
    }
  }
  std::ofstream(out) << md.str();
  if (!json.empty()) {
    std::ofstream j(json);
    j << "[\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      j << "  {\"group\": \"" << escape(r.group) << "\", \"name\": \"" << escape(r.name)
        << "\", \"ranks\": " << r.ranks << ", \"per_rank\": " << r.per_rank
        << ", \"total\": " << r.total << ", \"ms\": " << r.ms << ", \"rate\": " << r.rate
        << ", \"unit\": \"" << r.unit << "\", \"reference_ms\": " << r.reference_ms
        << ", \"efficiency\": " << r.efficiency << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    j << "]\n";
  }
  std::printf("%s", md.str().c_str());
  return 0;
}
