// cupar::dist: communicators, the start of every call, and the exchanges (NCCL).
//
// Every communicator cupar makes is non-blocking (ncclConfig_t::blocking = 0): NCCL calls return
// at once (ncclInProgress while they complete in the background) and cupar polls their state, so
// that a wait can end with a timeout, and abort() from another thread (run_on_ranks) can end a
// call that waits for a rank that will never come.
#include <cupar/detail/cuda_check.hpp>
#include <cupar/dist/communicator.hpp>
#include <cupar/dist/detail/runtime.hpp>

#include <cuda_runtime_api.h>

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cupar::dist {
namespace detail {

/// What a communicator is. Shared by the communicator object and the group of local() ones.
struct local_group;

struct comm_state {
  ncclComm_t comm = nullptr;
  bool owned = false;
  int rank = 0;
  int size = 1;
  int device = 0;
  config cfg;
  std::atomic<bool> aborted{false};
  std::mutex m;  // held around every NCCL call on `comm`, and by abort()
  std::uint64_t sequence = 0;
  std::shared_ptr<local_group> group;  // the communicators made together by local()
  // Pinned host memory for the values read back (a copy to pageable memory would block the
  // thread until the stream gets there, out of reach of the timeout).
  void* pinned = nullptr;
  std::size_t pinned_bytes = 0;
  ~comm_state();
};

void communicator_abort(comm_state& st) noexcept;

namespace {

using clock = std::chrono::steady_clock;

[[noreturn]] void throw_nccl(comm_state* st, ncclResult_t r, const char* call) {
  std::string what = std::string("cupar::dist: ") + call + " failed: " + ncclGetErrorString(r);
  if (st != nullptr && st->comm != nullptr && !st->aborted.load()) {
    const char* last = ncclGetLastError(st->comm);
    if (last != nullptr && *last != '\0') what += std::string(" (") + last + ")";
  }
  throw nccl_error(static_cast<int>(r), what);
}

/// Makes `device` current for a scope.
class device_scope {
 public:
  explicit device_scope(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      (void)cudaGetLastError();
      previous_ = -1;
    }
    if (previous_ != device) {
      ::cupar::detail::check_cuda(cudaSetDevice(device), "cudaSetDevice");
    } else {
      previous_ = -1;
    }
  }
  ~device_scope() {
    if (previous_ >= 0 && cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = -1;
};

bool expired(const comm_state& st, clock::time_point start) {
  return st.cfg.timeout.count() > 0 && clock::now() - start > st.cfg.timeout;
}

/// A short pause between polls: spins first, then yields, then sleeps.
void pause_poll(int& round) {
  ++round;
  if (round < 64) return;
  if (round < 512) {
    std::this_thread::yield();
    return;
  }
  std::this_thread::sleep_for(std::chrono::microseconds(round < 4096 ? 20 : 200));
}

[[noreturn]] void timeout(comm_state& st, const char* what) {
  const std::string message =
      std::string("cupar::dist: ") + what + " on rank " + std::to_string(st.rank) + " of " +
      std::to_string(st.size) + " did not complete within " +
      std::to_string(st.cfg.timeout.count()) +
      " ms (a rank died, hangs or did not make the same call); the communicator is aborted";
  communicator_abort(st);
  throw timeout_error(message);
}

}  // namespace

void communicator_abort(comm_state& st) noexcept {
  if (st.aborted.exchange(true)) return;
  std::lock_guard<std::mutex> lock(st.m);
  if (st.comm != nullptr && st.owned) {
    (void)ncclCommAbort(st.comm);
    st.comm = nullptr;
  }
}

namespace {

[[noreturn]] void throw_aborted(const comm_state& st, const char* what) {
  throw aborted_error(std::string(what) + ": the communicator of rank " + std::to_string(st.rank) +
                      " was aborted");
}

/// Polls the communicator's state until the operation in progress on it is queued (non-blocking
/// communicators answer ncclInProgress until then), honouring timeout and abort.
void poll_until_done(comm_state& st, clock::time_point start, const char* what) {
  int round = 0;
  for (;;) {
    ncclResult_t state = ncclSuccess;
    {
      std::lock_guard<std::mutex> lock(st.m);
      if (st.aborted.load() || st.comm == nullptr) throw_aborted(st, what);
      const ncclResult_t q = ncclCommGetAsyncError(st.comm, &state);
      if (q != ncclSuccess) state = q;
    }
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) throw_nccl(&st, state, what);
    if (expired(st, start)) timeout(st, what);
    pause_poll(round);
  }
}

/// Runs an NCCL call (under the communicator's lock), then waits until it is queued.
template <class F>
void nccl_call(comm_state& st, const char* what, F&& f) {
  ncclResult_t r;
  {
    std::lock_guard<std::mutex> lock(st.m);
    if (st.aborted.load() || st.comm == nullptr) throw_aborted(st, what);
    r = f(st.comm);
  }
  if (r == ncclSuccess) return;
  if (r != ncclInProgress) throw_nccl(&st, r, what);
  poll_until_done(st, clock::now(), what);
}

/// Waits for `stream`, honouring the communicator's timeout, abort and asynchronous errors.
void wait_stream(comm_state& st, cudaStream_t stream, const char* what) {
  const auto start = clock::now();
  int round = 0;
  for (;;) {
    const cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) ::cupar::detail::check_cuda(e, what);
    if (st.aborted.load()) throw_aborted(st, what);
    if ((round & 63) == 0) {
      ncclResult_t state = ncclSuccess;
      {
        std::lock_guard<std::mutex> lock(st.m);
        if (st.aborted.load() || st.comm == nullptr) throw_aborted(st, what);
        if (ncclCommGetAsyncError(st.comm, &state) != ncclSuccess) state = ncclSuccess;
      }
      if (state != ncclSuccess && state != ncclInProgress) {
        communicator_abort(st);
        throw_nccl(nullptr, state, what);
      }
    }
    if (expired(st, start)) timeout(st, what);
    pause_poll(round);
  }
}

ncclConfig_t make_config() {
  ncclConfig_t c = NCCL_CONFIG_INITIALIZER;
  c.blocking = 0;
  return c;
}

/// Finalises and destroys an owned communicator; aborts it when finalising fails or passes the
/// timeout (a dead rank).
void destroy(comm_state& st) noexcept {
  if (st.comm == nullptr || !st.owned || st.aborted.load()) return;
  try {
    const device_scope on(st.device);
    ncclResult_t r = ncclCommFinalize(st.comm);
    const auto start = clock::now();
    int round = 0;
    while (r == ncclInProgress || r == ncclSuccess) {
      ncclResult_t state = ncclSuccess;
      if (ncclCommGetAsyncError(st.comm, &state) != ncclSuccess) break;
      if (state == ncclSuccess) {
        (void)ncclCommDestroy(st.comm);
        st.comm = nullptr;
        return;
      }
      if (state != ncclInProgress) break;
      if (expired(st, start)) break;
      pause_poll(round);
      r = ncclInProgress;
    }
  } catch (...) {
  }
  if (st.comm != nullptr) {
    (void)ncclCommAbort(st.comm);
    st.comm = nullptr;
  }
}

}  // namespace

/// The communicators local() made: NCCL's destruction is collective among the ranks of a node, so
/// they are destroyed together, on one thread each, when the last of them is released.
struct local_group {
  std::mutex m;
  std::vector<std::shared_ptr<comm_state>> members;  // cleared when they are destroyed
  int live = 0;
};

comm_state::~comm_state() {
  if (pinned != nullptr && cudaFreeHost(pinned) != cudaSuccess) (void)cudaGetLastError();
}

namespace {

void release(const std::shared_ptr<comm_state>& st) noexcept {
  if (!st) return;
  if (!st->group) {
    destroy(*st);
    return;
  }
  std::vector<std::shared_ptr<comm_state>> all;
  {
    std::lock_guard<std::mutex> lock(st->group->m);
    if (--st->group->live > 0) return;  // the last one destroys them all
    all.swap(st->group->members);       // and breaks the group's cycle of ownership
  }
  // When one of them was aborted, the others' finalisation would wait for it: abort them all.
  bool any_aborted = false;
  for (auto& c : all)
    any_aborted = any_aborted || c->aborted.load();
  if (any_aborted) {
    for (auto& c : all)
      communicator_abort(*c);
    return;
  }
  std::vector<std::thread> threads;
  for (auto& x : all) {
    comm_state* c = x.get();
    try {
      threads.emplace_back([c] { destroy(*c); });
    } catch (...) {
      destroy(*c);
    }
  }
  for (auto& t : threads)
    t.join();
}

}  // namespace
}  // namespace detail

