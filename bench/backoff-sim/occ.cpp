// Experiment 1: Brooker's optimistic-concurrency contention model.

#include <optional>

#include "models.hpp"
#include "rto/retry/backoff.hpp"
#include "sim.hpp"

namespace backoff_sim {

namespace {

enum class Kind : std::uint8_t { read_at_server, read_reply, write_at_server, write_reply };
struct Event {
  Kind kind;
  int client;
  std::uint64_t value;  // version read (read_reply, write_at_server) or success (write_reply)
};

}  // namespace

OccResult run_occ(int clients, Strategy s, const OccParams& p, std::uint64_t seed) {
  Random net(mix(seed, 1));
  Random jitter(mix(seed, 2));
  const auto pol = policy_ms(s, p.base_ms, p.cap_ms, 1);
  std::vector<std::optional<rto::Backoff>> backoff(static_cast<std::size_t>(clients));
  if (pol)
    for (auto& b : backoff) b.emplace(*pol);
  auto delay = [&] { return std::fabs(net.normal(p.net_mean_ms, p.net_sd_ms)); };

  EventQueue<Event> q;
  for (int c = 0; c < clients; ++c) q.push(delay(), Event{Kind::read_at_server, c, 0});
  std::uint64_t version = 0;
  OccResult r;
  double t = 0;
  while (!q.empty()) {
    const Event e = q.pop(t);
    switch (e.kind) {
      case Kind::read_at_server: q.push(t + delay(), Event{Kind::read_reply, e.client, version}); break;
      case Kind::read_reply: q.push(t + delay(), Event{Kind::write_at_server, e.client, e.value}); break;
      case Kind::write_at_server: {
        ++r.calls;
        const bool ok = e.value == version;
        if (ok) ++version;
        q.push(t + delay(), Event{Kind::write_reply, e.client, ok ? 1u : 0u});
        break;
      }
      case Kind::write_reply: {
        if (e.value) {
          r.completion_ms = t;
          break;
        }
        double wait_ms = 0;
        if (auto& b = backoff[static_cast<std::size_t>(e.client)]) {
          const auto d = b->next_delay(jitter.engine());  // no limit or deadline: always a wait
          wait_ms = static_cast<double>(d->count()) / 1000.0;
        }
        q.push(t + delay() + wait_ms, Event{Kind::read_at_server, e.client, 0});
        break;
      }
    }
  }
  return r;
}

}  // namespace backoff_sim
