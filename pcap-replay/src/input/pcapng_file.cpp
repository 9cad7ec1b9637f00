// pcapng parser: sections, interfaces, packet blocks, resynchronisation.
#include <replay/input/pcapng_file.hpp>
#include <replay/input/pcapng_format.hpp>

#include <algorithm>
#include <limits>
#include <vector>

namespace replay {
namespace {

using namespace pcapng;  // block types and option codes (pcapng_format.hpp)
// The other block types it knows (draft-ietf-opsawg-pcapng section 11.1).
constexpr std::uint32_t kDsb = 0x0A;         // Decryption Secrets Block
constexpr std::uint32_t kJournal = 9;        // systemd Journal Export Block
constexpr std::uint32_t kCustomCopy = 0x00000BAD;
constexpr std::uint32_t kCustomNoCopy = 0x40000BAD;
constexpr std::uint8_t kDefaultTsresol = 6;   // microseconds when if_tsresol is absent
constexpr std::size_t kMinBlock = 12;         // type, length, trailing length
constexpr std::size_t kScanChunk = 1u << 20;  // positions tried per buffer fill while scanning

std::uint32_t swap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) | (v << 24);
}
std::uint32_t le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
}

bool known_type(std::uint32_t t) {
  switch (t) {
    case kShb: case kIdb: case kOpb: case kSpb: case kNrb: case kIsb: case kEpb: case kDsb: case kJournal:
    case kCustomCopy: case kCustomNoCopy:
      return true;
    default:
      return false;
  }
}
bool packet_type(std::uint32_t t) { return t == kEpb || t == kSpb || t == kOpb; }
bool length_ok(std::uint32_t len) { return len >= kMinBlock && len % 4 == 0 && len <= kMaxBlockBytes; }

class PcapngParser final : public RecordParser {
 public:
  PcapngParser(ByteStream& in, std::string name) : in_(in), name_(std::move(name)) {}

  int first_dlt() const override { return first_dlt_; }
  std::optional<RawInterface> interface(std::uint32_t index) const override {
    if (index < section_base_ || index - section_base_ >= ifaces_.size()) return std::nullopt;
    const Iface& f = ifaces_[index - section_base_];
    return RawInterface{f.dlt, f.snaplen};
  }

  /// Reads the first SHB (and any blocks up to the first packet stays for next()).
  std::string start() {
    auto w = in_.peek(kMinBlock);
    if (w.size() < kMinBlock) return "truncated pcapng section header (" + std::to_string(w.size()) + " bytes)";
    const std::uint32_t bom = le32(w.data() + 8);
    if (bom == kByteOrderMagic) {
      swapped_ = false;
    } else if (bom == swap32(kByteOrderMagic)) {
      swapped_ = true;
    } else {
      return "the section header block's byte-order magic is not 0x1A2B3C4D in either byte order";
    }
    const std::uint32_t len = u32(w.data() + 4);
    if (!length_ok(len)) return "the section header block's total length " + std::to_string(len) + " is not valid";
    w = in_.peek(len);
    if (w.size() < len) return "the section header block is cut short (" + std::to_string(w.size()) + " of " +
                               std::to_string(len) + " bytes)";
    const std::uint32_t trailer = u32(w.data() + len - 4);
    if (trailer != len) {
      return "the section header block's total length (" + std::to_string(len) + ") and its trailing copy (" +
             std::to_string(trailer) + ") differ";
    }
    if (u16(w.data() + 12) != 1) {
      return "unsupported pcapng version " + std::to_string(u16(w.data() + 12)) + "." + std::to_string(u16(w.data() + 14));
    }
    return "";
  }

