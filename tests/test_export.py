"""`paraphrastic export`: every model family as a folder sentence-transformers loads, encoding to the vectors
paraphrastic.load gives; and the folder is written without ever deleting anything of the user's."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch
from sentence_transformers import SentenceTransformer

import paraphrastic
from paraphrastic.cli import main as cli
from paraphrastic.data.vocab import SPECIAL, WORDPIECES, Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.export import EXPORT_TYPE, ParaphrasticModule, check_export, export, load_sentence_transformer
from paraphrastic.models.encoders import MODELS, build_model
from paraphrastic.models.files import save_model, save_scorer
from paraphrastic.models.heads import PairScorer, SimilarityHead

# Treebank's rules at work: contractions, quotes, several sentences, a hashtag, an abbreviation, unknown and
# empty input, and a long sentence (sentence-transformers batches by length, paraphrastic by token count).
SENTENCES = ["A man is playing the guitar.", "The woman doesn't run quickly!", "a dog is sleeping on the bed",
             'He said "the cat is red." Then the sun, the moon.', "#nba the car is big", "Mr. Smith's blue house",
             "", "   ", "zyxxy qwertzuiop", " ".join(["the man is playing"] * 40)]


def options_for(name: str) -> dict:
    """Options that exercise each family: SOS/EOS tags, and a hidden size other than the word vectors'."""
    _, _, accepted = MODELS[name]
    options = {"tags": "both"}
    if "hidden_dim" in accepted:
        options["hidden_dim"] = 5
    return options


def tiny_model(workspace, name: str):
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    embeddings = torch.from_numpy(np.load(workspace["vocab_dir"] / "embeddings.npy"))
    torch.manual_seed(0)
    model = build_model(name, embeddings, **options_for(name))
    with torch.no_grad():
        model.embedding.weight[1:4].normal_()  # trained <unk>, <s> and </s> rows
    return model, vocab


def cosines(vectors: np.ndarray) -> np.ndarray:
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return unit @ unit.T


def assert_same_vectors(folder, model_path):
    """The export, loaded by sentence-transformers, against paraphrastic.load: vectors and cosines to 1e-5."""
    st = load_sentence_transformer(folder, device="cpu")
    ours = paraphrastic.load(model_path, device="cpu")
    exported = st.encode(SENTENCES, batch_size=3)
    expected = ours.encode(SENTENCES)
    assert exported.shape == expected.shape == (len(SENTENCES), ours.dim)
    assert st.get_embedding_dimension() == ours.dim
    assert np.abs(exported - expected).max() < 1e-5
    assert np.abs(cosines(exported) - cosines(expected)).max() < 1e-5
    assert np.allclose(st.similarity(exported, exported).numpy(), ours.similarity(expected, expected).numpy(),
                       atol=1e-5)
    return st


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_family_exports_to_the_same_vectors(workspace, name):
    model, vocab = tiny_model(workspace, name)
    path = workspace["root"] / f"{name}.pt"
    save_model(path, model, name, options_for(name), vocab, {"settings": {"model": name}, "epoch": 1})
    folder = export(path, workspace["root"] / "exported")
    assert json.loads((folder / "modules.json").read_text())[0]["type"] == EXPORT_TYPE
    assert_same_vectors(folder, path)


@pytest.mark.parametrize("name", ["gran", "bilstmavg", "irnn"])
def test_a_supervised_model_exports_its_sentence_encoder(workspace, name):
    """A universal run regularises towards its initial weights (buffers of the encoder): training state that
    the exported encoder leaves out."""
    model, vocab = tiny_model(workspace, name)
    model.remember_initial_compositional()
    path = workspace["root"] / "supervised.pt"
    save_scorer(path, PairScorer(model, SimilarityHead(model.output_dim, 4, 1, 5)), name, options_for(name), vocab,
                {"settings": {"init": "universal.pt"}, "epoch": 1})
    folder = export(path, workspace["root"] / "exported")
    assert_same_vectors(folder, path)
    assert json.loads((folder / "paraphrastic_export.json").read_text())["supervised"] is True


