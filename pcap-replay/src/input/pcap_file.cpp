// Classic pcap parser with resynchronisation after a damaged record header.
#include "input/pcap_file.hpp"

#include <algorithm>

namespace replay {
namespace {

constexpr std::uint32_t kMagicMicro = 0xA1B2C3D4;
constexpr std::uint32_t kMagicNano = 0xA1B23C4D;
constexpr std::size_t kFileHeader = 24;
constexpr std::size_t kRecordHeader = 16;
constexpr std::size_t kScanChunk = 1u << 20;  // positions tried per buffer fill while scanning
constexpr std::uint32_t kFcsBitsMask = 0x03FFFFFF;  // LINKTYPE in the low 26 bits (FCS length above)

std::uint32_t swap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) | (v << 24);
}
std::uint32_t load_le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
}

struct Header {
  std::uint32_t sec, frac, caplen, len;
};

class PcapParser final : public RecordParser {
 public:
  PcapParser(ByteStream& in, bool swapped, bool nano, int dlt, std::uint32_t snaplen)
      : in_(in), swapped_(swapped), nano_(nano), dlt_(dlt), snaplen_(snaplen) {}

  int first_dlt() const override { return dlt_; }
  std::optional<RawInterface> interface(std::uint32_t index) const override {
    if (index != 0) return std::nullopt;
    return RawInterface{dlt_, snaplen_};
  }

  ParseStep next(RawRecord& out) override {
    for (;;) {
      if (pending_consume_ > 0) {
        in_.consume(pending_consume_);
        pending_consume_ = 0;
      }
      const std::uint64_t at = in_.offset();
      auto w = in_.peek(kRecordHeader);
      if (w.empty()) return ParseStep::kEnd;
      if (w.size() < kRecordHeader) {
        damage_ = Damage{at, at + w.size(), false, std::uint64_t{1},
                         "read error: the file ends " + std::to_string(w.size()) + " bytes into a record header (truncated)" + tail()};
        in_.consume(w.size());
        return ParseStep::kDamage;
      }
      const Header h = header(w.data());
      if (h.caplen > kMaxCaplen) {
        damage_.begin = at;
        damage_.message = "record header claims caplen " + std::to_string(h.caplen) + " (more than " +
                          std::to_string(kMaxCaplen) + " bytes)";
        resync(at);
        return ParseStep::kDamage;
      }
      w = in_.peek(kRecordHeader + h.caplen);
      if (w.size() < kRecordHeader + h.caplen) {
        damage_ = Damage{at, at + w.size(), false, std::uint64_t{1},
                         "read error: truncated record: " + std::to_string(w.size() - kRecordHeader) + " of its " +
                             std::to_string(h.caplen) + " captured bytes are in the file" + tail()};
        in_.consume(w.size());
        return ParseStep::kDamage;
      }
      out.data = w.subspan(kRecordHeader, h.caplen);
      out.wire_len = h.len;
      out.dlt = dlt_;
      out.snaplen = snaplen_;
      out.interface = 0;
      out.offset = at;
      out.no_timestamp = false;
      out.bad_interface = false;
      const std::uint32_t unit = nano_ ? 1'000'000'000u : 1'000'000u;
      if (h.frac >= unit) {
        out.time_issue = TimeIssue::kFractionTooLarge;
        out.raw_fraction = h.frac;
        out.fraction_unit = nano_ ? "ns" : "\xC2\xB5s";
      } else {
        out.time_issue = TimeIssue::kNone;
        // Unsigned 32-bit seconds: at most 4294967295 * 1e9 + 999999999 < 2^63.
        out.time_ns = static_cast<std::int64_t>(h.sec) * 1'000'000'000 +
                      static_cast<std::int64_t>(nano_ ? h.frac : h.frac * 1000u);
        last_sec_ = h.sec;
        have_last_ = true;
      }
      pending_consume_ = kRecordHeader + h.caplen;
      return ParseStep::kRecord;
    }
  }

 private:
  Header header(const std::uint8_t* p) const {
    auto v = [&](int i) {
      const std::uint32_t x = load_le32(p + 4 * i);
      return swapped_ ? swap32(x) : x;
    };
    return Header{v(0), v(1), v(2), v(3)};
  }

  static std::string tail() { return "; the record is lost"; }

