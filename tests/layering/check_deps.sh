#!/usr/bin/env bash
# check_deps.sh DEPS_FILE WHAT FORBIDDEN_ERE: fails when a label in DEPS_FILE (the output of a
# genquery over a target's dependencies) matches FORBIDDEN_ERE, naming each one.
set -euo pipefail
deps_file="$1" what="$2" forbidden="$3"
bad=$(grep -E "$forbidden" "$deps_file" || true)
if [ -n "$bad" ]; then
  echo "layering violation: $what depends on:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "ok: $what: $(wc -l <"$deps_file") dependencies, none matching $forbidden"
