"""The paper profile's cluster plan, from the full-size rehearsal: python benchmarks/cluster_plan.py

For every rule the paper profile submits to SLURM: its jobs (the job tables Snakemake plans from
params.yaml), its submissions under the SLURM profile's job grouping, the time one job takes on one CPU
thread of this machine, the CPU-hours of all of them, and the profile's memory and time requests beside
the peak memory the rehearsal measured (benchmarks/rehearsal.py, --scale 1). A group's requests are
Snakemake's (its members' threads and memory summed, the longest runtime), while the SLURM plugin runs
the members one after another, so a group of n holds n times the CPUs it uses while it runs; the
CPU-hours allocated are set beside the work. A GPU job's duration is not known here: for it, the table
gives the GPU-hours its time limit reserves, an upper bound.

Times are extrapolated from the rehearsal's own measurements: a training job's speed at d=300 (tokens
per second on SimpWiki pairs for transfer jobs, pairs per second for supervised ones) and its seconds
outside training (loading, scoring an epoch), times the job's tokens or pairs and epochs.
Models the rehearsal did not train take the speed of their closest measured kin (GRAN-2..5: GRAN);
supervised jobs of other models scale the measured supervised GRAN speed by the models' transfer speeds.
Writes <results>/cluster_plan.md.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.configuration.jobs import JobTables  # noqa: E402
from paraphrastic.configuration.settings import experiment, supervised_experiment  # noqa: E402
from paraphrastic.data.supervised_splits import build_task_table  # noqa: E402
from paraphrastic.pipeline.job_resources import RULES  # noqa: E402

LOCAL = {"fetch"}  # the Snakefile's localrules among the measured stages: they run on the submit host
# A model the rehearsal did not train takes its closest measured kin's speed.
KIN = {"gran2": "gran", "gran3": "gran", "gran4": "gran", "gran5": "gran", "bigran": "gran", "lstm": "lstmavg",
       "bilstmavg": "lstmavg", "lstmavg": "lstm", "gran": "bigran"}


def measured_kin(model: str, transfer: dict) -> str:
    for candidate in (model, KIN.get(model), KIN.get(KIN.get(model, ""), "")):
        if candidate in transfer:
            return candidate
    raise SystemExit(f"the rehearsal trained no {model} (nor a kin of it): rerun it with --families {model}")


PROFILES = (REPO / "profiles/default/config.yaml", REPO / "profiles/slurm/config.yaml")  # the workflow's, the site's


def profile_requests(profiles: tuple[Path, Path]) -> tuple[dict, dict, dict]:
    """The default resources (the site profile's), the per-rule resources (each rule's own,
    paraphrastic.pipeline.job_resources.RULES, with a profile's `set-resources` over them resource by resource)
    and the group sizes per rule (the workflow profile's), as Snakemake merges them: profiles key by key, the
    workflow profile last."""
    profile = {}
    for path in reversed(profiles):
        profile |= yaml.safe_load(path.read_text())
    groups = dict(entry.split("=") for entry in profile.get("groups", []))
    sizes = {name: int(n) for name, n in (entry.split("=") for entry in profile.get("group-components", []))}
    overrides = profile.get("set-resources", {})
    per_rule = {rule: {**RULES.get(rule, {}), **overrides.get(rule, {})} for rule in {*RULES, *overrides}}
    return profile["default-resources"], per_rule, {rule: sizes.get(group, 1) for rule, group in groups.items()}


def speeds(rehearsal: dict) -> tuple[dict, dict, dict]:
    """Each model's measured training row (on SimpWiki), the supervised row, and the peak memory per rule."""
    transfer, supervised, memory = {}, {}, defaultdict(float)
    for row in rehearsal["stages"]:
        stage = row["stage"].split(" ")[0]
        memory[stage] = max(memory[stage], row["peak_rss_mb"])
        if stage == "train" and row["train_set"] == "simpwiki":
            transfer[row["model"]] = row
        elif stage == "train_supervised":
            supervised[row["model"]] = row
    return transfer, supervised, memory


def job_hours(units: float, epochs: int, speed: dict, units_per_second: float) -> float:
    # Loading and one epoch's scoring were measured once; a job pays the scoring every epoch.
    return epochs * (units / units_per_second + speed["other_s"]) / 3600


def training_hours(config: dict, tables: JobTables, rehearsal: dict, checks: dict,
                   task_pairs: dict) -> dict[str, dict]:
    """Jobs and hours of work per training rule at one rehearsal's speeds (``checks``: the paper-size counts)."""
    transfer, supervised, _ = speeds(rehearsal)
    # A transfer job's time goes with its tokens: the token-matched tables hold as many as SimpWiki, in
    # pairs of other lengths. Speeds were measured on SimpWiki pairs.
    tokens = {"simpwiki": checks["simpwiki_tokens"], "simpwiki_matched": checks["simpwiki_matched_tokens"],
              "ppdb_matched": checks["ppdb_matched_tokens"], "ppdb": checks["ppdb_tokens"]}
    tokens_per_pair = checks["simpwiki_tokens"] / checks["simpwiki_pairs"]
    rows = defaultdict(lambda: {"jobs": 0, "hours": 0.0})
    for job in tables.jobs.values():
        settings = experiment(config, job["run"], tables.runs, seed=job["seed"])
        model = measured_kin(settings.model, transfer)
        row = rows["train"]
        row["jobs"] += 1
        row["hours"] += job_hours(tokens[settings.train_set], settings.epochs, transfer[model],
                                  transfer[model]["pairs_per_second"] * tokens_per_pair)
    (reference, measured), = supervised.items()
    for job in tables.supervised_jobs.values():
        settings = supervised_experiment(config, job["run"], job["task"], job["seed"], tables.supervised_runs,
                                         transfer_rows=tables.rows)
        model = measured_kin(settings.model, transfer)
        relative = transfer[model]["pairs_per_second"] / transfer[reference]["pairs_per_second"]
        row = rows["train_universal" if job["init"] else "train_supervised"]
        row["jobs"] += 1
        row["hours"] += job_hours(task_pairs[job["task"]], settings.epochs, measured,
                                  measured["pairs_per_second"] * relative)
    return dict(rows)


def plan(config: dict, rehearsal: dict, mirror: Path, profiles: tuple[Path, Path] = PROFILES,
         gpu: dict | None = None) -> list[dict]:
    """One row per rule. ``gpu``: a rehearsal whose training ran on a GPU; it adds each training rule's
    GPU-hours at its speeds (the job counts and sizes stay those of ``rehearsal``, at the paper's sizes)."""
    tables = JobTables.of(config)
    _, _, memory = speeds(rehearsal)
    task_pairs = {task: int((build_task_table(task, mirror, sets=config["supervised"]["sts_sets"],
                                              split=config["supervised"]["split"])["split"] == "train").sum())
                  for task in config["supervised"]["tasks"]}
    rows = training_hours(config, tables, rehearsal, rehearsal["checks"], task_pairs)
    on_gpu = {} if gpu is None else training_hours(config, tables, gpu, rehearsal["checks"], task_pairs)
    for row in rehearsal["stages"]:  # the single jobs of the data phase, measured as they are
        if " " not in row["stage"] and row["stage"] not in LOCAL:
            rows[row["stage"]] = {"jobs": 1, "hours": row["wall_s"] / 3600}
    default, per_rule, group_sizes = profile_requests(profiles)
    out = []
    for rule, row in rows.items():
        request = {**default, **per_rule.get(rule, {})}
        size = group_sizes.get(rule, 1)
        peak = memory["train_supervised" if rule == "train_universal" else rule]
        # A group holds the sum of its members' threads (Snakemake's request) while the plugin runs the members
        # one after another: for as long as they run, it holds `size` times the CPUs a job uses.
        allocated = None if request.get("gpu") else size * config["threads"] * row["hours"]
        out.append({"rule": rule, "jobs": row["jobs"], "submissions": math.ceil(row["jobs"] / size),
                    "per_submission": size, "cpu_hours": row["hours"], "mean_job_hours": row["hours"] / row["jobs"],
                    "cpu_hours_allocated": allocated,
                    "gpu_hours_reserved": row["jobs"] * request["runtime"] / 60 if request.get("gpu") else None,
                    "gpu": bool(request.get("gpu")), "gpu_hours_measured": on_gpu.get(rule, {}).get("hours"),
                    "mem_request_mb": request["mem_mb"] * size, "peak_mb": peak,
                    "runtime_request_min": request["runtime"]})
    return out


def totals(rows: list[dict]) -> dict:
    """What the plan costs: CPU-hours of work in all and in the rules the profile keeps on CPUs, submissions."""
    return {"cpu_hours": sum(r["cpu_hours"] for r in rows),
            "cpu_rules_hours": sum(r["cpu_hours"] for r in rows if not r["gpu"]),
            "submissions": sum(r["submissions"] for r in rows)}


def compared(now: list[dict], before: list[dict], rehearsal: dict, earlier: dict) -> str:
    """The plan beside the same plan at an earlier rehearsal's speeds (the same jobs, profile and grouping)."""
    new, old = totals(now), totals(before)
    return (f"At the speeds of the rehearsal of commit {earlier.get('commit') or '(unrecorded)'} (before), against "
            f"those of commit {rehearsal.get('commit') or '(unrecorded)'} (now), for the same jobs: "
            f"{old['cpu_rules_hours']:,.0f} → {new['cpu_rules_hours']:,.0f} CPU-hours of work in the rules the "
            f"profile runs on CPUs ({new['cpu_rules_hours'] / old['cpu_rules_hours']:.2f}×), "
            f"{old['cpu_hours']:,.0f} → {new['cpu_hours']:,.0f} CPU-hours with the transfer jobs on CPUs too, "
            f"{old['submissions']:,} → {new['submissions']:,} SLURM submissions.")


def markdown(rows: list[dict], rehearsal: dict, gpu: dict | None = None) -> str:
    measured = gpu is not None
    lines = ["| rule | jobs | SLURM submissions | one job, 1 CPU thread (min, mean) | CPU-hours of work | "
             "CPU-hours allocated | GPU-hours reserved | " + ("GPU-hours of work on one GPU | " if measured else "")
             + "memory request per submission / one job's measured peak (MiB) | time request per submission (h) |",
             "|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if measured else "") + "---:|---:|"]
    for r in rows:
        gpu_cell = f"{r['gpu_hours_reserved']:,.0f}" if r["gpu_hours_reserved"] else "–"
        if measured:
            hours = r["gpu_hours_measured"]
            gpu_cell += " | " + ("–" if hours is None else f"{hours:,.0f}" if r["gpu"] else f"({hours:,.0f})")
        allocated = "–" if r["cpu_hours_allocated"] is None else f"{r['cpu_hours_allocated']:,.0f}"
        grouped = f" ({r['per_submission']} per)" if r["per_submission"] > 1 else ""
        minutes = 60 * r["mean_job_hours"]
        lines.append(f"| {r['rule']} | {r['jobs']:,} | {r['submissions']:,}{grouped} | {minutes:,.1f} | "
                     f"{r['cpu_hours']:,.0f} | {allocated} | {gpu_cell} | "
                     f"{r['mem_request_mb']:,} / {r['peak_mb']:,.0f} | "
                     f"{r['runtime_request_min'] / 60:g} |")
    total = totals(rows)
    lines += ["", f"{sum(r['jobs'] for r in rows):,} jobs in {total['submissions']:,} SLURM submissions; "
              f"{total['cpu_hours']:,.0f} CPU-hours of work on one thread each, "
              f"{sum(r['cpu_hours_allocated'] or 0 for r in rows):,.0f} CPU-hours allocated to the CPU jobs "
              f"(speeds measured at scale {rehearsal['scale']}, {rehearsal['machine']})."]
    if measured:
        cpu_rules = total["cpu_rules_hours"]
        gpu_rules = sum(r["gpu_hours_measured"] or 0 for r in rows if r["gpu"])
        reserved = sum(r["gpu_hours_reserved"] or 0 for r in rows)
        lines += ["", f"As the SLURM profile sends them (the GPU rules to the GPU partition): {cpu_rules:,.0f} "
                  f"CPU-hours of work in the CPU rules and {gpu_rules:,.0f} GPU-hours of work in the GPU rules, "
                  f"which reserve {reserved:,.0f}. GPU speeds measured on {gpu['device']} (a rehearsal at scale "
                  f"{gpu['scale']}, {gpu['batches']} batches a job, {gpu['machine']}); in parentheses, what a CPU "
                  "rule would take on that GPU."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rehearsal", type=Path, default=HERE / "results/rehearsal.json")
    parser.add_argument("--gpu-rehearsal", type=Path, default=HERE / "results/rehearsal_gpu.json",
                        help="a rehearsal whose training ran on a GPU (benchmarks/rehearsal.py --name rehearsal_gpu "
                             "on a GPU node); skipped where the file does not exist")
    parser.add_argument("--before", type=Path, default=HERE / "results/rehearsal_before.json",
                        help="an earlier rehearsal at the paper's sizes: its plan is compared (skipped where the "
                             "file does not exist)")
    parser.add_argument("--profiles", type=Path, nargs=2, default=PROFILES, metavar=("WORKFLOW", "SITE"),
                        help="the workflow profile and the site's SLURM profile (default: profiles/default and "
                             "profiles/slurm)")
    parser.add_argument("--mirror", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    config = cfg.load(REPO / "params.yaml", REPO / cfg.DEFAULT_SCHEMA)
    config["data_profile"] = "paper"
    rehearsal = json.loads(args.rehearsal.read_text())
    if rehearsal["scale"] != 1:
        print(f"warning: {args.rehearsal} is a rehearsal at scale {rehearsal['scale']}, not the paper's sizes",
              file=sys.stderr)
    gpu = json.loads(args.gpu_rehearsal.read_text()) if args.gpu_rehearsal.exists() else None
    if gpu is not None and not gpu.get("device", "").startswith("cuda"):
        raise SystemExit(f"{args.gpu_rehearsal}: its training ran on {gpu.get('device', 'cpu')}, not a GPU")
    rows = plan(config, rehearsal, args.mirror, tuple(args.profiles), gpu)
    text = markdown(rows, rehearsal, gpu)
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "cluster_plan.md").write_text(text)
    print(text)
    if args.before.exists():  # docs/performance.md's "paper profile cost" block
        earlier = json.loads(args.before.read_text())
        sentence = compared(rows, plan(config, earlier, args.mirror, tuple(args.profiles)), rehearsal, earlier)
        (args.results / "cluster_plan_compared.md").write_text(sentence + "\n")
        print(sentence)
    return 0


if __name__ == "__main__":
    sys.exit(main())
