#pragma once
// A check split across processes or machines: `pcap-replay check --json
// --shard K/N` for K = 1..N (each reads the whole input and reports the
// connections of its shard, Options::owns), then `pcap-replay merge` of the N
// documents gives the document one `check --json` would have written, byte
// for byte.
//
// What a shard's document holds beyond the single run's: its connections
// only in "flows"; its part of every count ("summary", each input's
// "summary"); and a "shard" object (shard_json) with what the document does
// not say and the merge needs: the limits hit with where, the segments not
// analysed, the profile hint's tally. Everything else (inputs, diagnostics,
// lockstep, options, selection) every shard computes over the whole input:
// the merge checks it is the same in all.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/profile_hint.hpp>

namespace replay {

/// The most shards one run is split into (--shard K/N, merge).
inline constexpr std::uint32_t kMaxShards = 65536;

/// The "shard" object of shard Options::shard_k of Options::shard_n's
/// document: {"k", "n", "dropped_segments", "limit_hits": [{"file_index",
/// "frame", "message"}], "hint": {"departing", "explained", "fits"}}.
nlohmann::json shard_json(const Report& r, const HintTally& hint);

/// Documents that are not the N shards of one run, or not shard documents:
/// what() names the document and the key.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What merge_shards gives: the document, and what one run would have said
/// beside it (on standard error, in its exit status).
struct MergedReport {
  nlohmann::json doc;                   ///< without its connections ("flows": [])
  std::vector<std::size_t> shard_docs;  ///< [k - 1]: the index in the documents of shard k
  std::vector<std::string> limit_hits;  ///< in the order one run hits them (by file, then frame)
  std::uint64_t dropped_segments = 0;   ///< segments not analysed because of a limit
  bool strict = false;                  ///< the shards ran with --strict (shard.run.strict)
};

/// Merges the check --json documents of shards 1..N of one run, each with
/// the name to call it by in errors (its file), in any order, without their
/// connections ("flows" is not read: the caller streams the entries, each
/// shard's in id order, checked by shard_entry_id, merged by id). The counts
/// are summed, the profile hint is said again from the summed tally. Throws
/// MergeError when a document is no shard document (or not one's shape),
/// when a shard is missing or given twice, when two documents differ in what
/// every shard of one run computes alike or in their "shard.run" (version and
/// options), or when a sum overflows.
MergedReport merge_shards(const std::vector<std::pair<std::string, nlohmann::json>>& docs);
/// The id ("flow") of `entry`, an element of the "flows" of shard k of n's
/// document `name`. Throws MergeError when it has none, or when the id
/// hashes to another shard (Options::shard_of: a connection moved, or
/// renumbered).
std::uint64_t shard_entry_id(const std::string& name, const nlohmann::json& entry, std::uint64_t k, std::uint64_t n);

}  // namespace replay