def test_the_cli_exports_and_sentence_transformers_saves_and_reloads_it(workspace, capsys):
    model, vocab = tiny_model(workspace, "lstmavg")
    path = workspace["root"] / "model.pt"
    save_model(path, model, "lstmavg", options_for("lstmavg"), vocab, {})
    folder = workspace["root"] / "out" / "st-model"
    assert cli.main(["export", str(path), str(folder)]) == 0
    assert str(folder) in capsys.readouterr().err
    st = SentenceTransformer(str(folder), device="cpu", trust_remote_code=True)
    vectors = st.encode(SENTENCES)
    # What sentence-transformers saves of it loads again, unchanged; and so does the folder's model.pt.
    st.save(str(workspace["root"] / "saved"))
    again = load_sentence_transformer(workspace["root"] / "saved", device="cpu")
    assert np.allclose(again.encode(SENTENCES), vectors, atol=1e-6)
    assert np.allclose(paraphrastic.load(folder / "model.pt", device="cpu").encode(SENTENCES), vectors, atol=1e-6)
    # A single sentence, normalised, as a tensor: sentence-transformers' own arguments, on both.
    ours = paraphrastic.load(path, device="cpu")
    assert torch.allclose(st.encode(SENTENCES[1], normalize_embeddings=True, convert_to_tensor=True),
                          ours.encode(SENTENCES[1], normalize_embeddings=True, convert_to_tensor=True), atol=1e-6)


def test_an_export_replaces_an_earlier_one_and_never_a_folder_of_the_users(workspace, capsys):
    model, vocab = tiny_model(workspace, "avg")
    path = workspace["root"] / "model.pt"
    save_model(path, model, "avg", options_for("avg"), vocab, {})
    folder = workspace["root"] / "exported"
    export(path, folder)
    before = sorted(p.name for p in folder.iterdir())
    export(path, folder)  # an earlier export: replaced
    assert sorted(p.name for p in folder.iterdir()) == before
    (folder / "notes.txt").write_text("mine")  # no longer only an export: kept, and an error
    assert cli.main(["export", str(path), str(folder)]) == 1
    assert "neither empty nor an earlier `paraphrastic export`" in capsys.readouterr().err
    assert (folder / "notes.txt").read_text() == "mine"
    mine = workspace["root"] / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("keep me")
    with pytest.raises(PipelineError, match="nothing in it was deleted"):
        export(path, mine)
    assert [p.name for p in mine.iterdir()] == ["thesis.tex"]
    with pytest.raises(PipelineError, match="is not a folder"):
        export(path, mine / "thesis.tex")
    with pytest.raises(PipelineError, match="no such model file"):
        export(workspace["root"] / "missing.pt", workspace["root"] / "new")
    empty = workspace["root"] / "empty"
    empty.mkdir()
    export(path, empty)
    assert (empty / "model.pt").is_file()
    assert not [p.name for p in workspace["root"].iterdir() if p.name.endswith((".partial", ".old"))]


@pytest.mark.fault("filesystem")
def test_an_export_to_a_link_is_written_through_it_and_the_link_stays(workspace):
    """A folder given through a link (data/static_model on a scratch disk): the export lands where the link points
    and the link is still a link, never replaced by a folder of its own."""
    model, vocab = tiny_model(workspace, "avg")
    path = workspace["root"] / "model.pt"
    save_model(path, model, "avg", options_for("avg"), vocab, {})
    scratch = workspace["root"] / "scratch" / "exported"
    scratch.parent.mkdir()
    link = workspace["root"] / "exported"
    link.symlink_to(scratch)  # dangling: the export makes its target
    for _ in range(2):  # a new export, then one replacing it
        export(path, link)
        assert link.is_symlink() and (scratch / "model.pt").is_file()
    assert sorted(p.name for p in link.iterdir()) == sorted(p.name for p in scratch.iterdir())
    assert not [p.name for p in scratch.parent.iterdir() if p.name.endswith((".partial", ".old"))]


