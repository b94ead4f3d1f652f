// cupar_precompile: build-time tool that compiles the JIT's kernel sets for the common element
// types, so that at run time only the operator is compiled and linked to them.
//
//   cupar_precompile compile <set key> <arch> <output prefix> [<set key> <arch> <prefix>]...
//       NVRTC-compiles each set twice (LTO-IR, and a relocatable cubin for the quick link) from
//       the same generated source the library compiles at run time for other types, and writes
//       <prefix>.ltoir, <prefix>.cubin and <prefix>.meta (kernel names, then "meta v1 v2 ...",
//       then "calls s1 s2 ...": the operator symbols the cubin calls).
//       The sets of one call share a precompiled header (below): CMake gives it a batch.
//   cupar_precompile named <arch> <output dir>
//       compiles every named-operator object of the data-processing families (kernel_set.hpp,
//       named_object_specs) to LTO-IR and a relocatable cubin, and writes <dir>/named.list (one
//       line per object: key|ltoir path|cubin path).
//   cupar_precompile fingerprint <stamp file> <set key> <arch> [<set key> <arch>]...
//       writes what each set's compiles would give NVRTC (a hash per set) to the stamp file when
//       that differs from what the file holds: the build's batch steps depend on the stamp, not
//       on this tool, so a change to the library's core recompiles only the sets it changes.
//   cupar_precompile list [<output file>]
//       prints (or writes) the key of every set the families' rules name with the default domains
//       (src/jit/families/*.cu; CMake expands the same rules, cmake/cupar_sets.cmake, and the
//       test cupar_precompiled_set_list compares the two), one a line.
//   cupar_precompile table <output.cpp> <entry>...
//       entry = <set key>|<arch>|<cubin fatbin path>|<LTO-IR fatbin path>|<meta path>, or
//       named|<arch>|<named.list path>;
//       writes the C++ table embedding every file (assembler .incbin) with the sets' kernel names
//       and metadata.
#include "jit/core/family.hpp"
#include "jit/core/kernel_set.hpp"
#include "jit/core/nvrtc.hpp"
#include "jit/core/precompiled_rules.hpp"
#include "jit/core/sources.hpp"

#include <cupar/jit.hpp>

#include <nvrtc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace jit = cupar::detail::jit;

