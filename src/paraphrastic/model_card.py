"""The model card of the pipeline's static model (the `static_model` stage): what it is, what it was made from, its
scores on both protocols beside the teacher's and the published static models', its speed, how to load it and the
licences it comes under. Every number comes from the run's own files; a score the run could not compute is a dash
with the reason, never a guess."""

from __future__ import annotations

from paraphrastic.data import datasets
from paraphrastic.evaluation.mteb_sts import MTEB_TASKS, mean_over_tasks

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
# What the vectors were made from, and under which licence each comes (the mirror's SOURCE.md files give them)
SOURCES = {
    "simpwiki": "SimpWiki's aligned Simple/English Wikipedia sentences (Wikipedia text: CC BY-SA)",
    "simpwiki_extra": "SimpWiki's extra (v1) aligned Wikipedia pairs (Wikipedia text: CC BY-SA)",
    "ppdb": "PPDB's human-scored phrase pairs (PPDB: CC BY 3.0)",
    "treebank": "the UD English EWT treebank's sentences (CC BY-SA 4.0)",
}
TEACHER_LICENSE = "Apache-2.0"  # all-MiniLM-L6-v2's


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _mteb(scores: dict) -> float | None:
    return mean_over_tasks(scores or {})


def _scores(loaded: dict | None, published: dict[str, dict], *, teacher: str | None, tokenizer: str) -> str:
    """The card's "Scores" section: the export as model2vec and sentence-transformers load it (``loaded``, None where
    it was not scored), its speed beside all-MiniLM-L6-v2's, and the published models' scores."""
    from paraphrastic.data.static_tokenizer import DESCRIPTIONS

    if loaded is None:
        return ("## Scores\n\nNot measured when it was exported. `paraphrastic export --static MODEL FOLDER --eval "
                "data/corpus/eval.parquet` scores the export as model2vec and sentence-transformers load it, and "
                "writes those scores here beside the published models'.\n")
    ours, other = loaded["model2vec"], loaded["sentence_transformers"]
    ours_mteb, other_mteb = _mteb(ours.get("mteb")), _mteb(other.get("mteb"))
    speed = loaded["speed"]
    minilm = published.get(MINILM, {})
    is_teacher = teacher is not None and MINILM.endswith(f"/{teacher}")
    rows = [f"| this model, as model2vec loads it | {_cell(ours_mteb)} | {ours['summary']['transfer_pearson']:.1f} | "
            f"{speed['sentences_per_second']['model2vec']:,.0f} | measured in this run |",
            f"| this model, as sentence-transformers loads it | {_cell(other_mteb)} | "
            f"{other['summary']['transfer_pearson']:.1f} | – | measured in this run |",
            f"| {MINILM}{' (the teacher)' if is_teacher else ''} | {_cell(mean_over_tasks(minilm))} | – | "
            f"{speed['sentences_per_second']['teacher']:,.0f} | published; speed measured in this run |"]
    for model, scores in published.items():  # those with all five tasks published
        if model != MINILM and (mean := mean_over_tasks(scores)) is not None:
            rows.append(f"| {model} | {mean:.1f} | – | – | published |")
    sets = ours["summary"]["transfer_sets"]
    every = datasets.TRANSFER_SET_COUNT
    measure = (f"the mean over the {every} SemEval transfer sets" if sets == every else
               f"the mean over the {sets} of its {every} SemEval transfer sets this run evaluated, a smaller config")
    missing = ("" if ours_mteb is not None else
               " A dash under MTEB: this run's evaluation sets do not hold every test pair of each year from 2012 to "
               "2016 (a smaller config), so MTEB's pooled tasks were not scored.")
    per_task = ""
    if ours_mteb is not None:
        per_task = ("\n\n| task | this model (model2vec) | " + MINILM.split("/")[-1]
                    + " (published) |\n|---|---:|---:|\n"
                    + "\n".join(f"| {task} | {ours['mteb'][task]['spearman']:.1f} | "
                                f"{_cell(minilm.get(task, {}).get('spearman'))} |" for task in MTEB_TASKS))
    speed_ratio = speed["sentences_per_second"]["model2vec"] / speed["sentences_per_second"]["teacher"]
    reading = (f"its own tokenizer, the one the vectors were trained and chosen with ({DESCRIPTIONS[tokenizer]}; then "
               "the model's words, and a word it lacks as the teacher's WordPiece pieces)" if tokenizer in DESCRIPTIONS
               else "its tokenizer, which approximates the Treebank tokenizer the model was trained with (lower case, "
                    "BERT's pre-tokenizer, the model's words): text the two split otherwise gets other vectors than "
                    "in training")
    unknown = ", which is zero here, so the two give the same cosines" if tokenizer in DESCRIPTIONS else ""
    return f"""## Scores

Scored as this folder loads, raw text through {reading}: cosine similarity of the mean vectors. MTEB STS12–16:
MTEB's protocol (each year's test pairs pooled, Spearman's ρ × 100, the mean over the five years). {sets} sets: the
paper's measure (Pearson's r × 100 per source, {measure}). A word with no piece either is `<unk>`: model2vec
leaves it out of the mean and sentence-transformers averages in its vector{unknown}. Sentences per second: raw
text, tokenisation included, {speed['sentences']:,} sentences on {speed['threads']} CPU thread(s), this model and
{MINILM.split('/')[-1]} timed one after the other in the same job ({speed_ratio:,.0f}× its speed there); published
models publish no speed on comparable hardware.{missing}

| encoder | MTEB STS12–16 (ρ) | {sets} sets (r) | sentences/s | |
|---|---:|---:|---:|---|
{chr(10).join(rows)}{per_task}
"""