// ---- unique_id ---------------------------------------------------------------------------------

unique_id unique_id::create() {
  ncclUniqueId id;
  const ncclResult_t r = ncclGetUniqueId(&id);
  if (r != ncclSuccess) detail::throw_nccl(nullptr, r, "ncclGetUniqueId");
  unique_id u;
  static_assert(sizeof(id.internal) == 128, "ncclUniqueId is 128 bytes");
  std::memcpy(u.bytes_.data(), id.internal, 128);
  return u;
}

unique_id unique_id::from_bytes(const void* data, std::size_t size) {
  if (size != 128 || data == nullptr) {
    throw std::invalid_argument("cupar::dist::unique_id::from_bytes: an id is 128 bytes, got " +
                                std::to_string(size));
  }
  unique_id u;
  std::memcpy(u.bytes_.data(), data, 128);
  return u;
}

std::string unique_id::to_hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(256);
  for (unsigned char b : bytes_) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 15]);
  }
  return s;
}

unique_id unique_id::from_hex(std::string_view hex) {
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r' || hex.back() == ' '))
    hex.remove_suffix(1);
  if (hex.size() != 256) {
    throw std::invalid_argument(
        "cupar::dist::unique_id::from_hex: an id is 256 hexadecimal digits, got " +
        std::to_string(hex.size()) + " characters");
  }
  auto value = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument("cupar::dist::unique_id::from_hex: not a hexadecimal digit");
  };
  unique_id u;
  for (std::size_t i = 0; i < 128; ++i)
    u.bytes_[i] = static_cast<unsigned char>(value(hex[2 * i]) * 16 + value(hex[2 * i + 1]));
  return u;
}

