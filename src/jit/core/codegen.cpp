// cupar internal: generated device source for kernel sets and operators.
#include "family.hpp"
#include "iterator_expr.hpp"
#include "kernel_set.hpp"

#include "nvrtc.hpp"
#include "op_definition.hpp"

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

}  // namespace

std::string hash_hex(const std::string& text) {
  return hex64(fnv1a(text));
}

std::string parameter_lines(const std::vector<cupar::jit::detail::op_param>& params,
                            std::size_t base) {
  std::ostringstream out;
  for (const auto& p : params) {
    const char* type = scalar_cxx_name(p.type);
    out << "  const " << type << " " << p.name << " = *reinterpret_cast<const " << type
        << "*>(cupar_state + " << base + p.offset << ");\n";
  }
  return out.str();
}

std::string preamble_text_block(const std::string& preamble, const std::string& back_to) {
  const std::string guard = "CUPAR_PREAMBLE_" + hash_hex(preamble);
  return "#ifndef " + guard + "\n#define " + guard + "\n#line 1 \"" + preamble_file + "\"\n" +
         preamble + "\n#line 1 \"" + back_to + "\"\n#endif\n";
}

std::string snippet_evaluation(const std::string& text, const std::string& file,
                               const std::string& back_to, const std::string& result,
                               const std::vector<const char*>& args) {
  std::ostringstream out;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    out << "  auto cupar_fn =\n#line 1 \"" << file << "\"\n"
        << text << "\n#line 1 \"" << back_to << "\"\n  ;\n";
    out << "  " << result << " cupar_result = cupar_fn(";
    for (std::size_t i = 0; i < args.size(); ++i)
      out << (i ? ", " : "") << args[i];
    out << ");\n";
  } else {
    out << "  " << result << " cupar_result = (\n#line 1 \"" << file << "\"\n"
        << text << "\n#line 1 \"" << back_to << "\"\n  );\n";
  }
  return out.str();
}

std::string type_definition_block(const type_ref& t, const char* back_to) {
  if (t.definition.empty()) return std::string();
  // Guarded: an iterator expression's generated code (iterator.cpp) defines the types it uses
  // as well, and may name the set's own types.
  const std::string guard = "CUPAR_TYPE_" + hash_hex(t.name);
  std::ostringstream out;
  out << "#ifndef " << guard << "\n#define " << guard << "\n";
  out << "#line 1 \"cupar_type_" << t.name << "\"\n" << t.definition << "\n";
  out << "#line 1 \"" << back_to << "\"\n";
  out << "static_assert(sizeof(" << t.name << ") == " << t.size << " && alignof(" << t.name
      << ") == " << t.align << ", \"cupar: the device definition of " << t.name
      << " must have the host type's size and alignment (" << t.size << " bytes, aligned to "
      << t.align << ")\");\n#endif\n";
  return out.str();
}

