"""The measured blocks of the README and the docs, written from committed results, never by hand:
python pages/readme.py [--check]

A block is the text between ``<!-- NAME -->`` and ``<!-- /NAME -->`` on one page (README.md or docs/*.md):

- ``time profile``: benchmarks/results/time_profile.md, which benchmarks/time_profile.py writes from a run;
- ``test suite``: benchmarks/results/test_suite.json, the record of a whole-suite run of scripts/test.sh
  (``PARAPHRASTIC_TEST_RECORD=benchmarks/results/test_suite.json bash scripts/test.sh``), and, where
  benchmarks/results/test_suite_before.json holds an older commit's record made back to back with it, the two
  compared;
- ``rehearsal``, ``rehearsal on a GPU``, ``cluster plan`` and ``paper profile cost``: benchmarks/results/rehearsal.md,
  rehearsal_gpu.md, cluster_plan.md and cluster_plan_compared.md, which benchmarks/rehearsal.py and cluster_plan.py
  write (the last from the plan at rehearsal_before.json's speeds);
- ``gated sum`` and ``allocator``: benchmarks/results/gated_sum.md and allocator.md, which benchmarks/gated_sum.py
  and allocator.py write; ``throughput``: benchmarks/results/results.md, which benchmarks/run.py writes;
  ``tokenize speed``: benchmarks/results/tokenize_speed.md, which benchmarks/tokenize_speed.py writes;
- ``sentence distillation ablation``: benchmarks/results/sentence_distill_ablation.json, which
  benchmarks/sentence_distill_ablation.py writes, with the row params.yaml names marked;
- ``fidelity effects``, ``authors code``, ``authors steps``, ``authors steps summary``, ``reading``, ``end to
  end``, ``fidelity cells``, ``same start``, ``untrained starts`` and ``cell curves``:
  fidelity/results/fidelity_effects.md, authors_code.md, authors_steps.md, authors_steps_summary.md, reading.md,
  end_to_end.md, fidelity_cells.md, same_start.md, untrained_starts.md and cell_curves.md, which fidelity/effects.py,
  run.py, steps.py, steps_summary.py, reading.py, end_to_end.py, grid_cells.py, same_start.py, untrained_starts.py
  and curves.py write; ``static tokenizer``:
  benchmarks/results/static_tokenizer.md, which benchmarks/static_tokenizer.py writes;
- ``headline``: the README's table of Table 4's models, their distilled twins and all-MiniLM-L6-v2, from the
  last whole offline run (docs/offline/, which pages/offline_run.py copies from a run: its metrics.json and
  timings.json) beside the paper's Table 4 (``paper_tables`` in params.yaml);
- ``default run cost``: the default run's time profile (benchmarks/results/time_profile.json) against its aims
  (AIM_HOURS, AIM_CRITICAL_MIN) and, rule by rule, against the last whole run before ``extended`` left the default
  run (time_profile_before.json), whose jobs, regrouped by today's params.yaml, measure what ``extended`` adds;
- ``stanza threads``: the analysis's Stanza models' dev scores in that run's report and in the last extended
  run's (below), with the threads each trainer had;
- ``offline run settings``: the settings today's params.yaml has changed since that run read its own (its copy in
  docs/offline/params.yaml); the headline says the same under its table;
- ``report: HEADING``: the section of that run's report (docs/offline/report.md) whose heading starts with
  HEADING, one heading level down; ``extended report: HEADING``: the same of the last run made with ``extended:
  true`` (docs/offline/extended/, ``pages/offline_run.py RUN --extended``), dated, which holds what the default run
  leaves out (the recurrent rows' twins, the parser comparison; the headline takes the twins' rows from it too), or
  a line saying the run above holds them where it is that run;
- ``params reference``, ``cli reference`` and ``stage graph``: the reference parts pages/reference_pages.py
  writes from params.yaml and its schema, the command line's help and Snakemake's rule graph (the last also draws
  docs/stage_graph.svg with Graphviz's ``dot``, when the graph changed).

``--check`` changes nothing and exits 1 naming each block that differs from its results (tests/test_readme.py).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
from pathlib import Path

from tabulate import tabulate

HERE = Path(__file__).resolve().parent
for _folder in (HERE.parent / "benchmarks", HERE):  # the measurements' scripts (whose tables some blocks rebuild)
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

import offline_run  # noqa: E402
import reference_pages  # noqa: E402

REPO = HERE.parent
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]  # the README and the documentation site's pages
RESULTS = REPO / "benchmarks" / "results"  # the measurements'
FIDELITY = REPO / "fidelity" / "results"  # the comparisons with the authors' code
OFFLINE = REPO / "docs" / "offline"  # the last whole offline run (pages/offline_run.py)
# The default run's aims: a contributor with 2 cores refreshes the pages in one sitting, and a workstation whose cores
# run the rest beside its longest chain of jobs finishes well within an hour
AIM_HOURS, AIM_CRITICAL_MIN = 2.5, 40
SECTION = "report: "  # a block named "report: HEADING" is that section of OFFLINE/report.md
EXTENDED_SECTION = "extended report: "  # ... and "extended report: HEADING" that of the last extended run's
MINILM = "all-MiniLM-L6-v2"


def test_suite() -> str:
    record = json.loads((RESULTS / "test_suite.json").read_text())
    before = RESULTS / "test_suite_before.json"  # an older commit's run, made back to back with the record
    compared = ""
    if before.exists():
        old = json.loads(before.read_text())
        compared = (f" The same command on commit {old['commit']}, run just before on the same machine, took "
                    f"{old['seconds']:,.0f} s ({old['setup_s']:,.0f} s of set-up, {old['tests_s']:,.0f} s of tests): "
                    f"{record['seconds'] / old['seconds']:.2f} of it now.")
    verdict = "within" if not record["over_budget"] else "over"
    slowest = [[f"`{row['test']}`", row["phase"], f"{row['seconds']:,.0f}"] for row in record["slowest"][:8]]
    measured = f" (commit {record['commit']}, a fresh clone, `CI=true bash .ci/run`)" if record.get("commit") else ""
    return (f"The whole suite{measured} took **{record['seconds']:,.0f} s ({record['seconds'] / 60:.1f} min)** of wall "
            f"time on "
            f"{record['cpus']} CPUs: {record['setup_s']:,.0f} s of set-up and {record['tests_s']:,.0f} s for its "
            f"{record['tests']:,} tests ({record['failed']} failed"
            + (f"; the machine's CPUs worked {record['tests_cpu_s']:,.0f} s during them"
               if record.get("tests_cpu_s") is not None else "")
            + f"), {verdict} its budget of "
            f"{record['budget_s']:,.0f} s.{compared} Its slowest tests (a module's shared pipeline run counts in the "
            "set-up of the first test that uses it):\n\n"
            + tabulate(slowest, ["test", "phase", "s"], tablefmt="github", disable_numparse=True) + "\n")


def static_encoders() -> str:
    """The README's short table: each encoder benchmarks/mteb_sts.py measured or cites, by its MTEB STS12-16 mean
    (the five tasks, Spearman) and, where measured, our 22-set mean."""
    from paraphrastic.evaluation.mteb_sts import mean_over_tasks

    result = json.loads((RESULTS / "mteb_sts.json").read_text())
    rows = []
    for how, encoders in (("measured here", result["measured"]), ("published", result["published"])):
        for name, scores in encoders.items():
            if (mean := mean_over_tasks(scores)) is not None:
                ours = result.get("sts22", {}).get(name) if how == "measured here" else None
                rows.append([name, f"{mean:.1f}", "–" if ours is None else f"{ours:.1f}", how])
    return (tabulate(rows, ["encoder", "MTEB STS12–16 (ρ)", "our 22 sets (r)", ""], tablefmt="github",
                     disable_numparse=True)
            + f"\n\nMeasured at {result['commit']} on the offline data by `benchmarks/mteb_sts.py` "
              "([Results](docs/results.md#on-mtebs-protocol-beside-the-published-static-models) has every task).\n")


def paper_means() -> dict[str, float]:
    """The paper's Table 4: each model's mean over the 22 transfer sets (its rows other than the year averages)."""
    import pandas as pd

    from paraphrastic.configuration import params

    folder = (REPO / params.load(REPO / "params.yaml")["paper_tables"]).resolve()
    table = pd.read_csv(folder / "wieting2017_table4.csv")
    sets = table[~table["dataset"].str.contains("Average")]
    if len(sets) != 22:
        raise SystemExit(f"{folder / 'wieting2017_table4.csv'}: {len(sets)} sets, not the 22 transfer sets")
    return {model: float(sets[model].mean()) for model in table.columns if model not in ("dataset", "year_group")}


def headline() -> str:
    """Our models beside the paper's and MiniLM: 22-set mean (Pearson), MTEB's STS mean (Spearman) and speed."""
    metrics = json.loads((OFFLINE / "metrics.json").read_text())
    speeds = json.loads((OFFLINE / "timings.json").read_text())["reference_encoder_sentences_per_second"]
    run = json.loads((OFFLINE / "run.json").read_text())
    paper = paper_means()
    since = changed_settings()
    rows = []
    encoders = [(name, scores, speeds, "") for name, scores in metrics["reference_encoder"].items()]
    extended = extended_run()
    if extended is not None:  # what the default run leaves out, from the last run that made it
        more = json.loads((extended / "metrics.json").read_text())["reference_encoder"]
        speeds_then = json.loads((extended / "timings.json").read_text())["reference_encoder_sentences_per_second"]
        encoders += [(name, scores, speeds_then, " †") for name, scores in more.items()
                     if name not in metrics["reference_encoder"]]
    for name, scores, speed, mark in encoders:
        mteb = scores.get("mteb_sts_spearman")
        rows.append([name + mark, f"{scores['transfer_pearson']:.1f}", f"{paper[name]:.1f}" if name in paper else "–",
                     "–" if mteb is None else f"{mteb:.1f}", f"{speed[name]:,.0f}",
                     f"{speed[name] / speed[MINILM]:,.0f}×"])
    dagger = (f" † From {extended_named(extended)}, which the default run leaves out for their cost; their speed is "
              "that run's, beside its own all-MiniLM-L6-v2." if any(mark for *_, mark in encoders) else "")
    return (tabulate(rows, ["encoder", "22 sets (r)", "paper (r)", "MTEB STS12–16 (ρ)", "sentences/s",
                            f"× {MINILM}"], tablefmt="github", disable_numparse=True)
            + f"\n\nThe offline run at commit {run['commit']} (report written {run['report_written']}): Table 4's "
              "models selected on STS 2016 and trained on GloVe 6B 50-d, the distilled vectors and their twins, "
              "the untrained initial vectors, and all-MiniLM-L6-v2, scored by the same scorer on the 22 transfer sets "
              "(× 100); "
              "sentences per second from raw text on one CPU thread. `paraphrastic compare-metrics "
              "docs/offline/metrics.json data/report/metrics.json` puts your own run's metrics beside them, one a "
              "line; "
              f"[the whole report](docs/offline/report.md).{dagger}\n\n"
              + (f"{since}\n\n" if since else "")
              + "![Accuracy against speed](docs/offline/accuracy_speed.png)\n")


def settings(config: dict, prefix: str = "") -> dict[str, object]:
    """A config's settings by dotted key, in the file's order (a list is one setting)."""
    flat: dict[str, object] = {}
    for key, value in config.items():
        if isinstance(value, dict) and value:
            flat.update(settings(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def changed_settings() -> str:
    """Which settings of today's params.yaml differ from those the committed offline run read, grouped by section,
    or "" when none does: its numbers are of those settings, not of today's defaults."""
    import yaml

    from paraphrastic.configuration.params import read_yaml

    unset = object()
    run = settings(read_yaml(OFFLINE / "params.yaml"))
    now = settings(read_yaml(REPO / "params.yaml"))
    keys = [*now, *(key for key in run if key not in now)]
    changed = [key for key in keys if run.get(key, unset) != now.get(key, unset)]
    if not changed:
        return ""

    def shown(value) -> str:
        if value is unset:
            return "unset"
        text = yaml.safe_dump(value, default_flow_style=True)  # a scalar's document ends in "..."
        return f"`{text.strip().removesuffix('...').strip()}`"

    sections: dict[str, list[str]] = {}
    for key in changed:
        section, _, name = key.rpartition(".")
        sections.setdefault(section, []).append(f"`{name}` {shown(run.get(key, unset))} → {shown(now.get(key, unset))}")
    commit = json.loads((OFFLINE / "run.json").read_text())["commit"]
    return (f"Since the offline run at commit {commit}, params.yaml has changed {len(changed)} "
            f"setting{'s' * (len(changed) != 1)}, so that run's numbers are not yet those of today's defaults (the "
            "CHANGELOG says what each change reruns): "
            + "; ".join(f"`{section}`: {', '.join(names)}" if section else ", ".join(names)
                        for section, names in sections.items()) + ".")


