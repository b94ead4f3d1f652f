// cupar: run-time iterator expressions (jit_iterator.hpp): the immutable node tree the builders
// make, and the device code generated from it for the "+index" kernel sets: one function of the
// index that loads, computes and converts element i, compiled and linked like an operator.
#include "engine.hpp"
#include "iterator_expr.hpp"
#include "kernel_set.hpp"
#include "op_definition.hpp"

#include <cupar/detail/checks.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace cupar::jit::detail {

struct iterator_node {
  enum class kind {
    pointer,
    counting,
    constant,
    transform,
    zip,
    permutation,
    reverse,
    // outputs (jit::output): `type` is the value the output takes (discard: none, "void")
    out_pointer,
    out_discard,
    out_transform,
    out_zip,      // each field of the value (structured binding) through its own output
    out_reverse,  // element i stored at n - 1 - i
  };
  kind k = kind::pointer;
  cupar::detail::jit_type type{};
  // A zip's generated struct: `type` (and the type of a node above that copies it) points into
  // these strings, shared by the copies set() makes of the nodes on a path.
  struct zip_text {
    std::string name, definition;
    /// The leaf fields' paths: "_0", "_1._0", ... (a field that is a zip, or a permutation or
    /// reversal of one, contributes its own leaves).
    std::vector<std::string> leaves;
  };
  std::shared_ptr<const zip_text> zip;
  const void* pointer = nullptr;
  char load = 0;                     // pointer: the cache_modified letter (0: a plain load)
  std::vector<unsigned char> bytes;  // counting start, constant value
  std::vector<node_ptr> children;
  std::vector<std::string> fields;           // zip
  std::shared_ptr<const cupar::jit::op> op;  // transform (immutable: set() makes a new one)
};

namespace {

using kind = iterator_node::kind;
using cupar::detail::jit_type;
using cupar::detail::scalar;
using cupar::detail::throw_invalid_argument;

bool is_integral(const jit_type& t) {
  return !t.is_struct() && !cupar::detail::scalar_is_float(t.kind);
}

bool is_zip(const jit_type& t) {
  return t.is_struct() && std::strncmp(t.name, "cupar_zip_", 10) == 0;
}

/// Whether an output stores the fields of whatever value it is given (a zip output, reversed or
/// not): the value is not converted to a type of its own.
bool takes_fields(const iterator_node& o) {
  if (o.k == kind::out_zip) return std::strcmp(o.type.name, "void") == 0;
  if (o.k == kind::out_reverse) return takes_fields(*o.children[0]);
  return false;
}

/// Whether an expression's elements are a zip's: a zip, or a permutation or reversal of one.
bool zip_shaped(const iterator_node& x) {
  if (x.k == kind::zip) return true;
  if (x.k == kind::permutation || x.k == kind::reverse) return zip_shaped(*x.children[0]);
  return false;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

std::shared_ptr<iterator_node> leaf(kind k, const jit_type& t, const void* value) {
  auto n = std::make_shared<iterator_node>();
  n->k = k;
  n->type = t;
  if (value != nullptr) {
    const auto* b = static_cast<const unsigned char*>(value);
    n->bytes.assign(b, b + t.size);
  }
  return n;
}

/// The load intrinsic of a cache_modified letter (jit::load's values), or null for another.
const char* load_intrinsic(char m) {
  switch (m) {
    case 'g':
      return "__ldg";
    case 'a':
      return "__ldca";
    case 'c':
      return "__ldcg";
    case 's':
      return "__ldcs";
    case 'l':
      return "__ldlu";
    case 'v':
      return "__ldcv";
    default:
      return nullptr;
  }
}

void require_node(const node_ptr& n, const char* fn, const char* what) {
  if (!n) throw_invalid_argument(fn, std::string(what) + " is an empty iterator");
}

/// The operator of a transform (of an input or an output): a non-empty unary snippet.
void require_unary_snippet(const op& f, const char* fn, const char* what) {
  using cupar::jit::named_op;
  if (f.named() == named_op::logical_not || f.named() == named_op::identity) return;
  if (f.is_named()) {
    throw_invalid_argument(
        fn, std::string(what) + " takes a unary snippet (argument x), not a named operator");
  }
  if (f.source().find_first_not_of(" \t\r\n") == std::string::npos) {
    throw_invalid_argument(fn, "the transform's source is empty");
  }
}

}  // namespace

node_ptr iterator_pointer(const jit_type& t, const void* p) {
  auto n = leaf(kind::pointer, t, nullptr);
  n->pointer = p;
  return n;
}

node_ptr iterator_cache_modified(const jit_type& t, const void* p, char modifier) {
  if (load_intrinsic(modifier) == nullptr) {
    throw_invalid_argument("cupar::jit::cache_modified", "unknown load modifier");
  }
  auto n = leaf(kind::pointer, t, nullptr);
  n->pointer = p;
  n->load = modifier;
  return n;
}

node_ptr iterator_counting(const jit_type& t, const void* start) {
  return leaf(kind::counting, t, start);
}

node_ptr iterator_constant(const jit_type& t, const void* value) {
  if (t.size > max_param_bytes) {
    throw_invalid_argument("cupar::jit::constant",
                           "the value takes " + std::to_string(t.size) + " bytes; at most " +
                               std::to_string(max_param_bytes) + " fit an expression's state");
  }
  return leaf(kind::constant, t, value);
}

node_ptr iterator_transform(const node_ptr& in, const op& f, const jit_type* result) {
  constexpr const char* fn = "cupar::jit::transform";
  require_node(in, fn, "the input");
  require_unary_snippet(f, fn, "a transform");
  if (result == nullptr && is_zip(in->type)) {
    throw_invalid_argument(fn,
                           "the element of a zip is a struct: name the transform's result type, "
                           "cupar::jit::transform<R>(input, op)");
  }
  auto n = std::make_shared<iterator_node>();
  n->k = kind::transform;
  n->type = result != nullptr ? *result : in->type;
  n->children = {in};
  n->op = std::make_shared<const op>(f);
  return n;
}

node_ptr iterator_zip(const std::vector<std::pair<std::string, node_ptr>>& fields) {
  constexpr const char* fn = "cupar::jit::zip";
  if (fields.empty()) throw_invalid_argument(fn, "a zip needs at least one input");
  auto n = std::make_shared<iterator_node>();
  n->k = kind::zip;
  std::set<std::string> names;
  std::string body;
  std::uint32_t offset = 0, align = 1;
  for (const auto& [name, child] : fields) {
    require_node(child, fn, ("field " + name).c_str());
    if (!is_identifier(name) || name.rfind("cupar_", 0) == 0) {
      throw_invalid_argument(fn, "field name \"" + name +
                                     "\" is not a C++ identifier (or starts with cupar_, "
                                     "which is the library's)");
    }
    if (!names.insert(name).second) {
      throw_invalid_argument(fn, "field name \"" + name + "\" is given twice");
    }
    const jit_type& t = child->type;
    offset = (offset + t.align - 1) / t.align * t.align + t.size;
    align = std::max(align, t.align);
    body += std::string(t.name) + " " + name + "; ";
    n->children.push_back(child);
    n->fields.push_back(name);
  }
  auto text = std::make_shared<iterator_node::zip_text>();
  text->name = "cupar_zip_" + cupar::detail::jit::hash_hex(body);
  for (std::size_t f = 0; f < n->children.size(); ++f) {
    const iterator_node* z = n->children[f].get();
    while (z->k == kind::permutation || z->k == kind::reverse)
      z = z->children[0].get();
    if (z->k == kind::zip) {
      for (const std::string& leaf : z->zip->leaves)
        text->leaves.push_back(n->fields[f] + "." + leaf);
    } else {
      text->leaves.push_back(n->fields[f]);
    }
  }
  // Converts to any type that aggregate initialisation builds from the leaf fields in order (a
  // user struct whose members nest as the zips do, or flat ones, by brace elision; an
  // arithmetic type from a zip of one field): what an operator returning the zip's element (or
  // a part that is a zip) as the user's struct needs.
  std::string leaves;
  for (std::size_t l = 0; l < text->leaves.size(); ++l)
    leaves += (l ? ", " : "") + text->leaves[l];
  text->definition = "struct " + text->name + " { " + body +
                     "template <class T> __device__ __forceinline__ operator T() const { "
                     "return T{" +
                     leaves + "}; } };";
  n->type = {static_cast<scalar>(0), text->name.c_str(), text->definition.c_str(),
             (offset + align - 1) / align * align, align};
  n->zip = std::move(text);
  return n;
}

node_ptr iterator_permutation(const node_ptr& values, const node_ptr& indices) {
  constexpr const char* fn = "cupar::jit::permutation";
  require_node(values, fn, "the values");
  require_node(indices, fn, "the indices");
  if (!is_integral(indices->type)) {
    throw_invalid_argument(
        fn, std::string("the indices are ") + indices->type.name + ", not an integral type");
  }
  auto n = std::make_shared<iterator_node>();
  n->k = kind::permutation;
  n->type = values->type;
  n->children = {values, indices};
  return n;
}

node_ptr iterator_reverse(const node_ptr& in) {
  require_node(in, "cupar::jit::reverse", "the input");
  auto n = std::make_shared<iterator_node>();
  n->k = kind::reverse;
  n->type = in->type;
  n->children = {in};
  return n;
}

const jit_type& iterator_value_type(const iterator_node& n) {
  return n.type;
}

node_ptr output_pointer(const jit_type& t, void* p) {
  auto n = leaf(kind::out_pointer, t, nullptr);
  n->pointer = p;
  return n;
}

node_ptr output_discard() {
  static const jit_type none{static_cast<scalar>(0), "void", nullptr, 0, 1};
  return leaf(kind::out_discard, none, nullptr);
}

node_ptr output_transform(const node_ptr& out, const op& f, const jit_type* value) {
  constexpr const char* fn = "cupar::jit::transform_output";
  require_node(out, fn, "the output");
  require_unary_snippet(f, fn, "a transform output");
  if (value == nullptr && (out->k == kind::out_discard || out->k == kind::out_zip)) {
    throw_invalid_argument(fn,
                           std::string(out->k == kind::out_discard ? "discard()" : "a zip output") +
                               " takes any value: name the value type, "
                               "cupar::jit::transform_output<V>(out, op)");
  }
  auto n = std::make_shared<iterator_node>();
  n->k = kind::out_transform;
  n->type = value != nullptr ? *value : out->type;
  n->children = {out};
  n->op = std::make_shared<const op>(f);
  return n;
}

node_ptr output_zip(const std::vector<node_ptr>& outs, const jit_type* value) {
  constexpr const char* fn = "cupar::jit::zip_output";
  if (outs.empty()) throw_invalid_argument(fn, "a zip output needs at least one output");
  // Without a value type: takes any value that decomposes into as many fields (checked where
  // the code is compiled).
  static const jit_type any{static_cast<scalar>(0), "void", nullptr, 0, 1};
  auto n = std::make_shared<iterator_node>();
  n->k = kind::out_zip;
  n->type = value != nullptr ? *value : any;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    require_node(outs[k], fn, ("output " + std::to_string(k)).c_str());
    n->children.push_back(outs[k]);
  }
  return n;
}

