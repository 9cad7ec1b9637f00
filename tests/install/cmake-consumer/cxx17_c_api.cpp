// C++17 code using rto's C API (rto/rto.h) through rto::rto_c.
#include <rto/rto.h>

int main() {
  rto_estimator est;
  int64_t rto_us = 0;
  if (rto_estimator_init(&est, nullptr) != RTO_OK) return 1;
  if (rto_estimator_rto_us(&est, &rto_us) != RTO_OK) return 1;
  return rto_us == 1000000 ? 0 : 1;  // RFC 6298 2.1: 1 s before any sample
}
