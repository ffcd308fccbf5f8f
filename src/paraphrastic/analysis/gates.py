"""GRAN gate analysis (paper Sec. 5.2, Tables 9-11): gate L1 norms by POS tag and dependency label.

The paper embeds 10,000 English Wikipedia sentences of at most 15 tokens with the oracle-selected
GRAN, tags and parses them, and averages the L1 norm of the gate σ(W_x x_t + W_h h_t + b) at each
token per Penn Treebank tag, per dependency label and per (tag, label) pair. Here the sentences are
the Wikipedia (normal) side of SimpWiki, the parser is Stanza (UD labels rather than the paper's
Stanford Dependencies; :func:`sd_label` maps them for the comparison).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch

from paraphrastic.analysis.papers import paper_table_path
from paraphrastic.data.batching import pad
from paraphrastic.data.corpus import read_table, write_table
from paraphrastic.data.tokens import normalise
from paraphrastic.data.vocab import Vocabulary, add_tags
from paraphrastic.provenance import write_result


@torch.no_grad()
def token_gate_norms(model, vocab: Vocabulary, sentences: list[list[str]], *, tags: str = "none",
                     batch_size: int = 256, device: torch.device | str = "cpu") -> list[np.ndarray]:
    """L1 norm of the GRAN gate at every word of every sentence (SOS/EOS positions dropped)."""
    model.eval()
    offset = 1 if tags in ("sos", "both") else 0
    norms: list[np.ndarray] = []
    for start in range(0, len(sentences), batch_size):
        chunk = sentences[start : start + batch_size]
        ids = [add_tags(vocab.ids(normalise(s)), tags) for s in chunk]
        tokens, mask = pad(ids, device)
        _, gate = model.gates(tokens, mask)
        l1 = gate.abs().sum(-1).cpu().numpy()  # σ(...) > 0, so this is the plain sum of the gate
        norms += [l1[row, offset : offset + len(s)] for row, s in enumerate(chunk)]
    return norms


# UD relation (+ word) -> the Stanford Dependencies label the paper's tables use, where one exists.
UD_TO_SD = {"obj": "dobj", "compound": "nn", "nummod": "num", "nmod:poss": "poss", "aux:pass": "auxpass",
            "nsubj:pass": "nsubjpass", "csubj:pass": "csubjpass", "acl:relcl": "rcmod", "acl": "vmod",
            "compound:prt": "prt", "det:predet": "predet", "fixed": "mwe", "flat": "nn", "obl:npmod": "npadvmod",
            "nmod:npmod": "npadvmod", "obl:tmod": "tmod", "nmod:tmod": "tmod", "obl": "pobj", "nmod": "pobj",
            "cc:preconj": "preconj"}
NEGATIONS = {"not", "n't", "never", "no"}


def sd_label(deprel: str, xpos: str, word: str) -> str:
    """The paper's Stanford Dependencies label for a UD arc (an approximation, stated in the report):
    UD `case` is SD `possessive` on 's and `prep` on prepositions; a negating `advmod` is `neg`;
    a number inside a number phrase (UD `compound` on CD) is `number`; an adjective as `xcomp` is
    `acomp`; the rest by :data:`UD_TO_SD`, other UD subtypes as their base relation (mapped too)."""
    if deprel == "case":
        return "possessive" if xpos == "POS" else "prep"
    if deprel == "advmod" and word.lower() in NEGATIONS:
        return "neg"
    if deprel == "compound" and xpos == "CD":
        return "number"
    if deprel == "xcomp" and xpos.startswith("JJ"):  # "looks beautiful": SD's adjectival complement
        return "acomp"
    base = deprel.split(":")[0]  # e.g. obl:unmarked -> obl -> pobj
    return UD_TO_SD.get(deprel, UD_TO_SD.get(base, base))


def token_table(parses: pd.DataFrame, norms: list[np.ndarray]) -> pd.DataFrame:
    """One row per word: the parse (sentence, index, word, xpos, deprel, ...) and its gate norm."""
    frame = parses.sort_values(["sentence", "index"]).reset_index(drop=True)
    lengths = frame.groupby("sentence", sort=True).size()
    if len(lengths) != len(norms) or any(len(n) != k for n, k in zip(norms, lengths, strict=True)):
        raise ValueError("parses and gate norms disagree on the sentences or their lengths")
    frame["norm"] = np.concatenate(norms) if norms else []
    frame["sd_label"] = [sd_label(d, x, w) for d, x, w in zip(frame["deprel"], frame["xpos"], frame["word"],
                                                                strict=True)]
    return frame


def aggregate(tokens: pd.DataFrame, keys: list[str], *, min_count: int) -> pd.DataFrame:
    """Mean, sd and count of the gate norm per value of ``keys``; only groups seen ``min_count`` times."""
    grouped = tokens.groupby(keys)["norm"].agg(mean="mean", sd="std", count="size").reset_index()
    grouped = grouped[grouped["count"] >= min_count]
    return grouped.sort_values("mean", ascending=False).reset_index(drop=True)


def top_bottom(frame: pd.DataFrame, key: str, k: int = 10) -> tuple[list[str], list[str]]:
    """Table 9's lists: the k highest (highest first) and k lowest (lowest first) means."""
    ordered = frame.sort_values("mean", ascending=False)[key].tolist()
    return ordered[:k], list(reversed(ordered))[:k]


