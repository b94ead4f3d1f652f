// cupar benchmarks: the jit_latency rows. Each runs cupar_jit_latency (jit_latency.cpp, built
// next to cupar_bench) as fresh processes and reports what they measured, in seconds: the row's
// manual time (one iteration) and the counter `seconds`, plus the other numbers the process
// printed as counters. Per case, one "session" of processes:
//
//   1. cold: an empty temporary CUPAR_CACHE_DIR, `--measure first_call,warm,new_operator`:
//      jit_latency/cold_process/<case>             the first call with the operator
//      jit_latency/warm_in_process/<case>          then the repeated call (median of 1,000)
//      jit_latency/new_operator_in_process/<case>  then further new operators (median; counter
//                                                  max_seconds)
//      The process waits for the background (optimised) build after its first call, so the
//      directory holds that build when it exits.
//   2. disk: a second process on the same directory, `--measure first_call`:
//      jit_latency/disk_cache_process/<case>       (the row fails unless it hit the disk cache)
//   3. switch (reduce_f32, merge_sort_keys_f32, select_if_u32, reduce_by_key_u32_f32,
//      segmented_reduce_f32, lower_bound_u32, sum_of_squares_f32): a third process on the same
//      directory, `--measure switch --operators 5`:
//      jit_latency/switch_in_process/<case>        what the call that switches to the optimised
//                                                  build pays over the calls after it (median of
//                                                  5 new operators; counter max_seconds)
//   The *_optimized cases run step 1 only, with CUPAR_JIT_MODE=optimized and first_call only:
//      jit_latency/cold_process/<case>_optimized   the synchronous optimised build
//
// Every process gets CUDA_CACHE_DISABLE=1 (the driver's ComputeCache would otherwise serve
// repeated nvJitLink links from an earlier run of the suite), CUPAR_JIT_MODE set, and
// CUPAR_DISABLE_DISK_CACHE removed. The directories are removed afterwards. A session's result is
// used once per row: a row run again (--benchmark_repetitions) runs a new session.
#include "common.hpp"
#include "rows.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

extern char** environ;

namespace cupar_bench {
namespace {

/// Longest a latency process may run (a cold merge sort session builds 21 operators).
constexpr int process_timeout_s = 300;

// ---------------------------------------------------------------------------------------------
// Processes.

/// One `result ...` line of cupar_jit_latency: its key=value fields.
struct measurement {
  std::map<std::string, std::string> fields;
  double process_seconds = 0;  // wall time of the process that printed it

  bool has(const std::string& key) const { return fields.count(key) != 0; }
  double number(const std::string& key) const {
    const auto it = fields.find(key);
    if (it == fields.end()) throw std::runtime_error("cupar_jit_latency printed no " + key);
    return std::strtod(it->second.c_str(), nullptr);
  }
};

struct process_output {
  int status = -1;  // exit status, or 128 + signal
  bool timed_out = false;
  double seconds = 0;
  std::string text;  // stdout and stderr together
  std::vector<measurement> results;

  /// The last lines of the output, for error messages.
  std::string tail(std::size_t max_chars = 600) const {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
      t.pop_back();
    if (t.size() > max_chars) t = "..." + t.substr(t.size() - max_chars);
    for (char& c : t) {
      if (c == '\n') c = '|';
    }
    return t;
  }
  const measurement* find(const std::string& measure) const {
    for (const auto& m : results) {
      const auto it = m.fields.find("measure");
      if (it != m.fields.end() && it->second == measure) return &m;
    }
    return nullptr;
  }
};

/// cupar_jit_latency in the directory of this executable.
std::string latency_executable() {
  std::vector<char> buf(4096);
  const ssize_t len = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (len <= 0) throw std::runtime_error("cannot read /proc/self/exe to find cupar_jit_latency");
  const std::filesystem::path self(std::string(buf.data(), static_cast<std::size_t>(len)));
  const std::string exe = (self.parent_path() / "cupar_jit_latency").string();
  if (access(exe.c_str(), X_OK) != 0) {
    throw std::runtime_error(exe + " not found (build the cupar_jit_latency target: it is " +
                             "looked for next to cupar_bench)");
  }
  return exe;
}

/// An empty directory under $TMPDIR (or /tmp), removed with its contents on destruction.
class temp_dir {
 public:
  temp_dir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/cupar_jit_latency.XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw std::runtime_error("mkdtemp(" + tmpl + ") failed: " + std::strerror(errno));
    }
    path_ = tmpl;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

std::vector<measurement> parse_results(const std::string& text) {
  std::vector<measurement> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("result ", 0) != 0) continue;
    measurement m;
    std::istringstream words(line.substr(7));
    std::string w;
    while (words >> w) {
      const auto eq = w.find('=');
      if (eq != std::string::npos) m.fields[w.substr(0, eq)] = w.substr(eq + 1);
    }
    out.push_back(std::move(m));
  }
  return out;
}

