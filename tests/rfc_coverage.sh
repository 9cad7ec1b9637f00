#!/usr/bin/env bash
# Requirement coverage: prints the table requirement / implemented at / tested
# by for the requirements of tests/rfc_requirements.txt, and exits 1 when a
# "must-test" requirement (RFC 6298 sections 2-5) has no test.
#
#   tests/rfc_coverage.sh              plain table on stdout
#   tests/rfc_coverage.sh --markdown   the same as a Markdown table
#
# Convention: a comment containing "impl: RFC6298-5.5" (several
# tokens allowed after "impl:") marks the line that implements a requirement,
# in rto/, netstack/ and pcap-replay/ sources; a doctest TEST_CASE or SUBCASE
# whose name contains the token (e.g. TEST_CASE("RFC6298-2.4: ...")) checks
# it, in tests/. Tokens found but not listed are reported as a warning.
set -u
cd "$(dirname "$0")/.." || exit 2
markdown=0
case "${1:-}" in
  --markdown) markdown=1 ;;
  "") ;;
  *) echo "usage: tests/rfc_coverage.sh [--markdown]" >&2; exit 2 ;;
esac
list=tests/rfc_requirements.txt
[ -r "$list" ] || { echo "rfc_coverage: cannot read $list" >&2; exit 2; }

# A token: RFC<number>-<section digits and dots>[-<lowercase name>].
tok='RFC[0-9]+-[0-9]+(\.[0-9]+)*(-[a-z]+)?'

# "file:line TOKEN" for every token after "impl:" in the sources.
impl=$(grep -rnE --include='*.cpp' --include='*.hpp' "impl:[[:space:]]*$tok" rto netstack pcap-replay 2>/dev/null |
  while IFS= read -r hit; do
    loc=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; text=${rest#*:}
    after=${text#*impl:}
    for t in $(grep -oE "$tok" <<<"$after"); do echo "$loc:$line $t"; done
  done)
# "file:line TOKEN" for every token in a TEST_CASE or SUBCASE name under tests/.
tests=$(grep -rnE --include='*.cpp' '(TEST_CASE|SUBCASE)\("' tests 2>/dev/null |
  while IFS= read -r hit; do
    loc=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; text=${rest#*:}
    name=$(sed -E 's/.*(TEST_CASE|SUBCASE)\("(([^"\\]|\\.)*)".*/\2/' <<<"$text")
    for t in $(grep -oE "$tok" <<<"$name"); do echo "$loc:$line $t"; done
  done)

# The places carrying token $1 in list $2, comma-separated.
places() { awk -v t="$1" '$2 == t { printf "%s%s", (n++ ? ", " : ""), $1 }' <<<"$2"; }

missing=()
if [ $markdown -eq 1 ]; then
  echo "| requirement | text | implemented at | tested by |"
  echo "| --- | --- | --- | --- |"
else
  printf '%-18s %-10s %-40s %s\n' requirement required "implemented at" "tested by"
fi
known=" "
while read -r token req text; do
  case "$token" in ''|'#'*) continue ;; esac
  known+="$token "
  at=$(places "$token" "$impl"); by=$(places "$token" "$tests")
  if [ $markdown -eq 1 ]; then
    echo "| $token | $text | ${at:-(none)} | ${by:-(none)} |"
  else
    printf '%-18s %-10s %-40s %s\n' "$token" "$req" "${at:-(none)}" "${by:-(none)}"
  fi
  if [ "$req" = must-test ] && [ -z "$by" ]; then missing+=("$token"); fi
done <"$list"

# Tokens used but not listed (a typo, or a requirement to add to the list).
for t in $( { awk '{print $2}' <<<"$impl"; awk '{print $2}' <<<"$tests"; } | sort -u); do
  case "$known" in *" $t "*) ;; *) echo "rfc_coverage: warning: $t is used but not in $list" >&2 ;; esac
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "rfc_coverage: FAIL: no test names ${missing[*]} (RFC 6298 sections 2-5 need one each)" >&2
  exit 1
fi
[ $markdown -eq 1 ] || echo "rfc_coverage: every RFC 6298 section 2-5 requirement has a test"
exit 0
