#!/usr/bin/env python3
"""How long the kit takes to judge agents of different speeds, at its default concurrency.

    python3 scripts/agent_speed.py                      # every agent below, the default --jobs
    python3 scripts/agent_speed.py --only slow-3s --statuses-at 16
    python3 scripts/agent_speed.py --kit /tmp/old/a2a-tck --agent /tmp/old/a2a-reference-agent --no-build

It builds the release binaries (unless --no-build), then, for each agent, starts the release
reference agent as its own process on a free port and runs `a2a-tck --target URL --quiet` against
it with no other option (the default concurrency), timing the run:

  slow-3s    --delay-ms 3000: every answer 3 s late, requests answered concurrently (the delay is
             a per-request wait, nothing is serialised)
  slow-300   --delay-ms 300: an agent with a 300 ms model
  endless    every stream stays open after its last event (faults stream-open-after-terminal,
             stream-open-after-interrupted, subscribe-open-after-terminal): the checks that wait
             for a stream to close wait the kit's stream wait each time
  fast       no delay: the kit's wall time against the agent process's own CPU time for the run
             (utime + stime from /proc/PID/stat, before and after), the median of --fast-runs
  busy       --work-us 1000: 1 ms of CPU on every request, one request at a time (a single-threaded
             agent's work, about a second a run): the same figures; a kit that keeps the agent busy
             takes little more wall time than the agent's CPU time

`--statuses-at N` runs the slow-3s agent a second time with `--jobs N` and prints the results
whose status differs. The figures are written to reports/bench/agents-latest.json (--out).
Exits 1 when a kit run exits other than 0 or 1 (the kit could not run).
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
TICK = os.sysconf("SC_CLK_TCK")

ENDLESS = ["stream-open-after-terminal", "stream-open-after-interrupted", "subscribe-open-after-terminal"]
AGENTS = {
    "slow-3s": ["--delay-ms", "3000"],
    "slow-300": ["--delay-ms", "300"],
    "endless": [a for fault in ENDLESS for a in ("--fault", fault)],
    "fast": [],
    "busy": ["--work-us", "1000"],
}
# Agents whose CPU time is compared with the kit's wall time.
TIMED_CPU = ("fast", "busy")


def start_agent(binary, extra):
    agent = subprocess.Popen(
        [binary, "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = agent.stdout.readline().strip()  # "listening on http://127.0.0.1:PORT"
    if not line.startswith("listening on "):
        agent.kill()
        sys.exit(f"the reference agent did not start: {line!r}")
    return agent, line.removeprefix("listening on ")


def cpu_seconds(pid):
    """User and system CPU time of a process so far, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # After the command name: state is field 3, utime 14 and stime 15 (1-based, man 5 proc).
    return (int(fields[11]) + int(fields[12])) / TICK


