// One Decompressor per format, each a thin loop around its library's
// streaming call: compressed bytes in through a buffer, decompressed out.
#include "input/decompressor.hpp"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace replay {

namespace {

constexpr std::size_t kInChunk = 256 * 1024;  // compressed bytes read at a time

struct Magic {
  Compression format;
  std::array<std::uint8_t, kCompressionMagicBytes> bytes;
  std::size_t size;
};
// RFC 1952 2.3.1 (ID1 ID2); RFC 8878 3.1.1 (0xFD2FB528 little-endian); the
// .xz file format 2.1.1.1 (Header Magic Bytes); bzip2's "BZh".
constexpr std::array<Magic, 4> kMagics{{{Compression::gzip, {0x1f, 0x8b}, 2},
                                        {Compression::zstd, {0x28, 0xb5, 0x2f, 0xfd}, 4},
                                        {Compression::xz, {0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00}, 6},
                                        {Compression::bzip2, {0x42, 0x5a, 0x68}, 3}}};

// The compressed input: the head bytes first, then what `raw` reads; counts them.
class Input {
 public:
  explicit Input(std::span<const std::uint8_t> head) : buf_(kInChunk) {
    std::memcpy(buf_.data(), head.data(), head.size());
    avail_ = head.size();
    consumed_ = 0;
  }
  // Refills when empty; false at the end of the input.
  bool refill(const RawRead& raw) {
    if (avail_ > 0) return true;
    const std::size_t n = raw(buf_.data(), buf_.size());
    next_ = 0;
    avail_ = n;
    return n > 0;
  }
  const std::uint8_t* data() const { return buf_.data() + next_; }
  std::size_t avail() const { return avail_; }
  void used(std::size_t n) {
    next_ += n;
    avail_ -= n;
    consumed_ += n;
  }
  std::uint64_t consumed() const { return consumed_; }

 private:
  std::vector<std::uint8_t> buf_;
  std::size_t next_ = 0, avail_ = 0;
  std::uint64_t consumed_ = 0;
};

// Where the decoder stopped: zlib reports the byte it reached; the others
// take their input a buffer at a time, so the damage is within what was read.
std::string at(std::string_view format, std::string_view why, const Input& in) {
  return std::string(format) + ": " + std::string(why) + " at compressed byte " + std::to_string(in.consumed());
}
std::string within(std::string_view format, std::string_view why, const Input& in) {
  return std::string(format) + ": " + std::string(why) + " within the first " +
         std::to_string(in.consumed() + in.avail()) + " compressed bytes";
}

class Gzip final : public Decompressor {
 public:
  explicit Gzip(std::span<const std::uint8_t> head, std::string& error) : in_(head) {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) error = "gzip: zlib cannot initialise";
    else init_ = true;
  }
  ~Gzip() override {
    if (init_) inflateEnd(&z_);
  }
  std::size_t read(std::uint8_t* out, std::size_t cap, const RawRead& raw, std::string& error) override {
    for (;;) {
      if (!in_.refill(raw)) {
        if (!ended_ && error.empty()) error = "gzip: the compressed stream is cut short";
        return 0;
      }
      if (ended_) {  // another member follows (gzip -d reads concatenated members as one stream)
        if (inflateReset(&z_) != Z_OK) return 0;
        ended_ = false;
      }
      z_.next_in = const_cast<Bytef*>(in_.data());
      z_.avail_in = static_cast<uInt>(in_.avail());
      z_.next_out = out;
      z_.avail_out = static_cast<uInt>(cap);
      const int rc = inflate(&z_, Z_NO_FLUSH);
      in_.used(in_.avail() - z_.avail_in);
      const std::size_t produced = cap - z_.avail_out;
      if (rc == Z_STREAM_END) {
        ended_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        error = at("gzip", z_.msg != nullptr ? z_.msg : "corrupt data", in_);
        return produced;
      }
      if (produced > 0) return produced;
    }
  }

 private:
  Input in_;
  z_stream z_{};
  bool init_ = false, ended_ = false;
};

class Zstd final : public Decompressor {
 public:
  explicit Zstd(std::span<const std::uint8_t> head, std::string& error) : in_(head), d_(ZSTD_createDStream()) {
    if (d_ == nullptr) error = "zstd: cannot initialise";
  }
  ~Zstd() override { ZSTD_freeDStream(d_); }
  std::size_t read(std::uint8_t* out, std::size_t cap, const RawRead& raw, std::string& error) override {
    for (;;) {
      if (!in_.refill(raw)) {
        if (!frame_done_ && error.empty()) error = "zstd: the compressed stream is cut short";
        return 0;
      }
      ZSTD_inBuffer ib{in_.data(), in_.avail(), 0};
      ZSTD_outBuffer ob{out, cap, 0};
      const std::size_t rc = ZSTD_decompressStream(d_, &ob, &ib);
      in_.used(ib.pos);
      if (ZSTD_isError(rc)) {
        error = within("zstd", ZSTD_getErrorName(rc), in_);
        return ob.pos;
      }
      frame_done_ = rc == 0;  // a frame ended; the next bytes, if any, begin another
      if (ob.pos > 0) return ob.pos;
    }
  }

 private:
  Input in_;
  ZSTD_DStream* d_;
  bool frame_done_ = false;
};