  // A header that could start a record, judged on its own.
  bool plausible(const Header& h) const {
    // A packet has at least one byte on the wire; a file's records respect its snaplen.
    if (h.len == 0 || h.caplen > kMaxCaplen || h.caplen > h.len) return false;
    if (snaplen_ != 0 && snaplen_ <= kMaxCaplen && h.caplen > snaplen_) return false;
    if (h.frac >= (nano_ ? 1'000'000'000u : 1'000'000u)) return false;
    if (have_last_) {
      const std::uint32_t d = h.sec > last_sec_ ? h.sec - last_sec_ : last_sec_ - h.sec;
      if (d > kResyncMaxJumpSeconds) return false;
    }
    return true;
  }

  // Whether a chain of plausible headers starts at w[pos] (or the stream ends
  // exactly at a record boundary).
  bool chain_at(std::span<const std::uint8_t> w, std::size_t pos, bool window_is_eof) const {
    for (int k = 0; k < kResyncConfirmRecords; ++k) {
      if (pos == w.size() && window_is_eof) return k > 0;
      if (pos + kRecordHeader > w.size()) return false;
      const Header h = header(w.data() + pos);
      if (!plausible(h)) return false;
      pos += kRecordHeader + h.caplen;
      if (pos > w.size()) return false;
    }
    return true;
  }

  // Skips from the damaged header at `at` to the next plausible record.
  void resync(std::uint64_t at) {
    constexpr std::size_t lookahead = kResyncConfirmRecords * (kRecordHeader + kMaxCaplen);
    std::size_t skip = 1;  // bytes past `at` not yet tried
    for (;;) {
      auto w = in_.peek(kScanChunk + lookahead);
      const bool eof = w.size() < kScanChunk + lookahead;
      const std::size_t limit = std::min(w.size(), kScanChunk);
      for (std::size_t p = skip; p < limit; ++p) {
        if (chain_at(w, p, eof)) {
          in_.consume(p);
          const std::uint64_t end = in_.offset();
          damage_.end = end;
          damage_.resynced = true;
          damage_.frames = end - at <= kRecordHeader + kMaxCaplen ? std::optional<std::uint64_t>(1) : std::nullopt;
          damage_.message += "; bytes " + std::to_string(at) + "-" + std::to_string(end - 1) +
                             " are skipped and reading resumes at the next plausible record";
          return;
        }
      }
      if (eof && limit == w.size()) {
        in_.consume(w.size());
        damage_.lost_to_end(in_.offset(), "plausible record");
        return;
      }
      in_.consume(limit);
      skip = 0;
    }
  }

  ByteStream& in_;
  bool swapped_, nano_;
  int dlt_;
  std::uint32_t snaplen_;
  std::size_t pending_consume_ = 0;
  std::uint32_t last_sec_ = 0;
  bool have_last_ = false;
};

}  // namespace

bool is_pcap_magic(std::span<const std::uint8_t> head) {
  if (head.size() < 4) return false;
  const std::uint32_t m = load_le32(head.data());
  return m == kMagicMicro || m == kMagicNano || m == swap32(kMagicMicro) || m == swap32(kMagicNano);
}

std::variant<std::unique_ptr<RecordParser>, std::string> make_pcap_parser(ByteStream& in, const std::string& name) {
  auto w = in.peek(kFileHeader);
  if (w.size() < kFileHeader) {
    return name + ": cannot open: truncated pcap file header (" + std::to_string(w.size()) + " of 24 bytes)";
  }
  const std::uint32_t m = load_le32(w.data());
  const bool swapped = m == swap32(kMagicMicro) || m == swap32(kMagicNano);
  const bool nano = m == kMagicNano || m == swap32(kMagicNano);
  auto v32 = [&](std::size_t off) {
    const std::uint32_t x = load_le32(w.data() + off);
    return swapped ? swap32(x) : x;
  };
  // The two 16-bit version fields, in the file's byte order.
  const auto load16 = [&](std::size_t off) -> unsigned {
    return swapped ? (unsigned{w[off]} << 8) | w[off + 1] : w[off] | (unsigned{w[off + 1]} << 8);
  };
  const unsigned vmajor = load16(4), vminor = load16(6);
  if (vmajor < 2) {
    return name + ": cannot open: archaic pcap savefile format (version " + std::to_string(vmajor) + "." +
           std::to_string(vminor) + ")";
  }
  if (vmajor != 2) {
    return name + ": cannot open: unsupported pcap savefile version " + std::to_string(vmajor) + "." +
           std::to_string(vminor);
  }
  const std::uint32_t snaplen = v32(16);
  const std::uint32_t linktype = v32(20) & kFcsBitsMask;
  in.consume(kFileHeader);
  return std::unique_ptr<RecordParser>(
      std::make_unique<PcapParser>(in, swapped, nano, dlt_of_linktype(linktype), snaplen));
}

int dlt_of_linktype(std::uint32_t linktype) {
  constexpr std::uint32_t kLinktypeRaw = 101;
  constexpr int kDltRaw = 12;
  if (linktype == kLinktypeRaw) return kDltRaw;
  return static_cast<int>(linktype);
}

}  // namespace replay
