/* rto.h: the C API of the rto library (RFC 6298 retransmission timer).
 *
 * A C (C99 and later) and C++ interface to the estimator (RFC 6298 sections
 * 2 and 5.5-5.7), the RTT sampler (section 3, Karn's algorithm, and RFC 7323
 * section 4 timestamps), the retransmission timer (rules 5.1-5.6) and a timer
 * wheel for many connections' timers, for stacks written in C or bound from
 * other languages. Link with -lrto (librto.so.0, or librto.a plus the C++
 * runtime: pkg-config --static).
 *
 * Conventions:
 *  - Durations and times are int64_t integer MICROSECONDS. A `now_us` is an
 *    absolute time on the caller's own monotonic clock (any fixed epoch; the
 *    library never reads a clock); an `*_rto_us` or `*_us` duration is >= 0.
 *  - Every function that can fail returns an rto_status; RTO_OK (0) is
 *    success. Results come back through out-parameters, written only on
 *    RTO_OK. No C++ exception ever crosses this interface.
 *  - The states (rto_estimator, rto_sampler, rto_timer, rto_wheel,
 *    rto_wheel_entry) are structs of a fixed size whose bytes are private.
 *    The caller places them where it likes: inside its own connection struct
 *    or anywhere else, made ready by *_init (no allocation); or on the heap
 *    by *_new, released by *_free (free(NULL) does nothing). The estimator,
 *    sampler and timer hold no resource: memory of theirs may simply be
 *    reused. A state is not thread-safe: one thread at a time per state.
 *  - Sequence numbers and TSvals are uint32_t, compared modulo 2^32.
 *
 * The estimator and sampler functions call the C++ classes of
 * rto/any_estimator.hpp, rto/retransmission_timer.hpp and rto/rtt_sampler.hpp,
 * the wheel rto/timer_wheel.hpp, whose documentation gives the RFC rule each
 * implements in full. */
#ifndef RTO_RTO_H
#define RTO_RTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rto/export.h"

/* The library's version, for #if tests; rto_version() is the version of the
 * library a program runs with. Before 1.0 a minor version may change the API. */
#define RTO_VERSION_MAJOR 0
#define RTO_VERSION_MINOR 2
#define RTO_VERSION_PATCH 0
/** "MAJOR.MINOR.PATCH" (the Makefile reads the version from here). */
#define RTO_VERSION_STRING "0.2.0"
/** MAJOR * 10000 + MINOR * 100 + PATCH: #if RTO_VERSION >= 200 */
#define RTO_VERSION (RTO_VERSION_MAJOR * 10000 + RTO_VERSION_MINOR * 100 + RTO_VERSION_PATCH)

/* Sizes of the states a caller places itself (bytes; each 8-byte aligned).
 * Part of the ABI of librto.so.0: they change only with the major version. */
#define RTO_ESTIMATOR_BYTES 160
#define RTO_SAMPLER_BYTES 48
#define RTO_TIMER_BYTES 96
#define RTO_WHEEL_ENTRY_BYTES 64
#define RTO_WHEEL_BYTES 32768

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
  RTO_ERR_NULL = 1,             /**< A required pointer argument (state or out-parameter) was NULL. */
  RTO_ERR_INVALID_ARGUMENT = 2, /**< A duration argument was out of range (a negative RTO, a tick <= 0). */
  RTO_ERR_INVALID_CONFIG = 3,   /**< The rto_config failed validation (rto_config_validate says which field). */
  RTO_ERR_SAMPLE_REFUSED = 4,   /**< An RTT sample was negative or above 1 hour; the estimator is unchanged. */
  RTO_ERR_NO_SAMPLE = 5,        /**< SRTT or RTTVAR was asked for before the first RTT sample. */
  RTO_ERR_NO_MEMORY = 6,        /**< Allocating a state (*_new) failed. */
  RTO_ERR_INTERNAL = 7          /**< An unexpected internal failure (a bug: please report it). */
} rto_status;

/** A static, NUL-terminated English description of `status` ("unknown status" for other values). */
RTO_API const char* rto_status_string(rto_status status);
/** RTO_VERSION of the library this program runs with (which may differ from
 *  the header it was compiled with). */
