// Plain or gzip input through one growable buffer.
#include <replay/input/byte_stream.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace replay {
namespace {

constexpr std::size_t kReadChunk = 256 * 1024;  // one read(2) / one inflate() output
constexpr std::uint8_t kGzipMagic0 = 0x1f, kGzipMagic1 = 0x8b;  // RFC 1952 2.3.1 ID1, ID2

}  // namespace

struct ByteStream::Gz {
  z_stream z{};
  std::vector<std::uint8_t> in = std::vector<std::uint8_t>(kReadChunk);
  bool init = false;
  bool member_ended = false;  // the last inflate() ended a member (Z_STREAM_END)
  ~Gz() {
    if (init) inflateEnd(&z);
  }
};

ByteStream::ByteStream(ByteStream&& o) noexcept { *this = std::move(o); }
ByteStream& ByteStream::operator=(ByteStream&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    gzip_ = o.gzip_;
    eof_ = o.eof_;
    gz_ = std::move(o.gz_);
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
  // Two bytes tell gzip from a capture (pcap and pcapng magics start otherwise).
  std::uint8_t head[2];
  std::size_t got = 0;
  while (got < 2) {
    const std::size_t n = s.read_raw(head + got, 2 - got);
    if (n == 0) break;
    got += n;
  }
  if (got == 2 && head[0] == kGzipMagic0 && head[1] == kGzipMagic1) {
    s.gzip_ = true;
    s.gz_ = std::make_unique<Gz>();
    if (inflateInit2(&s.gz_->z, 15 + 16) != Z_OK) return path_or_dash + ": cannot open: zlib initialisation failed";
    s.gz_->init = true;
    s.gz_->in[0] = head[0];
    s.gz_->in[1] = head[1];
    s.gz_->z.next_in = s.gz_->in.data();
    s.gz_->z.avail_in = 2;
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
  if (!gzip_) return read_raw(out, cap);
  Gz& g = *gz_;
  for (;;) {
    if (g.z.avail_in == 0) {
      const std::size_t n = read_raw(g.in.data(), g.in.size());
      if (n == 0) {
        if (!g.member_ended && error_.empty()) error_ = "gzip: the compressed stream is cut short";
        return 0;
      }
      g.z.next_in = g.in.data();
      g.z.avail_in = static_cast<uInt>(n);
    }
    if (g.member_ended) {
      // Another member follows (gzip -d reads concatenated members as one stream).
      if (inflateReset(&g.z) != Z_OK) return 0;
      g.member_ended = false;
    }
    g.z.next_out = out;
    g.z.avail_out = static_cast<uInt>(cap);
    const int rc = inflate(&g.z, Z_NO_FLUSH);
    const std::size_t produced = cap - g.z.avail_out;
    if (rc == Z_STREAM_END) {
      g.member_ended = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const std::uint64_t at = raw_read_ - g.z.avail_in;
      error_ = std::string("gzip: ") + (g.z.msg != nullptr ? g.z.msg : "corrupt data") + " at compressed byte " +
               std::to_string(at);
      eof_ = true;
      return produced;
    }
    if (produced > 0) return produced;
  }
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
