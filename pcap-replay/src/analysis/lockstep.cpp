#include <replay/analysis/lockstep.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <replay/analysis/milliseconds.hpp>

namespace replay::lockstep {

using std::chrono::microseconds;

std::string_view to_string(RetryKind k) {
  return k == RetryKind::syn_retransmission ? "syn-retransmission" : "reconnect";
}

namespace {

// A client host: the address part of an endpoint.
using Host = wire::IpAddress;
Host host_of(const Endpoint& e) { return e.address; }

// A sequence of retries that began with one first SYN.
struct Chain {
  std::size_t file_index = 0;
  Endpoint server;
  Host host;
  Sent start;                // the first SYN of the chain
  std::vector<Sent> retries; // later SYNs (retransmissions, or reconnects' first SYNs)
};

microseconds us(CaptureTime::duration d) { return std::chrono::duration_cast<microseconds>(d); }
double s_of(microseconds d) { return static_cast<double>(d.count()) / 1e6; }

std::vector<Chain> syn_chains(std::span<const Attempt* const> attempts) {
  std::vector<Chain> out;
  for (const Attempt* p : attempts) {
    const Attempt& a = *p;
    if (a.retransmits.empty()) continue;
    out.push_back(Chain{a.file_index, a.server, host_of(a.client), a.first, a.retransmits});
  }
  return out;
}

// When an attempt is known to have failed: its RST, or (nothing came back)
// its last SYN, the last sign of life the capture shows.
CaptureTime failure_time(const Attempt& a) {
  if (a.end) return a.end->time;
  return a.retransmits.empty() ? a.first.time : a.retransmits.back().time;
}

std::vector<Chain> reconnect_chains(std::span<const Attempt* const> attempts) {
  // Attempts per (file, client host, server), in time order.
  std::map<std::tuple<std::size_t, Host, Endpoint>, std::vector<const Attempt*>> by_host;
  for (const Attempt* a : attempts) by_host[{a->file_index, host_of(a->client), a->server}].push_back(a);
  std::vector<Chain> all;
  for (auto& [key, list] : by_host) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Attempt* x, const Attempt* y) { return x->first.time < y->first.time; });
    // Failed attempts not yet continued: failure time -> chain index.
    std::multimap<CaptureTime, std::size_t> open;
    for (const Attempt* a : list) {
      std::size_t chain;
      if (!open.empty() && open.begin()->first <= a->first.time) {
        chain = open.begin()->second;  // the oldest failure before it
        open.erase(open.begin());
        all[chain].retries.push_back(a->first);
      } else {
        chain = all.size();
        all.push_back(Chain{a->file_index, a->server, host_of(a->client), a->first, {}});
      }
      if (a->outcome != Outcome::syn_ack) open.emplace(failure_time(*a), chain);
    }
  }
  std::vector<Chain> out;
  for (auto& c : all)
    if (!c.retries.empty()) out.push_back(std::move(c));
  return out;
}

std::string group_message(const Group& g) {
  microseconds widest{0};
  std::string offs;
  for (const auto& o : g.offsets) {
    widest = std::max(widest, o.spread);
    offs += fmt::format("{}+{:.3f}", offs.empty() ? "" : ", ", s_of(o.offset));
  }
  const std::string who =
      g.kind == RetryKind::syn_retransmission
          ? fmt::format("{} connections from {} client host(s) to {} retried SYN", g.members, g.client_hosts,
                        to_string(g.server))
          : fmt::format("{} reconnect chains from {} client host(s) to {} sent new SYNs after failures", g.members,
                        g.client_hosts, to_string(g.server));
  std::string m = fmt::format("{} within {:.1f} ms of each other at {} s after their first SYN (frame {})", who,
                              ms(widest), offs, g.start_frame);
  if (g.dispersed) {
    m += fmt::format(": no jitter until retry {}, then {} of them spread over {:.1f} ms (jittered from there on)",
                     g.dispersed->retry - 1, g.dispersed->members, ms(g.dispersed->spread));
  } else {
    m += ": no jitter";
  }
  return m;
}

std::string dispersion_message(const Dispersion& d) {
  return fmt::format(
      "{} {} to {} retried with no lockstep: first retries {:.1f} ms apart at most after their first SYN "
      "(standard deviation {:.1f} ms), at most {} within {:.0f} ms of each other: jittered",
      d.chains, d.kind == RetryKind::syn_retransmission ? "connections" : "reconnect chains", to_string(d.server),
      ms(d.spread), ms(d.stddev), d.largest_cluster, ms(kLockstepWindow));
}

