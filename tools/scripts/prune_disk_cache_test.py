#!/usr/bin/env python3
"""prune_disk_cache: least recently used first, down to the kept fraction, and free space kept."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prune_disk_cache  # noqa: E402

KB = 1024


def make_cache(root, entries):
    """entries: (relative path, size in KB, last use in seconds since the epoch)."""
    for rel, size_kb, when in entries:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"x" * (size_kb * KB))
        os.utime(path, (when, when))


def left(root):
    return sorted(os.path.relpath(os.path.join(d, n), root)
                  for d, _, names in os.walk(root) for n in names)


class PruneTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        # Ten 10 KB entries in two folders, used at times 1000..10000 (cas/09 the oldest).
        make_cache(self.root, [(f"{'cas' if i % 2 else 'ac'}/{i:02d}/e", 10, 1000 * (10 - i))
                               for i in range(10)])

    def tearDown(self):
        self.dir.cleanup()

    def plenty_free(self, _):
        return 1 << 40

    def test_under_the_cap_nothing_is_removed(self):
        result = prune_disk_cache.prune(self.root, 100 * KB, 0.7, 0, free=self.plenty_free)
        self.assertEqual(result, (0, 0, 100 * KB))
        self.assertEqual(len(left(self.root)), 10)

    def test_over_the_cap_the_least_recently_used_go_down_to_the_kept_fraction(self):
        files, removed, kept = prune_disk_cache.prune(self.root, 90 * KB, 0.5, 0,
                                                      free=self.plenty_free)
        # 100 KB over a 90 KB cap: down to 45 KB, so six entries go, the six used longest ago.
        self.assertEqual((files, removed, kept), (6, 60 * KB, 40 * KB))
        self.assertEqual(left(self.root), ["ac/00/e", "ac/02/e", "cas/01/e", "cas/03/e"])

    def test_access_time_counts_as_use(self):
        oldest = os.path.join(self.root, "cas/09/e")
        os.utime(oldest, (20000, 1000))  # written first, read last
        prune_disk_cache.prune(self.root, 90 * KB, 0.5, 0, free=self.plenty_free)
        self.assertEqual(left(self.root), ["ac/00/e", "ac/02/e", "cas/01/e", "cas/09/e"])

    def test_a_full_disk_prunes_below_the_cap_until_the_free_space_is_back(self):
        files, removed, kept = prune_disk_cache.prune(self.root, 1000 * KB, 0.7, 50 * KB,
                                                      free=lambda _: 25 * KB)
        # Under the cap, but 25 KB short of the free space wanted: the three oldest entries go.
        self.assertEqual((files, removed, kept), (3, 30 * KB, 70 * KB))
        self.assertNotIn("cas/09/e", left(self.root))
        self.assertNotIn("ac/08/e", left(self.root))
        self.assertNotIn("cas/07/e", left(self.root))
        self.assertIn("ac/06/e", left(self.root))

    def test_a_disk_too_full_for_the_cache_empties_it(self):
        files, _, kept = prune_disk_cache.prune(self.root, 1000 * KB, 0.7, 1 << 30,
                                                free=lambda _: 0)
        self.assertEqual((files, kept), (10, 0))
        self.assertEqual(left(self.root), [])

    def test_a_missing_cache_or_bad_arguments(self):
        missing = os.path.join(self.root, "none")
        self.assertEqual(prune_disk_cache.main([missing]), 0)
        self.assertFalse(os.path.exists(missing))
        self.assertEqual(prune_disk_cache.main([self.root, "--keep-fraction", "0"]), 2)
        self.assertEqual(len(left(self.root)), 10)


if __name__ == "__main__":
    unittest.main()
