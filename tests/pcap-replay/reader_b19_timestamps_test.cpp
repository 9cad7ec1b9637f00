// Case B19 (shared/cases): the timestamp scale comes from the file format:
// nanosecond pcap magic, pcapng if_tsresol 10^-9 and 2^-10, no if_tsresol = µs.
#include "reader_capture_builder.hpp"

using namespace readertest;

namespace {

// The B19 exchange: a 100-byte data segment and its ACK.
Bytes data_pkt() { return ipv4_tcp(false, 1, 1, wire::kAck | wire::kPsh, 100); }
Bytes ack_pkt() { return ipv4_tcp(true, 1, 101, wire::kAck, 0); }

}  // namespace

TEST_CASE("B19 (a): nanosecond pcap magic 0xA1B23C4D keeps sub-us digits, RTT 250.000333 ms") {
  const auto path = write_temp(pcap_file(0xA1B23C4D, 228 /* IPV4 */,
                                         {{1000, 100'000'123, data_pkt()}, {1000, 350'000'456, ack_pkt()}}),
                               "b19a.pcap");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 2);
  // 1000 s + 100 000 123 ns = 1 000 100 000 123 ns.
  CHECK(ns(r.segments[0]) == 1'000'100'000'123);
  CHECK(ns(r.segments[1]) == 1'000'350'000'456);
  // 350 000 456 - 100 000 123 = 250 000 333 ns (read as µs it would be 250.000333 s;
  // truncated to µs it would be exactly 250.000 ms).
  CHECK(ns(r.segments[1]) - ns(r.segments[0]) == 250'000'333);
  CHECK(r.segments[0].file_index == 3);
  CHECK(r.segments[0].frame == 1);
  CHECK(r.segments[1].frame == 2);
  CHECK(r.diagnostics.empty());
}

TEST_CASE("B19 (a'): microsecond pcap magic 0xA1B2C3D4 scales the fraction by 1000") {
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 228, {{1000, 100'000, data_pkt()}, {1000, 350'000, ack_pkt()}}),
                               "b19us.pcap");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 2);
  CHECK(ns(r.segments[0]) == 1'000'100'000'000);
  CHECK(ns(r.segments[1]) - ns(r.segments[0]) == 250'000'000);  // 250 ms, not 250 "ns" (libpcap#349)
}

TEST_CASE("B19 (b): pcapng if_tsresol 9, EPB timestamps 1 000 100 000 123 and 1 000 350 000 456") {
  const auto path = write_temp(
      pcapng_file(228, {std::uint8_t{9}}, {{1'000'100'000'123ULL, data_pkt()}, {1'000'350'000'456ULL, ack_pkt()}}),
      "b19b.pcapng");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 2);
  CHECK(ns(r.segments[0]) == 1'000'100'000'123);
  CHECK(ns(r.segments[1]) - ns(r.segments[0]) == 250'000'333);
}

TEST_CASE("B19 (c): pcapng if_tsresol 0x8A is 2^-10 s, RTT 249.0234375 ms") {
  const auto path = write_temp(pcapng_file(228, {std::uint8_t{0x8A}}, {{1'024'103, data_pkt()}, {1'024'358, ack_pkt()}}),
                               "b19c.pcapng");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 2);
  // 1 024 103 / 1024 = 1000 + 103/1024 s = 1000.1005859375 s = 1 000 100 585 937.5 ns: at
  // nanosecond precision 1 000 100 585 937 (truncated) or ...938 (rounded).
  CHECK(ns(r.segments[0]) >= 1'000'100'585'937);
  CHECK(ns(r.segments[0]) <= 1'000'100'585'938);
  // 1 024 358 / 1024 = 1000 + 358/1024 s = 1000.349609375 s exactly.
  CHECK(ns(r.segments[1]) == 1'000'349'609'375);
  // RTT 255/1024 s = 249.0234375 ms, within the 1 ns lost to rounding (read as
  // 10^-10 it would be 2.55e-8 s).
  const auto rtt = ns(r.segments[1]) - ns(r.segments[0]);
  CHECK(rtt >= 249'023'437);
  CHECK(rtt <= 249'023'438);
}

TEST_CASE("B19 (d): pcapng without if_tsresol means 10^-6 s") {
  const auto path = write_temp(pcapng_file(228, {std::nullopt}, {{1'000'100'000ULL, data_pkt()}, {1'000'350'000ULL, ack_pkt()}}),
                               "b19d.pcapng");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 2);
  CHECK(ns(r.segments[0]) == 1'000'100'000'000);
  CHECK(ns(r.segments[1]) - ns(r.segments[0]) == 250'000'000);
}

TEST_CASE("B19 (e): each pcapng interface has its own if_tsresol (10^-6 default, 10^-9, 2^-10)") {
  // The same instant 1000.25 s on three interfaces: 1000250000 µs, 1000250000000 ns, 1024256 * 2^-10 s.
  const auto path = write_temp(pcapng_file(228, {std::nullopt, std::uint8_t{9}, std::uint8_t{0x8A}},
                                           {{1'000'250'000ULL, data_pkt(), 0},
                                            {1'000'250'000'000ULL, ack_pkt(), 1},
                                            {1'024'256ULL, data_pkt(), 2},
                                            {1'000'250'001'000ULL, ack_pkt(), 1}}),
                               "b19multi.pcapng");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 4);
  CHECK(ns(r.segments[0]) == 1'000'250'000'000);
  CHECK(ns(r.segments[1]) == 1'000'250'000'000);
  CHECK(ns(r.segments[2]) == 1'000'250'000'000);  // 1024256 / 1024 = 1000.25 exactly
  CHECK(ns(r.segments[3]) == 1'000'250'001'000);
  CHECK(r.segments[3].frame == 4);
}

TEST_CASE("B19: a record fraction of 10^9 ns or more is reported by frame and skipped") {
  const auto path = write_temp(pcap_file(0xA1B23C4D, 228,
                                         {{1000, 1'000'000'000, data_pkt()}, {1000, 350'000'456, ack_pkt()}}),
                               "b19bad.pcap");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 1);
  CHECK(r.segments[0].frame == 2);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].frame == 1);
  CHECK(r.diagnostics[0].field == "frame.time");
  CHECK(r.diagnostics[0].file == path);
  CHECK(r.stats.malformed == 1);
}
