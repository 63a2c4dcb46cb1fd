"""Tests of tools/mutate: the site finder, the one-per-line choice, the schemata rewriter and the
run-time switch (core/mutant_switch), on small C++ snippets compiled with g++. Seconds, no Bazel
build of parity."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import schemata  # noqa: E402
import sites  # noqa: E402

PROGRAM = b"""#include <cstdio>
#include <cstdlib>
constexpr int Twice(int x) { return x * 2 + 1; }
template <int N> int Get() { return N; }
int Sum(int n) {
  int total = 0;
  for (int i = 0; i < n; ++i) {
    total += i;
  }
  return total;
}
int Never(int n) {
  return n * 3;
}
int main(int argc, char** argv) {
  int n = std::atoi(argv[1]);
  if (n > 100) return Never(n);
  std::printf("%d %d %d\\n", Sum(n), Get<4>(), Twice(2));
  switch (n) {
    case 5: std::printf("five\\n"); break;
    default: break;
  }
  return 0;
}
"""


def find(source, name="snippet.cc"):
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(source)
    found, errors = sites.find_sites(path, ["-x", "c++", "-std=c++17"])
    return found, errors


def rewrite_one(source, kind, old=None, new=None, line=None):
    """The file with exactly one site of `kind` (and old/new/line, if given) as mutant 1."""
    found, _ = find(source)
    for site in found:
        if (site.kind == kind and (old is None or site.old == old)
                and (new is None or site.new == new) and (line is None or site.line == line)):
            site.id = 1
            return schemata.render(source, [site])
    raise AssertionError(f"no {kind} {old}->{new} site in {[s.description for s in found]}")


class RewriteTest(unittest.TestCase):
    def test_relational(self):
        out = rewrite_one(b"bool F(int a, int b) { return a < b; }\n", "relational")
        self.assertIn("(::parity::mutant::On(1) ? (a <= b) : (a < b))", out)

    def test_arithmetic(self):
        out = rewrite_one(b"int F(int a, int b) { return a + b; }\n", "arithmetic")
        self.assertIn("(::parity::mutant::On(1) ? (a - b) : (a + b))", out)

    def test_logical(self):
        out = rewrite_one(b"bool F(bool a, bool b) { return a && b; }\n", "logical")
        self.assertIn("(::parity::mutant::On(1) ? (a || b) : (a && b))", out)

    def test_compound(self):
        out = rewrite_one(b"void F(int& a, int b) { a += b; }\n", "compound")
        self.assertIn("(::parity::mutant::On(1) ? (a -= b) : (a += b))", out)

    def test_loop_bound(self):
        out = rewrite_one(b"int F(int n) { int s = 0; for (int i = 0; i < n; ++i) s++; "
                          b"return s; }\n", "boundary")
        self.assertIn("(::parity::mutant::On(1) ? (i < ((n) - 1)) : (i < n))", out)

    def test_index(self):
        out = rewrite_one(b"int F(const int* p, int i) { return p[i]; }\n", "boundary")
        self.assertIn("p[(::parity::mutant::On(1) ? ((i) + 1) : (i))]", out)

    def test_negate(self):
        out = rewrite_one(b"int F(int* p) { if (p) return 1; return 0; }\n", "negate")
        self.assertIn("if ((static_cast<bool>(p) != ::parity::mutant::On(1)))", out)

    def test_delete_call_and_accumulation(self):
        source = b"void G();\nvoid F(int& a) {\n  G();\n  a += 2;\n}\n"
        out = rewrite_one(source, "delete", old="call")
        self.assertIn("{ if (!::parity::mutant::On(1)) { G(); } }", out)
        out = rewrite_one(source, "delete", old="+=")
        self.assertIn("{ if (!::parity::mutant::On(1)) { a += 2; } }", out)

    def test_delete_break_keeps_else(self):
        # An unbraced if's branch is not deleted (its parent is no block), so no else moves.
        found, _ = find(b"void F(int n) { while (true) { if (n) break; else continue; } }\n")
        self.assertFalse([s for s in found if s.kind == "delete"])
        out = rewrite_one(b"void F(int n) {\n  while (true) {\n    break;\n  }\n}\n",
                          "delete", old="break")
        self.assertIn("{ if (!::parity::mutant::On(1)) { break; } }", out)

    def test_macros_are_left_alone(self):
        source = (b"#define ENFORCE(c, m) if (!(c)) throw m\n"
                  b"void F(int n) {\n  ENFORCE(n > 0, 1);\n}\n")
        found, _ = find(source)
        # libclang gives macro arguments their expansion's location: no site inside a macro.
        self.assertEqual([s.description for s in found if s.line == 3], [])

    def test_constant(self):
        out = rewrite_one(b"float F() { return 2.5f; }\n", "constant", new="0")
        self.assertIn("(::parity::mutant::On(1) ? static_cast<decltype(2.5f)>(0) : 2.5f)", out)

    def test_line_numbers_kept(self):
        out = rewrite_one(b"int F(int a) {\n  return a + 1;\n}\n", "arithmetic")
        self.assertTrue(out.startswith(schemata.HEADER))
        self.assertEqual(out[len(schemata.HEADER):].count("\n"), 3)


class SkipTest(unittest.TestCase):
    def test_compile_time_contexts_are_skipped(self):
        source = (b"constexpr int C(int x) { return x * 2 + 1; }\n"          # 1
                  b"template <int N> int T() { return N; }\n"               # 2
                  b"enum E { kA = 3 + 4 };\n"                               # 3
                  b"int g = 5 + 6;\n"                                       # 4
                  b"int D(int a = 7 + 8) { return a; }\n"                   # 5
                  b"int F(int n) {\n"                                       # 6
                  b"  static_assert(sizeof(int) >= 4, \"int\");\n"          # 7
                  b"  int arr[2 + 1] = {0, 0, 0};\n"                        # 8
                  b"  switch (n) { case 1 + 1: return T<9 + 1>(); }\n"      # 9
                  b"  return arr[0] + C(2);\n"                              # 10
                  b"}\n")
        found, errors = find(source)
        self.assertEqual(errors, [])
        for site in found:
            self.assertNotIn(site.line, (1, 2, 3, 4, 5, 7, 8), site.description)
            if site.line == 9:  # only the switch's condition is run-time code
                self.assertNotIn(site.old, ("+", "1", "9"), site.description)
        self.assertTrue(any(s.line == 10 for s in found))


class ChoiceTest(unittest.TestCase):
    def test_one_per_line_and_deterministic(self):
        found, _ = find(PROGRAM)
        chosen = sites.choose(found, 7, "prog.cc")
        lines = [s.line for s in chosen]
        self.assertEqual(len(lines), len(set(lines)))
        self.assertEqual(set(lines), {s.line for s in found})
        again = sites.choose(find(PROGRAM)[0], 7, "prog.cc")
        self.assertEqual([s.description for s in chosen], [s.description for s in again])
        others = [[s.description for s in sites.choose(found, seed, "prog.cc")]
                  for seed in range(1, 6)]
        self.assertGreater(len({tuple(o) for o in others}), 1)

    def test_choice_on_a_line_ignores_other_lines(self):
        found, _ = find(PROGRAM)
        shifted, _ = find(PROGRAM.replace(b"int Never", b"int Unused();\nint Never"))
        before = {s.line: s.description for s in sites.choose(found, 3, "p.cc")}
        after = {s.line: s.description for s in sites.choose(shifted, 3, "p.cc")}
        for line in range(1, 12):  # above the insertion
            self.assertEqual(before.get(line), after.get(line))


class SchemataRunTest(unittest.TestCase):
    """The rewritten program compiled once with g++ and the switch, run with each mutant."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        path = os.path.join(cls.dir, "prog.cc")
        with open(path, "wb") as f:
            f.write(PROGRAM)
        found, errors = sites.find_sites(path, ["-x", "c++", "-std=c++17"])
        assert not errors, errors
        cls.chosen = sites.choose(found, 11, "prog.cc")
        for i, site in enumerate(cls.chosen):
            site.id = i + 1
        with open(os.path.join(cls.dir, "mutated.cc"), "w") as f:
            f.write(schemata.render(PROGRAM, cls.chosen))
        cls.binary = os.path.join(cls.dir, "mutated")
        subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-Wno-sign-compare",
                        "-I" + ROOT, os.path.join(cls.dir, "mutated.cc"),
                        os.path.join(ROOT, "core", "mutant_switch.cc"), "-o", cls.binary],
                       check=True)

    def run_program(self, mutant=None, coverage=None, n="4"):
        env = {k: v for k, v in os.environ.items()
               if k not in ("PARITY_MUTANT", "PARITY_MUTANT_COVERAGE")}
        if mutant is not None:
            env["PARITY_MUTANT"] = str(mutant)
        if coverage is not None:
            env["PARITY_MUTANT_COVERAGE"] = coverage
        result = subprocess.run([self.binary, n], env=env, capture_output=True, text=True)
        return result.returncode, result.stdout

    def test_unset_is_the_original(self):
        self.assertEqual(self.run_program(), (0, "6 4 5\n"))
        self.assertEqual(self.run_program(n="5"), (0, "10 4 5\nfive\n"))

    def test_each_mutant_changes_what_it_should(self):
        outputs = {}
        for site in self.chosen:
            outputs[site.id] = self.run_program(mutant=site.id)
        changed = [i for i, out in outputs.items() if out != (0, "6 4 5\n")]
        self.assertTrue(changed)
        by_line = {s.line: s for s in self.chosen}
        # The accumulation's line (8) and the loop's (7) run with n=4: each mutant there changes
        # the sum, whatever kind was drawn; Never's line (13) does not run.
        for line in (7, 8):
            self.assertIn(by_line[line].id, changed, by_line[line].description)
        self.assertNotIn(by_line[13].id, changed)

    def test_coverage_marks_exactly_the_sites_that_ran(self):
        path = os.path.join(self.dir, "coverage.bin")
        with open(path, "wb") as f:
            f.write(bytes(len(self.chosen) + 1))
        self.assertEqual(self.run_program(coverage=path), (0, "6 4 5\n"))
        with open(path, "rb") as f:
            marks = f.read()
        ran = {i for i, b in enumerate(marks) if b}
        lines = {s.line: s.id for s in self.chosen}
        not_run = {lines[13], lines.get(20)} - {None}  # Never(), and case 5's printf for n=4
        expected = {s.id for s in self.chosen} - not_run
        if 17 in lines:  # `if (n > 100) return Never(n)`: the condition runs, the call does not
            expected.add(lines[17])
        self.assertEqual(ran, expected)


