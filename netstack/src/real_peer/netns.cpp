// Network namespaces via iproute2 and setns(2); see netns.hpp.
#include <netstack/netns.hpp>

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace netstack {
namespace {

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

}  // namespace

int run_command_status(const std::vector<std::string>& argv, bool quiet) {
  if (argv.empty()) return 127;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    if (quiet) {
      const int devnull = ::open("/dev/null", O_WRONLY);
      if (devnull >= 0) {
        dup2(devnull, 1);
        dup2(devnull, 2);
      }
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void run_command(const std::vector<std::string>& argv) {
  const int rc = run_command_status(argv, false);
  if (rc != 0) {
    throw std::runtime_error("command failed (exit status " + std::to_string(rc) + "): " + join(argv));
  }
}

NetNamespace NetNamespace::create(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) {
    throw std::runtime_error("invalid network namespace name '" + name + "'");
  }
  run_command({"ip", "netns", "add", name});
  NetNamespace ns(name, true);
  ns.ip({"link", "set", "lo", "up"});  // on failure ns's destructor deletes it
  return ns;
}

NetNamespace NetNamespace::existing(const std::string& name) {
  NetNamespace ns(name, false);
  struct stat st {};
  if (name.empty() || name.find('/') != std::string::npos || ::stat(ns.path().c_str(), &st) != 0) {
    throw std::runtime_error("network namespace '" + name + "' does not exist (no " + ns.path() + ")");
  }
  return ns;
}

NetNamespace::NetNamespace(NetNamespace&& other) noexcept
    : name_(std::move(other.name_)), owned_(std::exchange(other.owned_, false)) {}

NetNamespace& NetNamespace::operator=(NetNamespace&& other) noexcept {
  if (this != &other) {
    remove();
    name_ = std::move(other.name_);
    owned_ = std::exchange(other.owned_, false);
  }
  return *this;
}

NetNamespace::~NetNamespace() { remove(); }

std::string NetNamespace::path() const { return "/run/netns/" + name_; }

void NetNamespace::ip(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{"ip", "-n", name_};
  argv.insert(argv.end(), args.begin(), args.end());
  run_command(argv);
}

void NetNamespace::sysctl(const std::string& key_path, const std::string& value) const {
  // /proc/sys/net resolves to the opener's namespace at open time.
  ScopedNetnsEntry inside(*this);
  const std::string file = "/proc/sys/" + key_path;
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "open " + file + " in netns " + name_);
  const ssize_t n = ::write(fd, value.data(), value.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(value.size())) {
    throw std::system_error(err, std::generic_category(), "write " + file + " in netns " + name_);
  }
}

void NetNamespace::remove() noexcept {
  if (!owned_) return;
  owned_ = false;
  run_command_status({"ip", "netns", "del", name_}, true);
}

ScopedNetnsEntry::ScopedNetnsEntry(const NetNamespace& ns) {
  saved_fd_ = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (saved_fd_ < 0) throw std::system_error(errno, std::generic_category(), "open /proc/self/ns/net");
  const int fd = ::open(ns.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    ::close(saved_fd_);
    throw std::system_error(err, std::generic_category(), "enter network namespace " + ns.name());
  }
  ::close(fd);
}

ScopedNetnsEntry::~ScopedNetnsEntry() {
  if (saved_fd_ >= 0) {
    (void)::setns(saved_fd_, CLONE_NEWNET);
    ::close(saved_fd_);
  }
}

void enter_netns(const NetNamespace& ns) {
  const int fd = ::open(ns.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw std::system_error(err, std::generic_category(), "enter network namespace " + ns.name());
  }
  ::close(fd);
}

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR and the loop sees the flag
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

bool stop_requested() { return g_stop != 0; }

}  // namespace netstack
