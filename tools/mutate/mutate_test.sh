#!/usr/bin/env bash
# Runs mutate_test.py with Debian's python3, the one python3-clang is installed for.
set -euo pipefail
exec /usr/bin/python3 "$TEST_SRCDIR/parity/tools/mutate/mutate_test.py" "$@"
