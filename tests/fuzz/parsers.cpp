// Fuzz harness: the pcap and pcapng record parsers with resynchronisation
// (pcap_file.hpp, pcapng_file.hpp) over a ByteStream of the input.
// Invariants beyond "no crash":
//  - every record's bytes are the file's bytes at its offset (no copy error);
//  - pcap: the file header, the records (16 + caplen bytes each) and the
//    damaged stretches tile the input exactly, in order: nothing lost silently;
//  - pcapng: records and damage come in file order, never overlap, and the
//    parser ends at the end of the input;
//  - damage that did not resynchronise reaches the end of the input;
//  - the parser ends (a bounded number of steps: each one consumes bytes).
#include <cstring>

#include <replay/input/byte_stream.hpp>
#include <replay/input/capture_format.hpp>
#include <replay/input/pcapng_file.hpp>

#include "common/memory_file.hpp"
#include "input/pcap_file.hpp"

namespace {

std::uint32_t le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
}

constexpr std::size_t kPcapFileHeader = 24, kPcapRecordHeader = 16;
constexpr std::size_t kNgPacketHeader = 28;  // EPB / OPB: type, length, 20 bytes of fields
constexpr std::size_t kNgSimpleHeader = 12;  // SPB: type, length, original length
constexpr std::uint32_t kSpbType = 3, kSpbTypeSwapped = 0x03000000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace replay;
  const std::span<const std::uint8_t> input(data, size);
  fuzz::MemoryFile file(input);
  auto opened = ByteStream::open(file.path());
  fuzz::check(std::holds_alternative<ByteStream>(opened), "a memfd opens");
  ByteStream& in = std::get<ByteStream>(opened);
  if (in.compressed()) return 0;  // the gzip harness's surface
  const auto head = in.peek(4);
  const bool pcap = is_pcap_magic(head);
  if (!pcap && !is_pcapng_magic(head)) return 0;
  auto made = pcap ? make_pcap_parser(in, "in") : make_pcapng_parser(in, "in");
  if (auto* e = std::get_if<std::string>(&made)) {
    fuzz::check(e->rfind("in: cannot open: ", 0) == 0, "an open error names the file: " + *e);
    return 0;
  }
  RecordParser& p = *std::get<std::unique_ptr<RecordParser>>(made);
  std::uint64_t cursor = pcap ? kPcapFileHeader : 0;  // where the next record or damage may start
  RawRecord rec;
  for (std::size_t steps = 0;; ++steps) {
    fuzz::check(steps <= size, "the parser ends within one step per input byte");
    const ParseStep step = p.next(rec);
    if (step == ParseStep::kEnd) break;
    if (step == ParseStep::kDamage) {
      const Damage& d = p.damage();
      fuzz::check(!d.message.empty(), "damage says what was wrong");
      fuzz::check(pcap ? d.begin == cursor : d.begin >= cursor, "damage starts where reading was");
      fuzz::check(d.end > d.begin && d.end <= size, "damage is a non-empty range inside the input");
      if (!d.resynced) fuzz::check(d.end == size, "damage that does not resynchronise runs to the end");
      cursor = d.end;
      continue;
    }
    fuzz::check(pcap ? rec.offset == cursor : rec.offset >= cursor, "records come in file order, after the damage");
    std::size_t header = kPcapRecordHeader;
    if (!pcap) {
      const std::uint32_t type = le32(data + rec.offset);
      header = type == kSpbType || type == kSpbTypeSwapped ? kNgSimpleHeader : kNgPacketHeader;
    }
    fuzz::check(rec.offset + header + rec.data.size() <= size, "a record lies inside the input");
    fuzz::check(rec.data.empty() || std::memcmp(rec.data.data(), data + rec.offset + header, rec.data.size()) == 0,
                "a record's bytes are the file's bytes");
    if (pcap) {
      fuzz::check(rec.data.size() <= kMaxCaplen, "a pcap record is at most kMaxCaplen bytes");
      cursor = rec.offset + header + rec.data.size();
    } else {
      const std::uint32_t len = le32(data + rec.offset + 4);
      const std::uint32_t swapped = (len >> 24) | ((len >> 8) & 0xFF00) | ((len << 8) & 0xFF0000) | (len << 24);
      fuzz::check(rec.data.size() + kNgSimpleHeader <= std::max(len, swapped), "a packet lies inside its block");
      cursor = rec.offset + kNgSimpleHeader;  // at least the block's fixed part was read
    }
  }
  fuzz::check(in.offset() == size, "the parser reads to the end of the input");
  if (pcap) fuzz::check(cursor == size, "pcap: header, records and damage account for every byte");
  return 0;
}
