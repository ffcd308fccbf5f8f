"""The stage steps' own logic: what fetch fetches, the supervised tables (on the offline mirror), the gate
sentences' count of training sentences."""

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from paraphrastic.atomic import sha256_file
from paraphrastic.configuration import params as config
from paraphrastic.data.corpus import build_train_table, write_table
from paraphrastic.data.readers import TextPair
from paraphrastic.errors import MalformedLine, PipelineError
from paraphrastic.pipeline.steps import gate_sentences, prepare_eval, prepare_pwim, prepare_supervised
from paraphrastic.pipeline.steps.fetch import required_raw_files
from paraphrastic.provenance import read_result

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow/schemas/params.schema.yaml"


def test_fetch_fetches_what_each_profile_needs_and_the_manifest_has_it():
    manifest = yaml.safe_load((REPO / "workflow/sources.yaml").read_text())["files"]
    for name in ("params.yaml", "params.test.yaml"):
        files = required_raw_files(config.load(REPO / name, SCHEMA))
        assert files and set(files) <= set(manifest), name
    c = config.load(REPO / "params.yaml", SCHEMA)
    c["data_profile"] = "paper"
    files = required_raw_files(c)
    assert "simpwiki/v2/normal.aligned" in files and "ppdb/ppdb-XL-ordered-data.txt" in files
    assert set(files) <= set(manifest)


def raw_as_fetched(raw: Path, mirror: Path, c: dict) -> Path:
    """The raw files as fetch lays them out (links into the mirror), with the FETCHED.json it writes beside them."""
    manifest = yaml.safe_load((REPO / "workflow/sources.yaml").read_text())["files"]
    for name in required_raw_files(c):
        (raw / name).parent.mkdir(parents=True, exist_ok=True)
        (raw / name).symlink_to(mirror / manifest[name]["mirror"])
    return record_fetched(raw)


def record_fetched(raw: Path) -> Path:
    """FETCHED.json for the files under ``raw`` as they are now (fetch's record of what it verified)."""
    records = [{"file": str(path.relative_to(raw)), "sha256": sha256_file(path), "bytes": path.stat().st_size,
                "mtime_ns": path.stat().st_mtime_ns}
               for path in sorted(raw.rglob("*")) if path.is_file() and path.name != "FETCHED.json"]
    (raw / "FETCHED.json").write_text(json.dumps(records))
    return raw


def test_prepare_supervised_writes_both_tasks_with_their_splits(mirror, tmp_path):
    c = config.load(REPO / "params.test.yaml", SCHEMA)
    prepare_supervised.run(c, raw=raw_as_fetched(tmp_path / "raw", mirror, c), out_dir=tmp_path)
    for task in ("sts", "sick"):
        frame = pd.read_parquet(tmp_path / f"{task}.parquet")
        assert frame["split"].value_counts().to_dict() == {"train": 120, "validation": 120, "test": 120}, task
    assert set(pd.read_parquet(tmp_path / "sts.parquet")["dataset"]) == {"sts12.MSRvid", "sts14.images"}
    assert (tmp_path / "stats.json").exists()


@pytest.mark.fault("data files")
@pytest.mark.parametrize("step, options, spoiled", [
    (prepare_eval, {"out": "eval.parquet", "stats": "eval_stats.json"}, "sts/2014/STS.gs.images.txt"),
    (prepare_supervised, {"out_dir": "."}, "sts/2012/STS.gs.MSRvid.txt"),
    (prepare_pwim, {"out_dir": "."}, "sts/sick2014/SICK_train.txt"),
], ids=["prepare_eval", "prepare_supervised", "prepare_pwim"])
def test_a_bad_line_in_the_raw_data_stops_the_stage_with_nothing_written(mirror, tmp_path, step, options, spoiled):
    """The raw files as fetch lays them out (links into the mirror), one of them with a score that is not a
    number: the stage names the file and line, and its output folder stays empty (no half-written artifact)."""
    c = config.load(REPO / "params.test.yaml", SCHEMA)
    raw, out = raw_as_fetched(tmp_path / "raw", mirror, c), tmp_path / "out"
    lines = (raw / spoiled).read_bytes().split(b"\n")
    (raw / spoiled).unlink()  # the link, never the mirror's file
    sick = spoiled.endswith("SICK_train.txt")
    bad = 3 if sick else 2  # SICK: a header line, then the pairs; the score is the fourth field
    lines[bad - 1] = b"\t".join([*lines[bad - 1].split(b"\t")[:3], b"4,5", *lines[bad - 1].split(b"\t")[4:]]) \
        if sick else b"4,5"
    (raw / spoiled).write_bytes(b"\n".join(lines))
    record_fetched(raw)  # as fetched: the bad line is upstream's, not an edit after fetch
    out.mkdir()
    with pytest.raises(MalformedLine, match=f"{raw / spoiled}:{bad}: "):
        step.run(c, raw=raw, **{k: str(out / v) for k, v in options.items()})
    assert list(out.rglob("*")) == []


