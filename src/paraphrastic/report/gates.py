"""The report's gate analysis (Sec. 5.2): Tables 9-11 beside the paper's lists, and the norms by POS tag."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pandas as pd

from paraphrastic.analysis.gates import paper_lists
from paraphrastic.atomic import atomic_path
from paraphrastic.layout import DataLayout
from paraphrastic.provenance import read_result
from paraphrastic.report.document import Document, label

# Why a rank correlation could not be computed: printed after a dash wherever the section shows one
NOT_RANKED = "too few of them, or no spread among them, to rank"


def _computed(bounds) -> bool:
    return not any(math.isnan(bound) for bound in bounds)


def _noise(agreement: dict, measure: str, scale: float = 1) -> str:
    """" (sentences: [lo, hi]; sentences and seeds: [lo, hi]; per seed: a, b, c)" for one agreement measure."""
    def number(value):
        return f"{scale * value:.1f}" if scale != 1 else f"{value:g}"

    parts = [f"{kind.replace('_', ' ')}: [{number(bounds[measure][0])}, {number(bounds[measure][1])}]"
             for kind, bounds in (agreement.get("interval") or {}).items()
             if _computed(bounds[measure])]  # no interval where a resample has none
    seeds = agreement.get("per_seed") or {}
    if len(seeds) > 1:
        parts.append("per seed: " + ", ".join("–" if math.isnan(seeds[s][measure]) else number(seeds[s][measure])
                                              for s in sorted(seeds, key=int)))
    return f" ({'; '.join(parts)})" if parts else ""


def _origins(sentences: dict) -> str:
    """"; by file: … ; N of them are training sentences" from the sample's counts, where the stage recorded them."""
    parts = []
    if len(sentences.get("by_origin") or {}) > 1:
        counts = sentences["by_origin"].items()
        parts.append("by file, sampled of qualified: " + ", ".join(
            f"{Path(origin).name} {c['sampled']:,} of {c['qualified']:,}" for origin, c in counts))
    if "in_training_pairs" in sentences:
        parts.append(f"{sentences['in_training_pairs']:,} of the sentences are in the training pairs, so the GRAN "
                     "has seen them")
    return "".join(f"; {part}" for part in parts)


def _other_seeds(model: dict) -> str:
    others = [str(s) for s in model.get("seeds", []) if s != model["seed"]]
    return f"; the agreement below is repeated on seed{'s' if len(others) > 1 else ''} {', '.join(others)}" \
        if others else ""


CURVE_PLOT = "stanza_learning_curves.png"


