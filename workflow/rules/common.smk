# What the rule files share -- the library, the config as this invocation resolved it, every job table, and
# helpers that take a rule's inputs, outputs, params, log, benchmark, software environment and command from the
# one stage graph (src/paraphrastic/pipeline/graph.py, which also generates dvc.yaml). The functions live here,
# not beside the rules, as `snakemake --lint` asks. (Its check for that matches the text "rule", some words
# and a colon on one line, so no comment here may read that way.)
import json
import os
import re
import sys

import yaml
from snakemake.exceptions import WorkflowError

sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from paraphrastic.data.similarity_tasks import PWIM_TASKS, SUPERVISED_TASKS  # noqa: E402
from paraphrastic.configuration import params as params  # noqa: E402
from paraphrastic.configuration import settings as run_settings  # noqa: E402
from paraphrastic.configuration.grids import TWIN_VECTORS, distilled_twin  # noqa: E402
from paraphrastic.configuration.check import check as check_params  # noqa: E402
from paraphrastic.configuration.jobs import JobTables, vocab_dir  # noqa: E402
from paraphrastic.pipeline import job_resources  # noqa: E402
from paraphrastic.pipeline.graph import STAGES, code_digest  # noqa: E402
from paraphrastic.pipeline.steps.fetch import required_raw_files  # noqa: E402
from paraphrastic.data.fetch import missing_mirror  # noqa: E402

# Jobs read the config this invocation resolved (config files plus any --config overrides), so a rule and its
# job never disagree: a file named by the config's sha256 (a second invocation with another config writes
# another file), passed to the jobs in the environment. Not in the command itself: a changed command reruns
# every job (Snakemake's `code` trigger), and the params already rerun exactly the jobs a change affects.
# A cluster job parses the Snakefile again and inherits the submitting invocation's environment
# (the SLURM plugin submits with --export=ALL): if the config it resolves is not the one its invocation
# resolved (params.yaml edited during the run), it stops rather than train with other settings.
RESOLVED_PARAMS = params.write_resolved(config, ".snakemake/paraphrastic")
_submitted = os.environ.get(params.RESOLVED_ENV)
if workflow.remote_exec and _submitted and _submitted != str(RESOLVED_PARAMS):
    raise WorkflowError(f"this job's config ({RESOLVED_PARAMS}) is not the one its workflow resolved ({_submitted}): "
                        "params.yaml or a --configfile changed while the workflow ran; rerun snakemake")
os.environ[params.RESOLVED_ENV] = str(RESOLVED_PARAMS)
CLI = f'python -m paraphrastic --params "${params.RESOLVED_ENV}"'
# Jobs import this checkout's library, whichever Python runs them (this virtual environment, the conda
# environment below, a container): like the config, through the environment rather than the command, and
# so the conda environment need not install the package (a path to this checkout would not survive
# `snakemake --containerize`, which builds the environments inside an image). Set, not required, so no
# `envvars:` (--lint's check for that reads any `os.environ[...]` as a requirement).
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [str(Path(workflow.basedir) / "src"),
                                                           os.environ.get("PYTHONPATH")])))
# ... and run with the Python that runs Snakemake: its folder first on the jobs' PATH, so `python` in a rule's
# command is that interpreter whether or not its virtual environment is activated (`.venv/bin/snakemake` typed as it
# is). Not in the command itself, whose text would then change with the checkout's place and rerun every job
# (Snakemake's `code` trigger). An environment of --software-deployment-method is activated after this, and wins.
os.environ.update(PATH=os.pathsep.join(filter(None, [str(Path(sys.executable).parent), os.environ.get("PATH")])))

# Every job's software, for `--software-deployment-method conda` (and `conda apptainer`): the package's
# dependencies (pyproject.toml; tests/workflow/test_conventions.py keeps the two in step). Relative to
# workflow/rules/, where every rule is.
ENV = "../envs/paraphrastic.yaml"

# ---- every job, computed once per parse ------------------------------------------------------------------
# Every job's settings and every row a key names are checked before any job starts; a cluster job's own parse
# skips it (its workflow checked it, and it would cost seconds per job).
TABLES = JobTables.of(config) if workflow.remote_exec else check_params(config)


def _plain(values):
    """Resources as Snakemake holds them (Resource objects or plain values) -> name -> value; one Snakemake
    evaluates per job (an expression such as tmpdir's) -> None, which is not checked."""
    def plain(value):
        if hasattr(value, "is_evaluable"):
            return None if value.is_evaluable() else value.value
        return value

    return {name: plain(value) for name, value in (values or {}).items()}


# What `--set-resources` and `--default-resources` (command line or profiles) give, checked before any job is
# submitted: a value SLURM would refuse stops here, naming the rule and the resource.
if not workflow.remote_exec:
    _given = {f"set-resources {rule}": _plain(values)
              for rule, values in workflow.resource_settings.overwrite_resources.items()}
    _given["default-resources"] = _plain(workflow.resource_settings.default_resources)
    _problems = job_resources.problems(_given)
    if _problems:
        raise WorkflowError("job resources that a cluster would refuse (nothing was submitted):\n  "
                            + "\n  ".join(_problems))