/// Runs `exe args...` with this process's environment, `set` added (replacing those variables)
/// and `unset` removed; captures stdout and stderr; kills it after process_timeout_s.
process_output run_process(const std::string& exe, const std::vector<std::string>& args,
                           const std::vector<std::pair<std::string, std::string>>& set,
                           const std::vector<std::string>& unset) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    bool drop = false;
    for (const auto& s : set)
      drop = drop || key == s.first;
    for (const auto& u : unset)
      drop = drop || key == u;
    if (!drop) env.push_back(kv);
  }
  for (const auto& s : set)
    env.push_back(s.first + "=" + s.second);
  std::vector<char*> envp, argv;
  for (auto& s : env)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_s{exe};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  for (auto& s : argv_s)
    argv.push_back(s.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw std::runtime_error("cannot start " + exe + ": " + std::strerror(rc));
  }

  process_output out;
  const auto deadline = start + std::chrono::seconds(process_timeout_s);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      out.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // timeout: checked above
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the process closed its output (it is ending)
    out.text.append(buf, static_cast<std::size_t>(got));
  }
  close(fds[0]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  out.results = parse_results(out.text);
  for (auto& m : out.results)
    m.process_seconds = out.seconds;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sessions.

struct latency_case {
  const char* name;          // the row's <case>
  const char* exe_case;      // cupar_jit_latency --case
  const char* mode;          // CUPAR_JIT_MODE
  int operators;             // new operators (0: cold first call only, no disk process)
  int switch_operators = 0;  // new operators of the switch process (0: no switch row)
};

const latency_case case_reduce_f32{"reduce_f32", "reduce_f32", "tiered", 20, 5};
const latency_case case_merge_sort_keys_f32{"merge_sort_keys_f32", "merge_sort_keys_f32", "tiered",
                                            20, 5};
// point is struct class s8a4: precompiled kernels in the default build; in a build without the
// class each new operator compiles CUB's kernels from source (1-3 s): 5 of them, not 20.
const latency_case case_reduce_point{"reduce_point", "reduce_point", "tiered", 5};
// The data-processing families (issue 9): 20 new operators each, as for reduce_f32.
const latency_case case_select_if_u32{"select_if_u32", "select_if_u32", "tiered", 20, 5};
const latency_case case_partition_u32{"partition_u32", "partition_u32", "tiered", 20};
const latency_case case_three_way_partition_u32{"three_way_partition_u32",
                                                "three_way_partition_u32", "tiered", 20};
const latency_case case_unique_u32{"unique_u32", "unique_u32", "tiered", 20};
const latency_case case_reduce_by_key_u32_f32{"reduce_by_key_u32_f32", "reduce_by_key_u32_f32",
                                              "tiered", 20, 5};
const latency_case case_inclusive_scan_by_key_u32_f32{
    "inclusive_scan_by_key_u32_f32", "inclusive_scan_by_key_u32_f32", "tiered", 20};
const latency_case case_segmented_reduce_f32{"segmented_reduce_f32", "segmented_reduce_f32",
                                             "tiered", 20, 5};
const latency_case case_segmented_inclusive_scan_f32{"segmented_inclusive_scan_f32",
                                                     "segmented_inclusive_scan_f32", "tiered", 20};
const latency_case case_lower_bound_u32{"lower_bound_u32", "lower_bound_u32", "tiered", 20, 5};
// Struct size classes (issue 11): 16- and 32-byte records served by precompiled class kernels, 20
// new operators each; the 36-byte record has no class (from source, 1-3 s each): 3 of them.
const latency_case case_reduce_rec16{"reduce_rec16", "reduce_rec16", "tiered", 20};
const latency_case case_inclusive_scan_rec16{"inclusive_scan_rec16", "inclusive_scan_rec16",
                                             "tiered", 20};
const latency_case case_merge_sort_rec32{"merge_sort_rec32", "merge_sort_rec32", "tiered", 20};
const latency_case case_reduce_rec36{"reduce_rec36", "reduce_rec36", "tiered", 3};
const latency_case case_reduce_by_key_u32_rec16{"reduce_by_key_u32_rec16",
                                                "reduce_by_key_u32_rec16", "tiered", 20};
const latency_case case_group_by_u32_rec16{"group_by_u32_rec16", "group_by_u32_rec16", "tiered",
                                           20};
// Data-processing classes of records (issue 29 item 8): 56-byte accumulators by key, a 16-byte
// record searched by a two-field comparator.
const latency_case case_reduce_by_key_u32_acc56{"reduce_by_key_u32_acc56",
                                                "reduce_by_key_u32_acc56", "tiered", 20};
const latency_case case_lower_bound_event16{"lower_bound_event16", "lower_bound_event16", "tiered",
                                            20};
const latency_case case_sum_of_squares_f32{"sum_of_squares_f32", "sum_of_squares_f32", "tiered", 20,
                                           5};
// Iterator expressions (issue 10): a new transform of zip(a, b), a new reduction over
// zip(counting, x), a new transform scanned; 20 new operators each, the expression rebuilt per
// call.
const latency_case case_dot_f32{"dot_f32", "dot_f32", "tiered", 20};
const latency_case case_argmax_f32{"argmax_f32", "argmax_f32", "tiered", 20};
const latency_case case_scan_squares_f32{"scan_squares_f32", "scan_squares_f32", "tiered", 20};
// A binary struct transform (rec16, f32) -> f64: the "for_each" kernels (issue 11).
const latency_case case_transform_rec16_f32{"transform_rec16_f32", "transform_rec16_f32", "tiered",
                                            20};
// Expressions in the data-processing families and sorts: select_if of a new transform (fused,
// the "+index" sets), a radix sort of keys computed by a new transform (written, then sorted).
const latency_case case_select_expr_f32{"select_expr_f32", "select_expr_f32", "tiered", 20};
const latency_case case_sort_computed_u32{"sort_computed_u32", "sort_computed_u32", "tiered", 20};
// select_if through an output expression (a new transform_output each time).
const latency_case case_select_output_f32{"select_output_f32", "select_output_f32", "tiered", 20};
// Word and nested types (issue 30): a reduce of __half, a reduce of a nested zip.
const latency_case case_reduce_f16{"reduce_f16", "reduce_f16", "tiered", 20};
const latency_case case_reduce_nested_zip{"reduce_nested_zip", "reduce_nested_zip", "tiered", 20};
const latency_case case_reduce_f32_optimized{"reduce_f32_optimized", "reduce_f32", "optimized", 0};
const latency_case case_merge_sort_keys_f32_optimized{"merge_sort_keys_f32_optimized",
                                                      "merge_sort_keys_f32", "optimized", 0};

enum measure_kind {
  cold_process,
  disk_cache_process,
  warm_in_process,
  new_operator_in_process,
  switch_in_process
};
constexpr int measure_kinds = 5;

struct session {
  std::string error;  // non-empty: the session failed
  measurement results[measure_kinds];
  bool present[measure_kinds] = {};
  bool used[measure_kinds] = {};
};

std::string describe_failure(const char* what, const process_output& p) {
  std::string why = p.timed_out ? "timed out after " + std::to_string(process_timeout_s) + " s"
                                : "exit status " + std::to_string(p.status);
  return std::string(what) + " failed (" + why + "): " + p.tail();
}

session run_session(const latency_case& c) {
  session s;
  try {
    const std::string exe = latency_executable();
    const temp_dir dir;
    const std::vector<std::pair<std::string, std::string>> env{
        {"CUPAR_CACHE_DIR", dir.path()}, {"CUDA_CACHE_DISABLE", "1"}, {"CUPAR_JIT_MODE", c.mode}};
    const std::vector<std::string> unset{"CUPAR_DISABLE_DISK_CACHE"};
    const bool full = c.operators > 0;
    std::vector<std::string> args{"--case", c.exe_case, "--measure",
                                  full ? "first_call,warm,new_operator" : "first_call"};
    if (full) {
      args.push_back("--operators");
      args.push_back(std::to_string(c.operators));
    }
    const process_output cold = run_process(exe, args, env, unset);
    if (cold.status != 0 || cold.timed_out) {
      throw std::runtime_error(describe_failure("the cold process", cold));
    }
    const measurement* first = cold.find("first_call");
    if (first == nullptr) {
      throw std::runtime_error("the cold process printed no first_call result: " + cold.tail());
    }
    if (!first->has("mode") || first->fields.at("mode") != c.mode) {
      throw std::runtime_error(std::string("the cold process ran in mode ") +
                               (first->has("mode") ? first->fields.at("mode") : "?") +
                               ", not CUPAR_JIT_MODE=" + c.mode);
    }
    if (first->number("disk_hits") != 0) {
      throw std::runtime_error("the cold process hit the disk cache in its new directory " +
                               dir.path());
    }
    s.results[cold_process] = *first;
    s.present[cold_process] = true;
    if (!full) return s;
    const measurement* warm = cold.find("warm");
    const measurement* fresh = cold.find("new_operator");
    if (warm == nullptr || fresh == nullptr) {
      throw std::runtime_error("the cold process printed no warm or new_operator result: " +
                               cold.tail());
    }
    s.results[warm_in_process] = *warm;
    s.results[new_operator_in_process] = *fresh;
    s.present[warm_in_process] = s.present[new_operator_in_process] = true;
    if (first->number("stored") < 1) {
      throw std::runtime_error("the cold process wrote nothing to the disk cache (" + dir.path() +
                               ")");
    }
    const process_output disk =
        run_process(exe, {"--case", c.exe_case, "--measure", "first_call"}, env, unset);
    if (disk.status != 0 || disk.timed_out) {
      throw std::runtime_error(describe_failure("the disk cache process", disk));
    }
    const measurement* second = disk.find("first_call");
    if (second == nullptr) {
      throw std::runtime_error("the disk cache process printed no first_call result: " +
                               disk.tail());
    }
    if (second->number("disk_hits") < 1 || second->number("operator_compiles") != 0 ||
        second->number("kernel_compiles") != 0) {
      throw std::runtime_error("the second process did not hit the disk cache: " + disk.tail());
    }
    s.results[disk_cache_process] = *second;
    s.present[disk_cache_process] = true;
    if (c.switch_operators > 0) {
      const process_output sw = run_process(exe,
                                            {"--case", c.exe_case, "--measure", "switch",
                                             "--operators", std::to_string(c.switch_operators)},
                                            env, unset);
      if (sw.status != 0 || sw.timed_out) {
        throw std::runtime_error(describe_failure("the switch process", sw));
      }
      const measurement* cost = sw.find("switch");
      if (cost == nullptr) {
        throw std::runtime_error("the switch process printed no switch result: " + sw.tail());
      }
      s.results[switch_in_process] = *cost;
      s.present[switch_in_process] = true;
    }
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  return s;
}

/// The measurement for one row: from the case's current session unless this row already used
/// it (then from a new session).
measurement take(const latency_case& c, measure_kind k) {
  static std::map<std::string, session> sessions;
  auto it = sessions.find(c.name);
  if (it == sessions.end() || it->second.used[k]) {
    it = sessions.insert_or_assign(c.name, run_session(c)).first;
  }
  session& s = it->second;
  s.used[k] = true;
  if (!s.present[k]) {
    throw std::runtime_error(s.error.empty() ? "not measured" : s.error);
  }
  return s.results[k];
}

void latency_row(benchmark::State& state, const latency_case& c, measure_kind k) {
  run_guarded(state, true, [&] {
    const measurement m = take(c, k);
    const double seconds = m.number("seconds");
    // A switch row's value is a difference, below 0 within noise: the row's time is kept
    // positive, the counter `seconds` has the value.
    for (auto _ : state)
      state.SetIterationTime(std::max(seconds, 1e-9));
    for (const auto& [key, value] : m.fields) {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (end != value.c_str() && *end == '\0') state.counters[key] = benchmark::Counter(v);
    }
    state.counters["process_seconds"] = benchmark::Counter(m.process_seconds);
    state.SetLabel("mode=" + (m.has("mode") ? m.fields.at("mode") : std::string("?")));
  });
}

}  // namespace

void jit_latency_cold_process_reduce_f32(benchmark::State& state) {
  latency_row(state, case_reduce_f32, cold_process);
}
void jit_latency_disk_cache_process_reduce_f32(benchmark::State& state) {
  latency_row(state, case_reduce_f32, disk_cache_process);
}
void jit_latency_warm_in_process_reduce_f32(benchmark::State& state) {
  latency_row(state, case_reduce_f32, warm_in_process);
}
void jit_latency_new_operator_in_process_reduce_f32(benchmark::State& state) {
  latency_row(state, case_reduce_f32, new_operator_in_process);
}
void jit_latency_cold_process_reduce_f32_optimized(benchmark::State& state) {
  latency_row(state, case_reduce_f32_optimized, cold_process);
}

void jit_latency_cold_process_merge_sort_keys_f32(benchmark::State& state) {
  latency_row(state, case_merge_sort_keys_f32, cold_process);
}
void jit_latency_disk_cache_process_merge_sort_keys_f32(benchmark::State& state) {
  latency_row(state, case_merge_sort_keys_f32, disk_cache_process);
}
void jit_latency_warm_in_process_merge_sort_keys_f32(benchmark::State& state) {
  latency_row(state, case_merge_sort_keys_f32, warm_in_process);
}
void jit_latency_new_operator_in_process_merge_sort_keys_f32(benchmark::State& state) {
  latency_row(state, case_merge_sort_keys_f32, new_operator_in_process);
}
void jit_latency_cold_process_merge_sort_keys_f32_optimized(benchmark::State& state) {
  latency_row(state, case_merge_sort_keys_f32_optimized, cold_process);
}

void jit_latency_cold_process_reduce_point(benchmark::State& state) {
  latency_row(state, case_reduce_point, cold_process);
}
void jit_latency_disk_cache_process_reduce_point(benchmark::State& state) {
  latency_row(state, case_reduce_point, disk_cache_process);
}
void jit_latency_warm_in_process_reduce_point(benchmark::State& state) {
  latency_row(state, case_reduce_point, warm_in_process);
}
void jit_latency_new_operator_in_process_reduce_point(benchmark::State& state) {
  latency_row(state, case_reduce_point, new_operator_in_process);
}

#define CUPAR_LATENCY_ROWS(c)                                             \
  void jit_latency_cold_process_##c(benchmark::State& state) {            \
    latency_row(state, case_##c, cold_process);                           \
  }                                                                       \
  void jit_latency_disk_cache_process_##c(benchmark::State& state) {      \
    latency_row(state, case_##c, disk_cache_process);                     \
  }                                                                       \
  void jit_latency_warm_in_process_##c(benchmark::State& state) {         \
    latency_row(state, case_##c, warm_in_process);                        \
  }                                                                       \
  void jit_latency_new_operator_in_process_##c(benchmark::State& state) { \
    latency_row(state, case_##c, new_operator_in_process);                \
  }
CUPAR_LATENCY_ROWS(select_if_u32)
CUPAR_LATENCY_ROWS(partition_u32)
CUPAR_LATENCY_ROWS(three_way_partition_u32)
CUPAR_LATENCY_ROWS(unique_u32)
CUPAR_LATENCY_ROWS(reduce_by_key_u32_f32)
CUPAR_LATENCY_ROWS(inclusive_scan_by_key_u32_f32)
CUPAR_LATENCY_ROWS(segmented_reduce_f32)
CUPAR_LATENCY_ROWS(segmented_inclusive_scan_f32)
CUPAR_LATENCY_ROWS(lower_bound_u32)
CUPAR_LATENCY_ROWS(reduce_rec16)
CUPAR_LATENCY_ROWS(inclusive_scan_rec16)
CUPAR_LATENCY_ROWS(merge_sort_rec32)
CUPAR_LATENCY_ROWS(reduce_rec36)
CUPAR_LATENCY_ROWS(reduce_by_key_u32_rec16)
CUPAR_LATENCY_ROWS(group_by_u32_rec16)
CUPAR_LATENCY_ROWS(reduce_by_key_u32_acc56)
CUPAR_LATENCY_ROWS(lower_bound_event16)
CUPAR_LATENCY_ROWS(sum_of_squares_f32)
CUPAR_LATENCY_ROWS(dot_f32)
CUPAR_LATENCY_ROWS(argmax_f32)
CUPAR_LATENCY_ROWS(scan_squares_f32)
CUPAR_LATENCY_ROWS(transform_rec16_f32)
CUPAR_LATENCY_ROWS(select_expr_f32)
CUPAR_LATENCY_ROWS(sort_computed_u32)
CUPAR_LATENCY_ROWS(select_output_f32)
CUPAR_LATENCY_ROWS(reduce_f16)
CUPAR_LATENCY_ROWS(reduce_nested_zip)
#undef CUPAR_LATENCY_ROWS
#define CUPAR_SWITCH_ROW(c)                                         \
  void jit_latency_switch_in_process_##c(benchmark::State& state) { \
    latency_row(state, case_##c, switch_in_process);                \
  }
CUPAR_SWITCH_ROW(reduce_f32)
CUPAR_SWITCH_ROW(merge_sort_keys_f32)
CUPAR_SWITCH_ROW(select_if_u32)
CUPAR_SWITCH_ROW(reduce_by_key_u32_f32)
CUPAR_SWITCH_ROW(segmented_reduce_f32)
CUPAR_SWITCH_ROW(lower_bound_u32)
CUPAR_SWITCH_ROW(sum_of_squares_f32)
#undef CUPAR_SWITCH_ROW

}  // namespace cupar_bench
