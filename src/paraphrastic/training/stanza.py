"""Stanza models for the gate analysis: trained offline from UD English EWT, or pretrained ones.

Stanza's pretrained English models come from a model hub that is unreachable on the build
machines, so by default the tagger, the dictionary lemmatizer and the dependency parser are
trained with Stanza's own training entry points (``python -m stanza.models.tagger`` ...) on the
UD English EWT treebank, with step budgets from params (``gates.stanza``), either without word vectors
(``--no_pretrain``) or from the profile's word vectors (``word_vectors: embeddings``; offline GloVe 6B 50-d),
which Stanza turns into its pretrain file, and optionally with a frozen local transformer's features as well
(``transformer``; Stanza's ``--bert_model``). Each model's dev score at every evaluation is recorded with
the wall time it was reached (its learning curve). The models are assembled into a
``stanza_resources`` folder (``resources.json`` naming them as the ``default`` package) that
``stanza.Pipeline(..., dir=..., download_method=None)`` loads. With ``gates.stanza.pretrained``
(a ``stanza_resources`` folder) or ``gates.stanza.download: true`` (a machine with internet)
those models are used instead. Either way the dev-set UPOS/XPOS accuracy and LAS are measured
with the assembled pipeline and recorded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from paraphrastic.atomic import sha256_file, write_json
from paraphrastic.data.readers import iter_lines
from paraphrastic.errors import MalformedLine, PipelineError
from paraphrastic.phases import phase
from paraphrastic.provenance import write_result

PACKAGE = "ewt_offline"  # the package name the trained models get in resources.json
PROCESSORS = "tokenize,pos,lemma,depparse"
TRANSFORMER = "transformer.json"  # in a resources folder: the transformer its models were trained with
TRANSFORMER_FILES = shutil.ignore_patterns("onnx", "openvino", "*.onnx", "*.h5", "*.msgpack", "*.ot", "checkpoint-*")


CONLLU_ID = re.compile(r"[0-9]+(-[0-9]+|\.[0-9]+)?")  # a word, a multiword token (3-4), an empty node (3.1)


def conllu_sentences(path: Path, limit: int | None = None) -> list[str]:
    """The sentence blocks of a .conllu (or .conllu.gz) file, the first ``limit`` of them.

    Lines are read as :func:`~paraphrastic.data.readers.iter_lines` reads them, and each word line must have
    CoNLL-U's 10 tab-separated columns, an ID and (for a word) an integer HEAD: a malformed file stops here
    with file:line, not deep inside Stanza's training.
    """
    blocks, current = [], []
    for number, line in iter_lines(path):
        if line.strip():
            cols = line.split("\t")
            if not line.startswith("#") and (len(cols) != 10 or not CONLLU_ID.fullmatch(cols[0]) or (
                    cols[0].isdigit() and not re.fullmatch(r"[0-9]+", cols[6]))):
                raise MalformedLine(path, number, "not a CoNLL-U word line (10 tab-separated columns, an ID, "
                                    "an integer HEAD)", line)
            current.append(line + "\n")
        elif current:
            blocks.append("".join(current))
            current = []
            if limit and len(blocks) >= limit:
                return blocks
    if current:
        blocks.append("".join(current))
    if not blocks:
        raise PipelineError(f"{path}: no sentences (not a CoNLL-U file?)")
    return blocks[:limit] if limit else blocks


def write_conllu(blocks: list[str], path: Path) -> Path:
    # Stanza's CoNLL reader takes plain files, not .gz
    path.write_text("\n".join(blocks) + "\n", encoding="utf-8")
    return path


# What Stanza's tagger and parser log at each evaluation on dev: first its scorer's table, a line of names and a
# line of F1 scores (tagger: UPOS, XPOS, UFeats, AllTags; parser: LAS, MLAS, BLEX, on the dev file's gold tags),
# then the score it selects on (tagger: AllTags; parser: LAS).
DEV_SCORE = re.compile(r"step (\d+): train_loss = ([0-9.naife+-]+), dev_score = ([0-9.]+)")
SCORE_NAMES = re.compile(r"(?:^|: )([A-Za-z]+(?:\t[A-Za-z]+)+)$")
SCORE_VALUES = re.compile(r"(?:^|: )([0-9.]+(?:\t[0-9.]+)+)$")


class LearningCurve:
    """The dev scores a Stanza training command logs, read line by line: one point per evaluation with its step,
    its time and every score of the scorer's table (in %, by lower-case name: ``upos``, ``xpos``, ``las`` ...)."""

    def __init__(self):
        self.points: list[dict] = []
        self._names: list[str] | None = None
        self._scores: dict[str, float] = {}

    def feed(self, line: str, seconds: float) -> bool:
        """Read one line; True where it completed a point."""
        line = line.rstrip("\n")
        if names := SCORE_NAMES.search(line):
            self._names = names[1].lower().split("\t")
        elif (values := SCORE_VALUES.search(line)) and self._names:
            numbers = values[1].split("\t")
            if len(numbers) == len(self._names):
                self._scores = {name: float(v) for name, v in zip(self._names, numbers, strict=True)}
            self._names = None
        elif found := DEV_SCORE.search(line):
            step = int(found[1])
            # a resumed trainer evaluates again at the steps after its checkpoint: the later point replaces the earlier
            self.points = [point for point in self.points if point["step"] < step]
            self.points.append({"step": step, "seconds": round(seconds, 1),
                                "dev_score": 100 * float(found[3]), **self._scores})
            self._scores = {}
            return True
        return False