FAKE_PARITY = r"""#!/usr/bin/env bash
# A stand-in for bazel-bin/tools/parity: mutant 1 is found by a clean case, 2 runs unfound,
# 3 never runs, 4 is found only by a case that fails without it too, 6 by a case both halves
# refuse without it (a deleted check), 7 by a case whose repro exits 2 for another reason;
# unmutated (0), it reaches the sites of 1, 2 and 4.
if [ "$1" = repro ]; then
  grep -q mutant "$2" && exit 0
  grep -q refused "$2" && { echo "parity repro: bad argument: the finding's case cannot run: x" >&2; exit 2; }
  grep -q garbage "$2" && { echo "parity repro: FILE holds no case to replay" >&2; exit 2; }
  exit 1
fi
while [ $# -gt 0 ]; do
  case "$1" in --out) out="$2"; shift ;; --fresh) fresh=1 ;; esac
  shift
done
mark() { printf '\001' | dd of="$PARITY_MUTANT_COVERAGE" bs=1 seek="$PARITY_MUTANT" \
  conv=notrunc status=none; }
found() {
  mkdir -p "$out/findings/sig$PARITY_MUTANT"
  echo '{"oracle":"forward","blamed_op":"Conv","signature":"forward/Conv"}' \
    >"$out/findings/sig$PARITY_MUTANT/finding.json"
  echo "$1" >"$out/findings/sig$PARITY_MUTANT/case.pb"
  echo '{"event":"finding","signature":"forward/Conv"}' >&2
}
case "$PARITY_MUTANT" in
  0) for id in 1 2 4; do PARITY_MUTANT=$id mark; done ;;  # the unmutated pre-pass
  1) mark; found mutant ;;
  2) mark ;;
  4) mark; [ -n "$fresh" ] && found baseline ;;
  5) mark; head -c 300000 /dev/zero >"$out/runaway" ;;  # a writer that never stops
  6) mark; found refused ;;
  7) mark; found garbage ;;
esac
exit 0
"""


