#pragma once
// A Linux TUN device (Documentation/networking/tuntap.rst): the kernel hands
// us the IP datagrams it routes to the interface and takes the ones we write
// as if they had arrived on it. IFF_TUN | IFF_NO_PI: each read or write is
// exactly one IPv4 or IPv6 datagram, no packet-information prefix, no
// offloads (the kernel fills every checksum and never hands us a GSO
// super-packet, since TUNSETOFFLOAD is never called).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace netstack {

/// An open TUN interface. Move-only; the destructor closes the fd, which
/// removes the (non-persistent) interface.
class TunDevice {
 public:
  /// Opens /dev/net/tun and creates interface `name` (at most 15 characters)
  /// in the calling thread's current network namespace. The fd is
  /// non-blocking and close-on-exec. Address and link state are set with
  /// iproute2 by the caller. Throws std::system_error naming the device and
  /// the step (open /dev/net/tun, TUNSETIFF) on failure; needs CAP_NET_ADMIN.
  static TunDevice open(const std::string& name);

  TunDevice(TunDevice&& other) noexcept;
  TunDevice& operator=(TunDevice&& other) noexcept;
  TunDevice(const TunDevice&) = delete;
  TunDevice& operator=(const TunDevice&) = delete;
  ~TunDevice();

  /// The file descriptor, for poll(2) (POLLIN when a datagram waits).
  int fd() const { return fd_; }
  /// The interface name the kernel gave it.
  const std::string& name() const { return name_; }

  /// Reads one datagram into `buf` (give it at least the MTU, 65535 is
  /// always enough). Returns its length in bytes, or 0 when none is waiting.
  /// A datagram longer than `buf` is truncated by the kernel. Throws
  /// std::system_error on an I/O error.
  std::size_t read(std::span<std::uint8_t> buf);

  /// Hands one IPv4/IPv6 datagram to the kernel. Returns false when the
  /// kernel dropped it on the spot (ENOBUFS/EAGAIN: a loss the sender must
  /// recover from like any other); throws std::system_error on other errors
  /// (EINVAL: not a valid IP datagram).
  bool write(std::span<const std::uint8_t> datagram);

 private:
  TunDevice(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  int fd_ = -1;
  std::string name_;
};

}  // namespace netstack
