#!/usr/bin/env python3
"""Classifies what a parity binary does with each line of the bad-inputs catalogue.

    tests/bad_inputs/outcomes.py BINARY [--since-line N] [--names-from OLD_CATALOGUE] [-v]

For measuring, not for CI (bad_inputs_test is the test): it runs every catalogue line as
bad_inputs_test does (FILES/ and TMP/ resolved, stdin closed), but against any binary, e.g. one
built from an older commit, and sorts each outcome into the classes hardening issues count:

  handled     the expected exit code and the needle in the output
  crash       killed by a signal (exit >= 128 or negative) or a crash marker in the output
  exit3       exit 3 (parity's own bug) where the catalogue expects a user error
  silent      exit 0 where the catalogue expects an error
  destroyed   a file the command was given as input changed or vanished (FILES/ is a private copy)
  unclear     the expected exit code, but the output lacks the needle
  other       any other exit code

--names-from keeps only the lines whose names are not in OLD_CATALOGUE (the lines added since).
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CRASH_MARKERS = ["terminate called", "AddressSanitizer", "runtime error:", "Aborted",
                 "internal error"]


def read_catalogue(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split(" | ")
            if len(parts) != 5:
                continue
            name, halves, code, needle, command = parts
            entries.append((name.strip(), halves.strip(), int(code), needle, command))
    return entries


def digest_tree(root):
    digests = {}
    for base, _, files in os.walk(root):
        for name in files:
            path = os.path.join(base, name)
            if not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                digests[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return digests


def classify(binary, entry, scratch):
    name, _, code, needle, command = entry
    files = os.path.join(scratch, "files")
    tmp = os.path.join(scratch, "tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(os.path.join(HERE, "files"), files, symlinks=True)
    os.makedirs(os.path.join(tmp, "adir"))
    os.mkfifo(os.path.join(tmp, "fifo"))
    open(os.path.join(tmp, "empty.pbtxt"), "w").close()

    def resolve(text):
        return text.replace("FILES/", files + "/").replace("TMP/", tmp + "/")

    before = digest_tree(files)
    try:
        run = subprocess.run(binary + " " + resolve(command) + " < /dev/null", shell=True,
                             capture_output=True, timeout=120, cwd=scratch)
        rc, out = run.returncode, (run.stdout + run.stderr).decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "crash", "timeout"
    after = digest_tree(files)
    if rc < 0 or rc >= 128:
        return "crash", "exit %d" % rc
    if code != 0 and rc == 3:
        return "exit3", out.strip().splitlines()[-1:] if out.strip() else ""
    if any(m in out for m in CRASH_MARKERS):
        return "crash", "exit %d with a crash marker" % rc
    if code != 0 and rc == 0:
        return "silent", ""
    if any(before.get(k) != after.get(k) for k in before):
        return "destroyed", ""
    if rc == code and resolve(needle) in out:
        return "handled", ""
    if rc == code:
        return "unclear", out.strip().splitlines()[-1:] if out.strip() else ""
    return "other", "exit %d" % rc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--names-from", help="an older catalogue: count only lines added since")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per entry")
    args = parser.parse_args()
    entries = read_catalogue(os.path.join(HERE, "catalogue.txt"))
    if args.names_from:
        old = {e[0] for e in read_catalogue(args.names_from)}
        entries = [e for e in entries if e[0] not in old]
    counts = {}
    scratch = tempfile.mkdtemp(prefix="parity-outcomes.")
    try:
        for entry in entries:
            verdict, detail = classify(os.path.abspath(args.binary), entry,
                                       os.path.join(scratch, "case"))
            counts[verdict] = counts.get(verdict, 0) + 1
            if args.verbose:
                print("%-10s %-40s %s" % (verdict, entry[0], detail))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    order = ["handled", "crash", "exit3", "silent", "destroyed", "unclear", "other"]
    print("%d lines: " % len(entries) +
          ", ".join("%s %d" % (k, counts.get(k, 0)) for k in order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