def extended_jobs() -> dict[str, set[str]]:
    """Rule -> the names of its jobs that ``extended`` adds to today's params.yaml's default run: the recurrent
    twins' training jobs, and the parser comparison's two stages."""
    from paraphrastic.configuration import params
    from paraphrastic.configuration.jobs import JobTables

    config = params.load(REPO / "params.yaml")
    default, extended = JobTables.of(dict(config, extended=False)), JobTables.of(dict(config, extended=True))
    return {"train": set(extended.jobs) - set(default.jobs),
            **{rule: {rule} for rule in ("stanza_models_compared", "parse_compared")}}


def extended_parts(profile: dict, added: dict[str, set[str]]) -> dict[str, list[dict]]:
    """``profile``'s jobs (a time profile's JSON) that ``extended`` adds (``added``: :func:`extended_jobs`), by
    part."""
    left: dict[str, list[dict]] = {}
    for job in profile["jobs"]:
        if job["job"] in added.get(job["rule"], set()):
            part = "the recurrent twins" if job["rule"] == "train" else "the parser comparison"
            left.setdefault(part, []).append(job)
    return left


def cpu_of(jobs: list[dict]) -> float:
    return sum(job["cpu_seconds"] or 0.0 for job in jobs)


def default_run_cost() -> str:
    """The default run's time profile (benchmarks/results/time_profile.json) against its aims and against the last
    whole run before ``extended`` left the default run (time_profile_before.json), rule by rule, with what
    ``extended`` adds as that run measured it."""
    before = json.loads((RESULTS / "time_profile_before.json").read_text())
    now = json.loads((RESULTS / "time_profile.json").read_text())
    extended = extended_jobs()
    left = extended_parts(now, extended)
    if left:
        raise SystemExit(f"{RESULTS / 'time_profile.json'}: {now['label']} ran what `extended: true` adds "
                         f"({', '.join(left)}), so it is not a default run (benchmarks/time_profile.py RUN of one)")
    added = extended_parts(before, extended)
    cores, cpu, cpu_before = now["cores"], cpu_of(now["jobs"]), cpu_of(before["jobs"])
    if now["wall_seconds"]:
        wall, how = now["wall_seconds"], "wall time"
    else:  # resumed: what it takes with every core busy
        wall, how = cpu / cores, f"its CPU seconds over the {cores} cores ({len(now['invocations'])} invocations)"
    critical = now["critical_path"]
    chain = " → ".join(f"{job['job']} ({job['seconds'] / 60:.0f} min)" for job in critical["jobs"]
                       if job["seconds"] >= 60)
    parts = "; ".join(f"{part}, {len(jobs)} job{'s' * (len(jobs) != 1)} and {cpu_of(jobs):,.0f} CPU-s"
                      for part, jobs in added.items())

    def against(value: float, aim: float, unit: str) -> str:
        return (f"within the aim of {aim:g} {unit}" if value <= aim
                else f"{value - aim:.1f} {unit} over the aim of {aim:g} {unit}")

    def capitalized(label: str) -> str:
        return label[:1].upper() + label[1:]

    text = (f"{capitalized(now['label'])}: {len(now['jobs'])} jobs, {cpu:,.0f} CPU-s, "
            f"{wall / 3600:.2f} h of {how} on {cores} cores ({against(wall / 3600, AIM_HOURS, 'h')}); its critical "
            f"path {critical['seconds'] / 60:.0f} min ({against(critical['seconds'] / 60, AIM_CRITICAL_MIN, 'min')}), "
            f"by its jobs of a minute or more: {chain}. {capitalized(before['label'])}, the last "
            f"whole run before `extended` left the default run, had {len(before['jobs'])} jobs and "
            f"{cpu_before:,.0f} CPU-s ({cpu_before / before['cores'] / 3600:.1f} h with its "
            f"{before['cores']} cores busy). `extended: true` adds "
            f"what that run measured of the rest: {parts}.\n")
    by_rule = {rule: [[job for job in run["jobs"] if job["rule"] == rule] for run in (before, now)]
               for rule in {job["rule"] for job in before["jobs"] + now["jobs"]}}
    table = []
    for rule, (then, mine) in sorted(by_rule.items(), key=lambda item: -cpu_of(item[1][0] + item[1][1])):
        table.append([rule, len(then), f"{cpu_of(then):,.0f}", len(mine), f"{cpu_of(mine):,.0f}",
                      f"{cpu_of(mine) - cpu_of(then):+,.0f}"])
    table.append(["**all**", len(before["jobs"]), f"{cpu_before:,.0f}", len(now["jobs"]), f"{cpu:,.0f}",
                  f"{cpu - cpu_before:+,.0f}"])
    head = ["rule", "jobs before", "CPU s before", "jobs now", "CPU s now", "change"]
    return text + "\n" + tabulate(table, head, tablefmt="github", disable_numparse=True) + "\n"


