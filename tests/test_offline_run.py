"""pages/offline_run.py copies a finished offline run's report into docs/offline/, and pages/readme.py
writes the README's headline table and the docs' result sections from it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "pages"))

import offline_run  # noqa: E402
import readme  # noqa: E402

REPORT = """# Paraphrastic sentence embeddings

**Contents**

- [Table 2](#table-2)
  - [Per set](#per-set)

Intro.

## Table 2: regularization (22-set mean)

| model | ours |
|---|---|
| LSTMavg | 58.7 |

### Per set

![Learning curves](learning_curves.png)

## Findings from this run

- avg ≤ LSTMavg: holds.
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def run(tmp_path):
    """A finished run's working directory: a git checkout with the committed params.yaml and a report."""
    root = tmp_path / "run"
    report = root / "data" / "report"
    report.mkdir(parents=True)
    shutil.copyfile(REPO / "params.yaml", root / "params.yaml")
    (report / "report.md").write_text(REPORT)
    (report / "learning_curves.png").write_bytes(b"\x89PNG")
    (report / "unused.png").write_bytes(b"\x89PNG")
    metrics = {"reference_encoder": {"all-MiniLM-L6-v2": {"transfer_pearson": 75.35, "mteb_sts_spearman": 78.59},
                                     "avg": {"transfer_pearson": 44.6},
                                     "avg, distilled": {"transfer_pearson": 66.37, "mteb_sts_spearman": 70.5}}}
    (report / "metrics.json").write_text(json.dumps(metrics))
    speeds = {"all-MiniLM-L6-v2": 172.0, "avg": 39250.0, "avg, distilled": 35000.0}
    (report / "timings.json").write_text(json.dumps({"reference_encoder_sentences_per_second": speeds}))
    (report / "runs.csv").write_text("row,run\n")
    git(root, "init", "-q")
    git(root, "add", "params.yaml")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "run")
    return root


def test_a_run_is_copied_with_the_figures_its_report_shows_and_without_its_contents_list(run, tmp_path):
    out = tmp_path / "offline"
    out.mkdir()
    (out / "old_figure.png").write_bytes(b"")  # a figure the new report no longer shows goes
    record = offline_run.copy_run(run, out, check=False)
    assert sorted(p.name for p in out.iterdir()) == ["learning_curves.png", "metrics.json", "params.yaml", "report.md",
                                                     "run.json", "runs.csv", "timings.json"]
    assert yaml.safe_load((out / "params.yaml").read_text()) == yaml.safe_load((run / "params.yaml").read_text())
    assert "**Contents**" not in (out / "report.md").read_text() and "[Table 2](#table-2)" not in (
        out / "report.md").read_text()
    assert (out / "report.md").read_text().startswith("# Paraphrastic sentence embeddings\n\nIntro.")
    assert json.loads((out / "run.json").read_text()) == record and len(record["commit"]) >= 7


def test_a_run_of_other_params_or_with_edited_code_is_refused(run, tmp_path):
    (run / "params.yaml").write_text((REPO / "params.yaml").read_text() + "\n# edited\n")
    with pytest.raises(SystemExit, match=r"params\.yaml differs from"):
        offline_run.copy_run(run, tmp_path / "offline", check=False)
    shutil.copyfile(REPO / "params.yaml", run / "params.yaml")
    (run / "Snakefile").write_text("")
    git(run, "add", "Snakefile")  # staged, not committed: the run's code is not its commit's
    with pytest.raises(SystemExit, match="tracked files differ from commit"):
        offline_run.copy_run(run, tmp_path / "offline", check=False)
    assert not (tmp_path / "offline").exists()


def test_a_run_is_checked_whole_by_its_own_environments_snakemake(run, monkeypatch):
    # this environment's library may be later code than the run's commit, so it is the run's .venv that is asked
    python = run / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text('#!/bin/sh\necho "$@" > "$(dirname "$0")/asked"\necho "Nothing to be done."\n')
    python.chmod(0o755)
    offline_run.check_whole(run)
    assert (python.parent / "asked").read_text().split() == ["-m", "snakemake", "--cores", "1", "--dry-run"]
    python.write_text('#!/bin/sh\necho "2 jobs"\n')
    with pytest.raises(SystemExit, match="the run is not whole"):
        offline_run.check_whole(run)
    # a run made with `--config extended=True` is whole when that override has nothing left to do
    python.write_text('#!/bin/sh\necho "$@" > "$(dirname "$0")/asked"\necho "Nothing to be done."\n')
    offline_run.check_whole(run, extended=True)
    assert (python.parent / "asked").read_text().split()[-2:] == ["--config", "extended=True"]
    # a run named by a path relative to where the command is typed (`pages/offline_run.py work/offline`)
    monkeypatch.chdir(run.parent)
    offline_run.check_whole(Path(run.name))


def test_the_pages_take_what_the_default_run_leaves_out_from_the_last_extended_run(run, tmp_path, monkeypatch):
    """`offline_run.py RUN --extended` writes OUT/extended/; the headline adds its encoders the default run lacks,
    marked and dated, and an `extended report:` block shows its section, or says the run above is that run."""
    out = tmp_path / "docs" / "offline"
    offline_run.copy_run(run, out, check=False)
    monkeypatch.setattr(readme, "OFFLINE", out)
    shutil.copytree(out, out / "extended")  # the same run, copied as the extended one: nothing is added
    name = f"{readme.EXTENDED_SECTION}Table 2"
    page = f"<!-- {name} -->\n<!-- /{name} -->\n"
    text, _ = readme.filled(page, tmp_path / "docs" / "results.md")
    assert "The offline run above is the last run that made the recurrent rows' twins" in text
    assert "†" not in readme.headline()
    report = run / "data" / "report"
    metrics = json.loads((report / "metrics.json").read_text())
    metrics["reference_encoder"]["gran, distilled"] = {"transfer_pearson": 68.21}
    (report / "metrics.json").write_text(json.dumps(metrics))
    timings = json.loads((report / "timings.json").read_text())
    timings["reference_encoder_sentences_per_second"] = {"all-MiniLM-L6-v2": 100.0, "gran, distilled": 900.0}
    (report / "timings.json").write_text(json.dumps(timings))
    (report / "report.md").write_text(REPORT.replace("| LSTMavg | 58.7 |", "| GRAN, distilled | 68.2 |"))
    git(run, "commit", "-q", "--allow-empty", "-m", "later")
    with pytest.raises(SystemExit):  # only the check with the override says the run made what `extended` adds
        offline_run.main([str(run), "--out", str(out), "--extended", "--no-check"])
    monkeypatch.setattr(offline_run, "check_whole", lambda run, extended=False: asked.append(extended))
    asked: list[bool] = []
    offline_run.main([str(run), "--out", str(out), "--extended"])
    record = json.loads((out / "extended" / "run.json").read_text())
    assert asked == [True] and record["extended"] and (out / "extended" / "report.md").is_file()
    headline = readme.headline()
    row = next(line for line in headline.splitlines() if line.startswith("| gran, distilled †"))
    assert [c.strip() for c in row.split("|")[2:-1]] == ["68.2", "–", "–", "900", "9×"]  # its own run's MiniLM speed
    named = (f"rom the last run that made the recurrent rows' twins and the parser comparison (`extended: true`), at "
             f"commit {record['commit']}")
    assert f"† F{named}" in headline
    text, _ = readme.filled(page, tmp_path / "docs" / "results.md")
    assert f"F{named}" in text
    assert ("### Table 2: regularization (22-set mean)\n\n| model | ours |\n|---|---|\n| GRAN, distilled | 68.2 |"
            in text)
    assert "![Learning curves](offline/extended/learning_curves.png)" in text


def test_the_headline_puts_the_papers_table_4_mean_beside_ours_and_speeds_against_minilm(run, tmp_path,
                                                                                         monkeypatch):
    out = tmp_path / "offline"
    offline_run.copy_run(run, out, check=False)
    monkeypatch.setattr(readme, "OFFLINE", out)
    lines = readme.headline().splitlines()
    assert [c.strip() for c in lines[0].split("|")[1:-1]] == ["encoder", "22 sets (r)", "paper (r)",
                                                              "MTEB STS12–16 (ρ)", "sentences/s", "× all-MiniLM-L6-v2"]
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]] for line in lines[2:5]}
    paper_avg = f"{readme.paper_means()['avg']:.1f}"  # the paper's Table 4, mean of its 22 sets
    assert rows == {"all-MiniLM-L6-v2": ["75.3", "–", "78.6", "172", "1×"],
                    "avg": ["44.6", paper_avg, "–", "39,250", "228×"],
                    "avg, distilled": ["66.4", "–", "70.5", "35,000", "203×"]}
    assert "![Accuracy against speed](docs/offline/accuracy_speed.png)" in lines[-1]


