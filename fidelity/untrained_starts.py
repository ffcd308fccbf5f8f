"""The starts themselves: each side's untrained model over many seeds, scored before any step:
python fidelity/untrained_starts.py CHECKOUT --runs RUN ... [--seeds 1 2 ... 20] [--data data] [--work work/cells]
                                    [--table]

same_start.py trains ours from their start to take the start out of a comparison; this asks the question before it,
whether the two codes draw their starts alike. For each seed: their start (their model built under their Python 2.7
after seeding as their train.py seeds, same_start.py ``their_start``) set into ours by their Lasagne names and
scored untrained, and our own start (seeded and built as our train stage builds it) scored untrained, both on the
evaluation table by our scoring, on grid_cells.py's tables of ours (WORK/ours, params.yaml's reading). Per run, each
side's 22-set and STS 2016 means over the seeds (mean ± sample sd), the difference (ours − theirs) with Welch's t,
and the F test of the two sides' spreads: a code whose starts score higher, or spread more, would carry that into
every cell it trains. The word vectors are the same file on both sides, so only the composition weights differ; the
second table compares those weights themselves, block by block under their Lasagne names: per seed each block's
mean, sd and (for a square block) spectral radius, and per run each side's mean of these over the seeds with
Welch's t, so a block drawn from another distribution (another scale, or an orthogonal draw against a uniform one)
shows by name.

A seed's scores are kept in OUT.json as they are measured; a seed the table written before holds (OUT.json, and
``--tabled``'s where OUT.json has none) is not scored again (only its weights' statistics are added where it has
none), and the table keeps the runs it measured before beside those named now.
Writes fidelity/results/untrained_starts.{json,md}; docs/fidelity.md shows it (pages/readme.py). LSTM, LSTMavg and
GRAN-1 runs (the models whose weights steps.py names as theirs); it does not run in CI.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: importing fidelity puts src/, benchmarks/ on the path
import fidelity  # noqa: E402

REPO = fidelity.REPO
from measured import commit, publish, published  # noqa: E402

from fidelity import run as harness  # noqa: E402
from fidelity import same_start  # noqa: E402
from fidelity.grid_cells import SIDES, variance_ratio  # noqa: E402
from paraphrastic.atomic import write_json, write_text  # noqa: E402
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.configuration.settings import experiment  # noqa: E402

RESULTS = HERE / "results" / "untrained_starts"
MEANS = {"transfer_pearson": "22-set mean", "selection_pearson": "STS 2016 mean"}
STATISTICS = {"mean": "mean", "sd": "sd", "radius": "spectral radius"}  # of a weight block at the start


def weight_statistics(weights: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Per composition weight block (their Lasagne names; ``W``, the word vectors, is the same file on both sides and
    left out): its values' mean and sd, and for a square block its spectral radius (the largest |eigenvalue|), which
    sets how a recurrent state grows or fades at the start."""
    found = {}
    for name, value in sorted(weights.items()):
        if name == "W":
            continue
        value = np.asarray(value, dtype=np.float64)
        found[name] = {"mean": float(value.mean()), "sd": float(value.std())}
        if value.ndim == 2 and value.shape[0] == value.shape[1]:
            found[name]["radius"] = float(np.abs(np.linalg.eigvals(value)).max())
    return found


def our_start(settings, matrix):
    """Ours seeded and built as the train stage builds it (transfer.train), untrained."""
    import torch

    from paraphrastic.models.encoders import build_model
    from paraphrastic.training.epochs import seed_everything

    seed_everything(settings.seed)
    return build_model(settings.model, torch.from_numpy(matrix), **settings.model_options())


def tabled(path: Path | None) -> dict[str, dict[str, dict]]:
    """Run -> seed -> {side: {mean: value}, "commit": the code that scored it} of an earlier table of this script;
    nothing where ``path`` is no file."""
    if path is None or not path.is_file():
        return {}
    try:
        return {row["run"]: {str(seed): {**{side: {key: float(v[side][key]) for key in MEANS} for side in SIDES},
                                         "commit": v.get("commit"),
                                         **({"weights": {side: {name: {k: float(x) for k, x in stats.items()}
                                                                for name, stats in v["weights"][side].items()}
                                                         for side in SIDES}, "weights_commit": v.get("weights_commit")}
                                            if "weights" in v else {})}
                             for seed, v in row["seeds"].items()}
                for row in json.loads(path.read_text())["rows"]}
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise SystemExit(f"{path} (OUT.json or --tabled): not a table of the untrained starts "
                         f"({type(error).__name__}: {error})") from None


