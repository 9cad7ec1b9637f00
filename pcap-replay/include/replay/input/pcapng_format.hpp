#pragma once
// The pcapng numbers the reader (pcapng_file.cpp) and the writer of an
// annotated copy (report/annotated_capture.cpp) both use, and the walk over
// a block's options (draft-ietf-opsawg-pcapng sections 3.5, 4, 11).

#include <cstddef>
#include <cstdint>
#include <span>

namespace replay::pcapng {

// Block types (section 11.1).
inline constexpr std::uint32_t kShb = 0x0A0D0D0A;
inline constexpr std::uint32_t kIdb = 1;
inline constexpr std::uint32_t kOpb = 2;  // obsolete Packet Block (appendix A)
inline constexpr std::uint32_t kSpb = 3;
inline constexpr std::uint32_t kNrb = 4;
inline constexpr std::uint32_t kIsb = 5;
inline constexpr std::uint32_t kEpb = 6;
inline constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;

// Option codes: any block's (3.5), the SHB's (4.1), the IDB's (4.2).
inline constexpr std::uint16_t kOptEnd = 0, kOptComment = 1;
inline constexpr std::uint16_t kShbUserAppl = 4;
inline constexpr std::uint16_t kOptTsresol = 9, kOptTsoffset = 14;

/// Calls f(code, value) for each option of `options` (code and length in
/// the section's byte order: `swapped` when not little-endian), up to the
/// end option or an option that runs past the span.
template <class F>
void for_each_option(std::span<const std::uint8_t> options, bool swapped, F f) {
  const auto u16 = [swapped](const std::uint8_t* p) {
    return swapped ? static_cast<std::uint16_t>((p[0] << 8) | p[1]) : static_cast<std::uint16_t>(p[0] | (p[1] << 8));
  };
  for (std::size_t p = 0; p + 4 <= options.size();) {
    const std::uint16_t code = u16(options.data() + p), len = u16(options.data() + p + 2);
    if (code == kOptEnd || p + 4 + len > options.size()) return;
    f(code, options.subspan(p + 4, len));
    p += 4 + (std::size_t{len} + 3) / 4 * 4;
  }
}

}  // namespace replay::pcapng