node_ptr output_reverse(const node_ptr& out) {
  constexpr const char* fn = "cupar::jit::reverse_output";
  require_node(out, fn, "the output");
  auto n = std::make_shared<iterator_node>();
  n->k = kind::out_reverse;
  n->type = out->type;
  n->children = {out};
  return n;
}

namespace {

/// `n` with parameter `name` of every operator in it set to `value`: the nodes on the paths to
/// those operators copied (the others shared), or `n` itself when none declares it.
node_ptr rebind(const node_ptr& n, std::string_view name, scalar type, const void* value,
                const char* fn, int& found) {
  std::shared_ptr<iterator_node> copy;
  const auto copy_once = [&] {
    if (!copy) copy = std::make_shared<iterator_node>(*n);
  };
  for (std::size_t i = 0; i < n->children.size(); ++i) {
    node_ptr c = rebind(n->children[i], name, type, value, fn, found);
    if (c != n->children[i]) {
      copy_once();
      copy->children[i] = std::move(c);
    }
  }
  if (n->op) {
    if (const op_param* p = find_op_param(*n->op->definition(), name)) {
      if (p->type != type) {
        throw_invalid_argument(fn, "parameter \"" + std::string(name) + "\" is declared as " +
                                       cupar::detail::scalar_cxx_name(p->type) + ", not " +
                                       cupar::detail::scalar_cxx_name(type));
      }
      copy_once();
      unsigned char state[max_param_bytes];
      std::memcpy(state, n->op->state(), max_param_bytes);
      std::memcpy(state + p->offset, value,
                  static_cast<std::size_t>(cupar::detail::scalar_size(type)));
      copy->op = std::make_shared<const op>(n->op->definition(), state, max_param_bytes);
      ++found;
    }
  }
  return copy ? node_ptr(std::move(copy)) : n;
}

}  // namespace

node_ptr rebind_parameter(const node_ptr& root, std::string_view name, scalar type,
                          const void* value, const char* fn) {
  require_node(root, fn, "the expression");
  int found = 0;
  node_ptr r = rebind(root, name, type, value, fn, found);
  if (found == 0) {
    throw_invalid_argument(
        fn, "no operator of the expression declares a parameter \"" + std::string(name) + "\"");
  }
  return r;
}

namespace {

/// The array leaves of `n` (sole_array_of): false at a leaf whose value depends on the index
/// other than through an array read at it (counting, permutation, reversal, an output).
bool collect_array(const iterator_node& n, const void*& pointer,
                   const cupar::detail::jit_type*& type) {
  switch (n.k) {
    case kind::pointer:
      if (type != nullptr && (pointer != n.pointer || type->size != n.type.size ||
                              type->kind != n.type.kind || type->definition != n.type.definition)) {
        return false;
      }
      pointer = n.pointer;
      type = &n.type;
      return true;
    case kind::constant:
      return true;
    case kind::transform:
    case kind::zip:
      for (const auto& c : n.children)
        if (!collect_array(*c, pointer, type)) return false;
      return true;
    default:
      return false;
  }
}

node_ptr with_array(const node_ptr& n, const void* from, const void* to) {
  if (n->k == kind::pointer) {
    if (n->pointer != from) return n;
    auto copy = std::make_shared<iterator_node>(*n);
    copy->pointer = to;
    return copy;
  }
  std::shared_ptr<iterator_node> copy;
  for (std::size_t i = 0; i < n->children.size(); ++i) {
    node_ptr c = with_array(n->children[i], from, to);
    if (c != n->children[i]) {
      if (!copy) copy = std::make_shared<iterator_node>(*n);
      copy->children[i] = std::move(c);
    }
  }
  return copy ? node_ptr(std::move(copy)) : n;
}

}  // namespace

}  // namespace cupar::jit::detail