@pytest.mark.fault("command inputs")
def test_an_export_to_standard_output_or_a_pipe_is_one_line_naming_what_was_given(workspace, capsys, tmp_path,
                                                                                   monkeypatch):
    """An export is a folder: `-` is refused by that name (no folder named `-` is made), and /dev/stdout into a
    pipe (here the pipe's own /proc link) is refused as the path given, not an internal temporary name."""
    model, vocab = tiny_model(workspace, "avg")
    path = workspace["root"] / "model.pt"
    save_model(path, model, "avg", options_for("avg"), vocab, {})
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert cli.main(["export", str(path), "-"]) == 1
    assert "error: -: an export is a folder of several files, which standard output cannot hold" in \
        capsys.readouterr().err
    read, write = os.pipe()
    try:
        through = f"/proc/self/fd/{write}"
        with pytest.raises(PipelineError, match=f"^{through}: exists and is not a folder; nothing was written$"):
            export(path, through)
    finally:
        os.close(read)
        os.close(write)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no folder `-`, nothing left behind


# Sentences the static tokenizer splits as Treebank does (no quotes, contractions or abbreviations)
PLAIN = ["A man is playing the guitar.", "a dog is sleeping on the bed", "zyxxy qwertzuiop", "The car, the man!"]


def test_a_static_export_loads_in_sentence_transformers_and_model2vec_with_the_same_vectors_on_plain_text(
        workspace, capsys):
    """--static: sentence-transformers' StaticEmbedding, loaded with no flag, and model2vec's StaticModel from the
    same folder; the same vectors wherever the tokenizers agree, and it replaces an earlier export of either
    kind."""
    model, vocab = tiny_model(workspace, "avg")
    options = {"tags": "none"}
    path = workspace["root"] / "avg.pt"
    save_model(path, build_model("avg", model.embedding.weight.detach().clone(), **options), "avg", options, vocab,
               {"settings": {"model": "avg"}, "epoch": 1})
    folder = workspace["root"] / "exported"
    export(path, folder)  # a module export first: the static one replaces it
    assert cli.main(["export", "--static", str(path), str(folder)]) == 0
    assert "SentenceTransformer(folder)" in capsys.readouterr().err
    st = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    assert type(st[0]).__name__ == "StaticEmbedding"
    ours = paraphrastic.load(path, device="cpu").encode(PLAIN)
    assert np.abs(st.encode(PLAIN) - ours).max() < 1e-5
    # where Treebank splits otherwise, the vectors differ: why the module export is the default
    tricky = ["The woman doesn't run quickly!"]
    assert np.abs(st.encode(tricky) - paraphrastic.load(path, device="cpu").encode(tricky)).max() > 1e-3
    # model2vec reads the same folder (its sentence-transformers layout) with no code of ours
    from model2vec import StaticModel

    static = StaticModel.from_pretrained(str(folder))
    encoder = paraphrastic.load(path, device="cpu")
    words = [w for w in vocab.words[len(SPECIAL):] if w.isalpha()]
    known = [" ".join(words[:5]), " ".join(words[5:8]).capitalize()]  # every word in the vocabulary
    assert all(t in vocab.index for s in known for t in encoder.tokens(s))
    assert np.abs(static.encode(known) - encoder.encode(known)).max() < 1e-5
    # model2vec drops unknown words where we (and sentence-transformers) average in the <unk> vector
    unknown = [s for s in PLAIN if not all(t in vocab.index for t in encoder.tokens(s))]
    assert np.abs(static.encode(unknown) - encoder.encode(unknown)).max() > 1e-3
    export(path, folder)  # and back: a static export is an earlier export too
    assert json.loads((folder / "modules.json").read_text())[0]["type"] == EXPORT_TYPE


def test_a_vocabulary_with_wordpieces_exports_its_split_of_unknown_words(workspace):
    """Distilled vectors with the teacher's pieces (word_vectors.distilled.subwords): both exports, and model2vec,
    read a word the vocabulary lacks as the same pieces as paraphrastic does."""
    from model2vec import StaticModel

    vocab = Vocabulary([*SPECIAL, WORDPIECES, "a", "man", "is", "play", "the", "guitar", ".", "un", "##ing",
                        "##s", "##play", "##able", "##tar"])
    torch.manual_seed(0)
    options = {"tags": "none"}
    path = workspace["root"] / "pieces.pt"
    save_model(path, build_model("avg", torch.randn(len(vocab), 6), **options), "avg", options, vocab, {})
    encoder = paraphrastic.load(path, device="cpu")
    sentences = ["A man is playing the guitars.", "the man plays unplayable guitar", "a man is a man ."]
    assert len(vocab.ids(encoder.tokens(sentences[1]))) == 8  # the, man, play ##s, un ##play ##able, guitar
    ours = encoder.encode(sentences)
    assert_same_vectors(export(path, workspace["root"] / "module"), path)
    static = export(path, workspace["root"] / "static", static=True)
    assert np.abs(SentenceTransformer(str(static), device="cpu").encode(sentences) - ours).max() < 1e-5
    assert np.abs(StaticModel.from_pretrained(str(static)).encode(sentences) - ours).max() < 1e-5


