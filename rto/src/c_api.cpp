// The C API of rto/rto.h over the public C++ API. Each C state is a
// fixed-size struct of private bytes holding a C++ object (placement new):
//   rto_estimator   an AnyEstimator and the RTO part of a RetransmissionTimer
//                   (the C API's estimator backs off, as before the split);
//   rto_sampler     an RttSampler and the SND.UNA / SND.MAX it is told;
//   rto_timer       a RetransmissionTimer used for its deadline, armed with
//                   the RTO the caller passes;
//   rto_wheel, rto_wheel_entry   a TimerWheel and a TimerEntry.
// Integer microseconds in, rto_status out; no exception crosses the boundary.

#include "rto/rto.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <type_traits>

#include "rto/any_estimator.hpp"
#include "rto/config.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"
#include "rto/seq.hpp"
#include "rto/timer_wheel.hpp"
#include "c_state.hpp"

namespace {

using std::chrono::microseconds;

// What each C state holds.
struct EstimatorState {
  rto::AnyEstimator est;
  // The RTO in force, its backoff, the SYN expiries and 5.7 (never giving up:
  // the C API's estimator has no retry limits).
  rto::RetransmissionTimer rto;
};

struct SamplerState {
  rto::RttSampler sampler;
  std::uint32_t snd_una = 0;
  std::uint32_t snd_max = 0;
  bool started = false;  // a segment was sent: snd_una and snd_max are known
};

using rto::c_state::copy_message;
using rto::c_state::fits;
using rto::c_state::impl;

static_assert(fits<rto_estimator, EstimatorState>, "raise RTO_ESTIMATOR_BYTES (an ABI change)");
static_assert(fits<rto_sampler, SamplerState>, "raise RTO_SAMPLER_BYTES (an ABI change)");
static_assert(fits<rto_timer, rto::RetransmissionTimer>, "raise RTO_TIMER_BYTES (an ABI change)");
static_assert(fits<rto_wheel, rto::TimerWheel>, "raise RTO_WHEEL_BYTES (an ABI change)");
static_assert(fits<rto_wheel_entry, rto::TimerEntry>, "raise RTO_WHEEL_ENTRY_BYTES (an ABI change)");
static_assert(std::is_trivially_destructible_v<EstimatorState> && std::is_trivially_destructible_v<SamplerState> &&
                  std::is_trivially_destructible_v<rto::RetransmissionTimer>,
              "the estimator, sampler and timer hold no resource (rto.h promises their memory may be reused)");

rto::Instant at(int64_t now_us) { return rto::Instant{microseconds{now_us}}; }

// An RTO the caller gives in us (>= 0), within the range of any RTO.
rto::Rto rto_of(int64_t rto_us) { return rto::Rto::clamped(microseconds{rto_us}, rto::Rto::kMin, rto::Rto::kMax); }

// A retry limit nothing reaches (the C estimator's backoff never gives up).
constexpr rto::RetryLimits kNoLimits{UINT_MAX, UINT_MAX, microseconds{0}};

rto::Config to_cpp(const rto_config& c) {
  rto::Config out;
  // An unknown variant number is passed through: Config::validate() refuses it.
  out.variant = static_cast<rto::Config::Variant>(c.variant);
  out.initial_rto = microseconds{c.initial_rto_us};
  out.min_rto = microseconds{c.min_rto_us};
  out.max_rto = microseconds{c.max_rto_us};
  out.granularity = microseconds{c.granularity_us};
  out.syn_fallback_rto = microseconds{c.syn_fallback_rto_us};
  out.syn_linear_timeouts = c.syn_linear_timeouts;
  out.reset_after_backoffs = c.reset_after_backoffs;
  out.tick = microseconds{c.tick_us};
  return out;
}

rto_config to_c(const rto::Config& c) {
  rto_config out{};
  out.variant = c.variant == rto::Config::Variant::linux_kernel ? RTO_VARIANT_LINUX : RTO_VARIANT_RFC6298;
  out.initial_rto_us = c.initial_rto.count();
  out.min_rto_us = c.min_rto.count();
  out.max_rto_us = c.max_rto.count();
  out.granularity_us = c.granularity.count();
  out.syn_fallback_rto_us = c.syn_fallback_rto.count();
  out.syn_linear_timeouts = c.syn_linear_timeouts;
  out.reset_after_backoffs = c.reset_after_backoffs;
  out.tick_us = c.tick.count();
  return out;
}

// Runs `f` (which returns an rto_status) and maps any exception to a status,
// so that none escapes into C.
template <class F>
rto_status guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const rto::ConfigError&) {
    return RTO_ERR_INVALID_CONFIG;
  } catch (const std::bad_alloc&) {
    return RTO_ERR_NO_MEMORY;
  } catch (...) {
    return RTO_ERR_INTERNAL;
  }
}

