"""Experiment grids: the paper's tuning spaces, expanded into one training run per configuration.

A grid row (``grids:`` in params.yaml) names a model, a training set, fixed settings and a search
space. Each search axis is a list of values; a value that is a mapping sets several keys at once
(e.g. "scrambling with either word dropout or dropout" is one axis whose values are
``{dropout: 0.2}``, ``{word_dropout: 0.4}``...). ``grid_thinning`` keeps a subset of the values
for a data profile (the offline profile cannot afford the full grids); the report says so.

Each run is named ``<row id>__<hash of its settings>`` and the row/settings manifest is written
by the report, so every number can be traced to its run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math

from paraphrastic.errors import PipelineError


def _allowed(value, key: str, keep: dict) -> bool:
    if isinstance(value, dict):
        return all(_allowed(v, k, keep) for k, v in value.items())
    if key not in keep:
        return True
    return any(value == k or (isinstance(value, float) and isinstance(k, float) and math.isclose(value, k))
               for k in keep[key])


def row_points(row: dict, keep: dict) -> list[dict]:
    """Every configuration of one grid row, after thinning."""
    axes = row.get("search", {})
    values = []
    for key, options in axes.items():
        chosen = [v for v in options if _allowed(v, key, keep)]
        if not chosen:
            raise PipelineError(f"grid row {row['id']}: thinning leaves no value for {key} (had {options})")
        values.append([(key, v) for v in chosen])
    points = []
    for combo in itertools.product(*values):
        # supervised rows have no train_set (a run trains on each task) and may give no epochs
        settings = {k: row[k] for k in ("model", "train_set", "epochs", "init") if k in row}
        settings.update(row.get("fixed", {}))
        for key, value in combo:
            if isinstance(value, dict):
                settings.update(value)
            else:
                settings[key] = value
        points.append(settings)
    return points


def seed_list(value) -> list[int]:
    """A ``seeds`` setting as the seeds themselves: a count N means seeds 1..N."""
    return list(range(1, value + 1)) if isinstance(value, int) else [int(v) for v in value]


def seeds_of(config: dict, run: dict) -> list[int]:
    """The seeds one run is trained with: its own ``seeds`` (or ``seed``), else the top-level
    ``seeds``, else [``train.seed``], else [``seed``]."""
    if "seeds" in run:
        return seed_list(run["seeds"])
    if "seed" in run:
        return [int(run["seed"])]
    if config.get("seeds") is not None:
        return seed_list(config["seeds"])
    return [int(config["train"].get("seed", config["seed"]))]


def run_name(row_id: str, settings: dict) -> str:
    # Seeds are replicas of a run, not part of its identity: adding one renames nothing.
    identity = {k: v for k, v in settings.items() if k not in ("seed", "seeds")}
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:8]
    return f"{row_id}__{digest}"


def _expand_rows(grid_rows: list[dict], keep: dict, runs: dict, rows: dict, *, what: str) -> None:
    """Add each row's points to ``runs`` (by name) and their names to ``rows``. A row's ``seeds`` and
    ``tasks`` travel with its runs but are not part of their names (they are replicas, not settings)."""
    for row in grid_rows:
        if row["id"] in rows:
            raise PipelineError(f"{what} row id {row['id']!r} is used twice (or is also an experiment name)")
        names = []
        for settings in row_points(row, keep):
            name = run_name(row["id"], settings)
            settings.update({key: row[key] for key in ("seeds", "tasks") if key in row})
            runs[name] = settings
            names.append(name)
        rows[row["id"]] = names


def expand(config: dict) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """(runs, rows): every training run by name, and the run names of each selection row.

    Explicit ``experiments`` are rows of one run each, under their own name.
    """
    runs = {name: dict(settings) for name, settings in config["experiments"].items()}
    rows = {name: [name] for name in config["experiments"]}
    _expand_rows(config.get("grids") or [], _thinning(config), runs, rows, what="grid")
    _add_gate_seeds(config, runs, rows)
    _add_distilled_rows(config, runs, rows)
    return runs, rows


def _add_gate_seeds(config: dict, runs: dict, rows: dict) -> None:
    """The gate analysis is repeated on every seed of the run it analyses, so the runs of ``gates.gran_row``
    also train the seeds ``gates.seeds`` names (added to their own). Its distilled twin is not affected."""
    gates = config.get("gates") or {}
    if not gates.get("seeds") or gates.get("gran_row") not in rows:  # check.py names a missing gran_row
        return
    for name in rows[gates["gran_row"]]:
        seeds = sorted(set(seeds_of(config, runs[name])) | set(seed_list(gates["seeds"])))
        runs[name] = dict(runs[name], seeds=seeds)


def _thinning(config: dict, *, distilled: bool = False) -> dict:
    """The values of each search axis the data profile keeps; for the distilled twins,
    ``word_vectors.distilled_thinning`` replaces the axes it names."""
    profile = config["data_profile"]
    keep = dict((config.get("grid_thinning") or {}).get(profile) or {})
    if distilled:
        keep.update(((config.get("word_vectors") or {}).get("distilled_thinning") or {}).get(profile) or {})
    return keep


def unthinned(config: dict) -> dict:
    """The config with every grid search whole: no ``grid_thinning``, nor the twins' ``distilled_thinning``."""
    word_vectors = dict(config.get("word_vectors") or {}, distilled_thinning={})
    return dict(config, grid_thinning={}, word_vectors=word_vectors)


