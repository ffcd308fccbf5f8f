"""check-params: dvc.yaml's first stage. `dvc repro` removes a changed stage's outputs before it runs the stage's
command, so an invalid params.yaml (or a workflow/runs.yaml not regenerated after an edit of the grids) must stop
it before any other stage starts (Snakemake checks the same while it parses)."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.atomic import write_json
from paraphrastic.configuration.check import check
from paraphrastic.errors import PipelineError
from paraphrastic.pipeline.dvc import runs_file

# The same whatever the (valid) params: only the check's success is recorded, so a valid change to params.yaml
# reruns exactly the stages whose own params changed, as without this stage.
CHECKED = {"checked": "params.yaml: its schema, every job's settings, every row a key names, workflow/runs.yaml"}


def run(config: dict, *, runs, out) -> None:
    tables = check(config)
    if Path(runs).read_text(encoding="utf-8") != runs_file(config, tables):
        raise PipelineError(f"{runs} is stale: it does not list the runs params.yaml expands to; regenerate it with "
                            f"`python -m paraphrastic grids --write {runs}`")
    write_json(out, CHECKED)
    print(f"params valid: {len(tables.jobs)} transfer, {len(tables.supervised_jobs)} supervised, "
          f"{len(tables.siamese_jobs)} Siamese CBOW and {len(tables.pwim_jobs)} PWIM jobs")
