// A "cannot tell" names the readings it weighed, and they disagree: one
// breaks the rule, another keeps it (else the verdict would be broken or
// kept). Checked on every lab capture under both profiles, and at one frame
// by hand.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <replay/pipeline/analyze_files.hpp>

namespace {
replay::Report analyze(const std::string& file, const char* profile) {
  std::vector<std::string> errors;
  return replay::analyze_files({file}, replay::Options::for_profile(profile), false, errors);
}
}  // namespace

TEST_CASE("cannot tell: the readings named include one that breaks the rule and one that keeps it") {
  std::size_t seen = 0;
  for (const auto& e : std::filesystem::directory_iterator("tests/captures/lab")) {
    if (e.path().extension() != ".pcap") continue;
    for (const char* profile : {"rfc6298", "linux"}) {
      const replay::Report r = analyze(e.path().string(), profile);
      for (const auto& f : r.flows)
        for (const auto& s : f.senders)
          for (const auto& j : s.findings) {
            if (j.outcome != replay::Outcome::cannot_tell || j.readings.empty()) continue;
            ++seen;
            bool keeps = false, breaks = false;
            for (const auto& x : j.readings) (x.keeps ? keeps : breaks) = true;
            INFO(e.path().string(), " ", profile, " frame ", j.frame, " rule ", replay::to_string(j.rule));
            CHECK(keeps);
            CHECK(breaks);
          }
    }
  }
  CHECK(seen >= 5);  // the lab has several (thin-linear, user-timeout, synack-loss ...)
}

TEST_CASE("every reading breaks it: thin-linear frame 201, the expiry after a loss probe (2.4 under rfc6298)") {
  // tshark: frame 197 sends SEQ 13313 at 1.614859 s; frame 200 sends it
  // again at 1.822773 s (207.9 ms later: a loss probe, or the first RTO
  // expiry), frame 201 again at 2.034737 s (212.0 ms after 200). 2.4's
  // floor accepts a first expiry from 1000 - 10 % - 1 ms = 899 ms on.
  // Read as a probe that re-armed the timer, 201 is the first expiry, 212
  // ms after it: broken. Read as an expiry, 200 is the first, 207.9 ms
  // after 197: broken there. Read as a probe that left the deadline as it
  // was (RFC 6298's profile re-arms nothing at a probe), 201 is the first,
  // 207.9 + 212.0 = 419.9 ms after 197: broken. Every reading breaks 2.4:
  // the SHOULD, with the three readings named, none keeping it.
  const replay::Report r = analyze("tests/captures/lab/thin-linear.pcap", "rfc6298");
  const replay::Judgement* j = nullptr;
  for (const auto& f : r.flows)
    for (const auto& s : f.senders)
      for (const auto& x : s.findings)
        if (x.frame == 201 && x.rule == replay::RuleId::rfc6298_2_4) j = &x;
  REQUIRE(j != nullptr);
  CHECK(j->outcome == replay::Outcome::broken);
  CHECK(j->level == replay::Level::should);
  REQUIRE(j->readings.size() == 3);
  CHECK(j->readings[0].reading == replay::Reading::as_probe);
  CHECK(j->readings[1].reading == replay::Reading::as_expiry);
  CHECK(j->readings[2].reading == replay::Reading::probe_deadline_kept);
  for (const auto& x : j->readings) CHECK_FALSE(x.keeps);
}

TEST_CASE("readings: a repeat with no silence before it is no held burst, and not weighed as one") {
  // spurious-rto-eifel frames 328 and 329: [219985,221185) at 0.961751 s
  // and again 4.2 ms later (TSvals 2315419651 and 2315419656: 5 ms on the
  // sender's 1 kHz clock), the kernel's loss probe (its label: tlp,
  // tcp_send_loss_probe), 10 ms after the sender's previous burst: no
  // silence before it (kFlushSilence), no held burst. No judgement names a
  // repeat's readings (read as one, the probe would be "the timer fired
  // 4.2 ms after data was sent": 2.4 broken under one reading).
  const replay::Report r = analyze("tests/captures/lab/spurious-rto-eifel.pcap", "rfc6298");
  std::size_t repeat_readings = 0;
  for (const auto& f : r.flows)
    for (const auto& s : f.senders)
      for (const auto& x : s.findings)
        for (const auto& rd : x.readings)
          repeat_readings += rd.reading == replay::Reading::repeat_timer || rd.reading == replay::Reading::repeat_other;
  CHECK(repeat_readings == 0);
}
