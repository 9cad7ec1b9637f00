// SenderEngine: construction, the report rows, the sender's own transmissions
// (first, repeated, probes) and the end of the capture.
#include "analysis/engine/sender_engine.hpp"

#include <algorithm>
#include <utility>

#include <rto/seq.hpp>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

namespace {
// The arm was the sender's own transmission (its time the sender's, not a
// peer segment's arrival the capture saw on its way to the sender).
bool armed_by_own_send(ArmCause c) {
  switch (c) {
    case ArmCause::send:
    case ArmCause::timeout:
    case ArmCause::probe:
    case ArmCause::head_retransmit:
    case ArmCause::head_send:
    case ArmCause::syn_send:
      return true;
    case ArmCause::ack:
    case ArmCause::sack:
    case ArmCause::syn_reply:
      return false;
  }
  return false;
}
}  // namespace

SenderEngine::SenderEngine(const Options& options, SenderReport& out, bool keep_timeline, HostClock* host,
                           HostActivity* activity, bool feed_activity)
    : out_(out), keep_timeline_(keep_timeline), opt_(options), activity_(activity), feed_(host, feed_activity),
      est_(options), judge_(options) {
  out_.profile = options.profile->name;
  read_ip_ids_ = options.profile->ip_id_per_connection;
}

// ---- the report --------------------------------------------------------

unsigned SenderEngine::data_expiries() const {
  if (!data_chain_open_) return 0;  // (the chain's vector is on a cold line)
  unsigned n = 0;
  for (const ObservedExpiry& x : data_chain_) n += x.maybe_probe ? 0 : 1;
  return n;
}

microseconds SenderEngine::current_rto() const {
  microseconds r = est_.estimator().base_rto();
  const unsigned doublings = data_expiries();
  for (unsigned i = 0; i < doublings && r < opt_.config.max_rto; ++i) r = std::min(2 * r, opt_.config.max_rto);
  return r;
}

void SenderEngine::record(const Segment& s, std::string_view event, std::uint32_t seq, std::optional<microseconds> sample,
                          std::optional<SampleKind> kind) {
  if (!keep_timeline_) return;
  const auto& e = est_.estimator();
  const CaptureTime at = s.frame == current_frame_ && capture_time_ ? *capture_time_ : s.time;  // the capture's
  out_.timeline.push_back(TimelineEvent{s.frame, at, event, rel(seq), sample, kind, e.srtt(), e.rttvar(),
                                        current_rto(), data_expiries()});
  // For the pictures (report_html): a send's sequence length, a peer ACK's SACK blocks.
  TimelineEvent& t = out_.timeline.back();
  const bool from_peer = event == "ack" || event == "dup-ack" || event == "sack";
  if (!from_peer) {
    t.len = s.payload_len + (s.tcp.has(wire::kSyn) ? 1u : 0u) + (s.tcp.has(wire::kFin) ? 1u : 0u);
    return;
  }
  const auto& o = s.tcp.options;
  for (std::uint8_t i = 0; i < o.sack_count && i < o.sack.size(); ++i)
    t.sack[t.sack_count++] = {rel(o.sack[i].left), rel(o.sack[i].right)};
}

template <class Keep>
std::size_t SenderEngine::filter_pending(Keep keep) {
  std::uint8_t kept = 0;
  for (std::uint8_t i = 0; i < pending_count_; ++i) {
    const PendingSample& p = pending_at((pending_first_ + i) % kPendingSamplesKept);
    if (!keep(p)) continue;
    if (kept != i) pending_at((pending_first_ + kept) % kPendingSamplesKept) = p;  // no write where nothing moves
    ++kept;
  }
  const std::size_t dropped = pending_count_ - kept;
  pending_count_ = kept;
  if (kept == 0) pending_first_ = 0;
  return dropped;
}

// ---- the sender's transmissions ---------------------------------------------

void SenderEngine::replay_first_send(const Segment& s, std::optional<double> rate_then) {
  replay_rate_ = &rate_then;
  on_send(s);
  replay_rate_ = nullptr;
}

HoldSign SenderEngine::first_send_held(const TsClock& clock, const Segment& s) {
  const auto held = s.tcp.options.tsval ? clock.held_for(s.time, *s.tcp.options.tsval) : std::nullopt;
  return held && *held >= limits::kFlushHeld ? HoldSign::tsval : HoldSign::none;
}

void SenderEngine::on_send(const Segment& captured, HostEffect effect) {
  if (feed_only_) {  // (feed_only() read any SYN-ACK held)
    feed_.on_send(captured, feed_context(), replay_rate_);
    if (captured.tcp.options.tsval) out_.tsval_sent = true;
    return;
  }
  settle_held_synack(&captured);
  ++out_.packets;
  file_ = captured.file_index;
  current_frame_ = captured.frame;
  // Two clocks. What the sender did and could have heard is read at its
  // send time: the capture time less how long the TSval clock shows the
  // segment was held on its way to the capture point (send_time(); a delay
  // spike between the sender and a capture taken away from it). What the
  // report shows and the waits it judges stay on the capture's clock
  // (capture_time_, TimerArm::held_us).
  held_ = effect == HostEffect::fed ? feed_.feed_clock(captured, /*want_held=*/true, clock_, replay_rate_) : std::nullopt;
  if (captured.tcp.options.tsval) out_.tsval_sent = true;
  capture_time_ = captured.time;
  const CaptureTime sent = causal_send_time(captured);
  if (sent == captured.time) {
    held_us_ = 0;
    send_at(captured, captured, effect);
    return;
  }
  held_us_ = static_cast<std::int32_t>(
      std::min<std::int64_t>(std::chrono::duration_cast<microseconds>(captured.time - sent).count(), INT32_MAX));
  Segment unheld = captured;  // (a copy only when held: rare)
  unheld.time = captured.time - microseconds{held_us_};
  send_at(unheld, captured, effect);
}