def rank_agreement(ours: pd.DataFrame, key: str, paper_top: list[str], paper_bottom: list[str]) -> dict:
    """How our ranking agrees with the paper's Table 9 lists.

    top/bottom overlap: how many of the paper's 10 are in our 10. Spearman: over the paper's 20
    labels that we also observe, the paper's order (top 1..10, then bottom 10..1) against our means.
    """
    from scipy.stats import spearmanr

    k = len(paper_top)
    top, bottom = top_bottom(ours, key, k)
    means = dict(zip(ours[key], ours["mean"], strict=True))
    paper_order = list(paper_top) + list(reversed(paper_bottom))  # highest norm first
    shared = [label for label in paper_order if label in means]
    rho = math.nan
    if len(shared) >= 3:
        rho = float(spearmanr([-paper_order.index(label) for label in shared], [means[label] for label in shared])[0])
    return {"top_overlap": len(set(top) & set(paper_top)), "bottom_overlap": len(set(bottom) & set(paper_bottom)),
            "k": k, "shared_labels": len(shared), "spearman": rho}


# ---- noise: the sentence sample and the seed ----------------------------------------------------

AGREEMENT_MEASURES = ("spearman", "top_overlap", "bottom_overlap")


def label_matrices(tokens: pd.DataFrame, key: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(labels, sums, counts): the gate norms of each sentence summed per label, and how many words each
    sentence has with it (sentences × labels), so that a resample of sentences is one weighted sum."""
    sentences = pd.Categorical(tokens["sentence"])
    labels = pd.Categorical(tokens[key])
    shape = (len(sentences.categories), len(labels.categories))
    sums, counts = np.zeros(shape), np.zeros(shape)
    np.add.at(sums, (sentences.codes, labels.codes), tokens["norm"].to_numpy(dtype=float))
    np.add.at(counts, (sentences.codes, labels.codes), 1)
    return list(labels.categories), sums, counts


def bootstrap_agreement(token_tables: list[pd.DataFrame], key: str, paper_top: list[str], paper_bottom: list[str],
                        *, min_count: int, draws: int, seed: int) -> list[dict]:
    """:func:`rank_agreement` on ``draws`` resamples: each draw takes one of ``token_tables`` (the same sentences
    through the analysed run's seeds) at random and resamples its sentences with replacement."""
    rng = np.random.default_rng(seed)
    matrices = [label_matrices(tokens, key) for tokens in token_tables]
    results = []
    for _ in range(draws):
        labels, sums, counts = matrices[rng.integers(len(matrices))]
        weights = np.bincount(rng.integers(len(sums), size=len(sums)), minlength=len(sums))
        total, seen = weights @ sums, weights @ counts
        keep = seen >= min_count
        frame = pd.DataFrame({key: np.asarray(labels, dtype=object)[keep], "mean": total[keep] / seen[keep]})
        results.append(rank_agreement(frame, key, paper_top, paper_bottom))
    return results


CONFIDENCE = 0.95


def interval(draws: list[dict], level: float = CONFIDENCE) -> dict:
    """The percentile interval of each agreement measure over bootstrap draws (NaN draws left out)."""
    tail = 100 * (1 - level) / 2
    out = {}
    for measure in AGREEMENT_MEASURES:
        values = np.array([d[measure] for d in draws], dtype=float)
        values = values[~np.isnan(values)]
        out[measure] = [float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))] \
            if len(values) else [math.nan, math.nan]
    return out


def agreement_with_noise(per_seed: dict[int, pd.DataFrame], first: int, key: str, paper_top: list[str],
                         paper_bottom: list[str], *, min_count: int, draws: int, seed: int) -> dict:
    """Agreement with the paper's lists on the first seed's full sample, each seed's, and 95% intervals from
    resampling the sentences (first seed) and from resampling the sentences and the seed together."""
    def point(tokens):
        return rank_agreement(aggregate(tokens, [key], min_count=min_count), key, paper_top, paper_bottom)

    result = point(per_seed[first])
    result["per_seed"] = {str(s): point(tokens) for s, tokens in sorted(per_seed.items())}
    if draws:
        result["interval"] = {"sentences": interval(bootstrap_agreement(
            [per_seed[first]], key, paper_top, paper_bottom, min_count=min_count, draws=draws, seed=seed))}
        if len(per_seed) > 1:
            result["interval"]["sentences_and_seeds"] = interval(bootstrap_agreement(
                list(per_seed.values()), key, paper_top, paper_bottom, min_count=min_count, draws=draws, seed=seed))
    return result


