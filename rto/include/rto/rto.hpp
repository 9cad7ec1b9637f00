#pragma once
// Umbrella header of the rto module: RFC 6298 retransmission timer for
// userspace TCP stacks. The retry library for clients of remote services is
// a library of its own: #include <rto/retry/retry.hpp>, link librto_retry.

#if __cplusplus < 202002L
#error "rto's C++ headers need C++20 or later (-std=c++20); rto.pc leaves the level to you. From C, include <rto/rto.h>."
#endif

#include "rto/any_estimator.hpp"         // rto::AnyEstimator (either, by Config::variant), rto::RttEstimator
#include "rto/clamped_rto.hpp"           // rto::Rto (an RTO between its floor and cap)
#include "rto/clock.hpp"                 // rto::Instant, rto::Clock
#include "rto/config.hpp"                // rto::Config, rto::ConfigError
#include "rto/estimator.hpp"             // rto::Estimator (RFC 6298 section 2)
#include "rto/linux_estimator.hpp"       // rto::LinuxEstimator (tcp_rtt_estimator)
#include "rto/retransmission_timer.hpp"  // rto::RetransmissionTimer (5.1-5.7, backoff, R2)
#include "rto/rtt_sampler.hpp"           // rto::RttSampler (section 3 Karn, RFC 7323)
#include "rto/seq.hpp"                   // modulo-2^32 sequence/timestamp arithmetic
#include "rto/timer_wheel.hpp"           // rto::TimerWheel, rto::TimerEntry