namespace {

void write_file(const std::string& path, const std::vector<char>& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// --- the shared prefix (NVRTC precompiled headers) -----------------------------------------
// Each set's NVRTC front end spent about 1.2 of its 1.3 s (LTO-IR) and 3.0 s (cubin) parsing the
// CUB headers again. The sets of one call share a precompiled header instead: a prefix that
// includes the prelude and the toolkit headers (`#include <...>`) of the set's family header,
// parsed once per call, and included first by each set's source; the set's own
// source follows unchanged (its typedefs, slot declarations and family header, whose includes
// are then already done). A PCH serves only the process that made it (NVRTC's PCH heap lives at
// one address per process), hence batches rather than one call per set. The kernels are the
// same: the prefix holds the headers the family header includes anyway, only earlier (for 49
// sets, two of every family, the cubins' kernel sections were equal byte for byte, and the
// LTO-IR's PTX up to the order of declarations and the translation unit's hash in internal
// names). Should NVRTC decline the PCH, the set compiles without it, only slower (the line
// printed says so).

constexpr const char* prefix_name = "cupar_precompile_prefix.cuh";

/// The prefix of a family whose device code is `header`: the prelude and the toolkit headers
/// (`#include <...>`) `header` includes, in its order. Only the family's own: another family's
/// headers would add their device variables to the set's relocatable objects.
std::string prefix_header(const std::string& header) {
  std::ostringstream out;
  out << "#pragma once\n#define CUPAR_STATE_BYTES " << cupar::jit::max_param_bytes
      << "\n#include \"cupar_prelude.cuh\"\n";
  const jit::embedded_source* source = jit::find_embedded_source(header);
  if (source == nullptr) throw std::runtime_error("no embedded source " + header);
  std::istringstream text(source->text);
  for (std::string line; std::getline(text, line);) {
    if (line.rfind("#include <", 0) == 0) out << line << "\n";
  }
  return out.str();
}

class shared_prefix {
 public:
  explicit shared_prefix(std::string path) : path_(std::move(path)) {
    // Room for the largest prefix (about 200 MB); set once, before any PCH exists (resizing the
    // heap invalidates the PCHs made before).
    nvrtcSetPCHHeapSize(std::size_t{1} << 30);
  }
  shared_prefix(const shared_prefix&) = delete;
  shared_prefix& operator=(const shared_prefix&) = delete;
  ~shared_prefix() {
    for (const auto& [what, path] : files_)
      if (!path.empty()) std::remove(path.c_str());
  }

  /// Puts the prefix of the family whose header is `header` before the request's source, with
  /// the PCH option when its PCH exists.
  void apply(jit::compile_request& req, const std::string& header, int arch) {
    const std::string text = prefix_header(header);
    req.extra_headers = {{prefix_name, text}};
    req.source = std::string("#include \"") + prefix_name + "\"\n" + req.source;
    const std::string& pch = file(text, arch, req);
    if (!pch.empty()) {
      req.options.push_back("-use-pch=" + pch);
      req.options.emplace_back("-pch-messages=false");
    }
  }

  /// Whether NVRTC declined the PCH in a compile whose log this is (it says why).
  static bool declined(const std::string& log) { return log.find("PCH") != std::string::npos; }

 private:
  // One PCH per prefix and architecture serves both output kinds: NVRTC's front end is the
  // same for the LTO-IR (compute_XX, -dlto) and the cubin (sm_XX) compiles, and accepts it.
  // Made by the first compile that asks, with its options and output kind.
  const std::string& file(const std::string& text, int arch, const jit::compile_request& first) {
    const auto key = std::make_pair(text, arch);
    auto found = files_.find(key);
    if (found != files_.end()) return found->second;
    std::string path = path_ + ".prefix" + std::to_string(files_.size()) + ".pch";
    jit::compile_request req;
    req.source = std::string("#include \"") + prefix_name + "\"\n";
    req.name = "cupar_prefix.cu";
    req.extra_headers = {{prefix_name, text}};
    req.options = first.options;
    req.options.push_back("-create-pch=" + path);
    req.options.emplace_back("-pch-messages=false");
    req.kind = first.kind;
    try {
      jit::compile(req);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cupar_precompile: no precompiled header (%s); compiling without\n",
                   e.what());
      path.clear();
    }
    if (!path.empty() && !std::ifstream(path).good()) {
      std::fprintf(stderr,
                   "cupar_precompile: NVRTC made no precompiled header; compiling without\n");
      path.clear();
    }
    return files_.emplace(key, path).first->second;
  }

  std::string path_;
  std::map<std::pair<std::string, int>, std::string> files_;
};

/// The two compiles of a set: the LTO-IR of the inlined build and the cubin of the out-of-line
/// one, before the shared prefix is applied.
struct set_requests {
  jit::set_spec spec;
  jit::compile_request ltoir, cubin;
};

set_requests requests_of(const std::string& key, int arch) {
  const jit::set_spec spec = jit::parse_set_key(key);
  if (spec.key() != key) {
    throw std::runtime_error("set key " + key + " is not canonical (" + spec.key() + ")");
  }
  jit::compile_request req;
  req.source = jit::set_source(spec, nullptr);
  req.name = "cupar_kernels.cu";
  req.name_expressions = jit::name_expressions(spec);
  set_requests r{spec, req, req};
  r.ltoir.options = jit::compile_options(arch, true, true);
  r.ltoir.kind = jit::output::ltoir;
  // The out-of-line build: its functors hold the state as 16-byte words (cupar_prelude.cuh).
  r.cubin.source = "#define CUPAR_OUT_OF_LINE 1\n" + req.source;
  r.cubin.options = jit::compile_options(arch, false, true);
  if (const auto extra = jit::describe(spec.fam).out_of_line_options) {
    for (std::string& o : extra(spec, arch))
      r.cubin.options.push_back(std::move(o));
  }
  r.cubin.kind = jit::output::cubin;
  return r;
}

/// The operator symbols (`cupar_jit_...`) a relocatable cubin calls but does not define: the
/// batched forms the set's out-of-line kernels call. A new operator's quick build generates only
/// these (codegen.cpp, operator_source), since the link drops the rest. Reads the ELF64 symbol
/// table; throws when the cubin is not one.
std::vector<std::string> called_operator_symbols(const std::vector<char>& elf) {
  auto at = [&](std::size_t offset, std::size_t size) {
    if (offset + size > elf.size()) throw std::runtime_error("cubin: truncated ELF");
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < size; ++k)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(elf[offset + k])) << (8 * k);
    return v;
  };
  if (elf.size() < 64 || elf[0] != 0x7f || elf[1] != 'E' || elf[4] != 2)
    throw std::runtime_error("cubin: not an ELF64 file");
  const std::uint64_t shoff = at(0x28, 8), shentsize = at(0x3a, 2), shnum = at(0x3c, 2);
  std::vector<std::string> out;
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const std::size_t sh = shoff + i * shentsize;
    if (at(sh + 4, 4) != 2) continue;  // SHT_SYMTAB
    const std::uint64_t off = at(sh + 0x18, 8), size = at(sh + 0x20, 8), entsize = at(sh + 0x38, 8);
    const std::size_t strtab = shoff + at(sh + 0x28, 4) * shentsize;
    const std::uint64_t str_off = at(strtab + 0x18, 8), str_size = at(strtab + 0x20, 8);
    for (std::uint64_t e = off; entsize != 0 && e + entsize <= off + size; e += entsize) {
      const std::uint64_t name = at(e, 4);
      if (at(e + 6, 2) != 0 || name == 0 || name >= str_size) continue;  // defined, or no name
      const char* n = elf.data() + str_off + name;
      const std::string symbol(n, strnlen(n, str_size - name));
      if (symbol.rfind("cupar_jit_", 0) == 0) out.push_back(symbol);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int compile_set(const std::string& key, int arch, const std::string& prefix, shared_prefix& pch) {
  set_requests r = requests_of(key, arch);
  const jit::set_spec& spec = r.spec;
  jit::compile_request req = r.ltoir;
  pch.apply(req, jit::describe(spec.fam).header, arch);
  const jit::compile_result ltoir = jit::compile(req);
  req = r.cubin;
  pch.apply(req, jit::describe(spec.fam).header, arch);
  const jit::compile_result cubin = jit::compile(req);
  const int n = jit::kernel_count(spec.fam);
  for (int i = 0; i < n; ++i) {
    if (ltoir.lowered_names[static_cast<std::size_t>(i)] !=
        cubin.lowered_names[static_cast<std::size_t>(i)]) {
      throw std::runtime_error("kernel names differ between the LTO-IR and cubin builds");
    }
  }
  const auto meta = jit::parse_meta(ltoir.lowered_names.back());
  if (meta != jit::parse_meta(cubin.lowered_names.back()) || meta.empty()) {
    throw std::runtime_error("metadata differs between the builds or is empty");
  }
  write_file(prefix + ".ltoir", ltoir.binary);
  write_file(prefix + ".cubin", cubin.binary);
  std::ostringstream m;
  for (int i = 0; i < n; ++i)
    m << ltoir.lowered_names[static_cast<std::size_t>(i)] << "\n";
  m << "meta";
  for (long long v : meta)
    m << " " << v;
  m << "\ncalls";
  for (const std::string& c : called_operator_symbols(cubin.binary))
    m << " " << c;
  m << "\n";
  const std::string text = m.str();
  write_file(prefix + ".meta", std::vector<char>(text.begin(), text.end()));
  const bool slow = shared_prefix::declined(ltoir.log) || shared_prefix::declined(cubin.log);
  std::printf("cupar_precompile: %s sm_%d: %.0f + %.0f ms%s, LTO-IR %zu bytes, cubin %zu bytes\n",
              key.c_str(), arch, ltoir.milliseconds, cubin.milliseconds,
              slow ? " (without the precompiled header)" : "", ltoir.binary.size(),
              cubin.binary.size());
  return 0;
}

/// compile <key> <arch> <prefix> [<key> <arch> <prefix>]...: one shared prefix for all.
int compile_sets(const std::vector<std::string>& args) {
  if (args.empty() || args.size() % 3 != 0)
    throw std::runtime_error("compile: give <set key> <arch> <output prefix> triples");
  shared_prefix pch(args[2]);
  for (std::size_t i = 0; i < args.size(); i += 3)
    compile_set(args[i], std::stoi(args[i + 1]), args[i + 2], pch);
  return 0;
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// What the outputs of a set are a function of, beyond NVRTC's inputs: the post-processing
/// below (kernel names, parse_meta, the .meta format). Bump it when that changes, so that the
/// build's fingerprint steps recompile every set.
constexpr int set_output_format = 2;

/// fingerprint <stamp file> <key> <arch> [<key> <arch>]...: writes, for each set, what its two
/// compiles give NVRTC and what the prefix shared by a batch holds, to the stamp file, but only
/// when that text differs from the file's (so a build step depending on the stamp, with its
/// restat, reruns the batch only when one of its sets would compile differently). Compiles
/// nothing: a few milliseconds per set.
int write_fingerprint(const std::vector<std::string>& args) {
  if (args.size() < 3 || (args.size() - 1) % 2 != 0)
    throw std::runtime_error("fingerprint: give <stamp file> and <set key> <arch> pairs");
  std::string text = "format " + std::to_string(set_output_format) + "\n";
  for (std::size_t i = 1; i < args.size(); i += 2) {
    const int arch = std::stoi(args[i + 1]);
    const set_requests r = requests_of(args[i], arch);
    std::uint64_t h = 1469598103934665603ull;
    h = fnv1a(jit::compile_fingerprint(r.ltoir), h);
    h = fnv1a(jit::compile_fingerprint(r.cubin), h);
    h = fnv1a(prefix_header(jit::describe(r.spec.fam).header) +
                  std::to_string(jit::kernel_count(r.spec.fam)),
              h);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    text += args[i] + " " + args[i + 1] + " " + hex + "\n";
  }
  std::string old;
  if (std::ifstream(args[0]).good()) old = read_file(args[0]);
  if (old != text) write_file(args[0], std::vector<char>(text.begin(), text.end()));
  return 0;
}

int compile_named(int arch, const std::string& dir) {
  std::ostringstream list;
  int index = 0;
  double ms = 0;
  for (const auto& o : jit::named_object_specs()) {
    jit::compile_request req;
    req.source = jit::slot_operator_source(o.slot, o.binding, 0);
    req.name = "cupar_named_operator.cu";
    req.options = jit::compile_options(arch, true, true);
    req.kind = jit::output::ltoir;
    const jit::compile_result ltoir = jit::compile(req);
    req.options = jit::compile_options(arch, false, true);
    // The batched forms are called by out-of-line kernels linked at a register target (segmented
    // reduce's, src/jit/families/segmented.cu); a callee may not use more registers than its
    // kernel, so these stay within the lowest such target.
    if (o.slot.batches != 0) req.options.push_back(jit::register_limit(jit::out_of_line_registers));
    req.kind = jit::output::cubin;
    const jit::compile_result cubin = jit::compile(req);
    const std::string prefix = dir + "/named_" + std::to_string(index++);
    write_file(prefix + ".ltoir", ltoir.binary);
    write_file(prefix + ".cubin", cubin.binary);
    list << o.key << "|" << prefix << ".ltoir|" << prefix << ".cubin\n";
    ms += ltoir.milliseconds + cubin.milliseconds;
  }
  const std::string text = list.str();
  write_file(dir + "/named.list", std::vector<char>(text.begin(), text.end()));
  std::printf("cupar_precompile: %d named operators for sm_%d: %.0f ms\n", index, arch, ms);
  return 0;
}

int write_table(const std::string& output, const std::vector<std::string>& entries) {
  std::ostringstream asm_part, cpp_part, table, named_table;
  std::uint64_t build = 1469598103934665603ull;
  int index = 0, named_index = 0, blob = 0;
  auto embed = [&](const std::string& path, const std::string& data) {
    const std::string sym = "cupar_precompiled_blob_" + std::to_string(blob++);
    asm_part << "  \".globl " << sym << "\\n\"\n  \".hidden " << sym
             << "\\n\"\n  \".balign 16\\n\"\n"
             << "  \"" << sym << ":\\n\"\n  \".incbin \\\"" << path << "\\\"\\n\"\n";
    cpp_part << "extern \"C\" const unsigned char " << sym << "[];\n";
    build = fnv1a(data, build);
    return sym;
  };
  for (const auto& e : entries) {
    std::vector<std::string> f;
    std::stringstream in(e);
    std::string part;
    while (std::getline(in, part, '|'))
      f.push_back(part);
    if (f.size() == 3 && f[0] == "named") {
      const std::string arch = f[1];
      std::stringstream list(read_file(f[2]));
      std::string line;
      while (std::getline(list, line)) {
        std::vector<std::string> g;
        std::stringstream ls(line);
        while (std::getline(ls, part, '|'))
          g.push_back(part);
        if (g.size() != 3) continue;
        const std::string ltoir = read_file(g[1]), cubin = read_file(g[2]);
        const std::string lsym = embed(g[1], ltoir), csym = embed(g[2], cubin);
        build = fnv1a(g[0] + arch, build);
        named_table << "    {\"" << g[0] << "\", " << arch << ", " << lsym << ", " << ltoir.size()
                    << "u, " << csym << ", " << cubin.size() << "u},\n";
        ++named_index;
      }
      continue;
    }
    if (f.size() != 5) throw std::runtime_error("bad table entry " + e);
    const std::string& key = f[0];
    const int arch = std::stoi(f[1]);
    const std::string cubin_fatbin = read_file(f[2]), ltoir_fatbin = read_file(f[3]);
    const std::string meta_text = read_file(f[4]);
    build = fnv1a(key + f[1], fnv1a(meta_text, build));
    std::vector<std::string> kernels;
    std::vector<long long> meta;
    std::vector<std::string> calls;
    std::stringstream ms(meta_text);
    std::string line;
    while (std::getline(ms, line)) {
      if (line.rfind("calls", 0) == 0) {
        std::stringstream cs(line.substr(5));
        std::string c;
        while (cs >> c)
          calls.push_back(c);
      } else if (line.rfind("meta", 0) == 0) {
        std::stringstream vs(line.substr(4));
        long long v;
        while (vs >> v)
          meta.push_back(v);
      } else if (!line.empty()) {
        kernels.push_back(line);
      }
    }
    const std::string cubin_sym = embed(f[2], cubin_fatbin), ltoir_sym = embed(f[3], ltoir_fatbin);
    cpp_part << "const char* const kernels_" << index << "[] = {";
    for (const auto& k : kernels)
      cpp_part << "\"" << k << "\", ";
    cpp_part << "};\nconst long long meta_" << index << "[] = {";
    for (long long v : meta)
      cpp_part << v << ", ";
    cpp_part << "};\nconst char* const calls_" << index << "[] = {";
    for (const auto& c : calls)
      cpp_part << "\"" << c << "\", ";
    cpp_part << "nullptr};\n";
    table << "    {\"" << key << "\", " << arch << ", " << cubin_sym << ", " << cubin_fatbin.size()
          << "u, " << ltoir_sym << ", " << ltoir_fatbin.size() << "u, kernels_" << index << ", "
          << kernels.size() << ", meta_" << index << ", " << meta.size() << ", calls_" << index
          << ", " << calls.size() << "},\n";
    ++index;
  }
  std::ostringstream out;
  out << "// Generated by tools/cupar_precompile. Do not edit.\n"
      << "#include \"jit/core/precompiled.hpp\"\n\n";
  if (blob > 0) {
    out << "__asm__(\n  \".section .rodata\\n\"\n" << asm_part.str() << "  \".text\\n\");\n\n";
  }
  out << "namespace cupar::detail::jit {\nnamespace {\n" << cpp_part.str() << "}  // namespace\n\n";
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(build));
  out << "const char* const precompiled_build_id = \"" << id << "\";\n";
  if (index > 0) {
    out << "const precompiled_set precompiled_sets[] = {\n" << table.str() << "};\n";
  } else {
    out << "const precompiled_set precompiled_sets[] = {{\"\", 0, nullptr, 0, nullptr, 0, nullptr, "
           "0, nullptr, 0, nullptr, 0}};\n";
  }
  out << "const int precompiled_set_count = " << index << ";\n";
  if (named_index > 0) {
    out << "const precompiled_named precompiled_named_objects[] = {\n"
        << named_table.str() << "};\n";
  } else {
    out << "const precompiled_named precompiled_named_objects[] = {{\"\", 0, nullptr, 0, nullptr, "
           "0}};\n";
  }
  out << "const int precompiled_named_count = " << named_index
      << ";\n}  // namespace cupar::detail::jit\n";
  const std::string text = out.str();
  std::ifstream existing(output, std::ios::binary);
  if (existing) {
    const std::string old((std::istreambuf_iterator<char>(existing)),
                          std::istreambuf_iterator<char>());
    if (old == text) return 0;  // unchanged: keep the timestamp, avoid a rebuild
  }
  write_file(output, std::vector<char>(text.begin(), text.end()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "compile" && argc >= 5) {
      return compile_sets(std::vector<std::string>(argv + 2, argv + argc));
    }
    if (mode == "named" && argc == 4) return compile_named(std::stoi(argv[2]), argv[3]);
    if (mode == "fingerprint" && argc >= 5) {
      return write_fingerprint(std::vector<std::string>(argv + 2, argv + argc));
    }
    if (mode == "list" && argc <= 3) {
      std::string text;
      for (const std::string& k : jit::precompiled_set_keys(jit::set_domains::defaults()))
        text += k + "\n";
      if (argc == 2) {
        std::cout << text;
      } else {
        write_file(argv[2], std::vector<char>(text.begin(), text.end()));
      }
      return 0;
    }
    if (mode == "table" && argc >= 3) {
      return write_table(argv[2], std::vector<std::string>(argv + 3, argv + argc));
    }
    std::cerr << "usage: cupar_precompile compile <set key> <arch> <output prefix> [<key> <arch> "
                 "<prefix>]...\n"
                 "       cupar_precompile named <arch> <output dir>\n"
                 "       cupar_precompile fingerprint <stamp file> <key> <arch> [<key> <arch>]...\n"
                 "       cupar_precompile list [<output file>]\n"
                 "       cupar_precompile table <output.cpp> <key|arch|cubin fatbin|LTO-IR "
                 "fatbin|meta>...\n";
    return 2;
  } catch (const cupar::jit_error& e) {
    std::cerr << "cupar_precompile: " << e.what() << "\n--- log ---\n"
              << e.log() << "\n--- source ---\n"
              << e.source() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "cupar_precompile: " << e.what() << "\n";
    return 1;
  }
}
