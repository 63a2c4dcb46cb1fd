#!/usr/bin/env bash
# Runs a bundle made by tools/device/make_bundle.py on a machine with a GPU and no Bazel: the
# GPU-linked tests (as `bazel test` would: TEST_SRCDIR, TEST_TMPDIR, the derandomized RC_PARAMS of
# .bazelrc), a campaign with the device oracle, the GPU mutants and the GPU benchmarks.
#
#   bundle/run_bundle.sh [tests] [campaign SECONDS] [mutants SECONDS] [bench] ...
#
# Logs go to $LOGS (default ./bundle-logs); a summary goes to stdout. Exit status: 0 when every
# step passed, 1 otherwise.
set -u
BUNDLE="$(cd "$(dirname "$0")" && pwd)"
LOGS="${LOGS:-$PWD/bundle-logs}"
JOBS="${JOBS:-$(nproc)}"
mkdir -p "$LOGS"

# The device's own CUDA runtime and cuBLAS (they must match its driver), wherever its image keeps
# them; the bundle's lib/ first.
cuda_dirs=""
for name in libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
  found="$(find /usr/local/cuda*/ /usr/local/nvidia /opt /usr/lib/x86_64-linux-gnu \
    -name "$name" 2>/dev/null | head -1)"
  if [ -z "$found" ]; then
    echo "run_bundle: $name not found on this machine" >&2
  else
    cuda_dirs="$cuda_dirs:$(dirname "$found")"
  fi
done
export LD_LIBRARY_PATH="$BUNDLE/lib$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d "$BUNDLE/lib/graphviz" ] && export GVBINDIR="$BUNDLE/lib/graphviz"
echo "run_bundle: LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
nvidia-smi -L 2>&1 | head -4
if ldd "$BUNDLE/tools/parity" | grep "not found"; then
  echo "run_bundle: missing libraries (above)"
  exit 1
fi

status=0

run_one_test() {
  local test="$1" log tmp
  log="$LOGS/tests/${test//\//__}.log"
  tmp="$(mktemp -d)"
  local rc=0
  # As `bazel test` runs it: from the runfiles' workspace folder (tests read data by relative
  # path), with its own TEST_TMPDIR.
  local filter="*"
  # The bundle carries Graphviz's core and dot plugins only: PNG needs its gd/cairo plugin, ~50 MB
  # of X11 and image codecs.
  [ "$test" = tests/reports/draw_command_test ] && filter="-DrawCommand.WritesSvgDotAndPng"
  (cd "$BUNDLE/runfiles/parity" && TEST_SRCDIR="$BUNDLE/runfiles" TEST_TMPDIR="$tmp" \
    TEST_WORKSPACE=parity RC_PARAMS=seed=20261122 timeout 600 "$BUNDLE/$test" \
    --gtest_filter="$filter") >"$log" 2>&1 || rc=$?
  rm -rf "$tmp"
  echo "$rc $test"
}
export -f run_one_test
export BUNDLE LOGS

step_tests() {
  mkdir -p "$LOGS/tests"
  local start=$SECONDS
  xargs -P "$JOBS" -I{} bash -c 'run_one_test {}' <"$BUNDLE/TESTS" | sort -k2 >"$LOGS/tests.txt"
  local failed passed
  failed="$(awk '$1 != 0' "$LOGS/tests.txt" | wc -l)"
  passed="$(awk '$1 == 0' "$LOGS/tests.txt" | wc -l)"
  echo "== tests: $passed binaries passed, $failed failed ($((SECONDS - start)) s)"
  cat "$LOGS"/tests/*.log | grep -E "^\[  (PASSED|FAILED|SKIPPED) \]" | grep -v "listed below" |
    awk '{print $1, $2, $3}' | sort | uniq -c
  cat "$LOGS"/tests/*.log | grep -E "^\[  SKIPPED \] [A-Za-z]" | head -40
  local line
  while read -r line; do
    set -- $line
    [ "$1" = 0 ] && continue
    echo "-- FAILED (exit $1): $2"
    grep -E "Failure|FAILED|Expected|Which is|error|Error" "$LOGS/tests/${2//\//__}.log" | head -30
    tail -5 "$LOGS/tests/${2//\//__}.log"
  done <"$LOGS/tests.txt"
  [ "$failed" = 0 ] || status=1
}

step_campaign() {
  local seconds="$1" start=$SECONDS rc=0
  "$BUNDLE/tools/parity" fuzz --seconds "$seconds" --out "$LOGS/campaign" --fresh \
    >"$LOGS/campaign.log" 2>&1 || rc=$?
  echo "== campaign ($seconds s, default oracles: the device oracle among them): exit $rc ($((SECONDS - start)) s)"
  tail -25 "$LOGS/campaign.log"
  [ "$rc" = 0 ] || status=1
}

step_mutants() {
  local seconds="$1" start=$SECONDS rc=0
  "$BUNDLE/tests/mutants/parity_with_mutants" mutants --family gpu --seconds "$seconds" \
    --explain >"$LOGS/mutants.log" 2>&1 || rc=$?
  echo "== GPU mutants: exit $rc ($((SECONDS - start)) s)"
  tail -30 "$LOGS/mutants.log"
  [ "$rc" = 0 ] || status=1
}

step_bench() {
  local start=$SECONDS rc=0
  if [ ! -x "$BUNDLE/bench/gpu_bench" ]; then
    echo "== bench: no bench/gpu_bench in this bundle"
    return
  fi
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>&1 | tail -1
  PARITY_BENCH_DIR="$BUNDLE/bench" PARITY_BENCH_PYTHON="${PARITY_BENCH_PYTHON:-python3}" \
    "$BUNDLE/bench/gpu_bench" --benchmark_out="$LOGS/gpu_bench.json" \
    --benchmark_out_format=json >"$LOGS/bench.log" 2>&1 || rc=$?
  echo "== bench: exit $rc ($((SECONDS - start)) s)"
  cat "$LOGS/bench.log"
  [ "$rc" = 0 ] || status=1
}

while [ $# -gt 0 ]; do
  case "$1" in
    tests) step_tests; shift ;;
    campaign) step_campaign "$2"; shift 2 ;;
    mutants) step_mutants "$2"; shift 2 ;;
    bench) step_bench; shift ;;
    *) echo "run_bundle: unknown step $1" >&2; exit 2 ;;
  esac
done
exit "$status"
