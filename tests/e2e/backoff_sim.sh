#!/usr/bin/env bash
# Smoke runs of the three backoff experiments (bench/backoff-sim), small and
# seeded, checking the qualitative claims of bench/README.md, and that they
# write files only where asked (--svg-dir).
# Exit 0 pass, 77 skip (no binary), 1 fail.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/bin/backoff-sim"
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check DESCRIPTION AWK-CONDITION FILE
  if awk -F, "$2 { ok = 1 } END { exit ok ? 0 : 1 }" "$3"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}
val() {  # val FILE KEY-REGEX COLUMN: the column of the first row whose line matches
  awk -F, -v k="$2" -v c="$3" '$0 ~ k { print $c; exit }' "$1"
}

# 0. Files only where asked: without --svg-dir, a run writes nothing into the
#    folder it runs in (the plots go only to a --svg-dir).
mkdir "$tmp/cwd"
abs_bin=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
for e in "brooker --clients 5 --trials 2" "ratelimit --workers 20 --jobs 1 --trials 1" "amplification --requests 10"; do
  # shellcheck disable=SC2086
  (cd "$tmp/cwd" && "$abs_bin" $e --csv >/dev/null && "$abs_bin" $e >/dev/null) || { echo "FAIL: backoff-sim $e exit"; fail=1; }
done
left=$(ls -A "$tmp/cwd")
[ -z "$left" ] && echo "ok: without --svg-dir no run leaves a file in its folder" \
  || { echo "FAIL: backoff-sim wrote into the current folder unasked: $left"; fail=1; }

# 1. Brooker: N = 25 and 50, 20 trials.
"$BIN" brooker --clients 25,50 --trials 20 --csv --svg-dir "$tmp" >"$tmp/b.csv" || { echo "FAIL: brooker exit"; exit 1; }
head -1 "$tmp/b.csv" | grep -qx 'clients,strategy,calls,completion_ms' || { echo "FAIL: brooker CSV header"; fail=1; }
full=$(val "$tmp/b.csv" '^50,full,' 3); expo=$(val "$tmp/b.csv" '^50,exponential,' 3)
full_t=$(val "$tmp/b.csv" '^50,full,' 4); expo_t=$(val "$tmp/b.csv" '^50,exponential,' 4)
none25=$(val "$tmp/b.csv" '^25,none,' 3); none50=$(val "$tmp/b.csv" '^50,none,' 3)
echo "N=50: full $full calls $full_t ms, exponential $expo calls $expo_t ms; none: $none25 (N=25) $none50 (N=50) calls"
awk -v a="$full" -v b="$expo" 'BEGIN { exit !(a < b * 0.75) }' && echo "ok: full jitter < 0.75 x exponential calls at N=50" || { echo "FAIL: full vs exponential calls"; fail=1; }
awk -v a="$full_t" -v b="$expo_t" 'BEGIN { exit !(b > 3 * a) }' && echo "ok: exponential takes > 3 x full jitter's time" || { echo "FAIL: completion times"; fail=1; }
awk -v a="$none25" -v b="$none50" 'BEGIN { exit !(b > 3 * a) }' && echo "ok: no backoff: doubling N more than triples the work (~N^2)" || { echo "FAIL: N^2 growth"; fail=1; }
[ -s "$tmp/brooker-calls.svg" ] || { echo "FAIL: no brooker SVG"; fail=1; }
# Seeded and deterministic: the same seed gives the same numbers, another seed others.
"$BIN" brooker --clients 25,50 --trials 20 --csv >"$tmp/b2.csv"
"$BIN" brooker --clients 25,50 --trials 20 --csv --seed 2 >"$tmp/b3.csv"
cmp -s "$tmp/b.csv" "$tmp/b2.csv" && echo "ok: same seed, same output" || { echo "FAIL: brooker not deterministic"; fail=1; }
cmp -s "$tmp/b.csv" "$tmp/b3.csv" && { echo "FAIL: the seed changes nothing"; fail=1; } || echo "ok: another seed, other numbers"

# 2. Rate limit: 300 workers x 2 jobs against 100 req/s.
"$BIN" ratelimit --workers 300 --jobs 2 --rate 100 --burst 10 --trials 2 --csv --svg-dir "$tmp" >"$tmp/r.csv" || { echo "FAIL: ratelimit exit"; exit 1; }
e_t=$(val "$tmp/r.csv" '^exponential,' 2); f_t=$(val "$tmp/r.csv" '^full,' 2)
e_u=$(val "$tmp/r.csv" '^exponential,' 3); f_u=$(val "$tmp/r.csv" '^full,' 3)
echo "ratelimit: exponential $e_t ms util $e_u; full $f_t ms util $f_u"
awk -v e="$e_t" -v f="$f_t" 'BEGIN { exit !(e > 2 * f) }' && echo "ok: full jitter finishes in under half exponential's time" || { echo "FAIL: ratelimit completion"; fail=1; }
awk -v e="$e_u" -v f="$f_u" 'BEGIN { exit !(f > 2 * e) }' && echo "ok: full jitter uses the API more than twice as well" || { echo "FAIL: ratelimit utilisation"; fail=1; }
[ -s "$tmp/ratelimit-utilisation.svg" ] || { echo "FAIL: no ratelimit SVG"; fail=1; }

# 3. Amplification: 3 layers of 3 attempts -> 27 calls per request at the bottom; 2 layers -> 9; a budget bounds it.
"$BIN" amplification --requests 1000 --csv --svg-dir "$tmp" >"$tmp/a.csv" || { echo "FAIL: amplification exit"; exit 1; }
check "3 layers x 3 attempts: 27 bottom calls per request" '$1 == 3 && $3 == "none" && $4 == 1 && $7 == 27.000' "$tmp/a.csv"
check "2 layers x 3 attempts: 9 bottom calls per request" '$1 == 2 && $3 == "none" && $4 == 1 && $7 == 9.000' "$tmp/a.csv"
check "3 layers with an AWS quota per layer (100 retries each): under 1.5 per request" '$1 == 3 && $3 == "aws-quota" && $4 == 1 && $7 < 1.5' "$tmp/a.csv"
check "3 layers with gRPC throttling per layer: under 1.2 per request" '$1 == 3 && $3 == "grpc-throttle" && $4 == 1 && $7 < 1.2' "$tmp/a.csv"
[ -s "$tmp/amplification.svg" ] || { echo "FAIL: no amplification SVG"; fail=1; }
# The plots are well-formed SVG (rendered when rsvg-convert, from librsvg2-bin, is installed).
if command -v rsvg-convert >/dev/null; then
  for f in "$tmp"/*.svg; do
    rsvg-convert "$f" -o "${f%.svg}.png" 2>/dev/null && [ -s "${f%.svg}.png" ] || { echo "FAIL: $f does not render"; fail=1; }
  done
  echo "ok: $(ls "$tmp"/*.svg | wc -l) SVG plots render"
elif [ "${CI:-}" = true ]; then
  echo "FAIL: rsvg-convert (librsvg2-bin) missing under CI=true: the plots are not rendered"; fail=1
else
  echo "note: rsvg-convert missing: the plots are not rendered (a failure under CI=true)"
fi
exit $fail
