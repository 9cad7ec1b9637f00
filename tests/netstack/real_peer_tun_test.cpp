// The real-peer plumbing against the Linux kernel: TUN device, namespaces,
// forwarding and the kernel receiver. Needs root and /dev/net/tun; without
// them each case says so and checks nothing (the e2e script exits 77).
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "common/tools.hpp"
#include "netstack/real_peer.hpp"
#include "netstack/real_peer_receiver.hpp"
#include "netstack/real_peer_topology.hpp"
#include "wire/bytes.hpp"
#include "wire/ip.hpp"

using namespace netstack;
using namespace std::chrono_literals;

namespace {

bool can_run() {
  if (::geteuid() == 0 && ::access("/dev/net/tun", R_OK | W_OK) == 0) return true;
  testcommon::skip_or_fail("this test needs root and /dev/net/tun");
  return false;
}

bool netns_exists(const std::string& name) {
  struct stat st {};
  return ::stat(("/run/netns/" + name).c_str(), &st) == 0;
}

// RFC 1071 Internet checksum of `b`.
std::uint16_t inet_checksum(std::span<const std::uint8_t> b) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < b.size(); i += 2) sum += wire::load_be16(&b[i]);
  if (b.size() % 2) sum += std::uint32_t{b.back()} << 8;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

// An ICMP echo request (RFC 792: type 8) from `src` to `dst` in an IPv4 datagram.
std::vector<std::uint8_t> echo_request(const IpAddress& src, const IpAddress& dst, std::uint16_t id) {
  std::vector<std::uint8_t> icmp{8, 0, 0, 0, 0, 0, 0, 1, 'r', 't', 'o', '!'};
  wire::store_be16(&icmp[4], id);
  wire::store_be16(&icmp[2], inet_checksum(icmp));
  wire::Ipv4Header h;
  h.protocol = 1;  // ICMP
  h.src = src.v4_bytes();
  h.dst = dst.v4_bytes();
  std::vector<std::uint8_t> dg(20 + icmp.size());
  const auto r = wire::encode_ipv4(h, icmp.size(), dg);
  REQUIRE(wire::ok(r));
  std::memcpy(dg.data() + 20, icmp.data(), icmp.size());
  return dg;
}

}  // namespace

