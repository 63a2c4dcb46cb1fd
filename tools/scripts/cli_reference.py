#!/usr/bin/env python3
"""Writes docs/cli.md, the command-line reference, from a parity binary's own --help.

Usage: cli_reference.py PARITY_BINARY [OUT]   (OUT default: standard output)

The reference is each subcommand's --help as CLI11 prints it (its options come from the CLI11
definitions in tools/*_command.cc, so they cannot drift from what the binary takes), nested
subcommands (onnx import, onnx conformance) included. tests/docs/docs_test.py regenerates it and
fails when docs/cli.md differs: after changing a command, run
    tools/scripts/cli_reference.py bazel-bin/tools/parity docs/cli.md
"""

import re
import subprocess
import sys

HEADER = """# The command-line reference

Generated from the binary by `tools/scripts/cli_reference.py` (`tests/docs:docs_test` fails when
this page and the binary drift apart). The guide pages say what each command is for:
[campaigns](campaigns.md), [reports](reports.md), [checking a net](checking-a-net.md),
[running a net](running-a-net.md), [transforms](transforms.md), [ONNX](onnx.md).

Exit codes: 0 clean, 1 discrepancies found, 2 bad input or usage, 3 internal error.
"""


def help_text(binary, words):
    run = subprocess.run([binary] + words + ["--help"], capture_output=True, text=True,
                         check=False)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(words)} --help exited {run.returncode}: {run.stderr}")
    # CLI11 prints argv[0] in the usage line; the reference names the command as users type it.
    text = re.sub(r"^Usage: \S+", "Usage: parity", run.stdout, count=1, flags=re.M)
    return text.rstrip() + "\n"


def subcommands(text):
    """The subcommand names listed under 'Subcommands:' in a --help text."""
    names = []
    in_list = False
    for line in text.splitlines():
        if line.startswith("Subcommands:"):
            in_list = True
            continue
        if in_list:
            match = re.match(r"^  (\S+)\s", line)
            if not match:
                if line.strip():
                    in_list = False
                continue
            names.append(match.group(1))
    return names


def commands(binary):
    """(words, help) for every subcommand, depth first, in the order --help lists them."""
    out = []

    def walk(words):
        text = help_text(binary, words)
        if words:
            out.append((words, text))
        for name in subcommands(text):
            walk(words + [name])

    walk([])
    return out


def reference(binary):
    parts = [HEADER]
    for words, text in commands(binary):
        parts.append(f"\n## parity {' '.join(words)}\n\n```\n{text}```\n")
    return "".join(parts)


def main(argv):
    if len(argv) not in (2, 3):
        raise SystemExit(__doc__)
    text = reference(argv[1])
    if len(argv) == 3:
        with open(argv[2], "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