RTO_API unsigned rto_version(void);

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

/** An estimator: SRTT and RTTVAR (rto::AnyEstimator) and the RTO in force
 *  with its backoff (the RTO part of rto::RetransmissionTimer). Fixed size,
 *  private bytes: keep it in your own struct (rto_estimator_init) or on the
 *  heap (rto_estimator_new). */
typedef struct rto_estimator {
  union {
    uint64_t align_u64_;
    void* align_ptr_;
    unsigned char bytes_[RTO_ESTIMATOR_BYTES];
  } private_;
} rto_estimator;

/** Makes the memory at `estimator` an estimator with `config` (NULL: RFC 6298
 *  defaults); its RTO starts at initial_rto (2.1). Nothing is allocated.
 *  Errors: RTO_ERR_NULL (estimator), RTO_ERR_INVALID_CONFIG (the memory is then not an estimator). */
RTO_API rto_status rto_estimator_init(rto_estimator* estimator, const rto_config* config);
/** As rto_estimator_init, on the heap. Errors: RTO_ERR_NULL (out), RTO_ERR_INVALID_CONFIG, RTO_ERR_NO_MEMORY. */
RTO_API rto_status rto_estimator_new(const rto_config* config, rto_estimator** out);
/** Releases an estimator from rto_estimator_new; NULL is ignored. */
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

/** A sampler: an rto::RttSampler and the SND.UNA and SND.MAX it is told,
 *  kept here from the segments and ACKs it sees. Fixed size, private bytes. */
typedef struct rto_sampler {
  union {
    uint64_t align_u64_;
    void* align_ptr_;
    unsigned char bytes_[RTO_SAMPLER_BYTES];
  } private_;
} rto_sampler;

/** Makes the memory at `sampler` a sampler whose TSval clock ticks every
 *  `ts_tick_us` us (1000 for the common 1 ms) and adds `ts_offset` to every
 *  TSval (RFC 7323 5.4). Errors: RTO_ERR_NULL, RTO_ERR_INVALID_ARGUMENT (ts_tick_us <= 0). */
RTO_API rto_status rto_sampler_init(rto_sampler* sampler, int64_t ts_tick_us, uint32_t ts_offset);
/** As rto_sampler_init, on the heap. Errors: RTO_ERR_NULL (out),
 *  RTO_ERR_INVALID_ARGUMENT (ts_tick_us <= 0), RTO_ERR_NO_MEMORY. */
RTO_API rto_status rto_sampler_new(int64_t ts_tick_us, uint32_t ts_offset, rto_sampler** out);
/** Releases a sampler from rto_sampler_new; NULL is ignored. */
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

/** A timer's deadline (rto::RetransmissionTimer), armed with the RTO the
 *  caller passes (its estimator's, rto_estimator_rto_us). An rto_us is used
 *  within [1 us, 1 h], the range of any RTO: 0 arms 1 us, more than 1 h
 *  arms 1 h. Fixed size, private bytes. */
typedef struct rto_timer {
  union {
    uint64_t align_u64_;
    void* align_ptr_;
    unsigned char bytes_[RTO_TIMER_BYTES];
  } private_;
} rto_timer;

/** What rto_timer_deadline_us (and rto_wheel_next_deadline_us,
 *  rto_wheel_entry_deadline_us) report for no deadline: the largest time. */
#define RTO_TIMER_NEVER INT64_MAX

/** Makes the memory at `timer` a stopped timer. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_timer_init(rto_timer* timer);
/** As rto_timer_init, on the heap. Errors: RTO_ERR_NULL (out), RTO_ERR_NO_MEMORY. */
RTO_API rto_status rto_timer_new(rto_timer** out);
/** Releases a timer from rto_timer_new; NULL is ignored. */
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

/* ---- wheel: many connections' deadlines in one hierarchical timing wheel ---- */

/** A timer wheel (rto::TimerWheel): 6 levels of 64 slots, deadlines rounded up
 *  to its tick, O(1) arm and cancel, no allocation; an entry fires at the
 *  first rto_wheel_advance whose now_us reaches its rounded deadline (never
 *  early, less than one tick late). Fixed size (about 25 KB used), private bytes. */
