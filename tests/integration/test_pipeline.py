"""Integration: the real pipeline on the tiny config over ../shared/data, under Snakemake and DVC.

Each test works in a scratch copy of the repository whose params.yaml is params.test.yaml, so
`snakemake` and `dvc repro` read the same tiny config.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from paraphrastic.cli.main import LIST_MODULES, MODULES_LINE
from paraphrastic.configuration import params as config_module
from paraphrastic.configuration.jobs import JobTables
from paraphrastic.export import export
from paraphrastic.models.files import load_model
from paraphrastic.pipeline.code_deps import closure
from paraphrastic.pipeline.graph import STAGES
from tests.conftest import scratch_folder
from tests.test_export import assert_same_vectors

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
COPIED = ["Snakefile", "dvc.yaml", "params.yaml", "params.test.yaml", "pyproject.toml", ".dvcignore", "workflow", "src",
          "profiles", "slurm", ".dvc/config", ".gitignore"]


def scratch_checkout(root: Path, mirror: Path) -> tuple[Path, dict]:
    root.mkdir(parents=True)
    for name in COPIED:
        source = REPO / name
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # `slurm`, the profile `--profile slurm` finds from the root
            target.symlink_to(os.readlink(source))
        elif source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        elif source.exists():
            shutil.copy2(source, target)
    config = yaml.safe_load((REPO / "params.test.yaml").read_text())
    config["mirror"] = str(mirror)
    config["paper_tables"] = str(REPO.parent / "shared" / "papers" / "tables")
    (root / "params.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    env = dict(os.environ, PYTHONPATH=str(root / "src"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    env.pop(MIRROR_ENV, None)
    # Byte-compiled once, as a user's checkout is after its first run: where PYTHONDONTWRITEBYTECODE is set (as on
    # the machines this suite runs on), every job of every engine would otherwise compile the library's modules again.
    subprocess.run([sys.executable, "-m", "compileall", "-q", "src"], cwd=root, env=env, check=True)
    # dvc.yaml iterates over the expanded grid runs of *this* params.yaml
    subprocess.run([sys.executable, "-m", "paraphrastic", "grids", "--write", "workflow/runs.yaml"], cwd=root,
                   env=env, check=True, capture_output=True)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "scratch"]):
        subprocess.run(cmd, cwd=root, check=True, env=env)
    return root, env


MIRROR_ENV = "PARAPHRASTIC_MIRROR"
# What the README tells users to run locally, as typed: Snakemake reads the workflow profile (profiles/default, the
# rerun policy) by itself.
SNAKEMAKE = ["snakemake", "--cores", "2"]


def new_user(root: Path, env: dict) -> dict:
    """``env`` for a user with an empty HOME of their own (no Snakemake config or profile there): the README's
    `--profile slurm` must find the project's profile from the checkout's root by itself."""
    home = root.parent / "home"
    home.mkdir(exist_ok=True)
    return {k: v for k, v in env.items() if k not in ("XDG_CONFIG_HOME", "SNAKEMAKE_PROFILE")} | {"HOME": str(home)}


# A guard against a hung command, not a speed check (the suite's budget is that): the tiny pipeline's whole run takes
# over ten minutes on a slow 2-core machine, and under load it passed 900 s.
COMMAND_TIMEOUT_S = 1500


def sh(cmd: list[str], cwd: Path, env: dict, timeout: int = COMMAND_TIMEOUT_S) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode:
        # a failed job's message is in its rule's log: show the newest ones
        logs = sorted((cwd / "logs").rglob("*.log"), key=lambda p: p.stat().st_mtime)[-2:]
        shown = "".join(f"\n--- {p}\n{p.read_text(errors='replace')[-3000:]}" for p in logs)
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}{shown}")
    return proc.stdout + proc.stderr


def artifacts(root: Path) -> dict[str, Path]:
    data = root / "data"
    return {p.relative_to(data).as_posix(): p for p in data.rglob("*")
            if p.is_file() and not p.name.startswith(".") and "checkpoints" not in p.parts}


@pytest.fixture(scope="module")
def dvc_started(request, tmp_path_factory, mirror):
    """`dvc repro` of the tiny pipeline in its own scratch checkout, started before the Snakemake run when a test
    of this session needs it: DVC runs one stage at a time, so it uses the core that the other engine's jobs leave
    idle (the two runs share nothing but the mirror, which both only read)."""
    if not any("dvc_run" in item.fixturenames for item in request.session.items):
        yield None
        return
    with scratch_folder(request, tmp_path_factory, "dvc") as folder:
        root, env = scratch_checkout(folder / "repo", mirror)
        log = root / "dvc-repro.log"
        with open(log, "w") as out:
            proc = subprocess.Popen(["dvc", "repro"], cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
        yield root, env, proc, log
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def snakemake_run(request, tmp_path_factory, mirror, dvc_started):
    with scratch_folder(request, tmp_path_factory, "snake") as folder:
        root, env = scratch_checkout(folder / "repo", mirror)
        # Every job lists the modules it ran, in its log: test_every_job_logs_and_runs_only_its_stages_code. Run as
        # `.venv/bin/snakemake` typed without activating the environment: its folder is not on PATH, and every job
        # still runs with its Python (whichever `python` PATH holds otherwise, or none)
        bin_folder = str(Path(sys.executable).parent)
        unactivated = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != bin_folder)
        log = sh([str(Path(bin_folder) / "snakemake"), *SNAKEMAKE[1:]], root,
                 dict(env, PATH=unactivated, **{LIST_MODULES: "1"}))
        yield root, env, log


@pytest.fixture(scope="module")
def dvc_run(dvc_started):
    root, env, proc, log = dvc_started
    try:
        returncode = proc.wait(timeout=1800)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"dvc repro ran past 30 minutes:\n{log.read_text(errors='replace')[-4000:]}") from None
    text = log.read_text(errors="replace")
    assert returncode == 0, f"dvc repro failed:\n{text[-6000:]}"
    return root, env, text


def test_snakemake_runs_the_tiny_pipeline_and_writes_the_report(snakemake_run):
    root, _, _ = snakemake_run
    report = (root / "data/report/report.md").read_text()
    for heading in ("Data deviations from the paper", "Table 1", "Table 2", "Table 3", "Table 4", "Learning curves",
                    "Model selection", "wall time per job"):
        assert heading in report
    assert "thinned for this profile to 7 of the 9 runs the config's grids hold unthinned" in report
    runs = (root / "data/report/runs.csv").read_text().splitlines()
    # 5 one-seed runs and gran-simpwiki's second seed (gates.seeds), the two-seed grid row's 2 runs, 2 distilled twins
    # and a sentence-distilled one
    assert len(runs) == 1 + 5 + 1 + 2 * 2 + 2 + 1 and sum(line.startswith("t-lstmavg-reg__") for line in runs) == 4
    assert sum(line.startswith("avg-simpwiki_matched-sentence_distilled,") for line in runs) == 1
    # the two-seed grid row is reported as mean ± sd
    metrics = json.loads((root / "data/report/metrics.json").read_text())
    assert metrics["t-lstmavg-reg"]["seeds"] == 2 and metrics["t-lstmavg-reg"]["test_sd"] >= 0
    assert "Seed variation" in report and " ± " in report
    assert (root / "data/report/report.html").read_text().count("<img") == 4  # curves, speed, Stanza, gate norms
    assert "Tables 9-11: GRAN gate analysis" in report
    # supervised Tables 5, 6, 8 and the error analysis of Table 7
    for heading in ("Table 5: supervised training", "Table 6: GRAN variants", "Table 8: initialising",
                    "Table 7: error analysis"):
        assert heading in report
    sup = json.loads((root / "data/supervised/stats.json").read_text())
    assert sup["sts"]["sets"] == ["sts12.MSRvid", "sts14.images"] and sup["sick"]["paper"]["test"] == 4927
    assert sup["sts"]["splits"] == {"train": 120, "validation": 120, "test": 120}  # capped by max_pairs
    assert sup["sick"]["splits"] == {"train": 120, "validation": 120, "test": 120}
    universal = json.loads((root / "data/supervised/models/universal/sick/s-gran-universal__8759c33f/seed1/"
                                    "train.json").read_text())
    assert universal["init"] == "data/models/gran-simpwiki/seed1/model.pt"
    assert universal["settings"]["lambda_w"] == 1e-3 and -100 < universal["test_pearson"] <= 100
    assert not (root / "data/supervised/models/sick/s-lstmavg__8e73523f").exists()  # that row trains on STS only
    assert metrics["supervised"]["s-lstmavg.sts"]["test"] > -100 and "s-lstmavg.sick" not in metrics["supervised"]
    # all-MiniLM-L6-v2 beside the Table 4 models, same sets and scorer
    assert "What a user would pick instead: all-MiniLM-L6-v2" in report
    encoders = json.loads((root / "data/results/encoders.json").read_text())
    assert encoders["reference"]["summary"]["transfer_sets"] == 2 and encoders["reference"]["sentences"] > 100
    # Table 4's rows, their twins on the distilled and sentence-distilled vectors, and the three untrained vectors,
    # all timed from raw text
    assert set(encoders["ours"]) == {"lstmavg", "avg", "gran", "lstmavg, distilled", "avg, distilled",
                                     "avg, sentence_distilled"}
    assert set(encoders["untrained"]) == {"pretrained", "distilled", "sentence_distilled"}
    assert all(o["sentences_per_second"] > 0 for o in [*encoders["ours"].values(), *encoders["untrained"].values()])
    gran = json.loads((root / "data/results/gran-simpwiki/seed1.json").read_text())
    assert encoders["ours"]["gran"]["per_dataset"] == gran["datasets"]  # the same model, scored the same way
    # the other seed systems: Siamese CBOW (with its word2vec baseline) and PWIM (with an ablation) in the same graph
    for heading in ("Siamese CBOW (Kenter et al. 2016)", "PWIM (He & Lin 2016)", "Table 3: SICK test",
                    "Table 5: STS 2014 test sets", "Table 8: ablations on SICK", "Table 9: parameters"):
        assert heading in report
    scbow = json.loads((root / "data/siamese/models/scbow-random/train.json").read_text())
    assert scbow["corpus_sentences"] == 400 and set(scbow["final"]["per_dataset"]) == {"sts12.MSRvid", "sts14.images"}
    w2v = json.loads((root / "data/siamese/word2vec/results.json").read_text())
    assert set(w2v["architectures"]) == {"cbow", "skipgram"} and w2v["corpus_sentences"] == 400
    pwim = json.loads((root / "data/pwim/models/sts2014/pwim/train.json").read_text())
    assert pwim["pairs"]["test"] == 40 and pwim["settings"]["padding"] == 48 and "weighted_mean_pearson" in pwim["test"]
    assert not (root / "data/pwim/models/msrvid").exists()  # no run of the tiny config trains on MSRvid
    assert -100 <= metrics["pwim"]["sick"]["pearson"] <= 100 and "pwim-no-context" in metrics["pwim"]["ablations"]
    assert set(metrics["siamese_cbow"]["runs"]) == {"scbow-pretrained", "scbow-random"}
    errors = json.loads((root / "data/error_analysis/summary.json").read_text())
    assert errors["pairs"] == 1500 and errors["sets"] == ["sts12.MSRvid", "sts14.images"]
    assert sum(c["pairs"] for c in errors["categories"].values()) == 1500
    gates = json.loads((root / "data/gates/analysis/summary.json").read_text())
    assert gates["model"]["row"] == "gran-simpwiki" and gates["tokens"] > 1000 and gates["sentences"] == 200
    # the agreement is repeated on both seeds, with intervals from resampling sentences (and seeds)
    pos = gates["agreement"]["pos"]
    assert gates["model"]["seeds"] == [1, 2] and set(pos["per_seed"]) == {"1", "2"}
    assert set(pos["interval"]) == {"sentences", "sentences_and_seeds"}
    stanza = json.loads((root / "data/stanza/scores.json").read_text())
    assert stanza["source"].startswith("trained offline") and stanza["dev"]["sentences"] == 50
    assert stanza["word_vectors"] == "glove.6B.50d.txt.gz"  # the offline profile's vectors
    # the gate analysis's parser comparison, the same sentences parsed by models trained without word vectors
    compared = json.loads((root / "data/stanza_compared/scores.json").read_text())
    assert compared["word_vectors"] is None and compared["budget"] == stanza["budget"]
    comparison = json.loads((root / "data/gates/compared.json").read_text())  # the tiny config sets `extended`
    assert set(comparison["agreement"]) == {"pos", "label"}
    assert comparison["with_analysis_parser"]["words"] == gates["tokens"]
    assert comparison["parser"]["dev"] == compared["dev"]
    assert "Parser comparison" in report
    results = json.loads((root / "data/results/lstmavg-simpwiki/seed1.json").read_text())
    assert set(results["datasets"]) == {"sts12.MSRvid", "sts14.images", "sts16.headlines"}
    assert results["summary"]["transfer_sets"] == 2
    baseline = json.loads((root / "data/results/baseline.json").read_text())
    assert baseline["trained"] is False and -100 < baseline["summary"]["transfer_pearson"] < 100
    # vectors distilled from all-MiniLM-L6-v2 for the 2,000 most frequent words and the teacher's pieces, two rows
    # trained on them
    distilled = json.loads((root / "data/distilled/coverage.json").read_text())
    assert (distilled["words"], distilled["dim"], distilled["teacher"]) == (2005 + distilled["pieces"], 16,
                                                                            "all-MiniLM-L6-v2")
    assert distilled["pieces"] > 20_000 and distilled["coverage"]["eval"]["token_coverage_with_pieces"] > 0.99
    twin = json.loads((root / "data/models/lstmavg-simpwiki-distilled/seed1/train.json").read_text())
    assert twin["settings"]["word_vectors"] == "distilled" and twin["settings"]["model"] == "lstmavg"
    assert twin["training_text"]["table"] == "simpwiki.parquet" and twin["training_text"]["reading"] == "authors"
    _, vocab, _ = load_model(root / "data/models/lstmavg-simpwiki-distilled/seed1/model.pt")
    assert vocab.words == (root / "data/distilled/vocab.txt").read_text().split("\n")[:-1] and vocab.has_wordpieces
    assert "Beyond the paper: word vectors distilled" in report
    # exported like every other model: sentence-transformers loads it and gives our vectors
    folder = export(root / "data/models/lstmavg-simpwiki-distilled/seed1/model.pt", root / "exported")
    assert_same_vectors(folder, root / "data/models/lstmavg-simpwiki-distilled/seed1/model.pt")
    assert metrics["lstmavg-simpwiki-distilled"]["test"] > -100 and "avg-simpwiki_matched-distilled" in metrics
    assert -100 < metrics["baseline_distilled"]["test"] < 100
    # the sentence-distilled vectors as the static model: model2vec loads the folder, its card gives the run's scores
    from model2vec import StaticModel

    training = json.loads((root / "data/sentence_distilled/training.json").read_text())
    assert training["settings"]["post_processing"] == "whiten" and training["settings"]["paraphrase_weight"] > 0
    paired = training["paraphrase_pairs"]  # SimpWiki's pairs, none with an evaluation sentence on either side
    assert paired["pairs"] > 100 and paired["evaluation_sentences_excluded"] >= 0
    static = StaticModel.from_pretrained(str(root / "data/static_model"))
    assert static.encode(["a man is playing a guitar ."]).shape == (1, 16)
    card = (root / "data/static_model/README.md").read_text()
    loaded = json.loads((root / "data/results/static_model.json").read_text())  # the export scored as loaded
    score = loaded["model2vec"]["summary"]["transfer_pearson"]
    assert f"| this model, as model2vec loads it | – | {score:.1f} |" in card  # no whole year: no MTEB
    sentences = list(dict.fromkeys(["a man is playing a guitar .", "a man plays ."]))
    assert loaded["speed"]["sentences_per_second"]["model2vec"] > loaded["speed"]["sentences_per_second"]["teacher"]
    assert static.encode(sentences).shape == (2, 16)
    stats = json.loads((root / "data/corpus/train_stats.json").read_text())
    assert stats["simpwiki"]["pairs"] == 2000 and stats["ppdb"]["pairs"] == 2000
    assert stats["simpwiki"]["skipped_lines"]["lines"] == stats["ppdb"]["skipped_lines"]["lines"] == 0  # clean mirror
    assert json.loads((root / "data/corpus/match_summary.json").read_text())["direction"] == \
        "simpwiki_sampled_to_ppdb"


def modules_run(log: Path) -> list[set[str]]:
    """The paraphrastic modules each command of a job's log ran (one set per attempt)."""
    return [set(line.split()[len(MODULES_LINE.split()):]) for line in log.read_text(errors="replace").splitlines()
            if line.startswith(MODULES_LINE)]