void SenderEngine::send_at(const Segment& s, const Segment& captured, HostEffect effect) {
  const std::uint16_t prev_ip_id = prev_ip_id_;  // the sender's previous packet's IPv4 ID (read_ip_ids_)
  if (read_ip_ids_ && captured.ip_id) prev_ip_id_ = *captured.ip_id;
  if (pending_count_ > 0 && s.payload_len > 0) {
    // Sent again before the ACK could reach the sender: the ACK covers a
    // retransmission, so the sender took no sample from it (Karn, 3).
    const std::size_t voided = filter_pending([&](const PendingSample& p) {
      const bool keep = !(s.time < p.until && seq_lt(s.tcp.seq, p.ack));
      if (!keep && (!ambiguous_through_ || seq_gt(p.ack, *ambiguous_through_))) ambiguous_through_ = p.ack;
      return keep;
    });
    if (voided > 0) {
      out_.ambiguous_acks += voided;
      ambiguous_since_expiry_ = true;
    }
  }
  settle_pending_samples(s.time);
  const auto& h = s.tcp;
  if (h.options.tsecr && unheard_acks_kept()) heard_through(*h.options.tsecr);
  if (const MaybeTime& last = feed_.last_send_time(); last && across_step(*last, captured.time))
    tsval_before_step_ = newest_tsval_;
  // It acknowledges more of the peer's data than any earlier segment did.
  const bool acks_new = h.has(wire::kAck) && feed_.acks_more(h.ack);
  if (h.has(wire::kFin)) ack_advanced_ = acks_new;  // (read for a FIN only)
  if (acks_new) {
    if (const std::optional<CaptureTime> heard = feed_.prompt_capture_acked(h.ack, std::max(largest_peer_segment_, limits::kDefaultMss));
        heard && !across_step(*heard, captured.time)) {
      const std::int64_t b = since(captured.time, *heard).count();
      if (b >= 0 && (least_answer_us_ < 0 || b < least_answer_us_))
        least_answer_us_ = static_cast<std::int32_t>(std::min<std::int64_t>(b, INT32_MAX));
    }
  }
  if (handshake_ambiguous_ && h.has(wire::kAck)) {
    if (const std::optional<CaptureTime> heard = feed_.first_capture_acked(h.ack)) bound_round_trip(captured.time, *heard);
    // Anything but a SYN-ACK shows us past SYN-RCVD: the peer's segment that
    // ended it had reached us (captured no sooner than its first one).
    if (!h.has(wire::kSyn) && !left_syn_rcvd_) {
      left_syn_rcvd_ = true;
      if (peer_acked_synack_) bound_round_trip(captured.time, *peer_acked_synack_);
    }
  }
  if (effect == HostEffect::fed) feed_.feed_activity(captured, &held_, feed_context(), replay_rate_ != nullptr);
  if (h.options.tsval && peer_timestamps_) out_.timestamps = true;
  if (h.has(wire::kRst)) return;
  const bool syn = h.has(wire::kSyn);
  const bool fin = h.has(wire::kFin);
  const std::uint32_t len = s.payload_len + (syn ? 1 : 0) + (fin ? 1 : 0);
  // A SYN-ACK after the peer sent its SYN again answers it (Linux
  // tcp_check_req answers at once): within the response window of that SYN,
  // or sooner after our previous SYN-ACK than the SYN-ACK timer can fire
  // (its initial RTO, less the tolerance). Later, its timer sent it. So
  // does our first SYN-ACK after our own SYN (a simultaneous open: it
  // repeats the SYN's sequence number) answer the peer's SYN.
  bool answers_syn = false;
  bool maybe_timer = false;  // answers it, or our SYN-ACK timer sent it (held_synack_)
  if (syn && h.has(wire::kAck) && (peer_syn_again_ || (!own_synack_ && own_syn_ && peer_syn_))) {
    const CaptureTime asked = peer_syn_again_ ? *peer_syn_again_ : *peer_syn_;
    const bool in_window = answers_in_window(asked, s.time);
    const microseconds timer_least = opt_.config.initial_rto - opt_.tolerance(opt_.config.initial_rto);
    const bool before_timer = syn_arm_ && !across_step(syn_arm_->sent(), s.time) &&
                              since(s.time, syn_arm_->sent()) < timer_least;
    answers_syn = in_window || before_timer;
    // Within the SYN's window, and as late after the timer's arm as its
    // least wait with the backoff so far: the timer may have sent it, and
    // the answer follow at once (Linux: both within one tick when the
    // peer's SYN timer and ours, both 1 s, cross). The next event tells.
    maybe_timer = peer_syn_again_ && in_window && synack_timer_due(s.time);
    if (answers_syn && before_timer && handshake_ambiguous_ && !across_step(asked, s.time) &&
        since(s.time, asked) >= microseconds{0} && since(s.time, asked) < timer_least) {
      // The answer the capture could not pair at our first SYN-ACK (one
      // echoing an older SYN): the capture-to-sender round trip, for the
      // bound read till now; only when our SYN-ACK timer cannot have sent
      // it (sooner after our previous SYN-ACK than the timer's least wait:
      // a copy a timer's wait later may be the timer's, its time from the
      // SYN no round trip).
      sender_rtt_ = since(s.time, asked);
      if (*sender_rtt_ <= limits::kCaptureAtSender) sender_rtt_ = microseconds{0};
      handshake_ambiguous_ = false;
    }
    // Answered; or not, and no longer owed: a SYN-ACK that does not answer
    // it comes after the answer's time. Our first SYN-ACK leaves it to
    // learn_handshake_delays, which pairs it or finds it may not answer.
    if ((answers_syn || own_synack_) && !maybe_timer) peer_syn_again_.reset();
  }
  if (syn) {
    own_sack_ok_ = own_sack_ok_ || h.options.sack_permitted;
    if (h.has(wire::kAck)) {
      if (!own_synack_) {
        own_synack_ = s.time;
        own_synack_tsecr_ = h.options.tsecr;
      }
    } else if (!sender_rtt_) {
      own_syn_ = s.time;  // the latest before our ACK (learn_handshake_delays)
    }
  }
  if (handshake_ == Handshake::none) {
    handshake_ = syn ? (h.has(wire::kAck) ? Handshake::syn_received : Handshake::syn_sent) : Handshake::mid_stream;
    seq_.isn = syn ? h.seq : h.seq - 1;
    seq_.snd_una = h.seq;
    seq_.snd_max = h.seq;
    una64_ = std::int64_t{1} << 32;
    // Captured mid-stream: the sender's RTO is not known until a sample.
    est_.set_unknown_start(!syn);
  }
  if (h.options.tsecr && last_peer_tsval_ && *h.options.tsecr == *last_peer_tsval_) echo_tracks_ = true;
  heard_peer_ = heard_peer_time(h.options.tsecr);
  const std::optional<CaptureTime> answered = ack_clocked(s.time);
  // What this segment shows the sender heard: the peer's segment it
  // answers; but one sent back-to-back after the sender's previous segment
  // (within kResponseTrain) left with it, so a peer segment captured
  // between the two shows nothing: it shows what the train's first showed.
  // A train is one response: kResponseTrain from its first segment at most
  // (a sender streaming back-to-back answers ACKs all the same).
  const bool after_previous = last_sent_ && !across_step(*last_sent_, s.time) &&
                              since(s.time, *last_sent_) <= limits::kResponseTrain;
  // While the path after the capture point was shown holding ACKs, a
  // segment back-to-back with the previous one continues its train however
  // long the train: an ACK captured between two segments sent together
  // looks like one they answer (a capture beside the peer, a short path).
  const bool same_train = after_previous &&
                          ((train_start_ && !across_step(*train_start_, s.time) &&
                            since(s.time, *train_start_) <= limits::kResponseTrain) ||
                           acks_held_at(s.time));
  const MaybeTime heard_at = same_train ? train_heard_ : MaybeTime(answered);
  if (!same_train) train_start_ = s.time;
  train_heard_ = heard_at;
  if (heard_at && unheard_acks_kept()) {
    // Data sent again that an ACK acknowledged: the sender had not received
    // that ACK (it never sends below the SND.UNA it knows), whatever the
    // timing says. A keep-alive's byte below SND.UNA is no such resend.
    const bool keepalive_shape = !fin && s.payload_len <= 1 && h.seq == seq_.snd_una - 1 && seq_.snd_una == seq_.snd_max;
    heard_until(*heard_at, len > 0 && !syn && !keepalive_shape ? std::optional{h.seq} : std::nullopt);
  }
  // Sent within kResponseTrain of a send that answered the peer: the same
  // response, clocked by the same segment (train_trigger_).
  const bool in_train = last_send_trigger_ && after_previous;
  train_trigger_ = in_train ? last_send_trigger_ : std::nullopt;
  const bool ack_triggered = answered.has_value() || in_train;
  feed_.sent(captured);
  last_sent_ = s.time;
  last_send_trigger_ = answered ? MaybeTime(*answered) : train_trigger_;
  learn_handshake_delays(syn);
  // RFC 7323: is this TSval older than what the sender already sent?
  bool old_tsval = false;
  if (h.options.tsval) {
    if (newest_tsval_ && rto::ts_diff(*newest_tsval_, *h.options.tsval) >= static_cast<std::int32_t>(limits::kOldTsvalTicks))
      old_tsval = true;
    if (!newest_tsval_ || rto::ts_diff(*h.options.tsval, *newest_tsval_) > 0) newest_tsval_ = *h.options.tsval;
  }
  if (probe_or_keepalive(s, h.seq, syn, fin)) return;
  if (len == 0) return;
  // The sender's previous data-bearing segment, and whether the peer was silent since.
  const std::optional<CaptureTime> prev_send = last_data_send_time_;
  last_data_send_time_ = s.time;
  const std::optional<std::uint32_t> prev_tsval = std::exchange(last_data_tsval_, h.options.tsval);
  const bool peer_since_prev = prev_send && heard_peer_ && *heard_peer_ >= *prev_send;
  // How long after the previous one the sender sent it: the time between
  // their send times, or more where their TSvals show more. A segment held
  // on its way to the capture point before the TSval clock's rate is known
  // (causal_send_time() cannot move it then) is captured closer to the next
  // than it left; TSvals 6 ticks apart left at least 5 ms apart
  // (TsClock::least_between). Across a clock step: unknown.
  AfterPrevious after_prev;
  if (prev_send && !across_step(*prev_send, s.time)) {
    after_prev.since = since(s.time, *prev_send);
    if (prev_tsval && h.options.tsval)
      after_prev.since =
          std::max(*after_prev.since, feed_.ts_clock().least_between(*prev_tsval, *h.options.tsval, captured.time));
    // Sent right after the previous one with nothing from the peer between
    // (on the capture's times): not after a quiet period, so not on a
    // timer. Across a clock step the quiet period is unknown: no evidence
    // either way.
    after_prev.back_to_back = !peer_since_prev && since(s.time, *prev_send) < limits::kMinTimerWait;
  }
  const bool back_to_back = after_prev.back_to_back;
  ++out_.data_segments;
  const std::uint32_t seq = h.seq;
  const std::uint32_t end = seq + len;
  // A loss probe sends one segment (RFC 8985 7.3; Linux tcp_send_loss_probe
  // pushes one): new data leaving with it, within kResponseTrain and
  // nothing from the peer between, is read as one transmission of several
  // segments, an application's write: no probe is out, and a later one may
  // come. (A write some ms after a probe is its own: Linux's probe sends the
  // segment Nagle or the window held, and the next write goes out behind
  // it.) The timer's arm stays the interval the two readings span: a probe
  // the capture does not show may have re-armed it (Linux has been seen
  // sending a train right behind its probe).
  if (new_data_probe_ && back_to_back && *prev_send == new_data_probe_->at &&
      since(s.time, *prev_send) <= limits::kResponseTrain && seq_ge(seq, seq_.snd_max)) {
    no_probe_out();
    probe_read_as_write();
  }
  // New data after one packet of the sender the capture did not see, on no
  // ACK: the unseen one may have carried it (when it acknowledges peer
  // data no segment before it did, the unseen one may have been that ACK:
  // cannot tell). (The step of its IPv4 ID from its previous packet's,
  // read_ip_ids_, first: one skipped.)
  if (read_ip_ids_ && seq == seq_.snd_max && !ack_triggered && captured.ip_id &&
      static_cast<std::uint16_t>(*captured.ip_id - prev_ip_id) == limits::kUnseenOriginalPackets + 1) {
    std::uint64_t after = 0;
    CaptureTime prev{};
    if (unseen_before(captured, after, prev) == limits::kUnseenOriginalPackets &&
        resend_of_unseen(s, seq, end, prev, after, old_tsval, acks_new))
      return;
  }
  if (seq_ge(seq, seq_.snd_max)) {
    if (maybe_timer) peer_syn_again_.reset();  // no repeat, nothing to hold: answered, as any
    first_transmission(s, seq, end, syn, ack_triggered, back_to_back, h.options.tsval);
  } else if (maybe_timer) {
    held_synack_ = std::make_unique<HeldSynAck>(
        HeldSynAck{s, captured.time, *peer_syn_again_, seq, end, after_prev, ack_triggered, old_tsval, h.options.tsval});
    synack_held_ = true;
  } else {
    repeat(s, seq, end, syn, ack_triggered, after_prev, old_tsval, answers_syn, h.options.tsval);
    new_data_probe_.reset();
  }
}