ncclUniqueId unique_id::nccl() const noexcept {
  ncclUniqueId id;
  std::memcpy(id.internal, bytes_.data(), 128);
  return id;
}

unique_id unique_id::exchange_via_file(const std::string& path, int rank,
                                       std::chrono::milliseconds timeout) {
  if (rank < 0) {
    throw std::invalid_argument("cupar::dist::unique_id::exchange_via_file: rank " +
                                std::to_string(rank) + " is negative");
  }
  if (rank == 0) {
    const unique_id id = create();
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << id.to_hex() << "\n";
      if (!out.flush()) {
        throw ::cupar::error("cupar::dist::unique_id::exchange_via_file: cannot write " + tmp);
      }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      throw ::cupar::error("cupar::dist::unique_id::exchange_via_file: cannot rename " + tmp +
                           " to " + path);
    }
    return id;
  }
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    std::ifstream in(path);
    if (in) {
      std::string hex;
      std::getline(in, hex);
      return from_hex(hex);
    }
    if (std::chrono::steady_clock::now() - start > timeout) {
      throw timeout_error("cupar::dist::unique_id::exchange_via_file: " + path +
                          " did not appear within " + std::to_string(timeout.count()) +
                          " ms (rank 0 writes it)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

namespace {

constexpr char id_magic[8] = {'C', 'U', 'P', 'A', 'R', 'I', 'D', '1'};

/// A socket closed on scope exit.
struct socket_fd {
  int fd = -1;
  socket_fd() = default;
  explicit socket_fd(int f) : fd(f) {}
  socket_fd(const socket_fd&) = delete;
  socket_fd& operator=(const socket_fd&) = delete;
  ~socket_fd() {
    if (fd >= 0) ::close(fd);
  }
};

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() > 0 ? static_cast<int>(std::min<long long>(left.count(), 1 << 30)) : 0;
}

/// Sends or receives exactly `n` bytes before the deadline.
bool transfer(int fd, void* data, std::size_t n, bool sending,
              std::chrono::steady_clock::time_point deadline) {
  auto* p = static_cast<unsigned char*>(data);
  while (n > 0) {
    pollfd w{fd, static_cast<short>(sending ? POLLOUT : POLLIN), 0};
    if (::poll(&w, 1, remaining_ms(deadline)) <= 0) return false;
    const ssize_t k = sending ? ::send(fd, p, n, MSG_NOSIGNAL) : ::recv(fd, p, n, 0);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

addrinfo* resolve_address(const std::string& host, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &res) != 0 || res == nullptr) {
    throw std::invalid_argument("cupar::dist::unique_id::exchange_via_socket: cannot resolve " +
                                host);
  }
  return res;
}

}  // namespace

unique_id unique_id::exchange_via_socket(const std::string& host, int port, int rank, int size,
                                         std::chrono::milliseconds timeout) {
  constexpr const char* fn = "cupar::dist::unique_id::exchange_via_socket";
  if (size < 1 || rank < 0 || rank >= size) {
    throw std::invalid_argument(std::string(fn) + ": rank " + std::to_string(rank) +
                                " is not in [0, " + std::to_string(size) + ")");
  }
  if (port <= 0 || port > 65535) {
    throw std::invalid_argument(std::string(fn) + ": port " + std::to_string(port) +
                                " is not in [1, 65535]");
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  addrinfo* res = resolve_address(host, port, rank == 0);
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> addresses(res, ::freeaddrinfo);
  if (rank == 0) {
    const unique_id id = create();
    socket_fd server(::socket(res->ai_family, res->ai_socktype, res->ai_protocol));
    const int yes = 1;
    if (server.fd < 0 || ::setsockopt(server.fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) != 0 ||
        ::bind(server.fd, res->ai_addr, res->ai_addrlen) != 0 || ::listen(server.fd, 128) != 0) {
      throw ::cupar::error(std::string(fn) + ": cannot listen on " + host + ":" +
                           std::to_string(port) + " (" + std::strerror(errno) + ")");
    }
    for (int served = 1; served < size; ++served) {
      pollfd w{server.fd, POLLIN, 0};
      if (::poll(&w, 1, remaining_ms(deadline)) <= 0) {
        throw timeout_error(std::string(fn) + ": " + std::to_string(size - served) + " of " +
                            std::to_string(size - 1) + " ranks did not connect to " + host + ":" +
                            std::to_string(port) + " within " + std::to_string(timeout.count()) +
                            " ms");
      }
      socket_fd client(::accept(server.fd, nullptr, nullptr));
      if (client.fd < 0) {
        --served;  // a failed accept: wait for the next connection
        continue;
      }
      unsigned char message[sizeof id_magic + 128];
      std::memcpy(message, id_magic, sizeof id_magic);
      std::memcpy(message + sizeof id_magic, id.bytes().data(), 128);
      if (!transfer(client.fd, message, sizeof message, true, deadline)) --served;
    }
    return id;
  }
  // The other ranks: connect (rank 0 may not listen yet: retry), then read the id.
  for (;;) {
    for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
      socket_fd c(::socket(a->ai_family, a->ai_socktype, a->ai_protocol));
      if (c.fd < 0 || ::connect(c.fd, a->ai_addr, a->ai_addrlen) != 0) continue;
      unsigned char message[sizeof id_magic + 128];
      if (transfer(c.fd, message, sizeof message, false, deadline) &&
          std::memcmp(message, id_magic, sizeof id_magic) == 0) {
        return from_bytes(message + sizeof id_magic, 128);
      }
    }
    if (remaining_ms(deadline) == 0) {
      throw timeout_error(std::string(fn) + ": no rank 0 answered on " + host + ":" +
                          std::to_string(port) + " within " + std::to_string(timeout.count()) +
                          " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// ---- communicator ------------------------------------------------------------------------------

communicator::communicator(std::shared_ptr<detail::comm_state> s) noexcept : state_(std::move(s)) {}

namespace {
/// The number of visible GPUs (0 when CUDA cannot tell: no driver, no device).
int visible_devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}
}  // namespace

communicator::communicator(const unique_id& id, int size, int rank, int device, config cfg) {
  constexpr const char* fn = "cupar::dist::communicator";
  if (size < 1 || rank < 0 || rank >= size) {
    throw std::invalid_argument(std::string(fn) + ": rank " + std::to_string(rank) +
                                " is not in [0, " + std::to_string(size) + ")");
  }
  const int devices = visible_devices();
  if (device < 0 || device >= devices) {
    throw std::invalid_argument(std::string(fn) + ": device " + std::to_string(device) +
                                " does not exist (" + std::to_string(devices) + " visible)");
  }
  auto st = std::make_shared<detail::comm_state>();
  st->owned = true;
  st->rank = rank;
  st->size = size;
  st->device = device;
  st->cfg = cfg;
  {
    const detail::device_scope on(device);
    ncclConfig_t c = detail::make_config();
    const auto start = detail::clock::now();
    const ncclResult_t r = ncclCommInitRankConfig(&st->comm, size, id.nccl(), rank, &c);
    if (r != ncclSuccess && r != ncclInProgress) {
      if (st->comm != nullptr) (void)ncclCommAbort(st->comm);
      st->comm = nullptr;
      detail::throw_nccl(nullptr, r, "ncclCommInitRankConfig");
    }
    try {
      detail::poll_until_done(*st, start, "ncclCommInitRankConfig");
    } catch (...) {
      detail::communicator_abort(*st);
      throw;
    }
  }
  state_ = std::move(st);
}

std::vector<communicator> communicator::local(std::vector<int> devices, config cfg) {
  constexpr const char* fn = "cupar::dist::communicator::local";
  const int count = visible_devices();
  if (devices.empty()) {
    for (int d = 0; d < count; ++d)
      devices.push_back(d);
  }
  if (devices.empty()) throw std::invalid_argument(std::string(fn) + ": no GPU is visible");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || devices[i] >= count) {
      throw std::invalid_argument(std::string(fn) + ": device " + std::to_string(devices[i]) +
                                  " does not exist (" + std::to_string(count) + " visible)");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (devices[j] == devices[i]) {
        throw std::invalid_argument(std::string(fn) + ": device " + std::to_string(devices[i]) +
                                    " is listed twice");
      }
    }
  }
  const int size = static_cast<int>(devices.size());
  const unique_id id = unique_id::create();
  auto group = std::make_shared<detail::local_group>();
  std::vector<std::shared_ptr<detail::comm_state>> states;
  for (int r = 0; r < size; ++r) {
    auto st = std::make_shared<detail::comm_state>();
    st->owned = true;
    st->rank = r;
    st->size = size;
    st->device = devices[static_cast<std::size_t>(r)];
    st->cfg = cfg;
    st->group = group;
    states.push_back(st);
  }
  int previous = 0;
  ::cupar::detail::check_cuda(cudaGetDevice(&previous), "cudaGetDevice");
  const auto start = detail::clock::now();
  // One thread makes every rank: the initialisations must be one NCCL group.
  ncclResult_t r = ncclGroupStart();
  if (r != ncclSuccess) detail::throw_nccl(nullptr, r, "ncclGroupStart");
  ncclResult_t first_error = ncclSuccess;
  for (int i = 0; i < size; ++i) {
    auto& st = *states[static_cast<std::size_t>(i)];
    if (cudaSetDevice(st.device) != cudaSuccess) (void)cudaGetLastError();
    ncclConfig_t c = detail::make_config();
    const ncclResult_t e = ncclCommInitRankConfig(&st.comm, size, id.nccl(), i, &c);
    if (e != ncclSuccess && e != ncclInProgress && first_error == ncclSuccess) first_error = e;
  }
  r = ncclGroupEnd();
  if (cudaSetDevice(previous) != cudaSuccess) (void)cudaGetLastError();
  if (first_error == ncclSuccess && r != ncclSuccess && r != ncclInProgress) first_error = r;
  if (first_error != ncclSuccess) {
    for (auto& st : states) {
      if (st->comm != nullptr) (void)ncclCommAbort(st->comm);
      st->comm = nullptr;
    }
    detail::throw_nccl(nullptr, first_error, "ncclCommInitRankConfig (local)");
  }
  try {
    for (auto& st : states)
      detail::poll_until_done(*st, start, "ncclCommInitRankConfig (local)");
  } catch (...) {
    for (auto& st : states)
      detail::communicator_abort(*st);
    throw;
  }
  std::vector<communicator> out;
  {
    std::lock_guard<std::mutex> lock(group->m);
    for (auto& st : states) {
      group->members.push_back(st);
      ++group->live;
    }
  }
  for (auto& st : states)
    out.push_back(communicator(st));
  return out;
}

communicator communicator::wrap(ncclComm_t comm, config cfg) {
  if (comm == nullptr) {
    throw std::invalid_argument("cupar::dist::communicator::wrap: the NCCL communicator is null");
  }
  auto st = std::make_shared<detail::comm_state>();
  st->comm = comm;
  st->owned = false;
  st->cfg = cfg;
  ncclResult_t r = ncclCommCount(comm, &st->size);
  if (r == ncclSuccess) r = ncclCommUserRank(comm, &st->rank);
  if (r == ncclSuccess) r = ncclCommCuDevice(comm, &st->device);
  if (r != ncclSuccess) detail::throw_nccl(nullptr, r, "ncclCommCount / UserRank / CuDevice");
  return communicator(st);
}

communicator::communicator(communicator&& o) noexcept = default;

communicator& communicator::operator=(communicator&& o) noexcept {
  if (this != &o) {
    detail::release(state_);
    state_ = std::move(o.state_);
  }
  return *this;
}

communicator::~communicator() {
  detail::release(state_);
}

int communicator::rank() const noexcept {
  return state_ ? state_->rank : -1;
}
int communicator::size() const noexcept {
  return state_ ? state_->size : 0;
}
int communicator::device() const noexcept {
  return state_ ? state_->device : -1;
}
ncclComm_t communicator::get() const noexcept {
  return state_ ? state_->comm : nullptr;
}
const config& communicator::settings() const noexcept {
  static const config none{};
  return state_ ? state_->cfg : none;
}
void communicator::abort() noexcept {
  if (state_) detail::communicator_abort(*state_);
}
bool communicator::aborted() const noexcept {
  return state_ && state_->aborted.load();
}

void communicator::synchronize(stream_ref stream) const {
  if (!state_) throw std::invalid_argument("cupar::dist::communicator::synchronize: moved-from");
  detail::wait_stream(*state_, stream.get(), "cupar::dist::communicator::synchronize");
}

void run_on_ranks(std::vector<communicator>& comms, const std::function<void(communicator&)>& fn) {
  std::vector<std::exception_ptr> errors(comms.size());
  std::vector<std::thread> threads;
  threads.reserve(comms.size());
  for (std::size_t i = 0; i < comms.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        ::cupar::detail::check_cuda(cudaSetDevice(comms[i].device()), "cudaSetDevice");
        fn(comms[i]);
      } catch (...) {
        errors[i] = std::current_exception();
        // The others may wait for this rank in a collective: end their calls.
        for (auto& c : comms)
          c.abort();
      }
    });
  }
  for (auto& t : threads)
    t.join();
  // The first failure by rank that is not just the consequence of another's (an abort).
  std::exception_ptr first;
  for (auto& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const aborted_error&) {
      if (!first) first = e;
      continue;
    } catch (...) {
    }
    std::rethrow_exception(e);
  }
  if (first) std::rethrow_exception(first);
}

