"""parity mutate: systematic mutation analysis of core/ and gpu/ (issue 38).

  ./parity mutate [PATHS...] [--sample N] [--seed S] [--seconds S] [--jobs J] [--out DIR] [--list]
                [--no-prepass] [--fail-under PERCENT]

Finds every mutation site of the .cc files under PATHS (default core/ gpu/) with libclang, keeps
one per line (chosen from the seed), samples N of them, writes the mutated files as schemata into
a copy of the tree (DIR/tree) and builds //:parity there once (the shared disk cache makes it
incremental). Then each mutant runs the default campaign (`parity fuzz`) with PARITY_MUTANT=<id>
until its first finding, J mutants at once; the finding kills the mutant only if its case is
clean without the mutant (`parity repro` exits 0, or 2 because both halves refuse the case
alike). A mutant whose site never ran (PARITY_MUTANT_COVERAGE) is `not covered`: first measured for all of them by one unmutated
campaign of twice the budget (the pre-pass), then by each mutant's own campaign. Results go to DIR/mutate.json after each mutant; a second run with the same
options skips the mutants already there. Score = killed / (total - equivalent - uncompilable),
per folder; tools/mutate/equivalent.txt lists the equivalent mutants. With --fail-under, the
exit status is 1 when the overall score is below PERCENT.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import report  # noqa: E402
import schemata  # noqa: E402
import sites  # noqa: E402

FINAL = {"killed", "survived", "not covered", "timeout", "uncompilable", "equivalent"}


def source_files(root, paths):
    files = []
    for path in paths:
        full = os.path.join(root, path)
        if os.path.isfile(full):
            candidates = [full]
        else:
            candidates = [os.path.join(d, f) for d, _, names in os.walk(full) for f in names]
        for f in candidates:
            rel = os.path.relpath(f, root)
            # core/proto is shared by both halves (the reference includes it): a mutant there
            # changes the truth as well as the engine, which no differential oracle can see.
            if (rel.endswith(".cc") and not rel.endswith("_test.cc")
                    and not rel.startswith("core/mutant_switch")
                    and not rel.startswith("core/proto/")):
                files.append(rel)
    return sorted(set(files))


def generated_includes(root, scratch):
    """core/proto's *.pb.h for libclang, from protoc (what Bazel's genfiles hold)."""
    out = os.path.join(scratch, "gen")
    os.makedirs(out, exist_ok=True)
    protos = sorted(glob.glob(os.path.join(root, "core", "proto", "*.proto")))
    subprocess.run(["protoc", "-I" + root, "--cpp_out=" + out] + protos, check=True)
    return ["-I" + out]


def load_equivalent(root):
    """(file, line, description) of each equivalent mutant in tools/mutate/equivalent.txt."""
    path = os.path.join(root, "tools", "mutate", "equivalent.txt")
    entries = set()
    if os.path.exists(path):
        for raw in open(path, encoding="utf-8"):
            line = raw.split("#", 1)[0].strip()
            m = re.match(r"^(\S+):(\d+):\s*(.+?)\s*$", line)
            if m:
                entries.add((m.group(1), int(m.group(2)), m.group(3)))
    return entries


def find_mutants(root, files, seed, extra_args):
    """All chosen mutants, numbered from 1 in file order; the parse errors per file."""
    args = sites.compile_args(root, extra_args)
    mutants, errors = [], {}
    for rel in files:
        found, errs = sites.find_sites(os.path.join(root, rel), args)
        if errs:
            errors[rel] = errs[:5] + ([f"... {len(errs) - 5} more"] if len(errs) > 5 else [])
        for site in sites.choose(found, seed, rel):
            site.file = rel
            mutants.append(site)
    for i, site in enumerate(mutants):
        site.id = i + 1
    return mutants, errors


def write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def copy_tree(root, tree, out):
    """The git tree (tracked and untracked, not ignored) into `tree`, files unchanged kept;
    nothing under `out`, which may lie inside the tree."""
    listing = subprocess.run(["git", "-C", root, "ls-files", "-z", "-co", "--exclude-standard"],
                             check=True, capture_output=True).stdout.split(b"\0")
    for rel in (r.decode() for r in listing if r):
        src, dst = os.path.join(root, rel), os.path.join(tree, rel)
        if os.path.abspath(src).startswith(out + os.sep):
            continue
        if not os.path.isfile(src) or os.path.islink(src):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.exists(dst) and open(src, "rb").read() == open(dst, "rb").read():
            continue
        shutil.copy2(src, dst)


def bazel_config():
    cuda = os.path.exists("/usr/local/cuda/bin/nvcc") or shutil.which("nvcc")
    return ["--config=cuda"] if cuda else []


def blamed_lines(log):
    """(file, line) of each compile error in a Bazel log: the error's own line, or (an error
    inside a header's template) the line of a mutated file that instantiated it."""
    return [(rel, int(line)) for rel, line in
            re.findall(r"((?:core|gpu)/\S+?\.cc):(\d+):\d+:(?: error|\s+required from)", log)]


