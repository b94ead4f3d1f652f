// cupar internal: generated device source for kernel sets and operators.
#include "kernel_set.hpp"

#include "nvrtc.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/error.hpp>

#include <sys/stat.h>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#ifndef CUPAR_BUILD_CCCL_INCLUDE_DIR
#define CUPAR_BUILD_CCCL_INCLUDE_DIR ""
#endif
#ifndef CUPAR_BUILD_CUDA_INCLUDE_DIR
#define CUPAR_BUILD_CUDA_INCLUDE_DIR ""
#endif

namespace cupar::detail::jit {
namespace {

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

const char* family_name(family f) {
  switch (f) {
    case family::reduce:
      return "reduce";
    case family::scan_inclusive:
      return "scan_inclusive";
    case family::scan_exclusive:
      return "scan_exclusive";
    case family::transform_unary:
      return "transform_unary";
    case family::transform_binary:
      return "transform_binary";
    case family::merge_sort_keys:
      return "merge_sort_keys";
    case family::merge_sort_pairs:
      return "merge_sort_pairs";
    case family::histogram_even:
      return "histogram_even";
    case family::histogram_range:
      return "histogram_range";
  }
  return "?";
}

/// Result type and argument (type, name) pairs of the operator for a set.
struct role {
  std::string result;
  std::vector<std::pair<std::string, std::string>> args;
};

role role_of(const set_spec& s) {
  const auto& t = s.types;
  switch (s.fam) {
    case family::reduce:
    case family::scan_inclusive:
    case family::scan_exclusive:
      return {t[0].name, {{t[0].name, "a"}, {t[0].name, "b"}}};
    case family::transform_unary:
      return {t[1].name, {{t[0].name, "x"}}};
    case family::transform_binary:
      return {t[2].name, {{t[0].name, "a"}, {t[1].name, "b"}}};
    case family::merge_sort_keys:
    case family::merge_sort_pairs:
      return {"bool", {{t[0].name, "a"}, {t[0].name, "b"}}};
    case family::histogram_even:
    case family::histogram_range:
      return {t[1].name, {{t[0].name, "x"}}};
  }
  return {};
}

/// Definitions of the user types a set uses, each once, with a check that the device type has
/// the size and alignment of the host type.
std::string types_block(const set_spec& s) {
  std::ostringstream out;
  std::set<std::string> done;
  for (const auto& t : s.types) {
    if (t.definition.empty() || !done.insert(t.name).second) continue;
    out << "#line 1 \"cupar_type_" << t.name << "\"\n" << t.definition << "\n";
    out << "#line 1 \"cupar_generated\"\n";
    out << "static_assert(sizeof(" << t.name << ") == " << t.size << " && alignof(" << t.name
        << ") == " << t.align << ", \"cupar: the device definition of " << t.name
        << " must have the host type's size and alignment (" << t.size << " bytes, aligned to "
        << t.align << ")\");\n";
  }
  return out.str();
}

std::string typedefs_block(const set_spec& s) {
  std::ostringstream out;
  const auto& t = s.types;
  switch (s.fam) {
    case family::reduce:
    case family::scan_inclusive:
    case family::scan_exclusive:
      out << "typedef " << t[0].name << " cupar_T;\n";
      break;
    case family::transform_unary:
      out << "typedef " << t[0].name << " cupar_In;\ntypedef " << t[1].name << " cupar_Out;\n";
      break;
    case family::transform_binary:
      out << "#define CUPAR_TRANSFORM_BINARY 1\ntypedef " << t[0].name << " cupar_A;\ntypedef "
          << t[1].name << " cupar_B;\ntypedef " << t[2].name << " cupar_Out;\n";
      break;
    case family::merge_sort_keys:
      out << "typedef " << t[0].name << " cupar_K;\n";
      break;
    case family::merge_sort_pairs:
      out << "#define CUPAR_SORT_PAIRS 1\ntypedef " << t[0].name << " cupar_K;\ntypedef "
          << t[1].name << " cupar_V;\n";
      break;
    case family::histogram_even:
    case family::histogram_range:
      out << (s.fam == family::histogram_even ? "#define CUPAR_HISTOGRAM_EVEN 1\n" : "")
          << "typedef " << t[0].name << " cupar_S;\ntypedef " << t[1].name << " cupar_L;\ntypedef "
          << t[2].name << " cupar_C;\n";
      break;
  }
  return out.str();
}

const char* family_header(family f) {
  switch (f) {
    case family::reduce:
      return "cupar_reduce.cuh";
    case family::scan_inclusive:
    case family::scan_exclusive:
      return "cupar_scan.cuh";
    case family::transform_unary:
    case family::transform_binary:
      return "cupar_transform.cuh";
    case family::merge_sort_keys:
    case family::merge_sort_pairs:
      return "cupar_merge_sort.cuh";
    case family::histogram_even:
    case family::histogram_range:
      return "cupar_histogram.cuh";
  }
  return "";
}

std::string signature(const set_spec& s) {
  const role r = role_of(s);
  std::ostringstream out;
  out << "extern \"C\" __device__ " << r.result << " cupar_jit_op(const unsigned char* cupar_state";
  for (const auto& [type, name] : r.args)
    out << ", " << type << " " << name;
  out << ")";
  return out.str();
}

/// The operator function: parameters unpacked from the state bytes, then the snippet (an
/// expression, or a lambda called with the arguments), its result converted to the role's type.
std::string operator_function(const set_spec& s, const cupar::jit::op& op) {
  const role r = role_of(s);
  std::ostringstream out;
  out << signature(s) << " {\n";
  for (const auto& p : op.params()) {
    const char* type = scalar_cxx_name(p.type);
    out << "  const " << type << " " << p.name << " = *reinterpret_cast<const " << type
        << "*>(cupar_state + " << p.offset << ");\n";
  }
  out << "  (void)cupar_state;\n";
  const std::string text = snippet_text(op);
  std::size_t first = text.find_first_not_of(" \t\r\n");
  const bool lambda = first != std::string::npos && text[first] == '[';
  if (lambda) {
    out << "  auto cupar_fn =\n#line 1 \"" << snippet_file << "\"\n"
        << text << "\n#line 1 \"cupar_generated\"\n  ;\n";
    out << "  " << r.result << " cupar_result = cupar_fn(";
    for (std::size_t i = 0; i < r.args.size(); ++i)
      out << (i ? ", " : "") << r.args[i].second;
    out << ");\n";
  } else {
    out << "  " << r.result << " cupar_result = (\n#line 1 \"" << snippet_file << "\"\n"
        << text << "\n#line 1 \"cupar_generated\"\n  );\n";
  }
  out << "  return cupar_result;\n}\n";
  return out.str();
}

bool readable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

// --- type_ref ---------------------------------------------------------------------------------

type_ref type_ref::of(const jit_type& t) {
  type_ref r;
  r.kind = t.kind;
  r.name = t.name;
  r.definition = t.definition ? t.definition : "";
  r.size = t.size;
  r.align = t.align;
  return r;
}

type_ref type_ref::of(scalar s) {
  type_ref r;
  r.kind = s;
  r.name = scalar_cxx_name(s);
  r.size = r.align = static_cast<std::uint32_t>(scalar_size(s));
  return r;
}

type_ref type_ref::storage(std::uint32_t size, std::uint32_t align) {
  type_ref r;
  r.name = "cupar_storage<" + std::to_string(size) + ", " + std::to_string(align) + ">";
  r.size = size;
  r.align = align;
  return r;
}

std::string type_ref::key() const {
  if (static_cast<int>(kind) != 0) return scalar_name(kind);
  if (definition.empty()) return "s" + std::to_string(size) + "a" + std::to_string(align);
  return name + "/" + std::to_string(size) + "/" + std::to_string(align) + "/" +
         hex64(fnv1a(definition));
}

std::string set_spec::key() const {
  std::string k = family_name(fam);
  k += '<';
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i) k += ',';
    k += types[i].key();
  }
  k += '>';
  return k;
}