namespace {

/// Definitions of the user types a build uses, each once, with a check that the device type has
/// the size and alignment of the host type.
void add_type_definitions(std::ostringstream& out, std::set<std::string>& done, const type_ref& t) {
  if (t.definition.empty() || !done.insert(t.name).second) return;
  out << type_definition_block(t, "cupar_generated");
}

std::string types_block(const set_spec& set, const build_spec* spec,
                        const std::vector<int>* which) {
  std::ostringstream out;
  std::set<std::string> done;
  for (const auto& t : set.types)
    add_type_definitions(out, done, t);
  if (spec != nullptr) {
    for (std::size_t i = 0; i < spec->slots.size(); ++i) {
      if (which != nullptr) {
        bool wanted = false;
        for (int w : *which)
          wanted = wanted || w == static_cast<int>(i);
        if (!wanted) continue;
      }
      for (const auto& t : spec->slots[i].args)
        add_type_definitions(out, done, t);
      add_type_definitions(out, done, spec->slots[i].result);
    }
  }
  return out.str();
}

bool same_type(const type_ref& a, const type_ref& b) {
  return a.name == b.name;
}

/// The bits of a size-class value as the user's type and back (operators of the data-processing
/// families receive the kernels' size classes).
constexpr const char* bit_cast_definition =
    "#ifndef CUPAR_BIT_CAST_DEFINED\n#define CUPAR_BIT_CAST_DEFINED\n"
    "template <class To, class From>\n"
    "__device__ __forceinline__ To cupar_bit_cast(const From& from) {\n"
    "  static_assert(sizeof(To) == sizeof(From), \"cupar: size class mismatch\");\n"
    "  To to;\n  memcpy(&to, &from, sizeof(To));\n  return to;\n}\n#endif\n";

/// A padded record (request.hpp, padded_view) as the user's struct and back: the struct's bytes
/// copied out of the storage of the next 8-byte size, or into it with the rest zeroed.
constexpr const char* pad_cast_definition =
    "#ifndef CUPAR_PAD_CAST_DEFINED\n#define CUPAR_PAD_CAST_DEFINED\n"
    "template <class To, class From>\n"
    "__device__ __forceinline__ To cupar_pad_cast(const From& from) {\n"
    "  static_assert((sizeof(To) + 7) / 8 == (sizeof(From) + 7) / 8, \"cupar: padding "
    "mismatch\");\n"
    "  To to;\n  memset(&to, 0, sizeof(To));\n"
    "  memcpy(&to, &from, sizeof(To) < sizeof(From) ? sizeof(To) : sizeof(From));\n"
    "  return to;\n}\n#endif\n";

/// cupar_storage as jit_ops/cupar_prelude.cuh defines it, for operator sources compiled apart
/// from the kernels (their functions take and return the storage of a struct class by value).
constexpr const char* storage_definition =
    "#ifndef CUPAR_STORAGE_DEFINED\n#define CUPAR_STORAGE_DEFINED\n"
    "template <int Bytes> struct cupar_word;\n"
    "template <> struct cupar_word<1> { typedef unsigned char type; };\n"
    "template <> struct cupar_word<2> { typedef unsigned short type; };\n"
    "template <> struct cupar_word<4> { typedef unsigned int type; };\n"
    "template <> struct cupar_word<8> { typedef unsigned long long type; };\n"
    "template <int Size, int Align>\n"
    "struct alignas(Align) cupar_storage {\n"
    "  typename cupar_word<(Align > 8 ? 8 : Align)>::type words[Size / (Align > 8 ? 8 : Align)];\n"
    "};\n#endif\n";

/// cupar_items as jit_ops/cupar_prelude.cuh defines it: the results of a batched scan, returned
/// by value.
constexpr const char* items_definition =
    "#ifndef CUPAR_ITEMS_DEFINED\n#define CUPAR_ITEMS_DEFINED\n"
    "template <class T, int N>\nstruct cupar_items {\n  T v[N];\n};\n#endif\n";

/// cupar_merged and cupar_merge_chunk as jit_ops/cupar_merge_sort.cuh defines them: a serial
/// merge's chunk of keys and where its first run stands, returned by value (at most 12 words).
constexpr const char* merged_definition =
    "#ifndef CUPAR_MERGED_DEFINED\n#define CUPAR_MERGED_DEFINED\n"
    "template <class K>\nstruct cupar_merge_chunk {\n  static constexpr int value =\n"
    "      sizeof(K) > 44 ? 1 : 44 / sizeof(K) > 17 ? 17 : static_cast<int>(44 / sizeof(K));\n};\n"
    "template <class K, int N>\nstruct cupar_merged {\n  K k[N];\n  int b1;\n};\n#endif\n";

bool uses_storage(const slot_spec& slot) {
  auto storage = [](const type_ref& t) {
    return !t.is_scalar() && t.definition.empty() && !t.is_boolean();
  };
  for (const auto& a : slot.args)
    if (storage(a)) return true;
  return storage(slot.result);
}

bool needs_bit_cast(const slot_spec& slot, const slot_binding& b) {
  for (std::size_t i = 0; i < slot.args.size(); ++i) {
    if (!same_type(slot.args[i], b.args[i])) return true;
  }
  return !same_type(slot.result, b.result);
}

/// Whether a slot's storage and the user's type it binds differ in size (a padded record): the
/// wrapper copies with cupar_pad_cast where cupar_bit_cast would need equal sizes.
bool padded(const type_ref& storage, const type_ref& user) {
  return storage.size != user.size;
}
bool needs_pad_cast(const slot_spec& slot, const slot_binding& b) {
  for (std::size_t i = 0; i < slot.args.size(); ++i) {
    if (padded(slot.args[i], b.args[i])) return true;
  }
  return padded(slot.result, b.result);
}
const char* cast_of(const type_ref& storage, const type_ref& user) {
  return padded(storage, user) ? "cupar_pad_cast<" : "cupar_bit_cast<";
}

std::string signature(const slot_spec& slot, bool renamed) {
  std::ostringstream out;
  out << "extern \"C\" __device__ " << slot.result.name << " " << slot.symbol
      << "(const unsigned char* cupar_state";
  for (std::size_t i = 0; i < slot.args.size(); ++i) {
    out << ", " << slot.args[i].name << " ";
    if (renamed) {
      out << "cupar_arg" << i;
    } else {
      out << slot.arg_names[i];
    }
  }
  out << ")";
  return out.str();
}

/// The operator function of a slot: parameters unpacked from the state bytes, the arguments as
/// the user's types, then the snippet (an expression, or a lambda called with the arguments), its
/// result converted to the user's result type and handed back as the slot's type.
std::string operator_function(const slot_spec& slot, const slot_binding& b, int index) {
  const bool cast = needs_bit_cast(slot, b);
  const std::string generated = generated_file_of(index);
  std::ostringstream out;
  if (index != 0) out << "#line 1 \"" << generated << "\"\n";
  out << signature(slot, cast) << " {\n";
  if (cast) {
    for (std::size_t i = 0; i < slot.args.size(); ++i) {
      if (same_type(slot.args[i], b.args[i])) {
        out << "  " << b.args[i].name << " " << slot.arg_names[i] << " = cupar_arg" << i << ";\n";
      } else {
        out << "  " << b.args[i].name << " " << slot.arg_names[i] << " = "
            << cast_of(slot.args[i], b.args[i]) << b.args[i].name << ">(cupar_arg" << i << ");\n";
      }
    }
  }
  // A wide state lives in device memory; the parameter bytes hold its address
  // (cupar::jit::max_expression_state_bytes).
  if (b.op.definition()->wide_state) {
    out << "  cupar_state = *reinterpret_cast<const unsigned char* const*>(cupar_state);\n";
  }
  out << parameter_lines(b.op.params(), 0);
  out << "  (void)cupar_state;\n";
  out << snippet_evaluation(snippet_text(b.op), snippet_file_of(index), generated, b.result.name,
                            slot.arg_names);
  if (same_type(slot.result, b.result)) {
    out << "  return cupar_result;\n}\n";
  } else {
    out << "  return " << cast_of(slot.result, b.result) << slot.result.name
        << ">(cupar_result);\n}\n";
  }
  if (index != 0) out << "#line 1 \"cupar_generated\"\n";
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

const jit_type& scalar_type(scalar s) {
  return visit_scalar(s, [](auto v) -> const jit_type& { return jit_type_of<decltype(v)>(); });
}

type_ref type_ref::storage(std::uint32_t size, std::uint32_t align) {
  type_ref r;
  r.name = "cupar_storage<" + std::to_string(size) + ", " + std::to_string(align) + ">";
  r.size = size;
  r.align = align;
  return r;
}

type_ref type_ref::size_class(const jit_type& t) {
  // Word types (bool, __half, ...) too: their bits are all the kernels move.
  if (!t.is_struct() || t.word) {
    switch (t.size) {
      case 1:
        return of(scalar::u8);
      case 2:
        return of(scalar::u16);
      case 4:
        return of(scalar::u32);
      default:
        return of(scalar::u64);
    }
  }
  return storage(t.size, t.align);
}

type_ref type_ref::boolean() {
  type_ref r;
  r.name = "bool";
  r.size = r.align = 1;
  return r;
}

std::string type_ref::key() const {
  if (is_scalar()) return scalar_name(kind);
  if (is_boolean()) return "bool";
  if (definition.empty()) return "s" + std::to_string(size) + "a" + std::to_string(align);
  return name + "/" + std::to_string(size) + "/" + std::to_string(align) + "/" +
         hash_hex(definition);
}

std::string set_spec::key() const {
  std::string k = describe(fam).name;
  k += '<';
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i) k += ',';
    k += types[i].key();
  }
  k += '>';
  if (!variant.empty()) k += "+" + variant;
  return k;
}

