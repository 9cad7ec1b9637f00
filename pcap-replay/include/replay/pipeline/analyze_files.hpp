#pragma once
// The file loop: every capture given on the command line read in turn and
// fed to one Analyzer, with progress reported as values (progress.hpp).

#include <functional>
#include <string>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/pipeline/progress.hpp>

namespace replay {

/// Reads every file with CaptureReader (BPF `filter`, "-" = stdin) and
/// analyses them. Files that cannot be opened are named in `errors` (with
/// libpcap's reason) and skipped. Every file gets a Report::inputs entry;
/// one is unusable (InputFile::error) when it cannot be opened, its first
/// record cannot be read, or every frame in it is malformed. Frame problems
/// are in Report::diagnostics, with Diagnostic::skipped false for frames
/// that were analysed anyway (a warning the reader gave for the frame it
/// returned).
/// `sink` (may be empty): Analyzer::set_flow_sink. `progress` (may be
/// empty): called every limits::kProgressEverySegments TCP segments with how
/// far the current file is read, for a progress line. `mode`: how the sink
/// is fed (SinkMode).
Report analyze_files(const std::vector<std::string>& files, const Options& options, bool keep_timeline,
                     std::vector<std::string>& errors, const FlowSink& sink = nullptr,
                     const std::function<void(const FileProgress&)>& progress = nullptr,
                     const SinkMode& mode = {});

}  // namespace replay