bool SenderEngine::answers_in_window(CaptureTime asked, CaptureTime t) const {
  return !across_step(asked, t) && std::chrono::abs(since(t, asked)) <= ack_delay_hi() + limits::kAckClockMin;
}

bool SenderEngine::synack_timer_due(CaptureTime t) const {
  if (!syn_arm_ || across_step(syn_arm_->sent(), t)) return false;
  // The SYN-ACK timer's RTO after the expiries so far, doubled each time
  // (Linux's request timer, reqsk_timer_handler: no linear timeouts), less
  // one tick of its clock (a deadline in ticks fires up to one early of the
  // arm's own time) and the capture's absolute tolerance: no timer fires
  // sooner. A stack that waits less is read as before (the answer).
  microseconds rto = opt_.config.initial_rto;
  for (std::size_t k = 0; k < syn_chain_.size() && rto < opt_.config.max_rto; ++k)
    rto = std::min(2 * rto, opt_.config.max_rto);
  return since(t, syn_arm_->sent()) >= rto - opt_.config.tick - opt_.absolute_tolerance;
}

bool SenderEngine::second_of_held_synack(const Segment& next) const {
  // The same SYN-ACK again right after the held one, sooner than any timer
  // fires, nothing from the peer between (a peer segment reads it first),
  // itself within the SYN's window.
  if (!synack_held_) return false;
  const HeldSynAck& held = *held_synack_;
  return next.tcp.has(wire::kSyn) && next.tcp.has(wire::kAck) && next.tcp.seq == held.s.tcp.seq &&
         !across_step(held.captured, next.time) && since(next.time, held.captured) >= microseconds{0} &&
         since(next.time, held.captured) < limits::kMinTimerWait && answers_in_window(held.asked, next.time);
}

