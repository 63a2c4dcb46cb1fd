#!/usr/bin/env python3
"""The user guide stays true to the binary (issue 44).

- README.md stays a front door: under 200 lines, linking every page of docs/.
- Every relative link in README.md and docs/ leads to a file of the tree.
- docs/cli.md is what tools/scripts/cli_reference.py writes from today's binary.
- Every subcommand's --help ends with two or more examples, and each example's flags are flags
  that subcommand takes.
- The tour's `run` and `check` commands print what the README shows (an output line ending in
  "..." is matched up to there; "..." alone stands for lines left out).
"""

import os
import re
import shlex
import subprocess
import sys
import unittest

RUNFILES = os.path.join(os.environ["TEST_SRCDIR"], "parity")
PARITY = os.path.join(RUNFILES, "tools", "parity")
sys.path.insert(0, os.path.join(RUNFILES, "tools", "scripts"))
import cli_reference  # noqa: E402  (found through the runfiles)


def read(path):
    with open(os.path.join(RUNFILES, path), encoding="utf-8") as f:
        return f.read()


def doc_pages():
    return sorted(f"docs/{name}" for name in os.listdir(os.path.join(RUNFILES, "docs"))
                  if name.endswith(".md"))


class FrontDoorTest(unittest.TestCase):

    def test_readme_is_short(self):
        lines = read("README.md").count("\n")
        self.assertLess(lines, 200, "README.md is the front door: move detail into docs/")

    def test_readme_links_every_page(self):
        readme = read("README.md")
        missing = [page for page in doc_pages() if f"]({page})" not in readme]
        self.assertEqual(missing, [], "pages of docs/ the README does not link")

    def test_relative_links_resolve(self):
        broken = []
        for page in ["README.md"] + doc_pages():
            base = os.path.dirname(page)
            for target in re.findall(r"\]\(([^)\s]+)\)", read(page)):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                path = os.path.normpath(os.path.join(base, target.split("#")[0]))
                if not os.path.exists(os.path.join(RUNFILES, path)):
                    broken.append(f"{page}: {target}")
        self.assertEqual(broken, [])


class CliReferenceTest(unittest.TestCase):

    def test_cli_md_is_current(self):
        expected = cli_reference.reference(PARITY)
        self.assertEqual(
            read("docs/cli.md"), expected,
            "docs/cli.md is stale: run tools/scripts/cli_reference.py bazel-bin/tools/parity "
            "docs/cli.md")

    def test_every_subcommand_has_examples_that_it_takes(self):
        helps = {tuple(words): text for words, text in cli_reference.commands(PARITY)}

        def flags_of(words):
            options = helps[tuple(words)].split("Examples:")[0]
            return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", options))

        for words, text in helps.items():
            with self.subTest(command=" ".join(words)):
                self.assertIn("\nExamples:\n", text)
                examples = re.findall(r"^  (parity .*)$", text.split("\nExamples:\n")[1], re.M)
                self.assertGreaterEqual(len(examples), 2, text)
                for example in examples:
                    argv = shlex.split(example)
                    self.assertEqual(tuple(argv[1:1 + len(words)]), words, example)
                    # An example of `onnx` may show `onnx import`: its flags are the child's.
                    command = list(words)
                    if len(argv) > 1 + len(words) and (*words, argv[1 + len(words)]) in helps:
                        command.append(argv[1 + len(words)])
                    flags = flags_of(command)
                    for arg in argv:
                        if arg.startswith("-") and arg != "-":
                            self.assertIn(arg, flags, f"{example}: {arg} is not a flag of it")


class TourTest(unittest.TestCase):

    def tour_blocks(self):
        """(command words, shown output lines) for each `$ ./parity run|check` in the README."""
        blocks = []
        for block in re.findall(r"```\n(.*?)```", read("README.md"), re.S):
            lines = block.splitlines()
            for i, line in enumerate(lines):
                match = re.match(r"^\$ \./parity ((run|check) .*)$", line)
                if not match:
                    continue
                shown = []
                for out in lines[i + 1:]:
                    if out.startswith("$ "):
                        break
                    shown.append(out)
                blocks.append((shlex.split(match.group(1)), shown))
        return blocks

    def test_tour_commands_print_what_the_readme_shows(self):
        blocks = self.tour_blocks()
        self.assertGreaterEqual(len(blocks), 2, "the tour's run and check examples")
        for argv, shown in blocks:
            with self.subTest(command=" ".join(argv)):
                run = subprocess.run([PARITY] + argv, cwd=RUNFILES, capture_output=True,
                                     text=True, check=False)
                self.assertEqual(run.returncode, 0, run.stderr)
                printed = run.stdout.splitlines()
                for line in shown:
                    if line.strip() == "...":
                        continue
                    prefix = line[:-3] if line.endswith("...") else None
                    found = any(p.startswith(prefix) if prefix is not None else p == line
                                for p in printed)
                    self.assertTrue(found, f"README shows {line!r}; parity printed:\n" +
                                    run.stdout)


if __name__ == "__main__":
    unittest.main()