TEST_CASE("real_peer topology: a ping written to the TUN device is forwarded to the far namespace and answered") {
  if (!can_run()) return;
  std::string near_name, far_name;
  {
    RealPeerTopology t = RealPeerTopology::build(false, "");
    near_name = t.near.name();
    far_name = t.far.name();
    CHECK(netns_exists(near_name));
    CHECK(netns_exists(far_name));
    CHECK(t.local.address.to_string() == "198.18.1.2");
    CHECK(t.peer.address.to_string() == "198.18.2.2");

    // Our stack's address -> the listener's address: the near kernel routes
    // it from the TUN device over the veth; the far kernel answers via its
    // default route; the reply comes back out of the TUN device.
    const auto ping = echo_request(t.local.address, t.peer.address, 0x4242);
    REQUIRE(t.tun.write(ping));
    std::vector<std::uint8_t> buf(65536);
    bool got_reply = false;
    for (int i = 0; i < 50 && !got_reply; ++i) {
      pollfd p{t.tun.fd(), POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      for (std::size_t n; (n = t.tun.read(buf)) > 0;) {
        const auto ip = wire::decode_ip(std::span<const std::uint8_t>(buf.data(), n));
        if (!wire::ok(ip) || wire::value(ip).protocol != 1) continue;
        const auto& pkt = wire::value(ip);
        const std::uint8_t* icmp = buf.data() + pkt.l4_offset;
        // Echo reply (type 0) from the peer to us, our identifier echoed.
        if (icmp[0] == 0 && wire::load_be16(icmp + 4) == 0x4242) {
          CHECK(std::memcmp(pkt.src.data(), t.peer.address.bytes.data(), 4) == 0);
          CHECK(std::memcmp(pkt.dst.data(), t.local.address.bytes.data(), 4) == 0);
          got_reply = true;
        }
      }
    }
    CHECK(got_reply);
  }
  // Every exit path deletes the namespaces.
  CHECK_FALSE(netns_exists(near_name));
  CHECK_FALSE(netns_exists(far_name));
}

TEST_CASE("real_peer receiver: the kernel listener in the far namespace counts and checksums what a kernel client sends") {
  if (!can_run()) return;
  RealPeerTopology t = RealPeerTopology::build(false, "");
  KernelReceiver rx = KernelReceiver::start(t.far, t.peer, "", 10s);
  std::vector<std::uint8_t> data(300'000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + (i >> 9));
  {
    ScopedNetnsEntry inside(t.near);  // a kernel client next to the TUN device
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(s >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(t.peer.port);
    std::memcpy(&a.sin_addr, t.peer.address.bytes.data(), 4);
    REQUIRE(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    std::size_t off = 0;
    while (off < data.size()) {
      const ssize_t w = ::write(s, data.data() + off, data.size() - off);
      REQUIRE(w > 0);
      off += static_cast<std::size_t>(w);
    }
    ::close(s);
  }
  const ReceivedSummary got = rx.finish(5000ms);
  CHECK(got.bytes == data.size());
  CHECK(got.crc32 == crc32_update(0, data));
}

TEST_CASE("real_peer receiver: a listener that cannot bind reports why") {
  if (!can_run()) return;
  RealPeerTopology t = RealPeerTopology::build(false, "");
  Endpoint wrong = t.peer;
  wrong.address = IpAddress::v4(198, 18, 9, 9);  // not an address of the far namespace
  try {
    (void)KernelReceiver::start(t.far, wrong, "", 1s);
    FAIL("start() should have thrown");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("bind 198.18.9.9:5001") != std::string::npos);
  }
}

TEST_CASE("real_peer topology: IPv6 addresses on the ULA prefix") {
  if (!can_run()) return;
  RealPeerTopology t = RealPeerTopology::build(true, "");
  CHECK(t.local.address.version == 6);
  CHECK(t.local.address.to_string() == "fd00:0:0:1::2");
  CHECK(t.peer.address.to_string() == "fd00:0:0:2::2");
  KernelReceiver rx = KernelReceiver::start(t.far, t.peer, "", 5s);
  rx.stop();
}

TEST_CASE("real_peer run: 200 KB to the Linux receiver with the first data segment dropped arrives byte-exact") {
  if (!can_run()) return;
  RealPeerOptions o;
  o.bytes = 200'000;
  o.filter.drop_seq = {1};  // the first data segment's first transmission
  o.time_limit = 20s;
  std::ostringstream log;
  const RealPeerResult r = run_real_peer(o, log);
  INFO(log.str(), r.message);
  CHECK(r.ok);
  CHECK(r.final_state == SenderState::TimeWait);
  CHECK(r.received.bytes == 200'000);
  CHECK(r.received.crc32 == crc32_update(0, real_peer_pattern(200'000)));
  CHECK(r.filter.dropped_seq == 1);
  CHECK(r.filter.dropped() == 1);
  // The dropped segment had to be sent again (by timeout or fast retransmit),
  // as the first entry of the sender's retransmission log: relative seq 1.
  REQUIRE(r.sender.retransmissions >= 1);
  CHECK(r.sender.retransmit_log.front().seq == SenderConfig{}.iss + 1);
}

TEST_CASE("real_peer run: real_peer_pattern is the documented formula") {
  const auto p = real_peer_pattern(70000);
  REQUIRE(p.size() == 70000);
  // byte i = ((i * 2654435761) >> 13) & 0xFF: i = 1 -> 2654435761 >> 13 = 324027 -> 0xBB (187)
  CHECK(p[0] == 0);
  CHECK(p[1] == 187);
  CHECK(p[69999] == static_cast<std::uint8_t>((69999ull * 2654435761ull) >> 13));
}

TEST_CASE("real_peer topology: namespaces left by a killed run (dead PID) are reaped, live ones kept") {
  if (!can_run()) return;
  // A PID that certainly belongs to no process: a child we made and reaped.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  const std::string dead = "rtopeer-far-" + std::to_string(child);
  const std::string live = "rtopeer-near-" + std::to_string(::getpid());
  REQUIRE(run_command_status({"ip", "netns", "add", dead}, true) == 0);
  REQUIRE(run_command_status({"ip", "netns", "add", live}, true) == 0);
  CHECK(reap_stale_namespaces() >= 1);
  CHECK_FALSE(netns_exists(dead));
  CHECK(netns_exists(live));  // our own PID is alive
  run_command_status({"ip", "netns", "del", live}, true);
  run_command_status({"ip", "netns", "del", dead}, true);
}
