// cupar: run-time operators. Source snippets known only at run time (a query engine, a DSL, a
// config file) are compiled with NVRTC and linked into CUB's kernels, from code built by any host
// compiler. The algorithm overloads taking a `cupar::jit::op` are declared with each family
// (reduce.hpp, scan.hpp, transform.hpp, sort.hpp, histogram.hpp) and behave exactly like the ones
// taking a C++ callable.
//
// How a call is served (docs/JIT.md has the measurements behind it):
// - Named operators (cupar::jit::plus, minimum, ...) on arithmetic types compile nothing: reduce
//   and scan run CUB instantiations precompiled in the library, less/greater sorts run the
//   library's radix sort.
// - Otherwise the kernels of the algorithm for the element types are precompiled in the library
//   (for the common types) and only the operator is compiled, then linked to them. A new operator
//   is ready in tens of milliseconds with the operator called out of line ("tier 1"); the fully
//   inlined, link-time-optimised build ("tier 2", CUB speed) is made on a background thread and
//   replaces it on a later call. With a direct-build budget (set_direct_build_budget or
//   CUPAR_JIT_DIRECT_MS, milliseconds; off by default), a new operator whose kernel set's last
//   tier-2 build in the process took at most that long gets tier 2 before its first call
//   returns, and tier 1 is skipped (stats::direct_builds). Set
//   CUPAR_JIT_MODE=optimized (or jit::set_mode) to build tier 2 synchronously always.
// - Element types without precompiled kernels (user structs, uncommon type combinations, GPUs the
//   library was not built for) compile the kernels from source once (1-3 s), then hit the caches.
// - Caches: in process (one build per operator and types, also when many threads ask at once) and
//   on disk under $CUPAR_CACHE_DIR (default $XDG_CACHE_HOME/cupar or ~/.cache/cupar);
//   CUPAR_DISABLE_DISK_CACHE=1 turns the disk cache off.
#pragma once

#include <cupar/config.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cupar::jit {

/// Operators the library knows by name. On arithmetic types they compile nothing: reduce and scan
/// with these run CUB's own precompiled instantiations (cuda::std::plus etc.), less and greater
/// sorts run the radix sort, and in the data-processing families (by-key, segmented, unique,
/// binary search) they are operators precompiled with the library and linked to the kernels.
/// Elsewhere (user structs) they stand for the obvious snippet ("a + b", "a < b", "a == b", ...).
enum class named_op : std::uint8_t {
  none,
  plus,
  multiplies,
  minimum,
  maximum,
  bit_and,
  bit_or,
  bit_xor,
  less,
  greater,
  equal_to,
  logical_and,
  logical_or,
  logical_not,  ///< unary (argument x)
  identity,     ///< unary (argument x)
};

/// Largest total size of an operator's run-time parameters, in bytes: the block passed by value
/// to every kernel.
inline constexpr std::size_t max_param_bytes = 64;

/// Largest state of an iterator expression (its pointers, start values, constants and the
/// transforms' parameters), in bytes: 128 pointers, a zip of 16 columns with room to spare. Up to
/// max_param_bytes it travels in the kernels' parameters; a wider state is written to device
/// memory on the call's stream before the call's kernels and freed after them (one extra kernel
/// of one block, and the call's memory resource), and the kernel parameters carry its address.
inline constexpr std::size_t max_expression_state_bytes = 1024;

/// How far an operator's text is trusted. A snippet is code: it runs on the GPU with the data it
/// is given and can reach any device memory of the process through a forged pointer, spin
/// forever, or fault the CUDA context (docs/RELIABILITY.md, "Trust"). What the trust level
/// changes is what the text can do on the host while it is compiled, and what errors show.
enum class trust : std::uint8_t {
  /// Text written by the application or its developers (the default). The preamble may include
  /// any header; the snippet itself may use the preprocessor but not include files.
  trusted,
  /// Text from users of the application (a query, a formula typed in a form). Checked before
  /// NVRTC runs, snippet and preamble alike: no preprocessor lines (nor `%:`, line
  /// continuations, trigraphs or universal character names that could spell one), no
  /// `_Pragma`, `asm`, raw string literals, device `printf`, `malloc`/`free`/`new`/`delete`, no
  /// non-ASCII characters outside literals and comments, balanced brackets, within the size and
  /// complexity limits. Nothing but cupar's own sources and CUDA's headers can then be read
  /// (every quoted include of the build names one of cupar's embedded sources, checked). A
  /// jit_error then quotes nothing but the snippet:
  /// log() keeps only diagnostics located in the snippet, source() is the snippet and options()
  /// is empty.
  untrusted,
};