set_spec parse_set_key(const std::string& key) {
  // Immortal, as every static a background build may use (engine.cpp, worker).
  static const std::regex& form = *new std::regex(R"(([a-z_]+)<([a-z0-9,]+)>(?:\+([a-z_]+))?)");
  std::smatch m;
  if (!std::regex_match(key, m, form)) {
    throw_invalid_argument("cupar::jit", "malformed kernel set key " + key);
  }
  set_spec spec;
  const family_def* def = find_family(m[1]);
  if (def == nullptr) throw_invalid_argument("cupar::jit", "unknown kernel set family in " + key);
  spec.fam = def->id;
  spec.variant = m[3];
  std::stringstream types(m[2]);
  std::string t;
  static const std::regex& storage = *new std::regex(R"(s([0-9]+)a([0-9]+))");  // immortal
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

// --- slots ------------------------------------------------------------------------------------

slot_spec binary_op_slot(const type_ref& c) {
  return {"cupar_jit_op", "operator", {c, c}, c, {"a", "b"}};
}
slot_spec equality_slot(const type_ref& c) {
  return {"cupar_jit_eq", "equality", {c, c}, type_ref::boolean(), {"a", "b"}};
}
slot_spec predicate_slot(const type_ref& c, int which) {
  return {which == 1 ? "cupar_jit_pred" : "cupar_jit_pred2",
          which == 1 ? "predicate" : "second predicate",
          {c},
          type_ref::boolean(),
          {"x"}};
}
slot_spec expression_slot(const type_ref& c) {
  return {"cupar_jit_xform", "iterator expression", {type_ref::of(scalar::u64)}, c, {"cupar_i"}};
}
slot_spec comparator_slot(const type_ref& c) {
  return {"cupar_jit_comp", "comparator", {c, c}, type_ref::boolean(), {"a", "b"}};
}

std::vector<slot_spec> slots_of(const set_spec& s) {
  return describe(s.fam).slots(s);
}

std::string snippet_file_of(int index) {
  return index == 0 ? std::string(snippet_file)
                    : std::string(snippet_file) + "_" + std::to_string(index + 1);
}

std::string generated_file_of(int index) {
  return index == 0 ? std::string(generated_file)
                    : std::string(generated_file) + "_" + std::to_string(index + 1);
}

// --- kernels and metadata ---------------------------------------------------------------------

std::vector<std::string> name_expressions(const set_spec& set) {
  return describe(set.fam).name_expressions(set);
}

std::vector<long long> parse_meta(const std::string& lowered) {
  // Itanium mangling of a long long template argument: "Lx" [n] digits "E".
  static const std::regex& arg = *new std::regex("Lx(n?)([0-9]+)E");  // immortal
  std::vector<long long> values;
  for (std::sregex_iterator it(lowered.begin(), lowered.end(), arg), end; it != end; ++it) {
    const long long v = std::stoll((*it)[2]);
    values.push_back((*it)[1].length() ? -v : v);
  }
  return values;
}

// --- sources ----------------------------------------------------------------------------------

std::string role_description(const slot_spec& slot, const slot_binding& b) {
  std::string d;
  if (std::string(slot.what) == "comparator") {
    d = "a comparator (";
  } else if (std::string(slot.what) == "equality") {
    d = "an equality (";
  } else if (slot.result.is_boolean() && slot.args.size() == 1) {
    d = "a predicate (";
  } else {
    d = slot.args.size() == 1 ? "a unary operator (" : "a binary operator (";
  }
  for (std::size_t i = 0; i < slot.args.size(); ++i) {
    d += (i ? ", " : "") + b.args[i].name + " " + slot.arg_names[i];
  }
  return d + ") -> " + b.result.name;
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
    case named_op::equal_to:
      return "a == b";
    case named_op::logical_and:
      return "a && b";
    case named_op::logical_or:
      return "a || b";
    case named_op::logical_not:
      return "!x";
    case named_op::identity:
      return "x";
  }
  return op.source();
}

