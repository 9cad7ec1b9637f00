// README example: embedding the rto/ module in another stack. A stack keeps
// one Estimator, one RttSampler and one RetransmissionTimer per connection,
// tells them about sends, ACKs and expiries with its own clock's time (and
// its own SND.UNA and SND.MAX), and asks the timer for the next deadline.
// Nothing else is needed from rto/.

#include <doctest/doctest.h>

#include <rto/rto.hpp>

#include <chrono>
#include <cstdint>

using namespace std::chrono_literals;

namespace {

// The part of a connection that deals with retransmission (RFC 6298).
struct Connection {
  rto::Estimator estimator;        // 2.1-2.5: SRTT, RTTVAR, the RTO they give
  rto::RttSampler sampler;         // 3 (Karn), RFC 7323
  rto::RetransmissionTimer timer;  // 5.1-5.7: the deadline, the backoff, R2
  std::uint32_t snd_una = 1000, snd_nxt = 1000;
  int retransmissions = 0;

  void send(std::uint32_t len, rto::Instant now) {
    sampler.on_send(snd_nxt, len, snd_nxt, now);  // new data, at SND.MAX
    snd_nxt += len;
    timer.on_data_sent(now);  // 5.1: start if not running
  }
  void on_ack(std::uint32_t ack, rto::Instant now) {
    if (!rto::seq_gt(ack, snd_una)) return;  // not new data: no restart (5.3)
    const auto r = sampler.on_ack(ack, snd_una, snd_nxt, now);
    if (r && estimator.on_rtt_sample(*r)) timer.on_rtt_sample(estimator.rto());  // 2.2 / 2.3, ends a backoff
    snd_una = ack;
    if (snd_una == snd_nxt) timer.on_all_acked();  // 5.2
    else timer.on_new_data_acked(now);             // 5.3
  }
  void on_tick(rto::Instant now) {
    if (!timer.expired(now)) return;
    const rto::Expiry x = timer.on_expiry(now);  // 5.5 back off, 5.6 restart
    if (x.verdict != rto::RetryVerdict::Retransmit) return;  // R2: give up, close the connection
    if (x.forget_rtt) estimator.forget();  // section 5 note, if the profile asks for it
    ++retransmissions;     // 5.4: resend the segment at snd_una (and sampler.on_send it)
    sampler.on_timeout();  // Karn: nothing in flight is timed any more
  }
};

rto::Instant t(std::chrono::milliseconds ms) { return rto::Instant{ms}; }

}  // namespace

TEST_CASE("README embedding example: 2.2 first sample, 5.5 backoff, 3 Karn, fresh sample collapses backoff") {
  Connection c;
  c.send(1000, t(0ms));
  c.on_ack(2000, t(100ms));                       // R = 100 ms: SRTT 100, RTTVAR 50, RTO max(1 s, 300 ms) = 1 s
  CHECK(c.estimator.rto() == 1s);
  c.send(1000, t(200ms));                         // lost
  c.on_tick(t(1200ms));                           // 5.5: RTO 2 s, next expiry at 3.2 s
  CHECK(c.retransmissions == 1);
  CHECK(c.timer.deadline() == t(3200ms));
  c.on_ack(3000, t(1300ms));                      // ACK of retransmitted data: no sample (Karn)
  CHECK(c.timer.rto() == 2s);
  c.send(1000, t(1400ms));
  c.on_ack(4000, t(1500ms));                      // a fresh sample: RTO recomputed, backoff gone
  CHECK(c.timer.backoff() == 0);
  CHECK(c.timer.rto() == 1s);
}