namespace cupar::detail::jit {
namespace {

using cupar::jit::detail::iterator_node;
using cupar::jit::detail::op_definition;
using kind = iterator_node::kind;

/// The pseudo-file of the code generated around the transforms' snippets.
constexpr const char* expression_file = "cupar_expression";

/// Walks an expression once, writing its device code and its state; with `emit` false it writes
/// the state alone (and checks the arrays), in the same order, for a shape whose code is cached.
struct generator {
  generator(const char* function, std::size_t count) : fn(function), n(count) {}

  const char* fn;
  std::size_t n;
  bool emit = true;
  std::ostringstream pre;  // the definition's preamble: types, zips, the transforms' functions
  std::set<std::string> defined, preambles;
  // Up to max_param_bytes: the kernels' parameters; up to max_expression_state_bytes: device
  // memory the call writes (a "wide" state, op_definition::wide_state).
  alignas(16) unsigned char state[cupar::jit::max_expression_state_bytes] = {};
  std::size_t used = 0;
  long long n_offset = -1;
  std::vector<op_definition::part> parts;
  int output_transforms = 0;  // numbered apart: cupar_output_transform_<k>
  int output_zips = 0;        // the fields of zip output k: cupar_zf<k>_<field>
  /// Whether the output's positions are the call's element indices 0..n-1 (transforms, scans,
  /// stores of all n elements), which a reverse_output needs.
  bool reversible = false;
  bool untrusted = false;

  std::size_t alloc(std::size_t size, std::size_t align) {
    const std::size_t at = (used + align - 1) / align * align;
    if (at + size > cupar::jit::max_expression_state_bytes) {
      throw_invalid_argument(
          fn, "the iterator expression's pointers, values and parameters take more than " +
                  std::to_string(cupar::jit::max_expression_state_bytes) +
                  " bytes (8 a pointer; a start or constant its size; a transform its "
                  "parameters)");
    }
    used = at + size;
    return at;
  }
  /// A device pointer in the state: its offset.
  std::size_t pointer(const void* p) {
    const std::size_t off = alloc(sizeof(void*), alignof(void*));
    std::memcpy(state + off, &p, sizeof(void*));
    return off;
  }
  static std::string read(std::size_t off, const std::string& type) {
    return "(*reinterpret_cast<const " + type + "*>(cupar_state + " + std::to_string(off) + "))";
  }
  /// The function loading one element of type `t` with the cache modifier `m` (cache_modified):
  /// the intrinsic itself for arithmetic types, else one defined here that loads the struct in
  /// words of its alignment (at most 16 bytes) with that intrinsic.
  std::string cache_load(const jit_type& t, char m) {
    const char* ld = cupar::jit::detail::load_intrinsic(m);
    if (!t.is_struct()) return ld;
    const std::uint32_t word = t.align >= 16 && t.size % 16 == 0 ? 16
                               : t.align >= 8 && t.size % 8 == 0 ? 8
                               : t.align >= 4 && t.size % 4 == 0 ? 4
                               : t.align >= 2 && t.size % 2 == 0 ? 2
                                                                 : 1;
    const char* w = word == 16  ? "uint4"
                    : word == 8 ? "unsigned long long"
                    : word == 4 ? "unsigned"
                    : word == 2 ? "unsigned short"
                                : "unsigned char";
    const std::string name = std::string("cupar_load_") + ld + "_" + t.name;
    if (defined.insert(name).second) {
      pre << "__device__ __forceinline__ " << t.name << " " << name << "(const " << t.name
          << "* p) {\n  " << w << " w[" << t.size / word << "];\n  const " << w
          << "* q = reinterpret_cast<const " << w
          << "*>(p);\n#pragma unroll\n  for (int k = 0; k < " << t.size / word
          << "; ++k) w[k] = " << ld << "(q + k);\n  " << t.name
          << " r;\n  memcpy(&r, w, sizeof(r));\n  return r;\n}\n";
    }
    return name;
  }
  /// `array` (a pointer the host gave: device, managed or mapped pinned memory, all global) told
  /// to be global memory, so that an out-of-line operator, which reads it through the state's
  /// bytes, loads and stores it with LDG / STG rather than generic LD / ST (an inlined build
  /// infers that from the kernel's parameters). CUPAR_JIT_GENERIC_ARRAYS=1 (read once a process)
  /// leaves the arrays generic: the other half of the A/B in docs/PERFORMANCE_NOTES.md.
  std::string global_array(const std::string& array) {
    static const bool generic = [] {
      const char* g = std::getenv("CUPAR_JIT_GENERIC_ARRAYS");
      return g != nullptr && g[0] == '1';
    }();
    if (generic) return array;
    if (defined.insert("cupar_global_array").second) {
      pre << "#ifndef CUPAR_GLOBAL_ARRAY\n#define CUPAR_GLOBAL_ARRAY\ntemplate <class T>\n"
             "__device__ __forceinline__ T* cupar_global_array(T* p) {\n"
             "  __builtin_assume(__isGlobal(p));\n  return p;\n}\n#endif\n";
    }
    return "cupar_global_array(" + array + ")";
  }
  void define(const jit_type& t) {
    if (!emit || t.definition == nullptr || !defined.insert(t.name).second) return;
    pre << type_definition_block(type_ref::of(t), expression_file);
  }
  /// Index `i` reversed: n - 1 - i, with n (the call's count) read from the state, where the
  /// first reversal (of an input or an output) puts it; empty while only the state is filled.
  std::string reversed(const std::string& i) {
    if (n_offset < 0) {
      n_offset = static_cast<long long>(alloc(8, 8));
      const unsigned long long count = n;
      std::memcpy(state + n_offset, &count, 8);
    }
    if (!emit) return std::string();
    return "(" + read(static_cast<std::size_t>(n_offset), "unsigned long long") + " - 1ull - (" +
           i + "))";
  }
  /// The types of an expression's nodes, inner ones first (a zip's struct names its fields').
  void define_tree(const iterator_node& x) {
    for (const auto& c : x.children)
      define_tree(*c);
    define(x.type);
  }

