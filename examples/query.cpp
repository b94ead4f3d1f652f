// cupar example: three queries over a generated TPC-H-like table, the way a query engine runs
// them: the operators arrive as text (compiled in the untrusted mode, with their constants as
// parameters), and this file is built by the host compiler alone.
//
//   Q6    SELECT SUM(l_extendedprice * l_discount) FROM lineitem
//         WHERE l_shipdate >= :lo AND l_shipdate < :lo + 365
//           AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24
//   Q1    SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice),
//                SUM(l_extendedprice * (1 - l_discount)),
//                SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)), SUM(l_discount), COUNT(*)
//         FROM lineitem WHERE l_shipdate <= :cut GROUP BY l_returnflag, l_linestatus
//   join  SELECT COUNT(*), SUM(l_extendedprice) FROM lineitem JOIN orders
//         ON l_orderkey = o_orderkey WHERE o_orderdate < :date
//
// On the GPU: Q6 is one fused reduce over an expression of four columns; Q1 one group_by, its key
// and its 48-byte accumulator computed from the columns by expressions (the rows past :cut go to
// a group of their own, dropped after); the join an inner_join (hash table on orders), then a
// reduce over the pairs through permutation expressions. The CPU runs the same queries on all its
// cores (OpenMP, when the compiler has it), each step is timed on both, and the results are
// compared.
//
//   query [lineitem rows]      (default 2^24; orders: one for every other order key)
//
// Exit status: 0 when the GPU and the CPU agree, 1 when they do not, 77 without a GPU.
#include <cupar/cupar.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

/// Q1's accumulator: five sums and a count (48 bytes).
CUPAR_JIT_STRUCT(q1_acc, double sum_qty; double sum_base; double sum_disc_price; double sum_charge;
                 double sum_disc; unsigned long long count;)

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

/// Wall time of f() and a synchronisation of the stream.
template <class F>
double gpu_ms(cudaStream_t s, F&& f) {
  cudaStreamSynchronize(s);
  const auto t0 = clock_type::now();
  f();
  cudaStreamSynchronize(s);
  return ms_since(t0);
}

bool close(double a, double b, double rel = 1e-9) {
  return std::fabs(a - b) <= rel * std::max({std::fabs(a), std::fabs(b), 1.0});
}

struct step {
  const char* name;
  double first_ms;  // the first call: the operators compiled, kernels loaded
  double gpu_ms;
  double cpu_ms;
};