void SenderEngine::read_held_synack(const Segment* next) {
  // The timer's, then the answer: the same SYN-ACK right after it
  // (second_of_held_synack). Linux's answer re-arms the timer
  // (tcp_check_req): an expiry cannot follow the answer that soon. Else it
  // answered the SYN, and the timer, re-armed, did not fire.
  const bool timer_first = next && second_of_held_synack(*next);
  const std::unique_ptr<HeldSynAck> held = std::move(held_synack_);
  synack_held_ = false;
  // Answered now; or still owed, the next one its answer.
  if (!timer_first) peer_syn_again_.reset();
  repeat(held->s, held->seq, held->end, /*syn=*/true, held->ack_triggered, held->prev, held->old_tsval,
         /*answers_syn=*/!timer_first, held->tsval);
  new_data_probe_.reset();
}

void SenderEngine::no_probe_out() {
  // The timer's arm stays the interval both readings span, from what armed
  // it before (no probe shown to have restarted it).
  std::optional<TimerArm> either = arm_;
  restore(new_data_probe_->before);
  if (either && arm_) either->cause = arm_->cause;
  arm_ = either;
}

void SenderEngine::probe_read_as_write() {
  --out_.by_kind[static_cast<std::size_t>(SendKind::tlp_new_data)];
  count(SendKind::first);
  if (new_data_probe_->row < out_.timeline.size()) out_.timeline[new_data_probe_->row].event = to_string(SendKind::first);
  new_data_probe_.reset();
}

bool SenderEngine::probe_or_keepalive(const Segment& s, std::uint32_t seq, bool syn, bool fin) {
  // One byte or none just below SND.UNA with nothing outstanding: a probe
  // that asks the peer for an ACK (RFC 9293 3.8.4 keep-alive; Linux sends
  // its zero-window probes the same way, tcp_xmit_probe_skb). Into a zero
  // window it is a zero-window probe (3.8.6.1), otherwise a keep-alive.
  if (syn || fin || s.payload_len > 1 || handshake_ == Handshake::none) return false;
  if (seq != seq_.snd_una - 1 || seq_.snd_una != seq_.snd_max) return false;
  // by_kind counts data-bearing segments: a probe with its one byte (BSD,
  // Windows) among them, one without (Linux) only as a probe.
  const SendKind kind = peer_window_ == 0 ? SendKind::zero_window_probe : SendKind::keepalive;
  ++(kind == SendKind::zero_window_probe ? out_.zero_window_probes : out_.keepalives);
  if (s.payload_len > 0) {
    ++out_.data_segments;
    count(kind);
  }
  record(s, to_string(kind), seq);
  return true;
}

