// TcpSender: the active-open core. See sender.hpp for the RFCs it follows
// and sender_impl.hpp for how the implementation is divided: this file holds
// the public API, the names and the configuration checks.

#include "netstack/sender.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "sender_impl.hpp"

namespace netstack {

const char* to_string(SenderState s) {
  switch (s) {
    case SenderState::Closed: return "Closed";
    case SenderState::SynSent: return "SynSent";
    case SenderState::Established: return "Established";
    case SenderState::FinWait1: return "FinWait1";
    case SenderState::FinWait2: return "FinWait2";
    case SenderState::Closing: return "Closing";
    case SenderState::CloseWait: return "CloseWait";
    case SenderState::LastAck: return "LastAck";
    case SenderState::TimeWait: return "TimeWait";
    case SenderState::Failed: return "Failed";
    case SenderState::Reset: return "Reset";
  }
  return "?";
}

const char* to_string(FailureReason r) {
  switch (r) {
    case FailureReason::None: return "none";
    case FailureReason::SynBackoffLimit: return "SYN retransmitted too often (RFC 1122 R2)";
    case FailureReason::DataBackoffLimit: return "segment retransmitted too often (RFC 1122 R2)";
    case FailureReason::RetryTimeLimit: return "retransmission time limit reached (RFC 1122 R2)";
    case FailureReason::ConnectionRefused: return "connection refused (RST in reply to SYN)";
    case FailureReason::ResetByPeer: return "connection reset by peer";
    case FailureReason::ConnectTimeout: return "connect timed out (the OPEN timeout, RFC 9293 3.10.1)";
  }
  return "?";
}

const char* to_string(RetransmitKind k) {
  switch (k) {
    case RetransmitKind::Timeout: return "timeout";
    case RetransmitKind::Fast: return "fast";
    case RetransmitKind::AfterTimeout: return "after-timeout";
  }
  return "?";
}

TcpSender::Impl::Impl(SenderConfig c)
    : cfg(std::move(c)),
      est(cfg.rto),
      sampler(cfg.ts_tick, cfg.ts_offset),
      timer(cfg.rto, rto::RetryLimits{cfg.max_backoffs, cfg.max_syn_backoffs, cfg.max_retry_time}),
      cc(cfg.mss, cfg.initial_window_segments, cfg.iss) {
  if (cfg.local.address.version != cfg.remote.address.version) {
    throw std::invalid_argument("netstack::SenderConfig: local and remote IP versions differ");
  }
  if (cfg.mss < 64) throw std::invalid_argument("netstack::SenderConfig.mss: below 64 bytes");
  if (cfg.window_scale > 14) throw std::invalid_argument("netstack::SenderConfig.window_scale: above 14");
  smss = cfg.mss;
}

std::uint16_t TcpSender::Impl::window_field() const {
  const std::uint32_t w = cfg.receive_window >> rcv_wscale;
  return static_cast<std::uint16_t>(std::min<std::uint32_t>(w, 65535));
}

void TcpSender::Impl::request_close() {
  if (close_requested) return;
  close_requested = true;
  if (state == SenderState::Established) state = SenderState::FinWait1;
  if (state == SenderState::CloseWait) state = SenderState::LastAck;
}

TcpSender::TcpSender(SenderConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
TcpSender::~TcpSender() = default;
TcpSender::TcpSender(TcpSender&&) noexcept = default;
TcpSender& TcpSender::operator=(TcpSender&&) noexcept = default;

void TcpSender::connect(rto::Instant now) {
  Impl& s = *impl_;
  if (s.state != SenderState::Closed) return;
  s.last_now = now;
  s.state = SenderState::SynSent;
  if (s.cfg.connect_timeout.count() > 0) s.connect_deadline = now + s.cfg.connect_timeout;
  s.send_syn(now, false);
}

void TcpSender::write(std::span<const std::uint8_t> data) {
  Impl& s = *impl_;
  if (s.close_requested || s.finished()) return;
  s.buf.append(data);
}

void TcpSender::write(std::span<const std::uint8_t> data, rto::Instant now) {
  write(data);
  on_tick(now);
}

void TcpSender::close() { impl_->request_close(); }

void TcpSender::close(rto::Instant now) {
  close();
  on_tick(now);
}

void TcpSender::on_datagram(std::span<const std::uint8_t> ip, rto::Instant now) { impl_->on_datagram(ip, now); }
void TcpSender::on_tick(rto::Instant now) { impl_->on_tick(now); }

std::vector<std::vector<std::uint8_t>> TcpSender::take_output() { return std::exchange(impl_->out, {}); }

std::optional<rto::Instant> TcpSender::next_deadline() const {
  const Impl& s = *impl_;
  if (s.finished() || s.state == SenderState::Closed) return std::nullopt;
  if (s.sendable_room() > 0 || s.ack_pending) return s.last_now;
  std::optional<rto::Instant> d;
  if (s.timer.running()) d = s.timer.deadline();
  if (const auto p = s.persist.deadline(); p && (!d || *p < *d)) d = p;
  if (s.state == SenderState::SynSent && s.connect_deadline && (!d || *s.connect_deadline < *d))
    d = s.connect_deadline;
  return d;
}

SenderState TcpSender::state() const { return impl_->state; }
FailureReason TcpSender::failure() const { return impl_->failure; }
bool TcpSender::finished() const { return impl_->finished(); }
bool TcpSender::all_acked() const {
  const Impl& s = *impl_;
  return s.close_requested && s.una == s.total_end();
}
const SenderStats& TcpSender::stats() const { return impl_->stats; }
std::chrono::microseconds TcpSender::rto() const { return impl_->timer.rto(); }
std::optional<std::chrono::microseconds> TcpSender::srtt() const { return impl_->est.srtt(); }
std::optional<std::chrono::microseconds> TcpSender::rttvar() const { return impl_->est.rttvar(); }
unsigned TcpSender::backoff() const { return impl_->timer.backoff(); }
const NewReno& TcpSender::congestion() const { return impl_->cc; }
std::uint32_t TcpSender::smss() const { return impl_->smss; }
std::uint32_t TcpSender::snd_una() const { return impl_->seq32(impl_->una); }
std::uint32_t TcpSender::snd_nxt() const { return impl_->seq32(impl_->nxt); }
std::uint32_t TcpSender::snd_wnd() const { return impl_->snd_wnd; }
std::uint64_t TcpSender::bytes_sent() const {
  const std::uint64_t top = std::min(impl_->max, impl_->data_end());  // one past the highest data byte sent
  return top > 1 ? top - 1 : 0;
}
void TcpSender::set_log_rtt_samples(bool on) { impl_->log_rtt = on; }

}  // namespace netstack
