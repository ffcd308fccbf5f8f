"""Model selection within a table row: every job's per-epoch history, and the run (and epoch) a row reports.

Transfer rows select on the STS 2016 mean (the paper's "test" selection) or on the 22-set mean ("oracle");
supervised rows on validation Pearson. With several seeds a run is scored by its seeds' mean, each seed at
its own best epoch. Training (universal initialisation), the analyses and the report all choose through here.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from paraphrastic.atomic import sha256_file
from paraphrastic.configuration import grids
from paraphrastic.configuration.grids import seeds_of
from paraphrastic.configuration.jobs import supervised_jobs
from paraphrastic.data.supervised_splits import TASKS
from paraphrastic.errors import PipelineError
from paraphrastic.layout import DataLayout
from paraphrastic.provenance import read_with_beside


def select(histories: dict[tuple[str, int], list[dict]], names: list[str], seeds: dict[str, list[int]],
           criterion: str) -> tuple[str, dict[int, dict]]:
    """Model selection within one row: the run whose seeds score best on average, each seed at its best epoch.

    ``histories[(run, seed)]`` is a job's per-epoch history. ``criterion="selection_pearson"`` is the
    paper's "test" selection (mean of the 5 STS 2016 sets); ``"transfer_pearson"`` is "oracle"
    selection (mean of the 22 evaluation sets). With one seed per run this is the paper's search
    over every (run, epoch) pair. A run with a seed that never scored (a collapsed model: NaN) is
    not eligible. Returns the run and, per seed, the selected epoch's history entry.
    """
    best = None
    for name in names:
        epochs = {}
        for seed in seeds[name]:
            scored = [e for e in histories[(name, seed)] if not math.isnan(e[criterion])]
            if scored:
                epochs[seed] = max(scored, key=lambda e: e[criterion])
        if not epochs or len(epochs) < len(seeds[name]):
            continue
        mean = sum(e[criterion] for e in epochs.values()) / len(epochs)
        if best is None or mean > best[2]:
            best = (name, epochs, mean)
    if best is None:
        raise PipelineError(f"no run among {names} has a scored epoch for every seed")
    return best[0], best[1]


def model_dir(data_dir: Path, run: str, seed: int) -> Path:
    """Where one training job (a run and one of its seeds) writes model.pt, history and train.json."""
    return DataLayout(data_dir).job(run, seed)


class Selection:
    """Every job's per-epoch history, and model selection over runs (and epochs) within a row.

    A row's score is the mean over its selected run's seeds, each seed at its own selected epoch;
    with several seeds the report also gives their standard deviation.
    """

    def __init__(self, config: dict, data_dir: Path, rows: list[str] | None = None):
        """``rows``: only these table rows (and only their jobs' files are read); default all."""
        self.runs, self.rows = grids.expand(config)
        if rows is not None:
            unknown = [r for r in rows if r not in self.rows]
            if unknown:
                raise PipelineError(f"no experiment or grid row named {unknown[0]!r} in params")
            self.rows = {r: self.rows[r] for r in rows}
            self.runs = {name: self.runs[name] for r in rows for name in self.rows[r]}
        self.labels = grids.row_labels(config)
        self.seeds = {r: seeds_of(config, settings) for r, settings in self.runs.items()}
        jobs = [(r, s) for r, seeds in self.seeds.items() for s in seeds]
        self.trains, self.histories = {}, {}
        for job in jobs:
            self.trains[job], self.histories[job] = read_with_beside(model_dir(data_dir, *job) / "train.json",
                                                                     "history.json")
        self.chosen = {row: {kind: select(self.histories, names, self.seeds, criterion)
                             for kind, criterion in (("test", "selection_pearson"), ("oracle", "transfer_pearson"))}
                       for row, names in self.rows.items()}

    def first_seed(self, row: str, kind: str = "test") -> tuple[str, int, dict]:
        """The row's selected run, its first seed, and that seed's selected epoch (a history row)."""
        run, epochs = self.chosen[row][kind]
        seed = min(epochs)
        return run, seed, epochs[seed]

    def scores(self, row: str, kind: str = "test", metric: str = "transfer_pearson") -> list[float]:
        """One score per seed of the row's selected run."""
        return [epoch[metric] for _, epoch in sorted(self.chosen[row][kind][1].items())]

    def score(self, row: str, kind: str = "test") -> float:
        return float(np.mean(self.scores(row, kind)))

    def sd(self, row: str, kind: str = "test") -> float:
        """Sample standard deviation over seeds (NaN with one seed)."""
        values = self.scores(row, kind)
        return float(np.std(values, ddof=1)) if len(values) > 1 else math.nan

    def shown(self, row: str, kind: str = "test") -> str:
        """The score as tables and findings print it: the mean, with ± sd when the row has several seeds."""
        n = len(self.chosen[row][kind][1])
        return f"{self.score(row, kind):.1f} ± {self.sd(row, kind):.1f}" if n > 1 else f"{self.score(row, kind):.1f}"

    def as_results(self, row: str, kind: str = "test") -> dict:
        """The selected epochs' per-set scores (mean over seeds) in the layout of a results/*.json file."""
        epochs = list(self.chosen[row][kind][1].values())
        sets = epochs[0]["per_dataset"]

        def mean(key, name):
            return float(np.mean([e.get(key, {}).get(name, math.nan) for e in epochs]))

        return {"datasets": {k: {"pearson": mean("per_dataset", k), "spearman": mean("per_dataset_spearman", k)}
                             for k in sets}}


def universal_init_record(config: dict, data_dir: Path, row: str) -> dict:
    """Where universal supervised runs of ``init`` row ``row`` start (Table 8): the row's STS-2016-selected run
    ("test" selection, as Tables 2-3 report it), its model.pt per seed with the file's sha256.

    Written once per row by the ``universal_init`` stage, so a universal job depends on this record rather than
    on every transfer model: a change to another row (a new grid point, say) leaves the record byte-identical,
    and DVC retrains no universal job (Snakemake lists the row's files anyway)."""
    try:
        sel = Selection(config, Path(data_dir), rows=[row])
    except PipelineError as exc:
        raise PipelineError(f"universal init row {row!r}: {exc}") from exc
    run, epochs = sel.chosen[row]["test"]
    models = {}
    for seed in sorted(epochs):
        path = model_dir(Path(data_dir), run, seed) / "model.pt"
        models[str(seed)] = {"path": path.as_posix(), "sha256": sha256_file(path)}
    return {"row": row, "run": run, "selection": "test", "models": models}


def universal_init_model(record: dict, seed: int, where: str) -> Path:
    """The model.pt a universal job of this seed starts from: the selected run's own seed when it has it, else
    its first seed. The file must still be the one the record was written for (``where`` names the record)."""
    models = record["models"]
    chosen = models.get(str(seed)) or models[str(min(int(s) for s in models))]
    path = Path(chosen["path"])
    if not path.is_file() or sha256_file(path) != chosen["sha256"]:
        raise PipelineError(f"{where}: {path} is missing or changed since the record was written; rerun the "
                            "universal_init stage (`dvc repro` or snakemake reruns it)")
    return path


def supervised_dir(data_dir: Path, task: str, run: str, seed: int, universal: bool) -> Path:
    """Where one supervised job writes model.pt, history and train.json (universal runs in a subfolder)."""
    return DataLayout(data_dir).supervised_job(task, run, seed, universal)


class SupervisedSelection:
    """Model selection within each supervised row and task: the run (and epoch) with the best validation
    Pearson, its seeds averaged; the score reported is the selected epochs' test Pearson."""

    def __init__(self, config: dict, data_dir: Path):
        self.runs, self.rows = grids.expand_supervised(config)
        self.labels = {row["id"]: {"model": row.get("display", row["model"]), "regularization": row.get("label", "")}
                       for row in config["supervised"]["grids"]}
        self.seeds = {name: seeds_of(config, settings) for name, settings in self.runs.items()}
        self.jobs = supervised_jobs(config, self.runs)
        self.histories, self.trains = {}, {}
        for job in self.jobs.values():
            folder = supervised_dir(data_dir, job["task"], job["run"], job["seed"], bool(job["init"]))
            key = (job["task"], job["run"], job["seed"])
            self.trains[key], self.histories[key] = read_with_beside(folder / "train.json", "history.json")
        self.chosen = {}
        for row, names in self.rows.items():
            for task in TASKS:
                trained = [n for n in names if any(j["run"] == n and j["task"] == task for j in self.jobs.values())]
                if trained:
                    histories = {(run, seed): h for (t, run, seed), h in self.histories.items() if t == task}
                    self.chosen[(row, task)] = select(histories, trained, self.seeds, "validation_pearson")

    def scores(self, row: str, task: str, metric: str = "test_pearson") -> list[float]:
        if (row, task) not in self.chosen:
            return []
        return [epoch[metric] for _, epoch in sorted(self.chosen[(row, task)][1].items())]

    def score(self, row: str, task: str, metric: str = "test_pearson") -> float:
        values = self.scores(row, task, metric)
        return float(np.mean(values)) if values else math.nan

    def shown(self, row: str, task: str) -> str:
        values = self.scores(row, task)
        if not values:
            return "–"
        if len(values) > 1:
            return f"{np.mean(values):.1f} ± {np.std(values, ddof=1):.1f}"
        return f"{values[0]:.1f}"
