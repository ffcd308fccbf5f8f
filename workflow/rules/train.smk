# Train phase: one job per run and seed. Checkpoints (data/checkpoints/<run>/seed<N>) are not rule
# outputs on purpose: Snakemake deletes the outputs of a failed or killed job, and the checkpoints
# must survive it so the resubmitted job resumes (nor are they DVC outputs: see Stage.checkpoints).


rule train:
    input:
        *stage_inputs("train"),
    output:
        **stage_outputs("train"),
    log:
        stage_log("train"),
    benchmark:
        stage_benchmark("train")
    conda:
        ENV
    params:
        **stage_params("train"),
    threads: config["threads"]
    resources:
        mem_mb=4000,
        runtime=240,
    shell:
        stage_shell("train")
