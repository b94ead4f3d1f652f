// cupar: run-time operator definitions and parameters.
#include "op_definition.hpp"

#include <cupar/detail/checks.hpp>

#include <atomic>
#include <cstdlib>
#include <regex>
#include <stdexcept>
#include <string>

namespace cupar::jit::detail {
namespace {

bool is_identifier(const std::string& s) {
  static const std::regex id("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, id);
}

std::shared_ptr<op_definition> copy_of(const op_definition& d) {
  auto c = std::make_shared<op_definition>();
  c->source = d.source;
  c->named = d.named;
  c->params = d.params;
  c->preamble = d.preamble;
  c->state_bytes = d.state_bytes;
  c->level = d.level;
  return c;
}

}  // namespace

std::string op_definition::fingerprint() const {
  std::string f = "named=" + std::to_string(static_cast<int>(named)) + "\nsource=" + source +
                  "\npreamble=" + preamble + "\nparams=";
  for (const auto& p : params) {
    f += p.name + ":" + cupar::detail::scalar_name(p.type) + "@" + std::to_string(p.offset) + ";";
  }
  // Untrusted builds use other compile options and report errors differently: their own entries.
  // (Trusted keys are unchanged, so existing disk cache entries stay valid.)
  if (level == trust::untrusted) f += "\ntrust=untrusted";
  if (wide_state) f += "\nstate=wide";
  return f;
}

std::shared_ptr<const op_definition> make_op_definition(std::string source, named_op named,
                                                        trust level) {
  auto d = std::make_shared<op_definition>();
  d->source = std::move(source);
  d->named = named;
  d->level = named == named_op::none ? level : trust::trusted;  // named operators have no text
  return d;
}

std::shared_ptr<const op_definition> make_op_definition(std::string source, named_op named) {
  return make_op_definition(std::move(source), named, default_trust());
}

std::shared_ptr<const op_definition> add_op_param(const std::shared_ptr<const op_definition>& def,
                                                  std::string name, cupar::detail::scalar type,
                                                  std::size_t& offset) {
  constexpr const char* fn = "cupar::jit::op::param";
  if (!is_identifier(name)) {
    cupar::detail::throw_invalid_argument(fn, "\"" + name + "\" is not a C++ identifier");
  }
  if (name == "a" || name == "b" || name == "x" || name.rfind("cupar_", 0) == 0) {
    cupar::detail::throw_invalid_argument(
        fn, "\"" + name +
                "\" is reserved (a, b and x are the operator's arguments; cupar_* is "
                "the library's)");
  }
  if (find_op_param(*def, name) != nullptr) {
    cupar::detail::throw_invalid_argument(fn, "parameter \"" + name + "\" is already declared");
  }
  const std::size_t size = static_cast<std::size_t>(cupar::detail::scalar_size(type));
  const std::size_t at = (def->state_bytes + size - 1) / size * size;
  if (at + size > max_param_bytes) {
    cupar::detail::throw_invalid_argument(
        fn, "parameters would take more than " + std::to_string(max_param_bytes) + " bytes");
  }
  auto c = copy_of(*def);
  c->params.push_back({std::move(name), type, at});
  c->state_bytes = at + size;
  offset = at;
  return c;
}

std::shared_ptr<const op_definition> add_op_preamble(
    const std::shared_ptr<const op_definition>& def, std::string code) {
  auto c = copy_of(*def);
  if (!c->preamble.empty()) c->preamble += "\n";
  c->preamble += code;
  return c;
}

const op_param* find_op_param(const op_definition& def, std::string_view name) {
  for (const auto& p : def.params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const std::string& op_source(const op_definition& def) {
  return def.source;
}
const std::string& op_preamble(const op_definition& def) {
  return def.preamble;
}
trust op_trust(const op_definition& def) {
  return def.level;
}
named_op op_named(const op_definition& def) {
  return def.named;
}
const std::vector<op_param>& op_params(const op_definition& def) {
  return def.params;
}

}  // namespace cupar::jit::detail

namespace cupar::jit {

namespace {
std::atomic<trust>& default_trust_flag() {
  static std::atomic<trust> level{[] {
    const char* env = std::getenv("CUPAR_JIT_TRUST");
    return env != nullptr && std::string(env) == "untrusted" ? trust::untrusted : trust::trusted;
  }()};
  return level;
}
}  // namespace

void set_default_trust(trust level) noexcept {
  default_trust_flag().store(level);
}
trust default_trust() noexcept {
  return default_trust_flag().load();
}

void op::throw_unplaced() {
  throw std::logic_error(
      "cupar internal: an iterator expression's wide state was not placed in device memory "
      "before its kernels were launched");
}

void op::check_set(const detail::op_param* p, std::string_view name, cupar::detail::scalar type) {
  if (p == nullptr) {
    cupar::detail::throw_invalid_argument("cupar::jit::op::set",
                                          "no parameter \"" + std::string(name) + "\" declared");
  }
  if (p->type != type) {
    cupar::detail::throw_invalid_argument(
        "cupar::jit::op::set", "parameter \"" + std::string(name) + "\" is declared as " +
                                   cupar::detail::scalar_cxx_name(p->type) + ", not " +
                                   cupar::detail::scalar_cxx_name(type));
  }
}

}  // namespace cupar::jit
