// The C API of rto/rto.h over the public C++ API: opaque handles wrapping
// rto::Estimator, rto::RttSampler and rto::RetransmissionTimer; integer
// microseconds in, rto_status out; no exception crosses the boundary.

#include "rto/rto.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <new>
#include <optional>

#include "rto/config.hpp"
#include "rto/estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"

struct rto_estimator {
  rto::Estimator impl;
};

struct rto_sampler {
  rto::RttSampler impl;
};

struct rto_timer {
  rto::RetransmissionTimer impl;
};

namespace {

using std::chrono::microseconds;

rto::Instant at(int64_t now_us) { return rto::Instant{microseconds{now_us}}; }

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
      if (message != nullptr && message_size > 0) {
        const size_t n = std::min(std::strlen(e.what()), message_size - 1);
        std::memcpy(message, e.what(), n);
        message[n] = '\0';
      }
      return RTO_ERR_INVALID_CONFIG;
    }
    return RTO_OK;
  });
}

// ---- estimator ------------------------------------------------------------

rto_status rto_estimator_new(const rto_config* config, rto_estimator** out) {
  if (out == nullptr) return RTO_ERR_NULL;
  return guarded([&] {
    const rto::Config cfg = config != nullptr ? to_cpp(*config) : rto::Config::rfc6298();
    *out = new rto_estimator{rto::Estimator{cfg}};  // the constructor validates (ConfigError)
    return RTO_OK;
  });
}

void rto_estimator_free(rto_estimator* estimator) { delete estimator; }

rto_status rto_estimator_on_rtt_sample(rto_estimator* estimator, int64_t r_us) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  return estimator->impl.on_rtt_sample(microseconds{r_us}) ? RTO_OK : RTO_ERR_SAMPLE_REFUSED;
}

rto_status rto_estimator_on_rtt_sample_window(rto_estimator* estimator, int64_t r_us, uint32_t snd_una,
                                              uint32_t snd_nxt) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  return estimator->impl.on_rtt_sample(microseconds{r_us}, snd_una, snd_nxt) ? RTO_OK
                                                                              : RTO_ERR_SAMPLE_REFUSED;
}

rto_status rto_estimator_on_timeout(rto_estimator* estimator) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  estimator->impl.on_timeout();
  return RTO_OK;
}

rto_status rto_estimator_on_syn_timeout(rto_estimator* estimator) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  estimator->impl.on_syn_timeout();
  return RTO_OK;
}

rto_status rto_estimator_on_handshake_complete(rto_estimator* estimator, bool syn_timed_out) {
  if (estimator == nullptr) return RTO_ERR_NULL;
  estimator->impl.on_handshake_complete(syn_timed_out);
  return RTO_OK;
}