int nccl_version() {
  int v = 0;
  const ncclResult_t r = ncclGetVersion(&v);
  if (r != ncclSuccess) detail::throw_nccl(nullptr, r, "ncclGetVersion");
  return v;
}

// ---- calls -------------------------------------------------------------------------------------

namespace detail {
namespace {

comm_state& state_of(const communicator& comm) {
  if (!comm.state()) throw std::invalid_argument("cupar::dist: a moved-from communicator");
  return *comm.state();
}

/// The header every rank sends at the start of a call: fixed size, so that ranks making
/// different calls still exchange the same number of bytes.
struct wire_header {
  std::uint64_t magic;
  std::uint64_t sequence;
  std::uint32_t kind;
  std::uint32_t sizes[3];
  std::uint32_t flags;
  std::uint32_t failed;
  std::uint64_t op_hash;
  std::uint64_t n;
  std::uint64_t aux;
  std::uint64_t payload_bytes;
  char function[64];
  char message[256];
  unsigned char payload[128];  // small payloads travel with the header
};
constexpr std::uint64_t wire_magic = 0x6375706172447374ull;  // "cuparDst"
constexpr std::size_t inline_payload = sizeof(wire_header::payload);

void copy_text(char* dst, std::size_t cap, const std::string& s) {
  const std::size_t k = std::min(cap - 1, s.size());
  std::memcpy(dst, s.data(), k);
  dst[k] = '\0';
}

std::string message_of(const std::exception_ptr& e) {
  if (!e) return std::string();
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception";
  }
}

std::string describe(const wire_header& h) {
  std::ostringstream o;
  o << std::string(h.function, strnlen(h.function, sizeof h.function)) << " (call #" << h.sequence
    << ", element sizes " << h.sizes[0] << "/" << h.sizes[1] << "/" << h.sizes[2] << ", flags "
    << h.flags << ", operator " << std::hex << h.op_hash << std::dec << ")";
  return o.str();
}

bool same_call(const wire_header& a, const wire_header& b) {
  return a.magic == b.magic && a.sequence == b.sequence && a.kind == b.kind &&
         std::memcmp(a.sizes, b.sizes, sizeof a.sizes) == 0 && a.flags == b.flags &&
         a.op_hash == b.op_hash && a.payload_bytes == b.payload_bytes &&
         std::strncmp(a.function, b.function, sizeof a.function) == 0;
}

/// The communicator's pinned staging memory, at least `bytes`.
void* staging(comm_state& st, std::size_t bytes) {
  if (bytes > st.pinned_bytes) {
    if (st.pinned != nullptr && cudaFreeHost(st.pinned) != cudaSuccess) (void)cudaGetLastError();
    st.pinned = nullptr;
    st.pinned_bytes = 0;
    const std::size_t want = std::max<std::size_t>(bytes, 64 * 1024);
    ::cupar::detail::check_cuda(cudaMallocHost(&st.pinned, want), "cudaMallocHost");
    st.pinned_bytes = want;
  }
  return st.pinned;
}

/// Copies `bytes` of device memory to `host` after the work queued on `s`, waiting with the
/// communicator's timeout.
void read_back_bytes(comm_state& st, void* host, const void* device, std::size_t bytes,
                     cudaStream_t s, const char* what) {
  if (bytes == 0) {
    wait_stream(st, s, what);
    return;
  }
  void* pinned = staging(st, bytes);
  ::cupar::detail::check_cuda(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, s),
                              "cudaMemcpyAsync");
  wait_stream(st, s, what);
  std::memcpy(host, pinned, bytes);
}

