#!/usr/bin/env bash
# The retry library is a room of its own beside the TCP timer:
#   - no header or source of the timer (rto/include/rto/*, rto/src/*.cpp)
#     includes anything from rto/retry/;
#   - the retry library (rto/include/rto/retry/, rto/src/retry/) includes,
#     of the rest of rto/, only the header-only time type rto/clock.hpp;
#   - librto.a holds no object of the retry library, librto_retry.a none of
#     the timer's, and neither library defines a symbol the other defines.
# Exit 0 pass, 77 skip (libraries not built), 1 fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

timer_files=$(ls rto/include/rto/*.hpp rto/include/rto/*.h rto/src/*.cpp)
hits=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]rto/retry/' $timer_files || true)
[ -z "$hits" ] && ok "the timer's $(wc -w <<<"$timer_files") files include nothing from rto/retry/" \
  || { bad "the timer includes the retry library:"; echo "$hits"; }

retry_files=$(ls rto/include/rto/retry/* rto/src/retry/*.cpp)
hits=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]rto/' $retry_files | grep -vE '[<"]rto/(retry/[a-z_]+\.(hpp|h)|clock\.hpp)[>"]' || true)
[ -z "$hits" ] && ok "the retry library's $(wc -w <<<"$retry_files") files include only rto/retry/ and rto/clock.hpp" \
  || { bad "the retry library includes the timer:"; echo "$hits"; }

timer_a=$BUILD/lib/librto.a retry_a=$BUILD/lib/librto_retry.a
if [ ! -r "$timer_a" ] || [ ! -r "$retry_a" ]; then echo "skip: $timer_a or $retry_a not built"; exit 77; fi
retry_objs=$(for f in rto/src/retry/*.cpp; do basename "${f%.cpp}.o"; done | sort)
timer_objs=$(for f in rto/src/*.cpp; do basename "${f%.cpp}.o"; done | sort)
[ "$(ar t "$timer_a" | sort)" = "$timer_objs" ] && ok "librto.a holds the timer's objects exactly" \
  || { bad "librto.a members differ from rto/src/*.cpp:"; diff <(ar t "$timer_a" | sort) <(echo "$timer_objs"); }
[ "$(ar t "$retry_a" | sort)" = "$retry_objs" ] && ok "librto_retry.a holds the retry library's objects exactly" \
  || { bad "librto_retry.a members differ from rto/src/retry/*.cpp:"; diff <(ar t "$retry_a" | sort) <(echo "$retry_objs"); }
# Strong definitions of the project's own names (namespace rto, the C API);
# weak ones (inline functions, template instances) may be in both.
defined() { nm -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBR]$/ && $3 ~ /^(_ZN3rto|_ZNK3rto|_ZTIN3rto|_ZTSN3rto|_ZTVN3rto|rto_)/ { print $3 }' | sort -u; }
both=$(comm -12 <(defined "$timer_a") <(defined "$retry_a"))
[ -z "$both" ] && ok "no symbol of rto is defined by both libraries" || { bad "symbols defined in both:"; echo "$both" | c++filt | head; }
exit $fail