GATE_JOBS = TABLES.row_jobs(config["gates"]["gran_row"], where="gates.gran_row")  # the analysed GRAN row's jobs
ERROR_JOBS = TABLES.row_jobs(*config["error_analysis"]["rows"].values(), where="error_analysis.rows")  # Table 7
# Table 4's rows and their twins on the distilled and sentence-distilled vectors, timed beside MiniLM
TABLE4_JOBS = TABLES.row_jobs(*config["report"]["table4"].values(), where="report.table4")
TABLE4_JOBS |= TABLES.row_jobs(*(distilled_twin(r, vectors) for r in config["report"]["table4"].values()
                                 for vectors in TWIN_VECTORS if distilled_twin(r, vectors) in TABLES.rows))


def _choice(names) -> str:
    return "|".join(re.escape(n) for n in names) or "^$"


wildcard_constraints:
    # one name for a run in every family: the folders a path starts with tell a transfer run from a supervised,
    # Siamese CBOW or PWIM one
    run=_choice(sorted({*TABLES.runs, *TABLES.supervised_runs, *TABLES.siamese_jobs,
                        *(j["run"] for j in TABLES.pwim_jobs.values())})),
    task=_choice(SUPERVISED_TASKS),
    pwim_task=_choice(PWIM_TASKS),
    init_row=_choice(TABLES.universal_inits),
    seed=r"\d+",


def mirror_inputs(wildcards=None):
    """Mirror files that fetch copies, so a changed mirror reruns it (Snakemake only: the mirror
    lies outside the repository, so DVC cannot track it; fetch verifies every sha256 anyway)."""
    mirror = params.mirror_dir(config)
    if mirror is None:
        return []
    if not mirror.is_dir():  # named once, not as each of its files missing
        raise WorkflowError(missing_mirror(mirror))
    with open("workflow/sources.yaml") as handle:
        manifest = yaml.safe_load(handle)["files"]
    return [str(mirror / manifest[f]["mirror"]) for f in required_raw_files(config) if manifest[f].get("mirror")]


# Placeholders of a dep that are no wildcard of its rule: the job's own training set and starting vectors, a universal
# run's init row.
JOB_PLACEHOLDERS = {"{train_set}": lambda w: {"train_set": TABLES.runs[w.run]["train_set"]},
                    "{vocab_dir}": lambda w: {"vocab_dir": vocab_dir(
                        TABLES.runs[w.run].get("word_vectors", "pretrained"))},
                    "{init_row}": lambda w: {"init_row": TABLES.supervised_runs[w.run]["init"]}}


def _job_dep(dep, placeholder):
    return lambda w: dep.format(**JOB_PLACEHOLDERS[placeholder](w))


# Folders other stages read are depended on, in Snakemake, through a file that stands for them: a
# file can be checksummed, while a folder's mtime changes whenever anything touches it. data/raw:
# fetch's record of every file it fetched (name, origin, sha256); data/stanza*/resources: the record
# of which models they are and their dev scores. data/models: the rule lists the files it reads.
STAND_INS = {"data/raw": "data/raw/FETCHED.json", "data/stanza/resources": "data/stanza/scores.json",
             "data/stanza_compared/resources": "data/stanza_compared/scores.json"}
LISTED_BY_RULE = {"data/models", "data/results", "data/gates", "data/supervised/models",
                  "data/supervised/universal", "data/error_analysis", "data/siamese/models", "data/pwim/models"}


# ... and data/raw's files too, each of them: a file edited by hand under data/raw (its fetch record untouched) then
# reruns the stages that read raw files, which stop naming it (data.fetch.verify_raw). An edit that keeps the size
# and sets the time back to the one fetch recorded passes Snakemake's and the stages' quick checks: `paraphrastic
# verify` hashes every file.
RAW_FILES = [f"data/raw/{name}" for name in required_raw_files(config)]


def stage_inputs(name):
    """The stage's data deps ({train_set} and {init_row} resolved per job; folders through their stand-ins)."""
    deps = []
    for dep in STAGES[name].deps:
        if dep not in LISTED_BY_RULE:
            deps += [STAND_INS[dep], *RAW_FILES] if dep == "data/raw" else [STAND_INS.get(dep, dep)]
    return [next((_job_dep(d, p) for p in JOB_PLACEHOLDERS if p in d), d) for d in deps]


def stage_outputs(name, reports=None):
    """The stage's named outputs, each flagged update(): Snakemake then neither deletes the last one before the
    job runs nor keeps a failed job's, but restores it and says so ("Restored previous version of ..."), so a
    rerun that stops at a bad input (a model changed in place, a foreign file) loses no good result. The stages
    write every output whole or not at all (a temporary renamed into place), so nothing is ever half-updated. Those
    named in `reports` also go into `snakemake --report`, with their report() arguments: a caption is a file name
    in workflow/report/."""
    reports = reports or {}
    if unknown := set(reports) - set(STAGES[name].outs):
        raise WorkflowError(f"stage {name} has no output {', '.join(sorted(unknown))} to put in the report")

    def output(key, path):
        if key not in reports:
            return update(path)
        kwargs = dict(reports[key])
        kwargs["caption"] = f"../report/{kwargs['caption']}"  # relative to workflow/rules/, like ENV
        return update(report(path, **kwargs))

    return {key: output(key, out.path) for key, out in STAGES[name].outs.items()}


