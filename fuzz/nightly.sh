#!/bin/bash
# The nightly campaign as a Bazel test (//fuzz:nightly): each shard runs its slice of the seed
# space (parity fuzz reads TEST_TOTAL_SHARDS / TEST_SHARD_INDEX), for PARITY_FUZZ_SECONDS seconds
# (--test_env; default 60), and keeps its corpus, summary.json and junit.xml in Bazel's undeclared
# test outputs. The test fails when the shard finds something.
#
#   bazel test //fuzz:nightly --test_env=PARITY_FUZZ_SECONDS=3600 --test_env=PARITY_FUZZ_SEED=$(date +%Y%m%d)
set -euo pipefail
exec "${TEST_SRCDIR}/parity/tools/parity" fuzz --seed "${PARITY_FUZZ_SEED:-1}"
