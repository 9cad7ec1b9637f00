#include "analysis/engine/backoff_fit.hpp"

#include <algorithm>
#include <vector>

namespace replay::engine {

using std::chrono::microseconds;

namespace {
__extension__ typedef __int128 i128;  // GCC/Clang: products of microseconds, 2^d and a denominator

constexpr i128 kInf = static_cast<i128>(1) << 100;

i128 floor_div(i128 a, i128 b) {  // b != 0
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
i128 ceil_div(i128 a, i128 b) { return -floor_div(-a, b); }

i128 us(microseconds d) { return d == microseconds::max() ? kInf : static_cast<i128>(d.count()); }
microseconds to_us(i128 v) {
  if (v >= kInf / 2) return microseconds::max();
  if (v <= -kInf / 2) return microseconds::min();
  return microseconds{static_cast<std::int64_t>(v)};
}

// One side of a bound on the lateness constant s, scaled by D:
// k * s * D >= a - b * R (a lower bound) or k * s * D <= a - b * R (an upper
// one); k is 1 for one wait, m for m waits known only together (each adds s).
struct Line {
  i128 a, b, k = 1;
  i128 lower_at(i128 r) const { return ceil_div(a - b * r, k); }   // the least s * D it allows
  i128 upper_at(i128 r) const { return floor_div(a - b * r, k); }  // the most
};

// The constraints of one way of reading the chain (the expiries from
// `capped_from` on held at the cap): lines bounding s, an interval of R, and
// the cap's values for the capped expiries.
struct System {
  i128 d = 1, n = 0;  // the lateness fraction n / d
  std::vector<Line> lower, upper;
  i128 r_lo = 1, r_hi = kInf;
  i128 c_lo = 0, c_hi = kInf;  // the cap, when some expiries are capped
  bool capped = false;
  i128 s_fixed = 0;  // the constant, when it is fixed (capped systems)
  bool ok = true;

  // Narrows [r_lo, r_hi] to the R for which some s meets every bound.
  void solve() {
    for (const Line& lo : lower)
      for (const Line& hi : upper) {
        // (lo.a - lo.b R) / lo.k <= (hi.a - hi.b R) / hi.k
        //   <=>  (lo.k hi.b - hi.k lo.b) R <= lo.k hi.a - hi.k lo.a
        const i128 diff = lo.k * hi.b - hi.k * lo.b, rhs = lo.k * hi.a - hi.k * lo.a;
        if (diff > 0) r_hi = std::min(r_hi, floor_div(rhs, diff));
        else if (diff < 0) r_lo = std::max(r_lo, ceil_div(rhs, diff));
        else if (rhs < 0) ok = false;
      }
    if (r_lo > r_hi) ok = false;
  }
  // The R where two lines of one side cross, inside [r_lo, r_hi]: with the
  // ends, where a convex (concave) bound of s reaches its extremes.
  std::vector<i128> corners() const {
    std::vector<i128> rs{r_lo};
    if (r_hi < kInf / 2) rs.push_back(r_hi);
    const auto cross = [&](const std::vector<Line>& side) {
      for (std::size_t i = 0; i < side.size(); ++i)
        for (std::size_t j = i + 1; j < side.size(); ++j) {
          // (a_i - b_i R) / k_i == (a_j - b_j R) / k_j
          const i128 db = side[j].k * side[i].b - side[i].k * side[j].b;
          if (db == 0) continue;
          const i128 num = side[j].k * side[i].a - side[i].k * side[j].a;
          for (i128 r : {floor_div(num, db), ceil_div(num, db)})
            if (r >= r_lo && r <= r_hi) rs.push_back(r);
        }
    };
    cross(lower);
    cross(upper);
    return rs;
  }
  i128 s_lo_at(i128 r) const {  // scaled by d
    i128 v = -kInf;
    for (const Line& l : lower) v = std::max(v, l.lower_at(r));
    return v;
  }
  i128 s_hi_at(i128 r) const {
    i128 v = kInf;
    for (const Line& l : upper) v = std::min(v, l.upper_at(r));
    return v;
  }
};

i128 pow2(unsigned d) { return static_cast<i128>(1) << std::min(d, 60u); }

// The system of `waits` with the expiries from index `k` on at the cap
// (k == waits.size(): none), or nullopt when that reading cannot apply.
std::optional<System> build(std::span<const FitWait> waits, std::size_t k, const TimerLateness& l, const FitBounds& b) {
  System s;
  s.d = l.fraction.num == 0 ? 1 : l.fraction.den;
  s.n = l.fraction.num;
  const i128 abs = us(l.absolute);
  s.r_lo = std::max<i128>(1, us(b.r_min));
  const bool fixed = l.additive.lo == l.additive.hi;
  if (k < waits.size()) {
    if (!fixed || b.cap.lo == microseconds::max()) return std::nullopt;  // no cap to try
    s.capped = true;
    s.s_fixed = us(l.additive.lo);
    s.c_lo = us(b.cap.lo);
    s.c_hi = us(b.cap.hi);
  }
  // The constant's own range.
  s.lower.push_back({us(l.additive.lo) * s.d, 0});
  if (l.additive.bounded()) s.upper.push_back({us(l.additive.hi) * s.d, 0});
  if (const auto& f = l.at_most_of_base)
    s.upper.push_back({0, -f->num * s.d, f->den});  // den s D <= num D R
  for (std::size_t j = 0; j < waits.size(); ++j) {
    const Interval& w = waits[j].wait;
    const i128 c = pow2(waits[j].doublings);
    if (j < k) {
      // x = c R fires in [x + s, x (1 + n/d) + abs + s]; it meets [wl, wh] when
      // x + s <= wh and x (1 + n/d) + abs + s >= wl.
      if (w.bounded()) s.upper.push_back({us(w.hi) * s.d, c * s.d});
      s.lower.push_back({(us(w.lo) - abs) * s.d, c * (s.d + s.n)});
    } else {
      // Held at the cap C: C + s <= wh and C (1 + n/d) + abs + s >= wl.
      if (w.bounded()) s.c_hi = std::min(s.c_hi, us(w.hi) - s.s_fixed);
      s.c_lo = std::max(s.c_lo, ceil_div((us(w.lo) - abs - s.s_fixed) * s.d, s.d + s.n));
    }
  }
  // Waits known only together (the frames between them held): each adds
  // its RTO and s, so m waits take at least c x-part + m s, c the sum of
  // their 2^d, where an expiry at the cap adds C in place of 2^d R: that
  // is at most Sh. Not at most (c x-part (1 + n/d) + m abs + m s) >= Sl: a
  // sum held up is no RTO shown (any of its waits may have been late, as
  // its host held its frames), so a long sum pins nothing.
  struct Span {
    i128 c_below = 0;     // the sum of 2^d of its waits below the cap
    i128 m = 0, at_cap = 0;  // its waits, and how many are at the cap
    Interval t;
  };
  std::vector<Span> mixed;  // spans with waits below the cap and at it
  for (std::size_t j = 0; j < waits.size(); ++j) {
    if (!waits[j].span_sum || waits[j].span < 2 || waits[j].span > j + 1) continue;
    Span sp{0, waits[j].span, 0, *waits[j].span_sum};
    for (std::size_t i = j + 1 - waits[j].span; i <= j; ++i) {
      if (i < k) sp.c_below += pow2(waits[i].doublings);
      else ++sp.at_cap;
    }
    const Interval& t = sp.t;
    if (sp.at_cap == 0) {
      if (t.bounded()) s.upper.push_back({us(t.hi) * s.d, sp.c_below * s.d, sp.m});
    } else if (sp.c_below == 0) {
      if (t.bounded()) s.c_hi = std::min(s.c_hi, floor_div(us(t.hi) - sp.m * s.s_fixed, sp.m));
    } else {
      mixed.push_back(sp);
    }
  }
  if (s.capped) {
    if (s.c_lo > s.c_hi) return std::nullopt;
    // The cap is first reached at expiry k: R c(k-1) <= C <= R c(k).
    const i128 ck = pow2(waits[k].doublings);
    s.r_lo = std::max(s.r_lo, ceil_div(s.c_lo, ck));
    if (k > 0 && s.c_hi < kInf / 2) s.r_hi = std::min(s.r_hi, floor_div(s.c_hi, pow2(waits[k - 1].doublings)));
  }
  s.solve();
  if (!s.ok) return std::nullopt;
  // A span that reaches the cap inside it (at expiry k): c R + a C, with
  // R c(k-1) <= C, is at least c r_lo + a max(c_lo, c(k-1) r_lo); the
  // system holds only where that is no more than the sum (not narrowed by
  // it: a feasibility test, never a tighter fit).
  for (const Span& sp : mixed) {
    const i128 c_before = pow2(waits[k - 1].doublings);
    const i128 least = sp.c_below * s.r_lo + sp.at_cap * std::max(s.c_lo, c_before * s.r_lo);
    if (sp.t.bounded() && least + sp.m * s.s_fixed > us(sp.t.hi)) return std::nullopt;
  }
  return s;
}

// The feasible systems: the uncapped one, else every capped reading.
std::vector<std::pair<std::size_t, System>> systems(std::span<const FitWait> waits, const TimerLateness& l,
                                                    const FitBounds& b) {
  std::vector<std::pair<std::size_t, System>> out;
  if (auto s = build(waits, waits.size(), l, b)) {
    out.emplace_back(waits.size(), std::move(*s));
    return out;
  }
  for (std::size_t k = b.capped_from_least; k < waits.size(); ++k)
    if (auto s = build(waits, k, l, b)) out.emplace_back(k, std::move(*s));
  return out;
}
}  // namespace

std::optional<Fit> fit(std::span<const FitWait> waits, const TimerLateness& l, const FitBounds& b) {
  const auto found = systems(waits, l, b);
  if (found.empty()) return std::nullopt;
  const auto& [k, s] = found.front();
  Fit f;
  f.base = {to_us(s.r_lo), to_us(s.r_hi)};
  i128 s_lo = kInf, s_hi = -kInf;
  for (i128 r : s.corners()) {
    s_lo = std::min(s_lo, s.s_lo_at(r));
    s_hi = std::max(s_hi, s.s_hi_at(r));
  }
  f.additive = {to_us(floor_div(std::max(s_lo, i128{0}), s.d)),
                s_hi >= kInf / 2 ? microseconds::max() : to_us(ceil_div(s_hi, s.d))};
  if (s.capped) {
    f.capped_from = k;
    f.cap = {to_us(s.c_lo), to_us(s.c_hi)};
  }
  return f;
}

std::optional<Prediction> predict(std::span<const FitWait> waits, unsigned doublings, const TimerLateness& l,
                                  const FitBounds& b) {
  if (waits.empty()) return std::nullopt;
  const auto found = systems(waits, l, b);
  if (found.empty()) return std::nullopt;
  const i128 c = pow2(doublings);
  i128 v_lo = kInf, v_hi = -kInf, s_min = kInf;  // v = x + s, scaled by d
  i128 d = 1;
  for (const auto& [k, s] : found) {
    d = s.d;
    if (s.capped) {
      // Already at the cap: the next expiry stays there.
      const i128 ck = pow2(waits[k].doublings);
      const i128 lo = std::max(s.c_lo, k > 0 ? s.r_lo * pow2(waits[k - 1].doublings) : s.c_lo);
      const i128 hi = s.r_hi < kInf / 2 ? std::min(s.c_hi, s.r_hi * ck) : s.c_hi;
      v_lo = std::min(v_lo, (lo + s.s_fixed) * s.d);
      v_hi = std::max(v_hi, hi >= kInf / 2 ? kInf : (hi + s.s_fixed) * s.d);
      s_min = std::min(s_min, s.s_fixed * s.d);
      continue;
    }
    for (i128 r : s.corners()) {
      const i128 lo = s.s_lo_at(r), hi = s.s_hi_at(r);
      s_min = std::min(s_min, lo);
      v_lo = std::min(v_lo, c * r * s.d + lo);
      v_hi = std::max(v_hi, (hi >= kInf / 2 || s.r_hi >= kInf / 2) ? kInf : c * r * s.d + hi);
    }
    if (s.r_hi >= kInf / 2) v_hi = kInf;
    // The cap may bind at the next expiry: as low as the cap's least value
    // (not below the RTO the previous expiry already had), never above its most.
    if (b.cap.lo != microseconds::max()) {
      const i128 prev = s.r_lo * pow2(waits.back().doublings);
      const i128 cap_lo = std::max(us(b.cap.lo), prev);
      if (cap_lo * s.d + std::max(s_min, i128{0}) < v_lo) v_lo = cap_lo * s.d + std::max(s_min, i128{0});
      if (b.cap.bounded() && v_hi < kInf / 2) {
        const i128 s_hi = v_hi - c * s.r_lo * s.d;  // an upper bound of s on this system
        v_hi = std::min(v_hi, us(b.cap.hi) * s.d + std::max(s_hi, i128{0}));
      }
    }
  }
  // The last expiry may itself have been the first at the cap C (the
  // doubling of the RTO the waits before it show reaching the cap's least
  // value): the next one holds at C, no sooner than the cap's least value
  // plus the least constant those waits allow, nor than the last wait shows
  // C to be. (A reading the fit of all the waits, uncapped, may not make:
  // a constant beyond kMaxInferredSlop lets the last wait pass for a
  // doubling, with an RTO beyond the cap.)
  if (b.cap.lo != microseconds::max() && waits.size() >= 2) {
    const FitWait& last = waits.back();
    const i128 c_last = pow2(last.doublings);
    for (const auto& [k2, s2] : systems(waits.first(waits.size() - 1), l, b)) {
      if (s2.capped || (s2.r_hi < kInf / 2 && c_last * s2.r_hi < us(b.cap.lo))) continue;
      i128 s_least = kInf;  // scaled by d
      for (i128 r : s2.corners()) s_least = std::min(s_least, s2.s_lo_at(r));
      s_least = std::max(s_least, i128{0});
      if (last.wait.bounded() && us(b.cap.lo) * d + s_least > us(last.wait.hi) * d) continue;  // short of the cap
      // C (1 + n/d) + abs + s >= the last wait's least: C + s at least this.
      const i128 shown = last.wait.lo.count() > 0 ? floor_div((us(last.wait.lo) - us(l.absolute)) * d, d + l.fraction.num) * d : 0;
      v_lo = std::min(v_lo, std::max(us(b.cap.lo) * d + s_least, shown));
    }
  }
  Prediction p;
  p.rto = {to_us(floor_div(v_lo, d)), v_hi >= kInf / 2 ? microseconds::max() : to_us(ceil_div(v_hi, d))};
  p.fire.lo = p.rto.lo;
  p.fire.hi = p.rto.bounded() ? p.rto.hi + l.fraction.ceil_of(p.rto.hi) + l.absolute : microseconds::max();
  return p;
}

}  // namespace replay::engine