STANZA_DEV = re.compile(r"On UD EWT dev \(([\d,]+) sentences, gold words\): UPOS ([\d.]+), XPOS ([\d.]+), "
                        r"UAS ([\d.]+), LAS ([\d.]+)\.")
STANZA_THREADS = re.compile(r"Stanza models trained here \((\d+) threads? each\)")


def stanza_threads() -> str:
    """The analysis's Stanza models on UD EWT dev in the default run (docs/offline/) and in the last extended run
    (docs/offline/extended/, where it is another run), with the threads each trainer had: Stanza's arithmetic
    depends on its thread count, so the same training on other threads gives other models. They are read from each
    report's gate section, the one place a copied run records them."""
    rows = []
    for folder in (OFFLINE, *filter(None, [extended_run()])):
        text = (folder / "report.md").read_text()
        dev, threads = STANZA_DEV.search(text), STANZA_THREADS.search(text)
        if not (dev and threads):
            raise SystemExit(f"{folder / 'report.md'}: no Stanza dev scores or threads a trainer (its gate "
                             "analysis section, from models trained here)")
        commit, written = run_of(folder)
        rows.append([f"{commit} ({written[:10]})", threads[1], *dev.groups()[1:]])
    return ("The analysis's Stanza models of each run the pages hold, with the threads each trainer had, scored on "
            "UD EWT dev (gold words) by the run's report:\n\n"
            + tabulate(rows, ["run", "threads a trainer", "UPOS", "XPOS", "UAS", "LAS"], tablefmt="github",
                       disable_numparse=True) + "\n")


