// cupar internal: the JIT engine.
#include "engine.hpp"

#include "build_pool.hpp"
#include "disk_cache.hpp"
#include "family.hpp"
#include "link.hpp"
#include "nvrtc.hpp"
#include "op_definition.hpp"
#include "precompiled.hpp"

#include <cupar/detail/cuda_check.hpp>
#include <cupar/error.hpp>

#include <cuda/std/__cccl/version.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

namespace cupar::detail::jit {

counters& engine_counters() {
  static counters* c = new counters();
  return *c;
}

// --- devices ----------------------------------------------------------------------------------

namespace {
constexpr int max_devices = 64;
std::array<std::atomic<const device_info*>, max_devices> device_infos{};
std::mutex device_mutex;

device_info query_device(int ordinal) {
  const auto& d = driver::get();
  device_info info;
  info.ordinal = ordinal;
  driver::check(d.device_get(&info.device, ordinal), "cuDeviceGet");
  int major = 0, minor = 0;
  driver::check(
      d.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, info.device),
      "cuDeviceGetAttribute");
  driver::check(
      d.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, info.device),
      "cuDeviceGetAttribute");
  info.arch = major * 10 + minor;
  driver::check(
      d.device_get_attribute(&info.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, info.device),
      "cuDeviceGetAttribute");
  driver::check(
      d.device_get_attribute(&info.max_grid_dim_x, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, info.device),
      "cuDeviceGetAttribute");
  driver::check(
      d.device_get_attribute(&info.max_smem_per_block,
                             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, info.device),
      "cuDeviceGetAttribute");
  return info;
}
}  // namespace

const device_info& current_device() {
  int ordinal = 0;
  check_cuda(cudaGetDevice(&ordinal), "cudaGetDevice");
  if (ordinal < 0 || ordinal >= max_devices) {
    throw cuda_error(0, "cudaGetDevice", "cupar: device ordinal out of range");
  }
  auto& slot = device_infos[static_cast<std::size_t>(ordinal)];
  if (const device_info* info = slot.load(std::memory_order_acquire)) return *info;
  std::lock_guard<std::mutex> lock(device_mutex);
  if (const device_info* info = slot.load(std::memory_order_relaxed)) return *info;
  // Make the runtime's primary context exist and be current: launches go through the driver.
  check_cuda(cudaFree(nullptr), "cudaFree(nullptr)");
  auto* info = new device_info(query_device(ordinal));  // kept for the process's lifetime
  slot.store(info, std::memory_order_release);
  return *info;
}

// --- loaded modules ---------------------------------------------------------------------------