def test_a_model_file_that_records_its_tokenizer_is_read_with_it_by_every_reader(workspace):
    """A static model's file records the tokenizer it was trained and scored with: paraphrastic.load, the module
    export and the static export (sentence-transformers and model2vec) all read text with it, contractions and
    possessives included, where the Treebank approximation would split them otherwise; the static export's README is
    the project's card, which says it was not scored."""
    from model2vec import StaticModel

    from paraphrastic.data.static_tokenizer import build_tokenizer

    vocab = Vocabulary([*SPECIAL, WORDPIECES, "the", "woman", "does", "do", "n't", "'s", "run", "dog", ".", "!", "##s"])
    torch.manual_seed(0)
    matrix = torch.randn(len(vocab), 6)
    matrix[1] = 0  # <unk> at zero, as the static model keeps it: model2vec's dropping it then changes no cosine
    options = {"tags": "none"}
    path = workspace["root"] / "static.pt"
    save_model(path, build_model("avg", matrix, **options), "avg", options, vocab,
               {"tokenizer": build_tokenizer("treebank_like", vocab.index).to_str()})
    encoder = paraphrastic.load(path, device="cpu")
    sentences = ["The woman doesn't run!", "the dog's runs", "Woman, don't."]
    assert encoder.tokens(sentences[0]) == ["the", "woman", "does", "n't", "run", "!"]
    ours = encoder.encode(sentences)
    assert_same_vectors(export(path, workspace["root"] / "module"), path)
    static = workspace["root"] / "static"
    assert cli.main(["export", "--static", str(path), str(static)]) == 0
    assert np.abs(SentenceTransformer(str(static), device="cpu").encode(sentences) - ours).max() < 1e-5
    m2v = StaticModel.from_pretrained(str(static)).encode(sentences)
    cosine = (m2v * ours).sum(1) / np.linalg.norm(m2v, axis=1) / np.linalg.norm(ours, axis=1)
    assert np.allclose(cosine, 1, atol=1e-5)  # "," is unknown: dropped by model2vec, a zero row for us
    card = (static / "README.md").read_text()
    assert card.startswith("---\nlibrary_name: model2vec") and "Not measured when it was exported" in card
    assert "static.pt" in card and "its own tokenizer" not in card


def test_export_static_with_eval_writes_the_scores_of_the_export_as_loaded_on_its_card(workspace, monkeypatch,
                                                                                      capsys):
    from paraphrastic.evaluation import compare_encoders

    monkeypatch.setattr(compare_encoders, "SPEED_SECONDS", 0.0)
    model, vocab = tiny_model(workspace, "avg")
    options = {"tags": "none"}
    path = workspace["root"] / "avg.pt"
    save_model(path, build_model("avg", model.embedding.weight.detach().clone(), **options), "avg", options, vocab,
               {"settings": {"model": "avg", "name": "toy"}})
    folder = workspace["root"] / "scored"
    assert cli.main(["export", str(path), str(folder), "--eval", str(workspace["eval"])]) == 1
    assert "give --static too" in capsys.readouterr().err and not folder.exists()
    assert cli.main(["export", "--static", str(path), str(folder), "--eval", str(workspace["eval"])]) == 0
    card = (folder / "README.md").read_text()
    assert "| this model, as model2vec loads it | – | " in card and "approximates the Treebank tokenizer" in card
    assert "(an `avg` model: model avg, name toy)" in card and "Not measured" not in card