def children_cpu():
    """User and system CPU time of the reaped children so far, in seconds."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_kit(kit, url, extra, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [kit, "--target", url, "--quiet", "--report", report, *extra],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return None, None
        wall = time.perf_counter() - started
        if done.returncode not in (0, 1):
            sys.exit(f"a2a-tck exited {done.returncode}: {done.stderr[-2000:]}")
        with open(report) as f:
            return wall, json.load(f)


def statuses(report):
    return {(r["id"], r.get("binding"), r.get("version")): r["status"] for r in report["results"]}


def summary(report):
    if report is None:
        return {"results": 0, "statuses": {}, "run_again_alone": 0, "timed_out": True}
    counts = {}
    for r in report["results"]:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    alone = sum("run again alone" in r["message"] for r in report["results"])
    out = {"results": len(report["results"]), "statuses": counts, "run_again_alone": alone,
           "verdict": report["verdict"]}
    if "concurrency" in report:
        out["concurrency"] = report["concurrency"]
    return out


def describe(name, figures):
    if figures.get("timed_out"):
        return f"{name:9} over {figures['wall_s']:.0f} s: cut off (--timeout)"
    line = f"{name:9} {figures['wall_s']:7.2f} s  {figures['results']} results {figures['statuses']}"
    line += f", {figures['run_again_alone']} run again alone"
    if "concurrency" in figures:
        c = figures["concurrency"]
        line += (f", concurrency from {c.get('start')} up to {c.get('highest')}, {c.get('at_end')} at the end "
                 f"(ceiling {c.get('ceiling')}, most in flight {c.get('most_in_flight')}"
                 f"{', lowered ' + str(len(c['lowered'])) + ' times' if c.get('lowered') else ''})")
    return line


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated agents: " + ",".join(AGENTS))
    parser.add_argument("--kit", default=os.path.join(TARGET, "release", "a2a-tck"))
    parser.add_argument("--agent", default=os.path.join(TARGET, "release", "a2a-reference-agent"))
    parser.add_argument("--fast-runs", type=int, default=5)
    parser.add_argument("--statuses-at", type=int, metavar="JOBS",
                        help="also run the slow-3s agent at --jobs JOBS and compare the statuses")
    parser.add_argument("--timeout", type=float, default=900, help="seconds one kit run may take")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--out", default=os.path.join(ROOT, "reports", "bench", "agents-latest.json"))
    parser.add_argument("extra", nargs="*", help="extra arguments for a2a-tck")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(AGENTS)
    for name in names:
        if name not in AGENTS:
            sys.exit(f"no agent {name!r}; known: {', '.join(AGENTS)}")
    if not args.no_build:
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "-p", "a2a-tck", "-p", "a2a-reference-agent"],
            cwd=ROOT,
            check=True,
        )
    results = {}
    for name in names:
        agent, url = start_agent(args.agent, AGENTS[name])
        try:
            if name in TIMED_CPU:
                run_kit(args.kit, url, args.extra, args.timeout)  # warm-up
                walls, cpus, ratios, kit_cpus = [], [], [], []
                for _ in range(args.fast_runs):
                    before, kit_before = cpu_seconds(agent.pid), children_cpu()
                    wall, report = run_kit(args.kit, url, args.extra, args.timeout)
                    cpu = cpu_seconds(agent.pid) - before
                    kit_cpus.append(children_cpu() - kit_before)
                    walls.append(wall)
                    cpus.append(cpu)
                    ratios.append(wall / cpu if cpu > 0 else float("inf"))
                figures = summary(report)
                figures.update({
                    "wall_s": statistics.median(walls),
                    "agent_cpu_s": statistics.median(cpus),
                    "kit_cpu_s": statistics.median(kit_cpus),
                    "wall_over_agent_cpu": statistics.median(ratios),
                    "runs": args.fast_runs,
                })
            else:
                wall, report = run_kit(args.kit, url, args.extra, args.timeout)
                figures = summary(report)
                figures["wall_s"] = args.timeout if report is None else wall
                if name == "slow-3s" and args.statuses_at and report is not None:
                    wall_at, report_at = run_kit(args.kit, url, ["--jobs", str(args.statuses_at), *args.extra],
                                                 args.timeout)
                    here, there = statuses(report), statuses(report_at or {"results": []})
                    differ = sorted(
                        f"{k[0]} [{k[1]} {k[2]}]: {here.get(k)} at the default, {there.get(k)} at --jobs {args.statuses_at}"
                        for k in set(here) | set(there) if here.get(k) != there.get(k))
                    figures["at_jobs"] = {"jobs": args.statuses_at, "wall_s": wall_at, "differ": differ}
        finally:
            agent.terminate()
            agent.wait(timeout=10)
        results[name] = figures
        print(describe(name, figures), flush=True)
        if name in TIMED_CPU:
            print(f"{'':9} agent CPU {figures['agent_cpu_s']:.2f} s, kit CPU {figures['kit_cpu_s']:.2f} s; "
                  f"kit wall / agent CPU {figures['wall_over_agent_cpu']:.2f}x (median of {figures['runs']})",
                  flush=True)
        if "at_jobs" in figures:
            at = figures["at_jobs"]
            print(f"{'':9} at --jobs {at['jobs']}: {at['wall_s']:.2f} s; "
                  f"{len(at['differ'])} statuses differ", flush=True)
            for line in at["differ"]:
                print(f"{'':11}{line}")
    results["machine"] = {"cpus": os.cpu_count()}
    results["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    results["kit"] = args.kit
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print(f"written to {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
