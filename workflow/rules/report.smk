# Report phase: our numbers beside the paper's tables, learning curves, stated data deviations.
# DVC depends on the data/models and data/results folders; Snakemake lists the same files.


# A training job's history and train.json: what the report reads of it (not its model.pt).
HISTORIES = ("history_json", "info")

# What `snakemake --report` shows of the report stage: output name -> report() arguments (captions in
# workflow/report/). Not metrics.json: DVC's metrics, for `dvc metrics diff` rather than a reader.
REPORTED = {
    "html": {"caption": "report_html.rst", "category": "1. Report"},
    "md": {"caption": "report_md.rst", "category": "1. Report"},
    "runs": {"caption": "runs.rst", "category": "2. Tables"},
    "plot": {"caption": "learning_curves.rst", "category": "3. Figures"},
    "gate_plot": {"caption": "gate_norms_by_pos.rst", "category": "3. Figures"},
    "stanza_plot": {"caption": "stanza_learning_curves.rst", "category": "3. Figures"},
    "speed_plot": {"caption": "accuracy_speed.rst", "category": "3. Figures"},
}


rule report:
    input:
        results=job_outputs(STAGES["evaluate"].outs["results"].path, TABLES.experiment_jobs),
        baseline=STAGES["baseline"].outs["results"].path,
        baseline_distilled=STAGES["baseline_distilled"].outs["results"].path,
        baseline_sentence_distilled=STAGES["baseline_sentence_distilled"].outs["results"].path,
        jobs=job_files("train", TABLES.jobs, HISTORIES),
        stats=[d for d in STAGES["report"].deps if d.endswith(".json")],
        gates=[*stage_output_paths("gates"), STAGES["gate_sentences"].outs["stats"].path,
               *([STAGES["gates_compared"].outs["summary"].path] if TABLES.parser_comparisons else [])],
        supervised=job_files("train_supervised", TABLES.supervised_jobs_of(universal=False), HISTORIES),
        universal=job_files("train_universal", TABLES.supervised_jobs_of(universal=True), HISTORIES),
        errors=stage_output_paths("error_analysis"),
        encoders=stage_output_paths("compare_encoders"),
        siamese=job_files("train_siamese", TABLES.siamese_jobs, HISTORIES),
        siamese_corpus=STAGES["siamese_corpus"].outs["stats"].path,
        word2vec=STAGES["word2vec"].outs["results"].path,
        pwim=job_files("train_pwim", TABLES.pwim_jobs, HISTORIES),
        pwim_stats=STAGES["prepare_pwim"].outs["stats"].path,
    output:
        # also in `snakemake --report`, which adds each job's runtime and the rule graph
        **stage_outputs("report", REPORTED),
    log:
        stage_log("report"),
    benchmark:
        stage_benchmark("report")
    conda:
        ENV
    params:
        **stage_params("report"),
    shell:
        stage_shell("report")