set_spec parse_set_key(const std::string& key) {
  static const std::regex form(R"(([a-z_]+)<([a-z0-9,]+)>)");
  std::smatch m;
  if (!std::regex_match(key, m, form)) {
    throw_invalid_argument("cupar::jit", "malformed kernel set key " + key);
  }
  set_spec spec;
  bool found = false;
  for (int f = 0; f <= static_cast<int>(family::histogram_range); ++f) {
    if (m[1] == family_name(static_cast<family>(f))) {
      spec.fam = static_cast<family>(f);
      found = true;
    }
  }
  if (!found) throw_invalid_argument("cupar::jit", "unknown kernel set family in " + key);
  std::stringstream types(m[2]);
  std::string t;
  static const std::regex storage(R"(s([0-9]+)a([0-9]+))");
  while (std::getline(types, t, ',')) {
    std::smatch sm;
    if (std::regex_match(t, sm, storage)) {
      spec.types.push_back(type_ref::storage(static_cast<std::uint32_t>(std::stoul(sm[1])),
                                             static_cast<std::uint32_t>(std::stoul(sm[2]))));
      continue;
    }
    bool known = false;
    for (int s = 1; s <= scalar_count; ++s) {
      if (t == scalar_name(static_cast<scalar>(s))) {
        spec.types.push_back(type_ref::of(static_cast<scalar>(s)));
        known = true;
      }
    }
    if (!known) throw_invalid_argument("cupar::jit", "unknown type " + t + " in " + key);
  }
  return spec;
}

