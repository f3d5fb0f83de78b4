#!/usr/bin/env python3
"""The kit is never the bottleneck: a full run against a slow agent takes about the agent's serial
work divided by the concurrency.

    python3 scripts/slow_agent.py                    # --delay-ms 20, --jobs 16
    python3 scripts/slow_agent.py --delay-ms 50 --jobs 8 --no-build

It builds the release binaries, starts the reference agent with `--delay-ms N` (every answer N ms
late) on a free port, and runs the kit against it twice: once with `--jobs 1`, where each check's
duration is its own chain of exchanges times the delay (their sum is the agent's serial work, and
divided by the delay, the number of exchanges), then with `--jobs J`. It prints the run time
against serial work / J, and against the longest single check (no schedule can beat it).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from agent_speed import start_agent  # scripts/ is on the path of a script run from it

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "target", "release", "a2a-tck")
AGENT = os.path.join(ROOT, "target", "release", "a2a-reference-agent")


def run_kit(url, jobs, report):
    started = time.perf_counter()
    done = subprocess.run(
        [KIT, "--target", url, "--quiet", "--jobs", str(jobs), "--report", report],
        capture_output=True,
        text=True,
        timeout=600,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"a2a-tck --jobs {jobs} exited {done.returncode}: {done.stdout}{done.stderr}")
    with open(report) as f:
        return wall, json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay-ms", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "-p", "a2a-tck", "-p", "a2a-reference-agent"],
            cwd=ROOT,
            check=True,
        )
    agent, url = start_agent(AGENT, ["--delay-ms", str(args.delay_ms)])
    try:
        with tempfile.TemporaryDirectory() as tmp:
            serial_wall, serial = run_kit(url, 1, os.path.join(tmp, "serial.json"))
            wall, parallel = run_kit(url, args.jobs, os.path.join(tmp, "parallel.json"))
    finally:
        agent.terminate()
        agent.wait(timeout=10)

    durations = [r["duration_ms"] for r in serial["results"]]
    work_ms = sum(durations)
    exchanges = round(work_ms / args.delay_ms)
    ideal_ms = work_ms / args.jobs
    longest = max(serial["results"], key=lambda r: r["duration_ms"])
    bound_ms = max(ideal_ms, longest["duration_ms"])
    print(f"agent: reference agent, --delay-ms {args.delay_ms}; kit: --jobs {args.jobs}")
    print(f"results: {len(parallel['results'])}; verdict {parallel['verdict']}")
    print(
        f"serial work: {work_ms / 1000:.2f} s (sum of check durations at --jobs 1, "
        f"~{exchanges} exchanges x {args.delay_ms} ms); serial run {serial_wall:.2f} s"
    )
    print(f"ideal: exchanges x delay / jobs = {ideal_ms / 1000:.2f} s; longest check "
          f"{longest['id']} {longest['duration_ms'] / 1000:.2f} s; bound {bound_ms / 1000:.2f} s")
    print(f"run time at --jobs {args.jobs}: {wall:.2f} s "
          f"(report duration {parallel['duration_ms'] / 1000:.2f} s), "
          f"{wall / (bound_ms / 1000):.2f}x the bound, speed-up {serial_wall / wall:.1f}x")


if __name__ == "__main__":
    main()
