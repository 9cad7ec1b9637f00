#include "pcap_file.hpp"

namespace testcommon {

void put16le(Bytes& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v & 0xFF));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32le(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>((v >> (8 * i)) & 0xFF));
}
void put16be(Bytes& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v & 0xFF));
}
void put32be(Bytes& b, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) b.push_back(static_cast<std::uint8_t>((v >> (8 * i)) & 0xFF));
}
void append(Bytes& b, const Bytes& more) { b.insert(b.end(), more.begin(), more.end()); }

Bytes pcap_file(std::uint32_t magic, std::uint32_t linktype, const std::vector<Record>& recs, std::uint32_t snaplen) {
  Bytes f;
  put32le(f, magic);
  put16le(f, 2);  // version 2.4
  put16le(f, 4);
  put32le(f, 0);  // thiszone
  put32le(f, 0);  // sigfigs
  put32le(f, snaplen);
  put32le(f, linktype);
  for (const Record& r : recs) {
    put32le(f, r.sec);
    put32le(f, r.frac);
    put32le(f, static_cast<std::uint32_t>(r.data.size()));
    put32le(f, r.orig_len != 0 ? r.orig_len : static_cast<std::uint32_t>(r.data.size()));
    append(f, r.data);
  }
  return f;
}

bool edit_record_times(Bytes& file,
                       const std::function<void(std::uint64_t frame, std::uint32_t& sec, std::uint32_t& frac)>& edit) {
  if (file.size() < 24) return false;
  // The magic as written in the file's own byte order: d4 c3 b2 a1 / 4d 3c b2 a1 little-endian.
  const bool le = file[0] == 0xd4 || file[0] == 0x4d;
  const bool be = file[3] == 0xd4 || file[3] == 0x4d;
  if (!le && !be) return false;
  auto get = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{file[at + (le ? i : 3 - i)]} << (8 * i);
    return v;
  };
  auto put = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) file[at + (le ? i : 3 - i)] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  std::uint64_t frame = 0;
  for (std::size_t at = 24; at + 16 <= file.size(); at += 16 + std::size_t{get(at + 8)}) {
    std::uint32_t sec = get(at), frac = get(at + 4);
    edit(++frame, sec, frac);
    put(at, sec);
    put(at + 4, frac);
  }
  return true;
}

}  // namespace testcommon