typedef struct rto_wheel {
  union {
    uint64_t align_u64_;
    void* align_ptr_;
    unsigned char bytes_[RTO_WHEEL_BYTES];
  } private_;
} rto_wheel;

/** One deadline in a wheel, kept by the caller (e.g. in its connection struct:
 *  the callback gets the entry's address, from which the caller finds its
 *  connection with offsetof). Fixed size, private bytes. An armed entry must
 *  be cancelled before its memory is freed or reused (or its wheel destroyed
 *  first, which disarms every entry). */
typedef struct rto_wheel_entry {
  union {
    uint64_t align_u64_;
    void* align_ptr_;
    unsigned char bytes_[RTO_WHEEL_ENTRY_BYTES];
  } private_;
} rto_wheel_entry;

/** Called by rto_wheel_advance for each entry that fires (already disarmed: it
 *  may re-arm it, arm or cancel others, but not advance or destroy the wheel). */
typedef void (*rto_wheel_fire_fn)(rto_wheel_entry* entry, void* context);

/** Makes the memory at `wheel` an empty wheel starting at start_us (earlier
 *  deadlines are due at once) with slots tick_us wide (1000: 1 ms).
 *  Errors: RTO_ERR_NULL, RTO_ERR_INVALID_ARGUMENT (tick_us <= 0). */
RTO_API rto_status rto_wheel_init(rto_wheel* wheel, int64_t start_us, int64_t tick_us);
/** Ends a wheel from rto_wheel_init: disarms every entry still armed (their
 *  memory may then be freed). NULL is ignored. */
RTO_API void rto_wheel_destroy(rto_wheel* wheel);
/** As rto_wheel_init, on the heap. Errors: RTO_ERR_NULL (out), RTO_ERR_INVALID_ARGUMENT, RTO_ERR_NO_MEMORY. */
RTO_API rto_status rto_wheel_new(int64_t start_us, int64_t tick_us, rto_wheel** out);
/** Destroys and releases a wheel from rto_wheel_new; NULL is ignored. */
RTO_API void rto_wheel_free(rto_wheel* wheel);
/** Makes the memory at `entry` an unarmed entry. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_wheel_entry_init(rto_wheel_entry* entry);
/** Arms `entry` to fire at deadline_us; an armed one is re-armed (to a later
 *  deadline that only stores it: the per-ACK restart of 5.3 costs a write).
 *  Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_wheel_arm(rto_wheel* wheel, rto_wheel_entry* entry, int64_t deadline_us);
/** Disarms `entry` (no effect when it is not armed in this wheel). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_wheel_cancel(rto_wheel* wheel, rto_wheel_entry* entry);
/** Moves the wheel's time to now_us (an earlier time counts as the latest one
 *  given) and calls on_fire(entry, context) for each entry whose deadline,
 *  rounded up to the tick, is <= now_us. *fired (when not NULL) is set to how
 *  many fired. Errors: RTO_ERR_NULL (wheel, on_fire). */
RTO_API rto_status rto_wheel_advance(rto_wheel* wheel, int64_t now_us, rto_wheel_fire_fn on_fire, void* context,
                                     size_t* fired);
/** When to call rto_wheel_advance next: never later than the time the earliest
 *  armed entry fires (its deadline rounded up to the tick), possibly earlier
 *  (a tick where entries only move inside the wheel; the next call then
 *  returns a later time, always after the wheel's current time);
 *  RTO_TIMER_NEVER when the wheel has nothing to do (no armed entry will
 *  fire). An event loop sleeps until it, then advances. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_wheel_next_deadline_us(const rto_wheel* wheel, int64_t* out_us);
/** The number of armed entries. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_wheel_size(const rto_wheel* wheel, size_t* out);
/** Whether `entry` is armed (in any wheel). Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_wheel_entry_armed(const rto_wheel_entry* entry, bool* out);
/** The deadline `entry` was armed with, as given; RTO_TIMER_NEVER when not armed. Errors: RTO_ERR_NULL. */
RTO_API rto_status rto_wheel_entry_deadline_us(const rto_wheel_entry* entry, int64_t* out_us);

#undef RTO_ENUM_BASE

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RTO_RTO_H */
