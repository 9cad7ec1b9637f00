// The pcapng resynchronisation scans past a damaged block a window at a time
// and reaches further only for a candidate block: these cases cross the scan
// window (megabytes of garbage), put a plausible block header whose trailer
// lies megabytes ahead (and does not match) inside the garbage, and resume
// at a valid block longer than the window. And ByteStream, whose buffer now
// grows with the data and compacts lazily, gives back a file's exact bytes
// under any pattern of peeks and consumes.
#include "reader_capture_builder.hpp"

#include <replay/input/byte_stream.hpp>

using namespace readertest;

namespace {

std::uint32_t le32_at(const Bytes& b, std::size_t off) {
  return std::uint32_t{b[off]} | (std::uint32_t{b[off + 1]} << 8) | (std::uint32_t{b[off + 2]} << 16) |
         (std::uint32_t{b[off + 3]} << 24);
}
void set_le32(Bytes& b, std::size_t off, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

constexpr std::size_t kMiB = 1u << 20;

// Four TCP packets in EPBs: SHB (28 bytes), IDB without options (20), then
// the EPBs, each 32 + the frame padded to 4 bytes.
Bytes four_packets() {
  std::vector<NgPacket> pkts;
  for (std::uint32_t i = 0; i < 4; ++i) {
    NgPacket p;
    p.ts = 1'000'000 + i;
    p.data = ether(0x0800, ipv4_tcp(i % 2 == 1, 100 + i, 7, wire::kAck, 10));
    pkts.push_back(std::move(p));
  }
  return pcapng_file(1, {std::nullopt}, pkts);
}

// Offset of EPB `i` (0-based), walking the block lengths from the SHB.
std::size_t epb_offset(const Bytes& f, int i) {
  std::size_t at = 28;
  at += le32_at(f, at + 4);  // the IDB
  for (int k = 0; k < i; ++k) at += le32_at(f, at + 4);
  REQUIRE(le32_at(f, at) == 6u);
  return at;
}

// A pcapng custom block (type 0x40000BAD, not to be copied) of `len` bytes:
// type, length, a private enterprise number, zero data, the length again.
Bytes custom_block(std::uint32_t len) {
  Bytes b;
  put32le(b, 0x40000BAD);
  put32le(b, len);
  put32le(b, 32473);  // PEN reserved for examples (RFC 5612)
  b.resize(len - 4, 0);
  put32le(b, len);
  return b;
}

void insert_at(Bytes& f, std::size_t at, const Bytes& what) {
  f.insert(f.begin() + static_cast<std::ptrdiff_t>(at), what.begin(), what.end());
}

}  // namespace

TEST_CASE("resync window: 6 MiB of garbage after a damaged block is scanned through to the next block") {
  Bytes f = four_packets();
  const std::size_t at = epb_offset(f, 1);
  const std::uint32_t len = le32_at(f, at + 4);
  set_le32(f, at + 4, 0x7fffffff);  // damaged length: block 2 is lost
  // 0xEE bytes: type 0xEEEEEEEE is no block type, so no position in them is a candidate.
  const std::size_t garbage = 6 * kMiB + 20;  // a multiple of 4: the EPB after it is 4-aligned to `at`
  Bytes g(garbage, 0xEE);
  SUBCASE("plain garbage") {}
  SUBCASE("a plausible EPB header in the garbage whose trailer, 4 MiB ahead, disagrees") {
    // At a 4-aligned offset past the damaged block, beyond the first scan window:
    // type 6, length 4 MiB (a multiple of 4, <= kMaxBlockBytes); its trailer
    // position, 4 MiB on, is still in the garbage (0xEEEEEEEE != 4 MiB).
    const std::size_t fake = 1 * kMiB + 64;
    set_le32(g, fake, 6);
    set_le32(g, fake + 4, static_cast<std::uint32_t>(4 * kMiB));
  }
  insert_at(f, at + len, g);
  const ReadResult r = read_all(write_temp(f, "resync-window.pcapng"));
  CHECK(r.stats.frames == 4);  // frames 1, 3, 4 read; 2 lost (the type field says EPB: one frame)
  REQUIRE(r.segments.size() == 3);
  CHECK(r.segments[0].frame == 1);
  CHECK(r.segments[1].frame == 3);
  CHECK(r.segments[2].frame == 4);
  REQUIRE(r.stats.lost.size() == 1);
  CHECK(r.stats.lost[0].byte_begin == at);
  CHECK(r.stats.lost[0].byte_end == at + len + garbage);  // the damaged block and the garbage
  CHECK(r.stats.lost[0].frames_lost == std::optional<std::uint64_t>(1));
  CHECK_FALSE(r.stats.lost[0].to_end);
}

TEST_CASE("resync window: reading resumes at a valid block longer than the scan window") {
  Bytes f = four_packets();
  const std::size_t at = epb_offset(f, 1);
  const std::uint32_t len = le32_at(f, at + 4);
  set_le32(f, at + 4, len + 8);  // a length that disagrees with the trailer
  const std::size_t garbage = kMiB + 100;  // past the first window of positions
  Bytes g(garbage, 0xEE);
  const Bytes big = custom_block(static_cast<std::uint32_t>(3 * kMiB));  // 3 MiB: only a reach past the window sees its trailer
  append(g, big);
  insert_at(f, at + len, g);
  const ReadResult r = read_all(write_temp(f, "resync-big-block.pcapng"));
  CHECK(r.stats.frames == 4);
  REQUIRE(r.segments.size() == 3);
  CHECK(r.segments[1].frame == 3);
  REQUIRE(r.stats.lost.size() == 1);
  CHECK(r.stats.lost[0].byte_begin == at);
  CHECK(r.stats.lost[0].byte_end == at + len + garbage);  // the custom block itself is read (and skipped: not a frame)
}

TEST_CASE("resync window: garbage of exactly one scan window, then the end: the rest is lost") {
  Bytes f = four_packets();
  const std::size_t at = epb_offset(f, 3);  // the last EPB
  set_le32(f, at + 4, 0x7fffffff);
  f.resize(f.size() + kMiB, 0xEE);
  const ReadResult r = read_all(write_temp(f, "resync-to-end.pcapng"));
  CHECK(r.segments.size() == 3);
  REQUIRE(r.stats.lost.size() == 1);
  CHECK(r.stats.lost[0].to_end);
  CHECK(r.stats.lost[0].byte_begin == at);
  CHECK(r.stats.lost[0].byte_end == f.size());
}

TEST_CASE("ByteStream: any pattern of peeks and consumes gives back the file's bytes in order") {
  // 5 MiB of a byte pattern (i * 7 + i / 4096, mod 256), compared byte for byte.
  Bytes data(5 * kMiB);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + i / 4096);
  const std::string path = write_temp(data, "bytes.bin");
  auto opened = replay::ByteStream::open(path);
  REQUIRE(std::holds_alternative<replay::ByteStream>(opened));
  replay::ByteStream& s = std::get<replay::ByteStream>(opened);
  // Peek sizes from 1 byte to the limit, consumes from 0 to all of it: the
  // buffer grows, compacts and refills in every order.
  const std::size_t peeks[] = {1, 12, replay::ByteStream::kMaxPeekBytes, 300'000, 3 * kMiB, 7, 2 * kMiB + 3};
  const std::size_t eat[] = {0, 1, 4096, 1'000'003, 5, 262'144, 2 * kMiB};
  std::size_t pos = 0;
  for (int round = 0; pos < data.size(); ++round) {
    const std::size_t want = peeks[round % 7];
    const auto w = s.peek(want);
    // At least what was asked (up to the limit and the end), never past the end.
    REQUIRE(w.size() >= std::min(std::min(want, replay::ByteStream::kMaxPeekBytes), data.size() - pos));
    REQUIRE(w.size() <= data.size() - pos);
    CHECK(std::equal(w.begin(), w.end(), data.begin() + static_cast<std::ptrdiff_t>(pos)));
    const std::size_t n = std::min(eat[round % 7], w.size());
    s.consume(n);
    pos += n;
    REQUIRE(s.offset() == pos);
  }
  CHECK(s.peek(10).empty());
  CHECK(s.error().empty());
}