@pytest.mark.fault("pipeline artifacts")
@pytest.mark.parametrize("change", ["weights edited", "tokenizer missing", "card swapped", "digests deleted"])
def test_verify_checks_the_static_models_files_against_the_digests_its_export_holds(workspace, change):
    """sentence-transformers' files carry no record: paraphrastic_export.json holds the sha256 of each, which
    `paraphrastic verify` checks for the pipeline's static model (data/static_model)."""
    from paraphrastic.pipeline.verify import verify as verify_all

    def verify(data):  # the folder holds the static model alone: what it was built from is missing, and named so
        found = verify_all(data)
        found.problems = [p for p in found.problems if ", though data/static_model/" not in p]
        return found

    torch.manual_seed(0)
    options = {"tags": "none"}
    path = workspace["root"] / "static.pt"
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    save_model(path, build_model("avg", torch.randn(len(vocab), 4), **options), "avg", options, vocab, {})
    data = workspace["root"] / "data"
    folder = export(path, data / "static_model", static=True, card="# A card\n")
    (data / "raw").mkdir()
    (data / "raw" / "FETCHED.json").write_text("[]")  # a data folder with nothing fetched
    recorded = json.loads((folder / "paraphrastic_export.json").read_text())["files"]
    assert set(recorded) == {"modules.json", "config_sentence_transformers.json", "README.md", "tokenizer.json",
                             "model.safetensors"}
    assert verify(data).checked["static model"] == 1 and not verify(data).problems
    if change == "weights edited":
        weights = bytearray((folder / "model.safetensors").read_bytes())
        weights[-1] ^= 1
        (folder / "model.safetensors").write_bytes(bytes(weights))
    elif change == "tokenizer missing":
        (folder / "tokenizer.json").unlink()
    elif change == "card swapped":
        (folder / "README.md").write_text("# Another model's card\n")
    else:  # the config without them, as an export written before they were recorded
        config = json.loads((folder / "paraphrastic_export.json").read_text())
        del config["files"]
        (folder / "paraphrastic_export.json").write_text(json.dumps(config))
        problems = verify(data).problems
        assert len(problems) == 1 and "static_model/paraphrastic_export.json: holds no sha256" in problems[0]
        check_export(folder)  # a user's export of before is loaded as it is
        return
    name = {"weights edited": "model.safetensors", "tokenizer missing": "tokenizer.json"}.get(change, "README.md")
    problems = verify(data).problems
    assert len(problems) == 1 and f"static_model/{name}: " in problems[0] and "paraphrastic_export.json" in problems[0]


@pytest.mark.parametrize("name, options", [("lstmavg", {}), ("avg", {"tags": "both"})])
def test_only_an_untagged_avg_model_has_a_static_form(workspace, name, options):
    model, vocab = tiny_model(workspace, name)
    path = workspace["root"] / "model.pt"
    save_model(path, build_model(name, model.embedding.weight.detach().clone(), **options), name, options, vocab,
               {"settings": {"model": name}, "epoch": 1})
    with pytest.raises(PipelineError, match="has no static form"):
        export(path, workspace["root"] / "static", static=True)
    assert not (workspace["root"] / "static").exists()


@pytest.mark.parametrize("config, problem", [(None, "no such file, so .* is not a `paraphrastic export` folder"),
                                             ("{", "not readable JSON"), ("[]", r"not a JSON object \(list\)"),
                                             ('{"model_file": "../model.pt"}', "names no model file in its folder")])
def test_an_export_config_missing_or_broken_is_named_by_its_loader_and_its_check(workspace, config, problem):
    model, vocab = tiny_model(workspace, "avg")
    path = workspace["root"] / "model.pt"
    save_model(path, model, "avg", options_for("avg"), vocab, {})
    folder = export(path, workspace["root"] / "exported")
    if config is None:
        (folder / "paraphrastic_export.json").unlink()
    else:
        (folder / "paraphrastic_export.json").write_text(config)
    with pytest.raises(PipelineError, match=f"paraphrastic_export.json: {problem}"):
        ParaphrasticModule.load(str(folder))
    if "model_file" not in (config or ""):
        with pytest.raises(PipelineError, match=f"paraphrastic_export.json: {problem}"):
            check_export(folder)