def offline_run_settings() -> str:
    commit = json.loads((OFFLINE / "run.json").read_text())["commit"]
    return (changed_settings() or f"The offline run at commit {commit} read today's params.yaml: its numbers are "
            "those of today's defaults.") + "\n"


def run_of(folder: Path) -> tuple[str, str]:
    """A copied run's commit and the time its report was written (its run.json)."""
    run = json.loads((folder / "run.json").read_text())
    return run["commit"], run["report_written"]


def extended_folder() -> Path:
    """Where pages/offline_run.py RUN --extended copies the last run made with ``extended: true``."""
    return OFFLINE / offline_run.EXTENDED


def extended_run() -> Path | None:
    """The last run made with ``extended: true`` (:func:`extended_folder`), where it is another run than OFFLINE's
    (which then leaves out what it holds); None where there is none or it is OFFLINE's own."""
    folder = extended_folder()
    if not (folder / "run.json").is_file() or run_of(folder) == run_of(OFFLINE):
        return None
    return folder


def extended_named(folder: Path) -> str:
    commit, written = run_of(folder)
    return (f"the last run that made the recurrent rows' twins and the parser comparison (`extended: true`), at "
            f"commit {commit} (report written {written})")


def extended_report_section(heading: str, page: Path) -> str:
    """:func:`report_section` of the last extended run, said to be it, or a line saying that the offline run above
    is that run, where it is."""
    folder = extended_folder()
    if not (folder / "run.json").is_file():
        raise SystemExit(f"{folder}: no run.json (`python pages/offline_run.py RUN --extended` copies a run made "
                         "with `--config extended=True` there)")
    if extended_run() is None:
        return (f"The offline run above is {extended_named(folder)}: the section above holds what `extended: true` "
                "adds.\n")
    return (f"From {extended_named(folder)}, which the default run above leaves out for their cost:\n\n"
            + report_section(heading, page, folder))