// Writes an optional duration to *out, or reports that there is none yet.
rto_status put(const std::optional<microseconds>& v, int64_t* out) {
  if (!v) return RTO_ERR_NO_SAMPLE;
  *out = v->count();
  return RTO_OK;
}

rto_status put_sample(const std::optional<microseconds>& r, bool* has_sample, int64_t* sample_us) {
  *has_sample = r.has_value();
  if (r) *sample_us = r->count();
  return RTO_OK;
}

// A state of type S allocated and made ready by `init` (an rto_status(S*)).
template <class S, class Init>
rto_status make(S** out, Init&& init) {
  if (out == nullptr) return RTO_ERR_NULL;
  S* s = new (std::nothrow) S;
  if (s == nullptr) return RTO_ERR_NO_MEMORY;
  const rto_status st = init(s);
  if (st != RTO_OK) {
    delete s;
    return st;
  }
  *out = s;
  return RTO_OK;
}

// A new RTT sample taken by the estimator: the RTO in force follows it.
rto_status sampled(EstimatorState& s, bool accepted) {
  if (!accepted) return RTO_ERR_SAMPLE_REFUSED;
  s.rto.on_rtt_sample(s.est.rto());
  return RTO_OK;
}

// The section 5 note, when an expiry asks for it.
void apply(EstimatorState& s, rto::Expiry x) {
  if (x.forget_rtt) s.est.forget();
}

}  // namespace

extern "C" {

const char* rto_status_string(rto_status status) {
  switch (status) {
    case RTO_OK: return "success";
    case RTO_ERR_NULL: return "a required pointer argument is NULL";
    case RTO_ERR_INVALID_ARGUMENT: return "a duration argument is out of range";
    case RTO_ERR_INVALID_CONFIG: return "the configuration is invalid";
    case RTO_ERR_SAMPLE_REFUSED: return "the RTT sample is negative or above 1 hour";
    case RTO_ERR_NO_SAMPLE: return "no RTT sample has been taken yet";
    case RTO_ERR_NO_MEMORY: return "out of memory";
    case RTO_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

unsigned rto_version(void) { return RTO_VERSION; }

rto_status rto_config_rfc6298(rto_config* out) {
  if (out == nullptr) return RTO_ERR_NULL;
  return guarded([&] {
    *out = to_c(rto::Config::rfc6298());
    return RTO_OK;
  });
}

rto_status rto_config_linux(rto_config* out) {
  if (out == nullptr) return RTO_ERR_NULL;
  return guarded([&] {
    *out = to_c(rto::Config::linux_default());
    return RTO_OK;
  });
}

rto_status rto_config_validate(const rto_config* config, char* message, size_t message_size) {
  if (config == nullptr) return RTO_ERR_NULL;
  if (message != nullptr && message_size > 0) message[0] = '\0';
  return guarded([&] {
    try {
      to_cpp(*config).validate();
    } catch (const rto::ConfigError& e) {
      copy_message(e.what(), message, message_size);
      return RTO_ERR_INVALID_CONFIG;
    }
    return RTO_OK;
  });
}

// ---- estimator ------------------------------------------------------------

rto_status rto_estimator_init(rto_estimator* estimator, const rto_config* config) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  return guarded([&] {
    const rto::Config cfg = config != nullptr ? to_cpp(*config) : rto::Config::rfc6298();
    // Both validate (ConfigError) before anything is placed.
    EstimatorState state{rto::AnyEstimator(cfg), rto::RetransmissionTimer(cfg, kNoLimits)};
    new (estimator->private_.bytes_) EstimatorState(state);
    return RTO_OK;
  });
}

rto_status rto_estimator_new(const rto_config* config, rto_estimator** out) {
  return make(out, [&](rto_estimator* e) { return rto_estimator_init(e, config); });
}

void rto_estimator_free(rto_estimator* estimator) { delete estimator; }

rto_status rto_estimator_on_rtt_sample(rto_estimator* estimator, int64_t r_us) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  auto& s = impl<EstimatorState>(estimator);
  return sampled(s, s.est.on_rtt_sample(microseconds{r_us}));
}

rto_status rto_estimator_on_rtt_sample_window(rto_estimator* estimator, int64_t r_us, uint32_t snd_una,
                                              uint32_t snd_nxt) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  auto& s = impl<EstimatorState>(estimator);
  return sampled(s, s.est.on_rtt_sample(microseconds{r_us}, snd_una, snd_nxt));
}

