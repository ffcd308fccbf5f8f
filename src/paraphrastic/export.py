"""`paraphrastic export MODEL.pt DIR`: a trained model as a folder that sentence-transformers loads
(``SentenceTransformer(DIR)``), encoding to the same vectors as ``paraphrastic.load(MODEL.pt)``.

By default every family (avg and the other averaging models, the LSTM and GRAN families, and the sentence
encoder of a supervised model) is written the same way: one module, :class:`ParaphrasticModule`, named in
modules.json by its import path, holding the encoder as a transfer model.pt (read back with
``weights_only=True``, so loading a folder runs none of its contents). Its tokenizer is the pipeline's own
(NLTK Punkt + Treebank, lower-cased, hashtags stripped, SOS/EOS tags where the model was trained with them), so
cosines match exactly. sentence-transformers' ``StaticEmbedding`` (``--static``, below) loads avg without our
package, but it needs a ``tokenizers.Tokenizer``, whose normalizers and pre-tokenizers cannot express
Treebank's rules: a regex split cannot make its context-dependent quote tokens (a ``"`` becomes ``\\`\\``` or
``''``), Punkt's sentence-final periods beside abbreviations ("U.S." vs "home."), or its contraction splits
("cannot" -> "can" "not"); and an empty bag averages to a zero vector where our encoders embed ``<unk>``.
Measured on the 53,582 sentences of STS 2012-2016: a lower-casing WordLevel tokenizer with the Whitespace +
Punctuation (or BERT) pre-tokenizer splits 74.7% of them as we do, and the closest regex split we found
(contractions, sentence-final periods) 89.1%; the other sentences would get different vectors, silently.

sentence-transformers 6 imports a module class from outside its own package only with
``trust_remote_code=True``, even for a local folder (a modules.json can name any importable class).
:func:`load_sentence_transformer` checks that an export names no class but ours and sentence-transformers'
own before passing that flag, so it trusts the installed paraphrastic package, never the folder's contents;
``SentenceTransformer(DIR, trust_remote_code=True)`` works too.

``--static`` (avg models only) writes sentence-transformers' own ``StaticEmbedding`` instead: it loads with a plain
``SentenceTransformer(DIR)``, no flag and no paraphrastic installed, and model2vec's
``StaticModel.from_pretrained(DIR)`` reads the same folder (model2vec knows sentence-transformers' layout); its
README.md is the project's model card (:mod:`paraphrastic.model_card`; :func:`export_scored` puts the export's
scores as loaded on it). A model file that records its tokenizer (the static model's,
:mod:`paraphrastic.data.static_tokenizer`) ships that one, so both libraries read text exactly as it was trained and
scored. Any other avg model gets :func:`treebank_approximation`, only close to ours (a lower-cased ``WordLevel``
over the model's vocabulary with BERT's pre-tokenizer; ``WordPiece`` where the vocabulary holds a teacher's pieces,
splitting a word it lacks as we do); an empty sentence is a zero vector there. The BERT pre-tokenizer splits 74.7%
of the STS 2012-2016 sentences as we do (measured above); the others get other vectors. model2vec also drops unknown
words from the mean, where we and sentence-transformers average in the ``<unk>`` vector.

The folder is written beside DIR and renamed into place: a failed export leaves DIR as it was. An existing
DIR must be empty or an earlier export (which is replaced); any other folder is an error, never deleted.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import torch

from paraphrastic.atomic import sha256_file, write_json, write_text
from paraphrastic.errors import PipelineError
from paraphrastic.provenance import check_files

EXPORT_TYPE = "paraphrastic.export.ParaphrasticModule"
CONFIG_FILE = "paraphrastic_export.json"
MODEL_FILE = "model.pt"
# Everything an export writes: a folder holding only these (and its marker) is an earlier export.
EXPORT_FILES = frozenset({"modules.json", "config_sentence_transformers.json", CONFIG_FILE, MODEL_FILE})
# ... and a static one: sentence-transformers' StaticEmbedding, saved as sentence-transformers saves it
STATIC_TYPE = "sentence_transformers.sentence_transformer.modules.static_embedding.StaticEmbedding"
STATIC_FILES = frozenset({"modules.json", "config_sentence_transformers.json", CONFIG_FILE, "README.md",
                          "tokenizer.json", "model.safetensors"})
STATIC_MODELS = frozenset({"avg"})  # the mean of the word vectors and nothing after it: what StaticEmbedding is


class ParaphrasticModule(torch.nn.Module):
    """A paraphrastic sentence encoder as a sentence-transformers module: ``preprocess`` (``tokenize`` in
    sentence-transformers < 6) turns texts into padded word ids and a mask with the pipeline's tokenizer and
    the model's vocabulary; ``forward`` adds their ``sentence_embedding``.

    A plain ``torch.nn.Module`` following sentence-transformers' module protocol (``load`` with its keyword
    arguments, ``save``, ``get_embedding_dimension``), so this package does not need sentence-transformers
    installed to be imported.
    """

    config_file_name = CONFIG_FILE
    save_in_root = True  # the module's files are the model folder's own (sentence-transformers' path "")
    forward_kwargs: frozenset[str] = frozenset()

    def __init__(self, encoder, config: dict | None = None):
        super().__init__()
        self.encoder = encoder.model  # a submodule: moving the SentenceTransformer moves it
        self.vocab = encoder.vocab
        self.config = dict(config or {})
        self._tokens = encoder.tokens
        self._tokenizer = encoder.tokenizer

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", **kwargs) -> ParaphrasticModule:
        """The module of an export folder (sentence-transformers passes its hub and backend options too: an
        export is read from a local folder only, with nothing downloaded)."""
        from paraphrastic.encoder import Encoder

        folder = Path(model_name_or_path) / subfolder
        config_path, config = read_export_config(folder)
        model_file = config.get("model_file")
        if not isinstance(model_file, str) or Path(model_file).name != model_file:
            raise PipelineError(f"{config_path}: names no model file in its folder (\"model_file\": {model_file!r})")
        return cls(Encoder.load(folder / model_file, device="cpu"), config)

    @property
    def modalities(self) -> list[str]:
        return ["text"]

    def preprocess(self, inputs, prompt: str | None = None, **kwargs) -> dict[str, torch.Tensor]:
        from paraphrastic.data.batching import pad

        texts = [prompt + text for text in inputs] if prompt else list(inputs)
        tags = getattr(self.encoder, "tags", "none")
        tokens, mask = pad([self.vocab.ids(self._tokens(text), tags) for text in texts])
        return {"input_ids": tokens, "attention_mask": mask}

    def tokenize(self, texts, **kwargs) -> dict[str, torch.Tensor]:
        return self.preprocess(texts, **kwargs)

    def forward(self, features: dict, **kwargs) -> dict:
        features["sentence_embedding"] = self.encoder(features["input_ids"], features["attention_mask"].float())
        return features

    def get_embedding_dimension(self) -> int:
        return self.encoder.output_dim

    def get_sentence_embedding_dimension(self) -> int:  # sentence-transformers < 6
        return self.get_embedding_dimension()

    def save(self, output_path: str, *args, safe_serialization: bool = True, **kwargs) -> None:
        """The encoder as a transfer model.pt and this module's config (torch's own format: a model.pt is
        what every paraphrastic tool reads, with ``weights_only=True``)."""
        recorded = {} if self._tokenizer is None else {"tokenizer": self._tokenizer.to_str()}
        write_encoder(Path(output_path) / MODEL_FILE, self.encoder, self.config.get("model"),
                      self.config.get("options", {}), self.vocab,
                      {"exported_from": self.config.get("source"), **recorded})
        write_json(Path(output_path) / CONFIG_FILE, self.config)


def write_encoder(path, encoder: torch.nn.Module, name: str, options: dict, vocab, extra: dict) -> None:
    """The sentence encoder as a transfer model.pt that :func:`paraphrastic.load` reads.

    A supervised run that regularised towards its initial weights kept them as buffers of its encoder; they
    are training state, and a transfer model.pt holds the weights of a freshly built encoder only.
    """
    from paraphrastic.models.encoders import build_model
    from paraphrastic.models.files import save_model

    fresh = build_model(name, torch.zeros(encoder.embedding.weight.shape), **options).state_dict()
    state = {k: v for k, v in encoder.state_dict().items() if k in fresh}
    clean = build_model(name, torch.zeros(encoder.embedding.weight.shape), **options)
    clean.load_state_dict(state)
    save_model(path, clean, name, options, vocab, extra)


def is_export(folder: Path) -> bool:
    """Whether ``folder`` holds an earlier export and nothing else (so replacing it deletes nothing of the
    user's)."""
    try:
        names = {p.name for p in folder.iterdir()}
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    types = [m.get("type") for m in modules if isinstance(m, dict)] if isinstance(modules, list) else None
    return CONFIG_FILE in names and ((names <= EXPORT_FILES and types == [EXPORT_TYPE])
                                     or (names <= STATIC_FILES and types == [STATIC_TYPE]))


def treebank_approximation(vocab):
    """A ``tokenizers.Tokenizer`` close to the Treebank tokenizer a model of the paper's rows reads with (see the
    module docstring): lower case, BERT's pre-tokenizer, then the vocabulary as ``WordLevel``, or ``WordPiece`` where
    it holds a teacher's pieces (splitting a word it lacks as Vocabulary.ids does)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from paraphrastic.data.vocab import CONTINUATION, MAX_WORDPIECE_CHARS, UNK

    if vocab.has_wordpieces:
        model = models.WordPiece(vocab=dict(vocab.index), unk_token=UNK, continuing_subword_prefix=CONTINUATION,
                                 max_input_chars_per_word=MAX_WORDPIECE_CHARS)
    else:
        model = models.WordLevel(vocab=dict(vocab.index), unk_token=UNK)
    tokenizer = Tokenizer(model)
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tokenizer


def write_static(encoder, folder: Path) -> None:
    """An avg encoder as sentence-transformers' ``StaticEmbedding``, saved by sentence-transformers itself: its word
    vectors under the tokenizer its model file records (a static model's: the export then reads text exactly as the
    project scored it), or else under :func:`treebank_approximation`."""
    from sentence_transformers import SentenceTransformer

    try:  # sentence-transformers 6 moved it (the old path still works, with a warning)
        from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    except ImportError:
        from sentence_transformers.models import StaticEmbedding

    tokenizer = encoder.tokenizer if encoder.tokenizer is not None else treebank_approximation(encoder.vocab)
    weights = encoder.model.embedding.weight.detach().cpu().numpy()
    SentenceTransformer(modules=[StaticEmbedding(tokenizer, embedding_weights=weights)], device="cpu").save(
        str(folder))


def export(model_path, folder, *, static: bool = False, card: str | None = None) -> Path:
    """Write ``folder``: modules.json, config_sentence_transformers.json, the module's config and the encoder's
    model.pt; with ``static``, an avg model as sentence-transformers' ``StaticEmbedding`` (with ``card``, its
    README.md is that model card instead of sentence-transformers' generic one: `paraphrastic export --static` and
    the static_model stage give the project's, :mod:`paraphrastic.model_card`; :func:`export_scored` measures the
    scores on it). Errors are one :class:`PipelineError` naming the file or folder; nothing is written then."""
    from paraphrastic.encoder import Encoder
    from paraphrastic.models.files import read_model_file
    from paraphrastic.version import __version__

    model_path, folder = Path(model_path), Path(folder)
    if str(folder) == "-":
        raise PipelineError("-: an export is a folder of several files, which standard output cannot hold; give the "
                            "name of a new or empty folder (nothing was written)")
    if folder.exists() and not folder.is_dir():  # followed as a link is: /dev/stdout into a pipe is that pipe
        raise PipelineError(f"{folder}: exists and is not a folder; nothing was written")
    if folder.is_symlink():  # written through, as `embed --output` writes through a link: the link stays a link
        folder = Path(os.path.realpath(folder))
    if folder.is_dir() and any(folder.iterdir()) and not is_export(folder):
        raise PipelineError(f"{folder}: a folder that is neither empty nor an earlier `paraphrastic export`; "
                            "nothing was written and nothing in it was deleted (give a new or empty folder)")
    encoder = Encoder.load(model_path, device="cpu")  # every check of the model file, errors naming it
    payload = read_model_file(model_path)
    config = {"model_file": MODEL_FILE, "model": payload["model"], "options": payload.get("options", {}),
              "supervised": isinstance(payload.get("head"), dict), "source": model_path.name,
              "tokenizer": "the model's own" if encoder.tokenizer is not None else "treebank_approximation",
              "source_sha256": sha256_file(model_path), "dim": encoder.dim, "paraphrastic_version": __version__,
              "format": "static" if static else "module"}
    if static and (config["model"] not in STATIC_MODELS or config["options"].get("tags", "none") != "none"):
        raise PipelineError(f"{model_path}: a {config['model']} model (tags {config['options'].get('tags', 'none')})"
                            " has no static form: --static takes avg models without SOS/EOS tags, whose vector is "
                            "the mean of the word vectors; export it without --static")
    if static:
        config["model_file"] = None  # sentence-transformers' own files
    modules = [{"idx": 0, "name": "0", "path": "", "type": EXPORT_TYPE}]
    settings = {"model_type": "SentenceTransformer", "__version__": {"paraphrastic": __version__}, "prompts": {},
                "default_prompt_name": None, "similarity_fn_name": "cosine"}

    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".partial", dir=folder.parent))
    old = None
    try:
        if static:
            write_static(encoder, staging)
            if card is not None:
                write_text(staging / "README.md", card)
            # sentence-transformers' files, which carry no record of their own: `verify` checks them against these
            config["files"] = {p.name: sha256_file(p) for p in sorted(staging.iterdir()) if p.is_file()}
            write_json(staging / CONFIG_FILE, config)  # marks the folder as an export (replaceable)
        else:
            ParaphrasticModule(encoder, config).save(str(staging))
            write_json(staging / "modules.json", modules)
            write_json(staging / "config_sentence_transformers.json", settings)
        _as_umask_allows(staging)
        if folder.is_dir():  # empty, or an earlier export: moved aside, then deleted once the new one is in place
            old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".old", dir=folder.parent))
            os.replace(folder, old / "export")
        os.replace(staging, folder)
    except OSError as exc:
        if old is not None and not folder.exists() and (old / "export").exists():
            os.replace(old / "export", folder)  # put the earlier export back
        raise PipelineError(f"{folder}: could not write the export ({exc.strerror or exc}); "
                            "what was there is unchanged") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return folder


def export_scored(model_path, folder, *, frame, selection: list[str], threads: int, card_of,
                  teacher_batch_size: int = 64) -> tuple[Path, dict]:
    """A static export whose card gives its scores as a user loads it: the model exported to a scratch folder, scored
    there as model2vec and sentence-transformers load it (:func:`paraphrastic.evaluation.compare_encoders.loaded_scores`
    on the evaluation table ``frame``), then exported to ``folder`` with the card ``card_of(scores)``: the same files,
    but for the card. Returns the folder and the scores."""
    from paraphrastic.evaluation.compare_encoders import loaded_scores

    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{folder.name}.", suffix=".scored", dir=folder.parent) as scratch:
        measured = loaded_scores(export(model_path, Path(scratch) / "export", static=True), frame, selection, threads,
                                 teacher_batch_size)
    return export(model_path, folder, static=True, card=card_of(measured)), measured


def read_export_config(folder: Path) -> tuple[Path, dict]:
    """An export folder's :data:`CONFIG_FILE`, and its path: one missing, unreadable or not a JSON object is an
    error naming it."""
    path = folder / CONFIG_FILE
    if not path.is_file():
        raise PipelineError(f"{path}: no such file, so {folder} is not a `paraphrastic export` folder (exports load "
                            "from a local folder only)")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise PipelineError(f"{path}: not readable JSON ({exc}); export it again") from None
    if not isinstance(config, dict):
        raise PipelineError(f"{path}: not a JSON object ({type(config).__name__}); export it again")
    return path, config


def check_export(folder, *, digests_required: bool = False) -> int:
    """A static export's files are those it was written with (the sha256 its ``paraphrastic_export.json`` holds of
    each); one edited, swapped or missing is an error. An export without the digests (written before they were
    recorded) is not checked, unless ``digests_required``: the pipeline's own static model, which its stage has
    written with them since, so digests deleted from it are named too. Returns the number of files checked."""
    config_path, config = read_export_config(Path(folder))
    writer = "the export (the static_model stage, or `paraphrastic export --static`)"
    files = config.get("files")
    if files:
        check_files(config_path, files, writer=writer)
    elif digests_required:
        raise PipelineError(f"{config_path}: holds no sha256 of the export's files (key `files`), so nothing binds "
                            f"them to it; rerun {writer}")
    return len(files or {})


def _as_umask_allows(folder: Path) -> None:
    """The modes a plain ``mkdir`` and ``open`` would have given: ``tempfile`` makes the staging folder (and some
    writers their files) private to their owner, and a model is meant to be read by others where the umask lets it."""
    umask = os.umask(0)
    os.umask(umask)
    folder.chmod(0o777 & ~umask)
    for path in folder.rglob("*"):
        path.chmod((0o777 if path.is_dir() else 0o666) & ~umask)


def load_sentence_transformer(folder, **kwargs):
    """``SentenceTransformer(folder, trust_remote_code=True, local_files_only=True, **kwargs)`` for an export,
    after checking that its modules.json names only :class:`ParaphrasticModule` and sentence-transformers'
    own classes: the flag then lets sentence-transformers import this installed package, and nothing the
    folder could name besides."""
    from sentence_transformers import SentenceTransformer

    modules_path = Path(folder) / "modules.json"
    try:
        modules = json.loads(modules_path.read_text(encoding="utf-8"))
        types = [m["type"] for m in modules]
    except (OSError, ValueError, UnicodeDecodeError, TypeError, KeyError) as exc:
        raise PipelineError(f"{modules_path}: not a sentence-transformers modules.json ({exc})") from None
    foreign = [t for t in types if t != EXPORT_TYPE and not str(t).startswith("sentence_transformers.")]
    if foreign:
        raise PipelineError(f"{modules_path}: names module classes from outside paraphrastic and "
                            f"sentence-transformers ({', '.join(map(str, foreign))}); not loaded")
    return SentenceTransformer(str(folder), trust_remote_code=True, local_files_only=True, **kwargs)