def learning_curve_plot(frame: pd.DataFrame, path: Path, labels: dict[str, str] | None = None) -> None:
    """Two panels against wall time: the tagger's dev XPOS (its selection score where XPOS was not logged) and the
    parser's dev LAS on gold tags, one line per set of Stanza models (``labels``: a legend entry per set)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    panels = (("tagger", "xpos" if "xpos" in frame else "dev_score", "tagger: dev XPOS F1"),
              ("parser", "dev_score", "parser: dev LAS on gold tags"))
    if frame.empty:
        fig.suptitle("No learning curves: these Stanza models were not trained here")
    for ax, (model, column, title) in zip(axes, panels, strict=True):
        for name, rows in frame[frame["model"] == model].groupby("models", sort=False):
            ax.plot(rows["minutes"], rows[column], marker="o", label=(labels or {}).get(name, name))
        ax.set_title(title)
        ax.set_xlabel("minutes of training (wall time)")
        ax.set_ylabel("% on UD EWT dev")
        ax.grid(alpha=0.3)
        if ax.get_lines():
            ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)


def _learning_curves(doc: Document, sets: dict[str, dict], out_dir: Path) -> None:
    """The tagger's and the parser's dev scores at each evaluation of their training, with the wall time, for each
    set of Stanza models trained here (``sets``: its name -> its scores.json): a figure and its table."""
    points = [{"models": name, "model": model, **point} for name, stanza in sets.items()
              for model in ("tagger", "parser") for point in (stanza.get("curves") or {}).get(model, [])]
    frame = pd.DataFrame(points) if points else pd.DataFrame(columns=["models", "model", "step", "seconds",
                                                                       "dev_score"])
    frame["minutes"] = frame.pop("seconds") / 60
    labels = {name: f"{name}: {_inputs(stanza)}" for name, stanza in sets.items()}
    learning_curve_plot(frame, out_dir / CURVE_PLOT, labels)  # a report output: written, empty, for pretrained models
    if frame.empty:
        return
    threads = sorted({stanza.get("threads", 1) for stanza in sets.values() if stanza.get("curves")})
    doc.para(f"Learning curves of the Stanza models trained here ({' and '.join(map(str, threads))} "
             f"thread{'s' if threads != [1] else ''} each): at each "
             "evaluation on dev, Stanza's own scorer gives the tagger's UPOS and XPOS F1 and selects on their F1 "
             "with the features together (AllTags), and the parser's LAS on the dev file's gold tags (the "
             "pipeline's scores above use predicted tags). Time counts from the start of each model's training; "
             "the model kept is the best evaluation.")
    doc.image(out_dir / CURVE_PLOT, "Two line charts against minutes of training: the Stanza tagger's dev XPOS and "
              f"the parser's dev LAS at each evaluation, one line for each of {frame['models'].nunique()} sets of "
              "models.")
    columns = ["models", "model", "step", "minutes", "dev_score", *[c for c in ("upos", "xpos") if c in frame]]
    doc.table(frame[columns].rename(columns={"dev_score": "selection score", "upos": "UPOS", "xpos": "XPOS"}),
              caption="Dev scores in %, not correlations (selection score: AllTags F1 for the tagger, LAS on gold "
              "tags for the parser); minutes of wall time since the model's training started.")


def _inputs(stanza: dict) -> str:
    """What a set of Stanza models trained here reads besides characters: its word vectors and transformer."""
    vectors = stanza.get("word_vectors") or "no word vectors"
    # a local folder by its own name: its path is the training machine's
    return f"{vectors} + {Path(stanza['transformer']).name}" if stanza.get("transformer") else vectors


def _parser(stanza: dict) -> str:
    """A short name for a set of Stanza models: where they came from, their inputs and budget."""
    if "budget" not in stanza:
        return stanza["source"].split(" (")[0]
    b = stanza["budget"]
    return f"trained here, {_inputs(stanza)}, {b['tagger_steps']:,} + {b['parser_steps']:,} steps"


def _with_interval(agreement: dict, measure: str, scale: float = 1) -> str:
    """"value [lo, hi]": the measure with its widest 95% interval (sentences and seeds, else sentences)."""
    if math.isnan(agreement[measure]):
        return f"– ({NOT_RANKED})"
    intervals = agreement.get("interval") or {}
    bounds = intervals.get("sentences_and_seeds") or intervals.get("sentences")
    digits = 1 if scale != 1 else 0
    text = f"{scale * agreement[measure]:.{digits}f}"
    return f"{text} [{scale * bounds[measure][0]:.{digits}f}, {scale * bounds[measure][1]:.{digits}f}]" \
        if bounds and _computed(bounds[measure]) else text


def _parser_comparison(doc: Document, summary: dict, stanza: dict, comparison: dict | None) -> None:
    """The agreement with the paper from both parsers' tags and labels (``stanza``: the analysis's models'
    scores.json; ``comparison``: gates_compared's result, with the second models' scores), beside their dev scores.
    Without ``comparison`` (the default run leaves the comparison out) a line says how to run it."""
    if comparison is None:
        doc.para("Parser comparison: left out of this run for its cost (the second Stanza models train for longer "
                 "than anything else in the offline profile); `extended: true` runs it (docs/performance.md).")
        return
    compared = comparison["parser"]
    if not comparison.get("agreement") or not summary.get("agreement"):
        return
    rows = []
    for role, scores, agreement in (("analysis (tables above)", stanza, summary["agreement"]),
                                    ("compared", compared, comparison["agreement"])):
        pos, lab = agreement["pos"], agreement["label"]
        rows.append({"parser": f"{role}: {_parser(scores)}", "dev XPOS": f"{scores['dev']['xpos']:.1f}",
                     "dev LAS": f"{scores['dev']['las']:.1f}", "POS ρ × 100": _with_interval(pos, "spearman", 100),
                     "POS top/bottom": f"{_with_interval(pos, 'top_overlap')} / "
                                       f"{_with_interval(pos, 'bottom_overlap')}",
                     "label ρ × 100": _with_interval(lab, "spearman", 100),
                     "label top/bottom": f"{_with_interval(lab, 'top_overlap')} / "
                                         f"{_with_interval(lab, 'bottom_overlap')}"})
    both = comparison["with_analysis_parser"]
    doc.para("Parser comparison: the same gate norms (the same model and sentences), grouped by the tags and labels "
             "of two sets of Stanza models, so the difference between the rows is the parser's alone. On the gate "
             f"sentences the two agree on the Penn tag of {both['xpos']:.1f}% of the words, on the paper's label of "
             f"{both['sd_label']:.1f}%, on the head of {both['head']:.1f}% and on head and relation of "
             f"{both['head_and_deprel']:.1f}%.")
    doc.table(pd.DataFrame(rows), formatted=True,
              caption="Dev XPOS and LAS in % (UD EWT dev, predicted tags); ρ × 100 is Spearman's correlation with "
              "the paper's Table 9 order; top/bottom: how many of the paper's 10 are in ours. In brackets, 95% "
              "bootstrap intervals (sentences and seeds together where there are several seeds).")


def gate_section(doc: Document, config: dict, data_dir: Path, out_dir: Path) -> None:
    """Tables 9-11: the GRAN gate analysis beside the paper's lists."""
    layout = DataLayout(data_dir)
    analysis = layout.gates / "analysis"
    summary = read_result(analysis / "summary.json")
    sentences = read_result(layout.gates / "sentences.json")
    stanza = read_result(layout.stanza() / "scores.json")
    # the parser comparison, with `extended` (a file an earlier extended run left is not this run's)
    comparison = read_result(layout.gates / "compared.json") if config.get("extended") else None
    by_pos = pd.read_csv(analysis / "by_pos.csv")
    by_label = pd.read_csv(analysis / "by_label.csv")
    by_pair = pd.read_csv(analysis / "by_pos_label.csv", keep_default_na=False)
    model, dim, dev = summary["model"], summary["gate_dim"], stanza["dev"]
    scope = ""
    if label(config) == "tiny config":
        budget = stanza.get("budget")
        steps = f", Stanza trained {budget['tagger_steps']:,} + {budget['parser_steps']:,} steps" if budget else ""
        scope = f" (tiny config: {summary['sentences']:,} sentences{steps})"
    doc.heading("Tables 9-11: GRAN gate analysis (Sec. 5.2)", scope=scope)
    doc.para(
        f"{summary['sentences']:,} sentences from {sentences['source']} ({sentences['qualified']:,} qualified: "
        f"≤ {sentences['max_tokens']} tokens, distinct, not among the model-selection sentences; "
        f"{sentences['longer_than_max']:,} were longer; seed {sentences['seed']}){_origins(sentences)}, "
        f"{summary['tokens']:,} words. "
        f"Model: run {model['run']} (seed {model['seed']}{_other_seeds(model)}), the oracle choice of row "
        f"{model['row']} "
        f"({model['runs_in_row']} run{'' if model['runs_in_row'] == 1 else 's'}), at its STS-2016-selected epoch "
        "(model.pt). "
        f"Gates have {dim} dimensions, so an L1 norm lies in (0, {dim}); the paper's 300-d gates give norms "
        f"up to 300, so the tables also show ours × 300/{dim}.")
    source = stanza["source"]
    if "budget" in stanza:
        b = stanza["budget"]
        source += (f" ({stanza['train_sentences']:,} training sentences; inputs {_inputs(stanza)}; tagger "
                   f"{b['tagger_steps']:,} steps of batch {b['tagger_batch_size']}, parser {b['parser_steps']:,} steps "
                   f"of batch {b['parser_batch_size']}, best dev checkpoint every {b['eval_interval']} steps)")
    doc.para(f"Tagging and parsing: Stanza {stanza['stanza_version']}, models {source}. On UD EWT dev "
             f"({dev['sentences']:,} sentences, gold words): UPOS {dev['upos']:.1f}, XPOS {dev['xpos']:.1f}, "
             f"UAS {dev['uas']:.1f}, LAS {dev['las']:.1f}. The paper used the Stanford parser.")
    _learning_curves(doc, {"analysis": stanza, **({"compared": comparison["parser"]} if comparison else {})}, out_dir)
    paper = paper_lists(config)
    scale = 300 / dim

    def listing(frame, key, top, k=10):
        ordered = frame.sort_values("mean", ascending=not top).head(k)
        return [f"{label} ({mean:.1f})" for label, mean in zip(ordered[key], ordered["mean"], strict=True)]

    columns: dict[str, list[str]] = {"rank": [str(i + 1) for i in range(10)]}
    for kind, frame, key in (("POS", by_pos, "xpos"), ("label", by_label, "sd_label")):
        for which, top in (("top", True), ("bottom", False)):
            ours = listing(frame, key, top)
            theirs = paper[("pos" if kind == "POS" else "label") + ("_top" if top else "_bottom")]
            columns[f"{kind} {which}: ours (mean L1)"] = [ours[i] if i < len(ours) else "" for i in range(10)]
            columns[f"{kind} {which}: paper"] = [theirs[i] if i < len(theirs) else "" for i in range(10)]
    doc.para("Table 9: the 10 POS tags and the 10 dependency labels with the highest and the lowest mean gate L1 "
             "norm, ours beside the paper's (top lists highest first, bottom lists lowest first). "
             f"Labels seen fewer than {summary['min_count']} times are left out.")
    doc.table(pd.DataFrame(columns), formatted=True,
              caption=f"Mean gate L1 norms, not correlations: the sum of the {dim} gate values (each in (0, 1)) of "
              "a word, averaged over the words with the tag or label; the paper's lists have no numbers.")
    agreement = summary.get("agreement")
    if agreement:
        doc.bullets([f"{name}: {a['top_overlap']}/{a['k']} of the paper's top 10{_noise(a, 'top_overlap')} and "
                     f"{a['bottom_overlap']}/{a['k']} of its bottom 10{_noise(a, 'bottom_overlap')} are in ours; "
                     f"Spearman's ρ × 100 over the {a['shared_labels']} of its 20 labels we observe: "
                     + (f"– ({NOT_RANKED}: {a['shared_labels']})" if math.isnan(a["spearman"])
                        else f"{100 * a['spearman']:.1f}{_noise(a, 'spearman', 100)}")
                     for name, a in (("POS tags", agreement["pos"]), ("Dependency labels", agreement["label"]))])
        noise = summary.get("bootstrap") or {}
        if noise.get("draws"):
            doc.para(f"In brackets: {100 * noise['level']:.0f}% percentile intervals from {noise['draws']:,} "
                     "bootstrap resamples of the sentences (the first seed's model) and, where the run has several "
                     "seeds, of the sentences and the seed together; then each seed's own value. A departure from "
                     "the paper inside these intervals could be noise of the sample or of training.")
        _parser_comparison(doc, summary, stanza, comparison)
    for number, tag, key in ((10, "JJ", "table10"), (11, "VBG", "table11")):
        ours = by_pair[by_pair["xpos"] == tag].sort_values("mean", ascending=False)
        table = pd.DataFrame({"label": ours["sd_label"], "count": ours["count"], "mean L1 (ours)": ours["mean"],
                              f"× 300/{dim}": ours["mean"] * scale})
        table = table.merge(paper[key].rename(columns={"dep_label": "label", "weight": "paper"}), on="label",
                            how="outer")
        # labels only one side has: shown as "–", counts as integers
        table = table.astype(object).where(table.notna(), "–")
        table["count"] = [c if c == "–" else f"{int(c):,}" for c in table["count"]]
        for column in table.columns[2:]:
            table[column] = [v if v == "–" else f"{v:.1f}" for v in table[column]]
        doc.para(f"Table {number}: mean gate L1 norm of words tagged {tag}, by dependency label "
                 f"(labels seen at least {summary['min_pair_count']} times; the paper lists {len(paper[key])}).")
        doc.table(table, caption=f"Mean gate L1 norms (0 to {dim}; × 300/{dim}: on the paper's 300-d scale), not "
                  "correlations, so not × 100; the paper's column is its printed weight.")
    mapping = ", ".join(f"{ud}→{sd}" for ud, sd in summary["label_mapping"].items())
    doc.para("UD labels are mapped to the paper's Stanford Dependencies where one exists: case→prep (possessive "
             "on 's), a negating advmod→neg, compound on a number→number, an adjectival xcomp→acomp, and "
             f"{mapping}; other UD subtypes count as their base relation. The mapping is approximate: UD attaches "
             "prepositions and copulas differently, so prep/pobj/cop are not the same arcs as the paper's.")
    with atomic_path(out_dir / "gate_norms_by_pos.png") as tmp:
        shutil.copyfile(analysis / "norms_by_pos.png", tmp)
    doc.image(out_dir / "gate_norms_by_pos.png",
              f"Bar chart: the mean GRAN gate L1 norm (y axis, 0 to {dim}) of the words with each Penn Treebank "
              "POS tag (x axis), highest first, with error bars for the standard deviation and the 95% confidence "
              "interval of the mean.")
