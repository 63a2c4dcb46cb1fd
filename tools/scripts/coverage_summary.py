#!/usr/bin/env python3
"""Line coverage of core/ per folder, from gcovr's JSON (./parity coverage writes it).

Prints a table: per folder (core/ops, core/control, core/rnn, core/transforms, core/grad, the rest
of core), lines reached / lines with code, and the files with the most lines never reached, each
with its longest unreached stretch, so the next blind spot is visible before a bug lands in it.
Writes the same as JSON (--json) and Markdown (--markdown) when asked.

    coverage_summary.py GCOVR_JSON [--json OUT] [--markdown OUT] [--top N]
"""
import argparse
import json
import sys

# The folders the issue tracker asks about, in this order; everything else under core/ is "rest".
FOLDERS = ["core/ops", "core/control", "core/rnn", "core/transforms", "core/grad"]


def folder_of(path):
    for folder in FOLDERS:
        if path.startswith(folder + "/"):
            return folder
    return "core (rest)"


def code_lines(entry):
    """(line number, count) of every line gcov calls code."""
    for line in entry.get("lines", []):
        if line.get("gcovr/noncode"):
            continue
        yield line["line_number"], line["count"]


def longest_gap(lines):
    """The longest run of unreached code lines: (first, last, count of code lines)."""
    best = (0, 0, 0)
    start = None
    run = 0
    last = 0
    for number, count in lines:
        if count == 0:
            if start is None:
                start, run = number, 0
            run += 1
            last = number
            if run > best[2]:
                best = (start, last, run)
        else:
            start = None
    return best


def summarize(report, top):
    folders = {}
    files = []
    for entry in report.get("files", []):
        path = entry["file"]
        if not path.startswith("core/"):
            continue
        lines = sorted(code_lines(entry))
        total = len(lines)
        if total == 0:
            continue
        reached = sum(1 for _, count in lines if count > 0)
        folder = folders.setdefault(folder_of(path), {"lines": 0, "reached": 0, "files": 0})
        folder["lines"] += total
        folder["reached"] += reached
        folder["files"] += 1
        first, last, run = longest_gap(lines)
        files.append({"file": path, "lines": total, "reached": reached,
                      "unreached": total - reached,
                      "longest_unreached": {"first": first, "last": last, "lines": run}})
    order = FOLDERS + ["core (rest)"]
    table = []
    for name in order:
        if name in folders:
            f = folders[name]
            table.append({"folder": name, "lines": f["lines"], "reached": f["reached"],
                          "files": f["files"], "percent": 100.0 * f["reached"] / f["lines"]})
    all_lines = sum(f["lines"] for f in folders.values())
    all_reached = sum(f["reached"] for f in folders.values())
    table.append({"folder": "core (all)", "lines": all_lines, "reached": all_reached,
                  "files": sum(f["files"] for f in folders.values()),
                  "percent": 100.0 * all_reached / all_lines if all_lines else 0.0})
    files.sort(key=lambda f: -f["unreached"])
    return {"folders": table, "least_reached_files": files[:top]}


def markdown(summary):
    out = ["| folder | files | code lines | reached | line coverage |", "|---|---|---|---|---|"]
    for row in summary["folders"]:
        out.append("| %s | %d | %d | %d | %.1f %% |" % (row["folder"], row["files"], row["lines"],
                                                     row["reached"], row["percent"]))
    out += ["", "| file | code lines | never reached | longest unreached stretch |",
            "|---|---|---|---|"]
    for f in summary["least_reached_files"]:
        gap = f["longest_unreached"]
        out.append("| %s | %d | %d | lines %d-%d (%d) |" % (f["file"], f["lines"], f["unreached"],
                                                           gap["first"], gap["last"],
                                                           gap["lines"]))
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gcovr_json")
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--markdown")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    with open(args.gcovr_json) as f:
        report = json.load(f)
    summary = summarize(report, args.top)
    if not summary["folders"] or summary["folders"][-1]["lines"] == 0:
        print("coverage_summary: no core/ lines in %s (was the campaign run from a --coverage "
              "build?)" % args.gcovr_json, file=sys.stderr)
        return 2
    text = markdown(summary)
    sys.stdout.write(text)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(summary, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
