"""universal-init: the transfer model a universal supervised row starts from (Table 8), chosen once per ``init``
row and recorded with each seed's model.pt sha256, the record universal jobs depend on."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.atomic import write_json
from paraphrastic.evaluation.selection import universal_init_record


def run(config: dict, *, row, data_dir, out) -> None:
    record = universal_init_record(config, Path(data_dir), row)
    write_json(out, record)
    print(f"universal init row {row}: run {record['run']} (seeds {', '.join(record['models'])})")