/// The trust level of operators made from text without naming one (initially trusted, or
/// untrusted when the environment variable CUPAR_JIT_TRUST is "untrusted" at the first use).
/// Thread-safe; affects operators made afterwards. A server taking operators from its users can
/// set it once at start-up so that no operator is trusted by mistake.
CUPAR_EXPORT void set_default_trust(trust level) noexcept;
CUPAR_EXPORT trust default_trust() noexcept;

namespace detail {
struct op_definition;
struct op_param {
  std::string name;
  cupar::detail::scalar type;
  std::size_t offset;
};
CUPAR_EXPORT std::shared_ptr<const op_definition> make_op_definition(std::string source,
                                                                     named_op named);
CUPAR_EXPORT std::shared_ptr<const op_definition> make_op_definition(std::string source,
                                                                     named_op named, trust level);
CUPAR_EXPORT trust op_trust(const op_definition& def);
/// A copy of `def` with one more parameter; writes its byte offset to `offset`.
CUPAR_EXPORT std::shared_ptr<const op_definition> add_op_param(
    const std::shared_ptr<const op_definition>& def, std::string name, cupar::detail::scalar type,
    std::size_t& offset);
CUPAR_EXPORT std::shared_ptr<const op_definition> add_op_preamble(
    const std::shared_ptr<const op_definition>& def, std::string code);
/// The parameter called `name`, or null.
CUPAR_EXPORT const op_param* find_op_param(const op_definition& def, std::string_view name);
CUPAR_EXPORT const std::string& op_source(const op_definition& def);
CUPAR_EXPORT const std::string& op_preamble(const op_definition& def);
CUPAR_EXPORT named_op op_named(const op_definition& def);
CUPAR_EXPORT const std::vector<op_param>& op_params(const op_definition& def);
}  // namespace detail

/// A run-time operator: a source snippet (or a named operator) plus the values of its run-time
/// parameters. Cheap to copy. Changing a parameter's value (set) never recompiles; declaring
/// parameters or a preamble makes a different operator.
///
/// Snippet forms, with the argument names of each role:
///   binary operator (reduce, scan, binary transform): `a`, `b`  e.g. "a + b", "fmaxf(a, b)"
///   unary operator (transform, histogram sample op):   `x`       e.g. "x * s + t"
///   comparator (sorts, true when a goes before b):     `a`, `b`  e.g. "a.key < b.key"
/// or the text of a C++ lambda taking them, e.g. "[](float a, float b) { return a > b ? a : b; }".
/// The result is converted to the role's result type (the element type; bool for comparators).
/// CUDA's math functions (sinf, fmaxf, __popc, ...) need no include; `preamble` adds includes or
/// helper functions (e.g. "#include <cuda/std/cmath>").
class op {
 public:
  /// An expression or lambda text, trusted as default_trust() says (trusted unless changed).
  /// Throws nothing: mistakes are reported when the operator is first compiled, as
  /// cupar::jit_error with the compiler's log and the offending line.
  explicit op(std::string source)
      : def_(detail::make_op_definition(std::move(source), named_op::none)) {}
  /// An expression or lambda text with the given trust level (see cupar::jit::trust).
  op(std::string source, trust level)
      : def_(detail::make_op_definition(std::move(source), named_op::none, level)) {}
  /// An operator from text the application does not control: op(source, trust::untrusted).
  /// Its text, and any preamble added to it, is checked before compiling (cupar::jit::trust);
  /// text that breaks the rules gives cupar::jit_error (stage compile) when first built.
  static op untrusted(std::string source) { return op(std::move(source), trust::untrusted); }
  /// A named operator.
  explicit op(named_op named) : def_(detail::make_op_definition(std::string(), named)) {}
  /// Internal (iterator expressions): an operator of a prepared definition with its state bytes.
  /// A state wider than max_param_bytes (up to max_expression_state_bytes) is kept whole on the
  /// host until a call places its device copy (place_wide_state).
  op(std::shared_ptr<const detail::op_definition> def, const unsigned char* state,
     std::size_t bytes)
      : def_(std::move(def)) {
    if (bytes > max_param_bytes) {
      wide_ = std::make_shared<const std::vector<unsigned char>>(state, state + bytes);
    } else {
      std::memcpy(state_.data(), state, bytes);
    }
  }

