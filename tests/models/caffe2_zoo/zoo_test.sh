#!/bin/bash
# Caffe2 model-zoo predict nets under `parity check`: each net listed gets a random-weight init
# net (make_init_net.py: every Conv / FC `--width` channels wide, the zoo's own kernels, strides,
# pads and groups), and both engines with every default oracle must pass it (exit 0).
#
#   zoo_test.sh [NET[:SIZE] ...]   default: the five nets below (densenet121 at 64 x 64)
# A user runs the larger nets the same way from the source tree, e.g.
#   python3 tests/models/caffe2_zoo/make_init_net.py tests/models/caffe2_zoo/resnet50/{predict_net.pbtxt,value_info.json} -o /tmp/init.pbtxt
#   ./parity check tests/models/caffe2_zoo/resnet50/predict_net.pbtxt --init /tmp/init.pbtxt
set -euo pipefail
here="$(dirname "$0")"
parity="${TEST_SRCDIR:-.}/parity/tools/parity"
[ -x "$parity" ] || parity="$here/../../../bazel-bin/tools/parity"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
nets=("$@")
# resnet50 and inception_v2 end in a 7 x 7 pool, so they need the full 224 x 224, and take long
# (resnet50's gradient oracle: ~6 min): README.md here has the command and the figures.
[ ${#nets[@]} -eq 0 ] && nets=(bvlc_alexnet zfnet512 vgg19 inception_v1 densenet121:64)
status=0
for entry in "${nets[@]}"; do
  net="${entry%%:*}"
  size_args=()
  [ "$entry" != "$net" ] && size_args=(--size "${entry#*:}")
  python3 "$here/make_init_net.py" "$here/$net/predict_net.pbtxt" "$here/$net/value_info.json" \
    -o "$tmp/$net.init.pbtxt" "${size_args[@]}"
  start=$SECONDS
  code=0
  "$parity" check "$here/$net/predict_net.pbtxt" --init "$tmp/$net.init.pbtxt" \
    >"$tmp/$net.out" 2>&1 || code=$?
  cat "$tmp/$net.out"
  # Exit 0 alone would also pass a net that one engine cannot run at all (an op it lacks is "not
  # applicable", not a finding): both engines must have run it and agreed.
  missing=""
  for oracle in validity forward shape; do
    grep -qx "\[$oracle\] ok" "$tmp/$net.out" || missing+=" $oracle"
  done
  if [ "$code" -eq 0 ] && [ -z "$missing" ]; then
    echo "zoo_test: $net passed parity check in $((SECONDS - start)) s"
  else
    echo "zoo_test: $net FAILED parity check (exit $code; not ok:${missing:- none}) after $((SECONDS - start)) s"
    status=1
  fi
done
exit $status
