#!/usr/bin/env bash
# (Re)makes every capture of the lab into tests/captures/lab/ (as root).
#
#   sudo bash tests/capture/lab/run-all.sh            # all scenarios
#   sudo bash tests/capture/lab/run-all.sh tlp-tail-2 syn-linear-0   # some
#
# Each scenario checks the kernel's counters against what it was designed to
# produce, and its kernel labels (labels.py) for completeness, and writes
# nothing when either fails (then it is retried once, as the machine's load
# can delay a rule removal); the exit status is the number of scenarios that
# failed. Needs bpftrace (Debian package bpftrace) besides the tools of
# lib.sh.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ALL=(tlp-tail-1 tlp-tail-2 tlp-tail-3 sack-head-lost rto-max-low thin-linear ts-off
     syn-linear-0 syn-linear-default many-flows capture-dup
     recv-side-loss spurious-rto-eifel spurious-rto-frto rto-min-route zero-window keepalive
     synack-loss user-timeout rto-sack-recovery spurious-rto-eifel-recv spurious-rto-frto-recv
     spurious-rto-eifel-recv-data)
[ $# -gt 0 ] && ALL=("$@")
failed=0
run_one() {
  case $1 in
    tlp-tail-[123]) bash "$HERE/tlp-tail.sh" "${1#tlp-tail-}" ;;
    syn-linear-0|syn-linear-default) bash "$HERE/syn-linear.sh" "${1#syn-linear-}" ;;
    spurious-rto-eifel|spurious-rto-frto) bash "$HERE/spurious-rto.sh" "${1#spurious-rto-}" ;;
    # Captured at the receiver; eifel's into tests/captures/lab-recv/ (its README).
    spurious-rto-frto-recv) bash "$HERE/spurious-rto.sh" frto recv ;;
    # The client's data held (not the receiver's ACKs), captured at the receiver.
    spurious-rto-eifel-recv-data) bash "$HERE/spurious-rto.sh" eifel recv data ;;
    spurious-rto-eifel-recv) OUTDIR=${OUTDIR:-$HERE/../../captures/lab-recv} bash "$HERE/spurious-rto.sh" eifel recv ;;
    *) [ -f "$HERE/$1.sh" ] || { echo "no scenario $1" >&2; return 2; }; bash "$HERE/$1.sh" ;;
  esac
}
for s in "${ALL[@]}"; do
  echo "== $s"
  run_one "$s" 2> >(grep -E 'MISMATCH|PROBLEM|incomplete|lost packets|rror|timeout waiting' >&2) || {
    echo "   $s failed, retrying once"
    run_one "$s" 2> >(grep -E 'MISMATCH|PROBLEM|incomplete|lost packets|rror|timeout waiting' >&2) || { echo "   $s FAILED"; failed=$((failed + 1)); }
  }
done
echo "run-all: ${#ALL[@]} scenario(s), $failed failed"
exit $failed
