// One connection's retransmission timer in a TimerWheel shared by every
// connection. The RetransmissionTimer decides the deadline (RFC 6298 5.1-5.7)
// with the RTO the Estimator computes; the TimerEntry, embedded in the
// connection, carries it in the wheel. After each event that can move the
// deadline, sync() arms the entry at the timer's deadline (re-arming moves
// it), or cancels it when the timer has stopped.
#pragma once
#include <cstdint>
#include <rto/rto.hpp>

struct Connection {
  rto::Estimator est;              // RFC 6298 2.2/2.3: SRTT, RTTVAR and the RTO they give
  rto::RttSampler sampler;         // Karn (section 3): never times a retransmission
  rto::RetransmissionTimer timer;  // 5.1-5.7 on absolute deadlines: the RTO in force, its backoff
  rto::TimerEntry entry;           // intrusive: no allocation; entry.user = our index
  std::uint32_t snd_una = 0, snd_max = 0;
  unsigned timeouts = 0;

  void sync(rto::TimerWheel& wheel) {
    if (timer.running()) wheel.arm(entry, timer.deadline());  // arm or re-arm
    else wheel.cancel(entry);                                 // stopped: cancel
  }

  // Segment [seq, seq + len) is sent at `now` (new data or a retransmission).
  void on_send(rto::TimerWheel& wheel, std::uint32_t seq, std::uint32_t len, rto::Instant now) {
    sampler.on_send(seq, len, snd_max, now);  // below SND.MAX: a retransmission, never timed
    snd_max = rto::seq_max(snd_max, seq + len);
    timer.on_data_sent(now);  // 5.1: starts a stopped timer, leaves a running one
    sync(wheel);
  }

  // A cumulative ACK `ack` arrives at `now`.
  void on_ack(rto::TimerWheel& wheel, std::uint32_t ack, rto::Instant now) {
    if (!rto::seq_gt(ack, snd_una)) return;  // duplicate ACK: the timer is not touched
    const auto r = sampler.on_ack(ack, snd_una, snd_max, now);
    if (r && est.on_rtt_sample(*r)) timer.on_rtt_sample(est.rto());  // 2.2 / 2.3; ends a backoff
    snd_una = ack;
    if (snd_una == snd_max) timer.on_all_acked();  // 5.2: stop
    else timer.on_new_data_acked(now);             // 5.3: restart
    sync(wheel);
  }

  // The wheel fired this connection's entry at `now` (never before the deadline).
  void on_fire(rto::TimerWheel& wheel, rto::Instant now) {
    const rto::Expiry x = timer.on_expiry(now);  // 5.5: double the RTO; 5.6: restart the timer
    if (x.forget_rtt) est.forget();              // section 5 note, when the profile asks
    if (x.verdict == rto::RetryVerdict::Retransmit) {
      sampler.on_timeout();  // Karn: what is in flight will not be timed
      ++timeouts;            // 5.4: retransmit the segment at snd_una here
    }                        // else RFC 1122 R2: give up (the timer has stopped)
    sync(wheel);
  }
};

// The event loop calls this with the current time: every due connection fires.
// wheel.next_deadline() says how long it may sleep before the next call.
inline void run_timers(rto::TimerWheel& wheel, Connection* conns, rto::Instant now) {
  wheel.advance(now, [&](rto::TimerEntry& e) { conns[e.user].on_fire(wheel, now); });
}
