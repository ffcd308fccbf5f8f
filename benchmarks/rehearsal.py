"""A full-scale rehearsal of the paper profile, by simulation: python benchmarks/rehearsal.py [--scale S]

No upstream host can be reached from where this project is built, so the paper profile's data path
is rehearsed against stand-ins. This script

1. writes every upstream file the paper profile fetches, in its exact format and archive layout, at
   the paper's sizes times ``--scale``: ``sentence-aligned.v2.tar.gz`` (167,689 aligned
   ``title<TAB>paragraph<TAB>sentence`` pairs, text resampled from the mirror's SimpWiki slices),
   ``acl2017-demo.zip`` (a 3,033,753-line ``ppdb-XL-ordered-data.txt`` resampled from the mirror's
   PPDB phrases, and a 300-d ``paragram_sl999_small.txt`` of random vectors for every word of the
   corpora and evaluation sets, with trailing spaces, latin-1 words and a few malformed lines), and
   the STS/SICK/PIT archives and GitHub files, built from the mirror's byte-identical copies (their
   sha256 is pinned, so nothing else would verify);
2. serves them from a loopback HTTP server at the manifest's URL paths
   (``$PARAPHRASTIC_UPSTREAM_BASE``; the manifest's real URLs are unchanged);
3. runs the unmodified paper profile's stage commands, as the rules run them, with no mirror:
   ``fetch`` -> ``prepare_eval`` -> ``prepare_train`` -> ``match`` -> ``vocab`` (and ``prepare_supervised``),
   then one ``train`` job per model family at d=300 for ``--batches`` batches (an added experiment per
   family, with ``max_pairs`` = batches x batch size and one epoch) and one on the token-matched PPDB
   sample (the largest table), ``evaluate`` for the last family's model, and a supervised GRAN job on
   SICK for one epoch of its whole splits (``--supervised-batches`` bounds it instead), measuring each
   command's wall time and peak memory (the child's maximum resident set size) and each training job's
   own speed;
4. checks what came out against what was generated: every pair and every injected malformed line
   accounted for, in the stats JSON the stages write.

Writes ``<results>/rehearsal.json`` and ``rehearsal.md`` (default: benchmarks/results/). The
generated data lives under ``--work`` (default: a temporary folder), never in the repository.
tests/test_rehearsal.py runs it at a small scale in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from measured import commit, publish  # noqa: E402
from upstream_server import UpstreamServer  # noqa: E402

from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.configuration.jobs import JobTables, vocab_dir  # noqa: E402
from paraphrastic.data import readers  # noqa: E402
from paraphrastic.data.corpus import build_eval_table  # noqa: E402
from paraphrastic.data.datasets import EVAL_SETS  # noqa: E402
from paraphrastic.data.fetch import DownloadCache, load_manifest  # noqa: E402
from paraphrastic.data.tokenize import tokenize  # noqa: E402
from paraphrastic.pipeline.graph import STAGES  # noqa: E402
from paraphrastic.pipeline.steps.fetch import required_raw_files  # noqa: E402

PAPER_SIMPWIKI_PAIRS = 167_689  # sentence-aligned.v2 (Kauchak 2013); the paper trains on all of them
PPDB_XL_LINES = 3_033_753  # lines of ppdb-XL-ordered-data.txt in acl2017-demo.zip
DIM = 300  # PARAGRAM-SL999
FAMILIES = ("avg", "lstm", "lstmavg", "gran", "bilstmavg", "bigran")
DATA_STAGES = ("fetch", "prepare_eval", "prepare_train", "match", "vocab", "prepare_supervised")
SUPERVISED = ("gran", "sick")  # the supervised job timed: a model and a task


# ---- the upstream files ---------------------------------------------------------------------------------

def _mirror_sentences(mirror: Path) -> list[tuple[str, str]]:
    pairs = readers.read_aligned_pairs(mirror / "simpwiki/v2-validation/validation-normal",
                                       mirror / "simpwiki/v2-validation/validation-simple")
    return [(p.s1, p.s2) for p in pairs]


def _mirror_phrases(mirror: Path) -> list[tuple[str, str]]:
    return [(p.s1, p.s2) for p in readers.read_ppdb(mirror / "ppdb-human-labels/ppdb-sample.tsv")]


def write_simpwiki(folder: Path, count: int, mirror: Path, rng: np.random.Generator) -> dict:
    """The v2 release's two aligned files; a few lines lack the title/paragraph fields and a few pairs
    have an empty side (lines the authors' reader takes or leaves without failing, as ours must)."""
    source = _mirror_sentences(mirror)
    picks = rng.integers(0, len(source), count)
    short = set(rng.choice(count, size=max(1, count // 20_000), replace=False).tolist())
    empty = set(rng.choice(sorted(set(range(count)) - short), size=max(1, count // 40_000), replace=False).tolist())
    with open(folder / "normal.aligned", "w", encoding="utf-8") as normal, \
            open(folder / "simple.aligned", "w", encoding="utf-8") as simple:
        for i, pick in enumerate(picks):
            first, second = source[pick]
            if i in empty:
                second = ""
            prefix = "" if i in short else f"Article {i // 25}\t{i % 25}\t"
            normal.write(f"{prefix}{first}\n")
            simple.write(f"Article {i // 25}\t{i % 25}\t{second}\n")
    return {"lines": count, "pairs": count - len(empty),
            "skipped": {"without 3 fields (the last one read)": len(short), "empty (pair skipped)": len(empty)}}


def write_ppdb(path: Path, count: int, mirror: Path, rng: np.random.Generator) -> dict:
    """``phrase<TAB>paraphrase`` lines; a few blank, one-field and three-field lines among them."""
    source = _mirror_phrases(mirror)
    bad = max(1, count // 500_000)
    kinds = {"blank": bad, "with 1 fields, not 2": bad, "with 3 fields, not 2": bad}
    malformed = ["\n"] * bad + ["lonely phrase\n"] * bad + ["a\tb\tc\n"] * bad
    at = dict(zip(rng.choice(count, size=len(malformed), replace=False).tolist(), malformed, strict=True))
    picks = rng.integers(0, len(source), count)
    with open(path, "w", encoding="utf-8") as out:
        for i, pick in enumerate(picks):
            if i in at:
                out.write(at[i])
            else:
                a, b = source[pick]
                out.write(f"{a}\t{b}\n")
    return {"lines": count, "pairs": count - len(malformed), "skipped": kinds}


def corpus_words(*paths: Path) -> set[str]:
    words: set[str] = set()
    for path in paths:
        for _, line in readers.iter_lines(path):
            for field in line.split("\t")[-2:]:
                words.update(tokenize(field, pretokenized=True))
    return words


def write_vectors(path: Path, words: list[str], rng: np.random.Generator) -> dict:
    """No header, ``word v1 ... v300`` with a trailing space; words with latin-1 characters written in
    latin-1 (as PARAGRAM's file has them), three blank lines, a stray byte in an unused word, and one
    corpus word given twice."""
    latin1 = 0
    with open(path, "wb") as out:
        for i, word in enumerate([*words, "the"]):
            values = rng.normal(0.0, 0.3, DIM).astype(np.float32)
            encoded = word.encode("utf-8")
            if not word.isascii():
                try:
                    candidate = word.encode("latin-1")
                    candidate.decode("utf-8")
                except UnicodeEncodeError:
                    pass
                except UnicodeDecodeError:
                    encoded, latin1 = candidate, latin1 + 1
            out.write(encoded + b" " + " ".join(f"{v:.6f}" for v in values).encode() + b" \n")
            if i in (10, 20, 30):
                out.write(b"\n")
        out.write(b"\xff\xfeunused " + b" ".join(b"0.0" for _ in range(DIM)) + b" \n")
    return {"words": len(words), "skipped": {"blank": 3, "repeating a word (its last vector kept)": 1,
                                             "with a word not in UTF-8 (read as latin-1)": latin1 + 1}}


def build_upstream(root: Path, scale: float, mirror: Path, *, seed: int = 0) -> dict:
    """Every file the paper profile fetches, under ``root/<host>/<path>`` as the manifest's URLs name them."""
    rng = np.random.default_rng(seed)
    config = paper_config(REPO / "params.yaml")
    manifest = load_manifest(REPO / "workflow/sources.yaml")
    made = root.parent / "generated"
    (made / "sentence-aligned.v2").mkdir(parents=True, exist_ok=True)
    record = {"simpwiki": write_simpwiki(made / "sentence-aligned.v2", round(PAPER_SIMPWIKI_PAIRS * scale), mirror,
                                         rng),
              "ppdb": write_ppdb(made / "ppdb-XL-ordered-data.txt", round(PPDB_XL_LINES * scale), mirror, rng)}
    (made / "sentence-aligned.v2/README").write_bytes((mirror / "simpwiki/v2-validation/DATAINFO").read_bytes())
    words = corpus_words(made / "sentence-aligned.v2/normal.aligned", made / "sentence-aligned.v2/simple.aligned",
                         made / "ppdb-XL-ordered-data.txt")
    evaluation = build_eval_table(EVAL_SETS, mirror)
    words.update(w for column in ("tokens1", "tokens2") for tokens in evaluation[column] for w in tokens)
    record["vectors"] = write_vectors(made / "paragram_sl999_small.txt", sorted(words), rng)
    local = {"simpwiki/v2/normal.aligned": made / "sentence-aligned.v2/normal.aligned",
             "simpwiki/v2/simple.aligned": made / "sentence-aligned.v2/simple.aligned",
             "ppdb/ppdb-XL-ordered-data.txt": made / "ppdb-XL-ordered-data.txt",
             "embeddings/paragram_sl999_small.txt": made / "paragram_sl999_small.txt"}
    archives: dict[str, dict[str, Path | bytes]] = defaultdict(dict)
    for name in required_raw_files(config):
        entry = manifest[name]
        if name in local:
            body: Path | bytes = local[name]
        elif entry.get("mirror"):
            body = (mirror / entry["mirror"]).read_bytes()
        elif name == "ud-english-ewt/en_ewt-ud-train.conllu":  # the mirror holds its gzip
            body = gzip.decompress((mirror / "ud-english-ewt/en_ewt-ud-train.conllu.gz").read_bytes())
        else:
            raise SystemExit(f"no stand-in for {name}")
        if entry.get("member"):
            archives[entry["url"]][entry["member"]] = body
        else:
            _put(root, entry["url"], body)
    archives[manifest["simpwiki/v2/normal.aligned"]["url"]]["sentence-aligned.v2/README"] = \
        made / "sentence-aligned.v2/README"
    for url, members in archives.items():
        _put(root, url, _archive(url, members, made))
    record["upstream_bytes"] = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    return record


def _put(root: Path, url: str, body: Path | bytes) -> None:
    target = DownloadCache(root).path(url)  # <host>/<path>: the layout the fetcher's cache and the server share
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(body, Path):
        shutil.move(body, target)
    else:
        target.write_bytes(body)


def _archive(url: str, members: dict[str, Path | bytes], scratch: Path) -> Path:
    path = scratch / url.rsplit("/", 1)[1]
    if url.endswith(".tar.gz"):
        with tarfile.open(path, "w:gz") as tar:
            for name, body in members.items():
                if isinstance(body, Path):
                    tar.add(body, arcname=name)
                else:
                    info = tarfile.TarInfo(name)
                    info.size = len(body)
                    tar.addfile(info, io.BytesIO(body))
    else:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, body in members.items():
                zf.write(body, name) if isinstance(body, Path) else zf.writestr(name, body)
    return path


# ---- the rehearsal -----------------------------------------------------------------------------------

def paper_config(params: Path) -> dict:
    config = cfg.load(params, REPO / cfg.DEFAULT_SCHEMA)
    config["data_profile"] = "paper"
    return config


def write_params(work: Path, batches: int, families: tuple[str, ...], eval_sets,
                 supervised_batches: int | None = None) -> dict:
    """params.yaml, unchanged but for the profile, no mirror, one bounded experiment per family, and
    supervised jobs of one epoch: over the tasks' whole splits, as a real job's epoch (its speed past the first
    steps' one-time costs, its scoring of the full validation and test splits), or of ``supervised_batches``
    batches per split."""
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params.update(data_profile="paper", mirror=None)
    batch = params["train"]["batch_size"]
    params["experiments"] = {f"rehearsal-{family}": {"model": family, "train_set": "simpwiki", "epochs": 1,
                                                     "max_pairs": batches * batch} for family in families}
    # the largest training table (the token-matched PPDB sample: millions of short pairs) for its memory
    params["experiments"]["rehearsal-ppdb"] = {"model": families[0], "train_set": "ppdb_matched", "epochs": 1,
                                               "max_pairs": batches * batch}
    if supervised_batches is not None:
        params["supervised"]["max_pairs"] = supervised_batches * params["supervised"]["train"]["batch_size"]
    params["supervised"]["train"]["epochs"] = 1
    if eval_sets is not None:
        params["evaluation"]["sets"] = eval_sets
    (work / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return params


def supervised_job(config: dict, model: str, task: str) -> dict:
    """The first supervised job (not universal) of ``model`` on ``task``, as the stage command's placeholders."""
    tables = JobTables.of(config)
    for job in tables.supervised_jobs_of(universal=False).values():
        if job["task"] == task and tables.supervised_runs[job["run"]]["model"] == model:
            return {"run": job["run"], "task": task, "seed": job["seed"]}
    raise SystemExit(f"the paper profile has no supervised {model} job on {task}")


def job_folder(stage: str, job: dict) -> Path:
    return Path(STAGES[stage].outs["model"].path.format(**job)).parent


def training_speed(folder: Path) -> dict:
    """A training job's own account: pairs per second of training and the seconds spent on everything else
    (loading, scoring each epoch), so a full-length job's time can be extrapolated."""
    history = json.loads((folder / "history.json").read_text())
    info = json.loads((folder / "train.json").read_text())
    return {"pairs_per_second": round(history[0]["pairs_per_second"], 1),
            "other_s": round(info["wall_seconds_this_call"] - info["train_seconds_total"], 1)}


def measure(command: list[str], cwd: Path, env: dict, log: Path) -> dict:
    """Wall time and the child's peak resident set size (its own, from wait4, not the whole process tree's)."""
    start = time.perf_counter()
    with open(log, "ab") as out:
        child = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(command)} failed ({code}); see {log}:\n{log.read_text()[-3000:]}")
    return {"wall_s": round(wall, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}


def rehearse(work: Path, *, scale: float, batches: int, families: tuple[str, ...], mirror: Path,
             eval_sets=None, threads: int = 1, supervised_batches: int | None = None) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    upstream, run = work / "upstream", work / "run"
    started = time.perf_counter()
    generated = build_upstream(upstream, scale, mirror)
    generate_s = time.perf_counter() - started
    run.mkdir(exist_ok=True)
    if not (run / "workflow").exists():
        (run / "workflow").symlink_to(REPO / "workflow")
    params = write_params(run, batches, families, eval_sets, supervised_batches)
    log = work / "rehearsal.log"
    rows = []
    with UpstreamServer(upstream) as server:
        env = dict(os.environ, PARAPHRASTIC_MIRROR="", PARAPHRASTIC_UPSTREAM_BASE=server.base,
                   PYTHONPATH=str(REPO / "src"))
        for name in DATA_STAGES:
            command = [sys.executable, "-m", "paraphrastic", *STAGES[name].command.split()]
            rows.append({"stage": name} | measure(command, run, env, log))
        for experiment in params["experiments"]:
            settings = params["experiments"][experiment]
            job = {"run": experiment, "seed": params["seed"], "threads": threads,
                   "vocab_dir": vocab_dir(settings.get("word_vectors", "pretrained"))}
            words = STAGES["train"].command.format(**job).split()
            rows.append({"stage": f"train ({settings['model']} on {settings['train_set']}, d={DIM}, {batches} batches)",
                         "model": settings["model"], "train_set": settings["train_set"]}
                        | measure([sys.executable, "-m", "paraphrastic", *words], run, env, log)
                        | training_speed(run / job_folder("train", job)))
        job = {"run": f"rehearsal-{families[-1]}", "seed": params["seed"], "threads": threads,
               "vocab_dir": vocab_dir("pretrained")}
        words = STAGES["evaluate"].command.format(**job).split()  # scoring the last family's model
        rows.append({"stage": f"evaluate ({families[-1]}, d={DIM})"}
                    | measure([sys.executable, "-m", "paraphrastic", *words], run, env, log))
        supervised = supervised_job(paper_config(run / "params.yaml"), *SUPERVISED) | {"threads": threads}
        words = STAGES["train_supervised"].command.format(**supervised).split()
        measured = measure([sys.executable, "-m", "paraphrastic", *words], run, env, log)
        folder = run / job_folder("train_supervised", supervised)
        pairs = json.loads((folder / "train.json").read_text())["train_pairs"]
        steps = math.ceil(pairs / params["supervised"]["train"]["batch_size"])
        rows.append({"stage": f"train_supervised ({' on '.join(SUPERVISED)}, d={DIM}, {steps} batches)",
                     "model": SUPERVISED[0]} | measured | training_speed(folder))
    return {"scale": scale, "batches": batches, "supervised_batches": supervised_batches, "commit": commit(),
            "generate_s": round(generate_s, 1), "generated": generated,
            "stages": rows, "checks": check(run, generated), "machine": f"{platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}", "device": trained_on(run)}


def trained_on(run: Path) -> str:
    """Where the training jobs ran, as their train.json files say (the stages choose CUDA when present)."""
    devices = sorted({json.loads(p.read_text())["device"] for p in (run / "data").rglob("train.json")})
    if any(d.startswith("cuda") for d in devices):
        import torch  # only here: the rehearsal itself needs no torch

        return f"{', '.join(devices)}: {torch.cuda.get_device_name()} (torch {torch.__version__})"
    return ", ".join(devices)


def check(run: Path, generated: dict) -> dict:
    """What the stages report against what was generated; a mismatch stops the rehearsal."""
    stats = json.loads((run / "data/corpus/train_stats.json").read_text())
    coverage = json.loads((run / "data/vocab/coverage.json").read_text())
    match = json.loads((run / "data/corpus/match_summary.json").read_text())
    found = {"simpwiki pairs": (stats["simpwiki"]["pairs"], generated["simpwiki"]["pairs"]),
             "simpwiki skipped": (stats["simpwiki"]["skipped_lines"]["by_kind"], generated["simpwiki"]["skipped"]),
             "ppdb pairs": (stats["ppdb"]["pairs"], generated["ppdb"]["pairs"]),
             "ppdb skipped": (stats["ppdb"]["skipped_lines"]["by_kind"], generated["ppdb"]["skipped"]),
             "vector lines skipped": (coverage["skipped_lines"]["by_kind"], generated["vectors"]["skipped"]),
             "vector dim": (coverage["dim"], DIM)}
    wrong = {k: v for k, v in found.items() if v[0] != v[1]}
    if wrong:
        raise SystemExit(f"the stages disagree with the generated data: {wrong}")
    return {"simpwiki_pairs": stats["simpwiki"]["pairs"], "ppdb_pairs": stats["ppdb"]["pairs"],
            "simpwiki_tokens": stats["simpwiki"]["tokens"], "ppdb_tokens": stats["ppdb"]["tokens"],
            "match_direction": match["direction"], "ppdb_matched_pairs": match["matched"]["ppdb"]["pairs"],
            "ppdb_matched_tokens": match["matched"]["ppdb"]["tokens"],
            "simpwiki_matched_tokens": match["matched"]["simpwiki"]["tokens"],
            "vocabulary": coverage["words"], "skipped_lines_as_generated": True}


def markdown(result: dict) -> str:
    g = result["generated"]
    lines = [f"Paper-profile rehearsal at scale {result['scale']} ({g['simpwiki']['lines']:,} SimpWiki pairs, "
             f"{g['ppdb']['lines']:,} PPDB lines, {g['vectors']['words']:,} 300-d vectors; "
             f"{g['upstream_bytes'] / 2**20:,.0f} MiB served), "
             + (f"commit {result['commit']}, " if result.get("commit") else "")
             + f"{result['machine']}, training on "
             f"{result.get('device', 'cpu')}. Generating the files took "
             f"{result['generate_s']:,.0f} s.", "",
             "| stage | wall (s) | CPU (s) | peak memory (MiB) |", "|---|---:|---:|---:|"]
    lines += [f"| {r['stage']} | {r['wall_s']:,.1f} | {r['cpu_s']:,.1f} | {r['peak_rss_mb']:,.0f} |"
              for r in result["stages"]]
    c = result["checks"]
    lines += ["", f"Read back: {c['simpwiki_pairs']:,} SimpWiki pairs ({c['simpwiki_tokens']:,} tokens), "
              f"{c['ppdb_pairs']:,} PPDB pairs ({c['ppdb_tokens']:,} tokens), token-matched PPDB sample "
              f"{c['ppdb_matched_pairs']:,} pairs, vocabulary {c['vocabulary']:,} words; every generated pair and "
              "malformed line accounted for."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the paper's sizes (default: 1)")
    parser.add_argument("--batches", type=int, default=20, help="training batches per family (default: 20)")
    parser.add_argument("--supervised-batches", type=int,
                        help="batches of the supervised job (default: one epoch of its task's whole splits)")
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), help="models to train (default: %(default)s)")
    parser.add_argument("--mirror", type=Path, default=REPO.parent / "shared" / "data",
                        help="the offline mirror the stand-ins are resampled from")
    parser.add_argument("--work", type=Path, help="where the files and the run go (default: a temporary folder)")
    parser.add_argument("--results", type=Path, default=HERE / "results", help="where NAME.{json,md} go")
    parser.add_argument("--name", default="rehearsal",
                        help="the results' file name (default: rehearsal; the GPU node's run: rehearsal_gpu)")
    parser.add_argument("--eval-sets", nargs="+", help="evaluation sets (default: params.yaml's)")
    args = parser.parse_args(argv)
    mirror = Path(os.environ.get("PARAPHRASTIC_MIRROR") or args.mirror)
    with tempfile.TemporaryDirectory() if args.work is None else contextlib.nullcontext(args.work) as work:
        result = rehearse(Path(work), scale=args.scale, batches=args.batches, families=tuple(args.families),
                          supervised_batches=args.supervised_batches,
                          mirror=mirror, eval_sets=args.eval_sets)
    args.results.mkdir(parents=True, exist_ok=True)
    publish(args.results / args.name, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
