"""The report's data sections: how this run's data departs from the paper's, and the corpora, token-matched
samples and vocabulary it trained on."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from paraphrastic.configuration import grids
from paraphrastic.evaluation.selection import Selection
from paraphrastic.layout import DataLayout
from paraphrastic.provenance import read_result
from paraphrastic.report.document import Document

PAPER_SIMPWIKI_PAIRS = 167_689  # Sec. 4.1.2


PAPER_PPDB_XL_PAIRS = 1_341_188  # footnote 3


def _corpus_records(data_dir: Path) -> tuple[dict, dict, dict]:
    """The training corpora's statistics, the token matching's summary and the vocabulary's coverage."""
    layout = DataLayout(data_dir)
    return (read_result(layout.train_stats), read_result(layout.match_summary),
            read_result(layout.vocab / "coverage.json"))


def paper_runs(runs: dict[str, dict]) -> dict[str, dict]:
    """The runs of the paper's rows: not those on the distilled or sentence-distilled word vectors (beyond the
    paper)."""
    return {name: settings for name, settings in runs.items()
            if settings.get("word_vectors", "pretrained") == "pretrained"}


def full_grid_size(config: dict) -> int:
    return len(paper_runs(grids.expand(grids.unthinned(config))[0]))


def _gran_epochs(runs: dict[str, dict]) -> list[str]:
    """The paper gives no epochs for GRAN: how many this config trains them, beside the LSTMs' (none without GRANs)."""
    def epochs(family: str) -> str:
        return " or ".join(str(n) for n in sorted({s["epochs"] for s in runs.values()
                                                  if s["model"].removeprefix("bi").startswith(family)}))

    gran, lstm = epochs("gran"), epochs("lstm")
    if not gran:
        return []
    plural = "" if gran == "1" else "s"
    return [f"GRAN epochs are not given in the paper; GRAN models are trained for {gran} epoch{plural}"
            + (f", as many as the LSTMs ({lstm})." if gran == lstm else f" (the LSTMs: {lstm or 'none trained'}).")]


def deviations_section(doc: Document, config: dict, data_dir: Path, sel: Selection) -> None:
    """Data deviations from the paper: what the profile's data, the token matching and the thinned grids change."""
    train_stats, match, vocab = _corpus_records(data_dir)
    profile_name = config["data_profile"]
    keep = (config.get("grid_thinning") or {}).get(profile_name) or {}
    doc.heading("Data deviations from the paper")
    sw, pp = train_stats["simpwiki"], train_stats["ppdb"]
    deviations = []
    if profile_name == "offline":
        deviations += [
            f"SimpWiki: {sw['pairs']:,} pairs ({sw['tokens']:,} tokens), the v2 validation slice of the mirror, "
            f"i.e. {100 * sw['pairs'] / PAPER_SIMPWIKI_PAIRS:.0f}% of the paper's {PAPER_SIMPWIKI_PAIRS:,} pairs"
            + (" plus the v1 tuning/test pairs" if config["data"]["simpwiki_extra"] else "") + ".",
            f"PPDB: the {pp['pairs']:,} human-scored pairs of Pavlick et al. (2015) ({pp['tokens']:,} tokens) "
            f"instead of PPDB XL ({PAPER_PPDB_XL_PAIRS:,} phrase pairs); every pair is used, whatever its score.",
            f"Word vectors: `{vocab['embeddings']}` ({vocab['dim']}-d) instead of 300-d PARAGRAM-SL999, "
            f"so every model is {vocab['dim']}-d and starts from vectors not tuned for paraphrase.",
        ]
    if match["direction"] == "simpwiki_sampled_to_ppdb":
        deviations.append(
            f"Token matching ran the other way: PPDB has fewer tokens ({match['full']['ppdb']['tokens']:,}) than "
            f"SimpWiki ({match['full']['simpwiki']['tokens']:,}), so Table 1 compares all of PPDB with a "
            f"{match['matched']['simpwiki']['pairs']:,}-pair SimpWiki sample "
            f"({match['matched']['simpwiki']['tokens']:,} tokens, seed {match['seed']}); "
            "Tables 2-4 use all SimpWiki pairs.")
    else:
        deviations.append(
            f"Token-matched PPDB sample: {match['matched']['ppdb']['pairs']:,} pairs "
            f"({match['matched']['ppdb']['tokens']:,} tokens) against SimpWiki's "
            f"{match['full']['simpwiki']['tokens']:,}.")
    if keep:
        kept = ", ".join(f"{k} {v}" for k, v in keep.items())
        deviations.append(f"Tuning grids thinned for this profile to {len(paper_runs(sel.runs))} of the "
                          f"{full_grid_size(config):,} runs the config's grids hold unthinned, keeping only: {kept}. "
                          "Every table row is still selected from real training runs, over fewer settings.")
    training_text = ("SimpWiki and PPDB ship tokenised and are only split on whitespace (PTB escapes such as -LRB- "
                     "are mapped back to characters); a leading # is stripped from hashtags"
                     if config["data"]["reading"] == "ours" else
                     "SimpWiki and PPDB ship tokenised and are read as the authors' code reads them (data.reading: "
                     "authors): split on whitespace, ASCII letters lower-cased, PTB escapes such as -LRB- kept")
    deviations += [
        "Tokenisation: NLTK Punkt + Treebank (PTB-style) tokenizer and lower-casing of the evaluation sets instead "
        f"of Stanford CoreNLP; {training_text}.",
        *_gran_epochs(paper_runs(sel.runs)),
        "Twitter: the 972 test pairs with the expert's graded 0–5 score; STS 2013 SMT comes from the copy "
        "distributed to 2013 participants (the public archive omits it).",
    ]
    doc.bullets(deviations)


def data_section(doc: Document, data_dir: Path) -> None:
    """The training corpora and their token-matched samples, and the vocabulary's coverage."""
    train_stats, match, vocab = _corpus_records(data_dir)
    doc.heading("Data")
    rows = [{"corpus": name, "pairs": s["pairs"], "tokens": s["tokens"],
             "mean tokens/sentence": s["mean_sentence_tokens"]} for name, s in train_stats.items()]
    rows += [{"corpus": f"{name} (token-matched)", "pairs": s["pairs"], "tokens": s["tokens"],
              "mean tokens/sentence": s["tokens"] / max(2 * s["pairs"], 1)} for name, s in match["matched"].items()]
    doc.table(pd.DataFrame(rows), caption="Counts of pairs and tokens; no correlations.")
    tallies = {name: s["skipped_lines"] for name, s in train_stats.items()}
    tallies[f"the word vectors ({vocab['embeddings']})"] = vocab["skipped_lines"]
    doc.para("Lines skipped or read leniently, as the authors' loaders do (malformed training pairs are dropped, "
             "word-vector lines decoded as latin-1 where they are not UTF-8): "
             + "; ".join(f"{name} {_tally(t)}" for name, t in tallies.items()) + ".")
    doc.para(f"Vocabulary: {vocab['words']:,} words with a pretrained vector (plus `<pad>`, `<unk>`, `<s>`, `</s>`). "
             "Coverage: " + "; ".join(f"{name} {100 * c['token_coverage']:.1f}% of tokens, "
                                      f"{100 * c['type_coverage']:.1f}% of types"
                                      for name, c in vocab["coverage"].items()) + ".")


def _tally(skipped: dict) -> str:
    if not skipped["lines"]:
        return "none"
    kinds = ", ".join(f"{count:,} {kind} ({', '.join(skipped['first'][kind][:2])})"
                      for kind, count in skipped["by_kind"].items())
    return f"{skipped['lines']:,} lines: {kinds}"