def stage_output_paths(name):
    """The stage's outputs as another rule's inputs: their paths alone."""
    return [out.path for out in STAGES[name].outs.values()]


# A job's run settings, by the workflow/runs.yaml table its stage depends on (Stage.run_settings).
RUN_SETTINGS = {
    "runs": lambda w: run_settings.experiment(config, w.run, TABLES.runs, int(w.seed)),
    "supervised_runs": lambda w: run_settings.supervised_experiment(config, w.run, w.task, int(w.seed),
                                                                     TABLES.supervised_runs, transfer_rows=TABLES.rows),
    "siamese_runs": lambda w: run_settings.siamese_experiment(config, w.run),
    "pwim_runs": lambda w: run_settings.pwim_experiment(config, w.run, w.pwim_task),
}


def stage_params(name):
    """Rerun triggers: the params.yaml keys the stage reads, a digest of the source files it runs (its derived
    code deps: an edit reruns it, whatever the mtimes) and, per job, the run's settings. The code files are not
    inputs: ~35 of them for each of the paper profile's 9,629 jobs made its dry run 2 minutes longer."""
    stage = STAGES[name]
    values = {
        "settings": json.dumps({k: params.param_value(config, k) for k in stage.params}, sort_keys=True),
        "code_digest": code_digest(name, workflow.basedir),
    }
    if stage.run_settings:
        settings = RUN_SETTINGS[stage.run_settings.split(".")[0]]
        values["run"] = lambda w: json.dumps(settings(w).as_dict(), sort_keys=True)
    for param in _command_params(name):
        values[param] = lambda w, p=param: JOB_PLACEHOLDERS[f"{{{p}}}"](w)[p]
    return values


def stage_log(name):
    """logs/<rule>/<job>.log: the job's stdout and stderr (of its last attempt: Snakemake removes a job's log
    before it runs it again)."""
    job = ".".join("seed{seed}" if w == "seed" else f"{{{w}}}" for w in _wildcards(name))
    return f"logs/{name}/{job or name}.log"


def stage_benchmark(name):
    """logs/benchmarks/<rule>/<job>.tsv: the job's wall time, CPU time and peak memory (Snakemake's `benchmark:`),
    what to size the SLURM profile's `resources` by. Beside the logs, not in data/ (DVC's) nor in
    benchmarks/ (the library's own speed benchmarks, in git)."""
    return f"logs/benchmarks/{stage_log(name).removeprefix('logs/').removesuffix('.log')}.tsv"


def _wildcards(name):
    return list(dict.fromkeys(re.findall(r"\{(\w+)\}", " ".join(out.path for out in STAGES[name].outs.values()))))


def _command_params(name):
    """The command's placeholders that are neither wildcards of its job nor {threads} (job params)."""
    return [p for p in re.findall(r"\{(\w+)\}", STAGES[name].command) if p not in _wildcards(name) + ["threads"]]


def stage_threads(name):
    """The job's threads: its stage's threads key (`threads` unless the stage names another) where its command takes
    {threads}, else one."""
    stage = STAGES[name]
    return params.param_value(config, stage.threads) if "{threads}" in stage.command else 1


def stage_shell(name):
    command = STAGES[name].command
    for wildcard in _wildcards(name):
        command = command.replace(f"{{{wildcard}}}", f"{{wildcards.{wildcard}}}")
    for param in _command_params(name):  # a universal job's init row
        command = command.replace(f"{{{param}}}", f"{{params.{param}}}")
    # The output goes to the log and on to the job's own stdout: the terminal locally; under SLURM the job's
    # output file, one per attempt, so a preempted attempt's last words outlive the retry. tee ignores
    # SIGTERM (which SLURM sends every process of the job) and so passes on what the job says as it stops.
    return f"{CLI} {command} 2>&1 | (trap '' TERM; exec tee {{log}})"


def job_outputs(path, jobs):
    """A per-job path for each (run, seed), supervised (task, run, seed), Siamese CBOW (run) or PWIM (task,
    run) job."""
    return [path.format(run=j["run"],
                        task=j.get("task"), pwim_task=j.get("task"), seed=j.get("seed"))
            for j in jobs.values()]


def job_files(stage, jobs, keys=("history_json", "info", "model")):
    """The files of these jobs of a training stage that a later stage reads: histories and train.json
    choose a row's run, model.pt files are scored."""
    return [path for key in keys for path in job_outputs(STAGES[stage].outs[key].path, jobs)]


def universal_init_inputs(wildcards):
    """An init row's transfer jobs: their histories choose the run, its model.pt files are recorded."""
    return job_files("train", TABLES.row_jobs(wildcards.init_row))
