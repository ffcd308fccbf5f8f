# The rules that are their stage's entry in the graph and nothing more: inputs, outputs, params, log, benchmark,
# software and command from the graph (common.smk's helpers), threads where the command takes them, and the
# resources a job asks a cluster for (paraphrastic.pipeline.job_resources.RULES).
# The phase files hold the rules that add something of their own: fetch, the Stanza models, the gate and error
# analyses, the encoder comparison, universal_init and the report.
#
# Training jobs' checkpoints (data/checkpoints/<run>/seed<N> and the like) are not outputs on purpose: Snakemake
# deletes the outputs of a failed or killed job, and the checkpoints must survive it so the resubmitted job
# resumes (nor are they DVC outputs: see Stage.checkpoints).
# The rules by phase. What each job asks a cluster for (the training rule's GPU, partition, memory and time) is
# declared in the rule from paraphrastic.pipeline.job_resources.RULES, where the amounts are explained, so that an
# override of one resource (`--set-resources train:slurm_partition=NAME`, or a site profile's `set-resources`)
# replaces that one and keeps the others.
GRAPH_RULES = (
    # data: tokenised tables -> token-matched sample -> vocabulary; the distilled word vectors
    "prepare_eval",
    "prepare_train",
    "match",
    "vocab",
    "distill",
    "teacher_targets",
    "distill_sentences",
    # one transfer training job per run and seed; scores of the explicit experiments and the untrained baselines
    "train",
    "evaluate",
    "baseline",
    "baseline_distilled",
    "baseline_sentence_distilled",
    # the sentence-distilled vectors as a static model with its card, scored as a user loads it; all-MiniLM-L6-v2's
    # scores, which the encoder comparison puts beside Table 4's models
    "static_model",
    "reference_scores",
    # the gate analysis's sentences and their parses
    "gate_sentences",
    "parse",
    "parse_compared",
    # supervised (Tables 5, 6, 8): STS/SICK tables, one job per task, run and seed
    "prepare_supervised",
    "train_supervised",
    "train_universal",
    # the other seed systems: Siamese CBOW with its word2vec baseline, and PWIM
    "siamese_corpus",
    "train_siamese",
    "word2vec",
    "prepare_pwim",
    "train_pwim",
)


def graph_rule(stage_name, stage_resources):
    # A function, not the loop's body: Snakemake evaluates the shell command again when the job runs, and in a
    # loop `stage_name` would then be the last stage's.
    rule:
        name:
            stage_name
        input:
            *stage_inputs(stage_name),
        output:
            **stage_outputs(stage_name),
        log:
            stage_log(stage_name),
        benchmark:
            stage_benchmark(stage_name)
        conda:
            ENV
        params:
            **stage_params(stage_name),
        threads: stage_threads(stage_name)
        resources:
            **stage_resources,
        shell:
            stage_shell(stage_name)


for stage_name in GRAPH_RULES:
    graph_rule(stage_name, job_resources.RULES.get(stage_name, {}))
