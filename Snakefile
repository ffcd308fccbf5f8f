# Paraphrastic sentence embeddings (Wieting & Gimpel, ACL 2017): data -> tokens -> train ->
# STS evaluation -> report. Every rule is a thin call into the `paraphrastic` library; dvc.yaml
# runs the same commands.
#
#   snakemake --profile workflow/profiles/default                     # offline data, params.yaml
#   snakemake --profile workflow/profiles/default --configfile params.test.yaml   # the tiny config
#   snakemake --cores 8 --profile workflow/profiles/slurm             # on a SLURM cluster
#   snakemake -n --config data_profile=paper                          # the paper's data (upstream URLs)
# The stage graph (commands, inputs, outputs, params) is src/paraphrastic/pipeline/graph.py, which also
# generates dvc.yaml.
import re
import sys

import yaml
from snakemake.utils import min_version, validate

sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from paraphrastic.experiments import config as pconfig  # noqa: E402
from paraphrastic.experiments import grids as pgrids  # noqa: E402
from paraphrastic.experiments import jobs as pjobs  # noqa: E402
from paraphrastic.experiments import settings as psettings  # noqa: E402
from paraphrastic.atomic import write_text  # noqa: E402

min_version("9.18")  # checksums of updated inputs (idempotence after `dvc checkout`)


# `--configfile X` replaces params.yaml rather than being merged into it, so that
# `--configfile params.test.yaml` means exactly the tiny config.
if not workflow.overwrite_configfiles:

    configfile: "params.yaml"


validate(config, "workflow/schemas/params.schema.yaml")

# Jobs read the config Snakemake resolved (config files plus any --config overrides), so a rule and
# its job never disagree. Rewritten only when it changes, so its mtime triggers nothing.
RESOLVED_PARAMS = Path(".snakemake/paraphrastic/params.yaml")


_resolved = yaml.safe_dump(config, sort_keys=False)
if not RESOLVED_PARAMS.exists() or RESOLVED_PARAMS.read_text() != _resolved:
    write_text(RESOLVED_PARAMS, _resolved)
CLI = f"python -m paraphrastic --params {RESOLVED_PARAMS}"
RUN_TABLE, ROWS = pgrids.expand(config)  # every training run (experiments + grid points), and each row's runs
JOBS = pjobs.jobs(config, RUN_TABLE)  # every training job: a run and one of its seeds
EXPERIMENT_JOBS = {k: j for k, j in JOBS.items() if j["run"] in config["experiments"]}  # also `evaluate`d
GATE_JOBS = {k: j for k, j in JOBS.items() if j["run"] in ROWS.get(config["gates"]["gran_row"], [])}
ERROR_JOBS = {k: j for k, j in JOBS.items()
              if any(j["run"] in ROWS.get(row, []) for row in config["error_analysis"]["rows"].values())}
TABLE4_JOBS = {k: j for k, j in JOBS.items()
               if any(j["run"] in ROWS.get(row, []) for row in config["report"]["table4"].values())}
SUP_RUNS, SUP_ROWS = pgrids.expand_supervised(config)  # supervised runs (Sec. 4.3) and each row's runs
SUP_JOBS = pjobs.supervised_jobs(config, SUP_RUNS)  # each run on each task, once per seed
SIAMESE_JOBS = pjobs.siamese_jobs(config)  # Siamese CBOW runs (issue 8)
PWIM_JOBS = pjobs.pwim_jobs(config)  # PWIM runs on their tasks (issue 8)


wildcard_constraints:
    experiment="|".join(re.escape(r) for r in RUN_TABLE) or "^$",
    sup_run="|".join(re.escape(r) for r in SUP_RUNS) or "^$",
    task="sts|sick",
    scbow_run="|".join(re.escape(r) for r in SIAMESE_JOBS) or "^$",
    pwim_run="|".join(re.escape(j["run"]) for j in PWIM_JOBS.values()) or "^$",
    pwim_task="sick|msrvid|sts2014",
    seed=r"\d+",


# On a cluster these run on the submit host: compute nodes often have no internet (fetch), and
# the report is seconds of work.
localrules:
    all,
    fetch,
    report,


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/gates.smk"
include: "workflow/rules/supervised.smk"
include: "workflow/rules/seed_systems.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        "data/report/report.md",
        "data/report/report.html",