def _use(folder: str) -> str:
    return f"""## Use

```python
from model2vec import StaticModel
model = StaticModel.from_pretrained("{folder}")  # model2vec: this folder
embeddings = model.encode(["A man is playing a guitar."])

from sentence_transformers import SentenceTransformer
model = SentenceTransformer("{folder}")     # sentence-transformers (StaticEmbedding), no extra code
embeddings = model.encode(["A man is playing a guitar."])
```
"""


def _front_matter(licence: str, base_model: str) -> str:
    return f"""---
library_name: model2vec
tags: [static-embeddings, sentence-similarity, sentence-transformers, model2vec, paraphrastic]
license: {licence}
{base_model}language: [en]
---
"""


def exported_model_card(*, name: str, folder: str, source: str, payload: dict, dims: int, rows: int,
                        loaded: dict | None, published: dict[str, dict]) -> str:
    """The card `paraphrastic export --static` writes for a model file (``payload``: what it holds, its settings and
    tokenizer among them): what it is, its scores as loaded where ``loaded`` has them
    (:func:`paraphrastic.evaluation.compare_encoders.loaded_scores`), how to load it."""
    settings = payload.get("settings") or {}
    tokenizer = "own" if payload.get("tokenizer") is not None else None
    made = ", ".join(f"{key} {value}" for key, value in settings.items() if isinstance(value, (str, int, float)))
    reading = ("It reads text with the tokenizer it was trained and scored with, which its model file records."
               if tokenizer else
               "Its tokenizer approximates the Treebank tokenizer the model was trained with (lower case, BERT's "
               "pre-tokenizer, the model's words): text the two split otherwise (contractions, quotes) gets other "
               "vectors than in training; `paraphrastic export` without `--static` keeps the exact one.")
    return f"""{_front_matter("other", "")}
# {name}

A static English sentence encoder: {rows:,} rows of {dims} dimensions; a sentence is the mean of its words' vectors.
Exported by the `paraphrastic` pipeline (a reproduction of Wieting & Gimpel, ACL 2017, and its family) from the
model file `{source}` (an `{payload.get('model', 'avg')}` model{f': {made}' if made else ''}), which wrote this card.
{reading}

{_scores(loaded, published, teacher=None, tokenizer=tokenizer or "treebank_approximation")}
{_use(folder)}
## Licence

The vectors derive from the word vectors and training text of the model's run, under their own licences (the data
mirror's SOURCE.md files name them). The pipeline's code is MIT.
"""


