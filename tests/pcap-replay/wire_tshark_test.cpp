// The encoders checked by an independent tool: IPv4/IPv6 + TCP packets built
// with wire::encode_* and fill_tcp_checksum_* are written to a pcap and
// dissected by tshark with checksum validation on; every IP and TCP checksum
// must be "Good" and every option must read back as encoded.
#include "reader_capture_builder.hpp"

#include "common/command.hpp"
#include "common/tools.hpp"

#include <random>
#include <sstream>

using namespace readertest;

namespace {

Bytes encode_packet(bool v6, const wire::TcpHeader& t, std::size_t payload, std::mt19937& rng) {
  const std::size_t tl = 20 + wire::tcp_options_len(t.options);
  Bytes seg(tl + payload);
  REQUIRE(wire::ok(wire::encode_tcp(t, seg)));
  for (std::size_t i = tl; i < seg.size(); ++i) seg[i] = static_cast<std::uint8_t>(rng());
  Bytes pkt;
  if (v6) {
    wire::Ipv6Header h;
    h.payload_len = static_cast<std::uint16_t>(seg.size());
    h.flow_label = rng() & 0xFFFFF;
    h.src = {0xfd, 0, 0, 0, 0, 0, 0, 0x18, 0, 0, 0, 0, 0, 0, 0, 1};
    h.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0x18, 0, 0, 0, 0, 0, 0, 0, 2};
    pkt.resize(40);
    REQUIRE(wire::ok(wire::encode_ipv6(h, pkt)));
    wire::fill_tcp_checksum_v6(h.src, h.dst, seg);
  } else {
    wire::Ipv4Header h;
    h.id = static_cast<std::uint16_t>(rng());
    h.df = true;
    h.src = {198, 18, 0, 1};
    h.dst = {198, 18, 0, 2};
    pkt.resize(20);
    REQUIRE(wire::ok(wire::encode_ipv4(h, seg.size(), pkt)));
    wire::fill_tcp_checksum_v4(h.src, h.dst, seg);
  }
  append(pkt, seg);
  return pkt;
}

}  // namespace

TEST_CASE("tcp encode: tshark validates every IP and TCP checksum and reads the options back") {
  if (!testcommon::tshark_available()) return;
  std::mt19937 rng(6298);
  std::vector<Record> recs;
  std::vector<wire::TcpHeader> sent;
  for (std::uint32_t i = 0; i < 40; ++i) {
    wire::TcpHeader t;
    t.src_port = static_cast<std::uint16_t>(1024 + i);
    t.dst_port = 5001;
    t.seq = static_cast<std::uint32_t>(rng());
    t.ack = static_cast<std::uint32_t>(rng());
    t.flags = i % 4 == 0 ? wire::kSyn : wire::kAck;
    t.window = static_cast<std::uint16_t>(rng());
    if (i % 4 == 0) {
      t.options.mss = 1448;
      t.options.sack_permitted = i % 8 == 0;
      t.options.window_scale = 7;
    }
    if (i % 3 != 0) {
      t.options.tsval = static_cast<std::uint32_t>(rng());
      t.options.tsecr = static_cast<std::uint32_t>(rng());
    }
    if (i % 4 == 1) {
      t.options.sack_count = static_cast<std::uint8_t>(1 + i % 3);
      for (int k = 0; k < t.options.sack_count; ++k) t.options.sack[k] = {t.ack + 1000u * (k + 1), t.ack + 1000u * (k + 1) + 500u};
    }
    const std::size_t payload = i % 5 == 0 ? 0 : (i * 37) % 1400 + (i % 2);  // odd and even lengths
    sent.push_back(t);
    recs.push_back({1000, i, encode_packet(i % 2 == 1, t, payload, rng)});
  }
  // Control: a copy of the last packet with one payload bit flipped must be flagged bad.
  sent.push_back(sent.back());
  recs.push_back(recs.back());
  recs.back().data.back() ^= 0x01;
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 101, recs), "encoded.pcap");
  const std::string cmd = "tshark -n -r '" + path +
                          "' -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE -o tcp.relative_sequence_numbers:FALSE"
                          " -T fields -E separator=/t -e frame.number -e ip.checksum.status -e tcp.checksum.status"
                          " -e tcp.options.mss_val -e tcp.options.wscale.shift -e tcp.options.timestamp.tsval"
                          " -e tcp.options.sack_le -e tcp.seq 2>/dev/null";
  const testcommon::CommandResult tshark = testcommon::run_command(cmd);
  REQUIRE(tshark.status != -1);
  std::istringstream lines(tshark.output);
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string f[8];
    for (auto& x : f) std::getline(in, x, '\t');
    while (!f[7].empty() && (f[7].back() == '\n')) f[7].pop_back();
    REQUIRE(n < sent.size());
    const wire::TcpHeader& t = sent[n];
    CAPTURE(line);
    CHECK(std::stoul(f[0]) == n + 1);
    // tshark's checksum status: 0 bad, 1 good, 2 unverified.
    if (n == sent.size() - 1) {
      CHECK(f[2] == "0");  // the control packet with a flipped payload bit
    } else {
      if (n % 2 == 0) CHECK(f[1] == "1");  // IPv4 header checksum
      CHECK(f[2] == "1");
    }
    CHECK(f[3] == (t.options.mss ? std::to_string(*t.options.mss) : ""));
    CHECK(f[4] == (t.options.window_scale ? std::to_string(*t.options.window_scale) : ""));
    CHECK(f[5] == (t.options.tsval ? std::to_string(*t.options.tsval) : ""));
    const std::string first_sack_le = f[6].substr(0, f[6].find(','));
    CHECK(first_sack_le == (t.options.sack_count > 0 ? std::to_string(t.options.sack[0].left) : std::string{}));
    CHECK(f[7] == std::to_string(t.seq));
    ++n;
  }
  CHECK(n == sent.size());
}
