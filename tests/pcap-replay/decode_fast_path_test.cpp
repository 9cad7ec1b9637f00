// decode_frame_into's shortcut for the common frame (untagged Ethernet, IPv4
// without options or IPv6 without extension headers, whole TCP) against the
// general walk (decode_frame_general):
// the same kind, error, warning and Segment for every frame of the lab's and
// the shared captures, and for every one-byte change, truncation and wire
// length of a plain frame's headers. Each frame is decoded into a Segment
// that held another frame before (as the reader reuses one), so a field the
// shortcut forgets to set is caught too.

#include <doctest/doctest.h>

#include <pcap/pcap.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <replay/input/decode_frame.hpp>

#include "common/paths.hpp"

namespace {

struct Frame {
  int dlt;
  std::vector<std::uint8_t> bytes;
  std::uint32_t wire_len;
};

std::vector<Frame> read_frames(const std::filesystem::path& p, std::size_t most) {
  std::vector<Frame> out;
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* h = pcap_open_offline(p.c_str(), err);
  if (h == nullptr) return out;
  const int dlt = pcap_datalink(h);
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  while (out.size() < most && pcap_next_ex(h, &hdr, &data) == 1)
    out.push_back(Frame{dlt, std::vector<std::uint8_t>(data, data + hdr->caplen), hdr->len});
  pcap_close(h);
  return out;
}

// Every field decode_frame_into promises for kTcp (decode_frame.hpp).
std::string describe(const replay::Segment& s) {
  const auto& t = s.tcp;
  const auto& o = t.options;
  std::string d = wire::to_string(s.src) + ">" + wire::to_string(s.dst) + " v" +
                  std::to_string(s.src.address.version) + "/" + std::to_string(s.dst.address.version) +
                  " seq " + std::to_string(t.seq) + " ack " + std::to_string(t.ack) + " off " +
                  std::to_string(t.data_offset) + " fl " + std::to_string(t.flags) + " win " +
                  std::to_string(t.window) + " ck " + std::to_string(t.checksum) + " urg " +
                  std::to_string(t.urgent) + " mss " + std::to_string(o.mss.value_or(0)) + "/" +
                  std::to_string(o.mss.has_value()) + " ws " + std::to_string(o.window_scale.value_or(0)) + "/" +
                  std::to_string(o.window_scale.has_value()) + " sp " + std::to_string(o.sack_permitted) + " ts " +
                  std::to_string(o.tsval.value_or(0)) + "/" + std::to_string(o.tsval.has_value()) + " " +
                  std::to_string(o.tsecr.value_or(0)) + "/" + std::to_string(o.tsecr.has_value()) + " sack";
  for (std::uint8_t i = 0; i < o.sack_count && i < o.sack.size(); ++i)
    d += " " + std::to_string(o.sack[i].left) + "-" + std::to_string(o.sack[i].right);
  d += " len " + std::to_string(s.payload_len) + " fl6 " + std::to_string(s.flow_label) + " id " +
       (s.ip_id ? std::to_string(*s.ip_id) : std::string("-")) + " ipck " + std::to_string(s.ip_checksum) +
       " ttl " + std::to_string(s.ip_ttl) + " vnets " + std::to_string(s.vnet.count) + " cut " +
       std::to_string(s.tcp_options_cut) + " bad " + std::to_string(s.tcp_options_bad);
  for (std::size_t i = 0; i < s.vnet.count; ++i) d += " " + std::to_string(s.vnet.ids[i]);
  return d;
}

struct Outcome {
  replay::FrameKind kind;
  std::string text;
};

template <class Decode>
Outcome decode(Decode&& f, const Frame& fr, replay::Segment& s) {
  replay::FrameIssue issue;
  const replay::FrameKind k = f(fr.dlt, std::span<const std::uint8_t>(fr.bytes), fr.wire_len, s, issue);
  std::string text;
  if (k == replay::FrameKind::kMalformed) text = issue.error.field + ": " + issue.error.message;
  if (k == replay::FrameKind::kTcp) {
    text = describe(s);
    if (issue.warning) text += " warning " + issue.warning->field + ": " + issue.warning->message;
  }
  return {k, text};
}

// Decodes `frames` both ways, each into a Segment that held the previous
// frame; returns how many came out as TCP (the same both ways: checked).
std::size_t hold_against_general(const std::vector<Frame>& frames) {
  replay::Segment fast, general;
  std::size_t tcp = 0;
  for (const Frame& fr : frames) {
    const Outcome a = decode(replay::decode_frame_into, fr, fast);
    const Outcome b = decode(replay::decode_frame_general, fr, general);
    INFO("frame of " << fr.bytes.size() << " bytes, wire " << fr.wire_len);
    REQUIRE(static_cast<int>(a.kind) == static_cast<int>(b.kind));
    REQUIRE(a.text == b.text);
    tcp += a.kind == replay::FrameKind::kTcp ? 1 : 0;
  }
  return tcp;
}

}  // namespace