def report_section(heading: str, page: Path, folder: Path | None = None) -> str:
    """The section of the offline report (or ``folder``'s) whose heading starts with ``heading`` (down to the next
    heading of its level or above), each heading one level down, and its figures' paths made relative to
    ``page``."""
    folder = folder or OFFLINE
    lines = (folder / "report.md").read_text().splitlines()
    found = [i for i, line in enumerate(lines) if line.lstrip("#").startswith(" " + heading) and line.startswith("#")]
    if len(found) != 1:
        raise SystemExit(f"{folder / 'report.md'}: {len(found)} headings start with {heading!r}, not one")
    start = found[0]
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith("#") and len(lines[i]) - len(lines[i].lstrip("#")) <= level), len(lines))
    prefix = os.path.relpath(folder, page.parent).replace(os.sep, "/")
    section = ["#" + line if line.startswith("#") else line for line in lines[start:end]]
    text = "\n".join(section).strip() + "\n"
    return re.sub(r"(!\[[^\]]*\]\()([^)/\s]+\))", lambda m: f"{m[1]}{prefix}/{m[2]}", text)


def distill_sweep() -> str:
    """The sweep's table, marking the configuration today's params.yaml names."""
    import distill_sweep as sweep

    from paraphrastic.configuration import params

    settings = params.load(REPO / "params.yaml")["word_vectors"]["distilled"]
    return sweep.markdown(json.loads((RESULTS / "distill_sweep.json").read_text()), settings)


