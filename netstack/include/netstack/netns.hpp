#pragma once
// Network namespaces for the real-peer runs: named
// namespaces made with iproute2 (`ip netns add`, bind-mounted under
// /run/netns/NAME, so `ip netns exec` and `ip -n` reach them too), entered
// with setns(2), removed by the owner's destructor on every exit path.
// Needs CAP_SYS_ADMIN (root). No traffic ever leaves a namespace made here:
// they hold only veth pairs and TUN devices this project creates.

#include <string>
#include <vector>

namespace netstack {

/// Runs `argv` (argv[0] looked up in PATH, no shell) and waits for it.
/// Throws std::runtime_error naming the command and its exit status (or the
/// signal that ended it) when it does not exit 0; its stderr goes to ours.
void run_command(const std::vector<std::string>& argv);

/// The same, but returns the exit status instead of throwing (127 when the
/// program could not be started); stdout and stderr are discarded when `quiet`.
int run_command_status(const std::vector<std::string>& argv, bool quiet);

/// A named network namespace. Move-only. One made by create() is deleted
/// (`ip netns del`) by the destructor; one taken by existing() is left alone.
class NetNamespace {
 public:
  /// Makes a new namespace `name` (`ip netns add`) with its loopback up.
  /// Throws std::runtime_error if it exists already or cannot be made.
  static NetNamespace create(const std::string& name);
  /// Refers to the existing namespace `name` (it must exist under /run/netns;
  /// std::runtime_error otherwise). Never deleted by this object.
  static NetNamespace existing(const std::string& name);

  NetNamespace(NetNamespace&& other) noexcept;
  NetNamespace& operator=(NetNamespace&& other) noexcept;
  NetNamespace(const NetNamespace&) = delete;
  NetNamespace& operator=(const NetNamespace&) = delete;
  ~NetNamespace();

  /// The namespace's name, as `ip netns list` shows it.
  const std::string& name() const { return name_; }
  /// The bind mount that pins it: /run/netns/NAME.
  std::string path() const;
  /// True when this object deletes the namespace on destruction.
  bool owned() const { return owned_; }

  /// Runs `ip -n NAME args...` (e.g. {"link", "set", "lo", "up"}); throws as run_command.
  void ip(const std::vector<std::string>& args) const;
  /// Writes `value` to /proc/sys/`key_path` inside the namespace (e.g.
  /// "net/ipv4/ip_forward", "1"). Throws std::system_error naming the key.
  void sysctl(const std::string& key_path, const std::string& value) const;

  /// Deletes the namespace now if owned (idempotent; never throws).
  void remove() noexcept;

 private:
  NetNamespace(std::string name, bool owned) : name_(std::move(name)), owned_(owned) {}
  std::string name_;
  bool owned_ = false;
};

/// Moves the calling thread into a namespace for the lifetime of this object
/// and back into the one it was in before on destruction (setns(2),
/// CLONE_NEWNET). Devices created meanwhile (a TUN device) stay in `ns`.
/// Throws std::system_error when a namespace file cannot be opened or entered.
class ScopedNetnsEntry {
 public:
  explicit ScopedNetnsEntry(const NetNamespace& ns);
  ~ScopedNetnsEntry();
  ScopedNetnsEntry(const ScopedNetnsEntry&) = delete;
  ScopedNetnsEntry& operator=(const ScopedNetnsEntry&) = delete;

 private:
  int saved_fd_ = -1;
};

/// Enters the namespace `ns` for good (setns). For a forked child that must
/// live in it; throws std::system_error on failure.
void enter_netns(const NetNamespace& ns);

/// SIGINT, SIGTERM and SIGHUP set a flag instead of killing the process, so
/// event loops can return and destructors delete the namespaces. Idempotent.
void install_stop_signals();
/// True once one of those signals arrived (async-signal-safe flag).
bool stop_requested();

}  // namespace netstack