  /// The expression's element `i` as device code (with `emit` false: nothing, the state alone).
  std::string code(const iterator_node& x, const std::string& i) {
    const char* type = x.type.name;
    switch (x.k) {
      case kind::pointer: {
        if (x.pointer == nullptr && n > 0) {
          throw_invalid_argument(fn, std::string("an array of the iterator expression (of ") +
                                         type + ") is null but n = " + std::to_string(n));
        }
        define(x.type);
        const std::size_t off = pointer(x.pointer);
        if (!emit) return std::string();
        const std::string array = std::string("(*reinterpret_cast<const ") + type +
                                  pointer_leaf_marker + std::to_string(off) + "))";
        if (x.load == 0) return global_array(array) + "[" + i + "]";
        return cache_load(x.type, x.load) + "(" + array + " + (" + i + "))";
      }
      case kind::counting: {
        const std::size_t off = alloc(x.type.size, x.type.align);
        std::memcpy(state + off, x.bytes.data(), x.type.size);
        if (!emit) return std::string();
        return std::string("((") + type + ")(" + read(off, type) + " + (" + i + ")))";
      }
      case kind::constant: {
        define(x.type);
        const std::size_t off = alloc(x.type.size, x.type.align);
        std::memcpy(state + off, x.bytes.data(), x.type.size);
        if (!emit) return std::string();
        return read(off, type);
      }
      case kind::transform:
        return transform(x, i);
      case kind::zip: {
        std::string fields;
        for (std::size_t f = 0; f < x.children.size(); ++f) {
          const std::string field = code(*x.children[f], i);
          if (emit) fields += (f ? ", " : "") + field;
        }
        if (!emit) return std::string();
        define(x.type);
        return type + ("{" + fields + "}");
      }
      case kind::permutation: {
        const std::string index = code(*x.children[1], i);
        return code(*x.children[0], emit ? "(unsigned long long)(" + index + ")" : std::string());
      }
      case kind::out_pointer:
      case kind::out_discard:
      case kind::out_transform:
      case kind::out_zip:
      case kind::out_reverse:
        throw_invalid_argument(fn, "an output expression used as an input");
      case kind::reverse: {
        const std::string r = reversed(i);
        return code(*x.children[0], r);
      }
    }
    return std::string();
  }

  /// The leaf fields of a zip-shaped expression's element `i` in order (see zip_shaped): a zip's
  /// fields, each nested zip's replaced by its own leaves, through permutations and reversals of
  /// zips; for any other expression its element alone. A user struct built from them by
  /// aggregate initialisation (`T{leaf, ...}`) takes them by brace elision whether its members
  /// nest as the zips do or are flat. Walks the nodes, and fills the state, in code()'s order.
  std::vector<std::string> leaves(const iterator_node& x, const std::string& i) {
    std::vector<std::string> out;
    auto append = [&out](std::vector<std::string> more) {
      for (auto& m : more)
        out.push_back(std::move(m));
    };
    switch (x.k) {
      case kind::zip:
        for (const auto& c : x.children)
          append(leaves(*c, i));
        return out;
      case kind::permutation:
        if (cupar::jit::detail::zip_shaped(*x.children[0])) {
          const std::string index = code(*x.children[1], i);
          return leaves(*x.children[0],
                        emit ? "(unsigned long long)(" + index + ")" : std::string());
        }
        break;
      case kind::reverse:
        if (cupar::jit::detail::zip_shaped(*x.children[0])) {
          const std::string r = reversed(i);
          return leaves(*x.children[0], r);
        }
        break;
      default:
        break;
    }
    out.push_back(code(x, i));
    return out;
  }

  /// `T{leaves of x}`: a zip-shaped expression's element as the user struct T.
  std::string aggregate(const jit_type& t, const iterator_node& x, const std::string& i) {
    std::string fields;
    bool first = true;
    for (const std::string& leaf : leaves(x, i)) {
      fields += (first ? "" : ", ") + leaf;
      first = false;
    }
    if (!emit) return std::string();
    define(t);
    return std::string(t.name) + "{" + fields + "}";
  }

  /// The statement bounding cupar_n by the count(s) the call wrote to device memory (their
  /// pointer in the state), so that a store pass launched for a capacity stores only what the
  /// algorithm wrote.
  std::string bound(const store_bound& b) {
    if (b.kind == store_bound::all || b.counts == nullptr) {
      throw_invalid_argument(fn, "internal: a bounded store without its device count");
    }
    const std::size_t off = pointer(b.counts);
    if (!emit) return std::string();
    std::string c = "(*reinterpret_cast<const unsigned long long* const*>(cupar_state + " +
                    std::to_string(off) + "))";
    std::string value;
    switch (b.kind) {
      case store_bound::first:
        value = c + "[0]";
        break;
      case store_bound::second:
        value = c + "[1]";
        break;
      default:  // rest: the third part of a three-way partition
        value = "cupar_n - " + c + "[0] - " + c + "[1]";
        break;
    }
    return "  {\n    const unsigned long long cupar_bound = " + value +
           ";\n    if (cupar_bound < cupar_n) cupar_n = cupar_bound;\n  }\n";
  }

  /// A user's snippet's part of the state: its run-time parameters, copied at the offset returned.
  std::size_t snippet_state(const cupar::jit::op& f) {
    const auto& def = *f.definition();
    const std::size_t base = def.state_bytes == 0 ? 0 : alloc(def.state_bytes, 8);
    std::memcpy(state + base, f.state(), def.state_bytes);
    untrusted = untrusted || f.trust_level() == cupar::jit::trust::untrusted;
    return base;
  }

  /// A user's snippet in a function of its own, `name(cupar_state, args...) -> result` (result
  /// "auto": the snippet's own type), under its own pseudo-file `file`, its run-time parameters
  /// read at their offsets within its part of the state.
  void snippet_function(const cupar::jit::op& f, const std::string& name, const std::string& file,
                        const std::string& result,
                        const std::vector<std::pair<std::string, const char*>>& args,
                        std::string what = std::string(), std::string role = std::string()) {
    const std::size_t base = snippet_state(f);
    const auto& def = *f.definition();
    const std::string& preamble = def.preamble;
    if (!preamble.empty() && preambles.insert(preamble).second) {
      pre << preamble_text_block(preamble, expression_file);
    }
    std::vector<const char*> names;
    pre << "__device__ __forceinline__ " << result << " " << name
        << "(const unsigned char* cupar_state";
    for (const auto& [type, arg] : args) {
      pre << ", " << type << " " << arg;
      names.push_back(arg);
    }
    pre << ") {\n";
    pre << parameter_lines(def.params, base);
    pre << "  (void)cupar_state;\n";
    pre << snippet_evaluation(snippet_text(f), file, expression_file, result, names);
    pre << "  return cupar_result;\n}\n";
    parts.push_back({file, f, std::move(what), std::move(role)});
  }

  /// A transform: its snippet in a function of its own (its pseudo-file cupar_transform_<k>).
  std::string transform(const iterator_node& x, const std::string& i) {
    const std::string in = code(*x.children[0], i);
    if (!emit) {
      snippet_state(*x.op);
      return std::string();
    }
    define(x.type);
    const int k = static_cast<int>(parts.size()) + 1;
    const std::string name = "cupar_xf_" + std::to_string(k);
    snippet_function(*x.op, name, "cupar_transform_" + std::to_string(k), x.type.name,
                     {{x.children[0]->type.name, "x"}});
    return name + "(cupar_state, " + in + ")";
  }

