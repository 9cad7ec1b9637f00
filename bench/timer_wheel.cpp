// Google Benchmark of rto::TimerWheel, each beside a baseline in the same run:
//   - TouchRearm/N: what a lazy re-arm adds to the ACK's touch of the
//     connection (the goal), beside the touch alone, timed in alternating
//     chunks (see below).
//   - Rearm/N: the per-ACK restart of RFC 6298 5.3 among N armed connections,
//     ACK-driven (the connection's entry was just touched by the ACK's
//     processing; virtual time advancing; deadlines mostly moving later), vs a
//     std::set timer queue holding iterators; _Cold: random connections whose
//     entry is not in cache, to random new deadlines (earlier or later).
//   - FireAll/1000000: a million timers all expiring over 3 s of 1 ms steps,
//     vs a std::multimap.
//   - ArmCancel and Churn at 1M connections.
//
// Rearm times batches of kBatch re-arms each followed by an advance() of the
// virtual time (so the deferred work of a lazy re-arm, re-placing the entry
// when its slot comes due, is counted); the connections and deadlines of
// kBlockBatches batches are chosen untimed. The timed unit is a chunk of
// kChunkBatches batches: ACK-driven, the state of each connection the chunk
// re-arms is read first, untimed, as processing its ACK would have read it
// (the "the connection's entry just touched"); _Cold reads nothing,
// so every re-arm finds its entry wherever it is (DRAM at 10^7).
// The benchmark's time is manual: the thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
// so that other processes on a shared machine inflate it less than wall
// time) of the timed chunks only, less the cost of reading that clock.
// Counter per_rearm = that time / re-arms, in seconds (the table's ns).

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "rto/timer_wheel.hpp"

