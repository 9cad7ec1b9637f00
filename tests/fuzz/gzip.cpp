// Fuzz harness: gzip input (ByteStream over zlib, byte_stream.hpp) and the
// buffer's peek/consume bookkeeping, plain or compressed. The first input
// byte picks the mode, the next 8 steer the reads (how much to peek, how much
// of it to consume); the rest is the payload.
//  - mode 0: the payload is compressed here (zlib, gzip wrapper; split into
//    two members at a point the input picks: gzip -d reads them as one) and
//    must come out of ByteStream byte for byte, with no error;
//  - mode 1: the payload is read as is (a gzip, zstd, xz or bzip2 stream when
//    it starts with the format's magic, else plain): plain must come out
//    unchanged; a compressed stream must end, its
//    offset must count the bytes handed out, and an inflated gzip stream stays
//    under zlib's largest expansion (1032:1, zlib's FAQ / deflate's format);
//  - mode 2: the payload compressed as in mode 0 is read by CaptureReader and
//    must give exactly what the plain payload gives (same frames, counters,
//    lost ranges and diagnostics): compression changes nothing.
#include <zlib.h>

#include <cstring>
#include <vector>

#include <replay/input/byte_stream.hpp>
#include <replay/input/capture_reader.hpp>

#include "common/memory_file.hpp"
#include "input/decompressor.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::size_t kSteerBytes = 8;
constexpr std::uint64_t kMaxInflateRatio = 1032;  // deflate's limit: 258 bytes per 2 bits

// One gzip member of `in` (zlib deflate, windowBits 15 + 16 = gzip wrapper).
void gzip_member(std::span<const std::uint8_t> in, int level, Bytes& out) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) fuzz::fail("deflateInit2");
  const std::size_t before = out.size();
  out.resize(before + deflateBound(&z, static_cast<uLong>(in.size())) + 32);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data() + before;
  z.avail_out = static_cast<uInt>(out.size() - before);
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) fuzz::fail("deflate did not finish");
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
}

Bytes compress(std::span<const std::uint8_t> payload, std::uint8_t steer) {
  Bytes out;
  const int level = steer % 10;
  const std::size_t split = payload.empty() ? 0 : (steer * payload.size()) / 255;
  gzip_member(payload.first(split), level, out);
  if (split < payload.size() || steer % 2 == 1) gzip_member(payload.subspan(split), level, out);
  return out;
}

// Reads the whole stream with peeks and consumes steered by `steer`.
Bytes drain(replay::ByteStream& in, std::span<const std::uint8_t> steer) {
  Bytes got;
  for (std::size_t i = 0;; ++i) {
    const std::uint8_t s = steer[i % steer.size()];
    // Mostly small windows, sometimes one past the read chunk (256 KiB + 1).
    const std::size_t want = s == 0xFF ? (256u << 10) + 1 : static_cast<std::size_t>(s % 64) * 37 + 1;
    const auto w = in.peek(want);
    if (w.empty()) return got;
    const std::uint64_t before = in.offset();
    const std::size_t take = std::max<std::size_t>(1, w.size() * (s % 4 + 1) / 4);
    got.insert(got.end(), w.begin(), w.begin() + static_cast<std::ptrdiff_t>(take));
    in.consume(take);
    fuzz::check(in.offset() == before + take, "offset counts the bytes consumed");
  }
}

struct Outcome {
  std::string open_error;
  std::vector<std::uint64_t> frames;
  replay::CaptureStats stats;
  std::vector<std::string> diagnostics;
};

Outcome read_capture(std::span<const std::uint8_t> bytes) {
  fuzz::MemoryFile f(bytes);
  Outcome o;
  auto opened = replay::CaptureReader::open(f.path(), 0);
  if (auto* e = std::get_if<std::string>(&opened)) {
    o.open_error = e->substr(e->find(':'));  // without the path, which differs
    return o;
  }
  auto& r = std::get<replay::CaptureReader>(opened);
  replay::Segment s;
  while (r.next(s)) o.frames.push_back(s.frame);
  o.stats = r.stats();
  for (const auto& d : r.diagnostics()) o.diagnostics.push_back(std::to_string(d.frame) + d.field + d.message);
  return o;
}

bool same_lost(const std::vector<replay::LostRange>& a, const std::vector<replay::LostRange>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].byte_begin != b[i].byte_begin || a[i].byte_end != b[i].byte_end ||
        a[i].frames_before != b[i].frames_before || a[i].frames_lost != b[i].frames_lost || a[i].to_end != b[i].to_end)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 + kSteerBytes) return 0;
  const std::uint8_t mode = data[0] % 3;
  const std::span<const std::uint8_t> steer(data + 1, kSteerBytes);
  const std::span<const std::uint8_t> payload(data + 1 + kSteerBytes, size - 1 - kSteerBytes);
  if (mode == 2) {
    // One level of compression is read: a payload that is itself compressed
    // (any format's magic) reads differently once wrapped in gzip.
    if (replay::compression_of(payload) != replay::Compression::none) return 0;
    const Outcome plain = read_capture(payload);
    const Outcome gz = read_capture(compress(payload, steer[0]));
    fuzz::check(plain.open_error.empty() == gz.open_error.empty(), "gzip opens as the plain file does");
    if (!plain.open_error.empty()) return 0;
    fuzz::check(plain.frames == gz.frames, "gzip gives the same segments");
    fuzz::check(plain.diagnostics == gz.diagnostics, "gzip gives the same diagnostics");
    const auto& a = plain.stats;
    const auto& b = gz.stats;
    fuzz::check(a.frames == b.frames && a.tcp_segments == b.tcp_segments && a.malformed == b.malformed &&
                    a.frames_lost == b.frames_lost && a.non_ip == b.non_ip && a.non_tcp == b.non_tcp &&
                    a.read_error == b.read_error && same_lost(a.lost, b.lost),
                "gzip gives the same counters and lost ranges");
    return 0;
  }
  const Bytes stream = mode == 0 ? compress(payload, steer[0]) : Bytes(payload.begin(), payload.end());
  fuzz::MemoryFile file(stream);
  auto opened = replay::ByteStream::open(file.path());
  fuzz::check(std::holds_alternative<replay::ByteStream>(opened), "a memfd opens");
  auto& in = std::get<replay::ByteStream>(opened);
  const Bytes got = drain(in, steer);
  fuzz::check(in.offset() == got.size(), "offset is the number of bytes handed out");
  if (mode == 0) {
    fuzz::check(in.compressed(), "a compressed stream is recognised");
    fuzz::check(in.error().empty(), "a well-formed gzip stream reads without error: " + in.error());
    fuzz::check(got.size() == payload.size() && std::equal(got.begin(), got.end(), payload.begin()),
                "gzip round trip gives the payload back");
    return 0;
  }
  if (!in.compressed()) {
    fuzz::check(got == stream, "plain input comes out unchanged");
    fuzz::check(in.error().empty(), "plain input from memory reads without error");
  } else {
    // zstd, xz and bzip2 (their magics reach this mode too) have no such bound.
    if (in.compression() == "gzip")
      fuzz::check(got.size() <= kMaxInflateRatio * stream.size() + 64, "inflated size within deflate's ratio");
  }
  return 0;
}