loaded_module::loaded_module(const built_binary& b)
    : meta_(b.meta), tier_(b.tier), states_by_reference_(b.states_by_reference) {
  static std::atomic<std::uint64_t> next_serial{1};
  serial_ = next_serial.fetch_add(1, std::memory_order_relaxed);
  const auto& d = driver::get();
  auto unload = [&] {
    for (CUlibrary l : libraries_)
      d.library_unload(l);
  };
  for (const auto& cubin : b.modules) {
    CUlibrary library = nullptr;
    const CUresult r =
        d.library_load_data(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (r != CUDA_SUCCESS) {
      unload();
      throw jit_error(
          jit_stage::load,
          "cupar: the driver could not load the run-time operator's binary: " + driver::describe(r),
          std::string(), std::string(), {}, 0, std::string());
    }
    libraries_.push_back(library);
  }
  for (std::size_t role = 0; role < b.kernels.size(); ++role) {
    const std::string& name = b.kernels[role];
    const std::size_t m = b.module_of.empty() ? 0 : static_cast<std::size_t>(b.module_of.at(role));
    CUkernel k = nullptr;
    const CUresult kr = m < libraries_.size()
                            ? d.library_get_kernel(&k, libraries_[m], name.c_str())
                            : CUDA_ERROR_NOT_FOUND;
    if (kr != CUDA_SUCCESS) {
      unload();
      throw jit_error(
          jit_stage::load,
          "cupar: kernel " + name + " missing from the loaded binary: " + driver::describe(kr),
          std::string(), std::string(), {}, 0, std::string());
    }
    kernels_.push_back(k);
  }
  engine_counters().loads++;
}

CUfunction loaded_module::function(CUkernel kernel) const {
  CUfunction f = nullptr;
  driver::check(driver::get().kernel_get_function(&f, kernel), "cuKernelGetFunction");
  return f;
}

int loaded_module::occupancy(CUkernel kernel, int block, std::size_t smem) const {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  {
    std::lock_guard<std::mutex> lock(occ_mutex_);
    for (const auto& e : occ_) {
      if (e.kernel == kernel && e.block == block && e.smem == smem && e.ctx_device == device) {
        return e.blocks;
      }
    }
  }
  int blocks = 0;
  const CUfunction f = function(kernel);
  if (smem > 48 * 1024) {
    driver::check(driver::get().func_set_attribute(
                      f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(smem)),
                  "cuFuncSetAttribute");
  }
  driver::check(driver::get().occupancy_max_active_blocks(&blocks, f, block, smem),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  std::lock_guard<std::mutex> lock(occ_mutex_);
  occ_.push_back({kernel, block, smem, device, blocks});
  return blocks;
}

void loaded_module::prepare(const loaded_module* previous) const {
  for (CUkernel k : kernels_)
    (void)function(k);  // loads the kernel into the current context
  if (previous == nullptr || previous->kernels_.size() != kernels_.size()) return;
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  std::vector<occ_entry> asked;
  {
    std::lock_guard<std::mutex> lock(previous->occ_mutex_);
    asked = previous->occ_;
  }
  for (const auto& e : asked) {
    if (e.ctx_device != device) continue;
    for (std::size_t role = 0; role < kernels_.size(); ++role) {
      if (previous->kernels_[role] == e.kernel) (void)occupancy(kernels_[role], e.block, e.smem);
    }
  }
}

// --- mode -------------------------------------------------------------------------------------

namespace {
cupar::jit::mode initial_mode() {
  const char* m = std::getenv("CUPAR_JIT_MODE");
  if (m == nullptr) return cupar::jit::mode::tiered;
  const std::string s = m;
  if (s == "optimized" || s == "optimised") return cupar::jit::mode::optimized;
  if (s == "fast") return cupar::jit::mode::fast;
  return cupar::jit::mode::tiered;
}
std::atomic<cupar::jit::mode>& mode_flag() {
  static std::atomic<cupar::jit::mode> m{initial_mode()};
  return m;
}
}  // namespace

// --- builds -----------------------------------------------------------------------------------

/// A hash of the JIT's own sources (src/jit), generated at build time
/// (cmake/jit_runtime_hash.cmake); part of every disk cache key.
extern const char* const runtime_sources_hash;

namespace {

std::string cache_key(const build_spec& spec, int arch, int tier) {
  // cupar-jit/6: the JIT's sources' hash (runtime=; cmake/jit_runtime_hash.cmake); /5: optimised
  // builds linked kernel by kernel (several modules); /4: operator slots (several operators per
  // build, size classes); /3: reduce linked with an occupancy target as well; /2: scans only;
  // /1: neither.
  std::string k = "cupar-jit/6 cupar=";
  k += cupar::version();
  k += " build=";
  k += precompiled_build_id;
  k += " runtime=";
  k += runtime_sources_hash;
  k += " cccl=" + std::to_string(CCCL_VERSION) + " nvrtc=" + nvrtc_version() +
       " nvjitlink=" + nvjitlink_version() + " arch=" + std::to_string(arch) +
       " tier=" + std::to_string(tier) + "\nset=" + spec.set.key() + "\n";
  for (const auto& t : spec.set.types) {
    if (!t.definition.empty()) k += "type " + t.name + "=" + t.definition + "\n";
  }
  for (const auto& b : spec.slots) {
    k += "slot(";
    for (const auto& t : b.args)
      k += t.key() + ",";
    k += ")->" + b.result.key() + "\n" + b.op.definition()->fingerprint() + "\n";
    for (const auto& t : b.args) {
      if (!t.definition.empty()) k += "type " + t.name + "=" + t.definition + "\n";
    }
  }
  return k;
}

void check_not_empty(const cupar::jit::op& op, const slot_spec& slot, bool several) {
  const std::string text = snippet_text(op);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw jit_error(jit_stage::compile,
                    std::string("cupar: run-time operator failed to compile: ") +
                        (several ? std::string("the ") + slot.what + "'s" : std::string("its")) +
                        " source is empty (give an expression such as \"a + b\", a lambda, or "
                        "a named operator)",
                    std::string(), std::string(), {}, 0, std::string());
  }
}

/// The precompiled object serving slot `i` of a data-processing build (a named operator on an
/// arithmetic type), or null.
const precompiled_named* named_object_for(const build_spec& spec, const slot_spec& slot,
                                          std::size_t i, int arch) {
  const slot_binding& b = spec.slots[i];
  if (!is_data_processing(spec.set.fam) || !b.op.is_named() || b.args.empty()) return nullptr;
  const scalar user = b.args[0].kind;
  if (static_cast<int>(user) == 0) return nullptr;
  return find_named_object(named_object_key(slot.symbol, user, b.op.named()), arch);
}

/// The snippets of slot `index` for mapping errors and checking text: the operator's, or for an
/// operator cupar generated (an iterator expression) its own code, which is not checked as user
/// text, and the user's snippets it places (iterator.cpp).
void add_snippets(compile_request& req, const slot_spec& slot, const slot_binding& b, int index) {
  const auto& def = *b.op.definition();
  req.snippets.push_back({snippet_file_of(index), generated_file_of(index), snippet_text(b.op),
                          slot.what, role_description(slot, b), def.generated ? nullptr : &b.op});
  for (const auto& p : def.parts) {
    req.snippets.push_back(
        {p.file, "cupar_expression", snippet_text(p.op),
         p.what.empty() ? std::string("iterator expression's transform") : p.what,
         p.role.empty() ? std::string("a unary operator of the iterator expression (argument x)")
                        : p.role,
         &p.op});
  }
}

/// Link options giving a set's kernels the occupancy the compiled path gets, or none: the
/// family's lists (its record says why each), tried in turn, the first that ptxas reports no
/// spills for kept, and linked again without them when every list spills (operators that need
/// more registers).
std::vector<std::vector<std::string>> occupancy_options(const set_spec& spec,
                                                        const precompiled_set& pre, int arch) {
  const auto occupancy = describe(spec.fam).occupancy;
  if (occupancy == nullptr || pre.meta_count < 1) return {};
  const long long threads = pre.meta[0];
  if (threads <= 0 || threads > 1024) return {};
  return occupancy(spec, threads, arch);
}

/// Whether optimised builds link their kernels one by one in parallel (`CUPAR_JIT_SPLIT_LINKS`:
/// "0" links the whole set at once, as before 2026-11-30; read at each build, so a test may
/// change it).
bool split_links_enabled() {
  const char* v = std::getenv("CUPAR_JIT_SPLIT_LINKS");
  return v == nullptr || std::string(v) != "0";
}

/// The NVRTC option that trades optimisation for compile time in a quick (tier-1) build's
/// operator compile: `--Ofast-compile=<level>` (NVRTC 12.8 and later) with the level of
/// `CUPAR_JIT_QUICK_OFC` ("min", "mid" or "max"; unset, "0" or anything else leaves it out), read
/// at each build. Off by default: "min" took a transform_reduce operator's compile from 52-58 to
/// 38-43 ms on the 2-core machine, but on the H200 it made dot's tier-1 kernel 1.40-1.43x slower
/// and first calls no faster (bench/TIERS.md). Empty where the NVRTC predates it.
std::string quick_fast_compile_option() {
  static const bool supported = nvrtc_at_least(12, 8);
  const char* v = std::getenv("CUPAR_JIT_QUICK_OFC");
  const std::string level = v == nullptr ? std::string() : std::string(v);
  if (!supported || (level != "min" && level != "mid" && level != "max")) return std::string();
  return "--Ofast-compile=" + level;
}

/// The threads over which a quick (tier-1) build spreads the code generation of its operators
/// and their batched forms (NVRTC's `--split-compile` for a cubin, nvJitLink's `-split-compile`
/// for the first quick build's LTO link): split_compile_threads, as the optimised LTO links;
/// `CUPAR_JIT_QUICK_SPLIT` sets the count ("1": one thread, as before 2026-12-03), read at each
/// build. The batched forms, which inline the operator many times, are most of a new operator's
/// first call (bench/TIERS.md); the functions compile apart, each with its own inlined operator
/// (merge sort's forms on the 2-core machine: the same SASS, instruction for instruction, but
/// for the form of a predicate, 96-98 ms instead of 117).
unsigned quick_split_threads() {
  if (const char* v = std::getenv("CUPAR_JIT_QUICK_SPLIT"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end == '\0' && n >= 1 && n <= 64) return static_cast<unsigned>(n);
  }
  return split_compile_threads();
}

/// One LTO link of `inputs` with `extra` options, tried under each occupancy target in turn (the
/// first that ptxas reports no spills for kept), then without one. A link whose log has no
/// ptxas report counts as spilled: a cap is kept only where ptxas said it held.
struct targeted_link {
  link_result linked;
  int attempts = 0;
  bool capped = false;
};
targeted_link link_with_targets(const std::vector<link_input>& inputs, int arch,
                                const std::vector<std::vector<std::string>>& targets,
                                const std::vector<std::string>& extra) {
  targeted_link t;
  for (std::vector<std::string> options : targets) {
    options.insert(options.end(), extra.begin(), extra.end());
    options.emplace_back("-Xptxas=-v");
    t.linked = link(inputs, arch, true, options);
    t.attempts++;
    t.capped = reports_registers(t.linked.info_log) && !reports_spills(t.linked.info_log);
    if (t.capped) return t;
  }
  t.linked = link(inputs, arch, true, extra);
  t.attempts++;
  return t;
}

/// The optimised build's link kernel by kernel (`-kernels-used` naming one, each a module of its
/// own), the links on up to `hardware_concurrency` threads at once. Why: a set's link took
/// about the sum of its kernels' (reduce<f32>: 0.8 s on the 2-core machine, each kernel alone
/// about 0.2 s; links with an occupancy target run without -split-compile, and the set links
/// without one spread less than that over its threads: merge sort keys 1.13 s whole with 8
/// split-compile threads, 0.86 s kernel by kernel on the H200 machine; docs/JIT.md, "Where a
/// tier-2 link's time goes"). Each kernel gets its own occupancy target attempts. Roles naming
/// the same kernel share its module (`module_of`).
/// Returns the link rounds (the most attempts any kernel took); fills b.modules, b.module_of
/// and b.register_capped (every kernel's target held).
int link_kernel_by_kernel(const std::vector<link_input>& inputs, int arch,
                          const std::vector<std::vector<std::string>>& targets, built_binary& b) {
  const std::vector<std::string>& names = b.kernels;
  std::vector<std::size_t> linked;  // the role linked for each module
  b.module_of.assign(names.size(), 0);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto same =
        std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]);
    if (same != names.begin() + static_cast<std::ptrdiff_t>(i)) {
      b.module_of[i] = b.module_of[static_cast<std::size_t>(same - names.begin())];
    } else {
      b.module_of[i] = static_cast<int>(linked.size());
      linked.push_back(i);
    }
  }
  std::vector<targeted_link> links(linked.size());
  std::vector<std::exception_ptr> errors(linked.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < linked.size(); k = next++) {
      try {
        links[k] = link_with_targets(inputs, arch, targets, {"-kernels-used=" + names[linked[k]]});
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(linked.size(), std::max(2u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (...) {
      break;  // no more threads: the ones running (and this one) take the rest
    }
  }
  work();
  for (auto& t : pool)
    t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  int rounds = 0;
  b.register_capped = true;
  for (targeted_link& l : links) {
    rounds = std::max(rounds, l.attempts);
    b.register_capped = b.register_capped && l.capped;
    engine_counters().kernel_links += static_cast<std::uint64_t>(l.attempts);
    b.modules.push_back(std::move(l.linked.cubin));
  }
  return rounds;
}

/// CUPAR_JIT_DUMP_DIR (read at each build): the directory every build writes its linked modules
/// to, for cuobjdump (registers, stack, local memory, SASS of the kernels a call runs):
/// "<set key>.sm<arch>.tier<tier>.<build number>[.<module>].cubin", the key's characters other
/// than letters, digits, '_', '-' and '.' written as '_', the build number counting the process's
/// dumped builds (builds, not disk-cache hits); and beside them "<...>.<build number>.cu", the
/// source NVRTC compiled for the build (`compiled`: the operators of a build on precompiled
/// kernels, the whole set for one from source; none when only precompiled named operators were
/// linked), its options in a comment first. A diagnostic: a file it cannot write is reported on
/// stderr and the build is served as usual.
void dump_modules(const build_spec& spec, int arch, const built_binary& b,
                  const compile_request* compiled) {
  const char* dir = std::getenv("CUPAR_JIT_DUMP_DIR");
  if (dir == nullptr || *dir == '\0') return;
  static std::atomic<unsigned> builds{0};
  std::string name;
  for (const char c : spec.set.key()) {
    const bool plain =
        std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    name += plain ? c : '_';
  }
  name += ".sm" + std::to_string(arch) + ".tier" + std::to_string(b.tier) + "." +
          std::to_string(builds++);
  auto write = [](const std::string& path, const void* data, std::size_t size) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const bool written = f != nullptr && std::fwrite(data, 1, size, f) == size;
    if (f != nullptr) std::fclose(f);
    if (!written)
      std::fprintf(stderr, "cupar: CUPAR_JIT_DUMP_DIR: could not write %s\n", path.c_str());
  };
  for (std::size_t k = 0; k < b.modules.size(); ++k) {
    write(std::string(dir) + "/" + name + (b.modules.size() > 1 ? "." + std::to_string(k) : "") +
              ".cubin",
          b.modules[k].data(), b.modules[k].size());
  }
  if (compiled != nullptr && !compiled->source.empty()) {
    std::string text = "// NVRTC options:";
    for (const std::string& o : compiled->options)
      text += " " + o;
    text += "\n" + compiled->source;
    write(std::string(dir) + "/" + name + ".cu", text.data(), text.size());
  }
}

/// Whether a build of the set on its precompiled kernels compiles an operator (some slot is not
/// a precompiled named operator).
bool compiles_an_operator(const build_spec& spec, int arch) {
  const std::vector<slot_spec> slots = slots_of(spec.set);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (named_object_for(spec, slots[i], i, arch) == nullptr) return true;
  }
  return false;
}