def build(root, tree, mutants, log_dir):
    """Writes the schemata and builds //:parity; mutants on lines the compiler rejects are
    dropped (status uncompilable) and the files rewritten, up to 8 rounds."""
    dropped = set()
    by_file = {}
    for m in mutants:
        by_file.setdefault(m.file, []).append(m)
    for attempt in range(8):
        for rel, group in by_file.items():
            data = open(os.path.join(root, rel), "rb").read()
            live = schemata.check_nesting([m for m in group if m.id not in dropped])
            with open(os.path.join(tree, rel), "w", encoding="utf-8",
                      errors="surrogateescape") as f:
                f.write(schemata.render(data, live))
        log = os.path.join(log_dir, f"build{attempt}.log")
        with open(log, "w") as out:
            command = (["bazel", "build", "--keep_going", "--noshow_progress"]
                       + bazel_config() + ["--", "//:parity"])
            status = subprocess.run(command, cwd=tree, stdout=out,
                                    stderr=subprocess.STDOUT).returncode
        if status == 0:
            return dropped
        text = open(log, encoding="utf-8", errors="replace").read()
        newly = set()
        for rel, line in blamed_lines(text):
            for m in by_file.get(rel, []):
                if m.first_line <= line <= m.last_line and m.id not in dropped:
                    newly.add(m.id)
        if not newly:
            raise RuntimeError(f"the mutated tree does not build, and no mutant is to blame: {log}")
        print(f"parity mutate: {len(newly)} mutant(s) do not compile, dropped: "
              f"{sorted(newly)}", file=sys.stderr)
        dropped |= newly
    raise RuntimeError("the mutated tree still does not build after 8 rounds")


