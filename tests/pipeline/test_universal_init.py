"""universal_init: the transfer model a universal row starts from, recorded once per row, so that a universal job
depends on the record rather than on every transfer model (a new grid point retrains no universal job)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from paraphrastic import provenance
from paraphrastic.configuration.jobs import JobTables
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.selection import universal_init_model, universal_init_record
from paraphrastic.pipeline.steps import train_universal, universal_init
from paraphrastic.provenance import write_result
from tests.report.conftest import transfer_files

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def models(tmp_path, monkeypatch) -> tuple[dict, Path]:
    """The tiny config's transfer jobs: histories (tests/report/conftest.py: a grid row selects its last run) and
    a distinct model.pt each."""
    monkeypatch.chdir(tmp_path)
    config = yaml.safe_load((REPO / "params.test.yaml").read_text())
    tables = JobTables.of(config)
    data = Path("data")
    transfer_files(data, tables)
    for key, job in tables.jobs.items():
        (data / "models" / job["run"] / f"seed{job['seed']}" / "model.pt").write_bytes(key.encode())
    return config, data


def test_the_record_names_the_rows_selected_run_and_each_seeds_model(models):
    config, data = models
    record = universal_init_record(config, data, "t-lstmavg-reg")
    runs = JobTables.of(config).rows["t-lstmavg-reg"]
    assert record["row"] == "t-lstmavg-reg" and record["run"] == sorted(runs)[-1]
    assert list(record["models"]) == ["1", "2"]
    assert record["models"]["2"]["path"] == f"data/models/{record['run']}/seed2/model.pt"
    assert universal_init_model(record, 2, "r.json") == Path(record["models"]["2"]["path"])
    assert universal_init_model(record, 7, "r.json") == Path(record["models"]["1"]["path"])  # no seed 7: the first


def test_another_rows_models_and_settings_leave_the_record_byte_identical(models, monkeypatch):
    """A new byte in the record would retrain every universal job: another row's models, and a config that differs
    elsewhere (another grid's thinning, which its stage reads), leave it as it was."""
    config, data = models
    out = data / "supervised" / "init" / "gran-simpwiki.json"
    monkeypatch.setattr(provenance, "_config_digest", [])  # this test's own: read_under sets it for the process
    provenance.read_under(config)
    universal_init.run(config, row="gran-simpwiki", data_dir=data, out=out)
    before = out.read_bytes()
    for path in (data / "models").glob("t-lstmavg-reg*/seed*/model.pt"):
        path.write_bytes(b"retrained")
    provenance.read_under({**config, "seed": config["seed"] + 1})
    universal_init.run(config, row="gran-simpwiki", data_dir=data, out=out)
    assert out.read_bytes() == before
    assert json.loads(before)["record"]["role"] == "supervised/init/gran-simpwiki.json"


def test_a_model_changed_since_the_record_stops_the_universal_job(models):
    config, data = models
    record = universal_init_record(config, data, "gran-simpwiki")
    Path(record["models"]["1"]["path"]).write_bytes(b"retrained")
    with pytest.raises(PipelineError, match=r"r\.json: .*model\.pt is missing or changed"):
        universal_init_model(record, 1, "r.json")


@pytest.mark.parametrize("content, message", [
    (b"", "not readable JSON"),
    (b'{"row": "gran-simpwiki", "models": {}}', "holds no record of what the pipeline wrote there"),
    ({"models": {}}, "not a record written by universal-init"),
    ({"row": "avg-ppdb", "run": "avg-ppdb", "models": {"1": {"path": "x", "sha256": "0"}}},
     "the record of row 'avg-ppdb', but run 's-gran-universal__"),
])
def test_a_universal_job_refuses_a_record_it_cannot_start_from(models, tmp_path, content, message):
    config, _ = models
    run = next(iter(JobTables.of(config).supervised_jobs_of(universal=True).values()))
    record = tmp_path / "record.json"
    if isinstance(content, bytes):
        record.write_bytes(content)
    else:
        write_result(record, content, stage="universal_init")
    with pytest.raises(PipelineError, match=message):
        train_universal.run(config, run_name=run["run"], task=run["task"], seed=run["seed"], init=record)
