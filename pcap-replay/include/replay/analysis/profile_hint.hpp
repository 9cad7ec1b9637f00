#pragma once
// The hint `pcap-replay check` gives when the departures it found under one
// profile are what another stack does: "these look like linux's: try
// --profile auto".

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <replay/analysis/flow_report.hpp>

namespace replay {

/// Compares `judged` (one profile, with MUST findings) with `best`, the same
/// input analysed under --profile auto (each sender against every profile,
/// the best fit reported). Returns, when at least one sender with MUST
/// findings in `judged` has none under the profile auto fitted it to, a
/// sentence naming those senders' count and profiles, e.g. "the MUST
/// departures of 1 of 1 sender(s) are what linux (Linux 6.x defaults) does:
/// 0 MUST there; try --profile auto (or --profile linux)"; nullopt
/// otherwise (no MUST finding, or none that another profile explains).
/// Senders are matched by flow id and direction (both reports come from the
/// same files and options).
std::optional<std::string> profile_hint(const Report& judged, const Report& best);

/// profile_hint fed one connection at a time (for reports whose connections
/// are not kept): every connection of the judged report through judged(),
/// then every one of the --profile auto report through best(); text() is
/// then profile_hint's answer. Holds only the senders with MUST findings.
class HintTally {
 public:
  /// `judged_profile`: the profile the judged report was checked against.
  explicit HintTally(std::string_view judged_profile) : judged_profile_(judged_profile) {}
  /// A connection of the judged report: notes its senders with MUST findings.
  void judged(const FlowReport& f);
  /// A connection of the --profile auto report (matched by id and direction).
  void best(const FlowReport& f);
  /// The hint, or nullopt (see profile_hint).
  std::optional<std::string> text() const;
  /// The senders each profile explains (those counted in `explained`).
  const std::map<std::string, std::size_t>& fits() const { return fits_; }
  /// Adds another tally's counts over other connections (a shard's:
  /// `pcap-replay merge`), as if its connections had been noted here.
  void add(std::size_t other_departing, std::size_t other_explained,
           const std::map<std::string, std::size_t>& other_fits) {
    departing += other_departing;
    explained += other_explained;
    for (const auto& [name, n] : other_fits) fits_[name] += n;
  }

  std::size_t departing = 0;  ///< judged senders with MUST findings
  std::size_t explained = 0;  ///< those that have none under the profile auto fitted them to

 private:
  std::string judged_profile_;
  std::set<std::pair<std::size_t, std::size_t>> departing_;  // (flow id, direction)
  std::map<std::string, std::size_t> fits_;                    // profile -> senders it explains
};

}  // namespace replay
