// cupar internal: the table of family records, the helpers the family files share, and the
// expansion of their precompile rules.
#include "family.hpp"

#include "precompiled_rules.hpp"

#include <cupar/detail/checks.hpp>

#include <sstream>

namespace cupar::detail::jit {

#define CUPAR_JIT_FAMILY_DECLARE(name) extern const family_def name##_family;
CUPAR_JIT_FAMILIES(CUPAR_JIT_FAMILY_DECLARE)
#undef CUPAR_JIT_FAMILY_DECLARE

namespace {

const family_def* const table[] = {
#define CUPAR_JIT_FAMILY_ENTRY(name) &name##_family,
    CUPAR_JIT_FAMILIES(CUPAR_JIT_FAMILY_ENTRY)
#undef CUPAR_JIT_FAMILY_ENTRY
};
static_assert(sizeof(table) / sizeof(table[0]) == family_count, "one record per family");

// The domains of the precompile rules (read by CMake as well: cmake/cupar_sets.cmake).
const char* const domain_lines[] = {
    "domain types: i8 i16 i32 i64 u8 u16 u32 u64 f32 f64",
    // The size classes of the data-processing families: the unsigned integer of each size.
    "domain classes: u8 u16 u32 u64",
    // Struct classes of reduce, the scans, merge sort, transforms and histograms (opaque storage
    // of a struct's size and alignment): CUPAR_JIT_STRUCT_CLASSES=all.
    "domain structs: s4a4 s8a4 s12a4 s16a4 s20a4 s24a4 s28a4 s32a4 s8a8 s16a8 s24a8 s32a8 s40a8 "
    "s48a8 s56a8 s64a8 s96a8 s128a8 s16a16 s32a16 s48a16 s64a16 s96a16 s128a16",
    // Struct classes of the data-processing families, the record shapes met most (8, 12, 16 and
    // 20 bytes of 4-byte fields, the last a (key, count, sum, min, max) group-by row; larger
    // records of 4-byte fields whose size is a multiple of 8 take the 8-byte classes in aligned
    // arrays, set_request::aligned8, and the others (up to 64 bytes, or in misaligned arrays)
    // the class of the next 8-byte size through padded copies, entry.cpp's run_padded; 8 to 64
    // bytes with 8-byte ones, the accumulators of 1-8
    // doubles or 64-bit integers that a query's aggregates make, TPC-H Q1's five sums and a
    // count at 48):
    // CUPAR_JIT_STRUCT_DP_CLASSES=default.
    "domain dp_structs: s8a4 s12a4 s16a4 s20a4 s8a8 s16a8 s24a8 s32a8 s40a8 s48a8 s56a8 s64a8",
};

std::vector<std::string> words(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string w;
  std::istringstream in(text);
  while (std::getline(in, w, sep)) {
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

}  // namespace

const family_def& describe(family f) {
  return *table[static_cast<int>(f)];
}

const family_def* find_family(const std::string& name) {
  for (const family_def* d : table) {
    if (name == d->name) return d;
  }
  return nullptr;
}

int kernel_count(family f) {
  return describe(f).kernels;
}

bool is_data_processing(family f) {
  return describe(f).size_classes;
}

std::string meta_expression(int count) {
  std::string e = "cupar_meta<";
  for (int i = 0; i < count; ++i)
    e += (i ? ", " : "") + std::string("cupar_m") + std::to_string(i);
  return e + ">";
}

slot_spec op_slot(std::vector<type_ref> args, type_ref result, std::vector<const char*> names,
                  const char* what) {
  return {"cupar_jit_op", what, std::move(args), std::move(result), std::move(names)};
}

slot_spec store_slot(const type_ref& c) {
  return {"cupar_jit_store",
          "output expression",
          {type_ref::of(scalar::u64), c},
          type_ref::of(scalar::i32),
          {"cupar_i", "cupar_v"}};
}

std::string blocks_for_registers(long long threads, int registers) {
  return "-Xptxas=--minnctapersm=" + std::to_string(65536 / (threads * registers));
}

std::string register_limit(int registers) {
  return "-maxrregcount=" + std::to_string(registers);
}

bool sm90_words(const set_spec& s, int arch) {
  return arch == 90 && !s.types.empty() && s.types[0].is_scalar() &&
         (s.types[0].size == 4 || s.types[0].size == 8);
}
bool sm90_four_byte_words(const set_spec& s, int arch) {
  return sm90_words(s, arch) && s.types[0].size == 4;
}

// --- precompile rules -------------------------------------------------------------------------

set_domains set_domains::defaults() {
  set_domains d;
  for (const char* line : domain_lines) {
    const std::string l = line;
    const auto colon = l.find(':');
    const std::string name = l.substr(7, colon - 7);  // after "domain "
    std::vector<std::string> values = words(l.substr(colon + 1), ' ');
    if (name == "types") d.types = values;
    if (name == "classes") d.classes = values;
    if (name == "structs") d.structs = values;
    if (name == "dp_structs") d.dp_structs = values;
  }
  return d;
}

std::vector<std::string> expand_rule(const std::string& rule, const set_domains& domains) {
  const std::string prefix = "precompile";
  const auto colon = rule.find(':');
  if (rule.rfind(prefix, 0) != 0 || colon == std::string::npos) {
    throw_invalid_argument("cupar::jit", "malformed precompile rule: " + rule);
  }
  std::vector<std::string> keys = {rule.substr(colon + 1)};
  keys[0].erase(0, keys[0].find_first_not_of(' '));
  for (const std::string& loop : words(rule.substr(prefix.size(), colon - prefix.size()), ' ')) {
    const auto eq = loop.find('=');
    if (eq == std::string::npos) {
      throw_invalid_argument("cupar::jit", "malformed loop '" + loop + "' in rule: " + rule);
    }
    const std::string var = "$" + loop.substr(0, eq), domain = loop.substr(eq + 1);
    const std::vector<std::string>* values = domain == "types"        ? &domains.types
                                             : domain == "classes"    ? &domains.classes
                                             : domain == "structs"    ? &domains.structs
                                             : domain == "dp_structs" ? &domains.dp_structs
                                                                      : nullptr;
    const std::vector<std::string> literal = words(domain, '|');
    if (values == nullptr) values = &literal;
    std::vector<std::string> next;
    for (const std::string& k : keys) {
      for (const std::string& v : *values) {
        std::string e = k;
        for (auto at = e.find(var); at != std::string::npos; at = e.find(var, at + v.size())) {
          e.replace(at, var.size(), v);
        }
        next.push_back(e);
      }
    }
    keys = std::move(next);
  }
  return keys;
}

std::vector<std::string> precompiled_set_keys(const set_domains& domains) {
  std::vector<std::string> out;
  for (const family_def* d : table) {
    for (std::size_t i = 0; i < d->precompiled_count; ++i) {
      for (std::string& k : expand_rule(d->precompiled[i], domains))
        out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace cupar::detail::jit
