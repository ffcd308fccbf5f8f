"""Where a pipeline run's wall time goes, per rule and per phase of a job: python benchmarks/time_profile.py [RUN]

Reads what a Snakemake run of the pipeline leaves in its working directory RUN (default: this checkout): every job's
benchmark file (logs/benchmarks/<rule>/<job>.tsv: wall seconds and peak memory) and the phases each job's command
prints to its log (logs/<rule>/<job>.log, src/paraphrastic/phases.py: start-up, loading, training, evaluation,
writing, other). The run's span comes from Snakemake's log of the invocation that ran the jobs (.snakemake/log/),
and so does the critical path: the longest chain of jobs each needing a file the one before wrote (the jobs' blocks
there give their inputs and outputs). Prints a table, one row a rule, heaviest first, and writes it with its numbers
to --out (default benchmarks/results/time_profile.md and .json). A rule's job seconds are summed over its jobs; with
several jobs at once they add up to more than the run's wall time, and the share column says which part of all job
time each rule is. A job started in more than one invocation counts its last attempt only (the table says how many).
A job whose log has no phase line (a failed attempt, or a log of older code) counts in its rule's seconds but not in
the phase columns.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

from tabulate import tabulate

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE))

from measured import publish  # noqa: E402

from paraphrastic.phases import PHASES, parse  # noqa: E402

SNAKEMAKE_TIME = "[%a %b %d %H:%M:%S %Y]"  # a job event's line in Snakemake's log
SNAKEMAKE_STAMP = re.compile(r"\[\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}\]")


def benchmark(path: Path) -> dict:
    """One Snakemake benchmark file: its first run's wall seconds, CPU seconds and peak resident memory (MiB)."""
    header, values = path.read_text().splitlines()[:2]
    row = dict(zip(header.split("\t"), values.split("\t"), strict=True))

    def number(key: str) -> float | None:
        value = row.get(key, "-")
        return float(value) if value not in ("-", "NA", "") else None

    return {"seconds": float(row["s"]), "cpu_seconds": number("cpu_time"), "peak_rss_mb": number("max_rss")}


def jobs(run: Path, given: dict[str, int]) -> list[dict]:
    """Every job with a benchmark file: its rule, name, seconds, peak memory, phases (None without a phase line) and
    the threads Snakemake gave it (``given``: :func:`threads`; 1 where its logs do not say)."""
    found = []
    for path in sorted((run / "logs" / "benchmarks").glob("*/*.tsv")):
        rule, name = path.parent.name, path.stem
        log = run / "logs" / rule / f"{name}.log"
        spent = parse(log.read_text(errors="replace")) if log.is_file() else None
        found.append({"rule": rule, "job": name, **benchmark(path), "ended": path.stat().st_mtime, "phases": spent,
                      "threads": given.get(f"logs/benchmarks/{rule}/{name}.tsv", 1)})
    return found


def snakemake_logs(run: Path) -> list[tuple[str, list[str]]]:
    """Each Snakemake invocation's log (.snakemake/log/), oldest first: its name and lines, read once."""
    return [(log.name, log.read_text(errors="replace").splitlines())
            for log in sorted((run / ".snakemake" / "log").glob("*.snakemake.log"))]


JOB_BLOCK = re.compile(r"(?:local)?rule (\S+):")


def job_blocks(lines: list[str]):
    """The job blocks of a Snakemake log, as {key: value} (``rule``, ``input``, ``output``, ``benchmark``, ...): a
    ``rule NAME:`` line and the indented ``key: value`` lines under it."""
    block: dict | None = None
    for line in lines:
        start = JOB_BLOCK.fullmatch(line.strip())
        if start:
            if block:
                yield block
            block = {"rule": start.group(1)}
        elif block is not None and line.startswith("    ") and ": " in line:
            key, _, value = line.strip().partition(": ")
            block[key] = value
        elif block is not None:
            yield block
            block = None
    if block:
        yield block


def threads(logs: list[tuple[str, list[str]]]) -> dict[str, int]:
    """{a job's benchmark file: the threads Snakemake's log says it ran with} (the last invocation's word)."""
    return {block["benchmark"]: int(block["threads"]) for _, lines in logs for block in job_blocks(lines)
            if "benchmark" in block and block.get("threads", "").isdigit()}


def restarted(logs: list[tuple[str, list[str]]]) -> list[str]:
    """The jobs (their benchmark files) that Snakemake started in more than one invocation: a job stopped with its
    run and started again. Snakemake rewrites a job's benchmark file at each start, so it holds the last attempt's
    seconds only (a training job resumed from its checkpoint trains the rest; the seconds before are not in it)."""
    started = Counter(name for _, lines in logs
                      for name in {block["benchmark"] for block in job_blocks(lines) if "benchmark" in block})
    return sorted(name for name, count in started.items() if count > 1)


FLAGGED = re.compile(r" \([a-z_]+\)$")  # a flag Snakemake prints after a path: "model.pt (update)"


