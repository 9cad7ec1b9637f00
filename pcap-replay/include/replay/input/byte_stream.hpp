#pragma once
// The bytes of one capture input, file or standard input, plain or
// compressed (gzip, zstd, xz or bzip2, told by its magic: decompressor.hpp;
// concatenated streams read one after the other, as the tools' -d does),
// through one buffer the parsers look into without copying. Offsets are
// positions in the (decompressed) capture
// stream, which is what a pcap or pcapng parser and its messages speak of.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace replay {

/// Buffered, forward-only reader of a capture's bytes. Move-only (owns the
/// file descriptor and the zlib state).
class ByteStream {
 public:
  /// Opens `path_or_dash` ("-" = a duplicate of standard input, so that
  /// closing the stream leaves fd 0 open). Errors: "PATH: cannot open: <strerror>",
  /// "PATH: cannot open: is a directory".
  static std::variant<ByteStream, std::string> open(const std::string& path_or_dash);

  /// Makes at least `n` bytes available at the read position, fewer only at
  /// the end of the input (or after a read / decompression error, see
  /// error()), and returns all the bytes buffered from the read position.
  /// The span is valid until the next call of peek(). Never fails; `n` above
  /// the stream's own memory limit is cut to it (kMaxPeekBytes).
  std::span<const std::uint8_t> peek(std::size_t n);

  /// Moves the read position `n` bytes on (n <= the size of the last peek()).
  void consume(std::size_t n);

  /// Bytes consumed since the start of the (decompressed) stream.
  std::uint64_t offset() const { return offset_; }

  /// True when the input is compressed (any format).
  bool compressed() const { return compressed_; }
  /// The compressed format's name ("gzip", "zstd", "xz", "bzip2"); empty
  /// when the input is not compressed.
  std::string_view compression() const;

  /// Bytes read from the file or pipe so far (compressed bytes when compressed):
  /// with file_size(), the fraction of the input read, for a progress line.
  std::uint64_t raw_bytes_read() const { return raw_read_; }

  /// The size of the file on disk, when it is a regular file.
  std::optional<std::uint64_t> file_size() const { return file_size_; }

  /// Why the input ended early: a read(2) error ("read: Input/output error")
  /// or a compressed stream that is corrupt or cut short ("gzip: invalid block
  /// type at compressed byte 1234", "zstd: the compressed stream is cut
  /// short"). Empty when the input ended cleanly.
  const std::string& error() const { return error_; }

  /// The most bytes peek() keeps buffered: the largest pcapng block the
  /// parsers accept (kMaxBlockBytes, 16 MiB) plus room to scan past it.
  static constexpr std::size_t kMaxPeekBytes = (16u << 20) + (1u << 20);

  ByteStream(ByteStream&&) noexcept;
  ByteStream& operator=(ByteStream&&) noexcept;
  ~ByteStream();

 private:
  struct Inflate;  // the decompressor and its format
  ByteStream() = default;
  std::size_t fill(std::uint8_t* out, std::size_t cap);  // raw or inflated bytes, 0 at the end
  std::size_t read_raw(std::uint8_t* out, std::size_t cap);

  int fd_ = -1;
  bool compressed_ = false;
  bool eof_ = false;
  std::unique_ptr<Inflate> inflate_;
  std::vector<std::uint8_t> buf_;
  std::size_t begin_ = 0, end_ = 0;  // unread bytes are buf_[begin_, end_)
  std::uint64_t offset_ = 0;
  std::uint64_t raw_read_ = 0;
  std::optional<std::uint64_t> file_size_;
  std::string error_;
  // Bytes read ahead of the stream to tell a compressed format (its magic), handed out first.
  std::vector<std::uint8_t> pushback_;
};

}  // namespace replay
