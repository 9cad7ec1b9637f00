#pragma once
// The compressed formats a capture may come in, told by their magic as
// `file` tells them, each through its own library (Debian's zlib, libzstd,
// liblzma, libbz2): gzip (RFC 1952), zstd (RFC 8878), xz (the .xz format of
// XZ Utils) and bzip2. Concatenated streams are read one after the other, as
// the tools' own -d does. ByteStream reads through one of them.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace replay {

enum class Compression : std::uint8_t { none, gzip, zstd, xz, bzip2 };

/// "gzip", "zstd", "xz", "bzip2"; "" for none.
std::string_view to_string(Compression c);

/// The bytes a magic needs at most (xz's: 6).
inline constexpr std::size_t kCompressionMagicBytes = 6;

/// The format whose magic `head` begins with (none when it begins with no
/// compressed format's).
Compression compression_of(std::span<const std::uint8_t> head);

/// Reads compressed bytes (0 at the end of the input or on an error, which
/// the caller keeps).
using RawRead = std::function<std::size_t(std::uint8_t* out, std::size_t cap)>;

class Decompressor {
 public:
  virtual ~Decompressor() = default;
  /// Up to `cap` decompressed bytes into `out` (compressed bytes through
  /// `raw`); 0 at the end of the stream. A corrupt or cut stream sets `error`
  /// ("zstd: <the library's reason> at compressed byte N", "xz: the
  /// compressed stream is cut short"): the bytes returned with it are the
  /// last good ones, and the caller reads no further.
  virtual std::size_t read(std::uint8_t* out, std::size_t cap, const RawRead& raw, std::string& error) = 0;
};

/// The decompressor of `c` (not none), its input beginning with `head` (the
/// bytes already read to tell the format); nullptr with `error` set when the
/// library cannot start ("zstd: cannot initialise").
std::unique_ptr<Decompressor> make_decompressor(Compression c, std::span<const std::uint8_t> head, std::string& error);

}  // namespace replay
