# Helpers shared by the rule files. Every rule takes its inputs, outputs, params and command from
# the one stage graph in src/paraphrastic/pipeline/graph.py, which also generates dvc.yaml.
import json

from paraphrastic.experiments.config import param_value  # noqa: E402
from paraphrastic.pipeline.graph import STAGES, code_digest, code_paths  # noqa: E402


def mirror_inputs(wildcards=None):
    """Mirror files the fetch rule copies, so a changed mirror reruns it (Snakemake only: the mirror
    lies outside the repository, so DVC cannot track it; fetch verifies every sha256 anyway)."""
    import yaml

    mirror = pconfig.mirror_dir(config)
    if mirror is None:
        return []
    with open("workflow/sources.yaml") as handle:
        manifest = yaml.safe_load(handle)["files"]
    return [
        str(mirror / manifest[f]["mirror"])
        for f in pconfig.required_raw_files(config)
        if manifest[f].get("mirror")
    ]


def _job_train_set(dep):
    return lambda w: dep.format(train_set=RUN_TABLE[w.experiment]["train_set"])


# Folders other stages read are depended on, in Snakemake, through a file that stands for them: a
# file can be checksummed, while a folder's mtime changes whenever anything touches it. data/raw:
# fetch's record of every file it fetched (name, origin, sha256); data/stanza/resources: the record
# of which models they are and their dev scores. data/models: the rule lists the files it reads.
STAND_INS = {"data/raw": "data/raw/FETCHED.json", "data/stanza/resources": "data/stanza/scores.json"}
LISTED_BY_RULE = {"data/models", "data/results", "data/gates/analysis", "data/supervised/models",
                  "data/supervised/universal", "data/error_analysis", "data/siamese/models", "data/pwim/models"}


def stage_inputs(name):
    """The stage's data deps ({train_set} resolved per job; folders through their stand-ins)."""
    deps = [STAND_INS.get(d, d) for d in STAGES[name].deps if d not in LISTED_BY_RULE]
    return [_job_train_set(d) if "{train_set}" in d else d for d in deps]


def stage_outputs(name):
    return {key: out.path for key, out in STAGES[name].outs.items()}


# A job's run settings, by the workflow/runs.yaml table its stage depends on (Stage.run_settings).
RUN_SETTINGS = {
    "runs": lambda w: psettings.experiment(config, w.experiment, RUN_TABLE, int(w.seed)),
    "supervised_runs": lambda w: psettings.supervised_experiment(config, w.sup_run, w.task, int(w.seed), SUP_RUNS),
    "siamese_runs": lambda w: psettings.siamese_experiment(config, w.scbow_run),
    "pwim_runs": lambda w: psettings.pwim_experiment(config, w.pwim_run, w.pwim_task),
}


def stage_params(name):
    """Rerun triggers: the params.yaml keys the stage reads, a digest of its code (edits rerun it
    without relying on mtimes, see the profiles' rerun-triggers) and, per job, the run's settings."""
    stage = STAGES[name]
    params = {
        "settings": json.dumps({k: param_value(config, k) for k in stage.params}, sort_keys=True),
        "code_digest": code_digest(name, workflow.basedir),
    }
    if stage.run_settings:
        settings = RUN_SETTINGS[stage.run_settings.split(".")[0]]
        params["run"] = lambda w: json.dumps(settings(w), sort_keys=True)
    return params


def stage_shell(name):
    command = STAGES[name].command
    for wildcard in ("experiment", "sup_run", "task", "seed", "scbow_run", "pwim_run", "pwim_task"):
        command = command.replace(f"{{{wildcard}}}", f"{{wildcards.{wildcard}}}")
    return f"{CLI} {command}"


def job_outputs(path, jobs):
    """A per-job path for each (run, seed), supervised (task, run, seed), Siamese CBOW (run) or PWIM (task,
    run) job."""
    return [path.format(experiment=j["run"], sup_run=j["run"], scbow_run=j["run"], pwim_run=j["run"],
                        task=j.get("task"), pwim_task=j.get("task"), seed=j.get("seed"))
            for j in jobs.values()]