CURVE = "curve.json"  # in a resumable trainer's folder: the dev scores it logged before a stop


@dataclass(frozen=True)
class Trainer:
    """One of Stanza's training entry points (``python -m module args``), its log, and the folder it checkpoints in
    where it resumes (:mod:`paraphrastic.training.stanza_trainers`); ``done``: its record once it has finished (its
    learning curve), so that a rerun does not train it again."""
    module: str
    args: list[str]
    log: Path
    resume: Path | None = None
    done: Path | None = None


def _run_group(group: list[Trainer], threads: int, cwd: Path | None, curves: dict, failures: list,
               processes: list) -> None:
    """The trainers of ``group`` one after another in one process (they share its imports), each one's output in its
    log, each dev evaluation in ``curves`` (its learning curve, the seconds since it started, continued across a
    resumption); a failure is appended to ``failures``."""
    from paraphrastic.training.stanza_trainers import BEGIN

    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads), PYTHONUNBUFFERED="1")
    by_module = {t.module: t for t in group}
    trainer, handle, started, before = None, None, time.time(), []  # before: output ahead of the first trainer

    def finish() -> None:
        if trainer is not None:
            handle.close()
            print(f"{trainer.module}: {time.time() - started:.0f} s")

    with tempfile.TemporaryDirectory() as scratch:
        plan = Path(scratch) / "plan.json"
        plan.write_text(json.dumps([{"module": t.module, "args": t.args, "resume": t.resume and str(t.resume)}
                                    for t in group]), encoding="utf-8")
        with subprocess.Popen([sys.executable, "-m", "paraphrastic.training.stanza_trainers", str(plan)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd, text=True,
                              errors="replace") as proc:
            processes.append(proc)
            offset = 0.0
            for line in proc.stdout:
                if line.startswith(BEGIN):
                    finish()
                    trainer = by_module[line[len(BEGIN):].strip()]
                    started = time.time()
                    handle = open(trainer.log, "a", encoding="utf-8", buffering=1)  # line-buffered: `tail -f`
                    handle.write(f"$ python -m {trainer.module} {' '.join(trainer.args)}\n")
                    points = curves[trainer.module].points
                    offset = points[-1]["seconds"] if points else 0.0  # resumed: the seconds before the stop
                elif handle is None:
                    before.append(line)
                else:
                    handle.write(line)
                    curve = curves[trainer.module]
                    if curve.feed(line, offset + time.time() - started) and trainer.resume is not None:
                        write_json(trainer.resume / CURVE, curve.points)  # kept for a resumed trainer
            finish()
    if proc.returncode != 0 and trainer is None:
        failures.append(f"Stanza's trainers failed before the first one started (exit {proc.returncode}):\n"
                        f"{''.join(before[-15:])}")
    elif proc.returncode != 0:
        tail = "".join(trainer.log.read_text(encoding="utf-8", errors="replace").splitlines(True)[-15:])
        failures.append(f"python -m {trainer.module} failed (exit {proc.returncode}); last lines of {trainer.log}:\n"
                        f"{tail}")
    else:
        for done in group:
            if done.done is not None:
                write_json(done.done, {"curve": curves[done.module].points})


def run_stanza(groups: list[list[Trainer]], threads: int, cwd: Path | None = None) -> dict[str, list[dict]]:
    """Stanza's trainers (:class:`Trainer`): each group's one after another in a process of its own
    (:mod:`paraphrastic.training.stanza_trainers`), the groups side by side, each on ``threads`` torch threads (part
    of what a trainer computes: the same trainer on other threads ends with other weights); a trainer whose ``done``
    record exists is not run again. Returns the dev scores each logged
    (:class:`LearningCurve`, the points a stopped run recorded first), by module. Paths in a trainer's ``args`` must
    be absolute where ``cwd`` is given. A failure stops the other groups (each resumes from its checkpoint) and names
    the failed trainer's log."""
    import threading

    curves = {t.module: LearningCurve() for group in groups for t in group}
    for trainer in (t for group in groups for t in group):
        if trainer.done is not None and trainer.done.is_file():
            curves[trainer.module].points = json.loads(trainer.done.read_text(encoding="utf-8"))["curve"]
        elif trainer.resume is not None and (trainer.resume / CURVE).is_file():
            curves[trainer.module].points = json.loads((trainer.resume / CURVE).read_text(encoding="utf-8"))
    pending = [[t for t in group if t.done is None or not t.done.is_file()] for group in groups]
    pending = [group for group in pending if group]
    failures: list[str] = []
    processes: list[subprocess.Popen] = []
    workers = [threading.Thread(target=_run_group, args=(group, threads, cwd, curves, failures, processes))
               for group in pending]
    for worker in workers:
        worker.start()
    try:
        while any(worker.is_alive() for worker in workers):
            for worker in workers:
                worker.join(timeout=1.0)
            if failures:
                for proc in processes:
                    if proc.poll() is None:
                        proc.terminate()
    finally:  # Ctrl-C or SIGTERM here: the trainers stop too, and resume from their checkpoints
        for proc in processes:
            if proc.poll() is None:
                proc.terminate()
    if failures:
        raise PipelineError(failures[0])
    return {module: curve.points for module, curve in curves.items()}


def first_word_vectors(source: Path, count: int, out: Path) -> Path:
    """``out``: the first ``count`` vectors of the text vector file ``source`` (its header line too, where it has
    one), which is what Stanza's ``--pretrain_max_vocab`` keeps of a file."""
    kept = 0
    with open(out, "w", encoding="utf-8") as handle:
        for _, line in iter_lines(source):
            if kept == count:
                break
            handle.write(line + "\n")
            kept += len(line.split(" ", 2)) > 2  # a header ("400000 50") has two fields
    return out


def train_models(train: Path, dev: Path, work: Path, budget: dict, *, threads: int,
                 word_vectors: Path | None = None,
                 transformer: Path | None = None) -> tuple[dict[str, Path], dict[str, list[dict]]]:
    """Tagger, dictionary lemmatizer and parser, each trained on gold EWT and selected on gold dev, from
    ``word_vectors`` (a text vector file, made into Stanza's pretrain file ``pretrain`` first, which both models then
    read) or without any, and with the features of ``transformer`` (a local folder, frozen) where given. The tagger
    trains beside the lemmatizer and the parser (which trains on gold tags, so waits for no tagger), each on
    ``threads`` threads; the tagger and the parser checkpoint with each dev evaluation and a rerun in the same
    ``work`` resumes them. Returns the model files and the tagger's and parser's learning curves (:func:`run_stanza`).
    Paths must be absolute."""
    models = {name: work / name for name in ("pos", "lemma", "depparse")}
    logs = work / "logs"
    for path in [*models.values(), logs]:
        path.mkdir(parents=True, exist_ok=True)
    pretrain = None if word_vectors is None else work / "pretrain.pt"
    if pretrain is None:
        vectors = ["--no_pretrain"]
    else:  # written here, before either model reads it: the two train side by side
        vectors = ["--wordvec_pretrain_file", str(pretrain)]
        if budget.get("pretrain_max_vocab"):  # Stanza would read every line of the file to keep the first ones
            word_vectors = first_word_vectors(word_vectors, budget["pretrain_max_vocab"], work / "word_vectors.txt")
            vectors += ["--pretrain_max_vocab", str(budget["pretrain_max_vocab"])]
        vectors += ["--wordvec_file", str(word_vectors)]
        if not pretrain.is_file():
            write_pretrain(word_vectors, pretrain, budget.get("pretrain_max_vocab"))
    cwd = None
    if transformer is not None:  # frozen: Stanza fine-tunes it only with --bert_finetune
        # Stanza saves the name it is given in the models and picks its code path from substrings of that name
        # ('bart', 'xlnet', ...), so it gets the folder's own name, relative to the folder's parent: the
        # folders above (a home directory, a virtual environment) neither end up in the models nor decide
        cwd, vectors = transformer.parent, [*vectors, "--bert_model", transformer.name]
    tagger, lemmatizer, parser = stanza_trainers(train, dev, work, budget, vectors)
    curves = run_stanza([[tagger], [lemmatizer, parser]], threads, cwd)
    files = {name: path / "model.pt" for name, path in models.items()}
    if pretrain is not None:
        files["pretrain"] = pretrain
    return files, {"tagger": curves[tagger.module], "parser": curves[parser.module]}


def stanza_trainers(train: Path, dev: Path, work: Path, budget: dict,
                    vectors: list[str]) -> tuple[Trainer, Trainer, Trainer]:
    """The tagger, the lemmatizer and the parser as :func:`train_models` runs them, each in its folder of ``work``;
    ``vectors``: the options naming their word vectors and transformer."""
    models = {name: work / name for name in ("pos", "lemma", "depparse")}
    logs = work / "logs"
    common = ["--train_file", str(train), "--eval_file", str(dev), "--shorthand", "en_ewt", "--cpu"]
    interval = str(budget["eval_interval"])
    tagger = Trainer("stanza.models.tagger", [
        "--mode", "train", *common, "--lang", "en", *vectors, "--share_hid", "--char_hidden_dim", "100",
        "--batch_size", str(budget["tagger_batch_size"]), "--max_steps", str(budget["tagger_steps"]),
        "--eval_interval", interval, "--fix_eval_interval", "--log_step", interval,
        "--save_dir", str(models["pos"]), "--save_name", "model.pt"], logs / "tagger.log",
        resume=models["pos"], done=models["pos"] / "done.json")
    lemmatizer = Trainer("stanza.models.lemmatizer", [
        "--mode", "train", "--dict_only", *common,
        "--save_dir", str(models["lemma"]), "--save_name", "model.pt"], logs / "lemmatizer.log",
        done=models["lemma"] / "done.json")
    parser = Trainer("stanza.models.parser", [
        "--mode", "train", *common, "--lang", "en", *vectors, "--char_hidden_dim", "100",
        "--hidden_dim", "200", "--deep_biaff_hidden_dim", "200", "--batch_size", str(budget["parser_batch_size"]),
        "--max_steps", str(budget["parser_steps"]), "--eval_interval", interval, "--log_step", interval,
        "--save_dir", str(models["depparse"]), "--save_name", "model.pt"], logs / "parser.log",
        resume=models["depparse"], done=models["depparse"] / "done.json")
    return tagger, lemmatizer, parser


def write_pretrain(word_vectors: Path, out: Path, max_vocab: int | None) -> None:
    """Stanza's pretrain file of a text vector file, as its tagger writes it on first use (its Pretrain class), written
    whole or not at all."""
    from stanza.models.common.pretrain import Pretrain

    from paraphrastic.atomic import atomic_path

    with atomic_path(out) as partial:
        Pretrain(str(partial), str(word_vectors), max_vocab or 250000).load()


def assemble_resources(models: dict[str, Path], out: Path) -> Path:
    """A ``stanza_resources`` folder: en/<processor>/<PACKAGE>.pt (and en/pretrain/<PACKAGE>.pt, the word vectors
    the tagger and parser were trained with) and a resources.json naming them the default package. ``tokenize``
    needs no model with ``tokenize_pretokenized=True``."""
    for name, model in models.items():
        (out / "en" / name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(model, out / "en" / name / f"{PACKAGE}.pt")
    processors = {p: PACKAGE for p in ("tokenize", *models) if p != "pretrain"}
    resources = {"en": {"lang_name": "English", **{p: {PACKAGE: {}} for p in processors},
                        "default_processors": processors, "packages": {"default": processors}}}
    write_json(out / "resources.json", resources)
    return out


def copy_transformer(transformer: Path, parent: Path) -> Path:
    """A copy of the transformer folder under ``parent``, keeping its name, without the weights of other
    frameworks (ONNX, OpenVINO, TensorFlow, Flax, Rust) or training checkpoints."""
    return Path(shutil.copytree(transformer, parent / transformer.name, ignore=TRANSFORMER_FILES))


def add_transformer(resources: Path, working_copy: Path) -> None:
    """Move the working copy of the transformer the models were trained with (:func:`copy_transformer`) into
    ``resources`` (en/transformer/<its name>), so the folder loads wherever it is moved; :func:`load_pipeline`
    gives the models that copy for the name they were trained with (see :func:`train_models`)."""
    folder = Path(resources) / "en" / "transformer" / working_copy.name
    folder.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(working_copy, folder)  # both lie under the stage's folder: a rename, not a second copy
    write_json(Path(resources) / TRANSFORMER, {"name": working_copy.name,
                                               "folder": folder.relative_to(resources).as_posix()})


def _transformer_cache(resources: Path):
    """A Stanza FoundationCache in which the name the models were trained with is the resources' copy of the
    transformer (None for models without one). Stanza has no option to point a saved model at a folder: its
    processors take a transformer from this cache by that name before they look for it on disk."""
    record = Path(resources) / TRANSFORMER
    if not record.is_file():
        return None
    from stanza.models.common.foundation_cache import FoundationCache

    names = json.loads(record.read_text(encoding="utf-8"))
    copy = Path(resources) / names["folder"]
    if not (copy / "config.json").is_file():
        raise PipelineError(f"{record} names the transformer copy {copy}, which is missing or incomplete: "
                            "copy the whole resources folder")
    cache = FoundationCache(local_files_only=True)
    cache.load_bert(str(copy))
    cache.bert[names["name"]] = cache.bert[str(copy)]
    return cache


def load_pipeline(resources: Path, device: str = "cpu"):
    """The Stanza pipeline of a resources folder (tagger, lemmatizer, parser on pretokenized input), offline,
    with the word vectors and the transformer the models were trained with where the folder has them."""
    import stanza

    pretrain = Path(resources) / "en" / "pretrain" / f"{PACKAGE}.pt"  # models trained here from word vectors
    vectors = {f"{p}_pretrain_path": str(pretrain) for p in ("pos", "depparse")} if pretrain.is_file() else {}
    cache = _transformer_cache(resources)
    try:
        return stanza.Pipeline("en", processors=PROCESSORS, tokenize_pretokenized=True, dir=str(resources),
                               download_method=None, device=device, logging_level="WARN", foundation_cache=cache,
                               **vectors)
    except Exception as exc:  # Stanza raises assorted errors for a missing or partial folder
        raise PipelineError(f"cannot load Stanza models from {resources}: {exc}") from exc


def parse(pipeline, sentences: list[list[str]], *, batch_size: int = 500, progress: bool = True) -> pd.DataFrame:
    """Tag and parse pre-tokenized sentences; one row per word (1-based index and head, 0 = root)."""
    from tqdm import tqdm

    rows = []
    bar = tqdm(total=len(sentences), unit="sentence", desc="stanza parse", disable=not progress,
               mininterval=0.5 if sys.stderr.isatty() else 30.0)
    for start in range(0, len(sentences), batch_size):
        chunk = sentences[start : start + batch_size]
        doc = pipeline(chunk)
        if len(doc.sentences) != len(chunk):
            raise PipelineError(f"Stanza returned {len(doc.sentences)} sentences for {len(chunk)} (batch at {start})")
        for offset, (sentence, words) in enumerate(zip(doc.sentences, chunk, strict=True)):
            if len(sentence.words) != len(words):
                raise PipelineError(f"sentence {start + offset}: Stanza returned {len(sentence.words)} words "
                                    f"for {len(words)} (it must not re-tokenize pretokenized input)")
            rows += [{"sentence": start + offset, "index": int(w.id), "word": w.text, "lemma": w.lemma or "",
                      "upos": w.upos or "", "xpos": w.xpos or "", "head": int(w.head or 0), "deprel": w.deprel or ""}
                     for w in sentence.words]
        bar.update(len(chunk))
    bar.close()
    return pd.DataFrame(rows)


def dev_scores(pipeline, dev_blocks: list[str]) -> dict:
    """UPOS/XPOS accuracy and UAS/LAS (universal relation, CoNLL 2018 style) of the pipeline on gold
    words of the dev set, in %. Multiword-token lines and empty nodes are skipped (syntactic words only)."""
    gold = []
    for block in dev_blocks:
        words = []
        for line in block.splitlines():
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 10 or "-" in cols[0] or "." in cols[0]:
                continue
            words.append((cols[1], cols[3], cols[4], int(cols[6]), cols[7].split(":")[0]))
        gold.append(words)
    frame = parse(pipeline, [[w[0] for w in words] for words in gold], progress=False)
    truth = pd.DataFrame([w for words in gold for w in words], columns=["word", "upos", "xpos", "head", "deprel"])
    predicted_rel = frame["deprel"].str.split(":").str[0]
    heads = frame["head"].to_numpy() == truth["head"].to_numpy()
    return {"words": len(truth), "sentences": len(gold),
            "upos": 100 * float((frame["upos"].to_numpy() == truth["upos"].to_numpy()).mean()),
            "xpos": 100 * float((frame["xpos"].to_numpy() == truth["xpos"].to_numpy()).mean()),
            "uas": 100 * float(heads.mean()),
            "las": 100 * float((heads & (predicted_rel.to_numpy() == truth["deprel"].to_numpy())).mean())}


def _work_folder(work: Path, identity: dict) -> None:
    """``work`` for the training ``identity`` describes: kept where an earlier run of the same training left it (its
    trainers resume), emptied where it holds another's (other settings, files, Stanza)."""
    stamp = work / "training.json"
    if stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")) == identity:
        print(f"resuming the training in {work}")
        return
    shutil.rmtree(work, ignore_errors=True)  # the stage's own scratch, never a user's file
    work.mkdir(parents=True)
    write_json(stamp, identity)


def build(settings: dict, *, train_file: Path, dev_file: Path, out_dir: Path, threads: int = 1,
          word_vectors: Path | None = None, transformer: Path | None = None, stage: str = "stanza_models",
          checkpoints: Path | None = None) -> dict:
    """``out_dir``/resources (a stanza_resources folder; training logs in its training-logs/) and
    ``out_dir``/scores.json (where the models came from, their dev scores, the learning curves of those trained
    here; the result of ``stage``). ``word_vectors``: the text vector file models trained here start from
    (``None``: none); ``transformer``: the local transformer folder whose features they also read (``None``:
    none). ``checkpoints`` (default ``out_dir``/work): the training's folder, which a stopped run resumes from and
    a finished one removes."""
    import stanza

    out_dir = Path(out_dir).resolve()  # absolute: Stanza's training runs in the transformer's folder
    resources = out_dir / "resources"
    work = (out_dir / "work") if checkpoints is None else Path(checkpoints).resolve()
    shutil.rmtree(resources, ignore_errors=True)
    started = time.time()
    dev_blocks = conllu_sentences(dev_file, settings.get("dev_sentences"))
    if settings.get("pretrained"):
        source = Path(settings["pretrained"])
        if not (source / "resources.json").is_file():
            raise PipelineError(f"gates.stanza.pretrained: {source} is not a stanza_resources folder "
                                "(no resources.json)")
        shutil.copytree(source, resources)
        origin = {"source": "pretrained", "path": str(source)}
    elif settings.get("download"):
        import stanza

        stanza.download("en", model_dir=str(resources), processors=PROCESSORS)
        origin = {"source": "downloaded", "stanza_version": stanza.__version__}
    else:
        train_blocks = conllu_sentences(train_file, settings.get("train_sentences"))
        budget = {k: settings.get(k) for k in ("tagger_steps", "parser_steps", "eval_interval", "tagger_batch_size",
                                               "parser_batch_size", "pretrain_max_vocab")}
        _work_folder(work, {"budget": budget, "stanza": stanza.__version__, "threads": threads,
                            "train": hashlib.sha256("".join(train_blocks).encode()).hexdigest(),
                            "dev": hashlib.sha256("".join(dev_blocks).encode()).hexdigest(),
                            "word_vectors": None if word_vectors is None else sha256_file(word_vectors),
                            "transformer": None if transformer is None else str(transformer)})
        train = write_conllu(train_blocks, work / "train.conllu")
        dev = write_conllu(dev_blocks, work / "dev.conllu")
        copy = None
        if transformer is not None:
            shutil.rmtree(work / "transformer", ignore_errors=True)  # copied again: cheap beside the training
            copy = copy_transformer(Path(transformer), work / "transformer")
        with phase("training"):  # Stanza's own processes: its start-up, its dev evaluations and its saves included
            models, curves = train_models(train, dev, work, settings, threads=threads, transformer=copy,
                                          word_vectors=None if word_vectors is None else Path(word_vectors).resolve())
        assemble_resources(models, resources)
        if copy is not None:
            add_transformer(resources, copy)
        shutil.copytree(work / "logs", resources / "training-logs")
        origin = {"source": "trained offline from UD English EWT with Stanza's training entry points",
                  "package": PACKAGE, "train_sentences": len(train_blocks),
                  "word_vectors": None if word_vectors is None else Path(word_vectors).name,
                  # as params name it (all-MiniLM-L6-v2 or a folder); resources/transformer.json has its path
                  "transformer": None if transformer is None else settings.get("transformer") or str(transformer),
                  "budget": budget, "curves": curves, "threads": threads}
        shutil.rmtree(work)

    with phase("loading"):
        pipeline = load_pipeline(resources)
    with phase("evaluation"):
        scores = dev_scores(pipeline, dev_blocks)
    summary = {**origin, "stanza_version": stanza.__version__, "dev": scores, "seconds": time.time() - started}
    # Stanza's files carry no record of their own: the scores' record holds the sha256 of each, for `verify`
    files = tuple(sorted(p.relative_to(out_dir).as_posix() for p in Path(resources).rglob("*") if p.is_file()))
    write_result(out_dir / "scores.json", summary, stage=stage, files=files)
    return summary