DISTILLED_SUFFIX = "-distilled"
# The word vectors a row can be trained again on, each with the params key naming those rows (word_vectors.<key>)
# and the suffix of the twin's name. The twins of both kinds are thinned alike (word_vectors.distilled_thinning).
TWIN_VECTORS = {"distilled": ("distilled_rows", DISTILLED_SUFFIX),
                "sentence_distilled": ("sentence_distilled_rows", "-sentence_distilled")}


def distilled_twin(row: str, vectors: str = "distilled") -> str:
    """The name of a row trained again on the distilled word vectors (``word_vectors.distilled_rows``), or on
    ``vectors`` (``word_vectors.sentence_distilled_rows`` for the sentence-distilled ones)."""
    return f"{row}{TWIN_VECTORS[vectors][1]}"


def distilled_rows(config: dict, vectors: str = "distilled") -> list[str]:
    """The rows ``word_vectors.distilled_rows`` (or the key of ``vectors``) names (``all``: every experiment and
    grid row), and with ``extended`` those of ``word_vectors.extended_distilled_rows`` after them."""
    key = TWIN_VECTORS[vectors][0]
    word_vectors = config.get("word_vectors") or {}
    chosen = word_vectors.get(key) or []
    if chosen == "all":
        return [*config["experiments"], *(row["id"] for row in config.get("grids") or [])]
    extra = (word_vectors.get(f"extended_{key}") or []) if config.get("extended") else []
    return list(dict.fromkeys([*chosen, *extra]))


def _add_distilled_rows(config: dict, runs: dict, rows: dict) -> None:
    """Each row of ``word_vectors.distilled_rows`` again as ``<row>-distilled`` (and of
    ``word_vectors.sentence_distilled_rows`` as ``<row>-sentence_distilled``): its runs with the same settings,
    starting from those vectors. A grid row's search is thinned as the row's own, except for the axes
    ``word_vectors.distilled_thinning`` names (e.g. λ_w, which pulls back to the starting vectors). A row that
    already trains on other than the pretrained vectors cannot have a twin."""
    grid_rows = {row["id"]: row for row in config.get("grids") or []}
    keep = _thinning(config, distilled=True)
    for vectors, (key, _) in TWIN_VECTORS.items():
        named = (config.get("word_vectors") or {}).get(key) or []
        for row in distilled_rows(config, vectors):
            where = key if named == "all" or row in named else f"extended_{key}"  # the key that named the row
            if row not in rows:
                raise PipelineError(f"word_vectors.{where}: no experiment or grid row named {row!r} in params")
            twin = distilled_twin(row, vectors)
            if twin in rows:
                raise PipelineError(f"word_vectors.{where}: {twin!r} is already a row of params; rename it")
            if row in grid_rows:
                extra = {k: grid_rows[row][k] for k in ("seeds", "tasks") if k in grid_rows[row]}
                points = [dict(point, **extra) for point in row_points(grid_rows[row], keep)]
            else:  # an experiment: one run under the row's own name, with its settings as written (no gate seeds)
                points = [dict(config["experiments"][row])]
            names = []
            for settings in points:
                if settings.get("word_vectors", "pretrained") != "pretrained":
                    raise PipelineError(f"word_vectors.{where}: row {row!r} already trains on the "
                                        f"{settings['word_vectors']} vectors")
                settings = dict(settings, word_vectors=vectors)
                identity = {k: v for k, v in settings.items() if k not in ("seeds", "tasks")}
                names.append(twin if row not in grid_rows else run_name(twin, identity))
                runs[names[-1]] = settings
            rows[twin] = names


def expand_supervised(config: dict) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """(runs, rows) of the supervised grids (Sec. 4.3, Tables 5, 6 and 8), thinned by
    ``supervised.thinning`` for the data profile. A run is trained once per task and seed."""
    sup = config["supervised"]
    keep = (sup.get("thinning") or {}).get(config["data_profile"]) or {}
    runs, rows = {}, {}
    _expand_rows(sup.get("grids") or [], keep, runs, rows, what="supervised grid")
    return runs, rows


def row_labels(config: dict) -> dict[str, dict]:
    """Display labels of each row: model and regularisation as the paper's tables print them."""
    labels = {name: {"model": s["model"], "regularization": s.get("label", "")}
              for name, s in config["experiments"].items()}
    for row in config.get("grids") or []:
        labels[row["id"]] = {"model": row.get("display", row["model"]), "regularization": row.get("label", "")}
    for row in distilled_rows(config):
        if row in labels:
            labels[distilled_twin(row)] = labels[row]
    return labels


