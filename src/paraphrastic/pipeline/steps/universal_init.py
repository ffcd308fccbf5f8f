"""universal-init: the transfer model a universal supervised row starts from (Table 8), chosen once per ``init``
row and recorded with each seed's model.pt sha256, the record universal jobs depend on."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.evaluation.selection import universal_init_record
from paraphrastic.provenance import write_result


def run(config: dict, *, row, data_dir, out) -> None:
    record = universal_init_record(config, Path(data_dir), row)
    write_result(out, record, stage="universal_init", with_config=False)  # unchanged by another row's change
    print(f"universal init row {row}: run {record['run']} (seeds {', '.join(record['models'])})")
