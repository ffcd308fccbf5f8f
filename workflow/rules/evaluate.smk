# Evaluate phase: cosine similarity on the 22 transfer sets and STS 2016, for every seed of every explicit experiment
# and for the untrained baselines (averaged initial word vectors, GloVe's and the distilled ones: `evaluate`,
# `baseline`, `baseline_distilled`, in stages.smk); here the error analysis of Sec. 5.1 (Table 7), avg against
# LSTMavg on the STS 2012-2015 pairs, and all-MiniLM-L6-v2 beside Table 4's models.


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
    threads: stage_threads("error_analysis")
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
    threads: stage_threads("compare_encoders")
    shell:
        stage_shell("compare_encoders")
