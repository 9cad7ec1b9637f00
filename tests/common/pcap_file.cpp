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

}  // namespace testcommon
