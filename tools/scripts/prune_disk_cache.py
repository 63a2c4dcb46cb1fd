#!/usr/bin/env python3
"""Keeps Bazel's disk cache (.bazelrc's --disk_cache) within a size, least recently used first.

Bazel 4.2 never removes anything from a disk cache (garbage collection came in Bazel 7), and every
configuration parity builds (plain, ASan+UBSan, libFuzzer, -c opt, coverage, each mutate tree)
adds its objects to it: one day of edits to widely included headers grew it to 50 GB and filled
the disk under a CI run. ./parity runs this before each build.

Policy:
  - Over --max-gb, files are removed oldest first (by the later of their access and modification
    times) until the cache is at most --keep-fraction of --max-gb, so the next few builds do not
    prune again.
  - When the file system holding the cache has less than --min-free-gb free, files are removed
    (oldest first) until it has, or the cache is empty: a cache miss costs a compile, a full disk
    costs the build.
A removed entry is only a cache miss: Bazel writes entries whole (a temporary file renamed into
place), and a missing one is rebuilt and written again.
"""
import argparse
import os
import sys

GB = 1 << 30


def cache_files(root):
    """(last use, size, path) of every file under root; last use is max(atime, mtime)."""
    entries = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:  # removed meanwhile by another build's prune
                continue
            entries.append((max(st.st_atime, st.st_mtime), st.st_size, path))
    return entries


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def prune(root, max_bytes, keep_fraction, min_free_bytes, free=free_bytes):
    """Removes least recently used files; returns (files removed, bytes removed, bytes left)."""
    entries = cache_files(root)
    total = sum(size for _, size, _ in entries)
    target = total
    if total > max_bytes:
        target = int(max_bytes * keep_fraction)
    shortfall = min_free_bytes - free(root)
    if shortfall > 0:
        target = max(0, min(target, total - shortfall))
    if target >= total:
        return 0, 0, total
    entries.sort()
    removed_files = removed_bytes = 0
    for _, size, path in entries:
        if total - removed_bytes <= target:
            break
        try:
            os.remove(path)
        except OSError:
            continue
        removed_files += 1
        removed_bytes += size
    return removed_files, removed_bytes, total - removed_bytes


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cache", help="the disk cache folder")
    parser.add_argument("--max-gb", type=float, default=30.0)
    parser.add_argument("--keep-fraction", type=float, default=0.7)
    parser.add_argument("--min-free-gb", type=float, default=10.0)
    args = parser.parse_args(argv)
    if not 0 < args.keep_fraction <= 1 or args.max_gb < 0 or args.min_free_gb < 0:
        print("prune_disk_cache: --max-gb and --min-free-gb are sizes, --keep-fraction in (0, 1]",
              file=sys.stderr)
        return 2
    if not os.path.isdir(args.cache):
        return 0
    files, removed, left = prune(args.cache, int(args.max_gb * GB), args.keep_fraction,
                                 int(args.min_free_gb * GB))
    if files:
        print(f"parity: pruned Bazel's disk cache {args.cache}: {files} least recently used "
              f"entries, {removed / GB:.1f} GB ({left / GB:.1f} GB kept; "
              f"{free_bytes(args.cache) / GB:.1f} GB free on its disk)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
