#include "netstack/timer_story.hpp"

#include <cstdio>

namespace netstack {

namespace {

double ms(std::chrono::microseconds d) { return static_cast<double>(d.count()) / 1000.0; }

std::string at(rto::Instant t, rto::Instant syn_time) {
  char b[32];
  std::snprintf(b, sizeof b, "+%.3f s", static_cast<double>((t - syn_time).count()) / 1e6);
  return b;
}

std::string sample_line(const RttRecord& r, rto::Instant syn_time) {
  char b[200];
  std::snprintf(b, sizeof b, "%s  RTT sample %.1f ms: SRTT %.1f ms, RTTVAR %.1f ms, RTO %.1f ms",
                at(r.time, syn_time).c_str(), ms(r.sample), ms(r.srtt), ms(r.rttvar), ms(r.rto));
  return b;
}

std::string retransmit_line(const RetransmitRecord& r, rto::Instant syn_time, std::uint32_t iss) {
  const std::uint32_t rel = r.seq - iss;  // modulo 2^32: the SYN is 0, the first data byte 1
  char what[96];
  if (r.syn) std::snprintf(what, sizeof what, "the SYN");
  else std::snprintf(what, sizeof what, "seq %u len %u%s", rel, r.len, r.fin ? " (with the FIN)" : "");
  char b[240];
  switch (r.kind) {
    case RetransmitKind::Timeout:
      std::snprintf(b, sizeof b, "%s  RTO expired after %.1f ms: retransmit %s; backoff %u, RTO now %.1f ms",
                    at(r.time, syn_time).c_str(), ms(r.waited), what, r.backoff, ms(r.rto));
      break;
    case RetransmitKind::Fast:
      std::snprintf(b, sizeof b, "%s  fast retransmit of %s (duplicate ACKs)", at(r.time, syn_time).c_str(), what);
      break;
    case RetransmitKind::AfterTimeout:
      std::snprintf(b, sizeof b, "%s  resend %s after the timeout (go-back-N)", at(r.time, syn_time).c_str(), what);
      break;
  }
  return b;
}

}  // namespace

std::vector<std::string> timer_story(const SenderStats& stats, rto::Instant syn_time, std::uint32_t iss) {
  // Merge the two logs (each already in time order); a sample first at equal times.
  const auto& samples = stats.rtt_log;
  const auto& sent = stats.retransmit_log;
  std::vector<std::string> out;
  out.reserve(samples.size() + sent.size());
  std::size_t i = 0, j = 0;
  while (i < samples.size() || j < sent.size()) {
    if (j == sent.size() || (i < samples.size() && samples[i].time <= sent[j].time)) {
      out.push_back(sample_line(samples[i++], syn_time));
    } else {
      out.push_back(retransmit_line(sent[j++], syn_time, iss));
    }
  }
  return out;
}

}  // namespace netstack