// --- kernels and metadata ---------------------------------------------------------------------

int kernel_count(family f) {
  switch (f) {
    case family::reduce:
      return 3;
    case family::scan_inclusive:
    case family::scan_exclusive:
      return 2;
    case family::transform_unary:
    case family::transform_binary:
      return 1;
    case family::merge_sort_keys:
    case family::merge_sort_pairs:
      return 3;
    case family::histogram_even:
    case family::histogram_range:
      return 3;
  }
  return 0;
}

std::vector<std::string> name_expressions(family f) {
  switch (f) {
    case family::reduce:
      return {
          "cub::detail::reduce::DeviceReduceSingleTileKernel<cupar_policy, const cupar_T*, "
          "cupar_T*, cupar_offset, cupar_reduce_op, cupar_T, cupar_T, ::cuda::std::__identity>",
          "cub::detail::reduce::DeviceReduceKernel<cupar_policy, const cupar_T*, cupar_offset, "
          "cupar_reduce_op, cupar_T, ::cuda::std::__identity>",
          "cub::detail::reduce::DeviceReduceSingleTileKernel<cupar_policy, cupar_T*, cupar_T*, "
          "int, cupar_reduce_op, cupar_T, cupar_T, ::cuda::std::__identity>",
          "cupar_meta<(long long)cupar_active::ReducePolicy::BLOCK_THREADS, "
          "(long long)cupar_active::ReducePolicy::ITEMS_PER_THREAD, "
          "(long long)cupar_active::SingleTilePolicy::BLOCK_THREADS, "
          "(long long)cupar_active::SingleTilePolicy::ITEMS_PER_THREAD>"};
    case family::scan_inclusive:
    case family::scan_exclusive: {
      const std::string init = f == family::scan_inclusive ? "cub::NullType" : "cupar_scan_init";
      return {"cub::detail::scan::DeviceScanInitKernel<cupar_tile_state>",
              "cub::detail::scan::DeviceScanKernel<cupar_policy, const cupar_T*, cupar_T*, "
              "cupar_tile_state, cupar_scan_op, " +
                  init + ", cupar_offset, cupar_T, false>",
              "cupar_meta<(long long)cupar_active::ScanPolicyT::BLOCK_THREADS, "
              "(long long)cupar_active::ScanPolicyT::ITEMS_PER_THREAD, "
              "(long long)cupar_tile_state::description_bytes_per_tile, "
              "(long long)cupar_tile_state::payload_bytes_per_tile, "
              "(long long)sizeof(cupar_tile_state)>"};
    }
    case family::transform_unary:
    case family::transform_binary: {
      const std::string ins =
          f == family::transform_unary ? "const cupar_In*" : "const cupar_A*, const cupar_B*";
      return {
          "cub::detail::transform::transform_kernel<cupar_policy, cupar_offset, "
          "cupar_transform_op, cupar_Out*, " +
              ins + ">",
          "cupar_meta<(long long)cupar_active::algorithm, "
          "(long long)cupar_active::algo_policy::block_threads, "
          "(long long)cupar_active::algo_policy::min_items_per_thread, "
          "(long long)cupar_active::algo_policy::max_items_per_thread, "
          "(long long)cupar_active::min_bif, "
          "(long long)cub::detail::transform::loaded_bytes_per_iteration<" +
              ins + ">()>"};
    }
    case family::merge_sort_keys:
    case family::merge_sort_pairs:
      return {
          "cub::detail::merge_sort::DeviceMergeSortBlockSortKernel<cupar_policy, "
          "const cupar_K*, cupar_value_in, cupar_K*, cupar_value_out, cupar_offset, "
          "cupar_sort_compare, cupar_K, cupar_value>",
          "cub::detail::merge_sort::DeviceMergeSortPartitionKernel<cupar_K*, cupar_offset, "
          "cupar_sort_compare, cupar_K>",
          "cub::detail::merge_sort::DeviceMergeSortMergeKernel<cupar_policy, "
          "const cupar_K*, cupar_value_in, cupar_K*, cupar_value_out, cupar_offset, "
          "cupar_sort_compare, cupar_K, cupar_value>",
          "cupar_meta<(long long)cupar_vsmem_helper::policy_t::BLOCK_THREADS, "
          "(long long)cupar_vsmem_helper::policy_t::ITEMS_PER_TILE, "
          "(long long)cub::detail::vsmem_helper_impl<"
          "cupar_vsmem_helper::block_sort_agent_t>::vsmem_per_block, "
          "(long long)cub::detail::vsmem_helper_impl<"
          "cupar_vsmem_helper::merge_agent_t>::vsmem_per_block>"};
    case family::histogram_even:
    case family::histogram_range:
      return {"cupar_histogram_init<cupar_C>", "cupar_histogram_sweep<256>",
              "cupar_histogram_sweep<0>",
              "cupar_meta<(long long)cupar_histogram_agent_policy::BLOCK_THREADS, "
              "(long long)cupar_histogram_agent_policy::PIXELS_PER_THREAD, "
              "(long long)sizeof(cupar_privatized_decode), "
              "(long long)sizeof(cupar_output_decode), (long long)sizeof(cupar_B), "
              "(long long)sizeof(cupar_sample_iterator)>"};
  }
  return {};
}