void SenderEngine::first_transmission(const Segment& s, std::uint32_t seq, std::uint32_t end, bool syn,
                                      bool ack_triggered, bool back_to_back, std::optional<std::uint32_t> tsval) {
  // A gap: the capture has not seen what lies between (yet: it may come
  // reordered, also after everything before it was acknowledged).
  if (seq_gt(seq, seq_.snd_max))
    holes_.push_back(Hole{seq_.snd_max, seq, s.time, tsval, s.tcp.options.tsecr, std::nullopt});
  SendKind kind = SendKind::first;
  // Zero-window probe: one byte of new data into a zero window (BSD).
  if (peer_window_ == 0 && s.payload_len == 1) {
    ++out_.zero_window_probes;
    zwp_seq_ = seq;
    kind = SendKind::zero_window_probe;
  }
  const bool was_idle = heard_una() == seq_.snd_max || (outstanding_.empty() && !heard_una_);
  if (syn) {
    syn_arm_ = TimerArm{ArmCause::send, *capture_time_, *capture_time_, tsval, s.frame, held_us_};
    if (!arm_) arm_ = TimerArm{ArmCause::send, *capture_time_, *capture_time_, tsval, s.frame, held_us_};
  } else if (!arm_ || was_idle) {
    arm(s.time, ArmCause::send, tsval);  // 5.1: start the timer when data is sent and it is not running
    arm_->frame = s.frame;
  } else if (!ack_triggered && !back_to_back && kind == SendKind::first) {
    // New data on a timer with data outstanding: when it fits the probe
    // timer, a loss probe that sends new data (RFC 8985 7.3; it re-arms the
    // RTO), or else an application write (the timer runs on, 5.1): the arm
    // is anywhere between the two. Other new data leaves the timer alone.
    if (fits_probe(new_data_observation(s.time), *opt_.profile)) {
      kind = SendKind::tlp_new_data;
      new_data_probe_ = NewDataProbe{timer_state(), s.time, keep_timeline_ ? out_.timeline.size() : kNoRow};
      probe_since_ack_ = true;
      if (recovery_ == Recovery::open) recovery_ = Recovery::probe_out;
      const CaptureTime before = arm_->earliest;
      arm(s.time, ArmCause::probe, tsval, before);
      arm_->frame = s.frame;
    }
  }
  // A first SYN-ACK the capture cannot pair with the peer's SYN
  // (handshake_ambiguous_) may be its timer's resend: no sample (Karn).
  push_outstanding(Tx{seq, end, sample_from(), syn && handshake_ambiguous_});
  seq_.snd_max = end;
  last_new_data_time_ = s.time;
  last_new_data_frame_ = s.frame;
  count(kind);
  out_.bytes += s.payload_len;
  record(s, to_string(kind), seq);
}

