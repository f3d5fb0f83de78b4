#!/usr/bin/env python3
"""Benchmark of the results site: how long a matrix of many agents takes to load and filter.

    python3 scripts/site_bench.py                  # 1,000 agents
    python3 scripts/site_bench.py --agents 5000 --keep /tmp/site-bench

It surveys the built-in reference agent once (`a2a-tck survey`, every check), then writes two
synthetic survey runs of N agents made from that report: each agent's results are the
reference's with a few turned FAIL (about a third of the agents fail; in the second run about a
tenth change), their evidence dropped to keep the files small, each report's digest and counts
in the index as `a2a-tck survey` writes them. It times `a2a-tck site RUN1 RUN2`, and the same
again over the site it wrote (a rebuild), and measures what the site adds to the disk: the bytes
of its files, and of those not hard-linked to the runs' files (blocks counted once per inode,
as du does). Then it loads the
matrix in headless Chromium unfiltered and filtered (#show=failing, #show=changed, #q=agent-09)
and reads what the page's script records on <body> (--dump-dom): data-loaded-ms, the time from
navigation to the page filtered as its URL asks, and data-filter-ms, the filtering alone; the
fastest and the median of --loads loads each (the machine's load shows in the median).
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kit_binary():
    """The newest of the release and debug builds (CARGO_TARGET_DIR, else target/)."""
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    built = [os.path.join(target, p, "a2a-tck") for p in ("release", "debug")]
    built = [p for p in built if os.path.exists(p)]
    if not built:
        sys.exit("no a2a-tck binary: cargo build --release -p a2a-tck")
    return max(built, key=os.path.getmtime)


def chromium():
    found = os.environ.get("A2A_TCK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        sys.exit("no chromium: install it or set A2A_TCK_CHROMIUM")
    return found


def counts_of(results):
    totals = {}
    names = {"PASS": "pass", "FAIL": "fail", "WARN": "warn", "N/A": "not_applicable",
             "UNTESTABLE": "untestable", "ERROR": "error"}
    for r in results:
        level = totals.setdefault(r["level"], {v: 0 for v in names.values()})
        level[names[r["status"]]] += 1
    return totals


def write_run(out, template, entry, agents, seed, changed_share):
    rng = random.Random(seed)
    entries = []
    for i in range(agents):
        name = f"agent-{i:04d}"
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        # The same agents fail in both runs (seeded by the agent); some change in the second.
        own = random.Random(i)
        results = [dict(r) for r in template["results"]]
        broken = own.sample(range(len(results)), 3) if own.random() < 0.33 else []
        if rng.random() < changed_share:
            broken.append(rng.randrange(len(results)))
        for at in broken:
            results[at]["status"] = "FAIL"
        report = dict(template)
        report["results"] = results
        report["totals"] = counts_of(results)
        failed = any(r["status"] == "FAIL" and r["level"] == "MUST" for r in results)
        report["verdict"] = "non-conformant" if failed else "conformant"
        text = json.dumps(report, indent=2) + "\n"
        with open(os.path.join(folder, "report.json"), "w") as f:
            f.write(text)
        e = dict(entry)
        e.update(name=name, target=f"http://agent-{i:04d}.example/", outcome="fail" if failed else "pass",
                 exit_status=1 if failed else 0, verdict=report["verdict"], totals=report["totals"],
                 report=f"{name}/report.json",
                 report_sha256="sha256:" + hashlib.sha256(text.encode()).hexdigest())
        entries.append(e)
    outcomes = {}
    for e in entries:
        outcomes[e["outcome"]] = outcomes.get(e["outcome"], 0) + 1
    return entries, outcomes


def disk(paths):
    """Bytes on disk under `paths` (allocated blocks), each inode counted once, and how many
    files."""
    seen, total, files = set(), 0, 0
    for top in paths:
        for folder, _, names in os.walk(top):
            for name in names:
                st = os.lstat(os.path.join(folder, name))
                files += 1
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    total += st.st_blocks * 512
    return total, files


def build(kit, work, agents):
    """Surveys the built-in agent once, writes two synthetic runs of `agents` agents from its
    report, and makes their site."""
    with open(os.path.join(work, "one.toml"), "w") as f:
        f.write('[[agent]]\nname = "template"\ntarget = "builtin"\n')
    subprocess.run([kit, "survey", "one.toml", "--out", "template"], cwd=work, check=True,
                   stderr=subprocess.DEVNULL)
    with open(os.path.join(work, "template", "index.json")) as f:
        index = json.load(f)
    with open(os.path.join(work, "template", "template", "report.json")) as f:
        template = json.load(f)
    for r in template["results"]:
        r["evidence"] = []
    entry = index["agents"][0]
    for run, (seed, share) in enumerate([(1, 0.0), (2, 0.1)], start=1):
        out = os.path.join(work, f"run{run}")
        entries, outcomes = write_run(out, template, entry, agents, seed, share)
        run_index = dict(index, agents=entries, outcomes=outcomes,
                         finished_at=f"2025-01-0{run}T00:00:00.000Z",
                         started_at=f"2025-01-0{run}T00:00:00.000Z")
        with open(os.path.join(out, "index.json"), "w") as f:
            json.dump(run_index, f, indent=2)
    shutil.rmtree(os.path.join(work, "site"), ignore_errors=True)
    times = []
    for _ in ("first", "again"):
        start = time.perf_counter()
        done = subprocess.run([kit, "site", "run1", "run2", "--out", "site"], cwd=work, check=True,
                              stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - start)
        stored = [line for line in done.stderr.splitlines() if line.startswith("reports:")]
    page = os.path.join(work, "site", "index.html")
    runs = [os.path.join(work, f"run{run}") for run in (1, 2)]
    site = os.path.join(work, "site")
    site_bytes, site_files = disk([site])
    runs_bytes, _ = disk(runs)
    both_bytes, _ = disk(runs + [site])
    print(f"{agents} agents, 2 runs ({runs_bytes / 1e6:.0f} MB of runs): a2a-tck site took "
          f"{times[0]:.2f} s, {times[1]:.2f} s again over itself; the site is {site_files} files, "
          f"{site_bytes / 1e6:.0f} MB, of which {(both_bytes - runs_bytes) / 1e6:.0f} MB not shared "
          f"with the runs; the matrix is {os.path.getsize(page) / 1e6:.2f} MB"
          + (f"; {stored[-1]}" if stored else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--keep", help="write the runs and the site here, and keep them")
    parser.add_argument("--loads", type=int, default=5, help="loads of each filter (default 5)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: load the site already written there, write nothing")
    args = parser.parse_args()
    kit, browser = kit_binary(), chromium()
    work = args.keep or tempfile.mkdtemp(prefix="a2a-tck-site-bench-")
    os.makedirs(work, exist_ok=True)
    try:
        if not args.reuse:
            build(kit, work, args.agents)
        page = os.path.join(work, "site", "index.html")
        profile = os.path.join(work, "profile")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
              f"{args.loads} loads each, milliseconds: fastest / median")
        for fragment in ["", "#show=failing", "#show=changed", "#q=agent-09"]:
            loaded, filtering = [], []
            for _ in range(args.loads):
                dom = subprocess.run(
                    [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                     f"--user-data-dir={profile}", "--dump-dom", f"file://{page}{fragment}"],
                    check=True, capture_output=True, text=True).stdout
                body = re.search(r"<body[^>]*>", dom).group(0)
                attr = lambda name: re.search(name + r'="([^"]*)"', body).group(1)
                loaded.append(float(attr("data-loaded-ms")))
                filtering.append(float(attr("data-filter-ms")))
                shown = attr("data-shown")
            print(f"  {fragment or '(all)':16} {shown:>5} rows shown; loaded and filtered at "
                  f"{min(loaded):.0f} / {statistics.median(loaded):.0f}; the filtering alone "
                  f"{min(filtering):.1f} / {statistics.median(filtering):.1f}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