  /// Declares a run-time parameter usable by name in the snippet, with its initial value. T is
  /// an arithmetic type. Throws std::invalid_argument for a bad or duplicate name or when the
  /// parameters would exceed max_param_bytes.
  template <class T>
  op& param(std::string name, T value) {
    static_assert(cupar::detail::is_scalar_v<T>,
                  "cupar::jit::op::param: parameters are arithmetic values");
    std::size_t offset = 0;
    def_ = detail::add_op_param(def_, std::move(name), cupar::detail::scalar_of<T>(), offset);
    std::memcpy(state_.data() + offset, &value, sizeof(T));
    return *this;
  }

  /// Sets a declared parameter's value (same type as declared). Takes effect at the next call
  /// using this operator object, without recompiling. Throws std::invalid_argument for an unknown
  /// name or another type.
  template <class T>
  op& set(std::string_view name, T value) {
    static_assert(cupar::detail::is_scalar_v<T>,
                  "cupar::jit::op::set: parameters are arithmetic values");
    const detail::op_param* p = detail::find_op_param(*def_, name);
    check_set(p, name, cupar::detail::scalar_of<T>());
    std::memcpy(state_.data() + p->offset, &value, sizeof(T));
    return *this;
  }

  /// Adds code placed before the operator: #include lines, helper __device__ functions. The
  /// preamble of an untrusted operator is held to the same rules as its snippet (no includes).
  op& preamble(std::string code) {
    def_ = detail::add_op_preamble(def_, std::move(code));
    return *this;
  }

  const std::string& source() const noexcept { return detail::op_source(*def_); }
  trust trust_level() const noexcept { return detail::op_trust(*def_); }
  named_op named() const noexcept { return detail::op_named(*def_); }
  bool is_named() const noexcept { return named() != named_op::none; }
  const std::vector<detail::op_param>& params() const noexcept { return detail::op_params(*def_); }

  /// The parameter bytes as the kernels receive them. Internal: for an operator with a wide
  /// state, they hold the address of its device copy, which the call places first; throws
  /// std::logic_error before that.
  const unsigned char* state() const {
    if (wide_ && !placed_) throw_unplaced();
    return state_.data();
  }
  /// Internal (iterator expressions): the whole state of an operator whose state is wider than
  /// max_param_bytes, else null.
  const std::vector<unsigned char>* wide_state() const noexcept { return wide_.get(); }
  /// Internal: the device copy of the wide state, for the kernels' parameter bytes.
  void place_wide_state(const void* device) noexcept {
    std::memcpy(state_.data(), &device, sizeof(device));
    placed_ = true;
  }
  const std::shared_ptr<const detail::op_definition>& definition() const noexcept { return def_; }

 private:
  CUPAR_EXPORT static void check_set(const detail::op_param* p, std::string_view name,
                                     cupar::detail::scalar type);
  [[noreturn]] CUPAR_EXPORT static void throw_unplaced();

  std::shared_ptr<const detail::op_definition> def_;
  alignas(16) std::array<unsigned char, max_param_bytes> state_{};
  std::shared_ptr<const std::vector<unsigned char>> wide_;
  bool placed_ = false;
};

inline const op plus{named_op::plus};
inline const op multiplies{named_op::multiplies};
inline const op minimum{named_op::minimum};
inline const op maximum{named_op::maximum};
inline const op bit_and{named_op::bit_and};
inline const op bit_or{named_op::bit_or};
inline const op bit_xor{named_op::bit_xor};
inline const op less{named_op::less};
inline const op greater{named_op::greater};
inline const op equal_to{named_op::equal_to};
/// a && b, a || b: on bools (or anything that converts to bool, the result a bool).
inline const op logical_and{named_op::logical_and};
inline const op logical_or{named_op::logical_or};
/// !x and x: unary operators (transforms, predicates, the transform of an iterator expression).
inline const op logical_not{named_op::logical_not};
inline const op identity{named_op::identity};

/// Device-side description of a user type used as a JIT element type. Specialise it (or use
/// CUPAR_JIT_TYPE) for each trivially copyable struct passed to an algorithm with a run-time
/// operator: `name` is the type's name in `definition`, which is C++ source NVRTC compiles. The
/// library checks at compile time that the device type has the host type's size and alignment.
template <class T>
struct type_source;

/// Describes a host type for the JIT, at global namespace scope:
///   struct point { float x, y; };
///   CUPAR_JIT_TYPE(point, "point", "struct point { float x, y; };")
#define CUPAR_JIT_TYPE(Type, DeviceName, Definition)      \
  namespace cupar::jit {                                  \
  template <>                                             \
  struct type_source<Type> {                              \
    static constexpr const char* name = DeviceName;       \
    static constexpr const char* definition = Definition; \
  };                                                      \
  }