  ParseStep next(RawRecord& out) override {
    for (;;) {
      if (pending_ > 0) {
        in_.consume(pending_);
        pending_ = 0;
      }
      const std::uint64_t at = in_.offset();
      auto w = in_.peek(kMinBlock);
      if (w.empty()) return ParseStep::kEnd;
      if (w.size() < 8) return cut_short(at, w.size(), std::nullopt);
      std::uint32_t type = u32(w.data());
      if (type == kShb && w.size() >= kMinBlock) {
        const std::uint32_t bom = le32(w.data() + 8);
        if (bom == kByteOrderMagic) swapped_ = false;
        if (bom == swap32(kByteOrderMagic)) swapped_ = true;
      }
      const std::uint32_t len = u32(w.data() + 4);
      if (!length_ok(len)) {
        begin_damage(at, type, "block of type 0x" + hex(type) + " has total length " + std::to_string(len) +
                                   " (at least 12, a multiple of 4, at most " + std::to_string(kMaxBlockBytes) + ")");
        resync(at);
        return ParseStep::kDamage;
      }
      w = in_.peek(len);
      if (w.size() < len) return cut_short(at, w.size(), type);
      const std::uint32_t trailer = u32(w.data() + len - 4);
      if (trailer != len) {
        begin_damage(at, type, "block of type 0x" + hex(type) + " has total length " + std::to_string(len) +
                                   " but its trailing copy says " + std::to_string(trailer));
        resync(at);
        return ParseStep::kDamage;
      }
      pending_ = len;
      const std::span<const std::uint8_t> body = w.subspan(8, len - kMinBlock);
      switch (type) {
        case kShb:
          if (body.size() < 16) return bad_block(at, len, type, "section header block shorter than 28 bytes");
          section_base_ = static_cast<std::uint32_t>(total_ifaces_);
          ifaces_.clear();
          break;
        case kIdb:
          if (body.size() < 8) return bad_block(at, len, type, "interface description block shorter than 20 bytes");
          add_interface(body);
          break;
        case kEpb: {
          if (body.size() < 20) return bad_block(at, len, type, "enhanced packet block shorter than 32 bytes");
          const std::uint32_t caplen = u32(body.data() + 12);
          if (caplen > body.size() - 20) {
            return bad_block(at, len, type, "enhanced packet block claims " + std::to_string(caplen) +
                                                " captured bytes in a " + std::to_string(len) + "-byte block");
          }
          fill(out, at, u32(body.data()), (std::uint64_t{u32(body.data() + 4)} << 32) | u32(body.data() + 8),
               body.subspan(20, caplen), u32(body.data() + 16));
          out.options = body.subspan(std::min<std::size_t>(body.size(), 20 + (std::size_t{caplen} + 3) / 4 * 4));
          out.options_swapped = swapped_;
          return ParseStep::kRecord;
        }
        case kOpb: {
          if (body.size() < 20) return bad_block(at, len, type, "packet block shorter than 32 bytes");
          const std::uint32_t caplen = u32(body.data() + 12);
          if (caplen > body.size() - 20) {
            return bad_block(at, len, type, "packet block claims " + std::to_string(caplen) + " captured bytes in a " +
                                                std::to_string(len) + "-byte block");
          }
          fill(out, at, u16(body.data()), (std::uint64_t{u32(body.data() + 4)} << 32) | u32(body.data() + 8),
               body.subspan(20, caplen), u32(body.data() + 16));
          out.options = body.subspan(std::min<std::size_t>(body.size(), 20 + (std::size_t{caplen} + 3) / 4 * 4));
          out.options_swapped = swapped_;
          return ParseStep::kRecord;
        }
        case kSpb: {
          if (body.size() < 4) return bad_block(at, len, type, "simple packet block shorter than 16 bytes");
          const std::uint32_t orig = u32(body.data());
          std::size_t caplen = std::min<std::size_t>(orig, body.size() - 4);
          if (!ifaces_.empty() && ifaces_[0].snaplen != 0) caplen = std::min<std::size_t>(caplen, ifaces_[0].snaplen);
          fill(out, at, 0, 0, body.subspan(4, caplen), orig);
          out.no_timestamp = true;
          return ParseStep::kRecord;
        }
        default:
          break;  // name resolution, statistics, secrets, custom, unknown: not frames
      }
    }
  }

 private:
  struct Iface {
    int dlt = 0;
    std::uint32_t snaplen = 0;
    std::uint8_t tsresol = kDefaultTsresol;
    std::int64_t tsoffset = 0;
  };

  std::uint32_t u32(const std::uint8_t* p) const { return swapped_ ? swap32(le32(p)) : le32(p); }
  std::uint16_t u16(const std::uint8_t* p) const {
    return swapped_ ? static_cast<std::uint16_t>((p[0] << 8) | p[1]) : static_cast<std::uint16_t>(p[0] | (p[1] << 8));
  }
  static std::string hex(std::uint32_t v) {
    static const char* d = "0123456789ABCDEF";
    std::string s;
    for (int i = 28; i >= 0; i -= 4) s += d[(v >> i) & 0xF];
    return s;
  }