class BuildLogTest(unittest.TestCase):
    def test_blamed_lines(self):
        import mutate
        log = ("core/ops/conv/conv.cc:43:3: error: expected primary-expression\n"
               "In file included from core/ops/conv/conv_grad.cc:5:\n"
               "/usr/include/eigen3/Eigen/src/Core/Assign.h:12:1: error: static assertion\n"
               "core/ops/conv/conv_grad.cc:130:42:   required from here\n"
               "core/ops/conv/conv.cc:50:1: warning: unused variable\n")
        self.assertEqual(mutate.blamed_lines(log), [("core/ops/conv/conv.cc", 43),
                                                    ("core/ops/conv/conv_grad.cc", 130)])


def fake_tree():
    """A scratch tree whose bazel-bin/tools/parity is FAKE_PARITY."""
    tree = tempfile.mkdtemp()
    binary = os.path.join(tree, "bazel-bin", "tools", "parity")
    os.makedirs(os.path.dirname(binary))
    with open(binary, "w") as f:
        f.write(FAKE_PARITY)
    os.chmod(binary, 0o755)
    return tree


class HuntTest(unittest.TestCase):
    """The kill rule, coverage and the score, with a fake parity binary (no Bazel build)."""

    def test_statuses(self):
        import argparse
        import mutate
        tree = fake_tree()
        args = argparse.Namespace(seconds=5, seed=1, jobs=1)
        records = {}
        for i in (1, 2, 3, 4):
            mutant = sites.Site("constant", 1, 0, 1, [(0, 1)], "1", "0", "constant: 1 -> 0")
            mutant.id = i
            records[str(i)] = dict(mutate.hunt(tree, os.path.join(tree, "runs", str(i)),
                                               mutant, 4, args), file="core/ops/conv/conv.cc")
        self.assertEqual([records[str(i)]["status"] for i in (1, 2, 3, 4)],
                         ["killed", "survived", "not covered", "survived"])
        # The kill rule's exit 2: a case both halves refuse without the mutant is clean; a repro
        # that fails for another reason is not.
        for i in (6, 7):
            mutant = sites.Site("constant", 1, 0, 1, [(0, 1)], "1", "0", "constant: 1 -> 0")
            mutant.id = i
            run_dir = os.path.join(tree, "runs", str(i))
            status = mutate.hunt(tree, run_dir, mutant, 8, args)["status"]
            self.assertEqual(status, "killed" if i == 6 else "survived", i)
        self.assertEqual(records["1"]["oracle"], "forward")
        self.assertEqual(records["1"]["blamed_op"], "Conv")
        records["5"] = {"status": "equivalent", "file": "core/ops/conv/conv.cc"}
        records["6"] = {"file": "core/ops/conv/conv.cc"}  # not run yet: counted, not scored
        self.assertEqual(mutate.score(records)["core/ops/conv"]["not run"], 1)
        del records["6"]
        folder = mutate.score(records)["core/ops/conv"]
        self.assertEqual((folder["total"], folder["killed"], folder["score"]), (5, 1, 0.25))
        import report
        for key, record in records.items():
            record.update(id=int(key), line=3, mutation="relational: < -> <=",
                          diff="- a < b\n+ a <script> b")
        page = os.path.join(tree, "mutate.html")
        report.write(page, {"mutants": records, "score": mutate.score(records)})
        with open(page, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("&lt;script&gt;", text)
        self.assertNotIn("<script>", text)
        self.assertIn("<td>25 %</td>", text)
        # --fail-under holds the overall score (25 % here) to a threshold.
        scores = mutate.score(records)
        self.assertEqual(mutate.below_threshold(scores, None), 0)
        self.assertEqual(mutate.below_threshold(scores, 25), 0)
        self.assertEqual(mutate.below_threshold(scores, 25.1), 1)
        only_equivalent = mutate.score({"5": records["5"]})
        self.assertEqual(mutate.below_threshold(only_equivalent, 0), 1)

    def test_a_runaway_writer_is_stopped_at_the_file_size_limit(self):
        import argparse
        import mutate
        tree = fake_tree()
        args = argparse.Namespace(seconds=5, seed=1, jobs=1)
        mutant = sites.Site("constant", 1, 0, 1, [(0, 1)], "1", "0", "constant: 1 -> 0")
        mutant.id = 5
        run_dir = os.path.join(tree, "runs", "5")
        saved = mutate.FILE_SIZE_LIMIT
        mutate.FILE_SIZE_LIMIT = 100000
        try:
            record = mutate.hunt(tree, run_dir, mutant, 5, args)
        finally:
            mutate.FILE_SIZE_LIMIT = saved
        self.assertEqual(record["status"], "survived")
        self.assertEqual(os.path.getsize(os.path.join(run_dir, "runaway")), 100000)

    def test_prepass_and_parallel_hunts(self):
        import argparse
        import mutate
        tree = fake_tree()
        args = argparse.Namespace(seconds=5, seed=1, jobs=3)
        self.assertEqual(mutate.coverage_prepass(tree, tree, 4, args), {1, 2, 4})
        pending = []
        for i in (1, 2, 3, 4):
            mutant = sites.Site("constant", 1, 0, 1, [(0, 1)], "1", "0", "constant: 1 -> 0")
            mutant.id = i
            pending.append(mutant)
        got = {}
        mutate.hunt_all(tree, tree, pending, 4, args,
                        lambda m, result: got.__setitem__(m.id, result["status"]))
        self.assertEqual(got, {1: "killed", 2: "survived", 3: "not covered", 4: "survived"})


if __name__ == "__main__":
    unittest.main()