  /// The statement storing `value` as element `i` of the output expression `o`.
  std::string store(const iterator_node& o, const std::string& i, const std::string& value) {
    switch (o.k) {
      case kind::out_pointer: {
        if (o.pointer == nullptr && n > 0) {
          throw_invalid_argument(fn, std::string("the output array (of ") + o.type.name +
                                         ") is null but n = " + std::to_string(n));
        }
        define(o.type);
        const std::size_t off = pointer(o.pointer);
        if (!emit) return std::string();
        return global_array("(*reinterpret_cast<" + std::string(o.type.name) +
                            "* const*>(cupar_state + " + std::to_string(off) + "))") +
               "[" + i + "] = " + value + ";";
      }
      case kind::out_discard:
        if (!emit) return std::string();
        return "(void)(" + value + ");";
      case kind::out_transform: {
        const iterator_node& to = *o.children[0];
        if (!emit) {
          snippet_state(*o.op);
          return store(to, i, value);
        }
        // Named apart from the input's transforms: a scan's input and output expressions are
        // operators of their own, compiled into one program.
        define(o.type);
        const int k = ++output_transforms;
        const std::string name = "cupar_oxf_" + std::to_string(k);
        snippet_function(*o.op, name, "cupar_output_transform_" + std::to_string(k),
                         to.k == kind::out_discard ? "auto" : to.type.name, {{o.type.name, "x"}},
                         "transform output",
                         "a unary operator of the transform output (argument x)");
        return store(to, i, name + "(cupar_state, " + value + ")");
      }
      case kind::out_zip: {
        // The value's fields by structured binding (any aggregate with as many public members:
        // a user struct, a zip's element), each stored through its own output.
        const std::string k = std::to_string(++output_zips);
        std::string names, stores;
        for (std::size_t f = 0; f < o.children.size(); ++f) {
          const std::string name = "cupar_zf" + k + "_" + std::to_string(f);
          names += (f ? ", " : "") + name;
          stores += store(*o.children[f], i, name) + " ";
        }
        if (!emit) return std::string();
        define(o.type);  // zip_output<V>: the value converted to V first
        const std::string typed = cupar::jit::detail::takes_fields(o)
                                      ? value
                                      : std::string(o.type.name) + "(" + value + ")";
        return "{ auto&& [" + names + "] = " + typed + "; " + stores + "}";
      }
      case kind::out_reverse: {
        if (!reversible) {
          throw_invalid_argument(fn,
                                 "a reverse_output takes element i of n at n - 1 - i: only "
                                 "the transforms and scans (and stores of all n elements) "
                                 "write by element index; this output is written by "
                                 "position of what the call selects");
        }
        const std::string r = reversed(i);
        return store(*o.children[0], r, value);
      }
      default:
        throw_invalid_argument(fn, "an input expression used as an output");
    }
    return std::string();
  }
};

/// One definition per expression shape (its generated code), so that the per-operator cache
/// finds the builds of an expression rebuilt for each call. Bounded: past the limit the table
/// starts again (definitions that operators still hold live on).
std::shared_ptr<const op_definition> interned(const std::string& source,
                                              const std::string& preamble, bool untrusted,
                                              std::vector<op_definition::part>& parts,
                                              std::size_t state_bytes) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const op_definition>> table;
  const bool wide = state_bytes > cupar::jit::max_param_bytes;
  std::string key = (untrusted ? "u" : "t") + std::string(wide ? "w\n" : "\n") + source;
  key += '\x01';
  key += preamble;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = table.find(key); it != table.end()) return it->second;
  if (table.size() >= 4096) table.clear();
  auto def = std::make_shared<op_definition>();
  def->source = source;
  def->preamble = preamble;
  def->level = untrusted ? cupar::jit::trust::untrusted : cupar::jit::trust::trusted;
  def->generated = true;
  def->wide_state = wide;
  def->parts = std::move(parts);
  table.emplace(std::move(key), def);
  return def;
}

template <class T>
void append_bytes(std::string& k, const T& v) {
  k.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void append_type(std::string& k, const jit_type& t) {
  k += t.name;  // a zip's generated name, too, when a permutation or reverse takes its type
  k += ';';
  // A user type's definition is static (one per type: jit_type_of); a zip's lives in its node,
  // and its name is a hash of it.
  if (std::strncmp(t.name, "cupar_zip_", 10) != 0) append_bytes(k, t.definition);
  append_bytes(k, t.size);
  append_bytes(k, t.align);
  append_bytes(k, t.kind);
}

/// The key of a generated definition: what its code depends on (kinds, types, the transforms'
/// operator definitions by address), not the pointers, values and parameters the state holds.
/// `refs` keeps the definitions named by address alive as long as the cache entry, so that an
/// address is never another definition's.
struct shape_key {
  std::string k;
  std::vector<std::shared_ptr<const op_definition>> refs;
  void add_op(const cupar::jit::op& f) {
    append_bytes(k, f.definition().get());
    refs.push_back(f.definition());
  }
};

/// Appends the shape of expression `x` to the key.
void append_shape(shape_key& key, const iterator_node& x) {
  std::string& k = key.k;
  k += static_cast<char>('a' + static_cast<int>(x.k));
  if (x.k == kind::zip) {
    k += x.zip->name;  // a hash of the fields' names and types
    k += ';';
  } else {
    append_type(k, x.type);
  }
  if (x.load != 0) k += x.load;  // a cache_modified array: other loads
  if (x.op) key.add_op(*x.op);
  for (const auto& c : x.children)
    append_shape(key, *c);
  k += ')';
}

/// Generated definitions by expression shape (and what else the generated code depends on), so
/// that a call with an expression of a known shape only fills the state (2-5 us a call of
/// generating code before). Bounded like interned().
struct cached_shape {
  std::shared_ptr<const op_definition> def;
  unsigned items = 0;
  std::vector<std::shared_ptr<const op_definition>> refs;
};
std::mutex shape_mutex;
std::unordered_map<std::string, cached_shape> shapes;

bool find_shape(const std::string& key, cached_shape& out) {
  std::lock_guard<std::mutex> lock(shape_mutex);
  auto it = shapes.find(key);
  if (it == shapes.end()) return false;
  out.def = it->second.def;
  out.items = it->second.items;
  return true;
}

/// CUPAR_JIT_CHECK_SHAPE_CACHE=1 (the iterator suites set it): every cache hit also generates
/// the code and state from scratch and throws std::logic_error unless both agree, so the tests
/// check that filling the state alone writes what the generation writes.
bool checking_shapes() {
  static const bool on = [] {
    const char* v = std::getenv("CUPAR_JIT_CHECK_SHAPE_CACHE");
    return v != nullptr && v[0] == '1';
  }();
  return on;
}

void check_hit(const char* what, const cupar::jit::op& cached, const cupar::jit::op& fresh) {
  const auto& a = *cached.definition();
  const auto& b = *fresh.definition();
  // The whole state: the wide one (not yet placed in device memory) or the parameter bytes.
  auto bytes = [](const cupar::jit::op& o) {
    const std::vector<unsigned char>* w = o.wide_state();
    return w != nullptr
               ? *w
               : std::vector<unsigned char>(o.state(), o.state() + cupar::jit::max_param_bytes);
  };
  if (a.source != b.source || a.preamble != b.preamble || a.level != b.level ||
      a.wide_state != b.wide_state || bytes(cached) != bytes(fresh)) {
    throw std::logic_error(std::string("cupar internal: the cached code of an iterator "
                                       "expression's shape (") +
                           what + ") differs from the code or state generated anew");
  }
}

void remember_shape(shape_key&& key, std::shared_ptr<const op_definition> def, unsigned items) {
  std::lock_guard<std::mutex> lock(shape_mutex);
  if (shapes.size() >= 4096) shapes.clear();
  shapes.emplace(std::move(key.k), cached_shape{std::move(def), items, std::move(key.refs)});
}

}  // namespace