/// A build on the set's precompiled kernels: tier 1 links the out-of-line kernels (relocatable
/// cubin) with the operators compiled to cubin; tier 2 inlines the operators (both LTO-IR, an
/// LTO link). `lto_quick` (tier 1): the operators compiled to LTO-IR and linked with the same
/// out-of-line kernels in an LTO link that compiles only them, the same kernels and calls. That
/// is the process's first tiered quick build (build_initial): its NVRTC compile to LTO-IR and
/// its LTO link are what the exit handler has to follow, so it stands in for the pool's warm-up.
built_binary build_from_precompiled(const build_spec& spec, int arch, const precompiled_set& pre,
                                    int tier, bool lto_quick = false) {
  auto& c = engine_counters();
  const bool inlined = tier == 2;
  const bool lto = inlined || lto_quick;
  const std::vector<slot_spec> slots = slots_of(spec.set);
  std::vector<link_input> inputs = {inlined ? link_input{pre.ltoir_fatbin, pre.ltoir_fatbin_size,
                                                         NVJITLINK_INPUT_FATBIN, "cupar_kernels"}
                                            : link_input{pre.cubin_fatbin, pre.cubin_fatbin_size,
                                                         NVJITLINK_INPUT_FATBIN, "cupar_kernels"}};
  // Options of the quick LTO link: its split compilation (quick_split_threads; link.cpp would
  // split a link without options by its own rule), and the operators' register limit (an NVRTC
  // option of the non-LTO quick build).
  const unsigned split = quick_split_threads();
  std::vector<std::string> quick_link_options;
  if (lto_quick) quick_link_options.emplace_back("-split-compile=" + std::to_string(split));
  // Named operators on arithmetic types come precompiled; the others are compiled together.
  std::vector<int> compiled;
  compile_request req;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (const precompiled_named* named = named_object_for(spec, slots[i], i, arch)) {
      inputs.push_back({inlined ? named->ltoir : named->cubin,
                        inlined ? named->ltoir_size : named->cubin_size,
                        inlined ? NVJITLINK_INPUT_LTOIR : NVJITLINK_INPUT_CUBIN, named->key});
      continue;
    }
    check_not_empty(spec.slots[i].op, slots[i], slots.size() > 1);
    compiled.push_back(static_cast<int>(i));
    add_snippets(req, slots[i], spec.slots[i], static_cast<int>(i));
  }
  compile_result op_bin;
  if (!compiled.empty()) {
    std::set<std::string> called;
    for (int k = 0; k < pre.call_count; ++k)
      called.insert(pre.calls[k]);
    req.source = operator_source(spec, compiled, !inlined, called.empty() ? nullptr : &called);
    req.name = "cupar_operator.cu";
    req.options = compile_options(arch, lto, true);
    if (const auto extra = describe(spec.set.fam).out_of_line_operator_options; extra && !inlined) {
      for (std::string& o : extra(spec.set, arch))
        (lto_quick ? quick_link_options : req.options).push_back(std::move(o));
    }
    req.kind = lto ? output::ltoir : output::cubin;
    if (!lto) {
      if (std::string ofc = quick_fast_compile_option(); !ofc.empty())
        req.options.push_back(std::move(ofc));
      // (NVRTC 13.0, the toolkit it was tried with; an NVRTC that rejected the option would fail
      // every quick build, so older ones compile on one thread.)
      static const bool nvrtc_splits = nvrtc_at_least(13, 0);
      if (split > 1 && nvrtc_splits)
        req.options.push_back("--split-compile=" + std::to_string(split));
    }
    // NVRTC's -minimal front end leaves out the runtime API's declarations (cudaError_t, textures,
    // device-side launches), which operators do not use: a third of the front end's time, 4-13 ms
    // of a new operator's first compile (2-core machine), the same code (cubins compared byte for
    // byte). CUB's headers need them, so a source that includes anything compiles in full, and so
    // does one that fails minimal (its errors are then the full compile's).
    const bool minimal = req.source.find("#include") == std::string::npos;
    if (minimal) req.options.emplace_back("-minimal");
    try {
      op_bin = compile(req);
    } catch (const jit_error&) {
      if (!minimal) throw;
      req.options.pop_back();
      op_bin = compile(req);
    }
    c.operator_compiles++;
    inputs.push_back({op_bin.binary.data(), op_bin.binary.size(),
                      lto ? NVJITLINK_INPUT_LTOIR : NVJITLINK_INPUT_CUBIN, "cupar_operator"});
  }
  built_binary b;
  b.kernels.assign(pre.kernels, pre.kernels + pre.kernel_count);
  b.meta.assign(pre.meta, pre.meta + pre.meta_count);
  b.tier = tier;
  b.precompiled = true;
  // The set's out-of-line cubin (tier 1) was compiled with its family's state form.
  b.states_by_reference = !inlined && describe(spec.set.fam).states_by_reference;
  b.compile_ms = op_bin.milliseconds;
  const auto start = std::chrono::steady_clock::now();
  if (!inlined) {
    b.modules.push_back(link(inputs, arch, lto_quick, quick_link_options).cubin);
    c.links++;
  } else if (b.kernels.size() > 1 && split_links_enabled()) {
    const int rounds =
        link_kernel_by_kernel(inputs, arch, occupancy_options(spec.set, pre, arch), b);
    c.links += static_cast<std::uint64_t>(rounds);
  } else {
    targeted_link t = link_with_targets(inputs, arch, occupancy_options(spec.set, pre, arch), {});
    c.links += static_cast<std::uint64_t>(t.attempts);
    b.register_capped = t.capped;
    b.modules.push_back(std::move(t.linked.cubin));
  }
  b.link_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  dump_modules(spec, arch, b, compiled.empty() ? nullptr : &req);
  return b;
}

