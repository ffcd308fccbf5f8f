"""Error analysis of paper Sec. 5.1 (Table 7): where avg and LSTMavg over- or underestimate gold similarity.

Both models' cosines on the 20 STS 2012-2015 sets are scaled onto the gold range [0, 5]. Every pair then
falls into one of four categories (which model is further from gold, and whether it is above or below the
other), so the pairs behind each category, and their word overlap and length ratio, can be read as the paper does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SCALINGS = ("minmax", "linear")


def scale_to_range(cosines: np.ndarray, method: str = "minmax", high: float = 5.0) -> np.ndarray:
    """Cosines mapped onto [0, high]. The paper does not say how; "minmax" uses each model's full range over the
    analysed pairs, "linear" the fixed map of [-1, 1] (cosines rarely go below 0, so it compresses the scale)."""
    values = np.asarray(cosines, dtype=float)
    if method == "linear":
        return high * (values + 1.0) / 2.0
    if method != "minmax":
        raise ValueError(f"unknown scaling {method!r}; allowed: {', '.join(SCALINGS)}")
    if values.size == 0 or np.ptp(values) == 0:
        raise ValueError("minmax scaling needs at least two distinct cosines (no range to scale)")
    return high * (values - values.min()) / np.ptp(values)


def categories(names) -> list[str]:
    """The four categories in their fixed order: first model over, under; second model over, under."""
    first, second = names
    return [f"{first} overestimates", f"{first} underestimates", f"{second} overestimates",
            f"{second} underestimates"]


def _names(table: pd.DataFrame) -> tuple[str, str]:
    first, second = (c.removeprefix("error_") for c in table.columns if c.startswith("error_"))
    return first, second


def _overlap(a: list[str], b: list[str]) -> float:
    union = set(a) | set(b)
    return len(set(a) & set(b)) / len(union) if union else 1.0


def _length_ratio(a: list[str], b: list[str]) -> float:
    longer = max(len(a), len(b))
    return min(len(a), len(b)) / longer if longer else 1.0


def compare(frame: pd.DataFrame, first: np.ndarray, second: np.ndarray, names=("avg", "lstmavg")) -> pd.DataFrame:
    """One row per pair: both scaled predictions, their errors against gold and the pair's category.

    The model further from gold is the "worse" one; whether it over- or underestimates is said relative to
    the other model (its prediction is above or below the other's), as in the paper's Table 7.
    """
    first, second = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if len(first) != len(frame) or len(second) != len(frame):
        raise ValueError(f"{len(frame)} pairs but {len(first)} and {len(second)} predictions")
    if names[0] == names[1]:
        raise ValueError(f"the two models need distinct names, got {names}")
    gold = frame["score"].to_numpy(dtype=float)
    e1, e2, d = first - gold, second - gold, first - second
    over1, under1, over2, under2 = categories(names)
    first_worse = np.abs(e1) > np.abs(e2)
    category = np.where(first_worse, np.where(d > 0, over1, under1), np.where(d < 0, over2, under2))
    table = pd.DataFrame({"dataset": frame["dataset"].to_numpy(), "line": frame["line"].to_numpy(),
                          "s1": frame["s1"].to_numpy(), "s2": frame["s2"].to_numpy(), "gold": gold,
                          names[0]: first, names[1]: second, f"error_{names[0]}": e1, f"error_{names[1]}": e2,
                          "category": category, "gap": np.abs(np.abs(e1) - np.abs(e2))})
    pairs = list(zip(frame["tokens1"], frame["tokens2"], strict=True))
    table["overlap"] = [_overlap(list(a), list(b)) for a, b in pairs]
    table["length_ratio"] = [_length_ratio(list(a), list(b)) for a, b in pairs]
    return table


def examples(table: pd.DataFrame, per_category: int = 3) -> pd.DataFrame:
    """The ``per_category`` pairs of each category where the two models disagree most (largest gap)."""
    ordered = table.sort_values(["gap", "dataset", "line"], ascending=[False, True, True], kind="mergesort")
    picked = [ordered[ordered["category"] == c].head(per_category) for c in categories(_names(table))]
    return pd.concat(picked, ignore_index=True)[list(table.columns)]


def _mean(values: pd.Series) -> float | None:
    return float(values.mean()) if len(values) else None  # None, not NaN: the summary is strict JSON


def _pearson(a: np.ndarray, b: np.ndarray) -> float | None:
    from scipy.stats import pearsonr

    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return 100 * float(pearsonr(a, b).statistic)


def summary(table: pd.DataFrame, names) -> dict:
    """Per category: its size and share, mean gap, gold, overlap and length ratio; per model: MAE and Pearson."""
    n = len(table)
    per_category = {}
    for name in categories(names):
        rows = table[table["category"] == name]
        per_category[name] = {"pairs": len(rows), "share": len(rows) / n if n else 0.0, "mean_gap": _mean(rows["gap"]),
                              "mean_gold": _mean(rows["gold"]), "mean_overlap": _mean(rows["overlap"]),
                              "mean_length_ratio": _mean(rows["length_ratio"])}
    gold = table["gold"].to_numpy(dtype=float)
    accuracy = {name: {"mean_abs_error": _mean(table[f"error_{name}"].abs()),
                       "pearson": _pearson(table[name].to_numpy(dtype=float), gold)} for name in names}
    return {"pairs": n, "datasets": int(table["dataset"].nunique()), "categories": per_category,
            "accuracy": accuracy,
            # The paper picks LSTMavg as the recurrent model least correlated with avg.
            "model_correlation": _pearson(table[names[0]].to_numpy(dtype=float),
                                          table[names[1]].to_numpy(dtype=float))}


# ---- the pipeline's error-analysis stage --------------------------------------------------------

def sts_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """The 20 STS 2012-2015 sets the paper analyses (STS 2016, SICK and Twitter left out)."""
    from paraphrastic.errors import PipelineError

    group = frame["group"].astype(str)
    chosen = frame[group.str.startswith("STS 201") & (group != "STS 2016")].reset_index(drop=True)
    if chosen.empty:
        raise PipelineError("error analysis: the evaluation table has no STS 2012-2015 pairs")
    return chosen


def analyse(config: dict, data_dir, out_dir, *, device: str = "auto") -> dict:
    """Both rows' test-selected models (first seed) on the STS 2012-2015 pairs; writes ``out_dir``/*."""
    from paraphrastic.atomic import write_text
    from paraphrastic.data.corpus import read_table, write_table
    from paraphrastic.errors import PipelineError
    from paraphrastic.evaluation.selection import Selection, model_dir
    from paraphrastic.evaluation.similarity import cosine_scores
    from paraphrastic.layout import DataLayout
    from paraphrastic.models.files import load_model
    from paraphrastic.provenance import write_result
    from paraphrastic.runtime import resolve_device

    settings = config["error_analysis"]
    rows, method = settings["rows"], settings.get("scaling", "minmax")
    if len(rows) != 2:
        raise PipelineError(f"error_analysis.rows names two models, got {sorted(rows)}")
    names = tuple(rows)
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    frame = sts_pairs(read_table(DataLayout(data_dir).eval_table))
    try:
        sel = Selection(config, data_dir, rows=list(rows.values()))
    except PipelineError as exc:
        raise PipelineError(f"error_analysis.rows: {exc}") from exc
    device = resolve_device(device)
    scaled, models = [], {}
    for name, row in rows.items():
        run, seed, epoch = sel.first_seed(row)
        model, vocab, _ = load_model(model_dir(data_dir, run, seed) / "model.pt", device)
        scaled.append(scale_to_range(cosine_scores(model, vocab, frame, device=device), method))
        models[name] = {"row": row, "run": run, "seed": seed, "epoch": epoch["epoch"]}
    table = compare(frame, *scaled, names=names)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_table(table, None, out_dir / "pairs.parquet", stage="error_analysis")
    write_text(out_dir / "examples.csv", examples(table, settings.get("examples", 3)).to_csv(index=False))
    result = {**summary(table, names), "models": models, "scaling": method,
              "sets": list(dict.fromkeys(table["dataset"]))}
    write_result(out_dir / "summary.json", result, stage="error_analysis")
    return result