const jit_type& index_type() {
  return jit_type_of<unsigned long long>();
}

namespace {

/// The operator of `key`: from the cache, with only the state filled (`fill`, which must fill it
/// as `generate` does), or generated (`generate`: code and state, with its `items`) and
/// remembered.
template <class Fill, class Generate>
std::pair<cupar::jit::op, unsigned> cached_or_generated(shape_key&& key, const char* what,
                                                        const char* fn, std::size_t n, Fill&& fill,
                                                        Generate&& generate) {
  if (cached_shape c; find_shape(key.k, c)) {
    generator g{fn, n};
    g.emit = false;
    fill(g);
    cupar::jit::op hit(std::move(c.def), g.state, g.used);
    if (checking_shapes()) check_hit(what, hit, generate().first);
    engine_counters().expression_code_reuses++;
    return {std::move(hit), c.items};
  }
  std::pair<cupar::jit::op, unsigned> made = generate();
  remember_shape(std::move(key), made.first.definition(), made.second);
  return made;
}

}  // namespace

cupar::jit::op expression_op(const cupar::jit::iterator& it, const jit_type& acc, std::size_t n,
                             const char* fn) {
  const iterator_node& root = *it.node();
  shape_key key{"E", {}};
  append_type(key.k, acc);
  append_shape(key, root);
  // A zip's element (a zip of zips, a permutation or reversal of a zip too) becomes the
  // accumulator's struct, its members initialised from the zip's leaf fields in order.
  const bool zipped = cupar::jit::detail::zip_shaped(root);
  auto fill = [&](generator& g) {
    if (zipped) {
      g.aggregate(acc, root, "cupar_i");
    } else {
      g.code(root, "cupar_i");
    }
  };
  auto generate = [&]() -> std::pair<cupar::jit::op, unsigned> {
    generator g{fn, n};
    g.pre << "#line 1 \"" << expression_file << "\"\n";
    std::string source;
    if (zipped) {
      if (!acc.is_struct()) {
        throw_invalid_argument(fn,
                               std::string("the elements of a zip are structs; they reduce into "
                                           "a struct type (CUPAR_JIT_TYPE) whose members take "
                                           "the fields in order, not into ") +
                                   acc.name);
      }
      source = g.aggregate(acc, root, "cupar_i");
    } else {
      source = g.code(root, "cupar_i");
    }
    auto def = interned(source, g.pre.str(), g.untrusted, g.parts, g.used);
    return {cupar::jit::op(std::move(def), g.state, g.used), 0u};
  };
  return cached_or_generated(std::move(key), "an input expression", fn, n, fill, generate).first;
}

cupar::jit::op not_after_predicate(const cupar::jit::op& comp, const jit_type& key,
                                   const void* keys, const void* threshold, const char* fn) {
  generator g{fn, 0};
  g.pre << "#line 1 \"" << expression_file << "\"\n";
  g.define(key);
  const std::size_t at_keys = g.pointer(keys);
  const std::size_t at_threshold = g.pointer(threshold);
  g.snippet_function(comp, "cupar_comparator", "cupar_comparator", "bool",
                     {{key.name, "a"}, {key.name, "b"}}, "comparator", "comparator");
  const std::string array = std::string(key.name) + "* const";  // read() adds the first const
  if (g.used > cupar::jit::max_param_bytes) {
    // A predicate of select_if's own sets: its state travels in the kernels' parameters.
    throw_invalid_argument(fn, "the comparator's parameters take more than " +
                                   std::to_string(cupar::jit::max_param_bytes - 16) + " bytes");
  }
  const std::string source = "!cupar_comparator(cupar_state, " +
                             generator::read(at_threshold, array) + "[0], " +
                             generator::read(at_keys, array) + "[x])";
  auto def = interned(source, g.pre.str(), g.untrusted, g.parts, g.used);
  return cupar::jit::op(std::move(def), g.state, g.used);
}

sole_array sole_array_of(const cupar::jit::iterator& it) {
  const void* pointer = nullptr;
  const jit_type* type = nullptr;
  if (!it.node() || !cupar::jit::detail::collect_array(*it.node(), pointer, type) ||
      type == nullptr) {
    return {};
  }
  return {pointer, type};
}

array_transform array_transform_of(const cupar::jit::iterator& it) {
  const iterator_node* x = it.node().get();
  if (x == nullptr || x->k != kind::transform || x->children.size() != 1 || !x->op) return {};
  const iterator_node& in = *x->children[0];
  if (in.k != kind::pointer || in.load != 0) return {};
  return {in.pointer, &in.type, &x->type, x->op.get()};
}

cupar::jit::iterator with_sole_array(const cupar::jit::iterator& it, const void* array) {
  const sole_array a = sole_array_of(it);
  if (a.type == nullptr) {
    throw std::logic_error("cupar internal: with_sole_array on an expression of several arrays");
  }
  return cupar::jit::iterator(cupar::jit::detail::with_array(it.node(), a.pointer, array));
}

namespace {
/// Indices per thread of the "for_each" kernel for inputs of `bytes_per_index` bytes together:
/// enough loads in flight per thread to keep the memory busy, few enough registers.
unsigned for_each_items(std::size_t bytes_per_index) {
  return bytes_per_index <= 4 ? 8u : bytes_per_index <= 8 ? 4u : bytes_per_index <= 16 ? 2u : 1u;
}
}  // namespace

for_each_op run_marks_op(const cupar::jit::op& eq, const jit_type& key, const void* keys,
                         void* marks, std::size_t mark_size, std::size_t n, const char* fn) {
  // The state in the order the generation fills it: the two arrays, the equality's parameters.
  auto fill = [&](generator& g) {
    g.pointer(keys);
    g.pointer(marks);
    g.snippet_state(eq);
  };
  auto generate = [&]() -> std::pair<cupar::jit::op, unsigned> {
    generator g{fn, n};
    g.pre << "#line 1 \"" << expression_file << "\"\n";
    g.define(key);
    const std::size_t at_keys = g.pointer(keys);
    const std::size_t at_marks = g.pointer(marks);
    g.snippet_function(eq, "cupar_equality", "cupar_equality", "bool",
                       {{key.name, "a"}, {key.name, "b"}}, "equality", "equality");
    const std::string mark = mark_size == 4 ? "unsigned" : "unsigned long long";
    const unsigned items = for_each_items(key.size);
    std::ostringstream apply;
    apply << "__device__ __forceinline__ int cupar_apply(const unsigned char* cupar_state, "
             "unsigned long long cupar_i, unsigned long long cupar_n) {\n"
          << "  const " << key.name
          << "* const cupar_keys = " << generator::read(at_keys, std::string(key.name) + "* const")
          << ";\n"
          << "  " << mark << "* const cupar_marks = (*reinterpret_cast<" << mark
          << "* const*>(cupar_state + " << at_marks << "));\n"
          << "#pragma unroll\n"
          << "  for (int cupar_k = 0; cupar_k < " << items << "; ++cupar_k) {\n"
          << "    const unsigned long long cupar_j = cupar_i + " << for_each_threads
          << "ull * static_cast<unsigned long long>(cupar_k);\n"
          << "    if (cupar_j >= cupar_n) break;\n"
          << "    const bool cupar_head = cupar_j != 0ull && !cupar_equality(cupar_state, "
             "cupar_keys[cupar_j - 1ull], cupar_keys[cupar_j]);\n"
          << "    cupar_marks[cupar_j] = static_cast<" << mark
          << ">((cupar_j << 1) | (cupar_head ? 1ull : 0ull));\n"
          << "  }\n  return 0;\n}\n";
    g.pre << apply.str();
    auto def = interned("cupar_apply(cupar_state, cupar_i, cupar_n)", g.pre.str(), g.untrusted,
                        g.parts, g.used);
    return {cupar::jit::op(std::move(def), g.state, g.used), items};
  };
  // The code depends on the key's type, the marks' width and the equality's definition only: a
  // call with a known one fills the state alone.
  shape_key skey{"M", {}};
  append_type(skey.k, key);
  skey.k += static_cast<char>('0' + mark_size);
  skey.add_op(eq);
  auto made = cached_or_generated(std::move(skey), "the rows' run marks", fn, n, fill, generate);
  return {std::move(made.first), made.second};
}

