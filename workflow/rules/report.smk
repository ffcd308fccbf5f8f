# Report phase: our numbers beside the paper's tables, learning curves, stated data deviations.
# DVC depends on the data/models and data/results folders; Snakemake lists the same files.


rule report:
    input:
        results=job_outputs(STAGES["evaluate"].outs["results"].path, EXPERIMENT_JOBS),
        baseline=STAGES["baseline"].outs["results"].path,
        models=job_outputs(STAGES["train"].outs["info"].path, JOBS),
        histories=job_outputs(STAGES["train"].outs["history_json"].path, JOBS),
        stats=[d for d in STAGES["report"].deps if d.endswith(".json")],
        gates=list(stage_outputs("gates").values()),
        supervised=[
            path
            for stage, universal in (("train_supervised", False), ("train_universal", True))
            for key in ("history_json", "info")
            for path in job_outputs(
                STAGES[stage].outs[key].path, {k: j for k, j in SUP_JOBS.items() if bool(j["init"]) == universal}
            )
        ],
        errors=list(stage_outputs("error_analysis").values()),
        encoders=list(stage_outputs("compare_encoders").values()),
        siamese=[
            path
            for key in ("history_json", "info")
            for path in job_outputs(STAGES["train_siamese"].outs[key].path, SIAMESE_JOBS)
        ],
        siamese_corpus=STAGES["siamese_corpus"].outs["stats"].path,
        word2vec=STAGES["word2vec"].outs["results"].path,
        pwim=[
            path
            for key in ("history_json", "info")
            for path in job_outputs(STAGES["train_pwim"].outs[key].path, PWIM_JOBS)
        ],
        pwim_stats=STAGES["prepare_pwim"].outs["stats"].path,
        code=code_paths("report"),
    output:
        **stage_outputs("report"),
    params:
        **stage_params("report"),
    shell:
        stage_shell("report")
