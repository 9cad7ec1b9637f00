/* rto.h: the C API of the rto library (RFC 6298 retransmission timer).
 *
 * A C (C99 and later) and C++ interface to the estimator (RFC 6298 sections
 * 2 and 5.5-5.7), the RTT sampler (section 3, Karn's algorithm, and RFC 7323
 * section 4 timestamps) and the retransmission timer (rules 5.1-5.6), for
 * stacks written in C or bound from other languages. Link with -lrto
 * (librto.so.0, or librto.a plus the C++ runtime: pkg-config --static).
 *
 * Conventions:
 *  - Durations and times are int64_t integer MICROSECONDS. A `now_us` is an
 *    absolute time on the caller's own monotonic clock (any fixed epoch; the
 *    library never reads a clock); an `*_rto_us` or `*_us` duration is >= 0.
 *  - Every function that can fail returns an rto_status; RTO_OK (0) is
 *    success. Results come back through out-parameters, written only on
 *    RTO_OK. No C++ exception ever crosses this interface.
 *  - Handles (rto_estimator, rto_sampler, rto_timer) are opaque, created by
 *    *_new and released by *_free (free(NULL) does nothing). A handle is not
 *    thread-safe: one thread at a time per handle.
 *  - Sequence numbers and TSvals are uint32_t, compared modulo 2^32.
 *
 * Each function calls the C++ class of the same name (rto/estimator.hpp,
 * rto/rtt_sampler.hpp, rto/retransmission_timer.hpp), whose documentation
 * gives the RFC rule it implements in full. */
#ifndef RTO_RTO_H
#define RTO_RTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rto/export.h"

