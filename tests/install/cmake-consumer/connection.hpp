// One connection's retransmission timer in a TimerWheel shared by every
// connection. The RetransmissionTimer decides the deadline (RFC 6298 5.1-5.6);
// the TimerEntry, embedded in the connection, carries it in the wheel. After
// each event that can move the deadline, sync() arms the entry at the timer's
// deadline (re-arming moves it), or cancels it when the timer has stopped.
#pragma once
#include <cstdint>
#include <rto/rto.hpp>

struct Connection {
  rto::Estimator est;              // RFC 6298: initial RTO 1 s (2.1), floor 1 s (2.4)
  rto::RttSampler sampler;         // Karn (section 3): never times a retransmission
  rto::RetransmissionTimer timer;  // 5.1-5.6 on absolute deadlines
  rto::TimerEntry entry;           // intrusive: no allocation; entry.user = our index
  std::uint32_t snd_una = 0, snd_nxt = 0;
  unsigned timeouts = 0;

  void sync(rto::TimerWheel& wheel) {
    if (timer.running()) wheel.arm(entry, timer.deadline());  // arm or re-arm
    else wheel.cancel(entry);                                 // stopped: cancel
  }

  // Segment [seq, seq + len) is sent at `now` (new data or a retransmission).
  void on_send(rto::TimerWheel& wheel, std::uint32_t seq, std::uint32_t len, rto::Instant now) {
    sampler.on_send(seq, len, now);
    snd_nxt = rto::seq_max(snd_nxt, seq + len);
    timer.on_data_sent(now, est.rto());  // 5.1: starts a stopped timer, leaves a running one
    sync(wheel);
  }

  // A cumulative ACK `ack` arrives at `now`.
  void on_ack(rto::TimerWheel& wheel, std::uint32_t ack, rto::Instant now) {
    if (!rto::seq_gt(ack, snd_una)) return;  // duplicate ACK: the timer is not touched
    snd_una = ack;
    if (auto r = sampler.on_ack(ack, now)) est.on_rtt_sample(*r);  // 2.2 / 2.3
    if (snd_una == snd_nxt) timer.on_all_acked();                  // 5.2: stop
    else timer.on_new_data_acked(now, est.rto());                  // 5.3: restart
    sync(wheel);
  }

  // The wheel fired this connection's entry at `now` (never before the deadline).
  void on_fire(rto::TimerWheel& wheel, rto::Instant now) {
    sampler.on_timeout();       // Karn: what is in flight will not be timed
    ++timeouts;                 // 5.4: retransmit the segment at snd_una here
    timer.on_expiry(now, est);  // 5.5: double the RTO; 5.6: restart the timer
    sync(wheel);
  }
};

// The event loop calls this with the current time: every due connection fires.
inline void run_timers(rto::TimerWheel& wheel, Connection* conns, rto::Instant now) {
  wheel.advance(now, [&](rto::TimerEntry& e) { conns[e.user].on_fire(wheel, now); });
}