/// Kernels and operators compiled together from source (no precompiled set): the operators are
/// inlined, so this is a tier-2 build.
built_binary build_from_source(const build_spec& spec, int arch) {
  const std::vector<slot_spec> slots = slots_of(spec.set);
  compile_request req;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    check_not_empty(spec.slots[i].op, slots[i], slots.size() > 1);
    add_snippets(req, slots[i], spec.slots[i], static_cast<int>(i));
  }
  req.source = set_source(spec.set, &spec);
  req.name = "cupar_kernels.cu";
  req.options = compile_options(arch, false, false);
  req.name_expressions = name_expressions(spec.set);
  req.kind = output::cubin;
  const compile_result r = compile(req);
  engine_counters().kernel_compiles++;
  built_binary b;
  b.modules.push_back(r.binary);
  const int n = kernel_count(spec.set.fam);
  b.kernels.assign(r.lowered_names.begin(), r.lowered_names.begin() + n);
  b.meta = parse_meta(r.lowered_names.back());
  b.tier = 2;
  b.compile_ms = r.milliseconds;
  dump_modules(spec, arch, b, &req);
  return b;
}

}  // namespace

built_binary build_only(const build_spec& spec, int arch, int tier) {
  if (const precompiled_set* pre = find_precompiled(spec.set.key(), arch)) {
    return build_from_precompiled(spec, arch, *pre, tier);
  }
  return build_from_source(spec, arch);
}