rto_status rto_estimator_rto_us(const rto_estimator* estimator, int64_t* out_us) {
  if (estimator == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  *out_us = estimator->impl.rto().count();
  return RTO_OK;
}

rto_status rto_estimator_base_rto_us(const rto_estimator* estimator, int64_t* out_us) {
  if (estimator == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  *out_us = estimator->impl.base_rto().count();
  return RTO_OK;
}

rto_status rto_estimator_srtt_us(const rto_estimator* estimator, int64_t* out_us) {
  if (estimator == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  return put(estimator->impl.srtt(), out_us);
}

rto_status rto_estimator_rttvar_us(const rto_estimator* estimator, int64_t* out_us) {
  if (estimator == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  return put(estimator->impl.rttvar(), out_us);
}

rto_status rto_estimator_backoff(const rto_estimator* estimator, unsigned* out) {
  if (estimator == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = estimator->impl.backoff();
  return RTO_OK;
}

// ---- sampler --------------------------------------------------------------

rto_status rto_sampler_new(int64_t ts_tick_us, uint32_t ts_offset, rto_sampler** out) {
  if (out == nullptr) return RTO_ERR_NULL;
  // The C++ constructor silently replaces a non-positive tick; C callers get an error.
  if (ts_tick_us <= 0) return RTO_ERR_INVALID_ARGUMENT;
  return guarded([&] {
    *out = new rto_sampler{rto::RttSampler{microseconds{ts_tick_us}, ts_offset}};
    return RTO_OK;
  });
}

void rto_sampler_free(rto_sampler* sampler) { delete sampler; }

rto_status rto_sampler_on_send(rto_sampler* sampler, uint32_t seq, uint32_t len, int64_t now_us) {
  if (sampler == nullptr) return RTO_ERR_NULL;
  sampler->impl.on_send(seq, len, at(now_us));
  return RTO_OK;
}

rto_status rto_sampler_on_timeout(rto_sampler* sampler) {
  if (sampler == nullptr) return RTO_ERR_NULL;
  sampler->impl.on_timeout();
  return RTO_OK;
}

rto_status rto_sampler_on_ack(rto_sampler* sampler, uint32_t ack, int64_t now_us, bool* has_sample,
                              int64_t* sample_us) {
  if (sampler == nullptr || has_sample == nullptr || sample_us == nullptr) return RTO_ERR_NULL;
  return put_sample(sampler->impl.on_ack(ack, at(now_us)), has_sample, sample_us);
}

rto_status rto_sampler_on_ack_ts(rto_sampler* sampler, uint32_t ack, uint32_t tsecr, int64_t now_us,
                                 bool* has_sample, int64_t* sample_us) {
  if (sampler == nullptr || has_sample == nullptr || sample_us == nullptr) return RTO_ERR_NULL;
  return put_sample(sampler->impl.on_ack_ts(ack, tsecr, at(now_us)), has_sample, sample_us);
}

rto_status rto_sampler_tsval(const rto_sampler* sampler, int64_t now_us, uint32_t* out) {
  if (sampler == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = sampler->impl.tsval(at(now_us));
  return RTO_OK;
}

rto_status rto_sampler_timing(const rto_sampler* sampler, bool* out) {
  if (sampler == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = sampler->impl.timing();
  return RTO_OK;
}

// ---- timer ----------------------------------------------------------------

rto_status rto_timer_new(rto_timer** out) {
  if (out == nullptr) return RTO_ERR_NULL;
  return guarded([&] {
    *out = new rto_timer{};
    return RTO_OK;
  });
}

void rto_timer_free(rto_timer* timer) { delete timer; }

rto_status rto_timer_on_data_sent(rto_timer* timer, int64_t now_us, int64_t rto_us) {
  if (timer == nullptr) return RTO_ERR_NULL;
  if (rto_us < 0) return RTO_ERR_INVALID_ARGUMENT;
  timer->impl.on_data_sent(at(now_us), microseconds{rto_us});
  return RTO_OK;
}

rto_status rto_timer_on_all_acked(rto_timer* timer) {
  if (timer == nullptr) return RTO_ERR_NULL;
  timer->impl.on_all_acked();
  return RTO_OK;
}

rto_status rto_timer_on_new_data_acked(rto_timer* timer, int64_t now_us, int64_t rto_us) {
  if (timer == nullptr) return RTO_ERR_NULL;
  if (rto_us < 0) return RTO_ERR_INVALID_ARGUMENT;
  timer->impl.on_new_data_acked(at(now_us), microseconds{rto_us});
  return RTO_OK;
}

rto_status rto_timer_expired(const rto_timer* timer, int64_t now_us, bool* out) {
  if (timer == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = timer->impl.expired(at(now_us));
  return RTO_OK;
}

rto_status rto_timer_on_expiry(rto_timer* timer, int64_t now_us, rto_estimator* estimator) {
  if (timer == nullptr || estimator == nullptr) return RTO_ERR_NULL;
  timer->impl.on_expiry(at(now_us), estimator->impl);
  return RTO_OK;
}

rto_status rto_timer_on_syn_expiry(rto_timer* timer, int64_t now_us, rto_estimator* estimator) {
  if (timer == nullptr || estimator == nullptr) return RTO_ERR_NULL;
  timer->impl.on_syn_expiry(at(now_us), estimator->impl);
  return RTO_OK;
}

rto_status rto_timer_restart(rto_timer* timer, int64_t now_us, int64_t rto_us) {
  if (timer == nullptr) return RTO_ERR_NULL;
  if (rto_us < 0) return RTO_ERR_INVALID_ARGUMENT;
  timer->impl.restart(at(now_us), microseconds{rto_us});
  return RTO_OK;
}

rto_status rto_timer_stop(rto_timer* timer) {
  if (timer == nullptr) return RTO_ERR_NULL;
  timer->impl.stop();
  return RTO_OK;
}

rto_status rto_timer_deadline_us(const rto_timer* timer, int64_t* out_us) {
  if (timer == nullptr || out_us == nullptr) return RTO_ERR_NULL;
  // Instant::max() (stopped) is INT64_MAX microseconds: RTO_TIMER_NEVER.
  *out_us = timer->impl.deadline().time_since_epoch().count();
  return RTO_OK;
}

rto_status rto_timer_running(const rto_timer* timer, bool* out) {
  if (timer == nullptr || out == nullptr) return RTO_ERR_NULL;
  *out = timer->impl.running();
  return RTO_OK;
}

}  // extern "C"
