#include <replay/analysis/thresholds.hpp>

#include <cstdio>

namespace replay::limits {

std::string describe_thresholds() {
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "no timer fires within %.0f ms of what armed it; a response to the peer shows up within "
                "%.0f ms (captured away from the sender: plus 1 + %lld/%lld capture-to-sender round trips, and no sooner than "
                "1 - %lld/%lld of the quickest answer it has shown), and data sent again "
                "answers it only after a loss it showed, in recovery, or with a FIN; a repeat within 1/%lld of the previous "
                "expiry's wait with no ACK between is part of its go-back-N burst; a TSval %u ticks older than "
                "the newest sent is an old copy in the network; a later expiry of a chain is predicted as the "
                "doubling of the RTO its earlier waits show, under the timer's lateness",
                kMinTimerWait.count() / 1000.0, kAckClockMin.count() / 1000.0,
                static_cast<long long>(kAckClockBand.num), static_cast<long long>(kAckClockBand.den),
                static_cast<long long>(kAckClockBand.num), static_cast<long long>(kAckClockBand.den),
                static_cast<long long>(kBurstFraction.den / kBurstFraction.num),
                kOldTsvalTicks);
  return buf;
}

}  // namespace replay::limits
