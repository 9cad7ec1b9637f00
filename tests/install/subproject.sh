#!/usr/bin/env bash
# rto built from its sources inside a CMake project (rto/CMakeLists.txt), as
# add_subdirectory (static) and as FetchContent from this repository
# (shared): the install consumers' programs (the README's connection example at
# C++23, a C99 program, a retry client) build with -Werror and run; the
# version is rto.h's; the shared libraries export what librto.so and
# librto_retry.so export and the retry client needs only librto_retry.
# Exit 0 pass, 77 skip (cmake or git missing; with CI=true a failure), 1 fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
root=$(pwd)
SAN=${SAN:-0}
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

missing=()
for tool in cmake git cc c++ readelf nm; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${CI:-}" = true ]; then echo "FAIL: missing ${missing[*]} (CI=true)"; exit 1; fi
  echo "skip: missing ${missing[*]} (make deps installs them)"; exit 77
fi
version=$(sed -n 's/^#define RTO_VERSION_STRING "\([0-9.]*\)".*/\1/p' rto/include/rto/rto.h)
major=${version%%.*}
if [ "$SAN" = 1 ]; then san_flags="-fsanitize=address,undefined -fno-sanitize-recover=all"; else san_flags=""; fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# FetchContent clones a repository: this one's working tree as a commit of
# its own (so uncommitted changes are tested too), or HEAD outside a git tree.
src=$tmp/src
mkdir -p "$src"
cp -r rto tests "$src"/ 2>/dev/null
(cd "$src" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm snapshot) \
  || { bad "a git repository of the sources for FetchContent"; exit 1; }

build() {  # $1 dir, $2 via, $3 shared ON/OFF
  cmake -S tests/install/cmake-subproject -B "$1" -DRTO_SOURCE="$src" -DRTO_VIA="$2" -DBUILD_SHARED_LIBS="$3" \
    -DFETCHCONTENT_QUIET=ON -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror $san_flags" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror $san_flags" -DCMAKE_EXE_LINKER_FLAGS="$san_flags" \
    -DCMAKE_SHARED_LINKER_FLAGS="$san_flags" >"$1.log" 2>&1 && cmake --build "$1" -j2 >>"$1.log" 2>&1
}

# Two of the four pairs (each build takes about 20 s): add_subdirectory
# static (the default), FetchContent shared (the export maps).
for pair in subdirectory:OFF fetchcontent:ON; do
  via=${pair%:*} shared=${pair#*:}
  {
    d=$tmp/$via-$shared
    kind=$([ $shared = ON ] && echo shared || echo static)
    if ! build "$d" $via $shared; then tail -n 30 "$d.log"; bad "$via, $kind: configure and build"; continue; fi
    ok "$via, $kind: configured and built with -Werror"
    grep -qx "version=$version" "$d/found.txt" && ok "$via: rto::rto is version $version (rto.h)" \
      || { cat "$d/found.txt"; bad "$via: version"; }
    want=$([ $shared = ON ] && echo SHARED_LIBRARY || echo STATIC_LIBRARY)
    grep -qx "rto=$want" "$d/found.txt" && grep -qx "retry=$want" "$d/found.txt" && ok "$via: $kind libraries" \
      || { cat "$d/found.txt"; bad "$via: library kind"; }
    "$d/connection" >"$d.out" 2>&1 && ok "$via, $kind: the README example runs ($(tail -n 1 "$d.out"))" \
      || { cat "$d.out"; bad "$via, $kind: README example"; }
    "$d/c_connection" >/dev/null 2>&1 && ok "$via, $kind: the C program runs" || bad "$via, $kind: C program"
    "$d/retry_client" >/dev/null 2>&1 && ok "$via, $kind: the retry client runs" || bad "$via, $kind: retry client"
    if [ $shared = ON ]; then
      so=$(find "$d" -name "librto.so.$version" | head -n 1)
      [ -n "$so" ] && readelf -d "$so" | grep -q "SONAME.*\[librto.so.$major\]" && ok "$via: librto.so.$major soname" \
        || bad "$via: librto.so soname"
      # Exported: rto's namespace and the C API; nothing of libstdc++'s.
      if [ -n "$so" ]; then
        foreign=$(nm -D --defined-only "$so" | awk '{print $3}' | c++filt | grep -v '^rto_' | grep -v 'rto::' | grep -v '^RTO_' || true)
        [ -z "$foreign" ] && ok "$via: librto.so exports only rto's symbols" || { echo "$foreign" | head; bad "$via: exports"; }
      fi
      readelf -d "$d/retry_client" | grep -q "NEEDED.*librto_retry" && ! readelf -d "$d/retry_client" | grep -q 'NEEDED.*\[librto\.so' \
        && ok "$via: the retry client needs librto_retry alone" || bad "$via: retry client's libraries"
    fi
  }
done

[ $fail -eq 0 ] && echo "cmake subproject: all checks passed" || echo "cmake subproject: FAILED"
exit $fail
