#pragma once
// analyze_files on several cores: one thread per shard of the connections
// (Options::shard_k / shard_n), each reading every file, their connections
// handed on in one order and their reports merged into the one Report a
// single thread gives (-j N).

#include <functional>
#include <string>
#include <vector>

#include <replay/pipeline/analyze_files.hpp>

namespace replay {

/// analyze_files(files, options, ...) with `jobs` threads: thread k analyses
/// shard k of `jobs` and replays the other connections without judging
/// them, as `check --shard K/N` does. The sink gets every connection once,
/// from the thread that analysed it, in FlowReport::id order (as
/// analyze_files gives them; calls are serialised), and the Report returned
/// is analyze_files's: the same connections, counts, limits and lockstep.
/// `progress` follows the first thread. A single thread (analyze_files
/// itself) when `jobs` <= 1, when `options` is already a shard, when no
/// sender is modelled (Options::model_senders), or when a file is not a
/// regular file ("-", a pipe, a FIFO: read once). The threads' memory adds
/// up: each holds the live state of every connection. Rethrows the first
/// exception a thread threw (rto::ConfigError, std::bad_alloc); throws
/// std::runtime_error naming the file when the threads read different
/// lengths of it (a file still being written).
Report analyze_files_parallel(const std::vector<std::string>& files, const Options& options, unsigned jobs,
                              bool keep_timeline, std::vector<std::string>& errors, const FlowSink& sink = nullptr,
                              const std::function<void(const FileProgress&)>& progress = nullptr,
                              const SinkMode& mode = {});

}  // namespace replay
