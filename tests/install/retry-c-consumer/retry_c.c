/* A C client's use of the installed retry library (rto/retry/retry.h): each
 * request keeps its backoff inside its own struct (rto_backoff_init: nothing
 * allocated), draws jitter from its own generator, and honours a server's
 * Retry-After beyond the cap up to its deadline. The numbers are derived by
 * hand in the comments. Exit status 0: all passed. */
#include <rto/retry/retry.h>

#include <stdint.h>
#include <stdio.h>

struct request {
  int id;
  rto_backoff backoff; /* inside the request: RTO_BACKOFF_BYTES, no heap */
  int64_t started_us;
};

/* The caller's generator: returns 2^63 each time, so a draw in [lo, hi] is
 * lo + floor((hi - lo + 1) / 2). */
static uint64_t half_next(void* context) {
  int* calls = (int*)context;
  ++*calls;
  return (uint64_t)1 << 63;
}

static int failures = 0;
static void expect(int ok, const char* what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    ++failures;
  }
}

int main(void) {
  struct request req;
  rto_backoff_policy policy;
  bool retry = false;
  int64_t wait_us = -1;
  int calls = 0;
  rto_random random;
  char message[128];
  rto_give_up why = RTO_GIVE_UP_NONE;

  random.next = half_next;
  random.context = &calls;

  /* Full jitter, 100 ms doubling to 1 s, at most 3 attempts. */
  expect(rto_backoff_policy_full_jitter(100000, 1000000, &policy) == RTO_RETRY_OK, "full_jitter preset");
  policy.max_attempts = 3;
  req.id = 42;
  req.started_us = 0;
  expect(rto_backoff_init(&req.backoff, &policy) == RTO_RETRY_OK, "init in the caller's struct");
  /* U[0, 100 000]: 100 001 values, the middle one is 50 000; then U[0, 200 000]: 100 000. */
  expect(rto_backoff_next_delay(&req.backoff, &random, RTO_BACKOFF_ELAPSED_WAITED, &retry, &wait_us) == RTO_RETRY_OK &&
             retry && wait_us == 50000,
         "first wait 50 ms");
  expect(rto_backoff_next_delay(&req.backoff, &random, RTO_BACKOFF_ELAPSED_WAITED, &retry, &wait_us) == RTO_RETRY_OK &&
             retry && wait_us == 100000,
         "second wait 100 ms");
  /* The third attempt failed: 3 attempts allowed, give up. */
  expect(rto_backoff_next_delay(&req.backoff, &random, RTO_BACKOFF_ELAPSED_WAITED, &retry, &wait_us) == RTO_RETRY_OK &&
             !retry,
         "gives up after 3 attempts");
  expect(rto_backoff_gave_up(&req.backoff, &why) == RTO_RETRY_OK && why == RTO_GIVE_UP_ATTEMPTS, "gave up: attempts");
  expect(calls == 2 && req.id == 42, "two draws, the request intact");

  /* A 503 with Retry-After: 30 under a 5 s cap and a 60 s deadline: wait 30 s. */
  expect(rto_backoff_policy_exponential(1000000, 5000000, &policy) == RTO_RETRY_OK, "exponential preset");
  policy.deadline_us = 60000000;
  expect(rto_backoff_init(&req.backoff, &policy) == RTO_RETRY_OK, "init again");
  expect(rto_backoff_next_delay_instead(&req.backoff, NULL, 0, 30000000, &retry, &wait_us) == RTO_RETRY_OK && retry &&
             wait_us == 30000000,
         "Retry-After 30 s honoured beyond the 5 s cap");
  /* At 40 s another 30 s would end at 70 s, after the deadline: give up. */
  expect(rto_backoff_next_delay_instead(&req.backoff, NULL, 40000000, 30000000, &retry, &wait_us) == RTO_RETRY_OK &&
             !retry,
         "a wait past the deadline gives up");
  expect(rto_backoff_gave_up(&req.backoff, &why) == RTO_RETRY_OK && why == RTO_GIVE_UP_DEADLINE, "gave up: deadline");

  /* Errors come back as statuses, with the field named. */
  policy.cap_us = 10;
  expect(rto_backoff_policy_validate(&policy, message, sizeof message) == RTO_RETRY_ERR_INVALID_POLICY,
         "a cap below base is refused");
  printf("validate: %s\n", message);
  expect(rto_backoff_next_delay(NULL, NULL, 0, &retry, &wait_us) == RTO_RETRY_ERR_NULL, "NULL state");

  if (failures != 0) return 1;
  printf("retry C API: jitter 50 ms, 100 ms, gave up after 3; Retry-After 30 s honoured past a 5 s cap\n");
  return 0;
}
