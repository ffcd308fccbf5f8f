"""Shared fixtures: the data mirror and a tiny synthetic workspace (vocab, corpora, eval sets)."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paraphrastic.configuration.settings import TransferSettings
from paraphrastic.data import vocab as vocab_mod
from paraphrastic.data.corpus import EVAL_SCHEMA, TRAIN_SCHEMA, write_table

REPO = Path(__file__).resolve().parents[1]

# Each DVC command reports itself to DVC's analytics server from a detached process of its own, which offline (as in
# CI) leaves its report file in the temp folder: the suite's DVC commands, and the pipelines they start, send none.
os.environ.setdefault("DVC_NO_ANALYTICS", "1")


def mirror_path() -> Path:
    return Path(os.environ.get("PARAPHRASTIC_MIRROR", REPO.parent / "shared" / "data")).resolve()


@pytest.fixture(scope="session")
def mirror() -> Path:
    path = mirror_path()
    if not (path / "sts").is_dir():
        # CI sets PARAPHRASTIC_REQUIRE_MIRROR=1: there a missing mirror is a failure, not a skip.
        if os.environ.get("PARAPHRASTIC_REQUIRE_MIRROR") == "1":
            pytest.fail(f"offline data mirror not found at {path}")
        pytest.skip(f"offline data mirror not found at {path}")
    return path


@contextlib.contextmanager
def scratch_folder(request, tmp_path_factory, name: str) -> Iterator[Path]:
    """A folder for a module-scoped fixture's scratch run, removed when the module's tests are done unless one of
    them failed (or the fixture itself raised): each integration run writes 0.5-1 GB (checkpoints, the DVC
    cache), pyproject's tmp_path_retention_policy only removes tmp_path folders, and the suite must fit a fresh
    machine's disk."""
    failed = request.session.testsfailed
    folder = tmp_path_factory.mktemp(name)
    yield folder
    if request.session.testsfailed == failed:
        shutil.rmtree(folder, ignore_errors=True)


WORDS = ("the a man woman dog cat is are playing runs eating sleeping guitar piano food bed "
         "quickly slowly red blue big small house car tree sun moon").split()


def synthetic_pairs(rng: np.random.Generator, count: int) -> list[tuple[list[str], list[str]]]:
    pairs = []
    for _ in range(count):
        first = list(rng.choice(WORDS, size=rng.integers(2, 9)))
        second = [w for w in first if rng.random() > 0.2] or first[:1]
        if rng.random() < 0.3:
            second = second + [str(rng.choice(WORDS))]
        pairs.append((first, second))
    return pairs


@pytest.fixture
def workspace(tmp_path) -> dict:
    """A vocabulary (8-d random vectors), a 64-pair training table and two 24-pair eval sets."""
    rng = np.random.default_rng(0)
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("".join(f"{w} " + " ".join(f"{v:.4f}" for v in rng.normal(size=8)) + "\n" for w in WORDS))
    pairs = synthetic_pairs(rng, 64)
    train = pd.DataFrame({"source": [f"synthetic:{i}" for i in range(len(pairs))],
                          "s1": [" ".join(a) for a, _ in pairs], "s2": [" ".join(b) for _, b in pairs],
                          "tokens1": [a for a, _ in pairs], "tokens2": [b for _, b in pairs]})
    train["n_tokens"] = train["tokens1"].map(len) + train["tokens2"].map(len)
    write_table(train, TRAIN_SCHEMA, tmp_path / "train.parquet")
    rows = []
    for dataset, group in (("sts12.MSRvid", "STS 2012"), ("sts16.headlines", "STS 2016")):
        for i, (a, b) in enumerate(synthetic_pairs(rng, 24)):
            rows.append({"dataset": dataset, "group": group, "line": i + 1, "s1": " ".join(a), "s2": " ".join(b),
                         "score": float(rng.uniform(0, 5)), "tokens1": a, "tokens2": b})
    write_table(pd.DataFrame(rows), EVAL_SCHEMA, tmp_path / "eval.parquet")
    vocab, matrix = vocab_mod.build([p for pair in pairs for p in pair] + [["unseen", "man"]], vectors)
    vocab.save(tmp_path / "vocab" / "vocab.txt")
    vocab_mod.save_matrix(tmp_path / "vocab" / "embeddings.npy", matrix)
    return {"root": tmp_path, "train": tmp_path / "train.parquet", "eval": tmp_path / "eval.parquet",
            "vocab_dir": tmp_path / "vocab", "vectors": vectors}


def settings(**overrides) -> TransferSettings:
    base = {"name": "toy", "model": "avg", "train_set": "simpwiki", "epochs": 2, "batch_size": 16,
            "learning_rate": 0.01, "margin": 0.4, "lambda_w": 0.0, "lambda_c": 0.0, "hidden_dim": None, "seed": 3,
            # the epoch mechanics most tests check; tests/training/test_transfer.py checks the quarters (the default)
            "evaluate_every": "epoch"}
    return TransferSettings(**{**base, **overrides})


# tests/test_fault_table.py: the number of test cases of each fault category, written where this names.
FAULT_COUNTS = "PARAPHRASTIC_FAULT_COUNTS"


def pytest_collection_finish(session):
    path = os.environ.get(FAULT_COUNTS)
    if path:
        import collections
        import json

        counts = collections.Counter(m.args[0] for item in session.items for m in item.iter_markers("fault"))
        Path(path).write_text(json.dumps(counts, sort_keys=True))


