// The capture reader beside libpcap's own read loop ("the reader
// alone is 3.4x the bare loop"), on the blackhole-backoff capture (23702
// packets, every one TCP):
//  - BM_BareLibpcapLoop: pcap_open_offline + pcap_next_ex to the end, touching
//    each packet's length: the reference, no decoding at all;
//  - BM_ReaderNext: CaptureReader::next(Segment&) to the end: our own pcap
//    parser, the whole link / IP / TCP decode into one caller-owned Segment;
//  - BM_ReaderNextCopy: the optional-returning next(), a copy per packet.
// items/s = packets per second. Run from the repository root (the capture is
// ../shared/traces/linux/, or $RTO_SHARED_DIR/traces/linux/).

#include <benchmark/benchmark.h>
#include <pcap/pcap.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <replay/input/capture_reader.hpp>

namespace {

std::string capture_path() {
  const char* env = std::getenv("RTO_SHARED_DIR");
  const std::filesystem::path shared = env ? std::filesystem::path(env) : std::filesystem::path("../shared");
  return (shared / "traces" / "linux" / "blackhole-backoff.pcap").string();
}

void BM_BareLibpcapLoop(benchmark::State& state) {
  const std::string path = capture_path();
  std::int64_t packets = 0;
  for (auto _ : state) {
    char err[PCAP_ERRBUF_SIZE];
    pcap_t* p = pcap_open_offline(path.c_str(), err);
    if (p == nullptr) {
      state.SkipWithError(err);
      return;
    }
    pcap_pkthdr* h = nullptr;
    const u_char* d = nullptr;
    std::uint64_t bytes = 0;
    while (pcap_next_ex(p, &h, &d) == 1) {
      bytes += h->caplen + d[0];
      ++packets;
    }
    benchmark::DoNotOptimize(bytes);
    pcap_close(p);
  }
  state.SetItemsProcessed(packets);
}

// The capture opened for one iteration, or nullopt with the benchmark
// marked failed (SkipWithError names the file and the reason).
std::optional<replay::CaptureReader> open_or_skip(benchmark::State& state, const std::string& path) {
  auto opened = replay::CaptureReader::open(path, 0);
  if (auto* e = std::get_if<std::string>(&opened)) {
    state.SkipWithError(e->c_str());
    return std::nullopt;
  }
  return std::move(std::get<replay::CaptureReader>(opened));
}

void BM_ReaderNext(benchmark::State& state) {
  const std::string path = capture_path();
  std::int64_t packets = 0;
  replay::Segment s;
  for (auto _ : state) {
    auto opened = open_or_skip(state, path);
    if (!opened) return;
    replay::CaptureReader& r = *opened;
    std::uint64_t sum = 0;
    while (r.next(s)) sum += s.tcp.seq;
    benchmark::DoNotOptimize(sum);
    packets += static_cast<std::int64_t>(r.stats().frames);
  }
  state.SetItemsProcessed(packets);
}

void BM_ReaderNextCopy(benchmark::State& state) {
  const std::string path = capture_path();
  std::int64_t packets = 0;
  for (auto _ : state) {
    auto opened = open_or_skip(state, path);
    if (!opened) return;
    replay::CaptureReader& r = *opened;
    std::uint64_t sum = 0;
    while (auto s = r.next()) sum += s->tcp.seq;
    benchmark::DoNotOptimize(sum);
    packets += static_cast<std::int64_t>(r.stats().frames);
  }
  state.SetItemsProcessed(packets);
}

}  // namespace

BENCHMARK(BM_BareLibpcapLoop)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReaderNext)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReaderNextCopy)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