namespace {
std::string preamble_block(const cupar::jit::op& op) {
  const std::string& pre = cupar::jit::detail::op_preamble(*op.definition());
  if (pre.empty()) return std::string();
  return preamble_text_block(pre, "cupar_generated");
}

/// Preambles of the given slots, each distinct one once (two slots often share one operator
/// object's preamble, or have none).
std::string preambles(const build_spec& spec, const std::vector<int>& which) {
  std::string out;
  std::set<std::string> done;
  for (int i : which) {
    const cupar::jit::op& op = spec.slots[static_cast<std::size_t>(i)].op;
    const std::string& pre = cupar::jit::detail::op_preamble(*op.definition());
    if (pre.empty() || !done.insert(pre).second) continue;
    out += preamble_block(op);
  }
  return out;
}

/// The batched forms of a slot's operator the out-of-line kernels call (kernel_set.hpp, namespace
/// batch), each a loop around the slot's function, which NVVM inlines into it: one call per
/// thread's items instead of one per item.
/// `binding`: the operator bound to the slot (the strided form's chunk size depends on the
/// expression's reads).
std::string batch_functions(const slot_spec& slot, const slot_binding& binding) {
  // Each loop handles the items in chunks of 8 (then 4, then one at a time) whose loads come
  // first, then the operator's calls, then the stores: a rolled loop with a run-time count would
  // wait for each item's load (from local memory, or global memory for the transforms) before
  // the next (H200: a rolled fold made reduce's tier-1 kernels 1.6x slower than the calls it
  // replaced).
  std::ostringstream out;
  const std::string sym = slot.symbol;
  const std::string& t = slot.result.name;
  const char* head = "extern \"C\" __device__ ";
  if (slot.batches & batch::fold) {
    // By value: the items arrive in registers (a pointer to them put them in local memory, and
    // those batches ran 1.6x slower than a call per item: docs/PERFORMANCE_NOTES.md).
    // `_fold<width>` folds every item; `_fold_upto<width>` only the first cupar_m (0 to width):
    // a partial tile's last items.
    auto fold = [&](const char* name, int width, bool counted) {
      out << head << t << " " << sym << name << width << "(const unsigned char* cupar_state, " << t
          << " cupar_acc";
      for (int k = 0; k < width; ++k)
        out << ", " << t << " cupar_x" << k;
      out << (counted ? ", int cupar_m) {\n" : ") {\n");
      for (int k = 0; k < width; ++k) {
        out << "  ";
        if (counted) out << "if (cupar_m > " << k << ") ";
        out << "cupar_acc = " << sym << "(cupar_state, cupar_acc, cupar_x" << k << ");\n";
      }
      out << "  return cupar_acc;\n}\n";
    };
    for (int width : {8, 4}) {
      fold("_fold", width, false);
      fold("_fold_upto", width, true);
    }
  }
  if (slot.batches & (batch::warp_reduce | batch::scan | batch::segmented)) {
    // A shuffle of any trivially copyable value, a 4-byte word at a time.
    out << "#ifndef CUPAR_SHFL_DEFINED\n#define CUPAR_SHFL_DEFINED\n"
        << "template <bool Up, class T>\n__device__ __forceinline__ T cupar_shfl(T v, int offset) "
           "{\n"
        << "  unsigned int w[(sizeof(T) + 3) / 4];\n  memcpy(w, &v, sizeof(T));\n"
        << "#pragma unroll\n  for (int k = 0; k < static_cast<int>((sizeof(T) + 3) / 4); ++k)\n"
        << "    w[k] = Up ? __shfl_up_sync(0xffffffffu, w[k], offset)\n"
        << "              : __shfl_down_sync(0xffffffffu, w[k], offset);\n"
        << "  memcpy(&v, w, sizeof(T));\n  return v;\n}\n#endif\n";
  }
  // A warp's batch: `T <symbol><name>(state, T cupar_x<params>)` running CUB's five shuffle steps
  // (cupar_offset 1, 2, 4, 8, 16) with `step` as the loop's body, the lane in cupar_lane, and
  // returning cupar_x.
  auto warp_function = [&](const char* name, const char* params, const std::string& step) {
    out << head << t << " " << sym << name << "(const unsigned char* cupar_state, " << t
        << " cupar_x" << params << ") {\n"
        << "  unsigned int cupar_lane;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(cupar_lane));\n"
        << "#pragma unroll\n  for (int cupar_offset = 1; cupar_offset < 32; cupar_offset *= 2) {\n"
        << step << "  }\n  return cupar_x;\n}\n";
  };
  if (slot.batches & batch::warp_reduce) {
    // A warp's reduction in one call (the out-of-line reduce kernels' WarpReduceShfl::Reduce,
    // jit_ops/cupar_reduce.cuh and cupar_segmented_reduce.cuh): CUB's five shuffle steps, in CUB's
    // order (lane i combines its value with lane i + offset's, offsets 1, 2, 4, 8, 16), the
    // operator inlined; `_warp_reduce` for a full warp, `_warp_reduce_partial` for a warp whose
    // lanes up to cupar_last hold items (a negative cupar_last leaves every lane's value as it is).
    auto warp_reduce = [&](const char* name, const char* last, const char* combines) {
      warp_function(name, last,
                    "    const " + t + " cupar_y = cupar_shfl<false>(cupar_x, cupar_offset);\n" +
                        "    if (" + combines + ") cupar_x = " + sym +
                        "(cupar_state, cupar_x, cupar_y);\n");
    };
    warp_reduce("_warp_reduce", "", "cupar_lane + cupar_offset < 32u");
    warp_reduce("_warp_reduce_partial", ", int cupar_last",
                "static_cast<int>(cupar_lane) + cupar_offset <= cupar_last");
  }
  if (slot.batches & batch::scan) {
    // A chunk of a thread scan in one call, the results by value (jit_ops/cupar_prelude.cuh,
    // cupar_scan_items), in CUB's order: acc op x0, then that op x1, ...
    out << items_definition;
    // `_scan<width>` scans every item; `_scan_upto<width>` only the first cupar_m (a thread's
    // last items; the other results are the last running value).
    for (int width : {8, 4}) {
      for (bool counted : {false, true}) {
        out << head << "cupar_items<" << t << ", " << width << "> " << sym
            << (counted ? "_scan_upto" : "_scan") << width << "(const unsigned char* cupar_state, "
            << t << " cupar_acc";
        for (int k = 0; k < width; ++k)
          out << ", " << t << " cupar_x" << k;
        out << (counted ? ", int cupar_m" : "") << ") {\n  cupar_items<" << t << ", " << width
            << "> cupar_r;\n";
        for (int k = 0; k < width; ++k) {
          out << "  ";
          if (counted) out << "if (cupar_m > " << k << ") ";
          out << "cupar_acc = " << sym << "(cupar_state, cupar_acc, cupar_x" << k << ");\n"
              << "  cupar_r.v[" << k << "] = cupar_acc;\n";
        }
        out << "  return cupar_r;\n}\n";
      }
    }
    // A warp's inclusive scan in one call (the out-of-line scan kernels' WarpScanShfl::
    // InclusiveScan, jit_ops/cupar_scan.cuh): CUB's five steps in CUB's order (lane i combines
    // lane i - offset's value with its own, offsets 1, 2, 4, 8, 16; lanes below the offset keep
    // theirs), the operator inlined.
    warp_function("_warp_scan", "",
                  "    const " + t + " cupar_y = cupar_shfl<true>(cupar_x, cupar_offset);\n" +
                      "    const " + t + " cupar_z = " + sym +
                      "(cupar_state, cupar_y, cupar_x);\n" +
                      "    if (cupar_lane >= static_cast<unsigned int>(cupar_offset)) cupar_x = "
                      "cupar_z;\n");
    // A warp's tail-segmented reduction in one call (the out-of-line scans' decoupled look-back,
    // TilePrefixCallbackOp::ProcessWindow: lane i holds the tile i + 1 places back, so the
    // operator's first argument is the later lane's value, CUB's SwizzleScanOp): CUB's five
    // steps in CUB's order (offsets 1, 2, 4, 8, 16), a lane combining only while lane + offset
    // is at most cupar_last, the segment's last lane.
    warp_function(
        "_warp_tail_reduce", ", int cupar_last",
        "    const " + t + " cupar_y = cupar_shfl<false>(cupar_x, cupar_offset);\n" +
            "    if (static_cast<int>(cupar_lane) + cupar_offset <= cupar_last) cupar_x = " + sym +
            "(cupar_state, cupar_y, cupar_x);\n");
  }
  if (slot.batches & batch::segmented) {
    // A chunk of a thread's segmented fold or scan in one call (the by-key kernels' thread
    // reductions and scans of (flag, value) pairs, jit_ops/cupar_prelude.cuh,
    // cupar_segment_fold and cupar_segment_scan): item k starts a segment where bit k of cupar_m is
    // set (its value replaces the running one), else it is combined with it, in CUB's order
    // (ReduceBySegmentOp and ScanBySegmentOp: acc op x_k).
    out << items_definition;
    for (int width : {8, 4}) {
      for (bool scan : {false, true}) {
        const std::string result =
            scan ? "cupar_items<" + t + ", " + std::to_string(width) + ">" : t;
        out << head << result << " " << sym << (scan ? "_segscan" : "_segfold") << width
            << "(const unsigned char* cupar_state, " << t << " cupar_acc, unsigned int cupar_m";
        for (int k = 0; k < width; ++k)
          out << ", " << t << " cupar_x" << k;
        out << ") {\n";
        if (scan) out << "  " << result << " cupar_r;\n";
        for (int k = 0; k < width; ++k) {
          out << "  cupar_acc = (cupar_m & " << (1u << k) << "u) ? cupar_x" << k << " : " << sym
              << "(cupar_state, cupar_acc, cupar_x" << k << ");\n";
          if (scan) out << "  cupar_r.v[" << k << "] = cupar_acc;\n";
        }
        out << (scan ? "  return cupar_r;\n}\n" : "  return cupar_acc;\n}\n");
      }
    }
    // A warp's inclusive scan of (flag, value) pairs in one call (the by-key kernels'
    // WarpScanShfl::InclusiveScan): CUB's five shuffle steps in CUB's order; at each, a lane from
    // the offset on takes `its flag ? its value : op(the value offset lanes up, its value)`, and
    // its flag becomes set when either was (the caller scans the flags' sums or ors itself).
    warp_function("_segwarp_scan", ", unsigned int cupar_f",
                  "    const " + t + " cupar_y = cupar_shfl<true>(cupar_x, cupar_offset);\n" +
                      "    const unsigned int cupar_g = __shfl_up_sync(0xffffffffu, cupar_f, "
                      "cupar_offset);\n" +
                      "    const " + t + " cupar_z = cupar_f ? cupar_x : " + sym +
                      "(cupar_state, cupar_y, cupar_x);\n" +
                      "    if (cupar_lane >= static_cast<unsigned int>(cupar_offset)) {\n"
                      "      cupar_x = cupar_z;\n      cupar_f |= cupar_g;\n    }\n");
    // The same pairs' tail-segmented reduction in one call (the by-key kernels' decoupled
    // look-back: the later lane's pair first, CUB's SwizzleScanOp): at each of CUB's five steps a
    // lane with lane + offset at most cupar_last takes `its flag ? its value : op(the value offset
    // lanes down, its value)`, and its flag becomes set when either was.
    warp_function("_segwarp_tail_reduce", ", unsigned int cupar_f, int cupar_last",
                  "    const " + t + " cupar_y = cupar_shfl<false>(cupar_x, cupar_offset);\n" +
                      "    const unsigned int cupar_g = __shfl_down_sync(0xffffffffu, cupar_f, "
                      "cupar_offset);\n"
                      "    if (static_cast<int>(cupar_lane) + cupar_offset <= cupar_last) {\n"
                      "      if (!cupar_f) cupar_x = " +
                      sym + "(cupar_state, cupar_y, cupar_x);\n" +
                      "      cupar_f |= cupar_g;\n    }\n");
  }
  // A thread's selection flags, eight (or four) items a call, bit k the predicate of item k
  // (jit_ops/cupar_select.cuh: the out-of-line kernels' InitializeSelections); `_predm` the same
  // under a mask, the predicate called only for the items whose bit of cupar_m is set
  // (jit_ops/cupar_three_way_partition.cuh: the second predicate where the first was false).
  auto predicate_bits = [&](bool masked) {
    const std::string& in = slot.args[0].name;
    for (int width : {8, 4}) {
      out << head << "unsigned int " << sym << (masked ? "_predm" : "_pred") << width
          << "(const unsigned char* cupar_state" << (masked ? ", unsigned int cupar_m" : "");
      for (int k = 0; k < width; ++k)
        out << ", " << in << " cupar_x" << k;
      out << ") {\n  unsigned int cupar_r = 0u;\n";
      for (int k = 0; k < width; ++k) {
        out << "  if (";
        if (masked) out << "(cupar_m & " << (1u << k) << "u) && ";
        out << sym << "(cupar_state, cupar_x" << k << ")) cupar_r |= " << (1u << k) << "u;\n";
      }
      out << "  return cupar_r;\n}\n";
    }
  };
  if (slot.batches & batch::items) {
    // A thread's items of a tile transformed in one call, the items and the results by value
    // (jit_ops/cupar_reduce.cuh: transform_reduce's out-of-line kernels, after CUB's vector
    // loads), so that nothing goes through local memory.
    out << items_definition;
    const std::string& in = slot.args[0].name;
    for (int width : {8, 4}) {
      out << head << "cupar_items<" << t << ", " << width << "> " << sym << "_items" << width
          << "(const unsigned char* cupar_state";
      for (int k = 0; k < width; ++k)
        out << ", " << in << " cupar_x" << k;
      out << ") {\n  cupar_items<" << t << ", " << width << "> cupar_r;\n";
      for (int k = 0; k < width; ++k)
        out << "  cupar_r.v[" << k << "] = " << sym << "(cupar_state, cupar_x" << k << ");\n";
      out << "  return cupar_r;\n}\n";
    }
  }
  if (slot.batches & batch::pred) predicate_bits(false);
  if (slot.batches & batch::pred_masked) predicate_bits(true);
  if (slot.batches & batch::heads) {
    // A thread's head flags, eight (or four) items a call after their predecessor (the unique and
    // by-key kernels' BlockDiscontinuity::FlagHeads, jit_ops/cupar_prelude.cuh,
    // CUPAR_BATCHED_FLAG_HEADS), in CUB's argument order: eq(item before, item).
    const std::string& in = slot.args[0].name;
    for (int width : {8, 4}) {
      out << head << "unsigned int " << sym << "_heads" << width
          << "(const unsigned char* cupar_state, " << in << " cupar_p";
      for (int k = 0; k < width; ++k)
        out << ", " << in << " cupar_x" << k;
      out << ") {\n  unsigned int cupar_r = 0u;\n";
      for (int k = 0; k < width; ++k) {
        out << "  if (!" << sym << "(cupar_state, "
            << (k == 0 ? std::string("cupar_p") : "cupar_x" + std::to_string(k - 1)) << ", cupar_x"
            << k << ")) cupar_r |= " << (1u << k) << "u;\n";
      }
      out << "  return cupar_r;\n}\n";
    }
  }
  auto mapped = [&](const std::string& name, const std::string& params, const std::string& arg,
                    int widest) {
    out << head << "void " << sym << "_" << name << "(const unsigned char* cupar_state, " << params
        << ", " << t << "* cupar_out, int cupar_n) {\n  int i = 0;\n";
    // No loop is unrolled further (as the transform batch's below): NVVM unrolled the widest
    // chunks' loop once more, which cost the operator's compile time and no kernel time, and
    // the narrower ones, which run at most once (4) or three times (1) a call, four times over
    // (their trip counts unknown to it): 9 of the 70 ms of dot's operator compile, 2-core
    // machine.
    // CUPAR_JIT_STRIDED_TAIL=guarded (read once a process), an A/B: the items past the last
    // whole chunk in one chunk of the widest size whose calls are guarded (their loads in flight
    // together), instead of chunks of 4 and 1 (a scan thread's 15 items: 8 + 7 in two rounds of
    // loads instead of 8 + 4 + 1 + 1 + 1 in five). H100, tier 1 at 2^24 / 2^28 (docs/JIT.md):
    // the scan of transform(x, "x * x") 120.2 / 1,677 -> 114.8 / 1,590 us, but dot 62.8 / 839.2
    // -> 68.0 / 901.5: off by default.
    static const bool guarded_tail = [] {
      const char* v = std::getenv("CUPAR_JIT_STRIDED_TAIL");
      return v != nullptr && std::string(v) == "guarded";
    }();
    std::vector<int> chunks{widest};
    if (!guarded_tail && widest >= 8) chunks.push_back(4);
    if (!guarded_tail && widest > 1) chunks.push_back(1);
    for (int chunk : chunks) {
      out << "#pragma unroll 1\n  for (; i + " << chunk << " <= cupar_n; i += " << chunk << ") {\n"
          << "    " << t << " cupar_r[" << chunk << "];\n"
          << "#pragma unroll\n    for (int k = 0; k < " << chunk << "; ++k) cupar_r[k] = " << sym
          << "(cupar_state, " << arg << ");\n"
          << "#pragma unroll\n    for (int k = 0; k < " << chunk
          << "; ++k) cupar_out[i + k] = cupar_r[k];\n  }\n";
    }
    if (guarded_tail && widest > 1) {
      out << "  if (i < cupar_n) {\n    " << t << " cupar_r[" << widest << "];\n"
          << "#pragma unroll\n    for (int k = 0; k < " << widest
          << "; ++k) if (i + k < cupar_n) cupar_r[k] = " << sym << "(cupar_state, " << arg
          << ");\n#pragma unroll\n    for (int k = 0; k < " << widest
          << "; ++k) if (i + k < cupar_n) cupar_out[i + k] = cupar_r[k];\n  }\n";
    }
    out << "}\n";
  };
  if (slot.batches & batch::transform) {
    // A thread's items of a transform tile, element k at k * stride: eight loads of each input,
    // then eight calls (inlined), then eight stores.
    const std::size_t arity = slot.args.size();
    out << head << "void " << sym << "_transform(const unsigned char* cupar_state";
    for (std::size_t j = 0; j < arity; ++j)
      out << ", const " << slot.args[j].name << "* cupar_in" << j;
    out << ", " << t << "* cupar_out, int cupar_stride, int cupar_n) {\n";
    // The inputs are the kernel's tile in shared memory (jit_ops/cupar_transform.cuh), the output
    // global memory: shared loads and global stores instead of generic ones.
    for (std::size_t j = 0; j < arity; ++j)
      out << "  __builtin_assume(__isShared(cupar_in" << j << "));\n";
    out << "  __builtin_assume(__isGlobal(cupar_out));\n  int i = 0;\n";
    auto call = [&](const std::string& index) {
      std::string c = sym + "(cupar_state";
      for (std::size_t j = 0; j < arity; ++j)
        c += ", cupar_in" + std::to_string(j) + "[" + index + "]";
      return c + ")";
    };
    // The chunk loop is not unrolled further: NVVM unrolled it once more (16 shared loads and 16
    // stores an iteration), on which ptxas spent 95-105 ms of a 150-175 ms operator compile
    // (2-core machine; a new transform operator's first call). The tier-1 transforms ran as fast
    // without that unrolling (H200, docs/JIT.md).
    out << "#pragma unroll 1\n  for (; i + 8 <= cupar_n; i += 8) {\n";
    for (std::size_t j = 0; j < arity; ++j) {
      out << "    " << slot.args[j].name << " cupar_x" << j << "[8];\n"
          << "#pragma unroll\n    for (int k = 0; k < 8; ++k) cupar_x" << j << "[k] = cupar_in" << j
          << "[(i + k) * cupar_stride];\n";
    }
    out << "    " << t
        << " cupar_r[8];\n#pragma unroll\n    for (int k = 0; k < 8; ++k) cupar_r[k] = " << sym
        << "(cupar_state";
    for (std::size_t j = 0; j < arity; ++j)
      out << ", cupar_x" << j << "[k]";
    out << ");\n#pragma unroll\n    for (int k = 0; k < 8; ++k) cupar_out[(i + k) * cupar_stride] "
           "= "
           "cupar_r[k];\n  }\n"
        << "#pragma unroll 1\n  for (; i < cupar_n; ++i) cupar_out[i * cupar_stride] = "
        << call("i * cupar_stride") << ";\n}\n";
  }
  if (slot.batches & batch::oddeven) {
    // The network for up to oddeven_max keys, each pass unrolled, with the count's guards uniform
    // across the warp: the keys' indices are constants, so they stay in registers (CUB's loops, its
    // order of compare-swaps: pass i compares (j, j + 1) for j = i & 1, i & 1 + 2, ... < n - 1).
    // The keys are the calling thread's array (local memory once its address is taken): told so,
    // they load and store as local memory rather than through generic addresses.
    const std::string& k = slot.args[0].name;
    const int m = oddeven_max;
    out << head << "void " << sym << "_oddeven(const unsigned char* cupar_state, " << k
        << "* cupar_keys, int cupar_n) {\n  __builtin_assume(__isLocal(cupar_keys));\n  " << k
        << " cupar_x[" << m << "];\n";
    for (int j = 0; j < m; ++j)
      out << "  if (cupar_n > " << j << ") cupar_x[" << j << "] = cupar_keys[" << j << "];\n";
    // The passes go two at a time (an even one, then an odd one) in a loop that is not unrolled:
    // the same compare-swaps in the same order, each pass's indices still constants, and an
    // eighth of the code NVVM and ptxas had to compile with all m passes unrolled (merge sort's
    // batched forms: 87 ms instead of 120 to a cubin on the 2-core machine, of a new comparator's
    // first call).
    auto pass = [&](int first) {
      out << "#pragma unroll\n    for (int j = " << first << "; j < " << m - 1 << "; j += 2) {\n"
          << "      if (j + 1 < cupar_n && " << sym
          << "(cupar_state, cupar_x[j + 1], cupar_x[j])) {\n"
          << "        const " << k << " cupar_t = cupar_x[j];\n"
          << "        cupar_x[j] = cupar_x[j + 1];\n        cupar_x[j + 1] = cupar_t;\n"
          << "      }\n    }\n";
    };
    out << "#pragma unroll 1\n  for (int i = 0; i < " << m << "; i += 2) {\n"
        << "    if (i >= cupar_n) break;\n";
    pass(0);
    out << "    if (i + 1 >= cupar_n || i + 1 >= " << m << ") break;\n";
    pass(1);
    out << "  }\n";
    for (int j = 0; j < m; ++j)
      out << "  if (cupar_n > " << j << ") cupar_keys[" << j << "] = cupar_x[" << j << "];\n";
    out << "}\n";
  }
  // A batched form over runs that are in shared memory where CUB's tile is and global otherwise
  // (its virtual shared memory, when the tile does not fit): `<symbol>_<name>` asks where
  // `shared_test`'s pointers are and calls `body` compiled for shared memory (Shared true: the
  // body tells NVVM so, and its loads are shared loads, on a path where each step waits for the
  // last one's load) or for generic addresses.
  auto shared_or_generic = [&](const std::string& result, const std::string& name,
                               const std::string& params, const std::string& args,
                               const std::string& shared_test, const std::string& body) {
    const std::string t = sym + "_" + name + "_body";
    out << "#ifndef CUPAR_DEFINED_" << t << "\n#define CUPAR_DEFINED_" << t << "\n"
        << "template <bool Shared>\n__device__ __forceinline__ " << result << " " << t << params
        << " {\n"
        << body << "}\n#endif\n";
    out << head << result << " " << sym << "_" << name << params << " {\n  if (" << shared_test
        << ") {\n    return " << t << "<true>" << args << ";\n  }\n  return " << t << "<false>"
        << args << ";\n}\n";
  };
  if (slot.batches & batch::merge_chunk) {
    // CUB's SerialMerge for up to cupar_merge_chunk<K>::value keys, resumed where the last chunk
    // ended: the runs' next keys read again (positions CUB reads too), the same comparator calls
    // (none once either run is exhausted) and reads, one past a run's end included as CUB's.
    const std::string& k = slot.args[0].name;
    // The result's type named without parentheses (only_called reads a function's name before
    // its first one).
    const std::string r = sym + "_merged";
    out << merged_definition << "typedef cupar_merged<" << k << ", cupar_merge_chunk<" << k
        << ">::value> " << r << ";\n";
    shared_or_generic(
        r, "merge_chunk",
        "(const unsigned char* cupar_state, const " + k +
            "* cupar_keys, int cupar_b1, int cupar_b2, int cupar_e1, int cupar_e2, int cupar_n)",
        "(cupar_state, cupar_keys, cupar_b1, cupar_b2, cupar_e1, cupar_e2, cupar_n)",
        "__isShared(cupar_keys)",
        "  if (Shared) __builtin_assume(__isShared(cupar_keys));\n  " + k +
            " cupar_k1 = cupar_keys[cupar_b1];\n  " + k + " cupar_k2 = cupar_keys[cupar_b2];\n  " +
            r + " cupar_r;\n#pragma unroll\n  for (int item = 0; item < cupar_merge_chunk<" + k +
            ">::value; ++item) {\n    if (item >= cupar_n) break;\n"
            "    const bool cupar_p = cupar_b2 < cupar_e2 && (cupar_b1 >= cupar_e1 || " +
            sym +
            "(cupar_state, cupar_k2, cupar_k1));\n"
            "    cupar_r.k[item] = cupar_p ? cupar_k2 : cupar_k1;\n"
            "    if (cupar_p) {\n      cupar_k2 = cupar_keys[++cupar_b2];\n    } else {\n"
            "      cupar_k1 = cupar_keys[++cupar_b1];\n    }\n  }\n"
            "  cupar_r.b1 = cupar_b1;\n  return cupar_r;\n");
  }
  if (slot.batches & batch::merge_path) {
    // CUB's MergePath: a binary search whose every step waits for its two loads.
    const std::string& k = slot.args[0].name;
    shared_or_generic(
        "int", "merge_path",
        "(const unsigned char* cupar_state, const " + k + "* cupar_keys1, const " + k +
            "* cupar_keys2, int cupar_c1, int cupar_c2, int cupar_diag)",
        "(cupar_state, cupar_keys1, cupar_keys2, cupar_c1, cupar_c2, cupar_diag)",
        "__isShared(cupar_keys1) && __isShared(cupar_keys2)",
        "  if (Shared) {\n    __builtin_assume(__isShared(cupar_keys1));\n"
        "    __builtin_assume(__isShared(cupar_keys2));\n  }\n"
        "  int cupar_b = cupar_diag < cupar_c2 ? 0 : cupar_diag - cupar_c2;\n"
        "  int cupar_e = cupar_diag < cupar_c1 ? cupar_diag : cupar_c1;\n"
        "  while (cupar_b < cupar_e) {\n"
        "    const int cupar_mid = cupar_b + (cupar_e - cupar_b) / 2;\n"
        "    const " +
            k +
            " cupar_k1 = cupar_keys1[cupar_mid];\n"
            "    const " +
            k +
            " cupar_k2 = cupar_keys2[cupar_diag - 1 - cupar_mid];\n"
            "    if (" +
            sym +
            "(cupar_state, cupar_k2, cupar_k1)) {\n"
            "      cupar_e = cupar_mid;\n    } else {\n      cupar_b = cupar_mid + 1;\n    }\n"
            "  }\n  return cupar_b;\n");
  }
  if (slot.batches & batch::strided) {
    // Chunks of at most 32 array reads (8 items, fewer for wide expressions): a chunk's loads
    // are in flight together, and chunks of 8 of a zip of sixteen held 128 loaded values at once
    // (163 registers in the linked tier-1 reduce kernel, one block an SM). H200, tier 1 at 2^24
    // in chunks of 8 / 4 / 2 / 1 items: dot (2 arrays) 57.0 / 64.9 / 91.4 / 151.4 us, zip8
    // 203.5 / 188.2 / 219.1 / 230.3, zip16 1,397 / 402.6 / 357.5 / 521.9 (docs/JIT.md).
    const std::size_t reads = expression_array_reads(binding.op.source());
    // CUPAR_JIT_STRIDED_ITEMS=16 (read once a process; 1, 2, 4, 8 or 16): the widest chunk of
    // an expression of up to 4 array reads, for an A/B of whole-tile chunks (a 16-item tile's
    // loads all in flight in one chunk) against the default 8. H200 at 2^24: dot 58.5 us with 8,
    // 58.2 with 16; a 32-bit argmax 63.6 with 8, 98.2 with 16 (docs/JIT.md): 8 stays.
    static const int narrow_widest = [] {
      const char* v = std::getenv("CUPAR_JIT_STRIDED_ITEMS");
      const int n = v != nullptr ? std::atoi(v) : 0;
      return n == 1 || n == 2 || n == 4 || n == 8 || n == 16 ? n : 8;
    }();
    const int widest = reads <= 4 ? narrow_widest : reads <= 8 ? 4 : reads <= 16 ? 2 : 1;
    mapped("strided", "unsigned long long cupar_first, unsigned long long cupar_stride",
           "cupar_first + static_cast<unsigned long long>(i + k) * cupar_stride", widest);
  }
  return out.str();
}

/// `text` (batch_functions' output) without the definitions of the symbols not in `called`.
/// batch_functions writes each batched form as a definition that starts with a line
/// `extern "C" __device__ <result> <symbol>(...` and ends with a line `}`; everything else
/// (helpers under #ifndef guards) stays.
std::string only_called(const std::string& text, const std::set<std::string>& called) {
  static const std::string head = "extern \"C\" __device__ ";
  std::istringstream in(text);
  std::string out, line;
  bool skipping = false;
  while (std::getline(in, line)) {
    if (skipping) {
      skipping = line != "}";
      continue;
    }
    if (line.rfind(head, 0) == 0 && line.back() == '{') {
      const std::size_t paren = line.find('(');
      const std::size_t name = line.rfind(' ', paren) + 1;
      if (paren != std::string::npos && called.count(line.substr(name, paren - name)) == 0) {
        skipping = true;
        continue;
      }
    }
    out += line;
    out += '\n';
  }
  return out;
}

std::string slot_functions(const build_spec& spec, const std::vector<int>& which,
                           bool batches = false, const std::set<std::string>* called = nullptr) {
  const std::vector<slot_spec> slots = slots_of(spec.set);
  std::string out;
  bool cast = false, storage = false;
  for (int i : which) {
    cast = cast || needs_bit_cast(slots[static_cast<std::size_t>(i)],
                                  spec.slots[static_cast<std::size_t>(i)]);
    storage = storage || uses_storage(slots[static_cast<std::size_t>(i)]);
  }
  bool pad = false;
  for (int i : which)
    pad = pad || needs_pad_cast(slots[static_cast<std::size_t>(i)],
                                spec.slots[static_cast<std::size_t>(i)]);
  if (storage) out += storage_definition;
  if (cast) out += bit_cast_definition;
  if (pad) out += pad_cast_definition;
  for (int i : which) {
    out += operator_function(slots[static_cast<std::size_t>(i)],
                             spec.slots[static_cast<std::size_t>(i)], i);
  }
  if (batches) {
    for (int i : which) {
      const std::string text = batch_functions(slots[static_cast<std::size_t>(i)],
                                               spec.slots[static_cast<std::size_t>(i)]);
      out += called != nullptr ? only_called(text, *called) : text;
    }
  }
  return out;
}
}  // namespace