def findings(run_dir):
    out = []
    for path in sorted(glob.glob(os.path.join(run_dir, "findings", "*", "finding.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                out.append((os.path.dirname(path), json.load(f)))
        except (OSError, ValueError):
            continue
    return out


# The largest file a hunted campaign may write (RLIMIT_FSIZE): a mutant of parity's own file writer
# (core/io.cc's write loop with `done += n` deleted) wrote one file until the disk was full (60 GB),
# and the driver died on the next mkdir. Past the limit the campaign gets SIGXFSZ instead; its own
# files are kilobytes.
FILE_SIZE_LIMIT = 1 << 30


def limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


def hunt(tree, run_dir, mutant, max_id, args):
    """One mutant's campaign, stopped at its first finding; the record's status fields."""
    binary = os.path.join(tree, "bazel-bin", "tools", "parity")
    os.makedirs(run_dir, exist_ok=True)
    coverage = os.path.join(run_dir, "coverage.bin")
    with open(coverage, "wb") as f:
        f.write(bytes(max_id + 1))
    env = dict(os.environ, PARITY_MUTANT=str(mutant.id), PARITY_MUTANT_COVERAGE=coverage)
    clean_env = {k: v for k, v in os.environ.items()
                 if k not in ("PARITY_MUTANT", "PARITY_MUTANT_COVERAGE")}
    command = [binary, "fuzz", "--seconds", str(args.seconds), "--seed", str(args.seed),
               "--jobs", str(args.jobs), "--reduce-seconds", "0", "--out", run_dir]
    started = time.monotonic()
    checked = set()
    found_at = 0.0
    fresh = ["--fresh"]
    for _ in range(6):  # a finding that is not the mutant's resumes the campaign
        proc = subprocess.Popen(command + fresh, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, errors="replace",
                                preexec_fn=limit_file_size)
        fresh = []
        stopped = False
        # A mutant can hang the campaign's parent (it draws cases with engine code), which then
        # writes nothing: a timer, not the reading loop, enforces the deadline.
        watchdog = threading.Timer(args.seconds + 120, proc.kill)
        watchdog.start()
        for line in proc.stderr:
            if line.startswith('{"event":"finding"') and not stopped:
                proc.send_signal(signal.SIGINT)  # stops between cases, the finding saved
                stopped = True
                found_at = time.monotonic() - started
        proc.stderr.close()
        proc.wait()
        watchdog.cancel()
        if proc.returncode == -signal.SIGKILL:
            return {"status": "timeout", "seconds": round(time.monotonic() - started, 2)}
        for path, finding in findings(run_dir):
            if path in checked:
                continue
            checked.add(path)
            case = os.path.join(path, "case.pb")
            repro = subprocess.run([binary, "repro", case], cwd=tree, env=clean_env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   errors="replace")
            if clean_without_mutant(repro):
                return {"status": "killed", "seconds": round(found_at, 2),
                        "oracle": finding.get("oracle"), "blamed_op": finding.get("blamed_op"),
                        "signature": finding.get("signature")}
        if not stopped or time.monotonic() - started >= args.seconds:
            break
    with open(coverage, "rb") as f:
        covered = f.read()[mutant.id] != 0
    return {"status": "survived" if covered else "not covered",
            "seconds": round(time.monotonic() - started, 2)}


def clean_without_mutant(repro):
    """Whether `parity repro` of a finding's case, run without the mutant, says the case is clean:
    exit 0 (no finding), or exit 2 because both halves refuse the case alike (a case made wrong on
    purpose, fuzz/misshapen.h: the unmutated engine refuses it as the reference does, so a mutant
    that made production take it deleted a check)."""
    if repro.returncode == 0:
        return True
    return repro.returncode == 2 and "the finding's case cannot run" in (repro.stderr or "")


def coverage_prepass(tree, out, max_id, args):
    """The ids of the sites the unmutated campaign reaches in twice a mutant's budget, with every
    job. A mutant computes what the original does until its site first runs, and case k of a
    seed is the same whatever the job count, so a site this run never reaches is not reached by
    the mutant's own campaign (one job, half the time) either: that mutant is `not covered`
    without a campaign of its own."""
    binary = os.path.join(tree, "bazel-bin", "tools", "parity")
    coverage = os.path.join(out, "coverage-prepass.bin")
    with open(coverage, "wb") as f:
        f.write(bytes(max_id + 1))
    env = dict(os.environ, PARITY_MUTANT="0", PARITY_MUTANT_COVERAGE=coverage)
    command = [binary, "fuzz", "--seconds", str(2 * args.seconds), "--seed", str(args.seed),
               "--jobs", str(args.jobs), "--reduce-seconds", "0", "--fresh",
               "--out", os.path.join(out, "coverage-run")]
    subprocess.run(command, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=2 * args.seconds + 600)
    with open(coverage, "rb") as f:
        marks = f.read()
    return {i for i in range(1, len(marks)) if marks[i]}


def hunt_all(tree, out, pending, max_id, args, on_result):
    """Every pending mutant's campaign, args.jobs of them at once (one worker each: a
    campaign's start-up and its stop at the first finding waste less than idle workers would)."""
    one_job = argparse.Namespace(seconds=args.seconds, seed=args.seed, jobs=1)

    def run(m):
        return m, hunt(tree, os.path.join(out, "runs", str(m.id)), m, max_id, one_job)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for m, result in pool.map(run, pending):
            on_result(m, result)


def score(records):
    folders = {}
    for r in records.values():
        for key in (os.path.dirname(r["file"]), "all"):
            f = folders.setdefault(key, {"total": 0, "killed": 0, "survived": 0,
                                         "not covered": 0, "timeout": 0, "equivalent": 0,
                                         "uncompilable": 0})
            f["total"] += 1
            status = r.get("status", "not run")  # a run stopped midway leaves some unrun
            f[status] = f.get(status, 0) + 1
    for f in folders.values():
        scored = f["total"] - f["equivalent"] - f["uncompilable"]
        f["score"] = round(f["killed"] / scored, 4) if scored else None
    return folders


def main(argv):
    parser = argparse.ArgumentParser(prog="parity mutate", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", default=["core", "gpu"])
    parser.add_argument("--sample", type=int, default=0, help="mutants to run (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=int, default=10, help="campaign budget per mutant")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="mutants hunted at once (each campaign runs one worker)")
    parser.add_argument("--no-prepass", action="store_true",
                        help="hunt every mutant, without the coverage pre-pass")
    parser.add_argument("--out", default="parity-mutate-out")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    parser.add_argument("--fail-under", type=float, default=None, metavar="PERCENT",
                        help="exit 1 when the score over every mutant is below PERCENT "
                             "(killed / (total - equivalent - uncompilable)), or has none")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    files = source_files(root, args.paths)
    if not files:
        parser.error(f"no .cc file under {' '.join(args.paths)}")
    extra = generated_includes(root, tempfile.mkdtemp(prefix="parity-mutate-"))
    mutants, parse_errors = find_mutants(root, files, args.seed, extra)
    for rel, errs in parse_errors.items():
        print(f"parity mutate: {rel}: libclang: {errs[0]}", file=sys.stderr)
    if args.sample and args.sample < len(mutants):
        mutants = sorted(random.Random(args.seed).sample(mutants, args.sample),
                         key=lambda m: m.id)
    equivalent = load_equivalent(root)
    if args.list:
        for m in mutants:
            print(f"#{m.id} {m.file}:{m.line}: {m.description}")
        print(f"{len(mutants)} mutants in {len(files)} files")
        return 0
    json_path = os.path.join(out, "mutate.json")
    settings = {"paths": args.paths, "sample": args.sample, "seed": args.seed,
                "seconds": args.seconds, "files": len(files)}
    state = {"settings": settings, "mutants": {}}
    if os.path.exists(json_path):
        previous = json.load(open(json_path, encoding="utf-8"))
        if previous.get("settings") != settings:
            print(f"parity mutate: {json_path} was written with other options "
                  f"({previous.get('settings')}); use another --out", file=sys.stderr)
            return 2
        state = previous
    records = state["mutants"]
    for m in mutants:
        data = open(os.path.join(root, m.file), "rb").read()
        before, after = schemata.mutated_line(data, m)
        record = records.setdefault(str(m.id), {})
        record.update({"id": m.id, "file": m.file, "line": m.line, "kind": m.kind,
                       "mutation": m.description, "diff": f"- {before}\n+ {after}"})
        if (m.file, m.line, m.description) in equivalent:
            record["status"] = "equivalent"
    pending = [m for m in mutants if records[str(m.id)].get("status") not in FINAL]
    state["parse_errors"] = parse_errors
    write_json(json_path, state)
    if pending:
        tree = os.path.join(out, "tree")
        copy_tree(root, tree, out)
        print(f"parity mutate: building {len(pending)} mutants' schemata in {tree}", file=sys.stderr)
        try:
            dropped = build(root, tree, pending, out)
            for m in pending:
                if m.id in dropped:
                    records[str(m.id)]["status"] = "uncompilable"
            write_json(json_path, state)
            max_id = max(m.id for m in mutants)
            live = [m for m in pending if records[str(m.id)].get("status") not in FINAL]
            if live and not args.no_prepass:
                started = time.monotonic()
                reached = coverage_prepass(tree, out, max_id, args)
                for m in live:
                    if m.id not in reached:
                        records[str(m.id)].update(status="not covered", seconds=0,
                                                  by="coverage pre-pass")
                state["prepass"] = {"seconds": round(time.monotonic() - started, 2),
                                    "reached": len([m for m in live if m.id in reached]),
                                    "of": len(live)}
                print(f"parity mutate: the unmutated campaign reaches "
                      f"{state['prepass']['reached']} of {len(live)} mutants' sites",
                      file=sys.stderr)
                write_json(json_path, state)
            live = [m for m in live if records[str(m.id)].get("status") not in FINAL]

            def record_result(m, result):
                records[str(m.id)].update(result)
                print(f"#{m.id} {m.file}:{m.line} {m.description}: {result['status']} "
                      f"({result['seconds']} s)", file=sys.stderr)
                state["score"] = score(records)
                write_json(json_path, state)

            hunt_all(tree, out, live, max_id, args, record_result)
        finally:
            # The scratch tree's Bazel server holds memory the other engineers need.
            subprocess.run(["bazel", "shutdown"], cwd=tree, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    state["score"] = score(records)
    write_json(json_path, state)
    for folder, s in sorted(state["score"].items()):
        print(f"{folder}: {s['killed']} killed, {s['survived']} survived, "
              f"{s['not covered']} not covered, {s['timeout']} timeout, "
              f"{s['equivalent']} equivalent, {s['uncompilable']} uncompilable of "
              f"{s['total']}: score {s['score']}")
    report.write(os.path.join(out, "mutate.html"), state)
    print(f"results: {json_path}, {os.path.join(out, 'mutate.html')}")
    return below_threshold(state["score"], args.fail_under)


def below_threshold(scores, fail_under):
    """1 (with the reason printed) when --fail-under is set and the overall score is below it."""
    if fail_under is None:
        return 0
    overall = scores.get("all", {}).get("score")
    if overall is None:
        print(f"parity mutate: no scored mutant, so no score to hold to --fail-under {fail_under}",
              file=sys.stderr)
        return 1
    if overall * 100 < fail_under:
        print(f"parity mutate: score {overall * 100:.1f} % is below --fail-under {fail_under}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
