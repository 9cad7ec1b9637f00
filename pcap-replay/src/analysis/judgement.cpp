#include <replay/analysis/judgement.hpp>

namespace replay {

std::string_view to_string(ArmCause c) {
  switch (c) {
    case ArmCause::send: return "send";
    case ArmCause::ack: return "ack";
    case ArmCause::sack: return "sack";
    case ArmCause::timeout: return "timeout";
    case ArmCause::probe: return "tlp";
    case ArmCause::head_retransmit: return "retransmit";
    case ArmCause::head_send: return "oldest-send";
    case ArmCause::syn_send: return "syn-send";
    case ArmCause::syn_reply: return "syn-reply";
  }
  return "send";
}

std::string_view to_string(Reading r) {
  switch (r) {
    case Reading::as_expiry: return "as-expiry";
    case Reading::as_probe: return "as-probe";
    case Reading::proportional_lateness: return "proportional-lateness";
    case Reading::additive_lateness: return "additive-lateness";
    case Reading::ack_unheard: return "ack-unheard";
    case Reading::ack_heard: return "ack-heard";
    case Reading::earlier_on_time: return "earlier-on-time";
    case Reading::earlier_delayed: return "earlier-delayed";
    case Reading::repeat_timer: return "repeat-timer";
    case Reading::repeat_other: return "repeat-other";
    case Reading::probe_deadline_kept: return "probe-deadline-kept";
  }
  return "as-expiry";
}

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::broken: return "broken";
    case Outcome::cannot_tell: return "cannot-tell";
    case Outcome::note: return "note";
  }
  return "note";
}

std::string_view to_string(Basis b) {
  switch (b) {
    case Basis::none: return "none";
    case Basis::profile_rto: return "profile-rto";
    case Basis::floorless_rto: return "floorless-rto";
    case Basis::initial_rto: return "initial-rto";
    case Basis::karn_backoff: return "karn-backoff";
    case Basis::fallback_57: return "fallback-5.7";
    case Basis::doubling: return "doubling";
    case Basis::cap: return "cap";
  }
  return "none";
}

std::string_view to_string(Topic t) {
  switch (t) {
    case Topic::none: return "none";
    case Topic::late_expiry: return "late";
    case Topic::setting: return "setting";
    case Topic::clock_step: return "clock-step";
    case Topic::backoff_unknown: return "backoff-unknown";
    case Topic::flushed_burst: return "flushed-burst";
    case Topic::syn_acked_unseen: return "syn-acked-unseen";
    case Topic::ack_unheard: return "ack-unheard";
    case Topic::unverifiable_57: return "5.7-unverifiable";
    case Topic::readings_differ: return "readings-differ";
    case Topic::wait_straddles: return "wait-straddles";
    case Topic::open_at_end: return "open-at-end";
    case Topic::sample_kept_57: return "5.7-sample-kept";
    case Topic::unseen_original: return "unseen-original";
    case Topic::unseen_or_ack: return "unseen-or-ack";
  }
  return "none";
}

std::string_view to_string(HoldSign h) {
  switch (h) {
    case HoldSign::none: return "none";
    case HoldSign::tsval: return "tsval";
    case HoldSign::late_ack: return "late-ack";
    case HoldSign::repeat: return "repeat";
  }
  return "none";
}

std::string_view to_string(SettingUse::Kind k) {
  switch (k) {
    case SettingUse::Kind::none: return "none";
    case SettingUse::Kind::max_rto: return "max-rto";
    case SettingUse::Kind::thin_linear: return "thin-linear";
    case SettingUse::Kind::syn_linear: return "syn-linear";
    case SettingUse::Kind::initial_rto: return "initial-rto";
    case SettingUse::Kind::min_rto: return "min-rto";
    case SettingUse::Kind::additive_lateness: return "additive-lateness";
  }
  return "none";
}

Level level_of(RuleId r, Outcome o) { return o == Outcome::broken ? rule(r).level : Level::info; }

}  // namespace replay
