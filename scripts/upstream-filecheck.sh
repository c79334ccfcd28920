#!/usr/bin/env bash
# Run upstream xDSL's own filecheck suite twice, with xdsl-opt and with `xdsl-opt`
# resolved to mx-opt, and list the tests that pass with the first but not the second
# (mx-opt must be a drop-in xdsl-opt; docs/verify-diagnostics.md, issue 21 item 5).
#
#   scripts/upstream-filecheck.sh [XDSL_CHECKOUT] [LIT_ARGS...]
#
# XDSL_CHECKOUT defaults to a shallow clone of the xdsl tag this project depends on
# (pyproject.toml pins xdsl==0.75.0) in $TMPDIR. Run it inside the project's venv. It
# takes a while (each test starts Python a few times): pass e.g. `--filter verify` or a
# sub-directory of tests/filecheck to run part of it. Not part of CI; CI runs the sample
# test/tools/xdsl-opt-compat.mlir.
set -euo pipefail
version=$(python -c "import importlib.metadata as m; print(m.version('xdsl'))")
checkout=${1:-}
[ $# -gt 0 ] && shift
work=$(mktemp -d)
if [ -z "$checkout" ]; then
  checkout="$work/xdsl"
  git clone --quiet --depth 1 --branch "v$version" https://github.com/xdslproject/xdsl "$checkout"
fi
suite="$checkout/tests/filecheck"
mkdir -p "$work/shim"
printf '#!/bin/sh\nexec mx-opt "$@"\n' > "$work/shim/xdsl-opt"
chmod +x "$work/shim/xdsl-opt"

run() {  # run NAME [PATH prefix]: the passing tests, one per line, in $work/NAME.pass
  local name=$1 prefix=${2:-}
  (cd "$suite" && env PATH="$prefix$PATH" lit -j"$(nproc)" -v "${LIT_ARGS[@]}" . || true) \
    | sed -n 's/^PASS: xDSL :: \(.*\) ([0-9]* of [0-9]*)$/\1/p' | sort > "$work/$name.pass"
  echo "$name: $(wc -l < "$work/$name.pass") tests pass"
}
LIT_ARGS=("$@")
run xdsl-opt
run mx-opt "$work/shim:"
echo "pass with xdsl-opt $version, fail with mx-opt:"
comm -23 "$work/xdsl-opt.pass" "$work/mx-opt.pass" | sed 's/^/  /'
echo "pass with mx-opt, fail with xdsl-opt:"
comm -13 "$work/xdsl-opt.pass" "$work/mx-opt.pass" | sed 's/^/  /'
echo "(results in $work)"