namespace {

/// The "for_each" operator of transform_apply_op (`f` given) and convert_apply_op (`f` null:
/// the input's element converted to what the output takes, a zip's fields initialising the
/// output's struct in order).
for_each_op apply_op(const cupar::jit::iterator* const* ins, int arity,
                     const cupar::jit::output& out, const cupar::jit::op* f, std::size_t n,
                     const char* fn, const store_bound* bound = nullptr, bool by_index = true) {
  const iterator_node& o = *out.node();
  // A conversion of a zip builds the output's struct from the fields (aggregate initialisation);
  // a zip output takes the zip's element as it is, field by field.
  const bool fields = cupar::jit::detail::takes_fields(o);
  const bool zip_to_struct =
      f == nullptr && !fields && cupar::jit::detail::zip_shaped(*ins[0]->node());
  if (zip_to_struct && (o.k == kind::out_discard || !o.type.is_struct())) {
    throw_invalid_argument(fn, std::string("the elements of a zip are structs; they convert into "
                                           "a struct type (CUPAR_JIT_TYPE) whose members take "
                                           "the fields in order, not into ") +
                                   o.type.name);
  }
  shape_key key{f != nullptr ? "T" : "C", {}};
  key.k += static_cast<char>('0' + arity);
  if (f != nullptr) key.add_op(*f);
  for (int a = 0; a < arity; ++a)
    append_shape(key, *ins[a]->node());
  key.k += '|';
  append_shape(key, o);
  if (bound != nullptr) {
    key.k += 'B';
    key.k += static_cast<char>('0' + static_cast<int>(bound->kind));
  }
  if (!by_index) key.k += 'P';  // positioned by selection: a reverse_output is refused
  // The state in the order the generation fills it: the bound's counts, the inputs, the
  // operator's parameters, the output's.
  // Element i of the call stored at position i (a reverse_output: n - 1 - i), unless the
  // algorithm's outputs are positioned by what it selected.
  const bool reversible = by_index && bound == nullptr;
  auto fill = [&](generator& g) {
    g.reversible = reversible;
    if (bound != nullptr) g.bound(*bound);
    for (int a = 0; a < arity; ++a) {
      if (zip_to_struct) {
        g.aggregate(o.type, *ins[a]->node(), "cupar_j");
      } else {
        g.code(*ins[a]->node(), "cupar_j");
      }
    }
    if (f != nullptr) g.snippet_state(*f);
    g.store(o, "cupar_j", std::string());
  };
  auto generate = [&]() -> std::pair<cupar::jit::op, unsigned> {
    generator g{fn, n};
    g.reversible = reversible;
    g.pre << "#line 1 \"" << expression_file << "\"\n";
    const std::string bounded = bound != nullptr ? g.bound(*bound) : std::string();
    // Loads: each input's element at cupar_j into cupar_v<a>[cupar_k].
    std::string loads;
    std::size_t bytes = 0;
    std::vector<std::pair<std::string, const char*>> args;
    static const char* const unary_names[] = {"x"};
    static const char* const binary_names[] = {"a", "b"};
    std::vector<std::string> held;  // the type each input's loaded elements are held as
    for (int a = 0; a < arity; ++a) {
      const iterator_node& in = *ins[a]->node();
      g.define_tree(in);
      std::string value;
      if (zip_to_struct) {
        value = g.aggregate(o.type, in, "cupar_j");
        held.emplace_back(o.type.name);
      } else {
        value = g.code(in, "cupar_j");
        held.emplace_back(in.type.name);
      }
      loads += "      cupar_v" + std::to_string(a) + "[cupar_k] = " + value + ";\n";
      bytes += in.type.size;
      args.emplace_back(in.type.name, arity == 1 ? unary_names[a] : binary_names[a]);
    }
    // The operator, its result converted to what the output takes (a conversion: the element).
    const std::string result = o.k == kind::out_discard || fields ? "auto" : o.type.name;
    g.define(o.type);
    std::string call = "cupar_v0[cupar_k]";
    if (f != nullptr) {
      g.snippet_function(*f, "cupar_operator_fn", "cupar_operator", result, args, "operator",
                         arity == 1 ? "the transform's unary operator (argument x)"
                                    : "the transform's binary operator (arguments a, b)");
      call = "cupar_operator_fn(cupar_state";
      for (int a = 0; a < arity; ++a)
        call += ", cupar_v" + std::to_string(a) + "[cupar_k]";
      call += ")";
    }
    const std::string store = g.store(o, "cupar_j", call);
    const unsigned items = for_each_items(bytes);
    const std::string k = std::to_string(items);
    const std::string index = "      const unsigned long long cupar_j = cupar_i + " +
                              std::to_string(for_each_threads) +
                              "ull * static_cast<unsigned long long>(cupar_k);\n";
    const std::string loop = "    for (int cupar_k = 0; cupar_k < " + k + "; ++cupar_k) {\n";
    // The loads of all items first, then the stores: each thread keeps `items` loads in flight.
    std::ostringstream apply;
    apply << "__device__ __forceinline__ int cupar_apply(const unsigned char* cupar_state, "
             "unsigned long long cupar_i, unsigned long long cupar_n) {\n"
          << bounded;
    for (int a = 0; a < arity; ++a)
      apply << "  " << held[static_cast<std::size_t>(a)] << " cupar_v" << a << "[" << k << "];\n";
    apply << "  if (cupar_i + " << (items - 1) * for_each_threads << "ull < cupar_n) {\n"
          << "#pragma unroll\n"
          << loop << index << loads << "    }\n"
          << "#pragma unroll\n"
          << loop << index << "      " << store << "\n    }\n"
          << "  } else {\n"
          << loop << index << "      if (cupar_j >= cupar_n) break;\n"
          << loads << "    }\n"
          << loop << index << "      if (cupar_j >= cupar_n) break;\n      " << store << "\n    }\n"
          << "  }\n  (void)cupar_state;\n  return 0;\n}\n";
    g.pre << apply.str();
    auto def = interned("cupar_apply(cupar_state, cupar_i, cupar_n)", g.pre.str(), g.untrusted,
                        g.parts, g.used);
    return {cupar::jit::op(std::move(def), g.state, g.used), items};
  };
  auto made = cached_or_generated(std::move(key), f != nullptr ? "a transform" : "a conversion", fn,
                                  n, fill, generate);
  return {std::move(made.first), made.second};
}

}  // namespace