std::string slot_operator_source(const slot_spec& slot, const slot_binding& b, int index) {
  std::ostringstream out;
  std::set<std::string> done;
  out << "// cupar: " << slot.what << " " << slot.symbol << "\n";
  out << "#line 1 \"" << generated_file << "\"\n";
  for (const auto& t : b.args)
    add_type_definitions(out, done, t);
  add_type_definitions(out, done, b.result);
  out << preamble_block(b.op);
  if (uses_storage(slot)) out << storage_definition;
  if (needs_bit_cast(slot, b)) out << bit_cast_definition;
  if (needs_pad_cast(slot, b)) out << pad_cast_definition;
  out << operator_function(slot, b, index);
  if (slot.batches != 0) out << batch_functions(slot, b);
  return out.str();
}

std::string operator_source(const build_spec& spec, const std::vector<int>& which, bool batches,
                            const std::set<std::string>* called) {
  std::ostringstream out;
  out << "// cupar: operators for " << spec.set.key() << "\n";
  // Errors in the code cupar writes around the snippets (their types' conversions included) are
  // reported against the first operator's role, not a line of this file.
  out << "#line 1 \"" << generated_file << "\"\n";
  out << types_block(spec.set, &spec, &which) << preambles(spec, which)
      << slot_functions(spec, which, batches, called);
  return out.str();
}