def test_every_job_logs_and_runs_only_its_stages_code(snakemake_run):
    """Each rule's log holds its job's output; the modules each job ran are inside its stage's derived code deps
    (the stage's step and its import closure, plus what the CLI loads before it calls the step)."""
    root, _, _ = snakemake_run
    cli = set(closure(["paraphrastic.__main__"], functions=False))
    for name, stage in STAGES.items():
        logs = sorted((root / "logs" / name).glob("*.log"))
        assert logs, f"rule {name} wrote no log"
        allowed = set(closure([stage.step])) | cli
        for log in logs:
            runs = modules_run(log)
            assert runs, log
            for loaded in runs:
                assert stage.step in loaded, log
                assert loaded <= allowed, f"{log}: ran {sorted(loaded - allowed)}, outside stage {name}'s code deps"
    train_log = (root / "logs/train/lstm-simpwiki.seed1.log").read_text()
    assert "selected epoch 1" in train_log


def test_second_snakemake_run_has_nothing_to_do(snakemake_run):
    root, env, _ = snakemake_run
    assert "Nothing to be done" in sh(SNAKEMAKE, root, env)


def test_every_job_has_a_benchmark_and_snakemake_report_shows_the_reported_outputs(snakemake_run, tmp_path):
    root, env, _ = snakemake_run
    for name in STAGES:
        jobs = {p.stem for p in (root / "logs" / name).glob("*.log")}
        benchmarks = sorted((root / "logs/benchmarks" / name).glob("*.tsv"))
        assert {p.stem for p in benchmarks} == jobs, name  # one per job, named as its log
        assert benchmarks[0].read_text().startswith("s\th:m:s\tmax_rss"), benchmarks[0]
    sh(["snakemake", "--report", str(tmp_path / "report.zip")], root, env)
    with zipfile.ZipFile(tmp_path / "report.zip") as report:
        page = report.read("report/report.html").decode()
        files = {Path(n).name for n in report.namelist() if n.startswith("report/data/")}  # data/<hash>/<name>
    assert files == {"report.html", "report.md", "runs.csv", "learning_curves.png", "gate_norms_by_pos.png",
                     "stanza_learning_curves.png", "accuracy_speed.png", "by_pos.csv", "examples.csv"}
    assert "Learning curves of the rows in Tables 1 and 4" in page  # a caption (workflow/report/)


