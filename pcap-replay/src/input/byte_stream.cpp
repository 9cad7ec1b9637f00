// Plain or compressed input through one growable buffer.
#include <replay/input/byte_stream.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "input/decompressor.hpp"

namespace replay {
namespace {

constexpr std::size_t kReadChunk = 256 * 1024;  // one read(2) / one decompressed chunk

}  // namespace

struct ByteStream::Inflate {
  Compression format = Compression::none;
  std::unique_ptr<Decompressor> d;
};

ByteStream::ByteStream(ByteStream&& o) noexcept { *this = std::move(o); }
ByteStream& ByteStream::operator=(ByteStream&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    compressed_ = o.compressed_;
    eof_ = o.eof_;
    inflate_ = std::move(o.inflate_);
    buf_ = std::move(o.buf_);
    begin_ = o.begin_;
    end_ = o.end_;
    offset_ = o.offset_;
    raw_read_ = o.raw_read_;
    file_size_ = o.file_size_;
    error_ = std::move(o.error_);
    pushback_ = std::move(o.pushback_);
  }
  return *this;
}
ByteStream::~ByteStream() {
  if (fd_ >= 0) ::close(fd_);
}

std::string_view ByteStream::compression() const { return inflate_ ? to_string(inflate_->format) : ""; }

std::variant<ByteStream, std::string> ByteStream::open(const std::string& path_or_dash) {
  ByteStream s;
  const bool stdin_ = path_or_dash == "-";
  s.fd_ = stdin_ ? ::fcntl(0, F_DUPFD_CLOEXEC, 0) : ::open(path_or_dash.c_str(), O_RDONLY | O_CLOEXEC);
  if (s.fd_ < 0) return path_or_dash + ": cannot open: " + std::strerror(errno);
  struct stat st{};
  if (::fstat(s.fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return path_or_dash + ": cannot open: is a directory";
    if (S_ISREG(st.st_mode)) s.file_size_ = static_cast<std::uint64_t>(st.st_size);
  }
  // The first bytes tell a compressed format from a capture (the pcap and
  // pcapng magics begin otherwise).
  std::uint8_t head[kCompressionMagicBytes];
  std::size_t got = 0;
  while (got < sizeof head) {
    const std::size_t n = s.read_raw(head + got, sizeof head - got);
    if (n == 0) break;
    got += n;
  }
  const Compression c = compression_of({head, got});
  if (c != Compression::none) {
    std::string err;
    auto d = make_decompressor(c, {head, got}, err);
    if (!d) return path_or_dash + ": cannot open: " + err;
    s.compressed_ = true;
    s.inflate_ = std::make_unique<Inflate>(Inflate{c, std::move(d)});
  } else {
    s.pushback_.assign(head, head + got);
  }
  return s;
}

std::size_t ByteStream::read_raw(std::uint8_t* out, std::size_t cap) {
  if (fd_ < 0) return 0;
  for (;;) {
    const ssize_t n = ::read(fd_, out, cap);
    if (n >= 0) {
      raw_read_ += static_cast<std::uint64_t>(n);
      return static_cast<std::size_t>(n);
    }
    if (errno == EINTR) continue;
    error_ = std::string("read: ") + std::strerror(errno);
    return 0;
  }
}

std::size_t ByteStream::fill(std::uint8_t* out, std::size_t cap) {
  if (!pushback_.empty()) {
    const std::size_t n = std::min(cap, pushback_.size());
    std::memcpy(out, pushback_.data(), n);
    pushback_.erase(pushback_.begin(), pushback_.begin() + static_cast<std::ptrdiff_t>(n));
    return n;
  }
  if (!compressed_) return read_raw(out, cap);
  const std::size_t n =
      inflate_->d->read(out, cap, [this](std::uint8_t* o, std::size_t c) { return read_raw(o, c); }, error_);
  if (!error_.empty()) eof_ = true;  // what came before the damage is used; nothing after it
  return n;
}

std::span<const std::uint8_t> ByteStream::peek(std::size_t n) {
  n = std::min(n, kMaxPeekBytes);
  // The buffer grows only as bytes arrive (at most doubling each time, never
  // past the request nor kMaxPeekBytes), so a large request near the end of a
  // short input costs that input, not the request: the buffer is never sized
  // (and zeroed) ahead of data. The unread bytes move to the front only when
  // the buffer is full and either half of it is consumed or growing would
  // pass the limit: a byte is moved at most once per half-buffer consumed.
  while (end_ - begin_ < n && !eof_) {
    if (end_ == buf_.size()) {
      const std::size_t need = begin_ + n;  // room for the request without moving
      if (begin_ > 0 && (begin_ >= buf_.size() / 2 || need > kMaxPeekBytes)) {
        std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      } else {
        const std::size_t grown = std::max(kReadChunk, 2 * buf_.size());
        buf_.resize(std::min(std::max(kReadChunk, need), grown));
      }
    }
    const std::size_t got = fill(buf_.data() + end_, buf_.size() - end_);
    if (got == 0) {
      eof_ = true;
      break;
    }
    end_ += got;
  }
  return {buf_.data() + begin_, end_ - begin_};
}

void ByteStream::consume(std::size_t n) {
  n = std::min(n, end_ - begin_);
  begin_ += n;
  offset_ += n;
  if (begin_ == end_) begin_ = end_ = 0;  // all read: the whole buffer is free again, nothing to move
}

}  // namespace replay