  void add_interface(std::span<const std::uint8_t> body) {
    Iface f;
    f.dlt = dlt_of_linktype(u16(body.data()));
    f.snaplen = u32(body.data() + 4);
    for_each_option(body.subspan(8), swapped_, [&](std::uint16_t code, std::span<const std::uint8_t> v) {
      if (code == kOptTsresol && !v.empty()) f.tsresol = v[0];
      if (code == kOptTsoffset && v.size() >= 8) {
        const std::uint64_t lo = u32(v.data()), hi = u32(v.data() + 4);
        // 64-bit value in the section's byte order: the first word is the low one when little-endian.
        const std::uint64_t raw = swapped_ ? (lo << 32) | hi : (hi << 32) | lo;
        f.tsoffset = static_cast<std::int64_t>(raw);
      }
    });
    if (total_ifaces_ == 0) first_dlt_ = f.dlt;
    ifaces_.push_back(f);
    ++total_ifaces_;
  }

  void fill(RawRecord& out, std::uint64_t at, std::uint32_t iface, std::uint64_t ts,
            std::span<const std::uint8_t> data, std::uint32_t wire_len) {
    out.data = data;
    out.options = {};
    out.options_swapped = false;
    out.wire_len = wire_len;
    out.offset = at;
    out.no_timestamp = false;
    out.time_issue = TimeIssue::kNone;
    out.bad_interface = iface >= ifaces_.size();
    if (out.bad_interface) {
      out.interface = iface;
      out.dlt = 0;
      out.snaplen = 0;
      return;
    }
    const Iface& f = ifaces_[iface];
    out.interface = section_base_ + iface;
    out.dlt = f.dlt;
    out.snaplen = f.snaplen;
    if (auto t = pcapng_time_ns(ts, f.tsresol, f.tsoffset)) {
      out.time_ns = *t;
    } else {
      out.time_issue = TimeIssue::kOutOfRange;
      out.raw_fraction = ts;
    }
  }

  void begin_damage(std::uint64_t at, std::uint32_t type, std::string msg) {
    damage_ = Damage{};
    damage_.begin = at;
    damage_.message = std::move(msg);
    if (packet_type(type))
      damage_.frames = 1;
    else if (known_type(type))
      damage_.frames = 0;
  }

  // A block whose lengths agree but whose content is wrong: it alone is lost.
  ParseStep bad_block(std::uint64_t at, std::uint32_t len, std::uint32_t type, const std::string& msg) {
    begin_damage(at, type, msg);
    damage_.end = at + len;
    damage_.resynced = true;
    damage_.message += "; bytes " + std::to_string(at) + "-" + std::to_string(at + len - 1) + " are skipped";
    return ParseStep::kDamage;
  }

  ParseStep cut_short(std::uint64_t at, std::size_t have, std::optional<std::uint32_t> type) {
    damage_ = Damage{};
    damage_.begin = at;
    damage_.end = at + have;
    damage_.resynced = false;
    damage_.frames = type && packet_type(*type) ? std::optional<std::uint64_t>(1) : std::nullopt;
    damage_.message = "read error: the file ends " + std::to_string(have) + " bytes into a block (truncated); the block is lost";
    in_.consume(have);
    return ParseStep::kDamage;
  }

  // Whether a valid block starts at w[p]: a known type (a section header with
  // its byte-order magic), a length length_ok accepts, the trailing copy equal,
  // and an EPB's interface and captured length possible. When the type and
  // length are plausible but the block runs past the end of `w`, returns false
  // and sets *need (if given) to p + length, the bytes needed to decide.
  bool block_at(std::span<const std::uint8_t> w, std::size_t p, std::size_t* need = nullptr) const {
    if (p + kMinBlock > w.size()) return false;
    bool sw = swapped_;
    const std::uint32_t raw_type = le32(w.data() + p);
    if (raw_type == kShb) {
      const std::uint32_t bom = le32(w.data() + p + 8);
      if (bom != kByteOrderMagic && bom != swap32(kByteOrderMagic)) return false;
      sw = bom != kByteOrderMagic;
    }
    auto rd = [&](std::size_t off) { return sw ? swap32(le32(w.data() + off)) : le32(w.data() + off); };
    const std::uint32_t type = rd(p);
    if (!known_type(type)) return false;
    const std::uint32_t len = rd(p + 4);
    if (!length_ok(len)) return false;
    if (p + len > w.size()) {
      if (need != nullptr) *need = p + len;
      return false;
    }
    if (rd(p + len - 4) != len) return false;
    if (type == kEpb && (len < 32 || rd(p + 8) >= ifaces_.size() || rd(p + 20) > len - 32)) return false;
    return true;
  }