void SenderEngine::repeat(const Segment& s, std::uint32_t seq, std::uint32_t end, bool syn, bool ack_triggered,
                          const AfterPrevious& prev, bool old_tsval, bool answers_syn,
                          std::optional<std::uint32_t> tsval) {
  const bool fin = s.tcp.has(wire::kFin);
  // Zero-window probe repeated into a zero window: not a retransmission.
  if (peer_window_ == 0 && s.payload_len == 1 && seq == seq_.snd_una && !syn && !fin) {
    ++out_.zero_window_probes;
    count(SendKind::zero_window_probe);
    record(s, to_string(SendKind::zero_window_probe), seq);
    return;
  }
  // The window opened: data that starts with the probe's byte sends the rest
  // for the first time (the one byte it repeats was a probe, not lost data).
  if (zwp_seq_ && seq == *zwp_seq_ && peer_window_ > 0 && seq_gt(end, seq_.snd_max)) {
    zwp_seq_.reset();
    push_outstanding(Tx{seq_.snd_max, end, sample_from(), false});
    out_.bytes += rto::seq_diff(end, seq_.snd_max);
    seq_.snd_max = end;
    count(SendKind::first);
    if (!arm_) arm(s.time, ArmCause::send, tsval);
    record(s, to_string(SendKind::first), seq);
    return;
  }
  const bool fills_hole = !syn && fill_hole(seq, end, s.time, s.tcp.options);
  const auto observe = [&] {
  Observation o;
  o.handshake = handshake_;
  o.recovery = recovery_;
  o.syn = syn;
  o.syn_ack = syn && s.tcp.has(wire::kAck);
  o.answers_fin = fin && (ack_advanced_ || (peer_fin_end_ && seq_ge(s.tcp.ack, *peer_fin_end_)));
  o.already_acked = seq_le(end, heard_una());
  o.old_tsval = old_tsval;
  o.fills_hole = fills_hole;
  o.ack_clocked = ack_triggered;
  o.answers_dup_syn = answers_syn;
  o.peer_seen = last_peer_time_.has_value();
  o.loss_evidence = dupacks_ > 0 || sack_evidence_;
  o.is_head = seq_le(seq, heard_una());
  if (recovery_ == Recovery::rto) o.retransmission_lost = retransmission_lost(seq, end, burst_start_);
  o.is_highest = seq_ge(end, seq_.snd_max);
  o.back_to_back = prev.back_to_back;
  o.sack_negotiated = sack_negotiated();
  o.single_segment = in_flight() <= 1;
  o.timeouts_in_chain = timeouts_since_ack_;
  o.probe_since_ack = probe_since_ack_;
  const microseconds rto = current_rto() + opt_.profile->additive;
  if (arm_) {
    // Across a clock step the time since the arm is unknown: not a probe's time.
    o.since_arm = across_step(arm_->sent(), s.time) ? microseconds::max() : since(s.time, arm_->sent());
    // Armed by the sender's own transmission: one no later than its
    // previous data segment (each that arms is one; note_rearm() moves an
    // arm later only at an ACK that showed a loss, where no probe is read),
    // so at least as long ago as that one left. An arm by the peer's ACK is
    // on the capture's clock: when it reached the sender is not known.
    o.sender_since_arm = o.since_arm;
    if (prev.since && armed_by_own_send(arm_->cause)) o.sender_since_arm = std::max(o.since_arm, *prev.since);
    const microseconds lead = since(arm_->latest, arm_->earliest);
    o.rto_left = rto > lead ? rto - lead : microseconds{1};
  }
  o.since_peer = !heard_peer_ || across_step(*heard_peer_, s.time)
                     ? microseconds::max()
                     : std::chrono::abs(since(s.time, *heard_peer_));
  if (last_new_data_time_ && !across_step(*last_new_data_time_, s.time)) {
    o.since_new_data = since(s.time, *last_new_data_time_);
    // (The newest data went no later than the previous data segment: a
    // first transmission is one.)
    o.sender_since_new_data = o.since_new_data;
    if (prev.since) o.sender_since_new_data = std::max(o.since_new_data, *prev.since);
  }
  o.srtt = est_.estimator().srtt();
  o.tolerance = opt_.tolerance(rto);
  o.absolute_tolerance = opt_.absolute_tolerance;
  o.slack_percent = opt_.slack_percent;
  o.jitter = timer_jitter(opt_);
  o.tick = opt_.config.tick;
  o.sender_rtt = sender_rtt_.value_or(microseconds{0});
  if (burst_last_ && timeouts_since_ack_ > 0) {
    // A further expiry comes no sooner than the backed-off RTO, at least
    // about the previous expiry's wait: a fraction of it separates the two.
    microseconds last_wait{0};
    for (auto it = data_chain_.rbegin(); it != data_chain_.rend(); ++it)
      if (!it->maybe_probe) {
        last_wait = it->wait.lo;
        break;
      }
    const microseconds burst_gap =
        std::max(limits::kBurstFraction.of(last_wait), limits::kMinTimerWait);
    // On the send times (causal_send_time): a burst member its TSval shows
    // sent a burst gap after the last, though captured within one of it (the
    // earlier one held on its way), is a further expiry.
    o.in_rto_burst = since(s.time, *burst_last_) < burst_gap && !across_step(*burst_last_, s.time);
    // A burst sends each segment once. The ledger forgets what the capture
    // saw acknowledged; below that, the span the burst resent stands in for
    // it (a sender that did not hear the ACK resends from below it). Above,
    // the ledger is exact (a burst captured out of order leaves gaps).
    o.resent_in_burst = resent_since(seq, end, burst_start_) ||
                        (seq_lt(seq, seq_.snd_una) && seq_ge(seq, burst_span_.first) &&
                         seq_lt(seq, burst_span_.second));
  }
  return o;
  };
  Observation o = observe();
  Explanation ex = explain(o, *opt_.profile);
  // The new data sent just before, read as a loss probe, leaves none for
  // this repeat. Where this one is the probe once that one is read as the
  // application's write (the probe timer's time since it, the highest
  // segment), that reading explains both; the other makes this a timer's
  // resend of another kind, as an RTO resending the last segment, not the
  // earliest (5.4), long before the RTO.
  if (new_data_probe_ && ex.kind != SendKind::tlp && !syn) {
    const TimerState as_probe = timer_state();
    no_probe_out();
    const Observation w = observe();
    const Explanation e2 = explain(w, *opt_.profile);
    if (e2.kind == SendKind::tlp) {
      probe_read_as_write();
      o = w;
      ex = e2;
    } else {
      restore(as_probe);
    }
  }
  if (ex.kind == SendKind::spurious && !syn)
    if (std::optional<std::size_t> at = unheard_index_for(seq)) {
      // The capture saw this acknowledged: the sender resent it all the
      // same. Read with the sender's state before that ACK (the ACK was
      // lost after the capture point, or still on its way): a repeat its
      // timers or its ACK clock explain then is theirs, timed from there.
      const TimerState now = timer_state();
      const std::optional<std::uint32_t> heard_before = heard_una_;
      const std::uint64_t unheard_before = unheard_segments_;
      const auto undo = [&] {
        restore(now);
        heard_una_ = heard_before;
        unheard_segments_ = unheard_before;
      };
      // The resend read with ACK `a` and every later one unheard.
      const auto read_before = [&](const BeforeAck& a) {
        restore(a.state());
        heard_una_ = a.una;
        unheard_segments_ = acked_segments_ - a.acked_segments;
        // Nothing the peer sent from that ACK on reached the sender: none of
        // it clocks this resend, and the peer was last heard before it.
        Observation r = observe();
        r.ack_clocked = ack_clocked(s.time, a.time).has_value() || (train_trigger_ && *train_trigger_ < a.time);
        const std::optional<CaptureTime> last_heard = newest_peer_before(a.time);
        r.since_peer = !last_heard || across_step(*last_heard, s.time)
                           ? microseconds::max()
                           : std::chrono::abs(since(s.time, *last_heard));
        return r;
      };
      // With timestamps, the sender's TSecr shows every ACK with a newer
      // TSval unheard: the state is the one before the oldest of them.
      if (const auto& tsecr = s.tcp.options.tsecr)
        for (std::size_t i = unheard_kept_count(); i-- > *at + 1;)
          if (const auto tv = unheard_at(i).tsval(); tv && rto::ts_diff(*tv, *tsecr) > 0) {
            at = i;
            break;
          }
      Observation before = read_before(unheard_at(*at));
      Explanation e2 = explain(before, *opt_.profile);
      // Without them nothing shows whether the ACKs before that one reached
      // the sender. Read with only it (and the later ones) unheard, a timer
      // firing sooner than any RTO the profile allows is no reading of the
      // profile's: the earlier ACKs nothing shows heard are read as unheard
      // too, from the newest back, while one of the profile's other timers
      // (a loss probe) or its ACK clock explains the resend under them.
      if (!s.tcp.options.tsecr && e2.kind == SendKind::timeout &&
          before.since_arm < opt_.config.min_rto - opt_.tolerance(opt_.config.min_rto)) {
        for (std::size_t i = *at + 1; i < unheard_kept_count(); ++i) {
          undo();
          const Observation r = read_before(unheard_at(i));
          const Explanation e3 = explain(r, *opt_.profile);
          if (e3.kind == SendKind::tlp || e3.kind == SendKind::fast) {
            at = i;
            before = r;
            e2 = e3;
            break;
          }
        }
        if (e2.kind == SendKind::timeout) {  // none: the first reading stands
          undo();
          before = read_before(unheard_at(*at));
        }
      }
      if (e2.kind == SendKind::timeout || e2.kind == SendKind::tlp || e2.kind == SendKind::fast ||
          e2.kind == SendKind::slow_start_after_rto) {
        const BeforeAck& b = unheard_at(*at);
        o = before;
        ex = e2;
        ack_unheard_ = true;
        acks_held_from_ = b.time;
        Judgement j = note(Topic::ack_unheard, s.frame, capture_time_.value_or(s.time), false);
        j.other_frame = b.frame;
        append(std::move(j));
        // That ACK and every later one are unheard: none is kept.
        const std::uint32_t from = b.una;
        drop_newest(*at + 1);
        (void)filter_pending([&](const PendingSample& p) { return !seq_gt(p.ack, from); });  // never taken
      } else {
        undo();
      }
    }
  // A repeat captured with the copy before it in a held burst, which no
  // timer sent so soon and nothing clocked (HoldSign::repeat): the two left
  // the sender a timer's wait apart, so the timer's expiry by that reading,
  // weighed against the one where something unseen sent it (ChainJudge).
  // (Only where the repeat showed its burst held: one after a silence,
  // HostActivity; else the two were sent as captured.)
  const bool maybe_repeat = !syn && ex.kind == SendKind::unclassified && ex.cause == Cause::no_quiet_period &&
                            feed_.repeated() && activity_ && activity_->flushed(file_, s.frame).has_value();
  if (maybe_repeat) ex = Explanation{SendKind::timeout, Cause::rto_timer, false};
  const SendKind kind = ex.kind;

  if (kind == SendKind::out_of_order) {
    // Not the sender's doing: a first transmission seen late, or an old copy.
    count(kind);
    if (ex.cause == Cause::reordered_first) insert_outstanding(Tx{seq, end, sample_from(), false});
    record(s, to_string(kind), seq);
    return;
  }
  if (seq_gt(end, seq_.snd_max)) {  // partly new data
    push_outstanding(Tx{seq_.snd_max, end, sample_from(), false});
    seq_.snd_max = end;
  }
  if (!ex.maybe_rto && !maybe_repeat) count(kind);  // a probe's (a repeat's) reading is counted when its chain settles
  switch (kind) {
    case SendKind::timeout:
    case SendKind::syn_timeout:
      if (!syn) maybe_delayed_ = delayed_by_new_data(o);
      timer_event(s, seq, syn, false, tsval, maybe_repeat);
      break;
    case SendKind::tlp:
      if (ex.maybe_rto) {
        timer_event(s, seq, false, true, tsval);
      } else {
        // RFC 8985 7.3 / Linux tcp_send_loss_probe: the probe re-arms a full
        // RTO. A stack that does not re-arm keeps the old deadline: under
        // profiles other than Linux both readings stay open.
        const CaptureTime before = arm_ ? arm_->earliest : *capture_time_;
        arm(s.time, ArmCause::probe, tsval, opt_.profile->rearm_from_head ? *capture_time_ : before);
        arm_->frame = s.frame;
      }
      probe_since_ack_ = true;
      if (recovery_ == Recovery::open) recovery_ = Recovery::probe_out;
      break;
    case SendKind::fast:
      if (recovery_ != Recovery::fast || !seq_lt(heard_una(), fast_recovery_point_)) {
        recovery_ = Recovery::fast;
        fast_recovery_point_ = seq_.snd_max;
      }
      if (o.is_head) head_retransmitted(s, tsval);
      break;
    case SendKind::slow_start_after_rto:
      if (o.is_head && pending_54_) pending_54_->head_resent = true;  // 5.4 does not order a burst's segments
      if (o.is_head) head_retransmitted(s, tsval);
      if (o.in_rto_burst) {
        burst_last_ = s.time;
        if (seq_lt(seq, burst_span_.first)) burst_span_.first = seq;
        if (seq_gt(end, burst_span_.second)) burst_span_.second = end;
      }
      break;
    case SendKind::syn_reply:
      // Linux tcp_check_req re-arms the SYN-ACK timer from the reply, keeping
      // its backoff; a stack that does not leaves the old arm: both readings.
      if (syn_arm_) {
        if (opt_.profile->rearm_from_head)
          syn_arm_ = TimerArm{ArmCause::syn_reply, *capture_time_, *capture_time_, tsval, s.frame, held_us_};
        else {
          syn_arm_->latest = *capture_time_;
          syn_arm_->held_us = held_us_;
        }
      }
      break;
    default:
      break;
  }
  ack_unheard_ = false;
  mark_retransmitted(seq, end, sample_from());
  if ((ex.maybe_rto || maybe_repeat) && keep_timeline_) provisional_rows_.emplace_back(s.frame, out_.timeline.size());
  record(s, to_string(kind), seq);
}