std::string set_source(const set_spec& set, const build_spec* spec) {
  std::ostringstream out;
  out << "// cupar: kernel set " << set.key() << "\n";
  out << "#define CUPAR_STATE_BYTES " << cupar::jit::max_param_bytes << "\n";
  out << "#include \"cupar_prelude.cuh\"\n";
  // The functors' state in a precompiled set's out-of-line (tier-1) cubin, whose compile defines
  // CUPAR_OUT_OF_LINE (tools/cupar_precompile.cpp): the address of a device copy for the families
  // that take the parameters by reference, 16-byte words for the others; bytes everywhere else
  // (cupar_prelude.cuh says why). After the prelude, so that the PCH holding it serves all.
  if (describe(set.fam).states_by_reference) out << "#define CUPAR_STATE_BY_REFERENCE 1\n";
  out << "#if defined(CUPAR_OUT_OF_LINE) && defined(CUPAR_STATE_BY_REFERENCE)\n"
         "typedef cupar_op_ref cupar_functor_state;\n"
         "#elif defined(CUPAR_OUT_OF_LINE)\ntypedef cupar_op_words cupar_functor_state;\n#else\n"
         "typedef cupar_op_state cupar_functor_state;\n#endif\n";
  out << types_block(set, spec, nullptr) << describe(set.fam).typedefs(set);
  const std::vector<slot_spec> slots = slots_of(set);
  if (spec != nullptr) {
    std::vector<int> all;
    for (std::size_t i = 0; i < slots.size(); ++i)
      all.push_back(static_cast<int>(i));
    out << preambles(*spec, all) << slot_functions(*spec, all);
  } else {
    for (const auto& slot : slots)
      out << signature(slot, false) << ";\n";
  }
  out << "#include \"" << describe(set.fam).header << "\"\n";
  return out.str();
}

