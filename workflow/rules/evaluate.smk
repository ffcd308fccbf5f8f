# Evaluate phase: cosine similarity on the 22 transfer sets and STS 2016, for every seed of every
# explicit experiment and for the untrained baselines (averaged initial word vectors, GloVe's and the
# distilled ones); and the error
# analysis of Sec. 5.1 (Table 7), avg against LSTMavg on the STS 2012-2015 pairs.


rule evaluate:
    input:
        *stage_inputs("evaluate"),
    output:
        **stage_outputs("evaluate"),
    log:
        stage_log("evaluate"),
    benchmark:
        stage_benchmark("evaluate")
    conda:
        ENV
    params:
        **stage_params("evaluate"),
    threads: config["threads"]
    shell:
        stage_shell("evaluate")


rule baseline:
    input:
        *stage_inputs("baseline"),
    output:
        **stage_outputs("baseline"),
    log:
        stage_log("baseline"),
    benchmark:
        stage_benchmark("baseline")
    conda:
        ENV
    params:
        **stage_params("baseline"),
    threads: config["threads"]
    shell:
        stage_shell("baseline")


rule baseline_distilled:
    input:
        *stage_inputs("baseline_distilled"),
    output:
        **stage_outputs("baseline_distilled"),
    log:
        stage_log("baseline_distilled"),
    benchmark:
        stage_benchmark("baseline_distilled")
    conda:
        ENV
    params:
        **stage_params("baseline_distilled"),
    threads: config["threads"]
    shell:
        stage_shell("baseline_distilled")


rule error_analysis:
    input:
        *stage_inputs("error_analysis"),
        # the two rows' jobs: their histories choose the runs, their model.pt files score the pairs
        jobs=job_files("train", ERROR_JOBS),
    output:
        **stage_outputs("error_analysis", {"examples": {"caption": "error_examples.rst", "category": "4. Analyses"}}),
    log:
        stage_log("error_analysis"),
    benchmark:
        stage_benchmark("error_analysis")
    conda:
        ENV
    params:
        **stage_params("error_analysis"),
    threads: config["threads"]
    shell:
        stage_shell("error_analysis")


rule compare_encoders:
    input:
        *stage_inputs("compare_encoders"),
        # the Table 4 rows' jobs: their histories choose the runs, their model.pt files are timed
        jobs=job_files("train", TABLE4_JOBS),
    output:
        **stage_outputs("compare_encoders"),
    log:
        stage_log("compare_encoders"),
    benchmark:
        stage_benchmark("compare_encoders")
    conda:
        ENV
    params:
        **stage_params("compare_encoders"),
    threads: config["threads"]
    shell:
        stage_shell("compare_encoders")
