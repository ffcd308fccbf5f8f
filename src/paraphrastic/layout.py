"""Where the pipeline's artifacts live in its data folder, declared once.

The stage graph (:mod:`paraphrastic.pipeline.graph`) builds its commands and outputs from ``DataLayout("data")``,
the command line takes its path defaults from the graph, and the report, the analyses and model selection read
through the :class:`DataLayout` of the data folder they are given (``data/``, or a copy of it elsewhere). Any
path may hold the graph's placeholders (``DataLayout("data").job("{run}", "{seed}")``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DataLayout:
    root: Path

    def __init__(self, root: Path | str = "data"):
        object.__setattr__(self, "root", Path(root))

    # ---- data stages ---------------------------------------------------------------------------------------
    @property
    def corpus(self) -> Path:
        """The tokenised tables: training corpora, evaluation sets and their statistics."""
        return self.root / "corpus"

    @property
    def eval_table(self) -> Path:
        return self.corpus / "eval.parquet"

    @property
    def train_stats(self) -> Path:
        return self.corpus / "train_stats.json"

    @property
    def match_summary(self) -> Path:
        return self.corpus / "match_summary.json"

    @property
    def vocab(self) -> Path:
        """The pretrained word vectors' vocabulary folder (vocab.txt, embeddings.npy, coverage.json)."""
        return self.root / "vocab"

    @property
    def distilled(self) -> Path:
        """The distilled word vectors' vocabulary folder (the same files)."""
        return self.root / "distilled"

    @property
    def sentence_distilled(self) -> Path:
        """The distilled word vectors trained on the teacher's sentence embeddings (the same files), and the
        teacher's embeddings of the unlabelled text they train on (targets.parquet, targets.npy)."""
        return self.root / "sentence_distilled"

    @property
    def static_model(self) -> Path:
        """The sentence-distilled vectors exported as a static model, with its model card (README.md)."""
        return self.root / "static_model"

    # ---- transfer training and scoring ---------------------------------------------------------------------
    @property
    def models(self) -> Path:
        """Every transfer training job's folder."""
        return self.root / "models"

    def job(self, run: str, seed: int | str) -> Path:
        """One training job (a run and one of its seeds): model.pt, history and train.json."""
        return self.models / str(run) / f"seed{seed}"

    @property
    def results(self) -> Path:
        """Scores: each job's, the baselines' and the encoder comparison's."""
        return self.root / "results"

    # ---- gate analysis -------------------------------------------------------------------------------------
    def stanza(self, compared: bool = False) -> Path:
        """The Stanza models of the gate analysis, or (``compared``) those of the parser comparison."""
        return self.root / ("stanza_compared" if compared else "stanza")

    @property
    def gates(self) -> Path:
        """The gate sentences, their parses and (``analysis/``) the gate norms."""
        return self.root / "gates"

    # ---- supervised and the other seed systems -------------------------------------------------------------
    @property
    def supervised(self) -> Path:
        return self.root / "supervised"

    def supervised_job(self, task: str, run: str, seed: int | str, universal: bool = False) -> Path:
        """One supervised job (universal runs in a subfolder of their own)."""
        return self.supervised / "models" / ("universal" if universal else "") / task / run / f"seed{seed}"

    @property
    def error_analysis(self) -> Path:
        return self.root / "error_analysis"

    @property
    def siamese(self) -> Path:
        """Siamese CBOW: its corpus (``corpus/``), runs (``models/<run>``) and the word2vec baseline."""
        return self.root / "siamese"

    @property
    def pwim(self) -> Path:
        """PWIM's task tables, vectors and runs (``models/<task>/<run>``)."""
        return self.root / "pwim"