def dvc_outputs(root: Path, env: dict) -> list[str]:
    """Every output path of every DVC stage, relative to the repository."""
    code = ("import json; from dvc.repo import Repo; repo = Repo('.'); "
            "print(json.dumps([str(o.fs_path) for o in repo.index.outs]))")
    paths = json.loads(sh([sys.executable, "-c", code], root, env).strip().splitlines()[-1])
    return [Path(p).relative_to(root).as_posix() for p in paths]


def assert_every_artifact_is_a_dvc_output(root: Path, env: dict):
    outs = dvc_outputs(root, env)
    assert len(outs) == len(set(outs)), "two stages declare the same output"
    files = [p.relative_to(root).as_posix() for p in (root / "data").rglob("*")
             if p.is_file() and "checkpoints" not in p.parts]  # the jobs' own scratch (Stage.checkpoints)
    assert files
    unversioned = [f for f in files if not any(f == o or f.startswith(o + "/") for o in outs)]
    assert not unversioned, f"artifacts no DVC stage declares: {unversioned[:10]}"


def dvc_takes_over(root: Path, env: dict) -> None:
    """DVC takes over what Snakemake built, as the README says: its own two stages, which have no Snakemake rule
    (check_params checks the params, which Snakemake does while it parses; code_digests lists each stage's code),
    then `dvc commit --force` records every stage's deps and outputs as they are."""
    sh(["dvc", "repro", "code_digests"], root, env)
    sh(["dvc", "commit", "--force"], root, env)