def paths(block: dict, key: str) -> list[str]:
    """A job block's input or output paths, without the flags Snakemake prints after them."""
    return [FLAGGED.sub("", path) for path in block.get(key, "").split(", ") if path]


def critical_path(found: list[dict], logs: list[tuple[str, list[str]]]) -> dict | None:
    """The longest chain of jobs each of which needed a file the one before wrote, by the jobs' seconds as measured
    (with the waits for a core they held, on the run's cores): the part of the run that more cores would not have
    run side by side. The jobs' inputs and outputs come from their blocks in Snakemake's logs (the
    last block of each); an input that is a folder waits for every job that wrote a file inside it. None where the
    logs hold no job block (a run Snakemake did not log)."""
    seconds = {f"logs/benchmarks/{job['rule']}/{job['job']}.tsv": job["seconds"] for job in found}
    blocks = {block["benchmark"]: block for _, lines in logs for block in job_blocks(lines)
              if block.get("benchmark") in seconds}
    if not blocks:
        return None
    writer = {path: name for name, block in blocks.items() for path in paths(block, "output")}

    def needs(name: str) -> set[str]:
        upstream = set()
        for path in paths(blocks[name], "input"):
            if path in writer:
                upstream.add(writer[path])
            else:
                inside = path.rstrip("/") + "/"
                upstream |= {job for out, job in writer.items() if out.startswith(inside)}
        return upstream - {name}

    def longer(chain: tuple[float, list[str]]) -> tuple[float, int]:
        # of chains as long in seconds, the one with more jobs: a job measured at 0 s (Snakemake's benchmark rounds
        # to hundredths) still ends the chain it follows, and the tie would otherwise go to whichever came first
        return chain[0], len(chain[1])

    longest: dict[str, tuple[float, list[str]]] = {}
    visiting: set[str] = set()

    def chain(name: str) -> tuple[float, list[str]]:
        if name not in longest:
            visiting.add(name)  # a folder input can name a job downstream of this one: that is no dependency
            before = max((chain(job) for job in needs(name) - visiting), default=(0.0, []), key=longer)
            visiting.discard(name)
            longest[name] = (before[0] + seconds[name], [*before[1], name])
        return longest[name]

    total, path = max((chain(name) for name in blocks), key=longer)
    return {"seconds": total, "jobs": [{"job": name.removeprefix("logs/benchmarks/").removesuffix(".tsv"),
                                        "seconds": seconds[name]} for name in path]}


def invocations(logs: list[tuple[str, list[str]]]) -> list[dict]:
    """Each Snakemake invocation (``logs``: :func:`snakemake_logs`) that finished jobs: how many, and its span from
    the first to the last time stamp of its log (dry runs and `--touch` finish none)."""
    found = []
    for name, lines in logs:
        finished = sum(line.startswith("Finished job") for line in lines)
        stamps = [datetime.strptime(line, SNAKEMAKE_TIME) for line in lines if SNAKEMAKE_STAMP.fullmatch(line)]
        if finished and len(stamps) > 1:
            found.append({"log": name, "finished": finished, "seconds": (stamps[-1] - stamps[0]).total_seconds()})
    return found


def span(ran: list[dict], found: list[dict]) -> float | None:
    """The run's wall seconds, where one invocation ran it (``ran``: :func:`invocations`): that invocation's span;
    with no Snakemake log, from the first job's start to the last job's end (each benchmark file is written as its
    job ends). A run resumed over several invocations has no one wall time (None): their spans also hold jobs
    redone after a change."""
    if len(ran) == 1:
        return ran[0]["seconds"]
    if ran or not found:
        return None
    return max(job["ended"] for job in found) - min(job["ended"] - job["seconds"] for job in found)


def profile(found: list[dict]) -> list[dict]:
    """One row a rule: its jobs, job seconds (sum, share of all, median, longest), phases summed, peak memory."""
    total = sum(job["seconds"] for job in found) or 1.0
    rows = []
    for rule in sorted({job["rule"] for job in found}):
        mine = [job for job in found if job["rule"] == rule]
        timed = [job["phases"] for job in mine if job["phases"]]
        seconds = sum(job["seconds"] for job in mine)
        memory = [job["peak_rss_mb"] for job in mine if job["peak_rss_mb"] is not None]
        cpu = [job["cpu_seconds"] for job in mine if job["cpu_seconds"] is not None]
        rows.append({"rule": rule, "jobs": len(mine), "seconds": seconds, "share": seconds / total,
                     "cpu_seconds": sum(cpu) if cpu else None,
                     "core_seconds": sum(job["seconds"] * job["threads"] for job in mine),
                     "median_s": statistics.median(job["seconds"] for job in mine),
                     "longest_s": max(job["seconds"] for job in mine),
                     "phased_jobs": len(timed),
                     "phases": {name: sum(p.get(name, 0.0) for p in timed) for name in PHASES} if timed else None,
                     "peak_rss_mb": max(memory) if memory else None})
    return sorted(rows, key=lambda row: -row["seconds"])