def sentence_distillation_ablation() -> str:
    """benchmarks/results/sentence_distill_ablation.json as its script writes it, the row params.yaml names marked
    from the params.yaml of the day."""
    import sentence_distill_ablation as ablation

    from paraphrastic.configuration import params

    config = params.load(REPO / "params.yaml")["word_vectors"]
    return ablation.markdown(json.loads((RESULTS / "sentence_distill_ablation.json").read_text()),
                             config["sentence_distilled"], config["tokenizer"])


BLOCKS = {"time profile": lambda: (RESULTS / "time_profile.md").read_text(), "test suite": test_suite,
          "rehearsal": lambda: (RESULTS / "rehearsal.md").read_text(),
          "rehearsal on a GPU": lambda: (RESULTS / "rehearsal_gpu.md").read_text(),
          "cluster plan": lambda: (RESULTS / "cluster_plan.md").read_text(),
          "paper profile cost": lambda: (RESULTS / "cluster_plan_compared.md").read_text(),
          "gated sum": lambda: (RESULTS / "gated_sum.md").read_text(),
          "allocator": lambda: (RESULTS / "allocator.md").read_text(),
          "fidelity effects": lambda: (FIDELITY / "fidelity_effects.md").read_text(),
          "authors code": lambda: (FIDELITY / "authors_code.md").read_text(),
          "authors steps": lambda: (FIDELITY / "authors_steps.md").read_text(),
          "authors steps summary": lambda: (FIDELITY / "authors_steps_summary.md").read_text(),
          "reading": lambda: (FIDELITY / "reading.md").read_text(),
          "end to end": lambda: (FIDELITY / "end_to_end.md").read_text(),
          "fidelity cells": lambda: (FIDELITY / "fidelity_cells.md").read_text(),
          "same start": lambda: (FIDELITY / "same_start.md").read_text(),
          "untrained starts": lambda: (FIDELITY / "untrained_starts.md").read_text(),
          "cell curves": lambda: (FIDELITY / "cell_curves.md").read_text(),
          "static tokenizer": lambda: (RESULTS / "static_tokenizer.md").read_text(),
          "throughput": lambda: (RESULTS / "results.md").read_text(),
          "mteb sts": lambda: (RESULTS / "mteb_sts.md").read_text(),
          "step profile": lambda: (RESULTS / "step_profile.md").read_text(),
          "tokenize speed": lambda: (RESULTS / "tokenize_speed.md").read_text(),
          "sentence distillation ablation": sentence_distillation_ablation,
          "quick look": lambda: (RESULTS / "quick_look.md").read_text(),
          "distill sweep": distill_sweep, "offline run settings": offline_run_settings,
          "static encoders": static_encoders, "headline": headline, "default run cost": default_run_cost,
          "stanza threads": stanza_threads,
          "params reference": reference_pages.params_reference, "cli reference": reference_pages.cli_reference,
          "stage graph": reference_pages.stage_graph}


