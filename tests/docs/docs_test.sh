#!/usr/bin/env bash
# Runs docs_test.py with Debian's python3.
set -euo pipefail
exec /usr/bin/python3 "$TEST_SRCDIR/parity/tests/docs/docs_test.py" "$@"