def test_the_stanza_models_start_first_and_the_time_profile_follows_the_critical_path(snakemake_run, tmp_path):
    """The gate analysis's Stanza training heads the default run's critical path (its longest job): it starts as
    soon as fetch, its only input, is done (the rule's priority; Snakemake would start the jobs more depend on
    first). benchmarks/time_profile.py reads the run's own Snakemake log into a chain from fetch to the report."""
    root, _, _ = snakemake_run
    first = sorted((root / ".snakemake" / "log").glob("*.snakemake.log"))[0]  # the whole run's
    order = re.findall(r"^\s*(?:local)?rule (\w+):$", first.read_text(), flags=re.M)
    assert order[:2] == ["fetch", "stanza_models"], order[:8]
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "time_profile.py"), str(root), "--out",
                    str(tmp_path / "profile")], check=True, capture_output=True, timeout=300)
    chain = [job["job"] for job in json.loads((tmp_path / "profile.json").read_text())["critical_path"]["jobs"]]
    assert chain[0] == "fetch/fetch" and chain[-1] == "report/report", chain


def test_nothing_to_do_after_dvc_checkout_rewrites_the_artifacts(snakemake_run):
    root, env, _ = snakemake_run
    dvc_takes_over(root, env)
    assert "up to date" in sh(["dvc", "status"], root, env)
    assert_every_artifact_is_a_dvc_output(root, env)
    victims = [root / "data/vocab/embeddings.npy", root / "data/corpus/eval.parquet",
               root / "data/models/lstm-simpwiki/seed1/model.pt", root / "data/raw/FETCHED.json"]
    for victim in victims:
        victim.unlink()
    sh(["dvc", "checkout", "--relink"], root, env)  # restores them and rewrites every cached file
    assert all(v.exists() for v in victims)
    # a copy (or `dvc pull`) gives upstream files the newest mtimes, with unchanged content
    now = time.time() + 5
    for upstream in ("data/raw/FETCHED.json", "data/corpus/simpwiki.parquet", "data/vocab/embeddings.npy"):
        os.utime(root / upstream, (now, now))
    assert "Nothing to be done" in sh([*SNAKEMAKE, "-n"], root, env)
    # Without the workflow profile, Snakemake checksums only inputs up to 1 MB, and these touched files are larger:
    # it would retrain everything. The profile's max-checksum-file-size is what makes the difference.
    assert "rule train" in sh(["snakemake", "-n", "--cores", "2", "--workflow-profile", "none"], root, env)