int cpu_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t(1) << 24;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("query needs a GPU\n");
    return 77;
  }
  constexpr int days = 2557;  // seven years of ship dates
  const int q6_lo = 730, q1_cut = days - 90, join_date = 1200;

  // lineitem: about four lines an order; orders: the even order keys.
  std::vector<std::int32_t> shipdate(n);
  std::vector<float> quantity(n), price(n), discount(n), tax(n);
  std::vector<unsigned char> returnflag(n), linestatus(n);
  std::vector<std::uint32_t> orderkey(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t h = mix(i);
    shipdate[i] = static_cast<std::int32_t>(h % days);
    quantity[i] = static_cast<float>(1 + (h >> 12) % 50);
    price[i] = quantity[i] * (900.0f + static_cast<float>((h >> 20) % 100000) / 100.0f);
    discount[i] = static_cast<float>((h >> 40) % 11) / 100.0f;
    tax[i] = static_cast<float>((h >> 44) % 9) / 100.0f;
    returnflag[i] = "ANR"[(h >> 48) % 3];
    linestatus[i] = shipdate[i] > days / 2 ? 'O' : 'F';
    orderkey[i] = static_cast<std::uint32_t>(i / 4);
  }
  const std::size_t m = n / 8 + 1;  // orders
  std::vector<std::uint32_t> o_orderkey(m);
  std::vector<std::int32_t> o_orderdate(m);
  for (std::size_t j = 0; j < m; ++j) {
    o_orderkey[j] = static_cast<std::uint32_t>(2 * j);
    o_orderdate[j] = static_cast<std::int32_t>(mix(j + n) % days);
  }

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  std::vector<step> steps;
  bool ok = true;
  {
    namespace jit = cupar::jit;
    cupar::device_buffer<std::int32_t> d_ship(shipdate, stream), d_odate(o_orderdate, stream);
    cupar::device_buffer<float> d_qty(quantity, stream), d_price(price, stream),
        d_disc(discount, stream), d_tax(tax, stream);
    cupar::device_buffer<unsigned char> d_rf(returnflag, stream), d_ls(linestatus, stream);
    cupar::device_buffer<std::uint32_t> d_okey(orderkey, stream), d_o_okey(o_orderkey, stream);

    // The operators as a front end would hand them over: text, untrusted, constants as
    // parameters.
    jit::op q6_row = jit::op::untrusted(
        "(x._0 >= lo && x._0 < lo + 365 && x._1 >= 0.05f && x._1 <= 0.07f && x._2 < 24.0f) ? "
        "static_cast<double>(x._3) * static_cast<double>(x._1) : 0.0");
    q6_row.param("lo", q6_lo);
    jit::op q1_key = jit::op::untrusted(
        "x._0 <= cut ? static_cast<unsigned>(x._1) * 256u + static_cast<unsigned>(x._2) : "
        "0xffffffffu");
    q1_key.param("cut", q1_cut);
    const jit::op q1_row = jit::op::untrusted(
        "q1_acc{static_cast<double>(x._0), static_cast<double>(x._1), "
        "static_cast<double>(x._1) * (1.0 - x._2), "
        "static_cast<double>(x._1) * (1.0 - x._2) * (1.0 + x._3), static_cast<double>(x._2), "
        "1ull}");
    const jit::op q1_merge = jit::op::untrusted(
        "q1_acc{a.sum_qty + b.sum_qty, a.sum_base + b.sum_base, "
        "a.sum_disc_price + b.sum_disc_price, a.sum_charge + b.sum_charge, "
        "a.sum_disc + b.sum_disc, a.count + b.count}");
    jit::op join_row = jit::op::untrusted("x._1 < date ? static_cast<double>(x._0) : 0.0");
    join_row.param("date", join_date);

    // Q6: one fused pass over four columns.
    double q6 = 0;
    auto run_q6 = [&] {
      q6 = cupar::reduce_value(
          jit::transform<double>(
              jit::zip(d_ship.data(), d_disc.data(), d_qty.data(), d_price.data()), q6_row),
          n, jit::plus, 0.0, stream);
    };
    // Q1: the key and the accumulator computed from the columns, then one group_by.
    cupar::groups<std::uint32_t, q1_acc> q1;
    auto run_q1 = [&] {
      cupar::group_by_options o;
      o.sort_by_key = true;
      q1 = cupar::group_by<std::uint32_t, q1_acc>(
          jit::transform<std::uint32_t>(jit::zip(d_ship.data(), d_rf.data(), d_ls.data()), q1_key),
          jit::transform<q1_acc>(
              jit::zip(d_qty.data(), d_price.data(), d_disc.data(), d_tax.data()), q1_row),
          n, q1_merge, stream, o);
    };
    // The join: pairs of (order row, line row), then a reduce over them through gathers.
    std::size_t join_count = 0;
    double join_sum = 0;
    auto run_join = [&] {
      const auto pairs =
          cupar::inner_join<std::uint32_t>(d_o_okey.data(), m, d_okey.data(), n, stream);
      join_count = pairs.size();
      join_sum = cupar::reduce_value(
          jit::transform<double>(
              jit::zip(jit::permutation(d_price.data(), pairs.probe_rows.data()),
                       jit::permutation(d_odate.data(), pairs.build_rows.data())),
              join_row),
          join_count, jit::plus, 0.0, stream);
    };

    const double first_q6 = gpu_ms(stream, run_q6), first_q1 = gpu_ms(stream, run_q1),
                 first_join = gpu_ms(stream, run_join);
    cupar::jit::wait_for_background_builds();
    steps.push_back({"Q6 (fused reduce of 4 columns)", first_q6, gpu_ms(stream, run_q6), 0});
    steps.push_back({"Q1 (group_by, 48-byte accumulator)", first_q1, gpu_ms(stream, run_q1), 0});
    steps.push_back({"join (inner_join, then a reduce)", first_join, gpu_ms(stream, run_join), 0});

    // The CPU, all cores.
    auto t0 = clock_type::now();
    double cpu_q6 = 0;
#pragma omp parallel for reduction(+ : cpu_q6)
    for (long long i = 0; i < static_cast<long long>(n); ++i) {
      if (shipdate[i] >= q6_lo && shipdate[i] < q6_lo + 365 && discount[i] >= 0.05f &&
          discount[i] <= 0.07f && quantity[i] < 24.0f) {
        cpu_q6 += static_cast<double>(price[i]) * static_cast<double>(discount[i]);
      }
    }
    steps[0].cpu_ms = ms_since(t0);

    t0 = clock_type::now();
    constexpr int slots = 256 * 256;
    std::vector<q1_acc> cpu_q1(slots, q1_acc{0, 0, 0, 0, 0, 0});
#pragma omp parallel
    {
      std::vector<q1_acc> mine(slots, q1_acc{0, 0, 0, 0, 0, 0});
#pragma omp for nowait
      for (long long i = 0; i < static_cast<long long>(n); ++i) {
        if (shipdate[i] > q1_cut) continue;
        q1_acc& a = mine[returnflag[i] * 256 + linestatus[i]];
        const double p = price[i], d = discount[i];
        a.sum_qty += quantity[i];
        a.sum_base += p;
        a.sum_disc_price += p * (1.0 - d);
        a.sum_charge += p * (1.0 - d) * (1.0 + tax[i]);
        a.sum_disc += d;
        a.count += 1;
      }
#pragma omp critical
      for (int k = 0; k < slots; ++k) {
        q1_acc& a = cpu_q1[k];
        const q1_acc& b = mine[k];
        a = {a.sum_qty + b.sum_qty,
             a.sum_base + b.sum_base,
             a.sum_disc_price + b.sum_disc_price,
             a.sum_charge + b.sum_charge,
             a.sum_disc + b.sum_disc,
             a.count + b.count};
      }
    }
    steps[1].cpu_ms = ms_since(t0);

    t0 = clock_type::now();
    std::unordered_map<std::uint32_t, std::int32_t> order_date;
    order_date.reserve(m);
    for (std::size_t j = 0; j < m; ++j)
      order_date.emplace(o_orderkey[j], o_orderdate[j]);
    long long cpu_join_count = 0;
    double cpu_join_sum = 0;
#pragma omp parallel for reduction(+ : cpu_join_count, cpu_join_sum)
    for (long long i = 0; i < static_cast<long long>(n); ++i) {
      const auto it = order_date.find(orderkey[i]);
      if (it == order_date.end()) continue;
      ++cpu_join_count;
      if (it->second < join_date) cpu_join_sum += static_cast<double>(price[i]);
    }
    steps[2].cpu_ms = ms_since(t0);

    // Compare: counts exactly, sums (added in other orders) within 1e-9 of their size.
    if (!close(q6, cpu_q6)) {
      std::printf("MISMATCH in Q6: GPU %.6f, CPU %.6f\n", q6, cpu_q6);
      ok = false;
    }
    const std::vector<std::uint32_t> keys = q1.keys.to_host();
    const std::vector<q1_acc> accs = q1.values.to_host();
    std::size_t cpu_groups = 0;
    for (const q1_acc& a : cpu_q1)
      cpu_groups += a.count != 0 ? 1 : 0;
    std::size_t groups = 0;
    for (std::size_t g = 0; g < keys.size(); ++g) {
      if (keys[g] == 0xffffffffu) continue;  // the rows past :cut
      ++groups;
      const q1_acc& a = accs[g];
      const q1_acc& b = cpu_q1[keys[g] % slots];
      if (a.count != b.count || !close(a.sum_qty, b.sum_qty) || !close(a.sum_base, b.sum_base) ||
          !close(a.sum_disc_price, b.sum_disc_price) || !close(a.sum_charge, b.sum_charge) ||
          !close(a.sum_disc, b.sum_disc)) {
        std::printf("MISMATCH in Q1 group %c%c: GPU count %llu, CPU %llu\n",
                    static_cast<char>(keys[g] / 256), static_cast<char>(keys[g] % 256), a.count,
                    b.count);
        ok = false;
      }
    }
    if (groups != cpu_groups) {
      std::printf("MISMATCH in Q1: %zu groups on the GPU, %zu on the CPU\n", groups, cpu_groups);
      ok = false;
    }
    if (join_count != static_cast<std::size_t>(cpu_join_count) || !close(join_sum, cpu_join_sum)) {
      std::printf("MISMATCH in the join: GPU %zu pairs, sum %.3f; CPU %lld, %.3f\n", join_count,
                  join_sum, cpu_join_count, cpu_join_sum);
      ok = false;
    }

    std::printf("lineitem: %zu rows, orders: %zu rows; CPU: %d threads\n", n, m, cpu_threads());
    std::printf("Q6 = %.2f; Q1: %zu groups; join: %zu pairs, sum %.2f\n", q6, groups, join_count,
                join_sum);
    std::printf(
        "\n| query | first call (ms) | GPU (ms) | CPU (ms) | speed-up |\n|---|---|---|---|---|\n");
    for (const step& s : steps) {
      std::printf("| %s | %.1f | %.3f | %.1f | %.0fx |\n", s.name, s.first_ms, s.gpu_ms, s.cpu_ms,
                  s.cpu_ms / s.gpu_ms);
    }
    std::printf("\nresults %s\n", ok ? "match the CPU" : "DIFFER from the CPU");
  }
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
