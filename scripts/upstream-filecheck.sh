#!/usr/bin/env bash
# Run upstream xDSL's own filecheck suite (tests/filecheck of xdslproject/xdsl, at the
# xdsl version installed, which pyproject.toml pins) twice: with xdsl-opt, and with
# `xdsl-opt` resolved to mx-opt (a shim of that name first on PATH). Prints the counts
# and the tests whose results differ; exits 1 when a test that passes with xdsl-opt
# fails with mx-opt (version.mlir aside: mx-opt names itself). mx-opt must be a drop-in
# xdsl-opt (docs/verify-diagnostics.md, issue 21 item 5).
#
#   scripts/upstream-filecheck.sh [-d SUITE_DIR] [LIT_ARGS... | TEST_PATHS...]
#
# The suite comes from xdsl's source distribution on PyPI (its sdist holds tests/),
# fetched once with `pip download` into $MXDSL_UPSTREAM_CACHE (default
# ~/.cache/mxdsl/xdsl-VERSION); -d names an unpacked xdsl source tree instead. Run it in
# the project's venv. A whole run takes about an hour on 2 busy cores (every test starts
# Python a few times): lit runs $JOBS (default 2) workers under `nice`; extra arguments
# go to lit (e.g. `--filter verify`, or paths relative to tests/filecheck). Tests whose
# results differ are run a second time with both tools, so a timeout under load is not
# counted as a difference. Not part of CI; CI runs the sample test/tools/upstream/.
set -euo pipefail
version=$(python -c "import importlib.metadata as m; print(m.version('xdsl'))")
source_dir=
if [ "${1:-}" = "-d" ]; then
  source_dir=$2
  shift 2
fi
if [ -z "$source_dir" ]; then
  cache=${MXDSL_UPSTREAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mxdsl}
  source_dir="$cache/xdsl-$version"
  if [ ! -f "$source_dir/tests/filecheck/lit.cfg" ]; then
    mkdir -p "$cache"
    pip download --quiet --no-deps --no-binary :all: --dest "$cache" "xdsl==$version"
    tar -xzf "$cache/xdsl-$version.tar.gz" -C "$cache"
  fi
fi
suite="$source_dir/tests/filecheck"
[ -f "$suite/lit.cfg" ] || { echo "no lit suite at $suite" >&2; exit 2; }

work=$(mktemp -d)
mkdir -p "$work/shim"
printf '#!/bin/sh\nexec mx-opt "$@"\n' > "$work/shim/xdsl-opt"
chmod +x "$work/shim/xdsl-opt"
jobs=${JOBS:-2}
lit_args=("$@")
[ ${#lit_args[@]} -gt 0 ] || lit_args=(.)
case "${lit_args[-1]}" in -*) lit_args+=(.) ;; esac

results() {  # results JSON OUT: "status name" per test, sorted by name
  python - "$1" > "$2" <<'EOF'
import json, sys
for test in sorted(json.load(open(sys.argv[1]))["tests"], key=lambda t: t["name"]):
    print(test["code"], test["name"].split(" :: ", 1)[1])
EOF
}

run() {  # run NAME PATH_PREFIX LIT_ARGS...: $work/NAME.results
  local name=$1 prefix=$2
  shift 2
  (cd "$suite" && env PATH="$prefix$PATH" nice lit -j"$jobs" -q -o "$work/$name.json" "$@" \
    > "$work/$name.log" 2>&1 || true)
  results "$work/$name.json" "$work/$name.results"
}

echo "upstream xDSL $version filecheck suite: $suite"
python -c "import llvmlite" 2>/dev/null \
  || echo "(llvmlite is not installed: backend/llvm is unsupported; pip install 'xdsl[llvm]==$version')"
started=$SECONDS
run mx-opt "$work/shim:" "${lit_args[@]}"
echo "with mx-opt as xdsl-opt: $(( SECONDS - started )) s"
started=$SECONDS
run xdsl-opt "" "${lit_args[@]}"
echo "with xdsl-opt: $(( SECONDS - started )) s"

# a second run of the tests whose results differ, with both tools
python - "$work" > "$work/differ" <<'EOF'
import pathlib, sys
work = pathlib.Path(sys.argv[1])
x, m = ({n: c for c, n in map(str.split, (work / f).read_text().splitlines())}
        for f in ("xdsl-opt.results", "mx-opt.results"))
print("\n".join(n for n in x if m.get(n) != x[n]))
EOF
if [ -s "$work/differ" ]; then
  mapfile -t again < "$work/differ"
  run xdsl-opt.again "" "${again[@]}"
  run mx-opt.again "$work/shim:" "${again[@]}"
  for name in xdsl-opt mx-opt; do  # the second run's results replace the first's
    awk 'NR == FNR {seen[$2] = $1; next} {print ($2 in seen ? seen[$2] : $1), $2}' \
      "$work/$name.again.results" "$work/$name.results" > "$work/$name.merged"
    mv "$work/$name.merged" "$work/$name.results"
  done
fi

# tests none of whose RUN lines starts xdsl-opt (directly or through the suite's
# XDSL_ROUNDTRIP / XDSL_GENERIC_ROUNDTRIP): they run the same commands in both runs
(cd "$suite" && while read -r _ name; do
  grep -Eq 'RUN:.*(xdsl-opt|XDSL_ROUNDTRIP|XDSL_GENERIC_ROUNDTRIP)' "$name" || echo "$name"
done < "$work/xdsl-opt.results") > "$work/no-xdsl-opt"

(python - "$work" <<'EOF'
import collections, pathlib, sys
work = pathlib.Path(sys.argv[1])
x, m = ({n: c for c, n in map(str.split, (work / f).read_text().splitlines())}
        for f in ("xdsl-opt.results", "mx-opt.results"))
other = set((work / "no-xdsl-opt").read_text().split())
def counts(results):
    return ", ".join(f"{n} {c}" for c, n in sorted(collections.Counter(results.values()).items()))
print(f"{len(x)} tests ({len(other)} of them never start xdsl-opt)")
print(f"with xdsl-opt: {counts(x)}")
print(f"with mx-opt:   {counts(m)}")
passed = {t for t, c in x.items() if c == "PASS"}
print(f"pass with xdsl-opt: {len(passed)} ({len(passed - other)} start xdsl-opt)")
both = {t for t in passed if m.get(t) == "PASS"}
print(f"of these, pass with mx-opt too: {len(both)}")
lost = sorted(passed - both)
gained = sorted(t for t, c in m.items() if c == "PASS" and t not in passed)
print(f"pass with xdsl-opt, not with mx-opt: {len(lost)}")
for t in lost:
    print(f"  {t} ({m.get(t)})")
print(f"pass with mx-opt, not with xdsl-opt: {len(gained)}")
for t in gained:
    print(f"  {t} ({x.get(t)})")
not_passing = sorted(t for t, c in x.items() if c != "PASS")
print(f"not passing with xdsl-opt either: {len(not_passing)}")
for t in not_passing:
    print(f"  {t} ({x[t]}{'' if t in other else ', starts xdsl-opt'})")
sys.exit(1 if [t for t in lost if t != "version.mlir"] else 0)
EOF
) || status=$?
echo "(logs and results in $work)"
exit "${status:-0}"