/// All-gathers one fixed-size record per rank to the host (synchronises the stream).
template <class Record>
std::vector<Record> gather_records(comm_state& st, const Record& mine, cudaStream_t s,
                                   const void* d_payload, std::size_t payload_offset,
                                   std::size_t payload_bytes, const char* what) {
  const std::size_t P = static_cast<std::size_t>(st.size);
  void* d = nullptr;
  ::cupar::detail::check_cuda(cudaMallocAsync(&d, sizeof(Record) * (P + 1), s), "cudaMallocAsync");
  auto* buf = static_cast<unsigned char*>(d);
  std::vector<Record> all(P);
  try {
    unsigned char* slot = buf + sizeof(Record) * P;
    ::cupar::detail::check_cuda(
        cudaMemcpyAsync(slot, &mine, sizeof(Record), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
    if (d_payload != nullptr && payload_bytes != 0) {
      ::cupar::detail::check_cuda(cudaMemcpyAsync(slot + payload_offset, d_payload, payload_bytes,
                                                  cudaMemcpyDeviceToDevice, s),
                                  "cudaMemcpyAsync");
    }
    nccl_call(st, what, [&](ncclComm_t c) {
      return ncclAllGather(slot, buf, sizeof(Record), ncclUint8, c, s);
    });
    read_back_bytes(st, all.data(), buf, sizeof(Record) * P, s, what);
  } catch (...) {
    (void)cudaFreeAsync(d, s);
    throw;
  }
  ::cupar::detail::check_cuda(cudaFreeAsync(d, s), "cudaFreeAsync");
  return all;
}

}  // namespace

call_scope::call_scope(const communicator& comm, const char* function, stream_ref stream) {
  comm_state& st = state_of(comm);
  if (st.aborted.load()) throw_aborted(st, function);
  if (cudaGetDevice(&previous_) != cudaSuccess) {
    (void)cudaGetLastError();
    previous_ = -1;
  }
  if (previous_ == st.device) {
    previous_ = -1;
  } else {
    ::cupar::detail::check_cuda(cudaSetDevice(st.device), "cudaSetDevice");
  }
  const cudaStream_t s = stream.get();
  if (s != nullptr && s != cudaStreamLegacy && s != cudaStreamPerThread) {
    int device = -1;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s, &capture) == cudaSuccess &&
        capture == cudaStreamCaptureStatusNone && cudaStreamGetDevice(s, &device) == cudaSuccess &&
        device != st.device) {
      if (previous_ >= 0) (void)cudaSetDevice(previous_);
      throw std::invalid_argument(std::string(function) + ": the stream is of device " +
                                  std::to_string(device) + " but rank " + std::to_string(st.rank) +
                                  "'s communicator is on device " + std::to_string(st.device));
    }
    (void)cudaGetLastError();
  }
}