// --- direct optimised builds ------------------------------------------------------------------
//
// Issue 28, item 1: the out-of-line (tier-1) kernels run at 0.07-1.0 of the inlined ones (one
// call per element; median 0.28 over 68 benchmark rows on an H200: docs/PERFORMANCE_NOTES.md),
// so a new operator's calls are slow until its optimised build lands. Where a set's optimised
// builds are quick, making the new operator's optimised build before its first call returns is
// the better trade: each set remembers how long its last optimised build took in the process,
// and with a budget set (cupar::jit::set_direct_build_budget or CUPAR_JIT_DIRECT_MS, in
// milliseconds; 0, the default, turns it off) a new operator whose set built within it gets the
// optimised build at once. Off by default: the quick optimised builds measured so far (35-66 ms
// a family, H200, 2026-11-28) were of operators whose optimised code matched an earlier one's,
// while a distinct operator's took 0.5-0.9 s, and a set timed on such a repeat would send the
// next distinct operator's first call through a slow link (docs/JIT.md, "The optimised build at
// once").

namespace {

struct build_times {
  std::mutex mutex;
  std::unordered_map<std::string, double> ms;  // "<set key>@<arch>" -> last optimised build
};
build_times& optimised_build_times() {
  static build_times* t = new build_times();  // leaked: background builds may outlive statics
  return *t;
}
std::string timing_key(const build_spec& spec, int arch) {
  return spec.set.key() + "@" + std::to_string(arch);
}

void record_optimised_build(const std::string& key, double ms) {
  auto& t = optimised_build_times();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.ms[key] = ms;
}

/// The budget of direct builds in milliseconds (0: off): CUPAR_JIT_DIRECT_MS when the process
/// first asks (a non-negative number; anything else means 0), then set_direct_build_budget.
std::atomic<double>& direct_budget() {
  static std::atomic<double> budget{[] {
    const char* v = std::getenv("CUPAR_JIT_DIRECT_MS");
    if (v == nullptr || *v == '\0') return 0.0;
    char* end = nullptr;
    const double d = std::strtod(v, &end);
    return end == v || *end != '\0' || !(d >= 0) ? 0.0 : d;
  }()};
  return budget;
}

/// Whether the set's last optimised build in this process took at most the budget.
bool direct_build_expected(const std::string& key) {
  const double budget = direct_budget().load();
  if (budget <= 0) return false;
  auto& t = optimised_build_times();
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto it = t.ms.find(key);
  return it != t.ms.end() && it->second <= budget;
}

/// build_from_precompiled for tier 2, its time recorded for the set.
built_binary timed_optimised_build(const build_spec& spec, int arch, const precompiled_set& pre,
                                   const std::string& key) {
  const auto t0 = std::chrono::steady_clock::now();
  built_binary b = build_from_precompiled(spec, arch, pre, 2);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  record_optimised_build(key, ms);
  engine_counters().optimized_build_us += static_cast<std::uint64_t>(ms * 1000.0);
  engine_counters().optimized_builds++;
  return b;
}

}  // namespace

// --- background (tier-2) builds ---------------------------------------------------------------