def test_only_paraphrastic_and_sentence_transformers_classes_are_trusted(workspace):
    model, vocab = tiny_model(workspace, "avg")
    path = workspace["root"] / "model.pt"
    save_model(path, model, "avg", options_for("avg"), vocab, {})
    folder = export(path, workspace["root"] / "exported")
    modules = folder / "modules.json"
    modules.write_text(json.dumps([{"idx": 0, "name": "0", "path": "", "type": "modeling_evil.Evil"}]))
    with pytest.raises(PipelineError, match="modeling_evil.Evil"):
        load_sentence_transformer(folder)


def test_mteb_scores_an_export_as_the_pipeline_does(workspace, mirror, monkeypatch):
    """MTEB's own STS task (STS16) on the mirror's STS 2016 headlines, fed locally (MTEB would download its
    copy from the Hugging Face hub): its cosine correlations are those of paraphrastic's cosines."""
    import huggingface_hub.constants
    import mteb  # the `reference` extra
    from datasets import Dataset, DatasetDict
    from scipy import stats

    from paraphrastic.data.readers import read_sts
    from paraphrastic.data.tokenize import tokenize

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("MTEB_CACHE", str(workspace["root"] / "mteb-cache"))
    folder = mirror / "sts" / "2016"
    pairs = read_sts(folder / "STS2016.input.headlines.txt", folder / "STS2016.gs.headlines.txt", fields=4)[:40]
    # Pairs of one token sequence have cosine 1 up to float rounding, which would rank them by that rounding;
    # so would sentences of unknown words only: the model knows every word here.
    pairs = [p for p in pairs if tokenize(p.s1) != tokenize(p.s2)]
    vocab = Vocabulary(SPECIAL + sorted({w for p in pairs for s in (p.s1, p.s2) for w in tokenize(s)} - set(SPECIAL)))
    torch.manual_seed(0)
    model = build_model("gran", torch.randn(len(vocab), 8), **options_for("gran"))
    path = workspace["root"] / "model.pt"
    save_model(path, model, "gran", options_for("gran"), vocab, {})
    st = load_sentence_transformer(export(path, workspace["root"] / "exported"), device="cpu")

    task = mteb.get_task("STS16")
    task.dataset = DatasetDict({"test": Dataset.from_dict({"sentence1": [p.s1 for p in pairs],
                                                           "sentence2": [p.s2 for p in pairs],
                                                           "score": [p.score for p in pairs]})})
    task.data_loaded = True
    result = mteb.evaluate(st, task, cache=None, overwrite_strategy="always", show_progress_bar=False)
    scores = result.task_results[0].scores["test"][0]

    cosines = paraphrastic.load(path, device="cpu").similarity_pairwise([p.s1 for p in pairs], [p.s2 for p in pairs])
    gold = [p.score for p in pairs]
    assert scores["cosine_spearman"] == pytest.approx(stats.spearmanr(cosines.numpy(), gold).statistic, abs=1e-6)
    assert scores["cosine_pearson"] == pytest.approx(stats.pearsonr(cosines.numpy(), gold).statistic, abs=1e-5)


@pytest.mark.parametrize("umask, folder_mode, file_mode", [(0o022, 0o755, 0o644), (0o077, 0o700, 0o600)])
def test_an_export_is_as_readable_as_the_umask_allows(workspace, umask, folder_mode, file_mode):
    """Its staging folder comes from tempfile (owner-only): the export ends with the modes mkdir and open give."""
    import os
    import stat

    model, vocab = tiny_model(workspace, "avg")
    path = workspace["root"] / "avg.pt"
    options = {"tags": "none"}
    save_model(path, build_model("avg", model.embedding.weight.detach().clone(), **options), "avg", options, vocab, {})
    before = os.umask(umask)
    try:
        folders = [export(path, workspace["root"] / "module"), export(path, workspace["root"] / "static", static=True)]
    finally:
        os.umask(before)
    for folder in folders:
        assert stat.S_IMODE(folder.stat().st_mode) == folder_mode
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.rglob("*") if p.is_file()}
        assert modes and set(modes.values()) == {file_mode}, modes