# ---- the pipeline's gate stage -----------------------------------------------------------------

PARSE_COLUMNS = ["sentence", "index", "word", "lemma", "upos", "xpos", "head", "deprel"]


def analysed_run(config: dict, data_dir, row: str) -> tuple[str, int, dict]:
    """The GRAN the paper analyses: the oracle-selected run of ``row`` (Table 3's GRAN), first seed.

    Its ``model.pt`` is that job's STS-2016-selected epoch (the oracle epoch's weights are only in
    the uncached checkpoints); the returned dict says which run, seed and epochs were chosen.
    """
    from pathlib import Path

    from paraphrastic.errors import PipelineError
    from paraphrastic.evaluation.selection import Selection

    try:
        sel = Selection(config, Path(data_dir), rows=[row])
    except PipelineError as exc:
        raise PipelineError(f"gates.gran_row: {exc}") from exc
    for run in sel.rows[row]:
        if sel.runs[run]["model"] not in ("gran", "gran2"):
            raise PipelineError(f"gates.gran_row {row!r}: run {run} is a {sel.runs[run]['model']}, not a GRAN "
                                "(per-token gates are defined for GRAN and GRAN-2)")
    run, seed, epoch = sel.first_seed(row, "oracle")
    return run, seed, {"row": row, "run": run, "seed": seed, "seeds": sel.seeds[run],
                       "oracle_epoch": epoch["epoch"], "transfer_pearson": float(epoch["transfer_pearson"]),
                       "runs_in_row": len(sel.rows[row])}


def norm_plot(by_pos: pd.DataFrame, path, *, dim: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from paraphrastic.atomic import atomic_path

    frame = by_pos.sort_values("mean", ascending=False)
    fig, ax = plt.subplots(figsize=(max(6, 0.32 * len(frame)), 4))
    sem = frame["sd"] / np.sqrt(frame["count"])
    ax.bar(frame["xpos"], frame["mean"], yerr=frame["sd"], color="#4c72b0", ecolor="#999", capsize=2,
           label="mean ± sd")
    ax.errorbar(frame["xpos"], frame["mean"], yerr=1.96 * sem, fmt="none", ecolor="black", capsize=3,
                label="95% CI of the mean")
    ax.set_ylabel(f"gate L1 norm (of {dim} dims)")
    ax.set_xlabel("Penn Treebank POS tag (highest mean first)")
    ax.set_title("Mean GRAN gate L1 norm by Penn Treebank tag")
    ax.tick_params(axis="x", rotation=90)
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)


def paper_lists(config: dict) -> dict:
    """Table 9's four lists and Tables 10/11 from the papers' CSVs (in ``paper_tables``)."""
    t9 = pd.read_csv(paper_table_path(config, "wieting2017_table9.csv")).sort_values("position")
    lists = {(kind, which): t9[(t9["feature_type"] == kind) & (t9["list"] == which)]["label"].tolist()
             for kind in ("POS", "Dep. Label") for which in ("top 10", "bot. 10")}
    return {"pos_top": lists[("POS", "top 10")], "pos_bottom": lists[("POS", "bot. 10")],
            "label_top": lists[("Dep. Label", "top 10")], "label_bottom": lists[("Dep. Label", "bot. 10")],
            "table10": pd.read_csv(paper_table_path(config, "wieting2017_table10.csv")),
            "table11": pd.read_csv(paper_table_path(config, "wieting2017_table11.csv"))}


def parser_agreement(ours: pd.DataFrame, other: pd.DataFrame) -> dict:
    """How often two parses of the same words agree, in % of words: the Penn tag, the paper's label, the head,
    and the head with the UD relation (one parse's LAS against the other)."""
    same = {column: ours[column].to_numpy() == other[column].to_numpy()
            for column in ("word", "xpos", "sd_label", "head", "deprel")}
    if not same["word"].all():
        raise ValueError("the two parses are not of the same words")
    return {"words": len(ours), **{column: 100 * float(same[column].mean()) for column in ("xpos", "sd_label", "head")},
            "head_and_deprel": 100 * float((same["head"] & same["deprel"]).mean())}


def _agreements(per_seed: dict[int, pd.DataFrame], first: int, paper: dict, settings: dict) -> dict:
    """The agreement of POS tags and of dependency labels with the paper's Table 9, with its noise."""
    return {name: agreement_with_noise(per_seed, first, key, paper[f"{name}_top"], paper[f"{name}_bottom"],
                                       min_count=settings["min_count"], draws=settings["bootstrap"],
                                       seed=settings["seed"])
            for name, key in (("pos", "xpos"), ("label", "sd_label"))}