call_scope::~call_scope() {
  if (previous_ >= 0 && cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
}

bool profiling() noexcept {
  static const bool on = [] {
    const char* e = std::getenv("CUPAR_DIST_PROFILE");
    return e != nullptr && std::strcmp(e, "1") == 0;
  }();
  return on;
}

bool verifies(const communicator& comm) noexcept {
  return comm.state() && comm.state()->cfg.verify_calls;
}

call_record begin_call(const communicator& comm, const char* function, const call_header& mine,
                       const std::exception_ptr& local, const void* d_payload,
                       std::size_t payload_bytes, stream_ref stream) {
  comm_state& st = state_of(comm);
  const cudaStream_t s = stream.get();
  wire_header h{};
  h.magic = wire_magic;
  h.sequence = ++st.sequence;
  h.kind = static_cast<std::uint32_t>(mine.kind);
  std::memcpy(h.sizes, mine.sizes, sizeof h.sizes);
  h.flags = mine.flags;
  h.failed = local ? 1u : 0u;
  h.op_hash = mine.op_hash;
  h.n = mine.n;
  h.aux = mine.aux;
  h.payload_bytes = payload_bytes;
  copy_text(h.function, sizeof h.function, function);
  copy_text(h.message, sizeof h.message, message_of(local));
  const bool inline_data = payload_bytes <= inline_payload;
  const std::vector<wire_header> all =
      gather_records(st, h, s, inline_data ? d_payload : nullptr, offsetof(wire_header, payload),
                     inline_data ? payload_bytes : 0, function);
  // Every rank must make the same call.
  bool same = true;
  for (const auto& x : all)
    same = same && same_call(x, all[0]);
  if (!same) {
    std::string what = std::string(function) + " on rank " + std::to_string(st.rank) +
                       ": the ranks made different calls:";
    for (std::size_t r = 0; r < all.size(); ++r)
      what += "\n  rank " + std::to_string(r) + ": " + describe(all[r]);
    throw mismatch_error(what);
  }
  if (!local) {
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (all[r].failed != 0) {
        throw remote_error(
            static_cast<int>(r),
            std::string(function) + " failed on rank " + std::to_string(r) + ": " +
                std::string(all[r].message, strnlen(all[r].message, sizeof all[r].message)));
      }
    }
  }
  call_record rec;
  rec.headers.resize(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) {
    auto& c = rec.headers[r];
    c.kind = static_cast<call_kind>(all[r].kind);
    std::memcpy(c.sizes, all[r].sizes, sizeof c.sizes);
    c.flags = all[r].flags;
    c.op_hash = all[r].op_hash;
    c.n = all[r].n;
    c.aux = all[r].aux;
  }
  if (payload_bytes != 0) {
    rec.payloads.resize(payload_bytes * all.size());
    if (inline_data) {
      for (std::size_t r = 0; r < all.size(); ++r)
        std::memcpy(rec.payloads.data() + r * payload_bytes, all[r].payload, payload_bytes);
    } else {
      // A larger payload: its own all-gather, now that every rank is known to send as much.
      void* d = nullptr;
      ::cupar::detail::check_cuda(cudaMallocAsync(&d, payload_bytes * (all.size() + 1), s),
                                  "cudaMallocAsync");
      auto* buf = static_cast<unsigned char*>(d);
      unsigned char* slot = buf + payload_bytes * all.size();
      try {
        if (d_payload != nullptr) {
          ::cupar::detail::check_cuda(
              cudaMemcpyAsync(slot, d_payload, payload_bytes, cudaMemcpyDeviceToDevice, s),
              "cudaMemcpyAsync");
        } else {
          ::cupar::detail::check_cuda(cudaMemsetAsync(slot, 0, payload_bytes, s),
                                      "cudaMemsetAsync");
        }
        nccl_call(st, function, [&](ncclComm_t c) {
          return ncclAllGather(slot, buf, payload_bytes, ncclUint8, c, s);
        });
        read_back_bytes(st, rec.payloads.data(), buf, rec.payloads.size(), s, function);
      } catch (...) {
        (void)cudaFreeAsync(d, s);
        throw;
      }
      ::cupar::detail::check_cuda(cudaFreeAsync(d, s), "cudaFreeAsync");
    }
  }
  return rec;
}

