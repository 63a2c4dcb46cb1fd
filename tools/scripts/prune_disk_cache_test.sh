#!/usr/bin/env bash
# Runs prune_disk_cache_test.py with Debian's python3 (what ./parity runs the script with).
set -euo pipefail
exec /usr/bin/python3 "$TEST_SRCDIR/parity/tools/scripts/prune_disk_cache_test.py" "$@"