def _sentences(parses: pd.DataFrame) -> tuple[pd.DataFrame, list[list[str]]]:
    ordered = parses.sort_values(["sentence", "index"])
    return ordered, [group["word"].tolist() for _, group in ordered.groupby("sentence", sort=True)]


def _norms_by_seed(config: dict, data_dir, device: str, parses: dict[str, pd.DataFrame]):
    """The analysed run's choice (:func:`analysed_run`), its gate dimension and, for each parse table of the same
    sentences (``parses``: name -> table) and each seed of that run, the token table of its gate norms."""
    from pathlib import Path

    from paraphrastic.evaluation.selection import model_dir
    from paraphrastic.models.files import load_model
    from paraphrastic.runtime import resolve_device

    run, _, chosen = analysed_run(config, data_dir, config["gates"]["gran_row"])
    device = resolve_device(device)
    ordered = {name: _sentences(frame) for name, frame in parses.items()}
    sentences = next(iter(ordered.values()))[1]
    tables: dict[str, dict[int, pd.DataFrame]] = {name: {} for name in parses}
    for seed in chosen["seeds"]:
        model, vocab, payload = load_model(model_dir(Path(data_dir), run, seed) / "model.pt", device)
        norms = token_gate_norms(model, vocab, sentences, tags=payload["options"].get("tags") or "none",
                                 batch_size=config["gates"]["batch_size"], device=device)
        for name, (frame, _) in ordered.items():
            tables[name][seed] = token_table(frame, norms)
    return chosen, model.dim, len(sentences), tables


def analyse(config: dict, *, data_dir, parses_path, out_dir, device: str = "auto") -> dict:
    """Gate norms of the analysed GRAN over the parsed sentences, aggregated; writes ``out_dir``/*."""
    from pathlib import Path

    from paraphrastic.atomic import atomic_path

    settings = config["gates"]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    chosen, dim, sentences, tables_by_seed = _norms_by_seed(config, data_dir, device,
                                                            {"parses": read_table(parses_path)})
    per_seed = tables_by_seed["parses"]
    tokens = per_seed[chosen["seed"]]
    low = settings["min_count"]
    tables = {"by_pos": aggregate(tokens, ["xpos"], min_count=low),
              "by_label": aggregate(tokens, ["sd_label"], min_count=low),
              "by_ud_label": aggregate(tokens, ["deprel"], min_count=low),
              "by_pos_label": aggregate(tokens, ["xpos", "sd_label"], min_count=settings["min_pair_count"])}
    write_table(tokens, None, out_dir / "tokens.parquet", stage="gates")
    for name, frame in tables.items():
        with atomic_path(out_dir / f"{name}.csv") as tmp:
            frame.to_csv(tmp, index=False)
    norm_plot(tables["by_pos"], out_dir / "norms_by_pos.png", dim=dim)
    paper = paper_lists(config)
    agreement = _agreements(per_seed, chosen["seed"], paper, settings)
    summary = {"model": chosen, "gate_dim": dim, "sentences": sentences, "tokens": len(tokens),
               "bootstrap": {"draws": settings["bootstrap"], "level": CONFIDENCE, "seed": settings["seed"]},
               "min_count": low, "min_pair_count": settings["min_pair_count"], "agreement": agreement,
               "mean_norm": float(tokens["norm"].mean()), "label_mapping": dict(sorted(UD_TO_SD.items()))}
    write_result(out_dir / "summary.json", summary, stage="gates")
    return summary


def compare_parsers(config: dict, *, data_dir, parses_path, compared_parses_path, compared_models, out,
                    device: str = "auto") -> dict:
    """The parser comparison (``extended``): the same gate norms grouped by the tags and labels of the second Stanza
    models (``compared_parses_path``, the sentences of ``parses_path`` parsed by them), their agreement with the
    paper, the two parsers' agreement with each other, and what the report shows of those models
    (``compared_models``: their scores.json). Writes ``out``."""
    from paraphrastic.errors import PipelineError
    from paraphrastic.provenance import read_result

    ours, other = read_table(parses_path), read_table(compared_parses_path)
    if _sentences(other)[1] != _sentences(ours)[1]:
        raise PipelineError(f"{compared_parses_path}: not the sentences of {parses_path} (parse both again)")
    chosen, _, _, tables = _norms_by_seed(config, data_dir, device, {"analysis": ours, "compared": other})
    summary = {"model": chosen,
               "agreement": _agreements(tables["compared"], chosen["seed"], paper_lists(config), config["gates"]),
               "with_analysis_parser": parser_agreement(tables["analysis"][chosen["seed"]],
                                                        tables["compared"][chosen["seed"]]),
               "parser": read_result(compared_models)}
    write_result(out, summary, stage="gates_compared")
    return summary
