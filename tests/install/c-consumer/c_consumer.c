/* A C program against the installed rto C API (rto/rto.h, librto.so):
 * RFC 6298's numbers through the opaque handles, and every error path. */

#include <rto/rto.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

int main(void) {
  rto_estimator* est = NULL;
  rto_sampler* sampler = NULL;
  rto_timer* timer = NULL;
  int64_t v = 0, r = 0;
  unsigned backoff = 99;
  uint32_t tsval = 0;
  bool b = false, has = true;
  rto_config cfg;
  char msg[160];

  check(rto_estimator_new(NULL, &est) == RTO_OK && est != NULL, "estimator with RFC 6298 defaults");
  check(rto_sampler_new(1000, 0, &sampler) == RTO_OK, "sampler, 1 ms TSval tick");
  check(rto_timer_new(&timer) == RTO_OK, "timer");
  check(rto_estimator_rto_us(est, &v) == RTO_OK && v == 1000000, "2.1 initial RTO 1 s = 1000000 us");
  check(rto_estimator_srtt_us(est, &v) == RTO_ERR_NO_SAMPLE, "no SRTT before the first sample");

  /* 5.1: a segment [1000, 1100) at t = 0 starts the timer: deadline 0 + 1 s. */
  check(rto_sampler_on_send(sampler, 1000, 100, 0) == RTO_OK, "send [1000, 1100) at 0");
  check(rto_timer_on_data_sent(timer, 0, 1000000) == RTO_OK, "5.1 start the timer");
  check(rto_timer_deadline_us(timer, &v) == RTO_OK && v == 1000000, "5.1 deadline 1 s");
  check(rto_timer_expired(timer, 999999, &b) == RTO_OK && !b, "not expired 1 us early");

  /* The ACK at 100 ms: R = 100 ms. 2.2: SRTT = R = 100 ms, RTTVAR = R/2 = 50 ms,
   * RTO = SRTT + max(G, 4 * RTTVAR) = 100 + max(1, 200) = 300 ms -> 1 s (2.4). */
  check(rto_sampler_on_ack(sampler, 1100, 100000, &has, &r) == RTO_OK && has && r == 100000,
        "3 the ACK of the timed segment gives R = 100 ms");
  check(rto_estimator_on_rtt_sample(est, r) == RTO_OK, "2.2 first sample accepted");
  check(rto_estimator_srtt_us(est, &v) == RTO_OK && v == 100000, "2.2 SRTT 100 ms");
  check(rto_estimator_rttvar_us(est, &v) == RTO_OK && v == 50000, "2.2 RTTVAR 50 ms");
  check(rto_estimator_rto_us(est, &v) == RTO_OK && v == 1000000, "2.4 RTO 300 ms floored to 1 s");
  check(rto_timer_on_all_acked(timer) == RTO_OK, "5.2 all acked");
  check(rto_timer_running(timer, &b) == RTO_OK && !b, "5.2 the timer stopped");
  check(rto_timer_deadline_us(timer, &v) == RTO_OK && v == RTO_TIMER_NEVER, "stopped: RTO_TIMER_NEVER");

  /* Next segment at 200 ms, lost: deadline 1.2 s; expiry doubles to 2 s (5.5),
   * restarts at 1.2 + 2 = 3.2 s (5.6). */
  check(rto_sampler_on_send(sampler, 1100, 100, 200000) == RTO_OK, "send [1100, 1200) at 200 ms");
  check(rto_timer_on_data_sent(timer, 200000, 1000000) == RTO_OK, "5.1 start");
  check(rto_timer_expired(timer, 1200000, &b) == RTO_OK && b, "expired at 1.2 s");
  check(rto_sampler_on_timeout(sampler) == RTO_OK, "Karn: timing cancelled on expiry");
  check(rto_timer_on_expiry(timer, 1200000, est) == RTO_OK, "5.4-5.6 expiry");
  check(rto_estimator_rto_us(est, &v) == RTO_OK && v == 2000000, "5.5 RTO 2 s");
  check(rto_estimator_backoff(est, &backoff) == RTO_OK && backoff == 1, "5.5 backoff 1");
  check(rto_timer_deadline_us(timer, &v) == RTO_OK && v == 3200000, "5.6 deadline 3.2 s");
  check(rto_sampler_on_send(sampler, 1100, 100, 1200000) == RTO_OK, "retransmit [1100, 1200)");
  check(rto_sampler_on_ack(sampler, 1200, 1300000, &has, &r) == RTO_OK && !has,
        "3 (Karn) the ACK of a retransmission gives no sample");
  check(rto_sampler_tsval(sampler, 1234567, &tsval) == RTO_OK && tsval == 1234,
        "RFC 7323 TSval = floor(1234567 us / 1 ms) = 1234");

  /* The Linux variant: first R = 100 ms gives SRTT 100 ms, mdev = 2R = 200 ms,
   * rttvar = max(200, rto_min 200) = 200 ms, RTO = 300 ms (a multiple of 4 ms);
   * tcpi_rttvar = mdev / 4 = 50 ms. */
  {
    rto_estimator* lin = NULL;
    check(rto_config_linux(&cfg) == RTO_OK && cfg.variant == RTO_VARIANT_LINUX &&
              cfg.min_rto_us == 200000 && cfg.tick_us == 4000,
          "Linux config: rto_min 200 ms, 4 ms tick");
    check(rto_estimator_new(&cfg, &lin) == RTO_OK, "Linux estimator");
    check(rto_estimator_on_rtt_sample(lin, 100000) == RTO_OK, "Linux first sample");
    check(rto_estimator_rto_us(lin, &v) == RTO_OK && v == 300000, "Linux RTO 100 + 200 = 300 ms");
    check(rto_estimator_rttvar_us(lin, &v) == RTO_OK && v == 50000, "Linux tcpi_rttvar 50 ms");
    rto_estimator_free(lin);
  }

  /* Errors come back as codes. */
  check(rto_estimator_on_rtt_sample(est, -1) == RTO_ERR_SAMPLE_REFUSED, "a negative sample is refused");
  check(rto_estimator_on_rtt_sample(est, 3600000001LL) == RTO_ERR_SAMPLE_REFUSED,
        "a sample of 1 h + 1 us is refused");
  check(rto_estimator_rto_us(est, &v) == RTO_OK && v == 2000000, "a refused sample changes nothing");
  check(rto_config_rfc6298(&cfg) == RTO_OK && cfg.max_rto_us == 60000000, "RFC config: cap 60 s");
  cfg.max_rto_us = 30000000;
  msg[0] = 'x';
  check(rto_config_validate(&cfg, msg, sizeof msg) == RTO_ERR_INVALID_CONFIG &&
            strstr(msg, "max_rto") != NULL,
        "2.5 a 30 s cap is invalid, and the message names max_rto");
  printf("  message: %s\n", msg);
  check(rto_config_validate(&cfg, msg, 8) == RTO_ERR_INVALID_CONFIG && strlen(msg) == 7,
        "the message is truncated to the buffer");
  {
    rto_estimator* bad = NULL;
    check(rto_estimator_new(&cfg, &bad) == RTO_ERR_INVALID_CONFIG && bad == NULL,
          "estimator_new refuses it and writes no handle");
  }
  cfg.max_rto_us = 60000000;
  check(rto_config_validate(&cfg, NULL, 0) == RTO_OK, "a 60 s cap is valid");
  check(rto_estimator_rto_us(NULL, &v) == RTO_ERR_NULL, "NULL handle");
  check(rto_estimator_rto_us(est, NULL) == RTO_ERR_NULL, "NULL out-parameter");
  check(rto_timer_on_data_sent(timer, 0, -1) == RTO_ERR_INVALID_ARGUMENT, "a negative RTO");
  check(rto_sampler_new(0, 0, &sampler) == RTO_ERR_INVALID_ARGUMENT, "a zero TSval tick");
  check(strcmp(rto_status_string(RTO_OK), "success") == 0, "status string");

  rto_timer_free(timer);
  rto_sampler_free(sampler);
  rto_estimator_free(est);
  rto_estimator_free(NULL);
  printf("%s\n", failures == 0 ? "c consumer: all checks passed" : "c consumer: FAILED");
  return failures == 0 ? 0 : 1;
}