bool SenderEngine::delayed_by_new_data(const Observation& o) const {
  // Linux (ProbeRule::exact) re-schedules its probe timer at each new
  // transmission (tcp_write_xmit -> tcp_schedule_loss_probe: a PTO from
  // then, clamped to the RTO's deadline while that is ahead). With a probe
  // outstanding the timer's firing fires the RTO (tcp_send_loss_probe ->
  // tcp_rearm_rto): new data sent after the deadline holds the expiry back
  // to a PTO after it. Whether a probe was out and the deadline passed the
  // capture may not show (the probe clamped to an RTO a setting lowered
  // looks like a write); the chain judge checks the RTO that reading needs
  // against the newest data's time (ObservedExpiry::delayed_after_head).
  if (!opt_.profile->probe.enabled || !opt_.profile->probe.exact) return false;
  // It schedules a probe only with SACK, in the Open (or CWR) state: not
  // once duplicate ACKs or SACKs showed a loss, nor in fast recovery or
  // after an expiry (loss recovery, until an ACK passes its recovery
  // point): a chain's first expiry only.
  if (!o.sack_negotiated) return false;
  if (o.loss_evidence) return false;
  if (o.recovery != Recovery::open && o.recovery != Recovery::probe_out) return false;
  if (o.since_new_data == microseconds::max()) return false;  // no new data (or across a clock step)
  // The probe timer a PTO after the newest data, not clamped to the RTO's
  // deadline: that had passed (else the RTO fired at it, on time).
  Observation d = o;
  d.since_arm = o.since_new_data;
  d.sender_since_arm = o.sender_since_new_data;
  d.rto_left = microseconds{0};
  return fits_probe_timer(d, *opt_.profile);
}