std::vector<long long> parse_meta(const std::string& lowered) {
  // Itanium mangling of a long long template argument: "Lx" [n] digits "E".
  static const std::regex arg("Lx(n?)([0-9]+)E");
  std::vector<long long> values;
  for (std::sregex_iterator it(lowered.begin(), lowered.end(), arg), end; it != end; ++it) {
    const long long v = std::stoll((*it)[2]);
    values.push_back((*it)[1].length() ? -v : v);
  }
  return values;
}

// --- sources ----------------------------------------------------------------------------------

std::string role_description(const set_spec& spec) {
  const role r = role_of(spec);
  std::string d = r.args.size() == 1 ? "a unary operator (" : "a binary operator (";
  if (spec.fam == family::merge_sort_keys || spec.fam == family::merge_sort_pairs) {
    d = "a comparator (";
  }
  for (std::size_t i = 0; i < r.args.size(); ++i) {
    d += (i ? ", " : "") + r.args[i].first + " " + r.args[i].second;
  }
  return d + ") -> " + r.result;
}

std::string snippet_text(const cupar::jit::op& op) {
  using cupar::jit::named_op;
  switch (op.named()) {
    case named_op::none:
      return op.source();
    case named_op::plus:
      return "a + b";
    case named_op::multiplies:
      return "a * b";
    case named_op::minimum:
      return "b < a ? b : a";
    case named_op::maximum:
      return "a < b ? b : a";
    case named_op::bit_and:
      return "a & b";
    case named_op::bit_or:
      return "a | b";
    case named_op::bit_xor:
      return "a ^ b";
    case named_op::less:
      return "a < b";
    case named_op::greater:
      return "b < a";
  }
  return op.source();
}