rto_status rto_estimator_on_timeout(rto_estimator* estimator) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  auto& s = impl<EstimatorState>(estimator);
  apply(s, s.rto.on_expiry(rto::Instant{}));  // the backoff only: its deadline is not used
  return RTO_OK;
}

rto_status rto_estimator_on_syn_timeout(rto_estimator* estimator) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  auto& s = impl<EstimatorState>(estimator);
  apply(s, s.rto.on_syn_expiry(rto::Instant{}));
  return RTO_OK;
}

rto_status rto_estimator_on_handshake_complete(rto_estimator* estimator, bool syn_timed_out) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  auto& s = impl<EstimatorState>(estimator);
  s.rto.on_handshake_complete(syn_timed_out, s.est.has_sample());
  return RTO_OK;
}

rto_status rto_estimator_rto_us(const rto_estimator* estimator, int64_t* out_us) {
  if (estimator == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  *out_us = impl<EstimatorState>(estimator).rto.rto().get().count();
  return RTO_OK;
}

rto_status rto_estimator_base_rto_us(const rto_estimator* estimator, int64_t* out_us) {
  if (estimator == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  *out_us = impl<EstimatorState>(estimator).rto.base_rto().get().count();
  return RTO_OK;
}

rto_status rto_estimator_srtt_us(const rto_estimator* estimator, int64_t* out_us) {
  if (estimator == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  return put(impl<EstimatorState>(estimator).est.srtt(), out_us);
}

rto_status rto_estimator_rttvar_us(const rto_estimator* estimator, int64_t* out_us) {
  if (estimator == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  return put(impl<EstimatorState>(estimator).est.rttvar(), out_us);
}

rto_status rto_estimator_backoff(const rto_estimator* estimator, unsigned* out) {
  if (estimator == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = impl<EstimatorState>(estimator).rto.backoff();
  return RTO_OK;
}

// ---- sampler --------------------------------------------------------------

rto_status rto_sampler_init(rto_sampler* sampler, int64_t ts_tick_us, uint32_t ts_offset) {
  if (sampler == nullptr) return RTO_ERR_NULL;
  // The C++ constructor silently replaces a non-positive tick; C callers get an error.
  if (ts_tick_us <= 0) return RTO_ERR_INVALID_ARGUMENT;
  new (sampler->private_.bytes_) SamplerState{rto::RttSampler{microseconds{ts_tick_us}, ts_offset}};
  return RTO_OK;
}

rto_status rto_sampler_new(int64_t ts_tick_us, uint32_t ts_offset, rto_sampler** out) {
  return make(out, [&](rto_sampler* s) { return rto_sampler_init(s, ts_tick_us, ts_offset); });
}

void rto_sampler_free(rto_sampler* sampler) { delete sampler; }

rto_status rto_sampler_on_send(rto_sampler* sampler, uint32_t seq, uint32_t len, int64_t now_us) {
  if (sampler == nullptr) return RTO_ERR_NULL;
  auto& s = impl<SamplerState>(sampler);
  if (len == 0) return RTO_OK;  // a pure ACK occupies no sequence space
  if (!s.started) {  // the first segment sent starts the sequence space
    s.started = true;
    s.snd_una = s.snd_max = seq;
  }
  s.sampler.on_send(seq, len, s.snd_max, at(now_us));
  if (rto::seq_gt(seq + len, s.snd_max)) s.snd_max = seq + len;
  return RTO_OK;
}

rto_status rto_sampler_on_timeout(rto_sampler* sampler) {
  if (sampler == nullptr) return RTO_ERR_NULL;
  impl<SamplerState>(sampler).sampler.on_timeout();
  return RTO_OK;
}

namespace {
// The sampler's SND.UNA follows ACKs of new data (not of data never sent).
void advance_una(SamplerState& s, uint32_t ack) {
  if (rto::seq_gt(ack, s.snd_una) && rto::seq_le(ack, s.snd_max)) s.snd_una = ack;
}
}  // namespace

rto_status rto_sampler_on_ack(rto_sampler* sampler, uint32_t ack, int64_t now_us, bool* has_sample,
                              int64_t* sample_us) {
  if (sampler == nullptr || has_sample == nullptr || sample_us == nullptr) return RTO_ERR_NULL;
  auto& s = impl<SamplerState>(sampler);
  if (!s.started) return put_sample(std::nullopt, has_sample, sample_us);
  const auto r = s.sampler.on_ack(ack, s.snd_una, s.snd_max, at(now_us));
  advance_una(s, ack);
  return put_sample(r, has_sample, sample_us);
}

rto_status rto_sampler_on_ack_ts(rto_sampler* sampler, uint32_t ack, uint32_t tsecr, int64_t now_us,
                                 bool* has_sample, int64_t* sample_us) {
  if (sampler == nullptr || has_sample == nullptr || sample_us == nullptr) return RTO_ERR_NULL;
  auto& s = impl<SamplerState>(sampler);
  if (!s.started) return put_sample(std::nullopt, has_sample, sample_us);
  const auto r = s.sampler.on_ack_ts(ack, tsecr, s.snd_una, s.snd_max, at(now_us));
  advance_una(s, ack);
  return put_sample(r, has_sample, sample_us);
}

rto_status rto_sampler_tsval(const rto_sampler* sampler, int64_t now_us, uint32_t* out) {
  if (sampler == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = impl<SamplerState>(sampler).sampler.tsval(at(now_us));
  return RTO_OK;
}

rto_status rto_sampler_timing(const rto_sampler* sampler, bool* out) {
  if (sampler == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = impl<SamplerState>(sampler).sampler.timing();
  return RTO_OK;
}

// ---- timer ----------------------------------------------------------------

rto_status rto_timer_init(rto_timer* timer) {
  if (timer == nullptr) return RTO_ERR_NULL;
  new (timer->private_.bytes_) rto::RetransmissionTimer{};
  return RTO_OK;
}

rto_status rto_timer_new(rto_timer** out) { return make(out, [](rto_timer* t) { return rto_timer_init(t); }); }

void rto_timer_free(rto_timer* timer) { delete timer; }

rto_status rto_timer_on_data_sent(rto_timer* timer, int64_t now_us, int64_t rto_us) {
  if (timer == nullptr) return RTO_ERR_NULL;
  if (rto_us < 0) return RTO_ERR_INVALID_ARGUMENT;
  auto& t = impl<rto::RetransmissionTimer>(timer);
  if (!t.running()) t.restart(at(now_us), rto_of(rto_us));  // 5.1: start a stopped timer
  return RTO_OK;
}

rto_status rto_timer_on_all_acked(rto_timer* timer) {
  if (timer == nullptr) return RTO_ERR_NULL;
  impl<rto::RetransmissionTimer>(timer).on_all_acked();
  return RTO_OK;
}

rto_status rto_timer_on_new_data_acked(rto_timer* timer, int64_t now_us, int64_t rto_us) {
  if (timer == nullptr) return RTO_ERR_NULL;
  if (rto_us < 0) return RTO_ERR_INVALID_ARGUMENT;
  impl<rto::RetransmissionTimer>(timer).restart(at(now_us), rto_of(rto_us));  // 5.3
  return RTO_OK;
}

rto_status rto_timer_expired(const rto_timer* timer, int64_t now_us, bool* out) {
  if (timer == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = impl<rto::RetransmissionTimer>(timer).expired(at(now_us));
  return RTO_OK;
}

rto_status rto_timer_on_expiry(rto_timer* timer, int64_t now_us, rto_estimator* estimator) {
  if (timer == nullptr || estimator == nullptr) return RTO_ERR_NULL;
  auto& s = impl<EstimatorState>(estimator);
  apply(s, s.rto.on_expiry(at(now_us)));                                    // 5.5
  impl<rto::RetransmissionTimer>(timer).restart(at(now_us), s.rto.rto());  // 5.6
  return RTO_OK;
}

rto_status rto_timer_on_syn_expiry(rto_timer* timer, int64_t now_us, rto_estimator* estimator) {
  if (timer == nullptr || estimator == nullptr) return RTO_ERR_NULL;
  auto& s = impl<EstimatorState>(estimator);
  apply(s, s.rto.on_syn_expiry(at(now_us)));
  impl<rto::RetransmissionTimer>(timer).restart(at(now_us), s.rto.rto());
  return RTO_OK;
}

rto_status rto_timer_restart(rto_timer* timer, int64_t now_us, int64_t rto_us) {
  if (timer == nullptr) return RTO_ERR_NULL;
  if (rto_us < 0) return RTO_ERR_INVALID_ARGUMENT;
  impl<rto::RetransmissionTimer>(timer).restart(at(now_us), rto_of(rto_us));
  return RTO_OK;
}

rto_status rto_timer_stop(rto_timer* timer) {
  if (timer == nullptr) return RTO_ERR_NULL;
  impl<rto::RetransmissionTimer>(timer).stop();
  return RTO_OK;
}

rto_status rto_timer_deadline_us(const rto_timer* timer, int64_t* out_us) {
  if (timer == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  // Instant::max() (stopped) is INT64_MAX microseconds: RTO_TIMER_NEVER.
  *out_us = impl<rto::RetransmissionTimer>(timer).deadline().time_since_epoch().count();
  return RTO_OK;
}

rto_status rto_timer_running(const rto_timer* timer, bool* out) {
  if (timer == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = impl<rto::RetransmissionTimer>(timer).running();
  return RTO_OK;
}

// ---- wheel ------------------------------------------------------------------

rto_status rto_wheel_init(rto_wheel* wheel, int64_t start_us, int64_t tick_us) {
  if (wheel == nullptr) return RTO_ERR_NULL;
  if (tick_us <= 0) return RTO_ERR_INVALID_ARGUMENT;  // the C++ wheel would silently use 1 us
  new (wheel->private_.bytes_) rto::TimerWheel(at(start_us), microseconds{tick_us});
  return RTO_OK;
}

void rto_wheel_destroy(rto_wheel* wheel) {
  if (wheel != nullptr) impl<rto::TimerWheel>(wheel).~TimerWheel();
}

rto_status rto_wheel_new(int64_t start_us, int64_t tick_us, rto_wheel** out) {
  return make(out, [&](rto_wheel* w) { return rto_wheel_init(w, start_us, tick_us); });
}

void rto_wheel_free(rto_wheel* wheel) {
  rto_wheel_destroy(wheel);
  delete wheel;
}

rto_status rto_wheel_entry_init(rto_wheel_entry* entry) {
  if (entry == nullptr) return RTO_ERR_NULL;
  new (entry->private_.bytes_) rto::TimerEntry();
  return RTO_OK;
}

rto_status rto_wheel_arm(rto_wheel* wheel, rto_wheel_entry* entry, int64_t deadline_us) {
  if (wheel == nullptr || entry == nullptr) return RTO_ERR_NULL;
  impl<rto::TimerWheel>(wheel).arm(impl<rto::TimerEntry>(entry), at(deadline_us));
  return RTO_OK;
}

rto_status rto_wheel_cancel(rto_wheel* wheel, rto_wheel_entry* entry) {
  if (wheel == nullptr || entry == nullptr) return RTO_ERR_NULL;
  impl<rto::TimerWheel>(wheel).cancel(impl<rto::TimerEntry>(entry));
  return RTO_OK;
}

rto_status rto_wheel_advance(rto_wheel* wheel, int64_t now_us, rto_wheel_fire_fn on_fire, void* context,
                             size_t* fired) {
  if (wheel == nullptr || on_fire == nullptr) return RTO_ERR_NULL;
  // The TimerEntry sits at the start of its rto_wheel_entry (the struct is its bytes).
  const std::size_t n = impl<rto::TimerWheel>(wheel).advance(
      at(now_us), [&](rto::TimerEntry& e) { on_fire(reinterpret_cast<rto_wheel_entry*>(&e), context); });
  if (fired != nullptr) *fired = n;
  return RTO_OK;
}

rto_status rto_wheel_next_deadline_us(const rto_wheel* wheel, int64_t* out_us) {
  if (wheel == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  const auto d = impl<rto::TimerWheel>(wheel).next_deadline();
  *out_us = d ? d->time_since_epoch().count() : RTO_TIMER_NEVER;
  return RTO_OK;
}

rto_status rto_wheel_size(const rto_wheel* wheel, size_t* out) {
  if (wheel == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = impl<rto::TimerWheel>(wheel).size();
  return RTO_OK;
}

rto_status rto_wheel_entry_armed(const rto_wheel_entry* entry, bool* out) {
  if (entry == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = impl<rto::TimerEntry>(entry).armed();
  return RTO_OK;
}

rto_status rto_wheel_entry_deadline_us(const rto_wheel_entry* entry, int64_t* out_us) {
  if (entry == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  const rto::TimerEntry& e = impl<rto::TimerEntry>(entry);
  *out_us = e.armed() ? e.deadline().time_since_epoch().count() : RTO_TIMER_NEVER;
  return RTO_OK;
}

}  // extern "C"