/// As CUPAR_JIT_TYPE, for a type the size and alignment of an unsigned integer (1, 2, 4 or 8
/// bytes) whose values the kernels may move as that integer: it is served by the precompiled sets
/// of that integer (a new operator on it is linked in tens of milliseconds, not compiled with the
/// kernels), its operators' wrappers converting the bits. cupar declares bool here and __half and
/// __nv_bfloat16 in <cupar/half.hpp>.
#define CUPAR_JIT_WORD_TYPE(Type, DeviceName, Definition) \
  namespace cupar::jit {                                  \
  template <>                                             \
  struct type_source<Type> {                              \
    static constexpr const char* name = DeviceName;       \
    static constexpr const char* definition = Definition; \
    static constexpr bool word = true;                    \
  };                                                      \
  }

/// Defines a struct for the host and describes the same definition for the JIT, at global scope:
///   CUPAR_JIT_STRUCT(point, float x; float y;)
#define CUPAR_JIT_STRUCT(Name, ...) \
  struct Name {                     \
    __VA_ARGS__                     \
  };                                \
  CUPAR_JIT_TYPE(Name, #Name, "struct " #Name " { " #__VA_ARGS__ " };")

/// How operators are built; see the top of this header. The environment variable
/// CUPAR_JIT_MODE (tiered | optimized (or optimised) | fast) sets the initial mode; any other
/// value is taken as tiered.
enum class mode {
  tiered,     ///< quick out-of-line build first, inlined build in the background; the inlined
              ///< one at once within set_direct_build_budget's budget, if set (default)
  optimized,  ///< build the inlined (LTO) version before the first call returns
  fast,       ///< never make the inlined version (testing, debugging)
};
CUPAR_EXPORT void set_mode(mode m) noexcept;
CUPAR_EXPORT mode get_mode() noexcept;

/// Direct optimised builds (tiered mode): a new operator whose kernel set's last optimised build
/// in this process took at most `milliseconds` gets the optimised (inlined) build before its
/// first call returns, on the calling thread, instead of the quick build and a background one
/// (stats::direct_builds counts them). 0 turns them off: the default, since a build that repeats
/// an earlier one's code is served from the driver's cache and says little about a distinct
/// operator's (docs/JIT.md, "The optimised build at once"). The initial value comes from the
/// environment variable CUPAR_JIT_DIRECT_MS (a number >= 0; anything else means 0). Takes effect
/// at the next new build; builds already made keep theirs. Synchronises nothing.
/// Throws std::invalid_argument for a negative, infinite or NaN budget (nothing changes).
CUPAR_EXPORT void set_direct_build_budget(double milliseconds);
/// The budget in milliseconds; 0 when direct builds are off.
CUPAR_EXPORT double get_direct_build_budget() noexcept;

/// Blocks until every background (tier-2) build queued before the call has finished and been
/// loaded (builds other threads queue meanwhile are not waited for). Calls made after it returns
/// use the optimised kernels of the operators built before it. The builds run on a pool of
/// threads: `CUPAR_JIT_BUILD_THREADS` (1 to 64) threads, by default a quarter of the cores, 1 to 4.
CUPAR_EXPORT void wait_for_background_builds();

/// Counters of the JIT engine since the process started (for tests and diagnostics).
struct stats {
  std::uint64_t operator_compiles = 0;  ///< NVRTC compiles of an operator alone
  std::uint64_t kernel_compiles = 0;    ///< NVRTC compiles of kernel source (no precompiled set)
  /// nvJitLink links; an optimised build linked kernel by kernel (its kernels in parallel, see
  /// `kernel_links`) counts as many as its kernels' attempts at most (one without occupancy
  /// targets), as if linked whole
  std::uint64_t links = 0;
  std::uint64_t loads = 0;                ///< binaries loaded into the driver
  std::uint64_t memory_hits = 0;          ///< calls served by the in-process cache
  std::uint64_t disk_hits = 0;            ///< builds served by the disk cache
  std::uint64_t disk_writes = 0;          ///< entries written to the disk cache
  std::uint64_t disk_rejects = 0;         ///< disk entries found corrupt or foreign, rebuilt
  std::uint64_t background_builds = 0;    ///< tier-2 builds finished in the background
  std::uint64_t background_failures = 0;  ///< tier-2 builds that failed (tier 1 keeps serving)
  std::uint64_t background_skipped = 0;   ///< tier-2 builds dropped: retired by
                                          ///< clear_memory_cache before they began, no plan
                                          ///< holding them
  /// Calls that switched to a finished tier-2 build (each build is picked up once, by the first
  /// call after it is ready; it was loaded in the background unless `loads` grew in that call).
  std::uint64_t upgrades = 0;
  /// New operators given the optimised (inlined) build before their first call returned in
  /// tiered mode, because their kernel set's last optimised build in this process took at most
  /// set_direct_build_budget's milliseconds (0, the default: never): no out-of-line build, no
  /// switch.
  std::uint64_t direct_builds = 0;
  /// Optimised builds on precompiled kernels (background and direct), and the milliseconds they
  /// took in all (the operator's compile and the link-time-optimised link, not the load).
  std::uint64_t optimized_builds = 0;
  double optimized_build_ms = 0;
  /// Iterator expressions (jit_iterator.hpp) whose device code was generated before for their
  /// shape: the call only filled in their pointers, values and parameters.
  std::uint64_t expression_code_reuses = 0;
  /// nvJitLink links of one kernel each: optimised builds link a set's kernels one by one on
  /// threads of their own, each kernel a module of its own (`CUPAR_JIT_SPLIT_LINKS=0`: the set in
  /// one link, as before; docs/JIT.md, "Where a tier-2 link's time goes").
  std::uint64_t kernel_links = 0;
  /// Out-of-line (tier-1) builds made for calls (a new operator's first call in the tiered and
  /// fast modes; compile-only builds do not count), and where their time went, in milliseconds
  /// in all: the operator's NVRTC compile, the link to the precompiled kernels, the driver's
  /// load, and the time the calls then spent handing the optimised build to the background pool
  /// (where a process's first tiered call waits for the pool's warm-up when its own build did
  /// not stand in for it: docs/JIT.md, "Tiered by default"). What a first call costs besides
  /// these is its kernels' first launch and run.
  std::uint64_t quick_builds = 0;
  double quick_compile_ms = 0, quick_link_ms = 0, quick_load_ms = 0, quick_pool_wait_ms = 0;
  /// Quick builds linked with LTO in place of the pool's warm-up (a process's first tiered call
  /// that compiles an operator: its operator as LTO-IR, the kernels as the cubin); one a process,
  /// or a few where several threads make their first calls at once. 0 after such a call means
  /// that build failed and the usual one served (the call then waited for the warm-up).
  std::uint64_t quick_lto_links = 0;
};
CUPAR_EXPORT stats get_stats() noexcept;

/// Forgets everything built in this process (loaded binaries stay valid for calls in flight, and
/// plans keep theirs). Background builds not yet begun for what it forgot are dropped unless a
/// plan holds it. The disk cache is kept. The forgotten builds stay loaded until the process
/// ends (a kernel launched from one may still be running), so a program that calls this in a
/// loop grows by their size.
CUPAR_EXPORT void clear_memory_cache();

/// The disk cache directory in use, or empty when the disk cache is off.
CUPAR_EXPORT std::string cache_directory();

/// What a compile-only build produced (see compile_*): no GPU is needed to make it.
struct build_report {
  int arch = 0;                      ///< e.g. 90
  bool precompiled_kernels = false;  ///< kernels came precompiled; only the operator compiled
  std::size_t cubin_bytes = 0;       ///< size of the linked binary
  std::vector<std::string> kernels;  ///< entry points in it
  int tier = 0;                      ///< 1: operator called out of line; 2: inlined
  /// Linked with an occupancy target (scans and reduces of 4- and 8-byte elements: 64 registers a
  /// thread for scans, 32 for reduce; partitions of 4-byte items on sm_90: 48; three-way
  /// partitions of 4-byte items on sm_90: a -maxrregcount list that the sweep kernel's launch
  /// bounds override, so it keeps its 128 registers); false when the operator needs more (the
  /// kernels were then linked without that target) and for every other build.
  bool register_capped = false;
  double compile_ms = 0, link_ms = 0;
  /// The kernel set that served the build, e.g. "reduce<f32>", "select_if<u32>" (data-processing
  /// sets are named by size class), "reduce_by_key<u32,f32>+plus" (the named plus compiled in).
  std::string kernel_set;
};

}  // namespace cupar::jit

// bool as an element type: a word type, served by the u8 sets (the wrappers convert the bytes to
// bool for the snippet and its bool result back, so `a + b` on bools is true + true = true, as in
// C++).
CUPAR_JIT_WORD_TYPE(bool, "bool", "")
