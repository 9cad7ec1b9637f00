#pragma once
// What a report says of its inputs as a whole: the unusable files, the
// counts of frames skipped and warned about, and the note for an input that
// gave no connection.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <replay/analysis/flow_report.hpp>
#include <replay/input/diagnostic.hpp>

namespace replay {

/// The input files that could not be used at all (exit status 2 of the CLI:
/// the input was at least partly unusable).
std::vector<const InputFile*> unusable_inputs(const Report& r);

/// True when `d` is the reason an input file is unusable (the read error at
/// its first record): reported once, as the file's reason, not as a frame.
bool is_unusable_reason(const Report& r, const Diagnostic& d);

/// Input problem counts for the summaries: frames skipped (without the
/// unusable files' reasons), frames analysed with a warning, unusable files.
struct InputCounts {
  std::size_t skipped = 0, warned = 0, unusable = 0;
};
InputCounts input_counts(const Report& r);

/// When some input was usable but no connection came out of it: "no TCP
/// segment matched the filter \"...\"" (with a BPF filter) or "no TCP
/// segment in the input"; nullopt otherwise.
std::optional<std::string> empty_input_note(const Report& r);

}  // namespace replay