# The suite's time budget: scripts/test.sh sets it (seconds) when it runs the whole suite, as CI does. A run that
# passes but takes longer, its environment's set-up included (PARAPHRASTIC_SETUP_S), fails here at its end, long
# before the suite nears CI's own limit; what it measured goes to PARAPHRASTIC_TEST_RECORD (a JSON file) when that
# is set. Not a timed unit test: only the whole run's wall time is judged, with the slowest tests listed
# (pyproject's --durations) to say where it went.
TEST_BUDGET = "PARAPHRASTIC_TEST_BUDGET_S"
TEST_RECORD = "PARAPHRASTIC_TEST_RECORD"
SETUP_SECONDS = "PARAPHRASTIC_SETUP_S"  # scripts/test.sh: the seconds its environment set-up took
_SESSION_START = "paraphrastic_session_start"  # (monotonic clock, the machine's CPU seconds)


_MEASURED = "paraphrastic_session_measured"  # (set-up s, tests s, over budget), once the session has ended


def machine_cpu_seconds() -> float | None:
    """The CPU time every process of this machine has used since it booted (user, nice and system, all cores;
    /proc/stat), or None where that cannot be read: the suite is CPU-bound, and its jobs run outside pytest's own
    processes (SLURM's, a background `dvc repro`)."""
    try:
        with open("/proc/stat") as stat:
            user, nice, system = (int(v) for v in stat.readline().split()[1:4])
        return (user + nice + system) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, AttributeError):
        return None


def pytest_sessionstart(session):
    import time

    setattr(session.config, _SESSION_START, (time.monotonic(), machine_cpu_seconds()))


def _head_commit() -> str | None:
    """The checkout's commit (short), for the suite's record; None outside git."""
    import subprocess

    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True,
                              text=True, check=True).stdout.strip() or None
    except (OSError, subprocess.CalledProcessError):
        return None


def pytest_sessionfinish(session, exitstatus):
    import json
    import platform
    import time

    budget, record = os.environ.get(TEST_BUDGET), os.environ.get(TEST_RECORD)
    # judged once, by pytest-xdist's controller, and never for a run that only collects (a test's subprocess)
    if not (budget or record) or hasattr(session.config, "workerinput") or session.config.option.collectonly:
        return
    setup = float(os.environ.get(SETUP_SECONDS) or 0)
    started, cpu_started = getattr(session.config, _SESSION_START)
    seconds = time.monotonic() - started
    cpu_now = machine_cpu_seconds()
    cpu = None if cpu_started is None or cpu_now is None else cpu_now - cpu_started
    over = bool(budget) and setup + seconds > float(budget)
    setattr(session.config, _MEASURED, (setup, seconds, over))  # for the terminal summary, which comes after
    if record:
        reports = session.config.pluginmanager.get_plugin("terminalreporter").stats
        durations = sorted(((r.duration, r.nodeid, r.when) for kind in reports.values() for r in kind
                            if hasattr(r, "duration") and hasattr(r, "when")), reverse=True)  # setups too
        Path(record).write_text(json.dumps({
            "commit": _head_commit(),
            "seconds": round(setup + seconds, 1), "setup_s": round(setup, 1), "tests_s": round(seconds, 1),
            "budget_s": float(budget) if budget else None, "over_budget": over,
            "tests_cpu_s": None if cpu is None else round(cpu, 1),
            "tests": session.testscollected, "failed": session.testsfailed, "cpus": os.cpu_count(),
            "machine": platform.machine(), "python": platform.python_version(),
            "slowest": [{"test": nodeid, "phase": when, "seconds": round(d, 1)} for d, nodeid, when in durations[:15]],
        }, indent=1) + "\n")
    if over and exitstatus == 0:  # (a run that failed already says so)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(trylast=True)  # after the slowest tests
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    budget = os.environ.get(TEST_BUDGET)
    if budget and hasattr(config, _MEASURED):
        setup, seconds, over = getattr(config, _MEASURED)
        terminalreporter.write_line(f"test suite: {setup + seconds:.1f} s of wall time (set-up {setup:.0f} s, tests "
                                    f"{seconds:.1f} s), {'OVER' if over else 'within'} its budget of {budget} s "
                                    f"({TEST_BUDGET}; the slowest tests are listed above)", red=over, bold=True)


# scripts/test.sh runs the whole suite on two pytest-xdist workers, a file to a worker (`--dist loadfile`), in
# collection order: the two longest files go first, one to each worker, and the others fill in beside them.
LONGEST_FIRST = ("tests/integration/test_pipeline.py", "tests/integration/test_slurm.py")


def pytest_collection_modifyitems(session, config, items):
    if hasattr(config, "workerinput"):  # a worker's collection: the order the controller hands out files in
        rank = {path: place for place, path in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def tiny_bert(folder: Path, pieces: list[str], *, hidden: int, intermediate: int, positions: int) -> Path:
    """A 1-layer BERT over ``pieces`` (seeded), saved with its WordPiece tokenizer: all-MiniLM-L6-v2's stand-in
    (sentence-transformers loads the folder with mean pooling)."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    # the vocabulary as a dict: transformers 5 ignores vocab_file= (every word would be [UNK])
    tokenizer = transformers.BertTokenizerFast(vocab={piece: i for i, piece in enumerate(pieces)}, do_lower_case=True)
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=len(pieces), hidden_size=hidden, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=intermediate,
                                     max_position_embeddings=positions)
    transformers.BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
