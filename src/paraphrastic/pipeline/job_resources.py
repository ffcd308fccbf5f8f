"""What a job asks a cluster for (:data:`RULES`), and what an override gives, checked before any job is submitted.

Each rule declares the resources it needs in the workflow (workflow/rules/*.smk read :data:`RULES`: the training
rule's GPU, its partition, memory and time), not in a profile, so an override of one of them, on the command line
(``--set-resources train:slurm_partition=a100``) or in a site profile (``set-resources: {train: {runtime:
600}}``), replaces that one and keeps the others: Snakemake applies ``set-resources`` resource by resource over a
rule's own. What an override or ``default-resources`` gives is checked here, while the workflow parses, so a value
SLURM or the plugin would refuse (``slurm_partition: 7``) stops the run before anything is submitted, naming the
rule, the resource and the value. Resources this module does not know (a site's own) pass as they are.
"""

from __future__ import annotations

from collections.abc import Mapping

# Each rule's request, by rule (a rule not named asks for the profile's `default-resources`). Snakemake's local
# scheduler limits only what `--resources` names, so a plain `snakemake --cores 8` runs these jobs as they are; a job
# prints them among its resources. A training job without a GPU is asked for only as `--set-resources train:gpu=0`
# (with a CPU partition and a longer `runtime`, see below).
#
# GPU requests go through the SLURM plugin's `gpu` resource (it builds --gpus itself; GPU flags in slurm_extra are
# rejected). CPUs follow each rule's threads (params.yaml `threads`, the torch threads a job uses) as
# --cpus-per-task: a training job runs one process, so more CPUs would sit idle. The amounts follow what the
# full-size rehearsal measured (benchmarks/rehearsal.py, docs/cluster.md "The paper profile at full scale"): a
# transfer job peaked at 2.0 GB (the token-matched PPDB table; CUDA's libraries add host memory, hence 6 GB). On one
# H200 the slowest transfer job takes about 4 minutes (benchmarks/results/rehearsal_gpu.json), so an hour covers a GPU
# several times slower; a job stopped at its limit resumes from its checkpoint when retried. On a CPU partition (one
# thread) the slowest takes about 1.5 h: raise `runtime` if you send `train` there. Supervised jobs train on ~4,500
# pairs for 10 epochs: minutes on one CPU thread at d=300 (docs/cluster.md's plan gives their time and measured peak),
# so they stay on the CPU partition rather than queue for a GPU; their runtime, and the scoring jobs', covers a group
# of 4 run in series (the workflow profile's `groups`). Scoring a d=300 model on the 27 sets: 24 s and 1.3 GB.
# all-MiniLM-L6-v2 over every corpus word, then a PCA: 62,126 words offline took 92 s of CPU on one thread and
# peaked at 1.2 GB (the paper profile's vocabulary is of the same order). Stanza's trainers: hours on a CPU.
RULES: dict[str, dict[str, int | str]] = {
    "distill": {"mem_mb": 2500, "runtime": 60},
    "train": {"slurm_partition": "gpu", "gpu": 1, "mem_mb": 6000, "runtime": 60},
    "evaluate": {"mem_mb": 3000, "runtime": 30},
    "baseline": {"mem_mb": 3000, "runtime": 30},
    "baseline_distilled": {"mem_mb": 3000, "runtime": 30},
    "train_supervised": {"mem_mb": 2500, "runtime": 90},
    "train_universal": {"mem_mb": 2500, "runtime": 90},
    "train_siamese": {"mem_mb": 4000, "runtime": 60},
    "train_pwim": {"mem_mb": 6000, "runtime": 240},
    "stanza_models": {"mem_mb": 8000, "runtime": 240},
    "stanza_models_compared": {"mem_mb": 8000, "runtime": 240},
}

# Resources whose value is a count or an amount: at least this much
AT_LEAST = {"mem_mb": 1, "mem_mib": 1, "disk_mb": 1, "disk_mib": 1, "runtime": 1, "cpus_per_task": 1,
            "tasks": 1, "nodes": 1, "gpu": 0}
# Resources whose value is a name SLURM looks up
NAMES = ("slurm_partition", "slurm_account", "qos", "constraint", "gpu_model", "slurm_extra")


def problems(settings: Mapping[str, Mapping[str, object]]) -> list[str]:
    """One line per value that is not what its resource takes, for ``settings``: where they come from (e.g.
    ``--set-resources train`` or ``--default-resources``) -> resource -> value (a callable, which Snakemake
    evaluates per job, is not checked)."""
    found = []
    for where, values in settings.items():
        for name, value in values.items():
            if callable(value) or value is None:
                continue
            if name in AT_LEAST:
                least = AT_LEAST[name]
                if isinstance(value, bool) or not isinstance(value, int | float) or value < least:
                    found.append(f"{where}: {name}={value!r} is not a number of at least {least}")
            elif name in NAMES and (not isinstance(value, str) or not value.strip()):
                found.append(f"{where}: {name}={value!r} is not a name (a non-empty string)")
    return found