namespace {

/// The pool of threads that makes the optimised (LTO) builds after a JIT algorithm call returned
/// with the quick build (build_pool.hpp; CUPAR_JIT_BUILD_THREADS threads at most).
///
/// Exit: the process may end while a build runs. The exit handler (stop_at_exit) drops the queued
/// builds and waits for the running ones, so no thread is inside nvJitLink while its libraries are
/// torn down. Exit handlers and static destructors run in reverse order of registration, and
/// nvJitLink registers the destructors of some statics during its first LTO link (five, counted
/// with an __cxa_atexit shim): a handler registered before that link would run after them. The
/// handler is therefore registered by the first submit, on the caller's thread, only once an LTO
/// link has been made in the process with an operator compiled by NVRTC to LTO-IR (the warm-up
/// below links such a tiny kernel): the handler runs before those destructors, and a program
/// cannot end inside the call that registers it. The process's first tiered quick build that
/// compiles an operator makes that link itself, on the caller's thread (build_initial: its
/// operator to LTO-IR, linked with the set's out-of-line cubin in an LTO link that compiles only
/// the operator); the pool then skips its warm-up (build_pool::warmed_here), and the first call
/// waits for nothing else. A first quick build that compiles no operator (precompiled named
/// operators only) or whose LTO-linked build failed starts the pool's first thread, whose
/// warm-up overlaps the build, and the first submit (or the failed call) waits for the warm-up
/// before registering the handler. Until 2026-11-27 the handler was registered when the thread
/// started and again after the warm-up, so a program ending during the warm-up, such as the
/// quickstart with its three new operators, ran nvJitLink's destructors under the link. Until
/// 2026-12-02 every first tiered quick build waited for the warm-up: 20-33 ms of a first call's
/// 45-60 on the H200 (stats::quick_pool_wait_ms; the warm-up and the quick build's compile do not
/// overlap there). cupar's own statics that a background build may touch first are never
/// destroyed (link.cpp, nvrtc.cpp, codegen.cpp). Left open: another thread calling exit() while
/// a first quick build makes that link or waits for the warm-up.
/// The warm-up compiles its kernel with NVRTC before it links: with a precompiled LTO-IR of the
/// kernel linked instead (the link alone, 15-26 ms cold on the 2-core machine where the compile
/// and link take 34-46), programs ending under background builds crashed in 1.1-2.2% of the exit
/// runs on the H200, inside a build's nvrtcCompileProgram, however the program ended
/// (docs/JIT.md, "A process's first tiered call links its operator with LTO").
void warm_up_lto(int arch) {
  try {
    compile_request req;
    req.source = "extern \"C\" __global__ void cupar_warm_up(int* p) { *p = 1; }\n";
    req.name = "cupar_warm_up.cu";
    req.options = {"-arch=compute_" + std::to_string(arch), "-dlto", "-rdc=true"};
    req.kind = output::ltoir;
    const compile_result ir = compile(req);
    (void)link({{ir.binary.data(), ir.binary.size(), NVJITLINK_INPUT_LTOIR, "warm_up"}}, arch,
               true);
  } catch (const std::exception&) {
    // Only a warm-up: the real builds report their own errors.
  }
}

void stop_at_exit();

/// Whether a quick build of this process compiled an operator to LTO-IR and linked it with LTO
/// (build_initial): what the warm-up does, so the pool skips it (build_pool::warmed_here).
std::atomic<bool>& quick_lto_done() {
  static std::atomic<bool> done{false};
  return done;
}

build_pool& worker() {
  // Leaked: its threads are stopped by the exit handler, not by a static destructor.
  static build_pool* pool = new build_pool(
      build_threads(std::getenv("CUPAR_JIT_BUILD_THREADS"), std::thread::hardware_concurrency()),
      warm_up_lto, [] { std::atexit(stop_at_exit); });
  return *pool;
}

void stop_at_exit() {
  worker().stop();
}

}  // namespace

// --- in-process cache -------------------------------------------------------------------------

struct program_entry {
  enum class state { building, ready, failed };
  std::mutex mutex;
  std::condition_variable cv;
  state st = state::building;
  std::exception_ptr error;
  std::vector<std::unique_ptr<loaded_module>> modules;  // every build ever loaded for it
  std::atomic<const loaded_module*> current{nullptr};
  // A finished tier-2 build for the next call to pick up: loaded and prepared in the background
  // (pending_module), or, where that failed, the binary for the call to load (pending).
  std::unique_ptr<loaded_module> pending_module;
  std::unique_ptr<built_binary> pending;
  std::atomic<bool> pending_ready{false};
  // Set by clear_memory_cache: no new call finds the entry; only plans made from it still use it.
  std::atomic<bool> retired{false};
  std::atomic<int> plans{0};  // plans holding the entry
};

