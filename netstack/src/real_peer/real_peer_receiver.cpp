// Kernel TCP receiver in a forked child; see real_peer_receiver.hpp.
#include <netstack/real_peer_receiver.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace netstack {
namespace {

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
    t[i] = c;
  }
  return t;
}
constexpr auto kCrcTable = make_crc_table();

// The child's report on the pipe: a status byte ('R' listening, 'D' done,
// 'E' error) followed by the summary or an error text.
struct DoneMessage {
  std::uint64_t bytes;
  std::uint32_t crc32;
};

void write_all(int fd, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    b += w;
    n -= static_cast<std::size_t>(w);
  }
}

[[noreturn]] void child_fail(int fd, const std::string& what) {
  const char tag = 'E';
  write_all(fd, &tag, 1);
  write_all(fd, what.data(), what.size());
  _exit(1);
}

bool wait_readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    const int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    return r > 0;
  }
}

[[noreturn]] void child_main(const NetNamespace& ns, const Endpoint& ep, const std::string& sink_path,
                             std::chrono::seconds idle, int fd) {
  try {
    enter_netns(ns);
  } catch (const std::exception& e) {
    child_fail(fd, e.what());
  }
  const std::string where = ep.address.to_string() + ":" + std::to_string(ep.port);
  const bool v6 = ep.address.version == 6;
  const int ls = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (ls < 0) child_fail(fd, std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(ep.port);
    std::memcpy(&a->sin6_addr, ep.address.bytes.data(), 16);
    len = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(ep.port);
    std::memcpy(&a->sin_addr, ep.address.bytes.data(), 4);
    len = sizeof *a;
  }
  // The address may still be tentative for a moment after `ip addr add`.
  int rc = -1;
  for (int i = 0; i < 50 && rc != 0; ++i) {
    rc = ::bind(ls, reinterpret_cast<sockaddr*>(&ss), len);
    if (rc != 0 && errno == EADDRNOTAVAIL) ::usleep(20000);
    else break;
  }
  if (rc != 0) child_fail(fd, "bind " + where + ": " + std::strerror(errno));
  if (::listen(ls, 1) != 0) child_fail(fd, "listen " + where + ": " + std::strerror(errno));
  const char ready = 'R';
  write_all(fd, &ready, 1);

  const int idle_ms = static_cast<int>(std::chrono::milliseconds(idle).count());
  if (!wait_readable(ls, idle_ms)) child_fail(fd, "no connection to " + where + " within " + std::to_string(idle.count()) + " s");
  const int c = ::accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
  if (c < 0) child_fail(fd, std::string("accept: ") + std::strerror(errno));
  int sink = -1;
  if (!sink_path.empty()) {
    sink = ::open(sink_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (sink < 0) child_fail(fd, "open " + sink_path + ": " + std::strerror(errno));
  }
  DoneMessage done{0, 0};
  std::vector<std::uint8_t> buf(1 << 16);
  for (;;) {
    if (!wait_readable(c, idle_ms)) {
      child_fail(fd, "receiver idle for " + std::to_string(idle.count()) + " s after " + std::to_string(done.bytes) + " bytes");
    }
    const ssize_t n = ::read(c, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) child_fail(fd, "read after " + std::to_string(done.bytes) + " bytes: " + std::strerror(errno));
    if (n == 0) break;
    const std::span<const std::uint8_t> got(buf.data(), static_cast<std::size_t>(n));
    done.crc32 = crc32_update(done.crc32, got);
    done.bytes += static_cast<std::uint64_t>(n);
    if (sink >= 0) write_all(sink, got.data(), got.size());
  }
  if (sink >= 0) ::close(sink);
  ::close(c);  // our FIN: the sender sees the peer close
  ::close(ls);
  const char tag = 'D';
  write_all(fd, &tag, 1);
  write_all(fd, &done, sizeof done);
  _exit(0);
}

}  // namespace

std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::uint8_t> bytes) {
  std::uint32_t c = ~crc;
  for (const std::uint8_t b : bytes) c = kCrcTable[(c ^ b) & 0xFFu] ^ (c >> 8);
  return ~c;
}

KernelReceiver KernelReceiver::start(const NetNamespace& ns, const Endpoint& listen_on, const std::string& sink_path,
                                     std::chrono::seconds idle_timeout) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    // Default signal dispositions: the parent's stop handlers must not keep us alive.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
    child_main(ns, listen_on, sink_path, idle_timeout, fds[1]);
  }
  ::close(fds[1]);
  KernelReceiver r(pid, fds[0]);
  char tag = 0;
  if (!wait_readable(r.report_fd_, 5000) || ::read(r.report_fd_, &tag, 1) != 1 || tag != 'R') {
    std::string why(256, '\0');
    const ssize_t n = tag == 'E' ? ::read(r.report_fd_, why.data(), why.size()) : 0;
    why.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    throw std::runtime_error("kernel receiver in netns " + ns.name() + " did not start: " +
                             (why.empty() ? std::string("no answer within 5 s") : why));
  }
  return r;
}

KernelReceiver::KernelReceiver(KernelReceiver&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), report_fd_(std::exchange(other.report_fd_, -1)) {}

KernelReceiver::~KernelReceiver() {
  stop();
  if (report_fd_ >= 0) ::close(report_fd_);
}

void KernelReceiver::stop() noexcept {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
}

ReceivedSummary KernelReceiver::finish(std::chrono::milliseconds timeout) {
  if (report_fd_ < 0) throw std::runtime_error("kernel receiver already finished");
  char tag = 0;
  if (!wait_readable(report_fd_, static_cast<int>(timeout.count())) || ::read(report_fd_, &tag, 1) != 1) {
    stop();
    throw std::runtime_error("kernel receiver sent no report within " + std::to_string(timeout.count()) + " ms");
  }
  if (tag == 'D') {
    DoneMessage done{};
    std::size_t got = 0;
    auto* p = reinterpret_cast<std::uint8_t*>(&done);
    while (got < sizeof done) {
      const ssize_t n = ::read(report_fd_, p + got, sizeof done - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (pid_ > 0) {
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
    }
    if (got != sizeof done) throw std::runtime_error("kernel receiver report truncated");
    return ReceivedSummary{done.bytes, done.crc32};
  }
  std::string why(512, '\0');
  const ssize_t n = ::read(report_fd_, why.data(), why.size());
  why.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  stop();
  throw std::runtime_error("kernel receiver failed: " + why);
}

}  // namespace netstack
