#!/usr/bin/env python3
"""Benchmark of the full built-in run: wall time and peak memory of `a2a-tck` over repeated runs.

    python3 scripts/bench.py                 # 20 runs, prints the figures, writes reports/bench/latest.json
    python3 scripts/bench.py --runs 50 --baseline reports/bench/before.json

It builds the release binary first, then runs `a2a-tck --quiet` (the built-in reference agent, all
checks) as a child process each time, timing it and reading its peak resident set size from the
kernel's rusage. Goals (issue 2): median wall < 0.5 s, peak RSS < 30 MB on a 2-core machine.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "a2a-tck")


def run_once(extra):
    start = time.perf_counter()
    child = subprocess.Popen([BINARY, "--quiet", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"a2a-tck exited {code}: {child.stderr.read().decode(errors='replace')}")
    return wall, usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--baseline", help="an earlier result file to compare with")
    parser.add_argument("--out", default=os.path.join(ROOT, "reports", "bench", "latest.json"))
    parser.add_argument("extra", nargs="*", help="extra arguments for a2a-tck")
    args = parser.parse_args()

    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "a2a-tck"], cwd=ROOT, check=True)
    run_once(args.extra)  # warm-up: page cache, first-run effects
    walls, rss = [], []
    for _ in range(args.runs):
        wall, peak = run_once(args.extra)
        walls.append(wall)
        rss.append(peak)
    walls.sort()
    result = {
        "runs": args.runs,
        "wall_s": {
            "median": statistics.median(walls),
            "p90": walls[int(0.9 * (len(walls) - 1))],
            "min": walls[0],
            "max": walls[-1],
        },
        "peak_rss_mb": {"max": max(rss), "median": statistics.median(rss)},
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(f"full builtin run, {args.runs} runs: median {result['wall_s']['median'] * 1000:.0f} ms "
          f"(p90 {result['wall_s']['p90'] * 1000:.0f} ms, min {result['wall_s']['min'] * 1000:.0f} ms), "
          f"peak RSS {result['peak_rss_mb']['max']:.1f} MB")
    print(f"goals: median < 500 ms: {'met' if result['wall_s']['median'] < 0.5 else 'MISSED'}; "
          f"peak RSS < 30 MB: {'met' if result['peak_rss_mb']['max'] < 30 else 'MISSED'}")
    if args.baseline:
        with open(args.baseline) as f:
            base = json.load(f)
        dw = result["wall_s"]["median"] / base["wall_s"]["median"] - 1
        dm = result["peak_rss_mb"]["max"] / base["peak_rss_mb"]["max"] - 1
        print(f"against {args.baseline}: median wall {dw:+.1%}, peak RSS {dm:+.1%}")
    print(f"written to {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
