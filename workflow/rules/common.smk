# Helpers shared by the rule files: where things come from, which files a job reads.
import json

from paraphrastic.stages import code_paths  # noqa: E402


def mirror_inputs(wildcards=None):
    """Mirror files the fetch rule copies, so editing the mirror reruns it."""
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


def settings_of(*keys):
    """A config slice as a rule param: Snakemake's params trigger reruns a job when it changes."""
    return json.dumps({k: pconfig.profile(config) if k == "profile" else config[k] for k in keys}, sort_keys=True)


def train_set_path(wildcards):
    return pconfig.TRAIN_SETS[RUN_TABLE[wildcards.experiment]["train_set"]]
