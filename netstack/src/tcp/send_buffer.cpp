#include "netstack/send_buffer.hpp"

namespace netstack {

void SendBuffer::append(std::span<const std::uint8_t> data) {
  buf_.insert(buf_.end(), data.begin(), data.end());
  written_ += data.size();
}

std::span<const std::uint8_t> SendBuffer::bytes(std::uint64_t off, std::size_t len) const {
  const std::size_t at = head_ + static_cast<std::size_t>(off - first_);
  return {buf_.data() + at, len};
}

void SendBuffer::release_to(std::uint64_t off) {
  if (off <= first_) return;
  head_ += static_cast<std::size_t>(off - first_);
  first_ = off;
  if (head_ > kCompactAfterBytes && head_ * 2 > buf_.size()) {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

}  // namespace netstack
