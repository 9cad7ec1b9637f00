#!/usr/bin/env bash
# Every code block of README.md and rto/README.md marked
#   <!-- verbatim: PATH -->
# (the marker on the line before the block's opening fence) is the file PATH,
# byte for byte; those files are compiled and run by the tests, so the
# READMEs show code that works. Exit 0 pass, 1 fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
checked=0
for readme in README.md rto/README.md; do
  while IFS= read -r path; do
    checked=$((checked + 1))
    awk -v m="<!-- verbatim: $path -->" '
      $0 == m { found = 1; next }
      found == 1 && /^```/ { if (inside) exit; inside = 1; next }
      inside { print }' "$readme" >"$tmp/block"
    if [ ! -r "$path" ]; then echo "FAIL: $readme shows $path, which does not exist"; fail=1
    elif [ -s "$tmp/block" ] && cmp -s "$tmp/block" "$path"; then echo "ok: $readme shows $path verbatim"
    else echo "FAIL: $readme's block differs from $path:"; diff "$tmp/block" "$path" | head; fail=1
    fi
  done < <(sed -n 's/^<!-- verbatim: \(.*\) -->$/\1/p' "$readme")
done
[ "$checked" -gt 0 ] || { echo "FAIL: no verbatim block found"; fail=1; }

# The report README.md shows under "$ make run" is the one make run prints.
BIN=${BUILD:-build}/bin/pcap-replay
if [ -x "$BIN" ]; then
  awk '$0 == "$ make run" { inside = 1; next }
       inside && /^pcap-replay exit status:/ { exit }
       inside { print }' README.md >"$tmp/run-readme"
  "$BIN" check --profile rfc6298 tests/captures/linux-blackhole.pcap >"$tmp/run-now" 2>&1
  if [ -s "$tmp/run-readme" ] && cmp -s "$tmp/run-readme" "$tmp/run-now"; then
    echo "ok: README.md shows make run's report as it is"
  else
    echo "FAIL: README.md's make run report differs from what make run prints:"; diff "$tmp/run-readme" "$tmp/run-now" | head; fail=1
  fi
else
  echo "skip: make run's report (no $BIN)"
fi
exit $fail