def static_model_card(*, name: str, dims: int, words: int, pieces: int, teacher: str, targets: dict,
                      training: dict, loaded: dict, published: dict[str, dict], tokenizer: str) -> str:
    """The card (markdown with the front matter the Hugging Face hub reads). ``targets`` and ``training``: the
    sentence distillation's targets.json and training.json; ``loaded``: the export scored as a user loads it
    (``model2vec`` and ``sentence_transformers``: summary, mteb) and its speed beside the teacher's (``speed``:
    :func:`paraphrastic.evaluation.compare_encoders.loaded_scores`); ``published``: model -> task -> scores
    (:func:`paraphrastic.evaluation.mteb_sts.published`), all-MiniLM-L6-v2's among them; ``tokenizer``: the kind the
    export ships (``word_vectors.tokenizer``)."""
    settings = training["settings"]
    sources = targets["sources"]
    used = [source for source in sources if sources[source]["texts"]]
    is_teacher = MINILM.endswith(f"/{teacher}")
    base_model = f"base_model: {MINILM}\n" if is_teacher else ""
    steps = ["from the distilled vectors with their Zipf weights divided out (each word's weight learned)"
             if settings.get("start_weights") == "none" else "from the distilled vectors with their Zipf weights",
             f"{settings['loss'].replace('_', ' ')} loss to the teacher's "
             + ("embeddings as they are" if settings.get("target_dims") is None
                else f"embeddings reduced by PCA to {settings['target_dims']} dimensions"),
             f"the linear map {'folded into the vectors' if settings.get('map') == 'folded' else 'dropped'}"]
    if settings.get("sif_after") is not None:
        steps.append(f"weighted by SIF (coefficient {settings['sif_after']:g}) on the training texts' frequencies")
    if settings.get("post_processing") == "whiten":
        steps.append("whitened on the training texts")
    if settings.get("paraphrase_weight"):
        steps.append(f"with the margin loss on {settings['paraphrase_pairs']} paraphrase pairs at weight "
                     f"{settings['paraphrase_weight']:g}")
    text_lines = "\n".join(f"   - {sources[source]['texts']:,} texts: {SOURCES.get(source, source)}" for source in used)
    return f"""{_front_matter("cc-by-sa-4.0", base_model)}
# {name}

A static English sentence encoder: {words:,} words and {pieces:,} of the teacher's WordPiece pieces, each a
{dims}-dimensional vector; a sentence is the mean of its words' vectors (a word without a vector is read as its
pieces). It was distilled from the teacher, {teacher}, and then trained at the sentence level towards the
teacher's embeddings of unlabelled text, by the `paraphrastic` pipeline (a reproduction of Wieting & Gimpel,
ACL 2017, and its family), which wrote this card from the run's own files.

{_scores(loaded, published, teacher=teacher, tokenizer=tokenizer)}
No evaluation set chose anything here but STS 2016 (the epoch kept, as the paper selects), and the vocabulary takes
no word that only the evaluation sets have; no training text is an evaluation sentence.

{_use("data/static_model")}
## How it was made

1. Word vectors distilled from the teacher (model2vec's method): the teacher's output for each word of the training
   corpora and for its pieces, PCA and Zipf weighting.
2. Trained on {targets['texts']:,} distinct unlabelled texts, each embedded by the teacher:
{text_lines}
3. {settings['epochs']} epochs of AdamW (learning rate {settings['learning_rate']:g}, weight decay
   {settings.get('weight_decay', 0.01):g}, batch {settings['batch_size']}): {'; '.join(steps)}; the epoch kept is
   the best on STS 2016 (epoch {training['selected_epoch']}, STS 2016 r × 100 {training['selection_pearson']:.1f}).

## Licence

The vectors derive from the teacher, {teacher}{f' ({TEACHER_LICENSE})' if is_teacher else ''}, and from text under
CC BY-SA (Wikipedia, the EWT treebank) and CC BY 3.0 (PPDB): they are given under CC BY-SA 4.0, with attribution to
those sources. The pipeline's code is MIT.
"""
