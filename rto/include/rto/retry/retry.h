/* rto/retry/retry.h: the C API of the retry library's backoff (librto_retry).
 *
 * A C (C99 and later) and C++ interface to rto::Backoff (capped exponential
 * backoff with Brooker's jitters, an attempt limit, a total deadline and the
 * server's requested wait, HTTP Retry-After or gRPC pushback) and to
 * rto::ConnectionBackoff (gRPC's connection backoff,
 * grpc/doc/connection-backoff.md), for clients written in C or bound from
 * other languages. Link with -lrto_retry (librto_retry.so.0, or
 * librto_retry.a plus the C++ runtime: pkg-config --static rto-retry). It
 * needs nothing of the TCP timer's librto.
 *
 * Conventions (as rto/rto.h's):
 *  - Durations and times are int64_t integer MICROSECONDS; a `now_us` is an
 *    absolute time on the caller's own monotonic clock (the library never
 *    reads a clock).
 *  - Every function that can fail returns an rto_retry_status; RTO_RETRY_OK
 *    (0) is success. Results come back through out-parameters, written only
 *    on RTO_RETRY_OK (a validator's message buffer excepted). No C++ exception
 *    crosses this interface.
 *  - rto_backoff and rto_connection_backoff are structs of a fixed size whose
 *    bytes are private: the caller places them (inside its own request or
 *    channel struct, on the stack, anywhere) and makes them ready with *_init.
 *    Nothing is allocated and they hold no resource: their memory may simply
 *    be reused. One thread at a time per state.
 *  - The jitter's randomness is the caller's: an rto_random whose `next`
 *    returns 64 uniformly distributed bits per call. Draws are exact and
 *    unbiased integers (rto/retry/uniform.hpp): a scripted generator gives
 *    waits a test can derive by hand. A policy that draws nothing
 *    (RTO_JITTER_NONE, or RTO_JITTER_PROPORTIONAL with 0 permille) takes NULL.
 *
 * The functions call the C++ classes of rto/retry/backoff.hpp, whose
 * documentation gives each rule in full. */
#ifndef RTO_RETRY_RETRY_H
#define RTO_RETRY_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rto/retry/export.h"

/* Sizes of the states a caller places itself (bytes; each 8-byte aligned).
 * Part of the ABI of librto_retry.so.0: they change only with the major version. */
#define RTO_BACKOFF_BYTES 192
#define RTO_CONNECTION_BACKOFF_BYTES 192

/** rto_backoff_next_delay's elapsed_us when the caller does not measure time:
 *  the deadline is then counted on the sum of the waits returned since the
 *  last reset (attempts taken to last no time: right for a simulator). */
#define RTO_BACKOFF_ELAPSED_WAITED (-1)

