# Paraphrastic sentence embeddings (Wieting & Gimpel, ACL 2017): data -> tokens -> train ->
# STS evaluation -> report. Every rule is a thin call into the `paraphrastic` library; dvc.yaml
# runs the same commands.
#
#   snakemake --cores 2                               # offline profile, params.yaml
#   snakemake --cores 2 --configfile params.test.yaml # the tiny test config
#   snakemake -n --config data_profile=paper          # the paper's data, from upstream URLs
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "params.yaml"


validate(config, "workflow/schemas/params.schema.yaml")

# Rules hand the same params file (and the data profile, which may be overridden on the command
# line) to the library, so a rule and a DVC stage read identical settings.
PARAMS_FILE = (workflow.overwrite_configfiles or ["params.yaml"])[-1]
CLI = f"python -m paraphrastic --params {PARAMS_FILE} --profile {config['data_profile']}"
EXPERIMENTS = list(config["experiments"])


wildcard_constraints:
    experiment="|".join(EXPERIMENTS),


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        "data/report/report.md",
        "data/report/report.html",