// The most values of sorted `t` within kLockstepWindow of each other.
std::size_t largest_cluster(const std::vector<CaptureTime>& t) {
  std::size_t best = 0;
  for (std::size_t i = 0, j = 0; j < t.size(); ++j) {
    while (t[j] - t[i] > kLockstepWindow) ++i;
    best = std::max(best, j - i + 1);
  }
  return best;
}

Group make_group(std::vector<const Chain*> members, RetryKind kind) {
  Group g;
  g.file_index = members.front()->file_index;
  g.server = members.front()->server;
  g.kind = kind;
  g.members = members.size();
  std::vector<Host> hosts;
  const Chain* earliest = members.front();
  for (const Chain* c : members) {
    hosts.push_back(c->host);
    if (std::tie(c->start.time, c->start.frame) < std::tie(earliest->start.time, earliest->start.frame)) earliest = c;
  }
  std::sort(hosts.begin(), hosts.end());
  g.client_hosts = static_cast<std::size_t>(std::unique(hosts.begin(), hosts.end()) - hosts.begin());
  g.start = earliest->start.time;
  g.start_frame = earliest->start.frame;
  for (std::size_t k = 0;; ++k) {
    std::vector<Sent> at;
    for (const Chain* c : members)
      if (c->retries.size() > k) at.push_back(c->retries[k]);
    if (at.size() < kMinGroupSize) break;
    std::sort(at.begin(), at.end(),
              [](const Sent& a, const Sent& b) { return std::tie(a.time, a.frame) < std::tie(b.time, b.frame); });
    Offset o;
    o.retry = static_cast<unsigned>(k + 1);
    o.members = at.size();
    o.spread = us(at.back().time - at.front().time);
    std::int64_t sum = 0;
    for (const Sent& x : at) {
      sum += us(x.time - g.start).count();
      o.frames.push_back(x.frame);
    }
    o.offset = microseconds{sum / static_cast<std::int64_t>(at.size())};
    if (o.spread > kLockstepWindow) {
      g.dispersed = std::move(o);
      break;
    }
    g.offsets.push_back(std::move(o));
  }
  g.message = group_message(g);
  return g;
}

void find_in(std::vector<const Chain*> chains, RetryKind kind, Result& out) {
  std::sort(chains.begin(), chains.end(), [](const Chain* a, const Chain* b) {
    return std::tie(a->retries.front().time, a->retries.front().frame) <
           std::tie(b->retries.front().time, b->retries.front().frame);
  });
  std::vector<CaptureTime> r0;
  for (const Chain* c : chains) r0.push_back(c->retries.front().time);
  std::vector<const Chain*> rest;
  std::size_t i = 0;
  while (i < chains.size()) {
    std::size_t j = i;
    while (j + 1 < chains.size() && r0[j + 1] - r0[i] <= kLockstepWindow) ++j;
    const std::size_t size = j - i + 1;
    bool group = size >= kMinGroupSize;
    if (group) {
      // Chance level: the other first retries within kChanceNeighbourhood.
      const auto lo = std::lower_bound(r0.begin(), r0.end(), r0[i] - kChanceNeighbourhood);
      const auto hi = std::upper_bound(r0.begin(), r0.end(), r0[j] + kChanceNeighbourhood);
      const auto others = static_cast<std::int64_t>(hi - lo) - static_cast<std::int64_t>(size);
      // size >= ratio * others * W / (2 N), in integers.
      group = static_cast<std::int64_t>(size) * 2 * kChanceNeighbourhood.count() >=
              static_cast<std::int64_t>(kMinChanceRatio) * others * kLockstepWindow.count();
    }
    if (group) {
      out.groups.push_back(make_group({chains.begin() + static_cast<std::ptrdiff_t>(i),
                                       chains.begin() + static_cast<std::ptrdiff_t>(j + 1)},
                                      kind));
      i = j + 1;
    } else {
      rest.push_back(chains[i]);
      ++i;
    }
  }
  if (rest.size() < kMinGroupSize) return;
  Dispersion d;
  d.file_index = rest.front()->file_index;
  d.server = rest.front()->server;
  d.kind = kind;
  d.chains = rest.size();
  std::vector<std::int64_t> off;
  std::vector<CaptureTime> times;
  d.first_frame = rest.front()->retries.front().frame;
  for (const Chain* c : rest) {
    off.push_back(us(c->retries.front().time - c->start.time).count());
    times.push_back(c->retries.front().time);
  }
  const auto [mn, mx] = std::minmax_element(off.begin(), off.end());
  d.spread = microseconds{*mx - *mn};
  double mean = 0;
  for (auto v : off) mean += static_cast<double>(v);
  mean /= static_cast<double>(off.size());
  double ss = 0;
  for (auto v : off) ss += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
  d.stddev = microseconds{static_cast<std::int64_t>(std::llround(std::sqrt(ss / static_cast<double>(off.size()))))};
  d.largest_cluster = largest_cluster(times);
  d.message = dispersion_message(d);
  out.dispersed.push_back(std::move(d));
}

}  // namespace