def filled(text: str, page: Path = README) -> tuple[str, list[str]]:
    """``page``'s text with every block it holds rewritten from its results, and the names of those that changed."""
    changed = []
    sections = {name: functools.partial(render, name.removeprefix(prefix), page)
                for prefix, render in ((SECTION, report_section), (EXTENDED_SECTION, extended_report_section))
                for name in re.findall(rf"<!-- ({prefix}[^>]+?) -->\n", text)}
    for name, render in {**BLOCKS, **sections}.items():
        start, end = f"<!-- {name} -->\n", f"<!-- /{name} -->"
        if start not in text:
            continue
        if end not in text:
            raise SystemExit(f"{page}: block `{start.strip()}` has no end `{end}`")
        head, rest = text.split(start, 1)
        old, tail = rest.split(end, 1)
        new = render()
        if old != new:
            changed.append(name)
        text = head + start + new + end + tail
    return text, changed


def placed() -> dict[str, Path]:
    """The page of each block: every block is on exactly one page."""
    where: dict[str, list[Path]] = {name: [] for name in BLOCKS}
    for page in PAGES:
        text = page.read_text()
        for name in BLOCKS:
            if f"<!-- {name} -->\n" in text:
                where[name].append(page)
    wrong = {name: pages for name, pages in where.items() if len(pages) != 1}
    if wrong:
        found = "; ".join(f"`{name}` on {[str(p) for p in pages] or 'none'}" for name, pages in wrong.items())
        raise SystemExit(f"each block must be on exactly one page of README.md and docs/: {found}")
    return {name: pages[0] for name, pages in where.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block is stale")
    args = parser.parse_args(argv)
    stale = []
    placed()  # every fixed block on exactly one page; a page may hold report sections alone
    for page in PAGES:
        text, changed = filled(page.read_text(), page)
        name = page.relative_to(README.parent)
        stale += [f"{name}: block `{block}`" for block in changed]
        if changed and not args.check:
            page.write_text(text)
            print(f"{name}: {', '.join(changed)} rewritten")
    if not args.check and reference_pages.draw_stage_graph():
        print(f"{reference_pages.STAGE_GRAPH_SVG.relative_to(README.parent)}: drawn again")
    if args.check:
        if reference_pages.drawn_from() != reference_pages.digest_of_edges():
            stale.append(f"{reference_pages.STAGE_GRAPH_SVG.relative_to(README.parent)}: not drawn from the current "
                         "stage graph")
        for line in stale:
            print(f"{line} differs from its results (python pages/readme.py)", file=sys.stderr)
        return 1 if stale else 0
    if not stale:
        print("every block is current")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