namespace {

struct global_cache {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<program_entry>> entries;
  std::vector<std::shared_ptr<program_entry>> retired;  // kept alive after clear_memory_cache
  std::atomic<std::uint64_t> generation{1};
};
global_cache& cache() {
  static global_cache* c = new global_cache();
  return *c;
}

void publish(program_entry& e, std::unique_ptr<loaded_module> m) {
  std::lock_guard<std::mutex> lock(e.mutex);
  e.current.store(m.get(), std::memory_order_release);
  e.modules.push_back(std::move(m));
}

void upgrade_if_ready(program_entry& e) {
  if (!e.pending_ready.load(std::memory_order_acquire)) return;
  std::unique_ptr<loaded_module> m;
  std::unique_ptr<built_binary> b;
  {
    std::lock_guard<std::mutex> lock(e.mutex);
    m = std::move(e.pending_module);
    b = std::move(e.pending);
    e.pending_ready.store(false, std::memory_order_relaxed);
  }
  if (m) {
    // Loaded, its kernels resolved and its occupancies computed in the background: the switch
    // costs this call a pointer swap.
    publish(e, std::move(m));
    engine_counters().upgrades++;
    return;
  }
  if (!b) return;
  try {
    publish(e, std::make_unique<loaded_module>(*b));
    engine_counters().upgrades++;
  } catch (const std::exception&) {
    // The out-of-line build keeps serving; a load failure of the optimised build is not the
    // caller's problem.
    engine_counters().background_failures++;
  }
}

/// Loads a finished optimised build on a background thread for the device `ordinal` and does
/// there what the first call on it would otherwise do on the caller's thread (issue 28: that
/// call cost 7-50 ms once): the library's load, each kernel's load into the device's primary
/// context, and the occupancy queries the quick build `previous` has answered. Null where any
/// of it fails (the caller's thread then loads the binary, as before).
std::unique_ptr<loaded_module> load_in_background(const built_binary& b, int ordinal,
                                                  const loaded_module* previous) noexcept {
  try {
    check_cuda(cudaSetDevice(ordinal), "cudaSetDevice");
    auto m = std::make_unique<loaded_module>(b);
    m->prepare(previous);
    return m;
  } catch (...) {
    return nullptr;
  }
}

void build_initial(const std::shared_ptr<program_entry>& entry, const build_spec& spec,
                   const device_info& dev) {
  auto& c = engine_counters();
  const int arch = dev.arch;
  const std::string key2 = cache_key(spec, arch, 2);
  disk_cache& disk = disk_cache::instance();
  if (auto cached = disk.load(key2)) {
    // An entry that passed every check but that the driver cannot load (forged, or damaged in a
    // way the checksum missed) is rebuilt like a corrupt one.
    std::unique_ptr<loaded_module> module;
    try {
      module = std::make_unique<loaded_module>(*cached);
    } catch (const jit_error&) {
      c.disk_rejects++;
    }
    if (module) {
      c.disk_hits++;
      publish(*entry, std::move(module));
      return;
    }
  }
  const precompiled_set* pre = find_precompiled(spec.set.key(), arch);
  const cupar::jit::mode m = mode_flag().load();
  const std::string timing = timing_key(spec, arch);
  // A direct build: the set's optimised builds are quick here, so this one is made now (see
  // "direct optimised builds" above), on the caller's thread as the optimized mode does.
  const bool direct =
      pre != nullptr && m == cupar::jit::mode::tiered && direct_build_expected(timing);
  if (pre == nullptr || m == cupar::jit::mode::optimized || direct) {
    built_binary b =
        pre ? timed_optimised_build(spec, arch, *pre, timing) : build_from_source(spec, arch);
    disk.store(key2, b);
    publish(*entry, std::make_unique<loaded_module>(b));
    if (direct) c.direct_builds++;
    return;
  }
  // Exit safety (worker): until a quick build here has compiled an operator to LTO-IR and linked
  // it with LTO, the process's first tiered quick build does so itself, on this thread; one that
  // compiles no operator (precompiled named operators only) starts the pool's warm-up, which
  // then overlaps it.
  const bool tiered = m == cupar::jit::mode::tiered;
  bool lto_quick = false;
  if (tiered && !quick_lto_done().load(std::memory_order_acquire)) {
    lto_quick = compiles_an_operator(spec, arch);
    if (!lto_quick) worker().start(arch);
  }
  std::unique_ptr<loaded_module> quick;
  // stats::quick_*: where a quick build's time goes.
  auto us_since = [](std::chrono::steady_clock::time_point t) {
    return static_cast<std::uint64_t>(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count());
  };
  try {
    built_binary b;
    try {
      b = build_from_precompiled(spec, arch, *pre, 1, lto_quick);
    } catch (const jit_error&) {
      if (!lto_quick) throw;
      // An operator that fails there is built the usual way, which reports its error as every
      // other quick build does (the LTO link would find some of NVRTC's errors itself), with the
      // pool's warm-up meanwhile.
      lto_quick = false;
      worker().start(arch);
      b = build_from_precompiled(spec, arch, *pre, 1);
    }
    if (lto_quick) {
      quick_lto_done().store(true, std::memory_order_release);
      worker().warmed_here();
      c.quick_lto_links++;
    }
    const auto loading = std::chrono::steady_clock::now();
    quick = std::make_unique<loaded_module>(b);
    c.quick_load_us += us_since(loading);
    c.quick_compile_us += static_cast<std::uint64_t>(b.compile_ms * 1000.0);
    c.quick_link_us += static_cast<std::uint64_t>(b.link_ms * 1000.0);
    c.quick_builds++;
  } catch (...) {
    if (tiered) worker().settle();
    throw;
  }
  publish(*entry, std::move(quick));
  if (m != cupar::jit::mode::tiered) return;
  std::weak_ptr<program_entry> weak = entry;
  const int ordinal = dev.ordinal;
  const auto submitting = std::chrono::steady_clock::now();
  worker().submit(
      [weak, spec, arch, pre, key2, ordinal, timing] {
        {
          // An entry that clear_memory_cache retired and no plan holds can never run its
          // optimised build: skip it (a program clearing the cache in a loop would otherwise
          // queue builds faster than one thread makes them).
          const auto e = weak.lock();
          if (!e || (e->retired.load() && e->plans.load() == 0)) {
            engine_counters().background_skipped++;
            return;
          }
        }
        try {
          built_binary b = timed_optimised_build(spec, arch, *pre, timing);
          disk_cache::instance().store(key2, b);
          if (auto e = weak.lock()) {
            // The entry's modules live as long as it does (this job holds it).
            std::unique_ptr<loaded_module> m =
                load_in_background(b, ordinal, e->current.load(std::memory_order_acquire));
            std::lock_guard<std::mutex> lock(e->mutex);
            if (m) {
              e->pending_module = std::move(m);
            } else {
              e->pending = std::make_unique<built_binary>(std::move(b));
            }
            e->pending_ready.store(true, std::memory_order_release);
          }
          engine_counters().background_builds++;
        } catch (const std::exception&) {
          engine_counters().background_failures++;
        }
      },
      arch);
  c.quick_pool_wait_us += us_since(submitting);
}

}  // namespace