void agree(const communicator& comm, const char* function, const std::exception_ptr& local,
           stream_ref stream) {
  comm_state& st = state_of(comm);
  struct record {
    std::uint32_t failed;
    char message[252];
  };
  record mine{};
  mine.failed = local ? 1u : 0u;
  copy_text(mine.message, sizeof mine.message, message_of(local));
  const auto all = gather_records(st, mine, stream.get(), nullptr, 0, 0, function);
  if (local) std::rethrow_exception(local);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].failed != 0) {
      throw remote_error(
          static_cast<int>(r),
          std::string(function) + " failed on rank " + std::to_string(r) + ": " +
              std::string(all[r].message, strnlen(all[r].message, sizeof all[r].message)));
    }
  }
}

void wait(const communicator& comm, stream_ref stream) {
  wait_stream(state_of(comm), stream.get(), "cupar::dist (waiting for the other ranks)");
}

void read_back(const communicator& comm, void* host, const void* device, std::size_t bytes,
               stream_ref stream) {
  read_back_bytes(state_of(comm), host, device, bytes, stream.get(),
                  "cupar::dist (waiting for the other ranks)");
}

void all_gather(const communicator& comm, const void* d_send, void* d_recv, std::size_t bytes,
                stream_ref stream) {
  if (bytes == 0) return;
  nccl_call(state_of(comm), "ncclAllGather", [&](ncclComm_t c) {
    return ncclAllGather(d_send, d_recv, bytes, ncclUint8, c, stream.get());
  });
}