namespace {
std::string preamble_block(const cupar::jit::op& op) {
  const std::string& pre = cupar::jit::detail::op_preamble(*op.definition());
  if (pre.empty()) return std::string();
  return std::string("#line 1 \"") + preamble_file + "\"\n" + pre +
         "\n#line 1 \"cupar_generated\"\n";
}
}  // namespace

std::string operator_source(const set_spec& spec, const cupar::jit::op& op) {
  std::ostringstream out;
  out << "// cupar: operator for " << spec.key() << "\n";
  out << types_block(spec) << preamble_block(op) << operator_function(spec, op);
  return out.str();
}

std::string set_source(const set_spec& spec, const cupar::jit::op* op) {
  std::ostringstream out;
  out << "// cupar: kernel set " << spec.key() << "\n";
  out << "#define CUPAR_STATE_BYTES " << cupar::jit::max_param_bytes << "\n";
  out << "#include \"cupar_prelude.cuh\"\n";
  out << types_block(spec) << typedefs_block(spec);
  if (op != nullptr) {
    out << preamble_block(*op) << operator_function(spec, *op);
  } else {
    out << signature(spec) << ";\n";
  }
  out << "#include \"" << family_header(spec.fam) << "\"\n";
  return out.str();
}

// --- options ----------------------------------------------------------------------------------

const std::string& cccl_include_dir() {
  static std::mutex mutex;
  static std::string found;
  std::lock_guard<std::mutex> lock(mutex);
  if (!found.empty()) return found;
  std::vector<std::string> tried;
  auto try_dir = [&](const std::string& dir) {
    if (dir.empty()) return false;
    tried.push_back(dir);
    if (readable_file(dir + "/cub/version.cuh") && readable_file(dir + "/cuda/std/type_traits")) {
      found = dir;
      return true;
    }
    return false;
  };
  if (const char* env = std::getenv("CUPAR_CCCL_INCLUDE_DIR"); env && try_dir(env)) return found;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"}) {
    if (const char* env = std::getenv(var); env && try_dir(std::string(env) + "/include/cccl")) {
      return found;
    }
  }
  if (try_dir(CUPAR_BUILD_CCCL_INCLUDE_DIR)) return found;
  if (try_dir("/usr/local/cuda/include/cccl")) return found;
  std::string list;
  for (const auto& t : tried)
    list += "\n  " + t;
  throw jit_error(jit_stage::compile,
                  "cupar: CCCL headers (cub/, cuda/std/) not found for run-time compilation; set "
                  "CUPAR_CCCL_INCLUDE_DIR or CUDA_PATH. Tried:" +
                      list,
                  std::string(), std::string(), {}, 0, std::string());
}

std::vector<std::string> compile_options(int arch, bool ltoir, bool relocatable) {
  const std::string& cccl = cccl_include_dir();
  std::vector<std::string> o;
  o.push_back(ltoir ? "-arch=compute_" + std::to_string(arch) : "-arch=sm_" + std::to_string(arch));
  if (ltoir) o.emplace_back("-dlto");
  if (relocatable || ltoir) o.emplace_back("-rdc=true");
  o.emplace_back("-std=c++17");
  o.emplace_back("-default-device");
  o.push_back("-I" + cccl);
  // cuda_fp16.h and friends live beside the toolkit's cccl directory.
  const std::string parent = cccl.substr(0, cccl.rfind('/'));
  o.push_back("-I" + parent);
  return o;
}

}  // namespace cupar::detail::jit