std::shared_ptr<program_entry> obtain_entry(const fast_key& key,
                                            const std::function<build_spec()>& make_spec,
                                            const cupar::jit::op& op, const device_info& dev,
                                            bool for_plan) {
  const auto& def = *op.definition();
  auto& g = cache();
  std::shared_ptr<program_entry> entry;
  {
    std::lock_guard<std::mutex> lock(def.cache_mutex);
    const std::uint64_t gen = g.generation.load(std::memory_order_acquire);
    if (def.cache_generation != gen) {
      def.cache.clear();
      def.cache_generation = gen;
    }
    for (const auto& p : def.cache) {
      if (p.key == key) {
        entry = p.entry;
        break;
      }
    }
  }
  // A plan's hold is counted as soon as it has the entry, before the background build can
  // begin (taken under the cache's lock where the entry comes from the cache, which
  // clear_memory_cache retires it under), and given back if the build fails.
  struct plan_hold {
    program_entry* e = nullptr;
    bool keep = false;
    ~plan_hold() {
      if (e != nullptr && !keep) e->plans.fetch_sub(1);
    }
  } hold;
  if (entry && for_plan) {
    entry->plans.fetch_add(1);
    hold.e = entry.get();
  }
  bool creator = false;
  build_spec spec;
  if (!entry) {
    spec = make_spec();
    const std::string k = cache_key(spec, dev.arch, 0);
    {
      std::lock_guard<std::mutex> lock(g.mutex);
      auto& slot = g.entries[k];
      if (!slot) {
        slot = std::make_shared<program_entry>();
        creator = true;
      }
      entry = slot;
      if (for_plan) {
        entry->plans.fetch_add(1);
        hold.e = entry.get();
      }
    }
    if (creator) {
      try {
        build_initial(entry, spec, dev);
      } catch (...) {
        {
          std::lock_guard<std::mutex> lock(g.mutex);
          auto it = g.entries.find(k);
          if (it != g.entries.end() && it->second == entry) g.entries.erase(it);
        }
        std::lock_guard<std::mutex> lock(entry->mutex);
        entry->st = program_entry::state::failed;
        entry->error = std::current_exception();
        entry->cv.notify_all();
        throw;
      }
      {
        std::lock_guard<std::mutex> lock(entry->mutex);
        entry->st = program_entry::state::ready;
        entry->cv.notify_all();
      }
    }
    {
      std::vector<std::shared_ptr<const cupar::jit::detail::op_definition>> others;
      for (const auto& b : spec.slots) {
        // Never the anchor's own definition: that would be a cycle, and it is alive anyway.
        if (b.op.definition().get() != &def) others.push_back(b.op.definition());
      }
      std::lock_guard<std::mutex> lock(def.cache_mutex);
      def.cache.push_back({key, entry, std::move(others)});
    }
  }
  if (!creator) {
    std::unique_lock<std::mutex> lock(entry->mutex);
    entry->cv.wait(lock, [&] { return entry->st != program_entry::state::building; });
    if (entry->st == program_entry::state::failed) {
      const std::exception_ptr e = entry->error;
      lock.unlock();
      {
        std::lock_guard<std::mutex> l(def.cache_mutex);
        for (auto it = def.cache.begin(); it != def.cache.end(); ++it) {
          if (it->entry == entry) {
            def.cache.erase(it);
            break;
          }
        }
      }
      std::rethrow_exception(e);
    }
    lock.unlock();
    engine_counters().memory_hits++;
  }
  hold.keep = true;
  return entry;
}

void hold_for_plan(program_entry& entry, bool hold) noexcept {
  entry.plans.fetch_add(hold ? 1 : -1);
}

std::shared_ptr<const loaded_module> current_module(const std::shared_ptr<program_entry>& entry) {
  upgrade_if_ready(*entry);
  // A module lives as long as its entry: an aliasing shared_ptr owning the entry keeps it valid.
  return std::shared_ptr<const loaded_module>(entry,
                                              entry->current.load(std::memory_order_acquire));
}

std::shared_ptr<const loaded_module> obtain(const fast_key& key,
                                            const std::function<build_spec()>& make_spec,
                                            const cupar::jit::op& op, const device_info& dev) {
  return current_module(obtain_entry(key, make_spec, op, dev));
}

}  // namespace cupar::detail::jit

// --- public controls --------------------------------------------------------------------------

namespace cupar::jit {

void set_mode(mode m) noexcept {
  cupar::detail::jit::mode_flag().store(m);
}
mode get_mode() noexcept {
  return cupar::detail::jit::mode_flag().load();
}

void set_direct_build_budget(double milliseconds) {
  if (!(milliseconds >= 0) || milliseconds == std::numeric_limits<double>::infinity()) {
    throw std::invalid_argument(
        "cupar::jit::set_direct_build_budget: the budget must be a finite number of "
        "milliseconds >= 0 (0 turns direct builds off)");
  }
  cupar::detail::jit::direct_budget().store(milliseconds);
}
double get_direct_build_budget() noexcept {
  return cupar::detail::jit::direct_budget().load();
}

void wait_for_background_builds() {
  cupar::detail::jit::worker().wait_idle();
}

stats get_stats() noexcept {
  const auto& c = cupar::detail::jit::engine_counters();
  stats s;
  s.operator_compiles = c.operator_compiles;
  s.kernel_compiles = c.kernel_compiles;
  s.links = c.links;
  s.loads = c.loads;
  s.memory_hits = c.memory_hits;
  s.disk_hits = c.disk_hits;
  s.disk_writes = c.disk_writes;
  s.disk_rejects = c.disk_rejects;
  s.background_builds = c.background_builds;
  s.background_failures = c.background_failures;
  s.background_skipped = c.background_skipped;
  s.upgrades = c.upgrades;
  s.direct_builds = c.direct_builds;
  s.optimized_builds = c.optimized_builds;
  s.optimized_build_ms = static_cast<double>(c.optimized_build_us.load()) / 1000.0;
  s.expression_code_reuses = c.expression_code_reuses;
  s.kernel_links = c.kernel_links;
  s.quick_builds = c.quick_builds;
  s.quick_compile_ms = static_cast<double>(c.quick_compile_us.load()) / 1000.0;
  s.quick_link_ms = static_cast<double>(c.quick_link_us.load()) / 1000.0;
  s.quick_load_ms = static_cast<double>(c.quick_load_us.load()) / 1000.0;
  s.quick_pool_wait_ms = static_cast<double>(c.quick_pool_wait_us.load()) / 1000.0;
  s.quick_lto_links = c.quick_lto_links;
  return s;
}

void clear_memory_cache() {
  auto& g = cupar::detail::jit::cache();
  std::lock_guard<std::mutex> lock(g.mutex);
  for (auto& [k, e] : g.entries) {
    e->retired.store(true);
    g.retired.push_back(e);  // modules may still be in use
  }
  g.entries.clear();
  g.generation++;
}

std::string cache_directory() {
  return cupar::detail::jit::disk_cache::instance().directory();
}

}  // namespace cupar::jit