TEST_CASE("decode shortcut: the lab's and the shared captures' frames decode as by the general walk") {
  std::vector<std::filesystem::path> files;
  for (const auto& dir : {testcommon::repo_root() / "tests/captures/lab", testcommon::shared_dir() / "traces/linux",
                          testcommon::shared_dir() / "traces/public"})
    if (std::filesystem::is_directory(dir))
      for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".pcap" || e.path().extension() == ".pcapng") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 10);
  std::size_t frames = 0, tcp = 0;
  for (const auto& f : files) {
    const std::vector<Frame> fr = read_frames(f, 5000);
    INFO(f.string());
    tcp += hold_against_general(fr);
    frames += fr.size();
  }
  MESSAGE(frames << " frames of " << files.size() << " captures, " << tcp << " TCP");
  CHECK(tcp > 10000);
}

TEST_CASE("decode shortcut: every one-byte change, cut and wire length of a plain frame's headers decodes as by the general walk") {
  // A plain frame (Ethernet, IPv4, TCP with timestamps) and a SACK-bearing one.
  const std::vector<Frame> plain = read_frames(testcommon::repo_root() / "tests/captures/lab/spurious-rto-eifel.pcap", 400);
  REQUIRE(plain.size() == 400);
  std::vector<Frame> seeds{plain[0], plain[1], plain[5]};
  // An IPv6 one made from the first: the same Ethernet addresses and TCP
  // segment under a 40-byte IPv6 header (flow label 0x12345, fd00::1 ->
  // fd00::2, hop limit 64), whatever traces are at hand.
  {
    const Frame& v4 = plain[0];
    const std::uint32_t tcp_len = (std::uint32_t{v4.bytes[16]} << 8 | v4.bytes[17]) - 20;  // IPv4 total - header
    Frame v6{1, std::vector<std::uint8_t>(v4.bytes.begin(), v4.bytes.begin() + 12), v4.wire_len + 20};
    const std::uint8_t head[] = {0x86, 0xDD, 0x60, 0x01, 0x23, 0x45, static_cast<std::uint8_t>(tcp_len >> 8),
                                 static_cast<std::uint8_t>(tcp_len), 6, 64};
    v6.bytes.insert(v6.bytes.end(), std::begin(head), std::end(head));
    for (std::uint8_t last : {1, 2}) {
      const std::uint8_t addr[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last};
      v6.bytes.insert(v6.bytes.end(), std::begin(addr), std::end(addr));
    }
    v6.bytes.insert(v6.bytes.end(), v4.bytes.begin() + 14 + 20, v4.bytes.end());
    seeds.push_back(v6);
  }
  for (const Frame& f : plain)
    if (f.bytes.size() > 66 && f.bytes[14 + 20 + 12] >> 4 > 8) {  // a longer TCP header: SACK blocks
      seeds.push_back(f);
      break;
    }
  MESSAGE(seeds.size() << " seed frames (IPv4 plain, IPv4 with SACK, IPv6)");
  std::vector<Frame> variants;
  for (const Frame& seed : seeds) {
    const std::size_t headers = std::min<std::size_t>(seed.bytes.size(), 14 + 40 + 60);
    for (std::size_t i = 0; i < headers; ++i)
      for (std::uint8_t v : {std::uint8_t{0x00}, std::uint8_t{0xFF}, static_cast<std::uint8_t>(seed.bytes[i] ^ 0x80),
                             static_cast<std::uint8_t>(seed.bytes[i] ^ 0x01), static_cast<std::uint8_t>(seed.bytes[i] ^ 0x10)}) {
        Frame m = seed;
        m.bytes[i] = v;
        variants.push_back(m);
      }
    for (std::size_t cut = 0; cut <= seed.bytes.size(); ++cut) {
      Frame m = seed;
      m.bytes.resize(cut);
      variants.push_back(m);  // cut by a snaplen: the wire length stays
    }
    for (std::uint32_t w : {0u, 13u, 14u, 33u, 34u, 53u, 54u, seed.wire_len - 1, seed.wire_len + 1, seed.wire_len + 4000}) {
      Frame m = seed;
      m.wire_len = w;
      variants.push_back(m);
    }
    for (int dlt : {0, 12, 101, 113, 276}) {  // the same bytes under other link types
      Frame m = seed;
      m.dlt = dlt;
      variants.push_back(m);
    }
  }
  // The seeds themselves are plain frames: TCP both ways (the IPv6 one included).
  CHECK(hold_against_general(seeds) == seeds.size());
  const std::size_t tcp = hold_against_general(variants);
  MESSAGE(variants.size() << " variants, " << tcp << " decoded as TCP");
  CHECK(tcp > variants.size() / 2);
}
