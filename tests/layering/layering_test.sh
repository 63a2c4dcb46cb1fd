#!/usr/bin/env bash
# The layering that visibility cannot express (architecture §1), checked on the real build graph:
# reference/ depends on core/proto and nothing else of core, and on no numeric library; core/
# depends on nothing of the workbench or the reference. The checker is first shown a violation,
# so this test can fail.
set -euo pipefail
here="$TEST_SRCDIR/parity/tests/layering"
check="$here/check_deps.sh"

readonly REFERENCE_FORBIDDEN='^//(core:|core/(ops|grad)|oracles|fuzz|onnx|tools|reports|gpu)|^//third_party:(eigen|openblas)|^@eigen'
readonly CORE_FORBIDDEN='^//(oracles|fuzz|onnx|tools|reports|reference)([:/]|$)|^@onnx_proto'

# The checker itself: a planted violation must fail.
planted="$TEST_TMPDIR/planted_deps"
printf '//reference:reference\n//core/proto:proto\n//core:runtime\n' >"$planted"
if "$check" "$planted" "planted reference" "$REFERENCE_FORBIDDEN" 2>/dev/null; then
  echo "the checker missed a planted violation" >&2
  exit 1
fi

"$check" "$here/reference_deps" "//reference" "$REFERENCE_FORBIDDEN"
"$check" "$here/core_deps" "//core:engine" "$CORE_FORBIDDEN"
