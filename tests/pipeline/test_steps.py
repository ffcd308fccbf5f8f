"""The stage steps' own logic: what fetch fetches, and the supervised tables (on the offline mirror)."""

from pathlib import Path

import pandas as pd
import yaml

from paraphrastic.experiments import config
from paraphrastic.pipeline.steps import prepare_supervised
from paraphrastic.pipeline.steps.fetch import required_raw_files

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


def test_prepare_supervised_writes_both_tasks_with_their_splits(mirror, tmp_path):
    c = config.load(REPO / "params.test.yaml", SCHEMA)
    prepare_supervised.run(c, raw=mirror, out_dir=tmp_path)
    for task in ("sts", "sick"):
        frame = pd.read_parquet(tmp_path / f"{task}.parquet")
        assert frame["split"].value_counts().to_dict() == {"train": 120, "validation": 120, "test": 120}, task
    assert set(pd.read_parquet(tmp_path / "sts.parquet")["dataset"]) == {"sts12.MSRvid", "sts14.images"}
    assert (tmp_path / "stats.json").exists()
