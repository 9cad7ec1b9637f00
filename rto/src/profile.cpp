// rto::Profile: a validated Config with its derived constants, and the
// process-wide table behind Profile::shared().

#include "rto/profile.hpp"

#include <bit>
#include <cstdint>
#include <cstddef>
#include <mutex>

#include "rto/estimator.hpp"

namespace rto {

namespace {

// Hash of every field of a Config (equal configs hash equal).
struct ConfigHash {
  std::size_t operator()(const Config& c) const {
    std::uint64_t h = static_cast<std::uint64_t>(c.variant);
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL; };
    mix(static_cast<std::uint64_t>(c.initial_rto.count()));
    mix(static_cast<std::uint64_t>(c.min_rto.count()));
    mix(static_cast<std::uint64_t>(c.max_rto.count()));
    mix(static_cast<std::uint64_t>(c.granularity.count()));
    mix(static_cast<std::uint64_t>(c.syn_fallback_rto.count()));
    mix(c.syn_linear_timeouts);
    mix(c.reset_after_backoffs);
    mix(static_cast<std::uint64_t>(c.tick.count()));
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// One Profile of the shared() table and the next in its bucket.
struct Node {
  Profile profile;
  Node* next;
  Node(const Config& c, Node* after) : profile(c), next(after) {}
};

// Buckets of the shared() table (a few configs per program are expected;
// more only make the chains longer).
constexpr std::size_t kSharedBuckets = 64;

}  // namespace

Profile::Profile(const Config& config) : cfg_(config) {
  cfg_.validate();
  variant_ = cfg_.variant;
  min_rto_us_ = cfg_.min_rto.count();
  max_rto_us_ = cfg_.max_rto.count();
  granularity_fx_ = cfg_.granularity.count() << Estimator::kFracBits;  // <= 1 h * 2^20 < 2^52
  tick_us_ = cfg_.tick.count();
  tick_recip_ = 0;
  tick_shift_ = 0;
  if (tick_us_ > 1) {
    // s = bit_width(tick - 1) - 1, so 2^s <= tick - 1 < tick <= 2^(s+1); then
    // m = ceil(2^(64+s) / tick) < 2^64 (tick <= 1 h < 2^32, so 64 + s < 96).
    const auto t = static_cast<std::uint64_t>(tick_us_);
    tick_shift_ = static_cast<unsigned>(std::bit_width(t - 1) - 1);
    __extension__ typedef unsigned __int128 U128;
    const U128 num = static_cast<U128>(1) << (64 + tick_shift_);
    tick_recip_ = static_cast<std::uint64_t>(num / t + (num % t != 0));
  }
}

const Profile& Profile::shared(const Config& config) {
  // Leaked on purpose: estimators may be destroyed after static destructors
  // run. Chained buckets of plain nodes, not a standard container: a
  // container templated on rto types would be instantiated, and exported,
  // in librto.so.
  static Node** const buckets = new Node*[kSharedBuckets]();
  static std::mutex* const lock = new std::mutex();
  const std::lock_guard<std::mutex> hold(*lock);
  Node*& head = buckets[ConfigHash{}(config) % kSharedBuckets];
  for (Node* n = head; n != nullptr; n = n->next)
    if (n->profile.config() == config) return n->profile;
  Node* made = new Node(config, head);  // validates first: a bad config is never stored
  head = made;
  return made->profile;
}

// Never destroyed, like the shared() table: an estimator may outlive static destruction.
const Profile& Profile::rfc6298() {
  static const Profile* const p = new Profile(Config::rfc6298());
  return *p;
}

const Profile& Profile::linux_default() {
  static const Profile* const p = new Profile(Config::linux_default());
  return *p;
}

}  // namespace rto