class Xz final : public Decompressor {
 public:
  explicit Xz(std::span<const std::uint8_t> head, std::string& error) : in_(head) {
    // Concatenated .xz streams as one, as xz -d reads them; no memory limit
    // beyond the format's own (the dictionary the file declares).
    if (lzma_stream_decoder(&s_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) error = "xz: liblzma cannot initialise";
  }
  ~Xz() override { lzma_end(&s_); }
  std::size_t read(std::uint8_t* out, std::size_t cap, const RawRead& raw, std::string& error) override {
    if (ended_) return 0;  // liblzma is not to be called again after the end
    for (;;) {
      const bool more = in_.refill(raw);
      s_.next_in = in_.data();
      s_.avail_in = more ? in_.avail() : 0;
      s_.next_out = out;
      s_.avail_out = cap;
      const lzma_ret rc = lzma_code(&s_, more ? LZMA_RUN : LZMA_FINISH);
      in_.used(in_.avail() - s_.avail_in);
      const std::size_t produced = cap - s_.avail_out;
      if (rc == LZMA_STREAM_END) {
        ended_ = true;
        return produced;
      }
      if (rc != LZMA_OK) {
        if (rc == LZMA_BUF_ERROR && !more) error = "xz: the compressed stream is cut short";
        else error = within("xz", rc == LZMA_DATA_ERROR ? "corrupt data" : rc == LZMA_FORMAT_ERROR ? "not an .xz stream"
                                   : rc == LZMA_MEM_ERROR ? "out of memory" : "cannot decode", in_);
        return produced;
      }
      if (produced > 0) return produced;
      if (!more) {
        error = "xz: the compressed stream is cut short";
        return 0;
      }
    }
  }

 private:
  Input in_;
  lzma_stream s_ = LZMA_STREAM_INIT;
  bool ended_ = false;
};

class Bzip2 final : public Decompressor {
 public:
  explicit Bzip2(std::span<const std::uint8_t> head, std::string& error) : in_(head) {
    if (BZ2_bzDecompressInit(&s_, 0, 0) != BZ_OK) error = "bzip2: libbz2 cannot initialise";
    else init_ = true;
  }
  ~Bzip2() override {
    if (init_) BZ2_bzDecompressEnd(&s_);
  }
  std::size_t read(std::uint8_t* out, std::size_t cap, const RawRead& raw, std::string& error) override {
    for (;;) {
      if (!in_.refill(raw)) {
        if (!ended_ && error.empty()) error = "bzip2: the compressed stream is cut short";
        return 0;
      }
      if (ended_) {  // another stream follows (bzip2 -d reads concatenated streams as one)
        BZ2_bzDecompressEnd(&s_);
        init_ = BZ2_bzDecompressInit(&s_, 0, 0) == BZ_OK;
        if (!init_) {
          error = "bzip2: libbz2 cannot initialise";
          return 0;
        }
        ended_ = false;
      }
      s_.next_in = const_cast<char*>(reinterpret_cast<const char*>(in_.data()));
      s_.avail_in = static_cast<unsigned>(std::min<std::size_t>(in_.avail(), UINT32_MAX));
      s_.next_out = reinterpret_cast<char*>(out);
      s_.avail_out = static_cast<unsigned>(std::min<std::size_t>(cap, UINT32_MAX));
      const std::size_t before = s_.avail_in;
      const unsigned out_before = s_.avail_out;
      const int rc = BZ2_bzDecompress(&s_);
      in_.used(before - s_.avail_in);
      const std::size_t produced = out_before - s_.avail_out;
      if (rc == BZ_STREAM_END) {
        ended_ = true;
      } else if (rc != BZ_OK) {
        error = within("bzip2", rc == BZ_DATA_ERROR || rc == BZ_DATA_ERROR_MAGIC ? "corrupt data" : "cannot decode", in_);
        return produced;
      }
      if (produced > 0) return produced;
    }
  }

 private:
  Input in_;
  bz_stream s_{};
  bool init_ = false, ended_ = false;
};

}  // namespace

std::string_view to_string(Compression c) {
  switch (c) {
    case Compression::none: return "";
    case Compression::gzip: return "gzip";
    case Compression::zstd: return "zstd";
    case Compression::xz: return "xz";
    case Compression::bzip2: return "bzip2";
  }
  return "";
}

Compression compression_of(std::span<const std::uint8_t> head) {
  for (const Magic& m : kMagics)
    if (head.size() >= m.size && std::equal(m.bytes.begin(), m.bytes.begin() + m.size, head.begin())) return m.format;
  return Compression::none;
}

std::unique_ptr<Decompressor> make_decompressor(Compression c, std::span<const std::uint8_t> head, std::string& error) {
  std::unique_ptr<Decompressor> d;
  switch (c) {
    case Compression::none: return nullptr;
    case Compression::gzip: d = std::make_unique<Gzip>(head, error); break;
    case Compression::zstd: d = std::make_unique<Zstd>(head, error); break;
    case Compression::xz: d = std::make_unique<Xz>(head, error); break;
    case Compression::bzip2: d = std::make_unique<Bzip2>(head, error); break;
  }
  if (!error.empty()) return nullptr;
  return d;
}

}  // namespace replay
