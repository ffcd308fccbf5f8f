"""Encoders on MTEB's STS12-STS16 protocol, beside the published scores of static models:
python benchmarks/mteb_sts.py [--models LABEL=model.pt ...] [--vectors LABEL=DIR ...] [--exports LABEL=DIR ...]
                              [--no-minilm]

Scores each year's pooled test pairs (``paraphrastic.evaluation.mteb_sts``: cosine similarity, Spearman × 100, MTEB's
main score) for all-MiniLM-L6-v2 (installed offline: the calibration, its published scores must be matched within
0.5), for each model file given, for each folder of word vectors (vocab.txt and embeddings.npy, e.g. data/distilled)
averaged untrained as avg (a folder with a tokenizer.json, the distilled ones, reads the sets' text with it, as the
pipeline scores it), and for each folder `paraphrastic export --static` wrote, loaded by sentence-transformers and
by model2vec with no code of ours (for a model of the paper's rows their tokenizer only approximates ours: the rows
show what that costs). Every measured encoder also gets our 22-set mean Pearson (one correlation per source, the paper's
measure). The published scores of workflow/published/mteb_sts.csv go beside them (figures carried from the public
MTEB results repository, each with its file there; those models cannot be downloaded here).
Writes benchmarks/results/mteb_sts.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import pandas as pd
import torch

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE))

from measured import commit, publish  # noqa: E402

from paraphrastic.evaluation.mteb_sts import MTEB_TASKS, mean_over_tasks, pooled, published  # noqa: E402
from paraphrastic.pipeline.graph import PUBLISHED_MTEB_STS  # noqa: E402

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
TOLERANCE = 0.5  # the calibration: our scoring of MiniLM against its published scores, per task


def calibration(measured: dict[str, dict], cited: dict[str, dict]) -> dict:
    """Per task, our MiniLM minus its published score, and whether every task is within TOLERANCE."""
    differences = {task: measured[task]["spearman"] - cited[task]["spearman"] for task in MTEB_TASKS}
    return {"differences": differences, "tolerance": TOLERANCE,
            "within": all(abs(d) <= TOLERANCE for d in differences.values())}


def markdown(result: dict) -> str:
    tasks = list(MTEB_TASKS)
    lines = ["MTEB's STS12–STS16 (each year's test pairs pooled; cosine; Spearman × 100, MTEB's main score). Measured "
             "here: " + ", ".join(result["measured"]) + "; cited: the published scores, each from its file in the MTEB "
             "results repository (workflow/published/mteb_sts.csv). The means: over the five tasks (where an encoder "
             "has all five), and over STS12–15, which every one has.", "",
             "| encoder | " + " | ".join(tasks) + " | mean | mean STS12–15 | 22-set mean Pearson | |",
             "|---|" + "---:|" * len(tasks) + "---:|---:|---:|---|"]
    sts22 = result.get("sts22", {})

    def row(name: str, scores: dict, how: str) -> str:
        cells = [f"{scores[t]['spearman']:.2f}" if t in scores else "–" for t in tasks]
        whole = mean_over_tasks(scores)
        mean = "–" if whole is None else f"{whole:.2f}"
        early = statistics.mean(scores[t]["spearman"] for t in tasks[:4])
        ours = f"{sts22[name]:.2f}" if name in sts22 else "–"
        return f"| {name} | " + " | ".join(cells) + f" | {mean} | {early:.2f} | {ours} | {how} |"

    for name, scores in result["measured"].items():
        lines.append(row(name, scores, "measured"))
    for name, scores in result["published"].items():
        lines.append(row(name, scores, "published"))
    cal = result.get("calibration")
    if cal:
        worst = max(cal["differences"].values(), key=abs)
        lines += ["", f"Calibration: all-MiniLM-L6-v2 scored here against its published scores, the largest "
                  f"difference {worst:+.2f} ({'within' if cal['within'] else 'NOT within'} {cal['tolerance']})."]
    return "\n".join(lines) + f"\n\nMeasured at {result['commit']} by `benchmarks/mteb_sts.py`.\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=REPO / "data/corpus/eval.parquet", help="the evaluation table")
    parser.add_argument("--models", nargs="*", default=[], metavar="LABEL=PATH", help="model.pt files to score")
    parser.add_argument("--vectors", nargs="*", default=[], metavar="LABEL=DIR",
                        help="word vector folders (vocab.txt, embeddings.npy) scored untrained under avg")
    parser.add_argument("--exports", nargs="*", default=[], metavar="LABEL=DIR",
                        help="folders `paraphrastic export --static` wrote, scored as sentence-transformers and "
                             "model2vec load them")
    parser.add_argument("--no-minilm", action="store_true", help="skip all-MiniLM-L6-v2 (and the calibration)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "mteb_sts",
                        help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    problems = argument_problems(args)
    if problems:  # before any work: each names its argument, never a traceback
        parser.error("; ".join(problems))
    from paraphrastic.errors import PipelineError

    try:
        return run(args)
    except PipelineError as exc:  # a damaged or foreign input found while scoring, named by its reader
        print(f"error: {exc}", file=sys.stderr)
        return 1


# what each kind of argument names: the files a folder must hold
NEEDED = {"--vectors": ("vocab.txt", "embeddings.npy"), "--exports": ("modules.json",)}


def labelled(spec: str) -> tuple[str, Path]:
    """LABEL=PATH as (label, path); a bare PATH is its own label."""
    label, _, path = spec.partition("=")
    return label, Path(path or label)


def weights_problem(folder: Path) -> str | None:
    """What is wrong with a static export's model.safetensors (truncated, not safetensors), naming it; None if its
    header reads and covers the file (safetensors checks both when it opens one)."""
    from safetensors import SafetensorError, safe_open

    weights = folder / "model.safetensors"
    try:
        with safe_open(str(weights), framework="numpy") as handle:
            handle.keys()
    except (SafetensorError, OSError) as exc:
        return f"{weights}: not readable safetensors ({exc}); export the folder again (paraphrastic export --static)"
    return None


def argument_problems(args) -> list[str]:
    """What is wrong with the arguments, each naming the argument and the path, before anything is loaded."""
    problems = [] if args.eval.is_file() else [f"--eval {args.eval}: no such file (the pipeline's prepare_eval "
                                               "writes data/corpus/eval.parquet)"]
    labels: list[str] = ["all-MiniLM-L6-v2"] if not args.no_minilm else []
    for option, specs in (("--models", args.models), ("--vectors", args.vectors), ("--exports", args.exports)):
        for spec in specs:
            label, path = labelled(spec)
            labels.append(label)
            if not label:
                problems.append(f"{option} {spec}: give LABEL=PATH (an empty label)")
            elif option == "--models" and not path.is_file():
                problems.append(f"{option} {spec}: {path} is no file (a model.pt a training stage wrote)")
            elif option != "--models" and not path.is_dir():
                problems.append(f"{option} {spec}: {path} is no folder")
            else:
                problems += [f"{option} {spec}: {path} has no {name}" for name in NEEDED.get(option, ())
                             if not (path / name).is_file()]
                if option == "--exports" and (path / "model.safetensors").is_file():
                    problems += [f"{option} {spec}: {problem}" for problem in [weights_problem(path)] if problem]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        problems.append(f"the label {repeated[0]!r} is given twice: each row needs a label of its own")
    return problems


def run(args) -> int:
    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.static_tokenizer import load_tokenizer, read_with
    from paraphrastic.data.vocab import load_vectors
    from paraphrastic.evaluation.compare_encoders import MiniLM, score_raw_sentences
    from paraphrastic.evaluation.similarity import score_sets, summarize
    from paraphrastic.models.encoders import build_model
    from paraphrastic.models.files import load_model

    table = read_table(args.eval)
    # MTEB's pooled tasks (datasets STS12..STS16) after our sets, scored in one pass: each sentence is encoded once
    both = pd.concat([table, pooled(table, where=str(args.eval))], ignore_index=True)
    cited = published(REPO / PUBLISHED_MTEB_STS)
    measured: dict[str, dict] = {}
    sts22: dict[str, float] = {}

    def record(label: str, results: dict) -> None:
        """MTEB's tasks to ``measured``, our 22-set mean (summarize reads our sets alone) to ``sts22``."""
        measured[label] = {task: results[task] for task in MTEB_TASKS}
        sts22[label] = summarize(results, [])["transfer_pearson"]

    def raw_text(label: str, encode) -> None:
        record(label, score_raw_sentences(encode, both)[0])

    if not args.no_minilm:
        raw_text("all-MiniLM-L6-v2", MiniLM(batch_size=128).encode)
    for spec in args.vectors:  # a folder with a tokenizer.json (the distilled ones) reads the sets' text with it
        label, folder = labelled(spec)
        vocab, matrix = load_vectors(folder)
        tokenizer = load_tokenizer(folder)
        record(label, score_sets(build_model("avg", torch.from_numpy(matrix)), vocab,
                                 both if tokenizer is None else read_with(both, tokenizer)))
    for spec in args.models:
        label, path = labelled(spec)
        model, vocab, _ = load_model(path)
        record(label, score_sets(model, vocab, both))
    for spec in args.exports:
        label, folder = labelled(spec)
        from model2vec import StaticModel
        from sentence_transformers import SentenceTransformer

        loaded = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        raw_text(f"{label}, sentence-transformers", lambda s, m=loaded: m.encode(list(s), batch_size=512))
        static = StaticModel.from_pretrained(str(folder))
        raw_text(f"{label}, model2vec", lambda s, m=static: m.encode(list(s)))
    result = {"commit": commit(), "eval": str(args.eval), "measured": measured, "sts22": sts22,
              "published": {model: scores for model, scores in cited.items()}}
    if "all-MiniLM-L6-v2" in measured:
        result["calibration"] = calibration(measured["all-MiniLM-L6-v2"], cited[MINILM_ID])
    publish(args.out, result, markdown(result))
    print(json.dumps(result.get("calibration", {}), indent=1))
    return 0 if result.get("calibration", {"within": True})["within"] else 1


if __name__ == "__main__":
    sys.exit(main())