def test_the_pages_name_each_setting_params_yaml_has_changed_since_the_run(run, tmp_path, monkeypatch):
    out = tmp_path / "offline"
    record = offline_run.copy_run(run, out, check=False)
    monkeypatch.setattr(readme, "OFFLINE", out)
    assert readme.changed_settings() == ""
    assert readme.offline_run_settings().startswith(f"The offline run at commit {record['commit']} read today's")
    assert "Since" not in readme.headline()
    config = (out / "params.yaml").read_text()
    config = config.replace("  match_seed: 1\n", "  match_seed: 7\n", 1).replace("  reading: authors\n", "", 1)
    (out / "params.yaml").write_text(config + "\nretired: {setting: [1, 2]}\n")  # a section today's file dropped
    since = readme.changed_settings()
    assert since.startswith(f"Since the offline run at commit {record['commit']}, params.yaml has changed 3 settings")
    assert since.endswith(": `data`: `match_seed` `7` → `1`, `reading` unset → `authors`; "
                          "`retired`: `setting` `[1, 2]` → unset.")
    assert since in readme.headline() and readme.offline_run_settings() == since + "\n"


def test_a_report_section_is_one_level_down_with_its_figures_beside_the_page(run, tmp_path, monkeypatch):
    out = tmp_path / "docs" / "offline"
    offline_run.copy_run(run, out, check=False)
    monkeypatch.setattr(readme, "OFFLINE", out)
    section = readme.report_section("Table 2", tmp_path / "docs" / "results.md")
    assert section.startswith("### Table 2: regularization (22-set mean)\n\n| model | ours |")
    assert "#### Per set\n\n![Learning curves](offline/learning_curves.png)" in section
    assert "Findings" not in section
    with pytest.raises(SystemExit, match="0 headings start with 'Table 9'"):
        readme.report_section("Table 9", tmp_path / "docs" / "results.md")
    name = f"{readme.SECTION}Findings from this run"
    page = f"Before.\n\n<!-- {name} -->\n<!-- /{name} -->\n"
    text, changed = readme.filled(page, tmp_path / "docs" / "results.md")
    assert changed == [name]
    assert "### Findings from this run\n\n- avg ≤ LSTMavg: holds.\n<!-- /" in text


def test_dvc_metrics_show_prints_the_committed_offline_runs_metrics():
    """The README's command: `dvc metrics show docs/offline/metrics.json` (no dvc.yaml entry needed)."""
    dvc = shutil.which("dvc")
    if dvc is None:
        pytest.skip("dvc is not installed")
    shown = subprocess.run([dvc, "metrics", "show", "--json", "docs/offline/metrics.json"], cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    files = next(iter(json.loads(shown.stdout).values()))["data"]
    assert files["docs/offline/metrics.json"]["data"] == json.loads((readme.OFFLINE / "metrics.json").read_text())
