// TUN device I/O; see tun_device.hpp.
#include <netstack/tun_device.hpp>

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

namespace netstack {

TunDevice TunDevice::open(const std::string& name) {
  if (name.empty() || name.size() >= IFNAMSIZ) {
    throw std::system_error(EINVAL, std::generic_category(),
                            "TUN interface name '" + name + "' must have 1.." + std::to_string(IFNAMSIZ - 1) + " characters");
  }
  const int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "open /dev/net/tun");
  struct ifreq ifr {};
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::memcpy(ifr.ifr_name, name.data(), name.size());
  if (::ioctl(fd, TUNSETIFF, &ifr) != 0) {
    const int err = errno;
    ::close(fd);
    throw std::system_error(err, std::generic_category(), "TUNSETIFF " + name);
  }
  return TunDevice(fd, std::string(ifr.ifr_name, ::strnlen(ifr.ifr_name, IFNAMSIZ)));
}

TunDevice::TunDevice(TunDevice&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)) {}

TunDevice& TunDevice::operator=(TunDevice&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::move(other.name_);
  }
  return *this;
}

TunDevice::~TunDevice() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t TunDevice::read(std::span<std::uint8_t> buf) {
  for (;;) {
    const ssize_t n = ::read(fd_, buf.data(), buf.size());
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    throw std::system_error(errno, std::generic_category(), "read from TUN " + name_);
  }
}

bool TunDevice::write(std::span<const std::uint8_t> datagram) {
  for (;;) {
    const ssize_t n = ::write(fd_, datagram.data(), datagram.size());
    if (n >= 0) return true;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) return false;
    throw std::system_error(errno, std::generic_category(),
                            "write of a " + std::to_string(datagram.size()) + "-byte datagram to TUN " + name_);
  }
}

}  // namespace netstack