// --- named-operator objects -------------------------------------------------------------------

std::string named_object_key(const char* symbol, scalar user_type, cupar::jit::named_op named) {
  return std::string(symbol) + ":" + scalar_name(user_type) + ":" +
         std::to_string(static_cast<int>(named));
}

std::vector<named_object_spec> named_object_specs() {
  using cupar::jit::named_op;
  std::vector<named_object_spec> out;
  for (int s = 1; s <= scalar_count; ++s) {
    const auto user = static_cast<scalar>(s);
    const type_ref u = type_ref::of(user);
    jit_type jt{user, scalar_cxx_name(user), nullptr, static_cast<std::uint32_t>(scalar_size(user)),
                static_cast<std::uint32_t>(scalar_size(user))};
    const type_ref c = type_ref::size_class(jt);
    std::vector<named_op> ops = {named_op::plus, named_op::multiplies, named_op::minimum,
                                 named_op::maximum};
    if (!scalar_is_float(user)) {
      ops.insert(ops.end(), {named_op::bit_and, named_op::bit_or, named_op::bit_xor});
    }
    for (named_op n : ops) {
      // With the batched forms the reduce, segmented reduce and by-key kernels' tier-1 builds call
      // (folds, warp reductions, segmented folds and scans); the other families link none.
      const slot_spec slot =
          with_batches(binary_op_slot(c), batch::fold | batch::warp_reduce | batch::segmented);
      out.push_back({named_object_key(slot.symbol, user, n), slot,
                     slot_binding{cupar::jit::op(n), {u, u}, u}});
    }
    {
      // With the head flags the unique and by-key kernels' tier-1 builds call.
      const slot_spec slot = with_batches(equality_slot(c), batch::heads);
      out.push_back(
          {named_object_key(slot.symbol, user, named_op::equal_to), slot,
           slot_binding{cupar::jit::op(named_op::equal_to), {u, u}, type_ref::boolean()}});
    }
    for (named_op n : {named_op::less, named_op::greater}) {
      const slot_spec slot = comparator_slot(c);
      out.push_back({named_object_key(slot.symbol, user, n), slot,
                     slot_binding{cupar::jit::op(n), {u, u}, type_ref::boolean()}});
    }
  }
  return out;
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