void all_gather_v(const communicator& comm, const void* d_send, void* d_recv,
                  const std::vector<std::size_t>& bytes, stream_ref stream) {
  comm_state& st = state_of(comm);
  nccl_call(st, "ncclBroadcast (all-gather of unequal parts)", [&](ncclComm_t c) {
    ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess) return r;
    std::size_t offset = 0;
    for (int j = 0; j < st.size; ++j) {
      const std::size_t b = bytes[static_cast<std::size_t>(j)];
      if (b != 0) {
        void* to = static_cast<unsigned char*>(d_recv) + offset;
        const void* from = j == st.rank ? d_send : to;
        r = ncclBroadcast(from, to, b, ncclUint8, j, c, stream.get());
        if (r != ncclSuccess && r != ncclInProgress) {
          (void)ncclGroupEnd();
          return r;
        }
      }
      offset += b;
    }
    return ncclGroupEnd();
  });
}

std::vector<std::uint64_t> all_gather_device(const communicator& comm,
                                             const unsigned long long* d_values, std::size_t count,
                                             stream_ref stream) {
  comm_state& st = state_of(comm);
  const std::size_t P = static_cast<std::size_t>(st.size);
  const cudaStream_t s = stream.get();
  std::vector<std::uint64_t> out(count * P);
  if (count == 0) return out;
  void* d = nullptr;
  ::cupar::detail::check_cuda(cudaMallocAsync(&d, 8 * count * P, s), "cudaMallocAsync");
  try {
    nccl_call(st, "ncclAllGather",
              [&](ncclComm_t c) { return ncclAllGather(d_values, d, count, ncclUint64, c, s); });
    read_back_bytes(st, out.data(), d, 8 * count * P, s, "cupar::dist (gathering counts)");
  } catch (...) {
    (void)cudaFreeAsync(d, s);
    throw;
  }
  ::cupar::detail::check_cuda(cudaFreeAsync(d, s), "cudaFreeAsync");
  return out;
}

void nccl_all_reduce(const communicator& comm, const void* d_send, void* d_recv, std::size_t count,
                     ncclDataType_t type, ncclRedOp_t op, stream_ref stream) {
  if (count == 0) return;
  nccl_call(state_of(comm), "ncclAllReduce", [&](ncclComm_t c) {
    return ncclAllReduce(d_send, d_recv, count, type, op, c, stream.get());
  });
}

void exchange(const communicator& comm, const std::vector<exchange_array>& arrays,
              const std::vector<std::uint64_t>& send, const std::vector<std::uint64_t>& recv,
              stream_ref stream) {
  comm_state& st = state_of(comm);
  const std::size_t P = static_cast<std::size_t>(st.size);
  const auto me = static_cast<std::size_t>(st.rank);
  std::vector<std::uint64_t> send_at(P + 1, 0), recv_at(P + 1, 0);
  for (std::size_t j = 0; j < P; ++j) {
    send_at[j + 1] = send_at[j] + send[j];
    recv_at[j + 1] = recv_at[j] + recv[j];
  }
  const cudaStream_t s = stream.get();
  // This rank's own part is a copy.
  for (const auto& a : arrays) {
    if (send[me] != 0) {
      ::cupar::detail::check_cuda(
          cudaMemcpyAsync(static_cast<unsigned char*>(a.recv) + recv_at[me] * a.elem_size,
                          static_cast<const unsigned char*>(a.send) + send_at[me] * a.elem_size,
                          send[me] * a.elem_size, cudaMemcpyDeviceToDevice, s),
          "cudaMemcpyAsync");
    }
  }
  if (P == 1) return;
  nccl_call(st, "ncclSend / ncclRecv (all-to-all)", [&](ncclComm_t c) {
    ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess) return r;
    auto fail = [&](ncclResult_t e) {
      (void)ncclGroupEnd();
      return e;
    };
    for (std::size_t k = 1; k < P; ++k) {
      // Pairs in a ring order, so every link is busy from the start.
      const std::size_t to = (me + k) % P;
      const std::size_t from = (me + P - k) % P;
      for (const auto& a : arrays) {
        if (send[to] != 0) {
          r = ncclSend(static_cast<const unsigned char*>(a.send) + send_at[to] * a.elem_size,
                       send[to] * a.elem_size, ncclUint8, static_cast<int>(to), c, s);
          if (r != ncclSuccess && r != ncclInProgress) return fail(r);
        }
        if (recv[from] != 0) {
          r = ncclRecv(static_cast<unsigned char*>(a.recv) + recv_at[from] * a.elem_size,
                       recv[from] * a.elem_size, ncclUint8, static_cast<int>(from), c, s);
          if (r != ncclSuccess && r != ncclInProgress) return fail(r);
        }
      }
    }
    return ncclGroupEnd();
  });
}

}  // namespace detail
}  // namespace cupar::dist
