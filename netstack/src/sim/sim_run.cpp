#include "netstack/sim_run.hpp"

#include "netstack/sim_network.hpp"

namespace netstack {

namespace {

LinkConfig link(const SimRunOptions& o, double loss, std::uint64_t seed) {
  LinkConfig l;
  l.delay = o.delay;
  l.jitter = o.jitter;
  l.bandwidth_bps = o.bandwidth_bps;
  l.queue_limit = o.queue_limit;
  l.loss = loss;
  l.seed = seed;
  return l;
}

}  // namespace

SimRunResult run_sim(const SimRunOptions& o) {
  SimRunResult res;
  SenderConfig sc;
  ReceiverConfig rc;
  if (o.ipv6) {
    sc.local = {*IpAddress::parse("fd00::1"), 40000};
    sc.remote = {*IpAddress::parse("fd00::2"), 5001};
  } else {
    sc.local = {IpAddress::v4(198, 18, 0, 1), 40000};
    sc.remote = {IpAddress::v4(198, 18, 0, 2), 5001};
  }
  sc.rto = o.rto;
  rc.local = sc.remote;
  res.sender_config = sc;

  SimConfig cfg;
  cfg.forward = link(o, o.loss, o.seed);
  cfg.forward.blackholes = o.blackholes;
  // Another stream for the reverse link, fixed by the seed (a large odd multiplier).
  cfg.reverse = link(o, o.ack_loss, o.seed * 0x9e3779b97f4a7c15ULL + 1);
  if (!o.capture_path.empty()) cfg.pcap_path = o.capture_path;

  TcpSender sender(sc);
  sender.set_log_rtt_samples(true);
  TcpReceiver receiver(rc);
  const rto::Instant t0{};
  bool finished = false;
  {
    SimNetwork net(cfg, sender, receiver);
    sender.connect(t0);
    sender.write(o.payload);
    sender.close();
    finished = net.run_to_completion(t0 + o.time_limit);
    net.close_capture();
    res.forward = net.forward().stats();
    res.reverse = net.reverse().stats();
    res.end = net.now();
    res.captured = net.captured();
  }
  const std::vector<std::uint8_t> got = receiver.read();
  res.bytes_received = got.size();
  res.final_state = sender.state();
  res.failure = sender.failure();
  res.sender = sender.stats();
  const bool exact = got == o.payload;
  if (!finished) {
    res.message = sender.finished() ? "the receiver did not close before the time limit"
                                    : "not finished at the time limit (state " + std::string(to_string(sender.state())) + ")";
  } else if (sender.state() != SenderState::TimeWait) {
    res.message = std::string("the connection ended in ") + to_string(sender.state()) + ": " + to_string(sender.failure());
  } else if (!exact) {
    res.message = "the receiver got " + std::to_string(got.size()) + " bytes that differ from the " +
                  std::to_string(o.payload.size()) + " sent";
  } else {
    res.ok = true;
    res.message = "delivered " + std::to_string(got.size()) + " bytes byte-exact";
  }
  return res;
}

}  // namespace netstack
