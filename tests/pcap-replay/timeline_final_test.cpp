// `timeline` and `check` together: each row holds the estimator after its
// event, so every sender's last row holds what check reports as the
// sender's final SRTT, RTTVAR, RTO and backoff. On every shared capture and
// every lab capture, under both profiles.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <replay/pipeline/analyze_files.hpp>

#include "common/paths.hpp"

namespace fs = std::filesystem;

namespace {
std::vector<std::string> captures() {
  std::vector<std::string> out;
  for (const fs::path& dir : {testcommon::shared_dir() / "traces" / "linux", testcommon::shared_dir() / "traces" / "public",
                              fs::path("tests/captures/lab"), fs::path("tests/captures")})
    if (fs::is_directory(dir))
      for (const auto& e : fs::directory_iterator(dir)) {
        const std::string ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".pcap" || ext == ".pcapng" || ext == ".cap")) out.push_back(e.path().string());
      }
  return out;
}
}  // namespace

TEST_CASE("timeline: every sender's last row holds check's final SRTT, RTTVAR, RTO and backoff") {
  const auto files = captures();
  REQUIRE(files.size() >= 70);  // 40 Linux, 50 public, 20 lab: found
  std::size_t senders = 0;
  for (const char* profile : {"rfc6298", "linux"}) {
    for (const std::string& file : files) {
      std::vector<std::string> errors;
      const replay::Report r = replay::analyze_files({file}, replay::Options::for_profile(profile), true, errors);
      for (const auto& f : r.flows)
        for (const auto& s : f.senders) {
          if (s.timeline.empty()) continue;
          ++senders;
          const replay::TimelineEvent& last = s.timeline.back();
          INFO(file, " ", profile, " flow ", f.id, " ", to_string(s.src), " last row frame ", last.frame, " ", last.event);
          CHECK(last.srtt == s.srtt);
          CHECK(last.rttvar == s.rttvar);
          CHECK(last.rto == s.rto);
          CHECK(last.backoff == s.backoff);
        }
    }
  }
  CHECK(senders > 500);
}