def test_the_compared_stanza_models_are_gates_stanza_with_stanza_compared_over_it(monkeypatch, tmp_path):
    """`stanza-models --compared` trains gates.stanza's models but for the settings gates.stanza_compared gives."""
    from paraphrastic.pipeline.steps import stanza_models

    c = config.load(REPO / "params.yaml", SCHEMA)
    c["gates"]["stanza_compared"] = {"word_vectors": "none", "tagger_steps": 7}
    built = {}

    def build(settings, **kwargs):
        built[kwargs["out_dir"].name] = (settings, kwargs["word_vectors"])
        return {"source": "trained", "dev": {"upos": 1.0, "xpos": 1.0, "las": 1.0, "sentences": 1}}

    monkeypatch.setattr(stanza_models, "build", build)
    record_fetched(tmp_path)  # no raw file: the models are built by `build`
    stanza_models.run(c, raw=tmp_path, out_dir=tmp_path / "analysis")
    stanza_models.run(c, raw=tmp_path, out_dir=tmp_path / "compared", compared=True)
    analysis, compared = built["analysis"], built["compared"]
    assert analysis[0] == c["gates"]["stanza"] and analysis[1] == tmp_path / c["profiles"]["offline"]["embeddings"]
    assert compared[0] == {**c["gates"]["stanza"], "word_vectors": "none", "tagger_steps": 7} and compared[1] is None


def test_the_stanza_transformer_is_resolved_only_for_models_trained_here(monkeypatch, tmp_path):
    """gates.stanza.transformer: MiniLM by name is the offline copy; a missing folder is an error naming the key
    the compared models took it from; pretrained models ignore it."""
    from paraphrastic.data.transformer_folders import MINILM, transformer_folder
    from paraphrastic.pipeline.steps import stanza_models

    c = config.load(REPO / "params.yaml", SCHEMA)
    c["gates"]["stanza"]["transformer"] = MINILM
    c["gates"]["stanza_compared"] = {"transformer": str(tmp_path / "missing")}
    built = {}

    def build(settings, **kwargs):
        built[kwargs["out_dir"].name] = kwargs["transformer"]
        return {"source": "trained", "dev": {"upos": 1.0, "xpos": 1.0, "las": 1.0, "sentences": 1}}

    monkeypatch.setattr(stanza_models, "build", build)
    record_fetched(tmp_path)
    stanza_models.run(c, raw=tmp_path, out_dir=tmp_path / "analysis")
    assert built["analysis"] == transformer_folder(MINILM, where="test")
    with pytest.raises(PipelineError, match=r"gates\.stanza_compared\.transformer: .*missing"):
        stanza_models.run(c, raw=tmp_path, out_dir=tmp_path / "compared", compared=True)
    c["gates"]["stanza_compared"]["pretrained"] = str(tmp_path)
    stanza_models.run(c, raw=tmp_path, out_dir=tmp_path / "compared", compared=True)
    assert built["compared"] is None
    c["gates"]["stanza"]["transformer"] = str(tmp_path / "missing")  # inherited: the key it came from is named
    c["gates"]["stanza_compared"] = {}
    with pytest.raises(PipelineError, match=r"gates\.stanza\.transformer: .*missing"):
        stanza_models.run(c, raw=tmp_path, out_dir=tmp_path / "compared", compared=True)


@pytest.mark.parametrize("reading", ["ours", "authors"])
def test_gate_sentences_count_the_training_sentences_whichever_reading_the_training_tables_hold(tmp_path, reading):
    """The sample is read our way (brackets, not -LRB-); a training table read the authors' way still holds its
    sentences, so a bracketed training sentence counts as one under either reading."""
    c = config.load(REPO / "params.test.yaml", SCHEMA)
    c["data"]["reading"], c["gates"]["extra_sentences"], c["gates"]["sentences"] = reading, False, 10
    normal = ["The cat -LRB- a tabby -RRB- sat .", "Dogs bark .", "Birds sing 1\\/4 ."]
    raw = tmp_path / "raw"
    (raw / "simpwiki/v2-validation").mkdir(parents=True)
    for side, lines in (("normal", normal), ("simple", [line.lower() for line in normal])):
        (raw / f"simpwiki/v2-validation/validation-{side}").write_text("\n".join(lines) + "\n")
    record_fetched(raw)
    pairs = [TextPair(normal[0], "x .", "simpwiki:1"), TextPair(normal[1], "y .", "simpwiki:2")]
    corpus = tmp_path / "corpus"
    write_table(build_train_table(pairs, max_pairs=None, seed=0, reading=reading), None, corpus / "simpwiki.parquet",
                stage="prepare_train")
    write_table(pd.DataFrame({"dataset": ["sts16.headlines"], "tokens1": [["x"]], "tokens2": [["y"]]}), None,
                corpus / "eval.parquet", stage="prepare_eval")
    gate_sentences.run(c, raw=raw, corpus=corpus, out=tmp_path / "sentences.parquet", stats=tmp_path / "stats.json")
    stats = read_result(tmp_path / "stats.json")
    assert (stats["sampled"], stats["in_training_pairs"]) == (3, 2)