Result find_groups(std::span<const Attempt> attempts) {
  std::vector<const Attempt*> p;
  p.reserve(attempts.size());
  for (const Attempt& a : attempts) p.push_back(&a);
  return find_groups(std::span<const Attempt* const>(p));
}

Result find_groups(std::span<const Attempt* const> attempts) {
  Result out;
  const std::vector<Chain> syn = syn_chains(attempts);
  const std::vector<Chain> rec = reconnect_chains(attempts);
  for (auto [chains, kind] : {std::pair{&syn, RetryKind::syn_retransmission}, std::pair{&rec, RetryKind::reconnect}}) {
    std::map<std::pair<std::size_t, Endpoint>, std::vector<const Chain*>> by_server;
    for (const Chain& c : *chains) by_server[{c.file_index, c.server}].push_back(&c);
    for (auto& [key, list] : by_server) find_in(list, kind, out);
  }
  std::stable_sort(out.groups.begin(), out.groups.end(), [](const Group& a, const Group& b) {
    return std::tie(a.file_index, a.server, a.kind, a.start) < std::tie(b.file_index, b.server, b.kind, b.start);
  });
  return out;
}

void AttemptCollector::add(const Segment& s, std::size_t connection, const Endpoint& client, const Endpoint& server,
                           AttemptRef& ref) {
  const bool syn = s.tcp.has(wire::kSyn), ack = s.tcp.has(wire::kAck), rst = s.tcp.has(wire::kRst);
  if (!syn && !rst) return;  // only SYNs, SYN-ACKs and RSTs tell an attempt anything
  if (s.src == client && s.dst == server && syn && !ack && !rst) {
    if (ref == kNoAttempt) {
      Slot& slot = slots_.emplace_back();
      slot.attempt.file_index = s.file_index;
      slot.attempt.server = server;
      slot.attempt.client = client;
      slot.attempt.first = Sent{s.time, s.frame};
      slot.isn = s.tcp.seq;
      slot.connection = connection;
      ref = slots_.size() - 1;
    } else if (Slot& slot = slots_[ref]; !slot.attempt.end && s.tcp.seq == slot.isn) {
      slot.attempt.retransmits.push_back(Sent{s.time, s.frame});
    }
    return;
  }
  if (!(s.src == server) || !(syn || rst)) return;
  if (ref == kNoAttempt || slots_[ref].attempt.end) return;
  Attempt& a = slots_[ref].attempt;
  if (rst) {
    a.outcome = Outcome::rst;
    a.end = Sent{s.time, s.frame};
  } else if (ack) {
    a.outcome = Outcome::syn_ack;
    a.end = Sent{s.time, s.frame};
  }
}

std::vector<const AttemptCollector::Slot*> AttemptCollector::by_connection() const {
  std::vector<const Slot*> p;
  p.reserve(slots_.size());
  for (const Slot& s : slots_) p.push_back(&s);
  // Already in order unless an attempt began late (stable: one per connection).
  if (!std::is_sorted(p.begin(), p.end(), [](const Slot* a, const Slot* b) { return a->connection < b->connection; }))
    std::stable_sort(p.begin(), p.end(), [](const Slot* a, const Slot* b) { return a->connection < b->connection; });
  return p;
}

std::vector<Attempt> AttemptCollector::attempts() const {
  std::vector<Attempt> out;
  out.reserve(slots_.size());
  for (const Slot* s : by_connection()) out.push_back(s->attempt);
  return out;
}

Result AttemptCollector::groups() const {
  std::vector<const Attempt*> p;
  p.reserve(slots_.size());
  for (const Slot* s : by_connection()) p.push_back(&s->attempt);
  return find_groups(std::span<const Attempt* const>(p));
}

}  // namespace replay::lockstep
