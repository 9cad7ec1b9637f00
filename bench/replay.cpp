// pcap-replay throughput on the blackhole-backoff capture (23702 packets):
//  - BM_ReadOnly: libpcap read + decode into replay::Segment (the baseline),
//  - BM_ReadAndCheck: the same plus the whole analysis (what `check` does),
//  - BM_AnalyzeOnly: the analysis alone, segments already in memory.
// items/s = TCP segments per second. Run from the repository root
// (the capture is ../shared/traces/linux/, or $RTO_SHARED_DIR/traces/linux/).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/pipeline/analyze_files.hpp>
#include <replay/input/capture_reader.hpp>

namespace {

std::string capture_path() {
  const char* env = std::getenv("RTO_SHARED_DIR");
  const std::filesystem::path shared = env ? std::filesystem::path(env) : std::filesystem::path("../shared");
  return (shared / "traces" / "linux" / "blackhole-backoff.pcap").string();
}

std::vector<replay::Segment> read_all(const std::string& path, std::string& error) {
  std::vector<replay::Segment> out;
  auto opened = replay::CaptureReader::open(path, 0);
  if (auto* e = std::get_if<std::string>(&opened)) {
    error = *e;
    return out;
  }
  auto& r = std::get<replay::CaptureReader>(opened);
  while (auto s = r.next()) out.push_back(*s);
  return out;
}

void BM_ReadOnly(benchmark::State& state) {
  const std::string path = capture_path();
  std::int64_t segments = 0;
  for (auto _ : state) {
    std::string error;
    auto segs = read_all(path, error);
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    segments += static_cast<std::int64_t>(segs.size());
    benchmark::DoNotOptimize(segs.data());
  }
  state.SetItemsProcessed(segments);
}

void BM_ReadAndCheck(benchmark::State& state, const char* profile) {
  const std::string path = capture_path();
  std::int64_t segments = 0;
  for (auto _ : state) {
    std::vector<std::string> errors;
    auto r = replay::analyze_files({path}, replay::Options::for_profile(profile), false, errors);
    if (!errors.empty()) {
      state.SkipWithError(errors.front().c_str());
      return;
    }
    segments += static_cast<std::int64_t>(r.inputs.empty() ? 0 : r.inputs.front().tcp_segments);
    benchmark::DoNotOptimize(r.flows.data());
  }
  state.SetItemsProcessed(segments);
}

void BM_AnalyzeOnly(benchmark::State& state) {
  std::string error;
  const auto segs = read_all(capture_path(), error);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state) {
    replay::Analyzer a(replay::Options::for_profile("linux"));
    for (const auto& s : segs) a.add(s);
    auto r = a.finish();
    benchmark::DoNotOptimize(r.flows.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(segs.size()));
}

}  // namespace

BENCHMARK(BM_ReadOnly)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadAndCheck, rfc6298, "rfc6298")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadAndCheck, linux, "linux")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AnalyzeOnly)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
