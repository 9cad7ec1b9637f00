// RFC 1071 Internet checksum.
#include <wire/checksum.hpp>

namespace wire {

void Checksum::add(std::span<const std::uint8_t> data) {
  std::size_t i = 0;
  if (odd_ && !data.empty()) {
    // The previous chunk ended on the high byte of a word: this byte is its low byte.
    sum_ += data[0];
    i = 1;
    odd_ = false;
  }
  for (; i + 1 < data.size(); i += 2) {
    sum_ += (std::uint32_t{data[i]} << 8) | data[i + 1];
  }
  if (i < data.size()) {
    // RFC 1071 4.1: an odd last byte is the high byte of a zero-padded word.
    sum_ += std::uint32_t{data[i]} << 8;
    odd_ = true;
  }
}

std::uint16_t Checksum::sum() const {
  std::uint64_t s = sum_;
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);  // end-around carry (RFC 1071 2(A))
  return static_cast<std::uint16_t>(s);
}

std::uint16_t internet_checksum(std::span<const std::uint8_t> data) {
  Checksum c;
  c.add(data);
  return c.finish();
}

}  // namespace wire
