#include "netstack/sim_network.hpp"

#include <stdexcept>
#include <utility>

namespace netstack {

SimNetwork::SimNetwork(SimConfig config, TcpSender& sender, TcpReceiver& receiver)
    : config_(std::move(config)),
      sender_(sender),
      receiver_(receiver),
      forward_(config_.forward),
      reverse_(config_.reverse) {
  if (config_.pcap_path) pcap_ = std::make_unique<PcapWriter>(*config_.pcap_path, config_.pcap_epoch);
}

void SimNetwork::close_capture() {
  if (pcap_) pcap_->close();
}

std::optional<rto::Instant> SimNetwork::next_event() const {
  std::optional<rto::Instant> t;
  const auto consider = [&t](std::optional<rto::Instant> c) {
    if (c && (!t || *c < *t)) t = c;
  };
  consider(sender_.next_deadline());
  consider(receiver_.next_deadline());
  consider(forward_.next_delivery());
  consider(reverse_.next_delivery());
  return t;
}

void SimNetwork::flush_outputs() {
  // Output produced outside the loop (connect(), write(now)) goes out at now_.
  for (auto& d : sender_.take_output()) {
    if (pcap_) pcap_->write(now_, d);
    forward_.send(now_, std::move(d));
  }
  for (auto& d : receiver_.take_output()) reverse_.send(now_, std::move(d));
}

void SimNetwork::step(rto::Instant t) {
  now_ = std::max(now_, t);
  for (auto& d : forward_.deliver_due(now_)) receiver_.on_datagram(d, now_);
  for (auto& d : reverse_.deliver_due(now_)) {
    if (pcap_) pcap_->write(now_, d);
    sender_.on_datagram(d, now_);
  }
  if (auto d = sender_.next_deadline(); d && *d <= now_) sender_.on_tick(now_);
  if (auto d = receiver_.next_deadline(); d && *d <= now_) receiver_.on_tick(now_);
  flush_outputs();
}

void SimNetwork::run_until(rto::Instant t) {
  flush_outputs();
  std::uint64_t steps = 0;
  while (auto next = next_event()) {
    if (*next > t) break;
    if (++steps > config_.max_steps) throw std::runtime_error("SimNetwork: step limit reached (a core never settles)");
    step(*next);
  }
  now_ = std::max(now_, t);
}

bool SimNetwork::run_to_completion(rto::Instant limit) {
  flush_outputs();
  std::uint64_t steps = 0;
  const auto done = [this] {
    const bool receiver_done = receiver_.state() == ReceiverState::Closed ||
                               receiver_.state() == ReceiverState::Reset ||
                               receiver_.state() == ReceiverState::Failed;
    return sender_.finished() && (receiver_done || sender_.state() != SenderState::TimeWait) &&
           forward_.idle() && reverse_.idle();
  };
  while (!done()) {
    auto next = next_event();
    if (!next || *next > limit) return false;
    if (++steps > config_.max_steps) throw std::runtime_error("SimNetwork: step limit reached (a core never settles)");
    step(*next);
  }
  return true;
}

}  // namespace netstack
