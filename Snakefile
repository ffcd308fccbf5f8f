# Paraphrastic sentence embeddings (Wieting & Gimpel, ACL 2017), end to end: data -> tokens -> training ->
# STS evaluation -> analyses -> report. Every rule is a thin call into the `paraphrastic` library; its
# inputs, outputs, params and command come from the one stage graph (src/paraphrastic/pipeline/graph.py),
# which also generates dvc.yaml. Each job's stdout and stderr go to logs/<rule>/<job>.log, its wall time and peak
# memory to logs/benchmarks/<rule>/<job>.tsv.
#
#   snakemake --cores 8                                   # offline data, params.yaml (profiles/default is read too)
#   snakemake --cores 8 --configfile params.test.yaml     # the tiny config
#   snakemake --cores 8 --profile slurm                   # on a SLURM cluster (./slurm -> profiles/slurm)
#   snakemake -n --config data_profile=paper                          # the paper's data (upstream URLs)
#   snakemake --report report.html                                    # after a run: results, runtimes, rule graph
#   snakemake --lint                                                  # no findings (tests/workflow/)
from snakemake.utils import min_version, validate

min_version("9.18")  # checksums of updated inputs (idempotence after `dvc checkout`)


# `--configfile X` replaces params.yaml rather than being merged into it, so that
# `--configfile params.test.yaml` means exactly the tiny config.
if not workflow.overwrite_configfiles:

    configfile: "params.yaml"


# Snakemake's YAML loader keeps the last of a key given twice; the library's stops, naming both lines.
from paraphrastic.configuration import params as _params

for _configfile in workflow.configfiles:
    _params.read_yaml(_configfile)

# The library's check first, one line per problem naming its key; Snakemake's `validate` after it (which fills
# nothing in: the schema has no defaults) would print the whole schema after the first problem.
_params.validate(config, source=f"the config ({', '.join(map(str, workflow.configfiles)) or 'params.yaml'} "
                 "with any --config overrides)")
validate(config, "workflow/schemas/params.schema.yaml")


# Software: every rule names the conda environment workflow/envs/paraphrastic.yaml (ENV, in common.smk),
# used with `--software-deployment-method conda`; with `conda apptainer`, each environment is built inside
# this base image (the snakemake-workflows convention). Miniforge rather than their miniconda3: the environment
# is conda-forge's alone, and Miniforge is the image `snakemake --containerize` builds its Dockerfile on.
# Plain runs use neither: the Python that runs Snakemake runs the jobs.
container: "docker://condaforge/miniforge3"


# `snakemake --report`: this page, the outputs marked with report() (workflow/report/ has their captions),
# every job's runtime and the rule graph.
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"  # the stage graph, every job table, rule helpers
include: "workflow/rules/stages.smk"  # the 24 rules that are their stage's graph entry alone, by phase


# The rules with something of their own, by phase, in the order the data flows.
include: "workflow/rules/data.smk"  # fetch (mirror or URL, sha256-verified)
include: "workflow/rules/evaluate.smk"  # MiniLM beside Table 4's models, the error analysis (Table 7)
include: "workflow/rules/gates.smk"  # Stanza models, GRAN gate norms by POS tag and label (Tables 9-11)
include: "workflow/rules/supervised.smk"  # the transfer model a universal row starts from (Table 8)
include: "workflow/rules/report.smk"  # the papers' numbers beside ours


# On a cluster these run on the submit host: compute nodes often have no internet (fetch), and
# the report and universal_init (a selection and a few sha256) are seconds of work.
localrules:
    all,
    fetch,
    universal_init,
    report,


rule all:
    input:
        "data/report/report.md",
        "data/report/report.html",
        "data/static_model/README.md",
