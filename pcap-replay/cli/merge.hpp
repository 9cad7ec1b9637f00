#pragma once
// `pcap-replay merge SHARD.json...`: the check --json document one process
// would have written, from the documents of `check --json --shard K/N`
// for K = 1..N (replay/report/shard_merge.hpp).

#include <string>
#include <vector>

namespace replay::cli {

/// Reads the documents (`-`: standard input, once), writes the merged one
/// to standard output, and on standard error what one run says there of the
/// limits it hit. Returns the exit status one `check --json` would have:
/// 2 when an input was unusable or partly lost, or a limit was hit (or the
/// documents cannot be merged: said on standard error); else 1 with MUST
/// findings (`strict`, or shards run with --strict: SHOULD too); else 0.
/// `text` (--text): writes instead the text report one `check` (text, the
/// same options) would have written, from the merged document
/// (json_report_reader.hpp); every entry is read and checked for it before
/// anything is written. `html` (--html FILE, empty: none): also writes
/// there the page `check --html` writes for the run (with this status),
/// from the shards' documents of `check --json --timeline --shard K/N`
/// without a selection (else exit 2, said on standard error, nothing
/// written to the file).
int run_merge(const std::vector<std::string>& files, bool strict, bool text, const std::string& html);

}  // namespace replay::cli