@pytest.mark.fault("pipeline artifacts")
def test_a_raw_file_edited_by_hand_reruns_its_readers_and_verify_finds_what_times_hide(snakemake_run):
    """A hand edit under data/raw (fetch's record untouched) reruns the stages that read raw files, which stop
    naming it (tests/data/test_fetch.py); one that keeps the size and sets the time back to the one fetch recorded
    passes Snakemake's and the stages' quick checks, and `paraphrastic verify` finds it by hash."""
    root, env, _ = snakemake_run
    raw = root / "data/raw/sts/2012/STS.gs.MSRvid.txt"
    original, before = raw.read_bytes(), raw.stat()
    edited = original.replace(b"5.000", b"4.000", 1)
    assert edited != original and len(edited) == len(original)

    def put(content: bytes, times: tuple[int, int] | None = None) -> None:
        raw.unlink()  # a new file: never the content of a cached copy DVC may have linked here
        raw.write_bytes(content)
        if times:
            os.utime(raw, ns=times)

    verify = [sys.executable, "-m", "paraphrastic", "verify"]
    try:
        put(edited)
        plan = sh([*SNAKEMAKE, "-n"], root, env)
        assert "rule prepare_eval:" in plan and "data/raw/sts/2012/STS.gs.MSRvid.txt" in plan
        # the time set back to the one fetch recorded: older than every output, and what a stage's check expects
        fetched = json.loads((root / "data/raw/FETCHED.json").read_text())
        recorded = next(r["mtime_ns"] for r in fetched if r["file"] == "sts/2012/STS.gs.MSRvid.txt")
        put(edited, (recorded, recorded))
        assert "Nothing to be done" in sh([*SNAKEMAKE, "-n"], root, env)
        proc = subprocess.run(verify, cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert proc.stdout.splitlines() == ["data/raw/sts/2012/STS.gs.MSRvid.txt: its sha256 differs from the one "
                                            "fetch verified (edited or damaged since); rerun fetch (snakemake "
                                            "--forcerun fetch, or dvc repro --force fetch), which fetches it again"]
    finally:
        put(original, (before.st_atime_ns, before.st_mtime_ns))
    assert "data: every file is what its record says" in sh(verify, root, env)
    assert "Nothing to be done" in sh([*SNAKEMAKE, "-n"], root, env)
    # the files that carry no record of their own (the report's, Stanza's, the static model's) are held to the
    # sha256 a record beside them holds: a published number edited in the report is named too
    report = root / "data/report/report.md"
    text, times = report.read_bytes(), report.stat()
    try:
        report.write_bytes(text + b"\n")
        proc = subprocess.run(verify, cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 1 and proc.stdout.startswith("data/report/report.md: differs from what report "
                                                               "wrote beside data/report/record.json"), proc.stdout
    finally:
        report.write_bytes(text)
        os.utime(report, ns=(times.st_atime_ns, times.st_mtime_ns))


@pytest.mark.fault("pipeline artifacts")
def test_a_rerun_refused_at_a_model_changed_in_place_keeps_the_last_good_scores(snakemake_run):
    """A scored job's model.pt with two vocabulary entries swapped and saved again (its train.json kept): the
    rerun of `evaluate` stops naming the file and the stage that wrote it, and Snakemake restores the scores it
    had (the rule's outputs are flagged update()) and says so, instead of leaving no result at all."""
    import torch

    root, env, _ = snakemake_run
    job = next(iter(JobTables.of(yaml.safe_load((root / "params.yaml").read_text())).experiment_jobs.values()))
    model = root / f"data/models/{job['run']}/seed{job['seed']}/model.pt"
    scores = root / f"data/results/{job['run']}/seed{job['seed']}.json"
    original, times, kept = model.read_bytes(), model.stat(), scores.read_bytes()
    try:
        payload = torch.load(model, weights_only=True)
        payload["vocab"][5], payload["vocab"][6] = payload["vocab"][6], payload["vocab"][5]
        torch.save(payload, model)
        proc = subprocess.run([*SNAKEMAKE, str(scores.relative_to(root))], cwd=root, env=env, capture_output=True,
                              text=True, timeout=COMMAND_TIMEOUT_S)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0, out[-4000:]
        assert f"{model.relative_to(root)}: differs from what train wrote beside" in out, out[-4000:]
        assert f"Restored previous version of {scores.relative_to(root)}" in out, out[-4000:]
        assert scores.read_bytes() == kept
    finally:
        model.write_bytes(original)
        os.utime(model, ns=(times.st_atime_ns, times.st_mtime_ns))
    # Snakemake recorded the refused job's inputs, so with the model as it was the scores are made again: the same
    # numbers, and then nothing is left to do
    sh(SNAKEMAKE, root, env)
    again = json.loads(scores.read_text())
    assert {k: again[k] for k in ("summary", "datasets")} == {k: json.loads(kept)[k] for k in ("summary", "datasets")}
    assert "Nothing to be done" in sh([*SNAKEMAKE, "-n"], root, env)


def dry_run_with(root: Path, env: dict, section: str, key: str, value) -> str:
    """What `snakemake -n` would run with one setting of params.yaml changed."""
    config = yaml.safe_load((root / "params.yaml").read_text())
    config[section][key] = value
    changed = root / f"params.{section}-{key}.yaml"
    changed.write_text(yaml.safe_dump(config, sort_keys=False))
    return sh([*SNAKEMAKE, "-n", "--configfile", changed.name], root, env)


def test_changed_training_setting_reruns_training_only(snakemake_run):
    root, env, _ = snakemake_run
    out = dry_run_with(root, env, "train", "margin", 0.6)
    assert "rule train" in out and "rule report" in out
    assert "rule fetch" not in out and "rule vocab" not in out


def without_timings(doc):
    """A results document without the measured times and speeds, which differ between two runs."""
    if isinstance(doc, dict):
        # (and without its record, whose sha256 covers them)
        return {k: without_timings(v) for k, v in doc.items() if k not in ("seconds", "sentences_per_second",
                                                                          "tokenized_sentences_per_second", "record")}
    return doc


def test_changed_supervised_setting_reruns_supervised_training_only(snakemake_run):
    root, env, _ = snakemake_run
    out = dry_run_with(root, env, "supervised", "split", {"train": 0.5, "validation": 0.1, "seed": 1})
    assert "rule prepare_supervised" in out and "rule train_supervised" in out and "rule train_universal" in out
    assert "rule report" in out and "rule train:" not in out and "rule vocab" not in out
    for rule in ("fetch", "evaluate", "gates", "error_analysis", "stanza_models"):
        assert f"rule {rule}:" not in out, rule
    out = dry_run_with(root, env, "supervised", "sts_sets", ["sts12.MSRvid"])  # fetches nothing new
    assert "rule prepare_supervised" in out and "rule fetch:" not in out and "rule stanza_models:" not in out


def test_changed_gate_setting_reuses_the_cached_parses(snakemake_run):
    root, env, _ = snakemake_run
    out = dry_run_with(root, env, "gates", "min_count", 5)
    assert "rule gates" in out and "rule report" in out
    assert "rule parse" not in out and "rule stanza_models" not in out and "rule train" not in out


def test_paper_profile_dry_run_shows_the_grouped_cluster_plan(snakemake_run):
    """The tiny config's runs on the paper data profile, planned through the SLURM profile: the supervised and
    universal jobs in groups of the workflow profile's size (the full params.yaml: 163 + 1,799 groups, README)."""
    root, env, _ = snakemake_run
    # as the README types it, from the checkout's root (where `slurm` is the project's profile), for a user with no
    # Snakemake config of their own
    proc = subprocess.run(["snakemake", "-n", "--forceall", "--cores", "8", "--profile", "slurm", "--config",
                           "data_profile=paper"], cwd=root, env=new_user(root, env), capture_output=True, text=True,
                          timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "Using profiles slurm and workflow specific profile profiles/default" in out
    assert "rule fetch" in out and "rule train" in out and "rule report" in out
    config = config_module.load(root / "params.yaml", root / config_module.DEFAULT_SCHEMA)
    config["data_profile"] = "paper"
    tables = JobTables.of(config)
    profile = yaml.safe_load((root / "profiles/default/config.yaml").read_text())
    size = dict(entry.split("=") for entry in profile["group-components"])
    for group, universal in (("supervised", False), ("universal", True)):
        jobs = len(tables.supervised_jobs_of(universal=universal))
        assert out.count(f"Group job {group} ") == math.ceil(jobs / int(size[group])) > 0, group


def trained(log: str) -> list[str]:
    """The training stages a `dvc repro` or `dvc exp run` ran."""
    return sorted(s for s in re.findall(r"Running stage '([^']+)'", log) if s.split("@")[0].startswith("train"))


def test_dvc_exp_run_on_a_grid_trains_exactly_its_new_runs_and_switching_back_trains_nothing(snakemake_run):
    """The issue's case: `dvc exp run -S` on a grid's thinning. The runs table follows params only when
    regenerated, so the experiment stops, naming the fix; then it trains the new runs' jobs and nothing else.
    `dvc exp show` and `dvc metrics diff` compare scores; going back to the baseline retrains nothing. In the
    Snakemake run's checkout, once DVC knows its results (as after test_nothing_to_do_...): so it runs while
    `dvc repro` of the other checkout finishes."""
    root, env, _ = snakemake_run
    dvc_takes_over(root, env)
    sh(["git", "add", "-A"], root, env)
    sh(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "baseline"], root, env)
    before = {name for name in JobTables.of(yaml.safe_load((root / "params.yaml").read_text())).jobs}
    proc = subprocess.run(["dvc", "exp", "run", "-S", "grid_thinning.offline.margin=[0.8]"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert "python -m paraphrastic grids --write workflow/runs.yaml" in proc.stdout + proc.stderr
    sh([sys.executable, "-m", "paraphrastic", "grids", "--write", "workflow/runs.yaml"], root, env)
    out = sh(["dvc", "exp", "run"], root, env)
    jobs = JobTables.of(yaml.safe_load((root / "params.yaml").read_text())).jobs
    new = sorted(f"train@{name}" for name in set(jobs) - before)
    assert len(new) == 4 and trained(out) == new
    def columns(*view: str) -> list[str]:
        return sh(["dvc", "exp", "show", "--csv", *view], root, env).splitlines()[0].split(",")

    changed = columns("--only-changed")  # the README's views
    assert {"grid_thinning.offline.margin", "t-lstmavg-reg.test"} <= set(changed) and len(changed) < 60, changed
    scores = columns("--drop", r"^(?!Experiment$|.*\.test$)")
    assert scores[0] == "Experiment" and "t-lstmavg-reg.test" in scores and len(scores) < 30, scores
    diff = sh(["dvc", "metrics", "diff", "--json"], root, env)
    compared = json.loads(diff)["data/report/metrics.json"]
    assert "t-lstmavg-reg.test" in compared and not [k for k in compared if "second" in k]
    sh(["git", "reset", "-q", "--hard"], root, env)  # back to the baseline
    sh(["dvc", "checkout"], root, env)
    assert "up to date" in sh(["dvc", "status"], root, env)
    assert trained(sh(["dvc", "repro"], root, env)) == []
    # the experiment's models are gone from the workspace too: the engines' comparison (test_dvc_repro_produces_...,
    # after this test) finds the same files in both checkouts
    assert not [p for name in set(jobs) - before for p in (root / "data/models" / jobs[name]["run"]).rglob("*")
                if p.is_file()]


def test_after_a_code_move_touch_and_dvc_commit_keep_every_result(snakemake_run):
    """The README's recipe for an existing checkout after a change that only moves code: both engines see the
    moved files as changed code deps of every stage that runs them; `snakemake --touch`, and DVC's code listings
    written again before `dvc commit --force`, mark the existing results current, where a plain rerun would retrain.
    (Runs last: it moves a module of this module's scratch checkout.)"""
    root, env, _ = snakemake_run
    dvc_takes_over(root, env)  # DVC knows the results (as after test_nothing_to_do_...)
    src = root / "src/paraphrastic"
    (src / "data/batching.py").rename(src / "data/padding.py")
    for path in src.rglob("*.py"):
        text = path.read_text()
        if "paraphrastic.data.batching" in text:
            path.write_text(text.replace("paraphrastic.data.batching", "paraphrastic.data.padding"))
    sh([sys.executable, "-m", "paraphrastic", "dvc-yaml", "--write", "dvc.yaml"], root, env)
    metrics = (root / "data/report/metrics.json").read_bytes()
    assert "rule train:" in sh([*SNAKEMAKE, "-n"], root, env)  # without the recipe: retrain
    assert "src/paraphrastic/data/padding.py" in (root / "dvc.yaml").read_text()
    assert "up to date" not in sh(["dvc", "status"], root, env)
    sh([*SNAKEMAKE, "--touch"], root, env)
    dvc_takes_over(root, env)
    assert "src/paraphrastic/data/padding.py" in (root / "data/code/train.sha256").read_text()
    assert "Nothing to be done" in sh([*SNAKEMAKE, "-n"], root, env)
    assert "up to date" in sh(["dvc", "status"], root, env)
    assert (root / "data/report/metrics.json").read_bytes() == metrics


# The tests of the `dvc repro` run come last: until they need it, it goes on beside the tests of the Snakemake run.


def test_dvc_repro_produces_the_same_artifacts_and_metrics(snakemake_run, dvc_run):
    snake_root, dvc_root = snakemake_run[0], dvc_run[0]
    assert (dvc_root / "dvc.lock").exists()
    snake, dvc = artifacts(snake_root), artifacts(dvc_root)
    # DVC's own two stages: check_params (Snakemake checks while it parses) and code_digests (Snakemake takes a digest)
    dvc_only = {"config/checked.json", *(f"code/{name}.sha256" for name in STAGES)}
    assert sorted(set(snake) - dvc_only) == sorted(set(dvc) - dvc_only)
    for name in snake:
        if name.startswith("results/") or name == "report/metrics.json":
            a, b = json.loads(snake[name].read_text()), json.loads(dvc[name].read_text())
            assert without_timings(a) == without_timings(b), name
        elif name.endswith(".parquet") or name.startswith("vocab/"):
            assert snake[name].read_bytes() == dvc[name].read_bytes(), name
    status = sh(["dvc", "status"], dvc_root, dvc_run[1])
    assert "up to date" in status
    assert "Stage 'train@lstm-simpwiki.seed1' didn't change" in sh(["dvc", "repro"], dvc_root, dvc_run[1])
    assert_every_artifact_is_a_dvc_output(dvc_root, dvc_run[1])


def test_dvc_metrics_and_plots_show(dvc_run):
    """One metrics file, the report's scores; each job's per-epoch history is a plot."""
    root, env, _ = dvc_run
    metrics = json.loads(sh(["dvc", "metrics", "show", "--json"], root, env))
    files = next(iter(metrics.values()))["data"]
    assert list(files) == ["data/report/metrics.json"]
    assert files["data/report/metrics.json"]["data"]["t-lstmavg-reg"]["seeds"] == 2
    out = sh(["dvc", "plots", "show", "-o", "plots"], root, env)
    page = (root / "plots" / "index.html").read_text()
    assert "file://" in out or "index.html" in out
    assert "data/models/lstm-simpwiki/seed1/history.csv" in page and "selection_pearson" in page


def test_checkpoints_are_no_dvc_output_so_a_checkout_retrains_nothing(dvc_run):
    """The jobs' checkpoint folders are their own scratch: after a switch of experiments (`dvc checkout`, which
    cannot restore what DVC does not cache) `dvc status` stays clean and `dvc repro` trains nothing."""
    root, env, _ = dvc_run
    checkpoints = sorted((root / "data/checkpoints").glob("*/seed*"))
    assert checkpoints and all((c / "last.pt").is_file() for c in checkpoints)
    lock = yaml.safe_load((root / "dvc.lock").read_text())["stages"]
    assert not [o["path"] for stage in lock.values() for o in stage.get("outs", []) if "checkpoints" in o["path"]]
    shutil.rmtree(checkpoints[0])
    sh(["dvc", "checkout", "--relink"], root, env)
    assert "up to date" in sh(["dvc", "status"], root, env)
    assert re.findall(r"Running stage '([^']+)'", sh(["dvc", "repro"], root, env)) == []


@pytest.mark.fault("DVC")
def test_invalid_params_stop_dvc_repro_before_any_output_is_removed(dvc_run):
    """`dvc repro` removes a changed stage's outputs before running its command: an invalid params.yaml must stop
    at dvc.yaml's first stage, with every result of the last good run still in place."""
    root, env, _ = dvc_run
    params, runs = root / "params.yaml", root / "workflow/runs.yaml"
    original, original_runs = params.read_text(), runs.read_text()
    results = {p: p.read_bytes() for p in (root / "data").rglob("*")
               if p.is_file() and "checkpoints" not in p.parts and p.parent.name != "config"}
    config = yaml.safe_load(original)
    spoiled = {
        "train.margin: -1": (dict(config, train=dict(config["train"], margin=-1)), "margin: -1 is less than"),
        "an error-analysis row that is not one": (
            dict(config, error_analysis=dict(config["error_analysis"], rows={"avg": "nope", "lstmavg": "nope"})),
            "error_analysis.rows.avg: no experiment or grid row named 'nope'"),
        "an experiment added without regenerating workflow/runs.yaml": (
            dict(config, experiments=dict(config["experiments"], new={"model": "avg", "train_set": "ppdb",
                                                                      "epochs": 1})),
            "workflow/runs.yaml is stale"),
    }
    try:
        for what, (bad, message) in spoiled.items():
            params.write_text(yaml.safe_dump(bad, sort_keys=False))
            proc = subprocess.run(["dvc", "repro"], cwd=root, env=env, capture_output=True, text=True, timeout=600)
            assert proc.returncode != 0 and message in proc.stdout + proc.stderr, (what, proc.stdout, proc.stderr)
            changed = [str(p) for p, data in results.items() if not p.is_file() or p.read_bytes() != data]
            assert not changed, (what, changed[:5])
    finally:
        params.write_text(original)
        runs.write_text(original_runs)
    out = sh(["dvc", "repro"], root, env)  # the restored params are checked again; nothing else reruns
    assert re.findall(r"Running stage '([^']+)'", out) in ([], ["check_params"]) and "'fetch' didn't change" in out
    assert "up to date" in sh(["dvc", "status"], root, env)
