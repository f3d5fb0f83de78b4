#!/usr/bin/env python3
"""Determinism of the kit: runs the release `a2a-tck` against the built-in reference agent N times
and requires the same status for every check x binding x version (and the same exit status) in
every run. Prints one line; exits 1 on any difference, naming the results that differed.

    python3 scripts/determinism.py              # 100 runs
    python3 scripts/determinism.py --runs 20 -- --fault omit-context-id

It builds the release binary first (cargo build --release --locked -p a2a-tck) unless --no-build or
--binary names another a2a-tck (e.g. the one a wheel installed).
"""

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "a2a-tck")


def statuses(path):
    """check x binding x version -> status (a key seen twice gets a counter, so none is lost)."""
    with open(path) as f:
        report = json.load(f)
    if report.get("complete") is not True:
        sys.exit(f"determinism: {path} is not a complete report")
    seen = collections.Counter()
    keyed = {}
    for r in report["results"]:
        key = (r["id"], r.get("binding") or "card", r.get("version") or "-")
        seen[key] += 1
        keyed[key + (seen[key],)] = r["status"]
    return keyed, report["verdict"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--no-build", action="store_true", help="use the binary as it is")
    parser.add_argument("--binary", default=BINARY, help="the a2a-tck to run (default: target/release/a2a-tck)")
    parser.add_argument("extra", nargs="*", help="extra arguments for a2a-tck (after --)")
    args = parser.parse_args()
    if args.runs < 2:
        sys.exit("determinism: --runs must be at least 2")
    if not args.no_build and args.binary == BINARY:
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "-p", "a2a-tck"], cwd=ROOT, check=True)

    first, first_code, first_verdict = None, None, None
    walls, differences = [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "report.json")
        for run in range(1, args.runs + 1):
            start = time.perf_counter()
            done = subprocess.run([args.binary, "--quiet", "--report", path, *args.extra],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp)
            walls.append(time.perf_counter() - start)
            if done.returncode not in (0, 1):
                sys.exit(f"determinism: run {run}: a2a-tck exited {done.returncode}: "
                         f"{done.stderr.decode(errors='replace').strip()}")
            keyed, verdict = statuses(path)
            os.remove(path)
            if first is None:
                first, first_code, first_verdict = keyed, done.returncode, verdict
                continue
            if done.returncode != first_code:
                differences.append(f"run {run}: exit {done.returncode}, run 1: exit {first_code}")
            for key in sorted(set(first) | set(keyed)):
                a, b = first.get(key, "absent"), keyed.get(key, "absent")
                if a != b:
                    differences.append(f"run {run}: {key[0]} [{key[1]} {key[2]}] {b}, run 1: {a}")

    counts = collections.Counter(first.values())
    tally = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    if differences:
        print(f"determinism: FAILED: {len(differences)} difference(s) over {args.runs} runs "
              f"of {len(first)} results each", file=sys.stderr)
        for line in differences[:50]:
            print(f"  {line}", file=sys.stderr)
        sys.exit(1)
    print(f"determinism: {args.runs} runs x {len(first)} results (check x binding x version), identical "
          f"statuses every run ({tally}; verdict {first_verdict}, exit {first_code}); "
          f"median run {statistics.median(walls) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