void SenderEngine::timer_event(const Segment& s, std::uint32_t seq, bool syn, bool maybe_probe,
                               std::optional<std::uint32_t> tsval, bool maybe_repeat) {
  const CaptureTime captured = capture_time_.value_or(s.time);  // the frame's time on the capture's clock
  if (syn && syn_acked_frame_ && !syn_lost_ack_noted_) {
    syn_lost_ack_noted_ = true;
    Judgement j = note(Topic::syn_acked_unseen, s.frame, captured, true);
    j.other_frame = *syn_acked_frame_;
    append(std::move(j));
  }
  const std::optional<TimerArm>& a = syn ? syn_arm_ : arm_;
  const TimerArm armed = a.value_or(TimerArm{ArmCause::send, captured, captured, std::nullopt, 0, held_us_});
  // The expiry is judged on the capture's clock, the arm's.
  const CaptureTime armed_earliest = armed.earliest;
  const CaptureTime armed_latest = armed.latest;
  ObservedExpiry x;
  x.frame = s.frame;
  x.time = captured;
  x.syn = syn;
  x.rel_seq = rel(seq);
  x.armed_by = armed.cause;
  x.arm_frame = armed.frame;
  x.wait = wait_since(armed, captured);
  x.check = last_peer_time_.has_value() || syn;
  x.thin = in_flight() < 4;
  x.maybe_probe = maybe_probe;
  x.maybe_repeat = maybe_repeat;
  x.after_ambiguous_ack = ambiguous_since_expiry_;
  x.after_sack_sample = sack_sample_since_expiry_;
  x.ack_unheard = std::exchange(ack_unheard_, false);
  if (std::exchange(maybe_delayed_, false)) {
    x.maybe_delayed = true;
    x.delayed_by = last_new_data_frame_;
    // Linux's deadline counts from the head's last transmission
    // (tcp_rto_delta_us), whatever re-armed the timer since.
    const CaptureTime head = outstanding_.empty() ? armed.earliest : outstanding_.front().last_time;
    x.delayed_after_head = since(*last_new_data_time_, head);
  }
  // An expiry of the data timer resends the head, at or above every held
  // sample's ACK (a resend below one voided it, send_at): the sender knew
  // SND.UNA past that ACK, so it had processed it and taken its sample. (A
  // loss probe resends the highest segment, which shows no SND.UNA.)
  if (!syn && !maybe_probe)
    while (pending_count_ > 0) take_pending(pop_pending(), captured);
  x.expect = syn ? est_.syn_expectation() : est_.data_expectation();
  // The sender's own clock: its TSvals show the wait it timed even where the
  // capture's timestamps are late or batched, or step.
  std::optional<Interval> on_ts;
  if (tsval && armed.tsval)
    if (const auto w = feed_.ts_clock().interval(*armed.tsval, *tsval); w && w->count() > 0)
      if (const auto rate = feed_.ts_clock().rate_hz()) {
        const microseconds tick{static_cast<std::int64_t>(limits::kClockDisagreeTicks * 1e6 / *rate)};
        on_ts = Interval{*w - tick, *w + tick};
      }
  x.ts_wait = on_ts;
  const ModelStep* step = clock_ ? clock_->between(armed_earliest, captured) : nullptr;
  if (step || armed_latest > captured) {
    // A step of the capture clock between the arm and this expiry: the wait
    // on the capture's clock is unknown (clock_steps.hpp) and not judged;
    // the chain's later doublings read it on the sender's TSval clock.
    x.wait_unknown = true;
    x.bridged = on_ts;
    Judgement j = note(Topic::clock_step, s.frame, captured, syn);
    if (step) {
      j.other_frame = step->frame;
      j.other_prev_frame = step->prev_frame;
      j.step = step->back;
    } else {
      j.step = armed_latest - captured;
    }
    append(std::move(j));
  } else if (on_ts && !x.wait.intersects(*on_ts)) {
    // The two clocks disagree beyond the TSval's quantisation: the capture
    // saw a transmission late (a queue, a capture batching timestamps). The
    // sender's own clock says how long its timer ran.
    x.wait = *on_ts;
    x.on_tsval = true;
  }
  if (syn) {
    syn_chain_.push_back(x);
  } else {
    data_chain_.push_back(x);
    data_chain_open_ = true;
  }
  ambiguous_since_expiry_ = false;
  sack_sample_since_expiry_ = false;
  if (syn) {
    est_.on_syn_timeout();
    syn_arm_ = TimerArm{ArmCause::timeout, captured, captured, tsval, s.frame, held_us_};
    return;
  }
  if (maybe_probe) {
    arm(s.time, ArmCause::probe, tsval);
    arm_->frame = s.frame;
    return;
  }
  // 5.4 is settled when the expiry's burst ends: the burst may resend the head.
  // (A repeat in a held burst resends the copy before it, which 5.4 judged:
  // whether it is an expiry at all is the chain's to weigh.)
  settle_54();
  if (seq != heard_una() && !maybe_repeat) {
    pending_54_ = Pending54{s.frame, captured, rel(seq), rel(heard_una()), data_expiries(), false, x.ack_unheard};
    notes_waiting_ = true;
  }
  open_57_.reset();  // a data expiry before the next sample: the chain judges 5.7 at it
  recovery_ = Recovery::rto;
  seq_.recovery_point = seq_.snd_max;
  burst_start_ = s.time;
  burst_span_ = {seq, seq + std::max<std::uint32_t>(s.payload_len, 1)};
  burst_last_ = s.time;
  ++timeouts_since_ack_;
  arm(s.time, ArmCause::timeout, tsval);  // 5.6: restart the timer
  arm_->frame = s.frame;
}

void SenderEngine::finish() {
  settle_held_synack(nullptr);
  settle_pending_samples(CaptureTime::max());
  // The replayed estimator at the end, with the backoff of the chain still open.
  const auto& e = est_.estimator();
  out_.srtt = e.srtt();
  out_.rttvar = e.rttvar();
  out_.capture_rtt = sender_rtt_;
  // In doubt, any round trip is its bound (the handshake's upper reading,
  // or what an ACK of the peer's data showed).
  out_.capture_rtt_bound = handshake_ambiguous_ && sender_rtt_.has_value();
  out_.rto = current_rto();
  out_.backoff = data_expiries();
  settle_54();
  settle_syn_chain();
  if (arm_ && seq_lt(heard_una(), seq_.snd_max))
    for (auto it = data_chain_.rbegin(); it != data_chain_.rend(); ++it) {
      if (it->maybe_probe) continue;
      // Still backing off at the end: the capture does not show what came
      // next (a TcpExtTCPTimeouts the capture cannot count, or none).
      Judgement j = note(Topic::open_at_end, it->frame, it->time, false);
      j.expiry = out_.backoff;
      j.armed_by = ArmCause::timeout;
      j.predicted = Interval::point(out_.rto);
      append(std::move(j));
      break;
    }
  settle_data_chain();
  current_frame_ = 0;
  settle_57(0);
  if (auto r = feed_.ts_clock().rate_hz()) out_.inferred.tsval_hz = *r;
  // The log in frame order (stable: a frame's judgements keep theirs).
  std::stable_sort(out_.findings.begin(), out_.findings.end(),
                   [](const Judgement& a, const Judgement& b) { return a.frame < b.frame; });
  std::stable_sort(out_.timeouts.begin(), out_.timeouts.end(),
                   [](const TimeoutRecord& a, const TimeoutRecord& b) { return a.frame < b.frame; });
}

}  // namespace replay::engine
