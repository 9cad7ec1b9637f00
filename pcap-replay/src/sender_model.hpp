#pragma once
// One direction of a connection seen as a sender: what it has sent and what
// the peer acknowledged (SND.UNA, SND.MAX, the outstanding segments), which
// of its segments are retransmissions and of what kind, the RTT samples it
// could take from the peer's ACKs, and its replayed timer (TimerReplay).

#include <cstdint>
#include <deque>
#include <optional>

#include "flow_report.hpp"
#include "options.hpp"
#include "retransmission_classifier.hpp"
#include "rtt_sampling.hpp"
#include "segment.hpp"
#include "timer_replay.hpp"

namespace replay {

/// The sender model of one direction. Feed every segment of the connection
/// in capture order: on_send() for the segments this side sent, on_peer()
/// for the segments the other side sent (their ACKs). Results go to the
/// SenderReport given at construction (which must outlive the model).
class SenderModel {
 public:
  SenderModel(const Options& options, SenderReport& out, bool keep_timeline);

  /// A segment sent by this side.
  void on_send(const Segment& s);
  /// A segment sent by the peer (ACK, SACK, window, timestamps echo).
  void on_peer(const Segment& s);
  /// Copies the final estimator state into the report.
  void finish();

  /// Relative sequence number as Wireshark shows it (ISN = 0).
  std::uint32_t rel(std::uint32_t seq) const { return seq - isn_; }

 private:
  struct Tx {  // one transmitted range of sequence space
    std::uint32_t seq, end;
    CaptureTime first_time, last_time;
    std::uint64_t first_frame;
    bool retransmitted;
    bool sacked = false;
  };
  /// Marks the outstanding segments the SACK blocks of `h` newly cover;
  /// returns true and sets `first` to the last send time of the first of
  /// them never retransmitted (Linux tcp_sacktag_one's first_sackt), if any.
  bool apply_sack(const wire::TcpHeader& h, CaptureTime& first);
  void record(const Segment& s, std::string_view event, std::uint32_t rel_seq,
              std::optional<std::chrono::microseconds> sample = std::nullopt,
              std::optional<SampleKind> kind = std::nullopt);
  void take_sample(const Segment& s, std::chrono::microseconds r, SampleKind kind);
  void mark_retransmitted(std::uint32_t seq, std::uint32_t end, CaptureTime t);

  const Options& opt_;
  SenderReport& out_;
  bool keep_timeline_;
  TimerReplay timer_;
  TsClock ts_clock_;

  bool started_ = false;
  bool syn_seen_ = false, syn_acked_ = false;
  std::uint32_t isn_ = 0;
  std::uint32_t snd_una_ = 0;  // SND.UNA
  std::uint32_t snd_max_ = 0;  // highest sequence sent + its length
  std::deque<Tx> outstanding_;
  // RTO recovery: after a timeout until SND.UNA reaches the recovery point.
  bool in_rto_recovery_ = false;
  std::uint32_t recovery_point_ = 0;
  // Fast recovery: after a fast retransmit until SND.UNA reaches its point.
  bool in_fast_recovery_ = false;
  std::uint32_t fast_recovery_point_ = 0;
  // Feedback from the peer.
  std::optional<CaptureTime> last_peer_time_;
  std::optional<CaptureTime> last_send_time_;
  std::optional<CaptureTime> last_data_send_time_;  // last data-bearing segment (SYN/FIN count)
  // The post-RTO burst: time of its last retransmission (the expiry's or a
  // burst member's); cleared by any segment from the peer.
  std::optional<CaptureTime> burst_last_;
  bool last_send_ack_triggered_ = false;
  std::uint16_t peer_window_ = 1;
  unsigned dupacks_ = 0;
  bool sack_evidence_ = false;
  bool peer_timestamps_ = false;
};

}  // namespace replay