  // Skips from the damaged block at `at` to the next valid block, trying the
  // positions 4, 8, ... bytes past `at` (blocks are 4-aligned). The positions
  // are tried kScanChunk at a time over a window of just those bytes (plus one
  // block header); only a position whose type and length are plausible makes
  // the window reach to its trailing length. So the scan costs the bytes it
  // passes plus the blocks it examines, never a kMaxBlockBytes read-ahead per
  // step.
  void resync(std::uint64_t at) {
    std::size_t first = 4;  // the first position of this step, relative to the read position
    for (;;) {
      auto w = in_.peek(kScanChunk + kMinBlock);
      const bool eof = w.size() < kScanChunk + kMinBlock;
      for (std::size_t p = first; p < kScanChunk && p + kMinBlock <= w.size(); p += 4) {
        std::size_t need = 0;
        if (!block_at(w, p, &need)) {
          if (need == 0) continue;
          w = in_.peek(need);  // same read position: w only grows
          if (!block_at(w, p)) continue;
        }
        in_.consume(p);
        damage_.end = in_.offset();
        damage_.resynced = true;
        damage_.message += "; bytes " + std::to_string(at) + "-" + std::to_string(damage_.end - 1) +
                           " are skipped and reading resumes at the next valid block";
        return;
      }
      if (eof) {
        in_.consume(w.size());
        damage_.lost_to_end(in_.offset(), "valid block");
        return;
      }
      in_.consume(kScanChunk);  // a multiple of 4: the next positions stay 4-aligned to `at`
      first = 0;
    }
  }

  ByteStream& in_;
  std::string name_;
  bool swapped_ = false;
  std::vector<Iface> ifaces_;
  std::uint32_t section_base_ = 0;
  std::size_t total_ifaces_ = 0;
  int first_dlt_ = 0;
  std::size_t pending_ = 0;
};

}  // namespace

bool is_pcapng_magic(std::span<const std::uint8_t> head) { return head.size() >= 4 && le32(head.data()) == kShb; }

std::variant<std::unique_ptr<RecordParser>, std::string> make_pcapng_parser(ByteStream& in, const std::string& name) {
  auto p = std::make_unique<PcapngParser>(in, name);
  if (std::string e = p->start(); !e.empty()) return name + ": cannot open: " + e;
  return std::unique_ptr<RecordParser>(std::move(p));
}

std::optional<std::int64_t> pcapng_time_ns(std::uint64_t ts, std::uint8_t tsresol, std::int64_t offset_s) {
  __extension__ using i128 = __int128;
  constexpr i128 kNsPerS = 1'000'000'000;
  const unsigned n = tsresol & 0x7F;
  i128 ns = 0;
  if ((tsresol & 0x80) != 0) {
    // 2^-n s: ts * 1e9 / 2^n; ts * 1e9 < 2^94 fits in 128 bits.
    const i128 scaled = static_cast<i128>(ts) * kNsPerS;
    ns = n >= 127 ? 0 : scaled >> n;
  } else if (n <= 9) {
    i128 mul = 1;
    for (unsigned i = n; i < 9; ++i) mul *= 10;
    ns = static_cast<i128>(ts) * mul;  // at most 2^64 * 1e9 < 2^94
  } else {
    i128 div = 1;
    for (unsigned i = 9; i < n && div <= static_cast<i128>(std::numeric_limits<std::uint64_t>::max()); ++i) div *= 10;
    ns = static_cast<i128>(ts) / div;
  }
  ns += static_cast<i128>(offset_s) * kNsPerS;
  if (ns > std::numeric_limits<std::int64_t>::max() || ns < std::numeric_limits<std::int64_t>::min()) return std::nullopt;
  return static_cast<std::int64_t>(ns);
}

}  // namespace replay