def markdown(rows: list[dict], wall: float | None, label: str, *, resumed: int = 0, cores: int = 2,
             restarts: int = 0, critical: dict | None = None) -> str:
    def phase_cell(row: dict, name: str) -> str:
        if not row["phases"]:
            return "—"
        return f"{row['phases'][name]:,.0f} ({row['phases'][name] / max(sum(row['phases'].values()), 1e-9):.0%})"

    def number(value: float | None) -> str:
        return "—" if value is None else f"{value:,.0f}"

    table = [[row["rule"], row["jobs"], f"{row['seconds']:,.0f}", f"{row['share']:.1%}", number(row["cpu_seconds"]),
              f"{row['median_s']:,.1f}",
              f"{row['longest_s']:,.0f}", *(phase_cell(row, name) for name in PHASES),
              number(row["peak_rss_mb"])] for row in rows]
    seconds = sum(row["seconds"] for row in rows)
    cpu_seconds = sum(row["cpu_seconds"] or 0.0 for row in rows)
    core_seconds = sum(row["core_seconds"] for row in rows)
    phased = [row["phases"] for row in rows if row["phases"]]
    sums = {name: sum(p[name] for p in phased) for name in PHASES}
    table.append(["**all**", sum(row["jobs"] for row in rows), f"{seconds:,.0f}", "100%", f"{cpu_seconds:,.0f}", "", "",
                  *(f"{sums[name]:,.0f} ({sums[name] / max(sum(sums.values()), 1e-9):.0%})" if phased else "—"
                    for name in PHASES), ""])
    head = ["rule", "jobs", "job s", "share", "CPU s", "median s", "longest s", *PHASES, "peak MiB"]
    lines = [f"Where the time of {label} went: job seconds per rule (Snakemake's benchmark files), the CPU seconds "
             "the rule's jobs worked (their `cpu_time`, which Snakemake samples twice a second for a job's first 15 s "
             "and every 30 s after, so up to half a minute of a long job's last work can be missed) and, summed over "
             "the rule's jobs, the phases each job's log reports (seconds, share of the rule's phased time).", ""]
    if wall:
        lines += [f"Wall time from the first to the last job: {wall:,.0f} s ({wall / 60:.1f} min); the jobs' seconds "
                  f"add up to {seconds / wall:.2f}× that (jobs ran side by side).", ""]
    elif resumed:
        lines += [f"The run was made in {resumed} Snakemake invocations (stopped and resumed), so it has no one wall "
                  f"time; its jobs' core-seconds (each job's seconds times the threads it was given) over {cores} "
                  f"cores, {core_seconds / cores:,.0f} s ({core_seconds / cores / 3600:.1f} h), are what it takes "
                  "with every core busy. A job's seconds also hold any time it stood stopped or waited for a core; "
                  f"its CPU seconds do not, and theirs over the {cores} cores come to {cpu_seconds / cores:,.0f} s "
                  f"({cpu_seconds / cores / 3600:.1f} h).", ""]
    if critical:
        steps = " → ".join(f"{job['job']} ({job['seconds']:,.0f} s)" for job in critical["jobs"])
        lines += [f"The critical path, the longest chain of jobs each needing a file the one before wrote: "
                  f"{critical['seconds']:,.0f} s ({critical['seconds'] / 60:.1f} min), {steps}, by the jobs' "
                  f"seconds on these {cores} cores: more cores run the rest beside it, not this chain.", ""]
    if restarts:
        lines += [f"{restarts} job(s) were started in more than one invocation; Snakemake rewrites a job's benchmark "
                  "file at each start, so their seconds here are the last attempt's only: a job resumed from its "
                  "checkpoint counts the part after the resumption alone, and the table undercounts it (a job "
                  "redone after a change counts its new run, as it should).", ""]
    return "\n".join(lines) + "\n" + tabulate(table, head, tablefmt="github", disable_numparse=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", nargs="?", default=".", type=Path, help="the run's working directory (default: .)")
    parser.add_argument("--label", default="the run", help="what the run was, for the table's caption")
    parser.add_argument("--cores", type=int, default=2, help="the cores the run had (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "time_profile",
                        help="writes OUT.md and OUT.json (default: %(default)s)")
    args = parser.parse_args(argv)
    logs = snakemake_logs(args.run)
    found = jobs(args.run, threads(logs))
    if not found:
        raise SystemExit(f"{args.run / 'logs/benchmarks'}: no benchmark files (run the pipeline with Snakemake first)")
    ran = invocations(logs)
    rows, wall = profile(found), span(ran, found)
    again = restarted(logs)
    critical = critical_path(found, logs)
    text = markdown(rows, wall, args.label, resumed=len(ran) if wall is None else 0, cores=args.cores,
                    restarts=len(again), critical=critical)
    publish(args.out, {"label": args.label, "wall_seconds": wall, "cores": args.cores, "invocations": ran,
                       "restarted": again, "critical_path": critical, "rules": rows, "jobs": found}, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
