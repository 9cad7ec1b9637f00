#include "netstack/congestion.hpp"

#include <algorithm>

#include "rto/seq.hpp"

namespace netstack {
namespace {

// RFC 5681 3.1 eq. 1: IW by SMSS.
std::uint32_t initial_window(std::uint32_t smss, std::uint32_t segments) {
  if (segments != 0) return segments * smss;
  if (smss > 2190) return 2 * smss;
  if (smss > 1095) return 3 * smss;
  return 4 * smss;
}

}  // namespace

NewReno::NewReno(std::uint32_t smss, std::uint32_t initial_window_segments, std::uint32_t iss)
    : smss_(smss), cwnd_(initial_window(smss, initial_window_segments)), recover_(iss) {}

void NewReno::reset_smss(std::uint32_t smss, std::uint32_t initial_window_segments) {
  smss_ = smss;
  cwnd_ = initial_window(smss, initial_window_segments);
}

void NewReno::on_ack_of_new_data(std::uint32_t bytes_acked) {
  if (cwnd_ < ssthresh_) {
    // RFC 5681 3.1 eq. 2: slow start.
    cwnd_ += std::min(bytes_acked, smss_);
  } else {
    // RFC 5681 3.1 eq. 3: congestion avoidance, about one SMSS per RTT.
    const std::uint64_t inc = std::uint64_t{smss_} * smss_ / cwnd_;
    cwnd_ += static_cast<std::uint32_t>(std::max<std::uint64_t>(inc, 1));
  }
}

bool NewReno::on_dup_ack(unsigned count, std::uint32_t ack, std::uint32_t flight_size, std::uint32_t snd_max) {
  if (in_recovery_) {
    cwnd_ += smss_;  // RFC 6582 3.2 step 4
    return false;
  }
  if (count != 3) return false;
  // RFC 6582 3.2 step 2: enter only if the ACK covers more than recover.
  if (!rto::seq_gt(ack, recover_)) return false;
  // Step 3 / RFC 5681 eq. 4.
  ssthresh_ = std::max(flight_size / 2, 2 * smss_);
  recover_ = snd_max - 1;
  cwnd_ = ssthresh_ + 3 * smss_;
  in_recovery_ = true;
  return true;
}

bool NewReno::on_recovery_ack(std::uint32_t ack, std::uint32_t bytes_acked, std::uint32_t flight_size) {
  if (rto::seq_gt(ack, recover_)) {
    // RFC 6582 3.2 step 6, option (1): full ACK.
    cwnd_ = std::min(ssthresh_, std::max(flight_size, smss_) + smss_);
    in_recovery_ = false;
    return false;
  }
  // Step 5: partial ACK; deflate, then add back one SMSS if a full one was acked.
  cwnd_ = cwnd_ > bytes_acked ? cwnd_ - bytes_acked : 0;
  if (bytes_acked >= smss_) cwnd_ += smss_;
  cwnd_ = std::max(cwnd_, smss_);
  return true;
}

void NewReno::on_timeout(std::uint32_t flight_size, std::uint32_t snd_max, bool repeated) {
  if (!repeated) ssthresh_ = std::max(flight_size / 2, 2 * smss_);  // RFC 5681 eq. 4
  cwnd_ = smss_;  // loss window LW = 1 SMSS
  recover_ = snd_max - 1;
  in_recovery_ = false;
}

}  // namespace netstack
