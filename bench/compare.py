#!/usr/bin/python3
"""parity against PyTorch, side by side: one table from the benchmark binaries' own JSON.

Runs each benchmark binary (bench/<name>_bench, built with -c opt) with
--benchmark_format=json, pairs every parity row with the PyTorch row of the same op, shape and
threads (the peer runs inside the same binary, in the same run: bench/torch_peer.h), and prints a
table of parity's time, the peer's and their ratio; --json writes it. `./parity bench` builds the
binaries and runs this.

Row names follow BM_<Op>/<side>/<arguments>: side `torch` is the peer; the parity side is
`parity`, or the op's default engine where a binary times several (conv_bench: DNNL; its
IM2COL rows are kept in the JSON as `engines`). Times are the minimum over a row's repetitions
(the least disturbed run on a shared machine) with the median beside it; ratio = parity / torch
on the minima, so < 1 means parity is faster.

  bench/compare.py --bin bazel-bin/bench [--benches conv,pool,elementwise,lstm,net]
                   [--filter REGEX] [--json OUT] [--markdown]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

BENCHES = ("conv", "pool", "elementwise", "net", "lstm")
# The side that is parity's default in binaries timing several engines of one op.
DEFAULT_SIDE = {"conv": "DNNL"}
PEER = "torch"
# Google Benchmark's suffixes that are not part of a row's identity.
SUFFIXES = ("manual_time", "real_time", "iterations:", "repeats:")


def identity(run_name):
    """(op, side, arguments) of a row name, or None when it does not follow the convention."""
    parts = [p for p in run_name.split("/") if not p.startswith(SUFFIXES)]
    if len(parts) < 2:
        return None
    return parts[0][3:] if parts[0].startswith("BM_") else parts[0], parts[1], "/".join(parts[2:])


def run_binary(path, bench_filter):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [path, "--benchmark_out=" + out.name, "--benchmark_out_format=json"]
        if bench_filter:
            command.append("--benchmark_filter=" + bench_filter)
        # The console table goes to stderr as it runs, so a long run shows progress.
        subprocess.run(command, check=True, stdout=sys.stderr)
        with open(out.name) as f:
            return json.load(f)


def collect(bench, report):
    """{(op, arguments): {side: {"min": us, "median": us, "error": str}}} for one binary."""
    rows = {}
    for b in report["benchmarks"]:
        key = identity(b.get("run_name", b["name"]))
        if key is None:
            continue
        op, side, arguments = key
        entry = rows.setdefault((op, arguments), {}).setdefault(side, {})
        if b.get("error_occurred"):
            entry["error"] = b.get("error_message", "error")
            continue
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b.get("time_unit", "ns")]
        microseconds = b["real_time"] * scale
        aggregate = b.get("aggregate_name")
        if aggregate in ("min", "median"):
            entry[aggregate] = microseconds
        elif aggregate is None and b.get("run_type", "iteration") == "iteration":
            # Rows without repetitions: each run is one sample.
            entry.setdefault("samples", []).append(microseconds)
    for sides in rows.values():
        for entry in sides.values():
            samples = sorted(entry.pop("samples", []))
            if samples and "min" not in entry:
                entry["min"] = samples[0]
                entry["median"] = samples[len(samples) // 2]
    table = []
    parity_side = DEFAULT_SIDE.get(bench, "parity")
    for (op, arguments), sides in rows.items():
        if PEER not in sides or parity_side not in sides:
            continue
        ours, peer = sides[parity_side], sides[PEER]
        row = {"bench": bench, "op": op, "arguments": arguments, "parity_side": parity_side,
               "parity_us": ours.get("min"), "parity_median_us": ours.get("median"),
               "torch_us": peer.get("min"), "torch_median_us": peer.get("median"),
               "engines": {s: v for s, v in sides.items() if s not in (parity_side, PEER)}}
        for side, entry in ((parity_side, ours), (PEER, peer)):
            if "error" in entry:
                row[side + "_error"] = entry["error"]
        if row["parity_us"] and row["torch_us"]:
            row["ratio"] = row["parity_us"] / row["torch_us"]
        table.append(row)
    return table


def fmt(us):
    if us is None:
        return "-"
    return f"{us / 1000:.2f} ms" if us >= 10000 else f"{us:.0f} µs" if us >= 100 else f"{us:.1f} µs"


def print_table(rows, markdown):
    header = ("op", "arguments", "parity (min / median)", "torch (min / median)", "ratio")
    lines = []
    for r in rows:
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else r.get("torch_error", r.get(
            r["parity_side"] + "_error", "-"))[:60]
        lines.append((r["op"] if r["parity_side"] == "parity" else f"{r['op']} ({r['parity_side']})",
                      r["arguments"].replace("/", " "),
                      f"{fmt(r['parity_us'])} / {fmt(r['parity_median_us'])}",
                      f"{fmt(r['torch_us'])} / {fmt(r['torch_median_us'])}", ratio))
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in lines:
            print("| " + " | ".join(line) + " |")
        return
    widths = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
    for line in [header] + lines:
        print("  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default="bazel-bin/bench",
                        help="directory of the -c opt benchmark binaries")
    parser.add_argument("--benches", default=",".join(BENCHES),
                        help="which binaries, comma-separated (default: %(default)s)")
    parser.add_argument("--filter", default="", help="--benchmark_filter for every binary")
    parser.add_argument("--json", help="write the table here as JSON")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()

    rows = []
    for bench in args.benches.split(","):
        if bench not in BENCHES:
            parser.error(f"unknown bench {bench!r} (known: {', '.join(BENCHES)})")
        path = os.path.join(args.bin, bench + "_bench")
        if not os.access(path, os.X_OK):
            parser.error(f"{path} is not built (bazel build -c opt //bench:{bench}_bench)")
        rows += collect(bench, run_binary(path, args.filter))
    print_table(rows, args.markdown)
    if args.json:
        directory = os.path.dirname(os.path.abspath(args.json))
        with tempfile.NamedTemporaryFile("w", dir=directory, delete=False) as f:
            json.dump({"rows": rows, "threads_note": "threads: the row's own argument"}, f,
                      indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(f.name, args.json)
    slower = [r for r in rows if r.get("ratio", 0) > 1.0]
    print(f"\n{len(rows)} rows; parity slower than torch on {len(slower)}", file=sys.stderr)


if __name__ == "__main__":
    main()