for_each_op transform_apply_op(const cupar::jit::iterator* const* ins, int arity,
                               const cupar::jit::output& out, const cupar::jit::op& f,
                               std::size_t n, const char* fn) {
  return apply_op(ins, arity, out, &f, n, fn);
}

for_each_op convert_apply_op(const cupar::jit::iterator& in, const cupar::jit::output& out,
                             std::size_t n, const char* fn) {
  const cupar::jit::iterator* ins[1] = {&in};
  return apply_op(ins, 1, out, nullptr, n, fn);
}

for_each_op bounded_store_op(const void* src, const jit_type& t, const cupar::jit::output& out,
                             std::size_t n, const store_bound& bound, bool by_index,
                             const char* fn) {
  const cupar::jit::iterator in(cupar::jit::detail::iterator_pointer(t, src));
  const cupar::jit::iterator* ins[1] = {&in};
  return apply_op(ins, 1, out, nullptr, n, fn, bound.kind == store_bound::all ? nullptr : &bound,
                  by_index);
}

for_each_op bounded_convert_op(const cupar::jit::iterator& in, const cupar::jit::output& out,
                               std::size_t n, const store_bound& bound, const char* fn) {
  const cupar::jit::iterator* ins[1] = {&in};
  return apply_op(ins, 1, out, nullptr, n, fn, bound.kind == store_bound::all ? nullptr : &bound,
                  false);
}

cupar::jit::op store_op(const cupar::jit::output& out, const jit_type& v, std::size_t n,
                        bool by_index, const char* fn) {
  shape_key key{by_index ? "S" : "s", {}};
  append_type(key.k, v);
  append_shape(key, *out.node());
  auto fill = [&](generator& g) {
    g.reversible = by_index;
    g.store(*out.node(), "cupar_i", "cupar_v");
  };
  auto generate = [&]() -> std::pair<cupar::jit::op, unsigned> {
    generator g{fn, n};
    g.reversible = by_index;
    g.pre << "#line 1 \"" << expression_file << "\"\n";
    g.define(v);
    const std::string stmt = g.store(*out.node(), "cupar_i", "cupar_v");
    g.pre << "__device__ __forceinline__ int cupar_store(const unsigned char* cupar_state, "
             "unsigned long long cupar_i, "
          << v.name << " cupar_v) {\n  " << stmt << "\n  (void)cupar_state;\n  return 0;\n}\n";
    auto def = interned("cupar_store(cupar_state, cupar_i, cupar_v)", g.pre.str(), g.untrusted,
                        g.parts, g.used);
    return {cupar::jit::op(std::move(def), g.state, g.used), 0u};
  };
  return cached_or_generated(std::move(key), "an output expression", fn, n, fill, generate).first;
}

std::pair<const void*, std::size_t> output_array(const cupar::jit::output& out) {
  const iterator_node& o = *out.node();
  if (o.k != kind::out_pointer) return {nullptr, 0};
  return {o.pointer, o.type.size};
}

bool is_discard(const cupar::jit::output& out) {
  return out.node()->k == kind::out_discard;
}

namespace {
/// The end of n elements of `size` bytes from p (the address space's end when unbounded or
/// beyond it).
std::uintptr_t end_of(std::uintptr_t p, std::size_t n, std::size_t size, bool unbounded) {
  if (unbounded || (size != 0 && n > (UINTPTR_MAX - p) / size)) return UINTPTR_MAX;
  return p + n * size;
}
/// Whether `x`, read for its first n elements, reads a byte of [lo, hi).
bool reads_within(const iterator_node& x, std::size_t n, bool unbounded, std::uintptr_t lo,
                  std::uintptr_t hi) {
  switch (x.k) {
    case kind::pointer: {
      const auto p = reinterpret_cast<std::uintptr_t>(x.pointer);
      return p < hi && lo < end_of(p, n, x.type.size, unbounded);
    }
    case kind::permutation:  // the values at any index; the indices' first n
      return reads_within(*x.children[0], n, true, lo, hi) ||
             reads_within(*x.children[1], n, unbounded, lo, hi);
    default:
      for (const auto& c : x.children) {
        if (reads_within(*c, n, unbounded, lo, hi)) return true;
      }
      return false;
  }
}
}  // namespace

namespace {
/// Whether `p` holds for `x` or a node below it (an output's tree: transforms, reversals and the
/// fields of a zip; no allocation, as the per-call checks below walk it).
template <class P>
bool any_node(const iterator_node& x, const P& p) {
  if (p(x)) return true;
  for (const auto& c : x.children) {
    if (any_node(*c, p)) return true;
  }
  return false;
}
}  // namespace

bool output_may_overlap(const cupar::jit::output& out, std::size_t n,
                        const cupar::jit::iterator* in, const void* array,
                        std::size_t array_element_size) {
  if (n == 0) return false;
  // Each array the output writes.
  return any_node(*out.node(), [&](const iterator_node& o) {
    if (o.k != kind::out_pointer) return false;
    const auto lo = reinterpret_cast<std::uintptr_t>(o.pointer);
    const std::uintptr_t hi = end_of(lo, n, o.type.size, false);
    if (in != nullptr && reads_within(*in->node(), n, false, lo, hi)) return true;
    if (array == nullptr) return false;
    const auto p = reinterpret_cast<std::uintptr_t>(array);
    return p < hi && lo < end_of(p, n, array_element_size, false);
  });
}

bool output_has_reverse(const cupar::jit::output& out) {
  return any_node(*out.node(), [](const iterator_node& o) { return o.k == kind::out_reverse; });
}

namespace {
bool same_type(const jit_type& a, const jit_type& b) {
  return a.size == b.size && std::strcmp(a.name, b.name) == 0;
}

/// Whether `in` is a plain array of exactly type `t`, null or not.
bool is_plain_array(const cupar::jit::iterator& in, const jit_type& t) {
  const iterator_node& i = *in.node();
  // A cache_modified array is not plain: the kernels would read it with their own loads.
  return i.k == kind::pointer && i.load == 0 && same_type(i.type, t);
}
}  // namespace

const void* plain_input(const cupar::jit::iterator& in, const jit_type& t) {
  return is_plain_array(in, t) ? in.node()->pointer : nullptr;
}

bool with_plain_first_input(const jit_args& a, jit_args& b) {
  if (a.in_iter[0] == nullptr || !is_plain_array(*a.in_iter[0], *a.types[0])) return false;
  b = a;
  b.in[0] = a.in_iter[0]->node()->pointer;
  b.in_iter[0] = nullptr;
  return true;
}

void* plain_output(const cupar::jit::output& out, const jit_type& t) {
  const iterator_node& o = *out.node();
  return o.k == kind::out_pointer && same_type(o.type, t) ? const_cast<void*>(o.pointer) : nullptr;
}

std::pair<const void*, std::size_t> input_array(const cupar::jit::iterator& in) {
  const iterator_node& i = *in.node();
  if (i.k != kind::pointer) return {nullptr, 0};
  return {i.pointer, i.type.size};
}

}  // namespace cupar::detail::jit