#ifdef __cplusplus
extern "C" {
/* C++ sees the enums with int as their fixed underlying type, so that any int
 * a C caller stores in one (C enums are ints) is a valid C++ value. */
#define RTO_ENUM_BASE : int
#else
#define RTO_ENUM_BASE
#endif

/** What a call of the C API returned. RTO_OK is 0; every other value is an error. */
typedef enum rto_status RTO_ENUM_BASE {
  RTO_OK = 0,                   /**< Success; out-parameters were written. */
  RTO_ERR_NULL = 1,             /**< A required pointer argument (handle or out-parameter) was NULL. */
  RTO_ERR_INVALID_ARGUMENT = 2, /**< A duration argument was out of range (a negative RTO, a tick <= 0). */
  RTO_ERR_INVALID_CONFIG = 3,   /**< The rto_config failed validation (rto_config_validate says which field). */
  RTO_ERR_SAMPLE_REFUSED = 4,   /**< An RTT sample was negative or above 1 hour; the estimator is unchanged. */
  RTO_ERR_NO_SAMPLE = 5,        /**< SRTT or RTTVAR was asked for before the first RTT sample. */
  RTO_ERR_NO_MEMORY = 6,        /**< Allocating a handle failed. */
  RTO_ERR_INTERNAL = 7          /**< An unexpected internal failure (a bug: please report it). */
} rto_status;

/** A static, NUL-terminated English description of `status` ("unknown status" for other values). */
RTO_API const char* rto_status_string(rto_status status);

/** Which algorithm an estimator runs (rto::Config::Variant). */
typedef enum rto_variant RTO_ENUM_BASE {
  RTO_VARIANT_RFC6298 = 0, /**< RFC 6298 sections 2-5 exactly. */
  RTO_VARIANT_LINUX = 1    /**< The Linux kernel's tcp_rtt_estimator() / __tcp_set_rto(). */
} rto_variant;

/** Estimator parameters (rto::Config), durations in microseconds. Fill one with
 *  rto_config_rfc6298() or rto_config_linux(), then adjust fields. */
typedef struct rto_config {
  rto_variant variant;          /**< The algorithm. */
  int64_t initial_rto_us;       /**< RTO before the first sample (RFC 6298 2.1: 1 s). */
  int64_t min_rto_us;           /**< Floor (2.4: 1 s; Linux rto_min 200 ms, on the variance term). */
  int64_t max_rto_us;           /**< Cap, also of the backed-off RTO (2.5: >= 60 s; Linux 120 s). */
  int64_t granularity_us;       /**< Clock granularity G of section 2 (1 ms); unused by Linux. */
  int64_t syn_fallback_rto_us;  /**< 5.7: the RTO when data starts after a SYN timed out (3 s). */
  unsigned syn_linear_timeouts; /**< Linux tcp_syn_linear_timeouts: SYN expiries that do not double (RFC: 0). */
  unsigned reset_after_backoffs; /**< Section 5 note: clear SRTT/RTTVAR after this many backoffs (0 = never). */
  int64_t tick_us;              /**< Round the RTO up to this tick (Linux: 4 ms jiffy; 0 = none). */
} rto_config;

/** Writes RFC 6298's defaults to *out (initial 1 s, floor 1 s, cap 60 s, G 1 ms,
 *  5.7 fallback 3 s). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_config_rfc6298(rto_config* out);
/** Writes the Linux kernel's defaults to *out (rto_min 200 ms, cap 120 s, 4 ms
 *  tick, 4 linear SYN timeouts). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_config_linux(rto_config* out);
/** Checks `config` as rto::Config::validate() does. On RTO_ERR_INVALID_CONFIG,
 *  when `message` is not NULL, writes a NUL-terminated explanation naming the
 *  field (truncated to message_size - 1 bytes), e.g. "rto::Config.max_rto:
 *  30000000 us is below the 60 s minimum of RFC 6298 (2.5)". Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_config_validate(const rto_config* config, char* message, size_t message_size);

/* ---- estimator: SRTT, RTTVAR, RTO and backoff (RFC 6298 sections 2, 5.5, 5.7) ---- */

/** Opaque handle of an rto::Estimator. */
typedef struct rto_estimator rto_estimator;

/** Creates an estimator with `config` (NULL: RFC 6298 defaults); its RTO starts at
 *  initial_rto (2.1). Errors: RTO_ERR_NULL (out), RTO_ERR_INVALID_CONFIG, RTO_ERR_NO_MEMORY. */
RTO_API rto_status rto_estimator_new(const rto_config* config, rto_estimator** out);
/** Releases an estimator; NULL is ignored. */
RTO_API void rto_estimator_free(rto_estimator* estimator);
/** Feeds one RTT measurement R in us (2.2 first, 2.3 after) and recomputes the RTO,
 *  which ends any backoff. The caller applies Karn's algorithm (an rto_sampler does).
 *  Errors: RTO_ERR_NULL, RTO_ERR_SAMPLE_REFUSED (R < 0 or R > 1 h; state unchanged). */
RTO_API rto_status rto_estimator_on_rtt_sample(rto_estimator* estimator, int64_t r_us);
/** As rto_estimator_on_rtt_sample, with SND.UNA and SND.NXT for the Linux
 *  variant's per-RTT-window variance tracking (ignored by RFC 6298). */
RTO_API rto_status rto_estimator_on_rtt_sample_window(rto_estimator* estimator, int64_t r_us,
                                                      uint32_t snd_una, uint32_t snd_nxt);
/** The retransmission timer expired (5.5): RTO = min(2 * RTO, max_rto). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_estimator_on_timeout(rto_estimator* estimator);
/** A SYN's timer expired: as on_timeout, except the first syn_linear_timeouts
 *  expiries keep the RTO. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_estimator_on_syn_timeout(rto_estimator* estimator);
/** The handshake completed (5.7): after a SYN timeout an RTO below 3 s becomes 3 s.
 *  Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_estimator_on_handshake_complete(rto_estimator* estimator, bool syn_timed_out);
/** The current RTO in us, backoff included. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_estimator_rto_us(const rto_estimator* estimator, int64_t* out_us);
/** The RTO before backoff in us. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_estimator_base_rto_us(const rto_estimator* estimator, int64_t* out_us);
/** SRTT rounded to the nearest us. Errors: RTO_ERR_NULL, RTO_ERR_NO_SAMPLE (before the first sample). */
RTO_API rto_status rto_estimator_srtt_us(const rto_estimator* estimator, int64_t* out_us);
/** RTTVAR rounded to the nearest us (Linux: mdev/4, as tcpi_rttvar).
 *  Errors: RTO_ERR_NULL, RTO_ERR_NO_SAMPLE (before the first sample). */
RTO_API rto_status rto_estimator_rttvar_us(const rto_estimator* estimator, int64_t* out_us);
/** The number of doublings since the last sample (5.5). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_estimator_backoff(const rto_estimator* estimator, unsigned* out);

/* ---- sampler: which ACKs give an RTT sample (section 3, Karn; RFC 7323 section 4) ---- */

/** Opaque handle of an rto::RttSampler. */
typedef struct rto_sampler rto_sampler;

/** Creates a sampler whose TSval clock ticks every `ts_tick_us` us (1000 for the
 *  common 1 ms) and adds `ts_offset` to every TSval (RFC 7323 5.4). Errors:
 *  RTO_ERR_NULL (out), RTO_ERR_INVALID_ARGUMENT (ts_tick_us <= 0), RTO_ERR_NO_MEMORY. */
RTO_API rto_status rto_sampler_new(int64_t ts_tick_us, uint32_t ts_offset, rto_sampler** out);
/** Releases a sampler; NULL is ignored. */
RTO_API void rto_sampler_free(rto_sampler* sampler);
/** Segment [seq, seq + len) sent at now_us: new data starts timing if nothing is
 *  timed; a retransmission overlapping the timed segment cancels it (Karn).
 *  Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_sampler_on_send(rto_sampler* sampler, uint32_t seq, uint32_t len, int64_t now_us);
/** The retransmission timer expired (5.4): cancels the timing (Karn). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_sampler_on_timeout(rto_sampler* sampler);
/** An ACK `ack` (no timestamps) arrived at now_us. *has_sample is set to whether it
 *  gave an RTT sample, and if so *sample_us to R. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_sampler_on_ack(rto_sampler* sampler, uint32_t ack, int64_t now_us,
                                      bool* has_sample, int64_t* sample_us);
/** An ACK `ack` with TSecr `tsecr` arrived at now_us (RFC 7323 4.1): a sample from
 *  every ACK that advances SND.UNA, none for a TSecr in the future. Outputs as
 *  rto_sampler_on_ack. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_sampler_on_ack_ts(rto_sampler* sampler, uint32_t ack, uint32_t tsecr,
                                         int64_t now_us, bool* has_sample, int64_t* sample_us);
/** The TSval for a segment sent at now_us: floor(now / tick) + offset, modulo 2^32.
 *  Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_sampler_tsval(const rto_sampler* sampler, int64_t now_us, uint32_t* out);
/** Whether a segment is being timed (no-timestamp mode). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_sampler_timing(const rto_sampler* sampler, bool* out);

/* ---- timer: the retransmission timer of RFC 6298 section 5 (5.1-5.6) ---- */

/** Opaque handle of an rto::RetransmissionTimer. */
typedef struct rto_timer rto_timer;

/** What rto_timer_deadline_us reports for a stopped timer: the largest time. */
#define RTO_TIMER_NEVER INT64_MAX

/** Creates a stopped timer. Errors: RTO_ERR_NULL (out), RTO_ERR_NO_MEMORY. */
RTO_API rto_status rto_timer_new(rto_timer** out);
/** Releases a timer; NULL is ignored. */
RTO_API void rto_timer_free(rto_timer* timer);
/** Data was sent at now_us (5.1): a stopped timer starts, to expire after rto_us; a
 *  running one is left alone. Errors: RTO_ERR_NULL, RTO_ERR_INVALID_ARGUMENT (rto_us < 0). */
RTO_API rto_status rto_timer_on_data_sent(rto_timer* timer, int64_t now_us, int64_t rto_us);
/** All outstanding data was acknowledged (5.2): stops the timer. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_timer_on_all_acked(rto_timer* timer);
/** An ACK of new data arrived at now_us with data still outstanding (5.3): restarts
 *  the timer to expire after rto_us. Errors: RTO_ERR_NULL, RTO_ERR_INVALID_ARGUMENT. */
RTO_API rto_status rto_timer_on_new_data_acked(rto_timer* timer, int64_t now_us, int64_t rto_us);
/** Whether the timer is running and now_us >= its deadline (never early). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_timer_expired(const rto_timer* timer, int64_t now_us, bool* out);
/** Handles an expiry at now_us (5.4-5.6): the caller retransmits the earliest
 *  unacknowledged segment (5.4); this backs `estimator` off (5.5) and restarts the
 *  timer with the doubled RTO (5.6). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_timer_on_expiry(rto_timer* timer, int64_t now_us, rto_estimator* estimator);
/** As rto_timer_on_expiry, for the timer of an unacknowledged SYN. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_timer_on_syn_expiry(rto_timer* timer, int64_t now_us, rto_estimator* estimator);
/** Restarts the timer at now_us to expire after rto_us (a stack's own re-arm, e.g.
 *  Linux's tail-loss probe). Errors: RTO_ERR_NULL, RTO_ERR_INVALID_ARGUMENT. */
RTO_API rto_status rto_timer_restart(rto_timer* timer, int64_t now_us, int64_t rto_us);
/** Stops the timer. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_timer_stop(rto_timer* timer);
/** The absolute deadline in us; RTO_TIMER_NEVER when stopped. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_timer_deadline_us(const rto_timer* timer, int64_t* out_us);
/** Whether the timer is running. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_timer_running(const rto_timer* timer, bool* out);

#undef RTO_ENUM_BASE

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RTO_RTO_H */
