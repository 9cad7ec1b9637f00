#pragma once
// The Linux kernel's TCP as the real peer: a forked child that enters the
// peer namespace, listens with an ordinary kernel socket, accepts one
// connection, reads it to EOF and reports the byte count and CRC-32 of what
// it received, so the sender side can check the transfer byte-exact.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "netstack/address.hpp"
#include "netstack/netns.hpp"

namespace netstack {

/// CRC-32 (ISO-HDLC / IEEE 802.3: reflected polynomial 0xEDB88320, initial
/// and final XOR 0xFFFFFFFF), continued from `crc` (0 to start).
/// crc32_update(0, "123456789") == 0xCBF43926, the standard check value.
std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::uint8_t> bytes);

/// What the kernel receiver read.
struct ReceivedSummary {
  std::uint64_t bytes = 0;  ///< payload bytes read until EOF
  std::uint32_t crc32 = 0;  ///< crc32_update(0, all of them)
};

/// A kernel TCP listener running in a forked child inside a namespace.
/// Move-only; the destructor kills (SIGKILL) and reaps a child still running.
class KernelReceiver {
 public:
  /// Forks; the child enters `ns`, binds `listen_on` (address and port),
  /// listens, and the call returns once it listens. The child copies what it
  /// reads to `sink_path` when that is not empty. `idle_timeout` bounds every
  /// wait in the child (accept, each read). Throws std::runtime_error with the
  /// child's reason (e.g. "bind 198.18.2.2:5001: Address in use") on failure.
  static KernelReceiver start(const NetNamespace& ns, const Endpoint& listen_on, const std::string& sink_path,
                              std::chrono::seconds idle_timeout);

  KernelReceiver(KernelReceiver&& other) noexcept;
  KernelReceiver& operator=(KernelReceiver&&) = delete;
  KernelReceiver(const KernelReceiver&) = delete;
  KernelReceiver& operator=(const KernelReceiver&) = delete;
  ~KernelReceiver();

  /// Waits up to `timeout` for the child's report after the peer closed.
  /// Returns the summary, or throws std::runtime_error with the child's error
  /// or "no report within N s".
  ReceivedSummary finish(std::chrono::milliseconds timeout);

  /// Kills the child now if it still runs (never throws).
  void stop() noexcept;

 private:
  KernelReceiver(pid_t pid, int report_fd) : pid_(pid), report_fd_(report_fd) {}
  pid_t pid_ = -1;
  int report_fd_ = -1;
};

}  // namespace netstack
