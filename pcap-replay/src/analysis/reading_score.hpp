#pragma once
// Under --profile auto each connection is read under every profile; the
// reading that explains a sender best is kept.

#include <cstdint>
#include <tuple>

#include <replay/analysis/flow_report.hpp>

namespace replay {

/// How well a reading explains a sender, compared lexicographically (less is
/// better): MUST and SHOULD findings, then settings and cannot-tell notes,
/// then the expiries off their prediction, then how far (ms) the waits lie
/// from the predictions.
using ReadingScore = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::int64_t>;
ReadingScore reading_score(const SenderReport& s);

}  // namespace replay