namespace {

using std::chrono::microseconds;

constexpr std::size_t kConnections = 1'000'000;
constexpr std::size_t kBatch = 64;             // re-arms between two advance() calls
constexpr std::size_t kBlockBatches = 256;     // batches per benchmark iteration (prepared untimed)
constexpr std::size_t kChunkBatches = 8;       // batches per timed chunk: 512 re-arms, their entries (20 KB) in L1 and the TLB
constexpr std::int64_t kAckIntervalNs = 50'000'000;  // each connection ACKed about once per 50 ms
constexpr std::int64_t kMinRtoUs = 200'000;    // per-connection RTO: 200 ms ..
constexpr std::int64_t kRtoSpanUs = 1'000'000;  // .. 1.2 s
constexpr std::int64_t kJitterUs = 2'000;      // +-2 ms on each restart

const rto::Instant kStart{microseconds{0}};

// SplitMix64: a fast, good-enough generator for choosing connections.
struct Rng {
  std::uint64_t x;
  std::uint64_t operator()() {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// One batch's untimed preparation: its time, the connections and their new deadlines.
struct Batch {
  std::int64_t now_us;
  std::uint32_t conn[kBatch];
  std::int64_t deadline_us[kBatch];
};

// The queue under test, with everything it needs per connection.
struct WheelWorld {
  explicit WheelWorld(std::size_t n) : entries(std::make_unique<rto::TimerEntry[]>(n)), rto(n) {
    Rng r{n};
    for (std::size_t i = 0; i < n; ++i) {
      rto[i] = kMinRtoUs + static_cast<std::int64_t>(r() % kRtoSpanUs);
      entries[i].user = static_cast<std::uint32_t>(i);
      w.arm(entries[i], kStart + microseconds{rto[i]});
    }
  }
  rto::TimerWheel w{kStart};
  std::unique_ptr<rto::TimerEntry[]> entries;
  std::vector<std::int64_t> rto;
  // Reads connection c's entry (both ends: a 40-byte entry may straddle two lines).
  std::uint64_t touch(std::uint32_t c) const {
    std::uint64_t a = 0, b = 0;
    const auto* p = reinterpret_cast<const char*>(&entries[c]);
    std::memcpy(&a, p, sizeof a);
    std::memcpy(&b, p + sizeof(rto::TimerEntry) - sizeof b, sizeof b);
    return a ^ b;
  }
  void rearm(std::uint32_t c, std::int64_t d) { w.arm(entries[c], kStart + microseconds{d}); }
  void advance(std::int64_t now_us) {
    w.advance(kStart + microseconds{now_us}, [&](rto::TimerEntry& e) {
      // 5.6 then 5.5: retransmit and re-arm, one RTO later.
      w.arm(e, e.deadline() + microseconds{rto[e.user]});
    });
  }
};

struct SetWorld {
  using Queue = std::set<std::pair<std::int64_t, std::uint32_t>>;
  explicit SetWorld(std::size_t n) : handle(n), rto(n) {
    Rng r{n};
    for (std::size_t i = 0; i < n; ++i) {
      rto[i] = kMinRtoUs + static_cast<std::int64_t>(r() % kRtoSpanUs);
      handle[i] = q.emplace(rto[i], static_cast<std::uint32_t>(i)).first;
    }
  }
  Queue q;
  std::vector<Queue::iterator> handle;
  std::vector<std::int64_t> rto;
  // Reads connection c's handle and the node it points to.
  std::uint64_t touch(std::uint32_t c) const {
    return static_cast<std::uint64_t>(handle[c]->first) ^ handle[c]->second;
  }
  void rearm(std::uint32_t c, std::int64_t d) {
    q.erase(handle[c]);
    handle[c] = q.emplace(d, c).first;
  }
  void advance(std::int64_t now_us) {
    while (!q.empty() && q.begin()->first <= now_us) {
      const auto [d, c] = *q.begin();
      q.erase(q.begin());
      handle[c] = q.emplace(d + rto[c], c).first;
    }
  }
};

// The world of one size, kept across the benchmark's runs and repetitions
// (building 10^7 timers takes seconds); its virtual time goes on.
template <class World>
World& world(std::size_t n, std::int64_t*& now_ns) {
  static std::unique_ptr<World> w;
  static std::size_t size = 0;
  static std::int64_t now = 0;
  if (size != n) {
    w.reset();  // free the previous size first
    w = std::make_unique<World>(n);
    size = n;
    now = 0;
  }
  now_ns = &now;
  return *w;
}

// The calling thread's CPU time, ns.
std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// What two back-to-back thread_cpu_ns() calls cost (the least of a few
// tries), subtracted from every timed chunk.
std::int64_t clock_overhead_ns() {
  static const std::int64_t overhead = [] {
    std::int64_t best = INT64_MAX;
    for (int i = 0; i < 1000; ++i) {
      const std::int64_t a = thread_cpu_ns();
      best = std::min(best, thread_cpu_ns() - a);
    }
    return best;
  }();
  return overhead;
}

template <class World>
void rearm_bench(benchmark::State& state, bool cold) {
  static_assert(kBlockBatches % kChunkBatches == 0);
  const auto n = static_cast<std::size_t>(state.range(0));
  std::int64_t* now_ns = nullptr;
  World& wd = world<World>(n, now_ns);
  // Virtual time per batch so each connection is ACKed about every 50 ms.
  const std::int64_t dt_ns = kAckIntervalNs * static_cast<std::int64_t>(kBatch) / static_cast<std::int64_t>(n);
  Rng rng{cold ? 99u : 7u};
  std::vector<Batch> block(kBlockBatches);
  std::int64_t ops = 0, timed_ns = 0;
  std::uint64_t sink = 0;
  const std::int64_t overhead = clock_overhead_ns();
  for (auto _ : state) {
    // Choose the block's connections and deadlines (untimed: the time is manual).
    std::int64_t t = *now_ns;
    for (Batch& b : block) {
      t += dt_ns;
      b.now_us = t / 1000;
      for (std::size_t k = 0; k < kBatch; ++k) {
        const auto c = static_cast<std::uint32_t>(rng() % n);
        b.conn[k] = c;
        b.deadline_us[k] = cold ? b.now_us + kMinRtoUs + static_cast<std::int64_t>(rng() % 2'800'000)
                                : b.now_us + wd.rto[c] + static_cast<std::int64_t>(rng() % (2 * kJitterUs)) - kJitterUs;
      }
    }
    *now_ns = t;
    std::int64_t iteration_ns = 0;
    for (std::size_t first = 0; first < kBlockBatches; first += kChunkBatches) {
      if (!cold)  // ACK-driven: the ACKs' processing read each connection's state
        for (std::size_t i = first; i < first + kChunkBatches; ++i)
          for (std::size_t k = 0; k < kBatch; ++k) sink += wd.touch(block[i].conn[k]);
      const std::int64_t t0 = thread_cpu_ns();
      for (std::size_t i = first; i < first + kChunkBatches; ++i) {
        const Batch& b = block[i];
        for (std::size_t k = 0; k < kBatch; ++k) wd.rearm(b.conn[k], b.deadline_us[k]);
        wd.advance(b.now_us);
      }
      iteration_ns += std::max<std::int64_t>(0, thread_cpu_ns() - t0 - overhead);
    }
    state.SetIterationTime(static_cast<double>(iteration_ns) * 1e-9);
    timed_ns += iteration_ns;
    ops += static_cast<std::int64_t>(kBatch * kBlockBatches);
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(ops);
  // Timed CPU time per re-arm (its share of the advance() calls included), s.
  state.counters["per_rearm"] = benchmark::Counter(ops > 0 ? static_cast<double>(timed_ns) * 1e-9 / static_cast<double>(ops) : 0.0);
}

void BM_TimerWheel_Rearm(benchmark::State& state) { rearm_bench<WheelWorld>(state, false); }
void BM_Baseline_Set_Rearm(benchmark::State& state) { rearm_bench<SetWorld>(state, false); }
void BM_TimerWheel_Rearm_Cold(benchmark::State& state) { rearm_bench<WheelWorld>(state, true); }
void BM_Baseline_Set_Rearm_Cold(benchmark::State& state) { rearm_bench<SetWorld>(state, true); }

#define REARM_SIZES ->Arg(1'000)->Arg(100'000)->Arg(1'000'000)->Arg(10'000'000)->UseManualTime()
BENCHMARK(BM_TimerWheel_Rearm) REARM_SIZES;
BENCHMARK(BM_Baseline_Set_Rearm) REARM_SIZES;
BENCHMARK(BM_TimerWheel_Rearm_Cold) REARM_SIZES;
BENCHMARK(BM_Baseline_Set_Rearm_Cold) REARM_SIZES;

// ---- Re-arm beside the touch of the connection (bench/README.md, "Goals") ----
//
// TouchRearm/N: what a lazy re-arm adds to the processing of an ACK, among N
// connections each ACKed about every 50 ms. A connection is one 64-byte line
// holding what the ACK's processing reads and writes and its TimerEntry; an
// ACK of a random connection touches it (reads its RTO, advances SND.UNA)
// and computes the 5.3 deadline. ACKs are processed one after another, as a
// stack's receive loop does: the next ACK's connection is found only once
// this one's touch has completed (a data dependency, through a zero the
// compiler cannot see), so the touch is the connection's cache miss, and the
// re-arm then writes an entry already in cache; without it the touch-only
// loop would overlap tens of misses, more than a real ACK path's hundreds of
// instructions allow. The two loops, timed in alternating chunks on the same
// random connections' distribution:
//   touch        the touch alone (the deadline is summed, not armed);
//   touch_rearm  the touch, then the wheel's arm() to that later deadline,
//                with an advance() every 64 ACKs: the deferred work of a lazy
//                re-arm (re-filing an entry whose deadline moved later when
//                its old slot comes due) is counted where it falls.
// Counters, in s per ACK (the table's ns): touch, touch_rearm and
// rearm_added = touch_rearm - touch, the goal's measure. Virtual time moves
// only in the touch_rearm chunks. When the world is built it runs untimed,
// ACKing the connections in turn, for more than the longest RTO of virtual
// time, so the wheel is in its steady state (every entry re-filed as the
// ACKs keep it); each run then goes on untimed to the next 64 ms boundary and
// times a whole number of 64 ms (kTouchSlots of them, more when N is small
// so that at least kTouchMinAcks ACKs are timed): the level-1 slots that
// come due in a run, and the entries they re-file, are then the same share
// of every run.

constexpr std::int64_t kLevel1SlotNs = 64'000'000;  // 64 ticks of 1 ms: a level-1 slot
constexpr std::int64_t kTouchSlots = 2;
constexpr std::int64_t kTouchMinAcks = 2'000'000;
constexpr std::int64_t kWarmUs = kMinRtoUs + kRtoSpanUs + 200'000;  // past the longest RTO

struct alignas(64) Conn {
  std::uint32_t snd_una = 0;
  std::uint32_t rto_us = 0;  // this connection's RTO
  std::uint64_t acks = 0;
  std::uint64_t bytes = 0;
  rto::TimerEntry entry;
};
static_assert(sizeof(Conn) == 64, "one connection, one cache line");

struct TouchWorld {
  explicit TouchWorld(std::size_t n) : conns(std::make_unique<Conn[]>(n)), n(n) {
    Rng r{n + 1};
    for (std::size_t i = 0; i < n; ++i) {
      conns[i].rto_us = static_cast<std::uint32_t>(kMinRtoUs + static_cast<std::int64_t>(r() % kRtoSpanUs));
      conns[i].entry.user = static_cast<std::uint32_t>(i);
      w.arm(conns[i].entry, kStart + microseconds{conns[i].rto_us});
    }
    run_in_turn(kWarmUs * 1000);  // warm up
  }
  rto::TimerWheel w{kStart};
  std::unique_ptr<Conn[]> conns;
  std::size_t n;
  std::int64_t now_ns = 0;

  std::size_t next_in_turn = 0;

  // Virtual time between two ACKs of the whole world: each connection about every 50 ms.
  std::int64_t ack_dt_ns() const { return kAckIntervalNs / static_cast<std::int64_t>(n); }
  // Untimed: the connections ACKed in turn (each about every 50 ms) until
  // virtual time `until_ns`.
  void run_in_turn(std::int64_t until_ns) {
    const std::int64_t dt_ns = ack_dt_ns();
    std::size_t c = next_in_turn;
    while (now_ns < until_ns) {
      for (std::size_t k = 0; k < kBatch; ++k, c = c + 1 == n ? 0 : c + 1) {
        now_ns += dt_ns;
        const std::int64_t d = touch(static_cast<std::uint32_t>(c), now_ns / 1000, 0);
        w.arm(conns[c].entry, kStart + microseconds{d});
      }
      advance(now_ns / 1000);
    }
    next_in_turn = c;
  }
  // The ACK's processing of connection c at `now_us`: SND.UNA advances, the
  // RTO is read; returns the 5.3 deadline (now + RTO + jitter).
  std::int64_t touch(std::uint32_t c, std::int64_t now_us, std::int64_t jitter_us) {
    Conn& k = conns[c];
    k.snd_una += 1448;
    return now_us + k.rto_us + jitter_us;
  }
  void advance(std::int64_t now_us) {
    w.advance(kStart + microseconds{now_us}, [&](rto::TimerEntry& e) {
      // 5.6 then 5.5: retransmit and re-arm, one RTO later.
      w.arm(e, e.deadline() + microseconds{conns[e.user].rto_us});
    });
  }
};

void BM_TimerWheel_TouchRearm(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  static std::unique_ptr<TouchWorld> world;  // kept across runs and repetitions (10^7 takes seconds to build)
  if (!world || world->n != n) {
    world.reset();
    world = std::make_unique<TouchWorld>(n);
  }
  TouchWorld& wd = *world;
  const std::int64_t dt_ns = wd.ack_dt_ns();
  // A whole number of level-1 slots per iteration, from a slot boundary.
  const std::int64_t slots = std::max(kTouchSlots, (kTouchMinAcks * dt_ns + kLevel1SlotNs - 1) / kLevel1SlotNs);
  constexpr std::size_t kChunk = kBatch * kChunkBatches;  // ACKs per timed chunk
  Rng rng{n * 7 + 3};
  std::vector<std::uint32_t> conn_a(kChunk), conn_b(kChunk);
  std::vector<std::int64_t> jitter(kChunk);
  const std::int64_t overhead = clock_overhead_ns();
  static volatile std::uint32_t zero_source = 0;
  const std::uint32_t zero = zero_source;  // 0, unknown to the compiler: a dependency it keeps
  std::int64_t touch_ns = 0, rearm_ns = 0, done = 0;
  std::uint64_t sink = 0;
  auto touch_only = [&] {
    const std::int64_t now_us = wd.now_ns / 1000;
    std::uint32_t prev = 0;
    const std::int64_t t0 = thread_cpu_ns();
    for (std::size_t k = 0; k < kChunk; ++k) {
      const std::int64_t d = wd.touch(conn_a[k] ^ (prev & zero), now_us, jitter[k]);
      sink += static_cast<std::uint64_t>(d);
      prev = static_cast<std::uint32_t>(d);
    }
    touch_ns += std::max<std::int64_t>(0, thread_cpu_ns() - t0 - overhead);
  };
  auto touch_rearm = [&] {
    std::uint32_t prev = 0;
    const std::int64_t t0 = thread_cpu_ns();
    for (std::size_t b = 0; b < kChunk; b += kBatch) {
      wd.now_ns += dt_ns * static_cast<std::int64_t>(kBatch);
      const std::int64_t now_us = wd.now_ns / 1000;
      for (std::size_t k = b; k < b + kBatch; ++k) {
        const std::uint32_t c = conn_b[k] ^ (prev & zero);
        const std::int64_t d = wd.touch(c, now_us, jitter[k]);
        prev = static_cast<std::uint32_t>(d);
        wd.w.arm(wd.conns[c].entry, kStart + microseconds{d});  // 5.3: later, so lazy
      }
      wd.advance(now_us);
    }
    const std::int64_t spent = std::max<std::int64_t>(0, thread_cpu_ns() - t0 - overhead);
    rearm_ns += spent;
    return spent;
  };
  for (auto _ : state) {
    wd.run_in_turn((wd.now_ns / kLevel1SlotNs + 1) * kLevel1SlotNs);  // untimed, to a slot boundary
    const std::int64_t end_ns = wd.now_ns + slots * kLevel1SlotNs;
    std::int64_t iteration_ns = 0;
    for (std::int64_t pair = 0; wd.now_ns < end_ns; ++pair, done += static_cast<std::int64_t>(kChunk)) {
      // The chunks' connections and jitters, chosen untimed.
      for (std::size_t k = 0; k < kChunk; ++k) {
        conn_a[k] = static_cast<std::uint32_t>(rng() % n);
        conn_b[k] = static_cast<std::uint32_t>(rng() % n);
        jitter[k] = static_cast<std::int64_t>(rng() % (2 * kJitterUs)) - kJitterUs;
      }
      // Alternate which goes first, so neither always follows the other.
      if (pair % 2 == 0) {
        touch_only();
        iteration_ns += touch_rearm();
      } else {
        iteration_ns += touch_rearm();
        touch_only();
      }
    }
    state.SetIterationTime(static_cast<double>(iteration_ns) * 1e-9);
  }
  benchmark::DoNotOptimize(sink);
  const double per = done > 0 ? 1e-9 / static_cast<double>(done) : 0.0;
  state.SetItemsProcessed(done);
  state.counters["touch"] = benchmark::Counter(static_cast<double>(touch_ns) * per);
  state.counters["touch_rearm"] = benchmark::Counter(static_cast<double>(rearm_ns) * per);
  state.counters["rearm_added"] = benchmark::Counter(static_cast<double>(rearm_ns - touch_ns) * per);
}
BENCHMARK(BM_TimerWheel_TouchRearm)->Arg(1'000)->Arg(100'000)->Arg(1'000'000)->Arg(10'000'000)->UseManualTime();

// Deadlines of n connections: 200 ms .. 3 s (typical RTOs) from the start.
std::vector<std::int64_t> deadlines_us(std::size_t n, std::uint64_t seed) {
  std::vector<std::int64_t> v(n);
  std::mt19937_64 rng(seed);
  for (auto& x : v) x = 200'000 + static_cast<std::int64_t>(rng() % 2'800'000);
  return v;
}

// FireAll: n timers all expire over 3 s of time advanced in 1 ms steps; each
// fired timer is counted. Items = timers fired.
void BM_TimerWheel_FireAll(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto d = deadlines_us(n, 3);
  auto entries = std::make_unique<rto::TimerEntry[]>(n);
  std::size_t fired = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto w = std::make_unique<rto::TimerWheel>(kStart);
    for (std::size_t i = 0; i < n; ++i) w->arm(entries[i], kStart + microseconds{d[i]});
    state.ResumeTiming();
    for (std::int64_t t = 1'000; t <= 3'000'000; t += 1'000)
      fired += w->advance(kStart + microseconds{t}, [](rto::TimerEntry&) {});
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(fired));
}
BENCHMARK(BM_TimerWheel_FireAll)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_Baseline_Multimap_FireAll(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto d = deadlines_us(n, 3);
  std::size_t fired = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::multimap<std::int64_t, std::size_t> q;
    for (std::size_t i = 0; i < n; ++i) q.emplace(d[i], i);
    state.ResumeTiming();
    for (std::int64_t t = 1'000; t <= 3'000'000; t += 1'000) {
      while (!q.empty() && q.begin()->first <= t) {
        q.erase(q.begin());
        ++fired;
      }
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(fired));
}
BENCHMARK(BM_Baseline_Multimap_FireAll)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// Arm then cancel (5.1 then 5.2) of a connection, beside 1M armed others.
void BM_TimerWheel_ArmCancel_1M(benchmark::State& state) {
  rto::TimerWheel w(kStart);
  auto entries = std::make_unique<rto::TimerEntry[]>(kConnections);
  const auto d = deadlines_us(kConnections, 2);
  for (std::size_t i = 0; i < kConnections; ++i) w.arm(entries[i], kStart + microseconds{d[i]});
  rto::TimerEntry extra;
  std::size_t i = 0;
  for (auto _ : state) {
    w.arm(extra, kStart + microseconds{d[i++ % kConnections]});
    w.cancel(extra);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TimerWheel_ArmCancel_1M);

void BM_Baseline_Multimap_ArmCancel_1M(benchmark::State& state) {
  std::multimap<std::int64_t, std::size_t> q;
  const auto d = deadlines_us(kConnections, 2);
  for (std::size_t i = 0; i < kConnections; ++i) q.emplace(d[i], i);
  std::size_t i = 0;
  for (auto _ : state) {
    auto it = q.emplace(d[i++ % kConnections], kConnections);
    q.erase(it);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Baseline_Multimap_ArmCancel_1M);

// Steady churn, the RTO timer's real life: 1M connections each with a pending
// timer; every 1 ms of virtual time 10 000 of them get an ACK of new data
// (5.3: re-arm to now + 200 ms..3 s) and the queue is advanced, firing what is
// due. Time per 1 ms step, over a fixed 300 ms of virtual time.
void BM_TimerWheel_Churn_1M(benchmark::State& state) {
  rto::TimerWheel w(kStart);
  auto entries = std::make_unique<rto::TimerEntry[]>(kConnections);
  const auto d = deadlines_us(kConnections, 4);
  for (std::size_t i = 0; i < kConnections; ++i) w.arm(entries[i], kStart + microseconds{d[i]});
  std::mt19937 rng(9);
  std::int64_t now = 0;
  std::size_t fired = 0, k = 0;
  for (auto _ : state) {
    now += 1'000;
    for (int a = 0; a < 10'000; ++a) {
      const std::size_t c = rng() % kConnections;
      w.arm(entries[c], kStart + microseconds{now + d[k++ % kConnections]});
    }
    fired += w.advance(kStart + microseconds{now}, [&](rto::TimerEntry& e) {
      w.arm(e, e.deadline() + microseconds{1'000'000});  // retransmit, back off, re-arm (5.6)
    });
  }
  state.counters["fired_per_step"] =
      benchmark::Counter(static_cast<double>(fired), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_TimerWheel_Churn_1M)->Unit(benchmark::kMicrosecond)->Iterations(300);

void BM_Baseline_Multimap_Churn_1M(benchmark::State& state) {
  using Queue = std::multimap<std::int64_t, std::size_t>;
  Queue q;
  std::vector<Queue::iterator> handle(kConnections);
  const auto d = deadlines_us(kConnections, 4);
  for (std::size_t i = 0; i < kConnections; ++i) handle[i] = q.emplace(d[i], i);
  std::mt19937 rng(9);
  std::int64_t now = 0;
  std::size_t fired = 0, k = 0;
  for (auto _ : state) {
    now += 1'000;
    for (int a = 0; a < 10'000; ++a) {
      const std::size_t c = rng() % kConnections;
      q.erase(handle[c]);
      handle[c] = q.emplace(now + d[k++ % kConnections], c);
    }
    while (q.begin()->first <= now) {
      const auto [deadline, c] = *q.begin();
      q.erase(q.begin());
      handle[c] = q.emplace(deadline + 1'000'000, c);
      ++fired;
    }
  }
  state.counters["fired_per_step"] =
      benchmark::Counter(static_cast<double>(fired), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Baseline_Multimap_Churn_1M)->Unit(benchmark::kMicrosecond)->Iterations(300);

}  // namespace

BENCHMARK_MAIN();