def compared(seeds: dict[str, dict]) -> dict:
    """Per mean, each side's mean and sd over the seeds, the difference (ours − theirs), Welch's t and its p, and the
    F test of the two sides' variances (two-sided p)."""
    from scipy import stats

    found = {}
    for key in MEANS:
        values = {side: [v[side][key] for v in seeds.values()] for side in SIDES}
        test = stats.ttest_ind(values["ours"], values["theirs"], equal_var=False)
        freedom = len(seeds) - 1
        spread = variance_ratio(statistics.variance(values["ours"]), freedom,
                                statistics.variance(values["theirs"]), freedom)
        found[key] = {**{side: statistics.fmean(values[side]) for side in SIDES},
                      **{f"{side}_sd": statistics.stdev(values[side]) for side in SIDES},
                      "difference": statistics.fmean(values["ours"]) - statistics.fmean(values["theirs"]),
                      "t": float(test.statistic), "p": float(test.pvalue), "f": spread["F"], "f_p": spread["p"]}
    return found


def compared_weights(seeds: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """Per weight block and statistic (:func:`weight_statistics`), over the seeds that have them: each side's mean,
    the difference (ours − theirs) and Welch's t (None where neither side varies over the seeds, as a constant
    bias: then the two means say all)."""
    from scipy import stats

    measured = [v["weights"] for v in seeds.values() if "weights" in v]
    if len(measured) < 2:
        return {}
    found: dict[str, dict[str, dict]] = {}
    for name, found_first in measured[0]["theirs"].items():
        for key in found_first:
            values = {side: [w[side][name][key] for w in measured] for side in SIDES}
            varies = any(max(values[side]) > min(values[side]) for side in SIDES)
            found.setdefault(name, {})[key] = {
                **{side: statistics.fmean(values[side]) for side in SIDES}, "seeds": len(measured),
                "difference": statistics.fmean(values["ours"]) - statistics.fmean(values["theirs"]),
                "t": float(stats.ttest_ind(values["ours"], values["theirs"], equal_var=False).statistic)
                if varies else None}
    return found


def table(measured: dict[str, dict[str, dict]], runs: list[str]) -> list[dict]:
    """A row per run: its seeds' scores in seed order, and :func:`compared` where it has two seeds or more (and
    :func:`compared_weights` where two seeds or more have their weights' statistics)."""
    rows = []
    for run in runs:
        seeds = dict(sorted(measured.get(run, {}).items(), key=lambda item: int(item[0])))
        weights = compared_weights(seeds)
        rows.append({"run": run, "seeds": seeds, **({"compared": compared(seeds)} if len(seeds) >= 2 else {}),
                     **({"compared_weights": weights} if weights else {})})
    return rows


def markdown(result: dict, models: dict[str, str]) -> str:
    lines = ["Each side's untrained start, scored before any step on the evaluation sets by our scoring (Pearson × "
             f"100; the word vectors are the same on both sides, params.yaml's reading, `{result['reading']}`): "
             "their model's initial weights for a seed set into ours, and ours seeded and built as our train stage "
             "builds it; each side's mean ± sample sd over the seeds, the difference (ours − theirs) with Welch's t "
             "and p, and the F test of the two sides' spreads.", "",
             "| run | model | seeds | mean | theirs | ours | difference | t | p | F (ours / theirs) | p |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in result["rows"]:
        if "compared" not in row:
            lines.append(f"| {row['run']} | {models[row['run']]} | {len(row['seeds'])} | – | – | – | – | – | – | – "
                         "| – |")
            continue
        for key, label in MEANS.items():
            c = row["compared"][key]
            lines.append(f"| {row['run']} | {models[row['run']]} | {len(row['seeds'])} | {label} | "
                         f"{c['theirs']:.2f} ± {c['theirs_sd']:.2f} | {c['ours']:.2f} ± {c['ours_sd']:.2f} | "
                         f"{c['difference']:+.2f} | {c['t']:+.1f} | {c['p']:.2f} | {c['f']:.2f} | {c['f_p']:.2f} |")
    weighed = [row for row in result["rows"] if "compared_weights" in row]
    if weighed:
        lines += ["", "The starts' composition weights themselves, block by block under their Lasagne names: per seed "
                  "each block's mean, sd and (a square block's) spectral radius, and here each side's mean of these "
                  "over the seeds with Welch's t (– where neither side varies over the seeds, as a constant bias). A "
                  "seed draws the same block in every model that has it, on each side, so a block the runs share "
                  "with the same values is one row.",
                  "", "| runs | seeds | weights | " + " | ".join(f"{label}: theirs | ours | t" for label in
                                                              STATISTICS.values()) + " |",
                  "|---|---:|---|" + "---:|---:|---:|" * len(STATISTICS)]
        shared: dict[str, list[str]] = {}  # a row's cells -> the runs that give it
        for row in weighed:
            for name, found in row["compared_weights"].items():
                cells = []
                for key in STATISTICS:
                    c = found.get(key)
                    cells += ["–"] * 3 if c is None else [
                        f"{c['theirs']:.4f}", f"{c['ours']:.4f}", "–" if c["t"] is None else f"{c['t']:+.1f}"]
                seeds = next(iter(found.values()))["seeds"]
                shared.setdefault(f"| {seeds} | {name} | " + " | ".join(cells) + " |", []).append(row["run"])
        lines += [f"| {', '.join(runs)} " + cells for cells, runs in shared.items()]
    measured = sorted({v["commit"] or "unrecorded" for row in result["rows"] for v in row["seeds"].values()})
    weights_at = sorted({v["weights_commit"] or "unrecorded" for row in result["rows"] for v in row["seeds"].values()
                         if "weights" in v})
    weights_note = f" (the weights at {', '.join(weights_at)})" if weights_at else ""
    lines += ["", f"Measured at {', '.join(measured) or '–'}{weights_note}; tabled at {result['commit']} by "
              "`fidelity/untrained_starts.py`."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, nargs="?", help="a checkout of jwieting/acl2017 (holds "
                        "main/models.py); not needed with --table")
    parser.add_argument("--runs", nargs="+", required=True, help="transfer runs or grid_cells.py cells (LSTM, "
                        "LSTMavg or GRAN-1)")
    parser.add_argument("--seeds", nargs="+", type=int, default=list(range(1, 21)))
    parser.add_argument("--data", type=Path, default=Path("data"), help="the project's data folder")
    parser.add_argument("--work", type=Path, default=Path("work/cells"), help="grid_cells.py's work folder (its "
                        "tables of ours, and their starts kept)")
    parser.add_argument("--lasagne", default=harness.LASAGNE, help="Lasagne to install (see run.py)")
    parser.add_argument("--table", action="store_true", help="only table what the earlier table holds")
    parser.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.json and OUT.md (default: %(default)s)")
    parser.add_argument("--tabled", type=Path, help="another table of this script, whose seeds count where OUT.json "
                        "has none (OUT.json's always count)")
    args = parser.parse_args(argv)
    config = cfg.load(REPO / "params.yaml")
    all_runs, settings = same_start.named_runs(config, args.runs)
    out, extra = tabled(published(args.out, ".json")), tabled(args.tabled)
    measured = {run: {**extra.get(run, {}), **out.get(run, {})}  # OUT.json's over --tabled's, in the table's order
                for run in dict.fromkeys([*out, *extra])}
    for run in list(measured):  # the table keeps the runs it measured before, while the cells still have them
        if run not in all_runs:
            print(f"{run}: no cell of params.yaml's grids has these settings now; its starts are left out", flush=True)
            del measured[run]
    runs = [*measured, *(run for run in args.runs if run not in measured)]
    models = {run: experiment(config, run, all_runs).model for run in runs}

    def result() -> dict:
        return {"commit": commit(), "reading": config["data"]["reading"], "rows": table(measured, runs)}

    if not args.table:
        if args.checkout is None:
            raise SystemExit("the authors' checkout is needed to build their start (or --table)")
        from fidelity.steps import lasagne_names
        from paraphrastic.data.corpus import read_table
        from paraphrastic.data.vocab import load_vectors

        tables = args.work / "ours" / "vocab"
        if not (tables / "vocab.txt").is_file():
            raise SystemExit(f"{tables / 'vocab.txt'}: no such file (grid_cells.py --sides ours prepares it)")
        harness.install(args.work, args.lasagne)
        vocab, matrix = load_vectors(tables)
        frame = read_table(args.data / "corpus" / "eval.parquet")
        for run in args.runs:
            for seed in args.seeds:
                before = measured.get(run, {}).get(str(seed), {})
                if "weights" in before:
                    continue
                job = dataclasses.replace(settings[run], seed=seed)
                weights = same_start.their_start(args.checkout, args.work, job, matrix.shape[1])
                ours = our_start(job, matrix)
                weighed = {"weights": {"theirs": weight_statistics(weights),
                                       "ours": weight_statistics(lasagne_names(ours))},
                           "weights_commit": commit()}
                if before:  # scored before the weights were compared: its scores and their commit stay
                    before.update(weighed)
                else:
                    scores = {"theirs": same_start.start_score(config, job, weights, vocab, matrix, frame),
                              "ours": same_start.untrained_score(config, ours, vocab, frame)}
                    measured.setdefault(run, {})[str(seed)] = {
                        **{side: {key: scores[side][key] for key in MEANS} for side in SIDES}, "commit": commit(),
                        **weighed}
                kept = result()  # written as measured, so a stopped run resumes from the seeds it has
                write_json(published(args.out, ".json"), kept)
                write_text(published(args.out, ".md"), markdown(kept, models))
    kept = result()
    publish(args.out, kept, markdown(kept, models))
    return 0


if __name__ == "__main__":
    sys.exit(main())
