// The real-peer event loop; see real_peer.hpp.
#include <netstack/real_peer.hpp>

#include <poll.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <system_error>

#include "netstack/netns.hpp"
#include "netstack/pcap_writer.hpp"
#include "netstack/progress.hpp"
#include "netstack/real_peer_topology.hpp"
#include "netstack/segment_codec.hpp"

namespace netstack {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

rto::Instant now_instant() { return rto::from_steady(std::chrono::steady_clock::now()); }

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open --file " + path);
  std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error("error reading --file " + path);
  return data;
}

// Prints the retransmissions logged since the last call (`printed` of them
// were printed already) as progress lines.
void report_retransmissions(const TcpSender& sender, rto::Instant syn_time, std::uint32_t iss, std::size_t& printed,
                            std::ostream& log) {
  const auto& records = sender.stats().retransmit_log;
  for (; printed < records.size(); ++printed) log << "netstack: " << progress_line(records[printed], syn_time, iss) << "\n";
  log.flush();
}

// Warns about each --drop-seq that matched no segment.
void warn_unmatched(const PacketFilter& filter, std::ostream& log) {
  for (std::uint32_t seq : filter.unmatched_drop_seq()) {
    log << "netstack: warning: --drop-seq " << seq << " matched no segment, nothing was dropped for it; data segments started at";
    for (std::uint32_t s : filter.first_segment_starts()) log << " " << s;
    const auto n = filter.first_segment_starts().size();
    log << (n == 0 ? " (none sent)" : n == PacketFilter::kRememberedSegmentStarts ? ", ..." : "") << "\n";
  }
}

// Waits for the TUN fd or until `deadline` (microsecond resolution, ppoll).
void wait_for(int fd, rto::Instant now, std::optional<rto::Instant> deadline) {
  microseconds wait = milliseconds{100};  // wake up now and then for the time limit and signals
  if (deadline) wait = std::clamp(*deadline - now, microseconds{0}, wait);
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(wait.count() / 1'000'000);
  ts.tv_nsec = static_cast<long>((wait.count() % 1'000'000) * 1000);
  pollfd p{fd, POLLIN, 0};
  if (::ppoll(&p, 1, &ts, nullptr) < 0 && errno != EINTR) {
    throw std::system_error(errno, std::generic_category(), "ppoll on the TUN device");
  }
}

}  // namespace

std::vector<std::uint8_t> real_peer_pattern(std::uint64_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    v[i] = static_cast<std::uint8_t>(((i * 2654435761u) >> 13) & 0xFF);
  }
  return v;
}

RealPeerResult run_real_peer(const RealPeerOptions& options, std::ostream& log) {
  RealPeerResult result;
  const std::vector<std::uint8_t> data =
      options.file.empty() ? real_peer_pattern(options.bytes) : read_file(options.file);
  result.bytes_sent = data.size();
  result.crc32_sent = crc32_update(0, data);

  RealPeerTopology topo = RealPeerTopology::build(options.ipv6, options.netns);
  log << "netstack: " << topo.local.address.to_string() << ":" << topo.local.port << " (TUN " << topo.tun.name()
      << " in netns " << topo.near.name() << ") -> Linux " << topo.peer.address.to_string() << ":"
      << topo.peer.port << " (netns " << topo.far.name() << "), " << data.size() << " bytes\n";
  KernelReceiver receiver = KernelReceiver::start(topo.far, topo.peer, options.sink_path,
                                                  std::chrono::duration_cast<std::chrono::seconds>(options.time_limit));

  PacketFilter filter(options.filter);
  SenderConfig cfg;
  cfg.local = topo.local;
  cfg.remote = topo.peer;
  // MSS = TUN MTU 1500 minus the IP and the 20-byte TCP header (RFC 9293
  // 3.7.1); the core takes the 12 bytes of the timestamps option off each
  // segment's payload (RFC 6691), so data segments fill the MTU exactly.
  cfg.mss = options.ipv6 ? 1440 : 1460;
  cfg.rto = options.rto;
  TcpSender sender(cfg);

  std::unique_ptr<PcapWriter> capture;
  const rto::Instant start = now_instant();
  if (!options.capture_path.empty()) {
    // pcap timestamps on the wall clock: steady Instant + (system - steady) offset.
    const auto offset = std::chrono::duration_cast<microseconds>(std::chrono::system_clock::now().time_since_epoch()) -
                        start.time_since_epoch();
    capture = std::make_unique<PcapWriter>(options.capture_path, offset);
  }

  const auto flush = [&](rto::Instant now) {
    for (auto& dg : sender.take_output()) {
      if (capture) capture->write(now, dg);
      if (filter.outbound(dg, now) == Verdict::Pass && !topo.tun.write(dg)) ++result.tun_write_drops;
    }
  };

  sender.connect(start);
  sender.write(data);
  sender.close();
  flush(start);

  std::vector<std::uint8_t> buf(65536);
  std::size_t printed = 0;  // retransmissions reported so far
  rto::Instant now = start;
  std::string failure;
  while (!sender.finished()) {
    if (stop_requested()) {
      failure = "interrupted by a signal";
      break;
    }
    if (now - start > options.time_limit) {
      failure = "transfer not finished after " + std::to_string(options.time_limit.count()) + " s (state " +
                to_string(sender.state()) + ", " + std::to_string(sender.stats().bytes_acked) + " bytes acknowledged)";
      break;
    }
    wait_for(topo.tun.fd(), now, sender.next_deadline());
    ++result.wakeups;
    now = now_instant();
    for (std::size_t n; (n = topo.tun.read(buf)) > 0;) {
      const std::span<const std::uint8_t> dg(buf.data(), n);
      if (!accept_segment(dg, topo.local, topo.peer)) continue;  // router solicitations, MLD, ...
      if (capture) capture->write(now, dg);
      sender.on_datagram(dg, now);
      flush(now);
    }
    if (const auto d = sender.next_deadline(); d && now >= *d) sender.on_tick(now);
    flush(now);
    report_retransmissions(sender, start, cfg.iss, printed, log);
  }
  result.elapsed = now - start;
  result.final_state = sender.state();
  result.sender = sender.stats();
  result.filter = filter.stats();
  result.bytes_transmitted = sender.bytes_sent();
  result.bytes_acked = sender.stats().bytes_acked;
  result.unmatched_drop_seq = filter.unmatched_drop_seq();
  warn_unmatched(filter, log);
  if (capture) {
    result.captured = capture->count();
    capture->close();
  }

  if (failure.empty() && sender.state() != SenderState::TimeWait) {
    failure = std::string("connection ended in state ") + to_string(sender.state()) + " (" +
              to_string(sender.failure()) + ")";
  }
  if (!failure.empty()) {
    receiver.stop();
    result.message = failure;
    return result;
  }
  try {
    result.received = receiver.finish(milliseconds{5000});
  } catch (const std::exception& e) {
    result.message = e.what();
    return result;
  }
  if (result.received.bytes != result.bytes_sent || result.received.crc32 != result.crc32_sent) {
    result.message = "receiver got " + std::to_string(result.received.bytes) + " bytes (CRC-32 " +
                     std::to_string(result.received.crc32) + "), sent " + std::to_string(result.bytes_sent) +
                     " bytes (CRC-32 " + std::to_string(result.crc32_sent) + ")";
    return result;
  }
  result.ok = true;
  result.message = "delivered " + std::to_string(result.bytes_sent) + " bytes byte-exact";
  return result;
}

}  // namespace netstack