#ifdef __cplusplus
extern "C" {
/* C++ sees the enums with int as their fixed underlying type, so that any int
 * a C caller stores in one (C enums are ints) is a valid C++ value. */
#define RTO_RETRY_ENUM_BASE : int
#else
#define RTO_RETRY_ENUM_BASE
#endif

/** What a call returned. RTO_RETRY_OK is 0; every other value is an error. */
typedef enum rto_retry_status RTO_RETRY_ENUM_BASE {
  RTO_RETRY_OK = 0,                   /**< Success; out-parameters were written. */
  RTO_RETRY_ERR_NULL = 1,             /**< A required pointer (state, out-parameter, or the generator a jittered policy draws from) was NULL. */
  RTO_RETRY_ERR_INVALID_ARGUMENT = 2, /**< A time argument was out of range: a negative elapsed_us other than RTO_BACKOFF_ELAPSED_WAITED (a negative server wait is taken as 0, not refused). */
  RTO_RETRY_ERR_INVALID_POLICY = 3,   /**< The rto_backoff_policy failed validation (rto_backoff_policy_validate says which field). */
  RTO_RETRY_ERR_INTERNAL = 4          /**< An unexpected internal failure (a bug: please report it). */
} rto_retry_status;

/** A static, NUL-terminated English description of `status` ("unknown status" for other values). */
RTO_RETRY_API const char* rto_retry_status_string(rto_retry_status status);

/** How a wait is drawn from the ceiling c(n) = min(cap, base * multiplier^n) (rto::Jitter). */
typedef enum rto_jitter RTO_RETRY_ENUM_BASE {
  RTO_JITTER_NONE = 0,         /**< c(n) exactly. */
  RTO_JITTER_FULL = 1,         /**< U[0, c(n)]. */
  RTO_JITTER_EQUAL = 2,        /**< U[floor(c(n)/2), c(n)]. */
  RTO_JITTER_DECORRELATED = 3, /**< min(cap, U[base, previous * multiplier]), previous starting at base. */
  RTO_JITTER_PROPORTIONAL = 4  /**< U[c - j, c + j], j = floor(c * jitter_permille / 1000) (gRPC's +-20 %). */
} rto_jitter;

/** How a wait the server asked for meets the cap (rto::ServerDelay). */
typedef enum rto_server_delay RTO_RETRY_ENUM_BASE {
  RTO_SERVER_DELAY_HONOUR = 0,      /**< Wait what the server asked, beyond the cap, if it ends by the deadline (gRFC A6). */
  RTO_SERVER_DELAY_CLAMP_TO_CAP = 1 /**< Wait min(server's wait, cap). */
} rto_server_delay;

/** Why a backoff stopped giving waits (rto::GiveUp). */
typedef enum rto_give_up RTO_RETRY_ENUM_BASE {
  RTO_GIVE_UP_NONE = 0,     /**< It has not given up. */
  RTO_GIVE_UP_ATTEMPTS = 1, /**< max_attempts attempts have failed. */
  RTO_GIVE_UP_DEADLINE = 2  /**< The next wait would have ended after the deadline. */
} rto_give_up;

/** The caller's random generator: next(context) returns 64 uniformly
 *  distributed bits. */
typedef struct rto_random {
  uint64_t (*next)(void* context);
  void* context;
} rto_random;

/** The parameters of a backoff (rto::BackoffPolicy), durations in
 *  microseconds. Fill one with a preset below, then adjust fields. The
 *  ceiling of the wait after the (n+1)-th failure is c(0) = base,
 *  c(n+1) = min(cap, ceil(c(n) * multiplier_num / multiplier_den)). */
typedef struct rto_backoff_policy {
  int64_t base_us;                /**< c(0), >= 1. */
  uint32_t multiplier_num;        /**< Multiplier num/den per failure: 1 <= den <= num <= 65536 (x2 = 2/1; gRPC's 1.6 = 8/5). */
  uint32_t multiplier_den;
  int64_t cap_us;                 /**< Upper bound of c(n): base <= cap <= 366 days. */
  rto_jitter jitter;              /**< How a wait is drawn from c(n). */
  uint32_t jitter_permille;       /**< RTO_JITTER_PROPORTIONAL: the +- spread in thousandths of c(n), 0..1000. */
  unsigned max_attempts;          /**< Attempts allowed, the first included (5: at most 4 waits). 0 = no limit. */
  int64_t deadline_us;            /**< Total time budget from the first attempt's start; a wait ending after it gives up. 0 = none. */
  int64_t min_connect_timeout_us; /**< gRPC MIN_CONNECT_TIMEOUT (connection backoff only). 0 = none. */
  rto_server_delay server_delay;  /**< How a server's wait meets cap_us. */
} rto_backoff_policy;

/** min(cap, base * 2^n), no jitter. Errors: RTO_RETRY_ERR_NULL. (The presets
 *  write their fields; rto_backoff_init validates them.) */
RTO_RETRY_API rto_retry_status rto_backoff_policy_exponential(int64_t base_us, int64_t cap_us, rto_backoff_policy* out);
/** U[0, min(cap, base * 2^n)] (Brooker's full jitter). Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_policy_full_jitter(int64_t base_us, int64_t cap_us, rto_backoff_policy* out);
/** c/2 + U(0, c/2), c = min(cap, base * 2^n) (equal jitter). Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_policy_equal_jitter(int64_t base_us, int64_t cap_us, rto_backoff_policy* out);
/** min(cap, U[base, 3 * previous wait]) (decorrelated jitter). Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_policy_decorrelated_jitter(int64_t base_us, int64_t cap_us,
                                                                     rto_backoff_policy* out);
/** gRPC connection backoff: 1 s, x1.6, 120 s, +-20 %, MIN_CONNECT_TIMEOUT 20 s. Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_policy_grpc_connection(rto_backoff_policy* out);
/** A gRPC retry policy (gRFC A6 retryPolicy): full jitter from initial_backoff
 *  x num/den up to max_backoff, max_attempts (more than 5 is taken as 5, as
 *  A6 limits it; 0 is no limit), pushback honoured. Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_policy_grpc_retry(int64_t initial_backoff_us, int64_t max_backoff_us,
                                                            uint32_t multiplier_num, uint32_t multiplier_den,
                                                            unsigned max_attempts, rto_backoff_policy* out);
/** Checks `policy` as rto::BackoffPolicy::validate() does. On
 *  RTO_RETRY_ERR_INVALID_POLICY, when `message` is not NULL, writes a
 *  NUL-terminated explanation naming the field (truncated to message_size - 1
 *  bytes), e.g. "rto::BackoffPolicy.cap: 500000 us is below base (1000000 us)".
 *  Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_policy_validate(const rto_backoff_policy* policy, char* message,
                                                          size_t message_size);
/** The ceiling c(n) of a valid policy. Errors: RTO_RETRY_ERR_NULL, RTO_RETRY_ERR_INVALID_POLICY. */
RTO_RETRY_API rto_retry_status rto_backoff_policy_ceiling_us(const rto_backoff_policy* policy, unsigned n,
                                                            int64_t* out_us);

/* ---- backoff: the waits of one operation (rto::Backoff) ---- */

/** The backoff state of one operation. Fixed size, private bytes. */
typedef struct rto_backoff {
  union {
    uint64_t align_u64_;
    void* align_ptr_;
    unsigned char bytes_[RTO_BACKOFF_BYTES];
  } private_;
} rto_backoff;

/** Makes the memory at `backoff` a backoff with a copy of `policy`, with no
 *  failure counted. Errors: RTO_RETRY_ERR_NULL, RTO_RETRY_ERR_INVALID_POLICY
 *  (the memory is then not a backoff). */
RTO_RETRY_API rto_retry_status rto_backoff_init(rto_backoff* backoff, const rto_backoff_policy* policy);
/** An attempt failed: *retry is true and *wait_us the wait before the next
 *  attempt, or *retry is false (and *wait_us 0): give up, max_attempts having
 *  failed or the wait ending after the deadline (elapsed_us + wait >
 *  deadline; elapsed_us is the time since the first attempt started, >= 0, or
 *  RTO_BACKOFF_ELAPSED_WAITED). Once given up, it stays so until
 *  rto_backoff_reset. `random` may be NULL when the policy draws nothing.
 *  Errors: RTO_RETRY_ERR_NULL, RTO_RETRY_ERR_INVALID_ARGUMENT (the state is then unchanged). */
RTO_RETRY_API rto_retry_status rto_backoff_next_delay(rto_backoff* backoff, const rto_random* random,
                                                     int64_t elapsed_us, bool* retry, int64_t* wait_us);
/** An attempt failed and the server asked for server_wait_us (HTTP
 *  Retry-After of a 503 or 429, gRPC pushback; negative counts as 0): the
 *  failure is counted and the jitter drawn as by rto_backoff_next_delay, but
 *  the wait is the server's, beyond the cap under RTO_SERVER_DELAY_HONOUR,
 *  min(server's, cap) under RTO_SERVER_DELAY_CLAMP_TO_CAP; the attempt limit
 *  and the deadline apply as there. Errors: as rto_backoff_next_delay. */
RTO_RETRY_API rto_retry_status rto_backoff_next_delay_instead(rto_backoff* backoff, const rto_random* random,
                                                             int64_t elapsed_us, int64_t server_wait_us,
                                                             bool* retry, int64_t* wait_us);
/** The next wait is drawn from c(0) = base again; the failures counted and
 *  the time waited stay (gRFC A6 after a retry the server's pushback timed).
 *  Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_restart_ceiling(rto_backoff* backoff);
/** The operation succeeded: no failure counted, nothing waited, not given up. Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_reset(rto_backoff* backoff);
/** Failures counted since the last reset: the n of the next wait's ceiling. Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_attempt(const rto_backoff* backoff, unsigned* out);
/** The sum of the waits returned since the last reset. Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_waited_us(const rto_backoff* backoff, int64_t* out_us);
/** The ceiling the next wait is drawn from. Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_current_ceiling_us(const rto_backoff* backoff, int64_t* out_us);
/** Why it gave up, or RTO_GIVE_UP_NONE. Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_backoff_gave_up(const rto_backoff* backoff, rto_give_up* out);

/* ---- connection backoff: gRPC's schedule of connection attempts (rto::ConnectionBackoff) ---- */

/** gRPC connection backoff on the caller's clock. Fixed size, private bytes. */
typedef struct rto_connection_backoff {
  union {
    uint64_t align_u64_;
    void* align_ptr_;
    unsigned char bytes_[RTO_CONNECTION_BACKOFF_BYTES];
  } private_;
} rto_connection_backoff;

/** Makes the memory at `backoff` a connection backoff with `policy` (NULL:
 *  gRPC's, rto_backoff_policy_grpc_connection). Errors: RTO_RETRY_ERR_NULL,
 *  RTO_RETRY_ERR_INVALID_POLICY. */
RTO_RETRY_API rto_retry_status rto_connection_backoff_init(rto_connection_backoff* backoff,
                                                          const rto_backoff_policy* policy);
/** An attempt starts at now_us: *deadline_us is the time by which it must
 *  complete, max(backoff deadline, now + MIN_CONNECT_TIMEOUT). Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_connection_backoff_attempt_deadline(rto_connection_backoff* backoff, int64_t now_us,
                                                                      int64_t* deadline_us);
/** The attempt failed at now_us: *retry true and *next_start_us when the next
 *  attempt starts (max(now, backoff deadline)); or *retry false (and
 *  *next_start_us 0): max_attempts have failed or that start would be after
 *  the deadline. `random` may be NULL when the policy's spread is 0.
 *  Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_connection_backoff_on_failure(rto_connection_backoff* backoff, int64_t now_us,
                                                                const rto_random* random, bool* retry,
                                                                int64_t* next_start_us);
/** The connection was accepted: the next attempt starts a fresh schedule. Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_connection_backoff_reset(rto_connection_backoff* backoff);
/** The current backoff (base, then x multiplier per failure, capped). Errors: RTO_RETRY_ERR_NULL. */
RTO_RETRY_API rto_retry_status rto_connection_backoff_current_us(const rto_connection_backoff* backoff,
                                                                int64_t* out_us);

#undef RTO_RETRY_ENUM_BASE

#ifdef __cplusplus
}
#endif

#endif /* RTO_RETRY_RETRY_H */
