# Supervised phase (Sec. 4.3, Tables 5, 6, 8): STS 40/10/50 and SICK tables, then one job per task, run and
# seed. Universal runs start from a transfer row's STS-2016-selected model, recorded once per row (universal_init).

rule prepare_supervised:
    input:
        *stage_inputs("prepare_supervised"),
    output:
        **stage_outputs("prepare_supervised"),
    log:
        stage_log("prepare_supervised"),
    benchmark:
        stage_benchmark("prepare_supervised")
    conda:
        ENV
    params:
        **stage_params("prepare_supervised"),
    shell:
        stage_shell("prepare_supervised")


rule train_supervised:
    input:
        *stage_inputs("train_supervised"),
    output:
        **stage_outputs("train_supervised"),
    log:
        stage_log("train_supervised"),
    benchmark:
        stage_benchmark("train_supervised")
    conda:
        ENV
    params:
        **stage_params("train_supervised"),
    threads: config["threads"]
    resources:
        mem_mb=4000,
        runtime=120,
    shell:
        stage_shell("train_supervised")


rule universal_init:
    input:
        *stage_inputs("universal_init"),
        jobs=universal_init_inputs,
    output:
        **stage_outputs("universal_init"),
    log:
        stage_log("universal_init"),
    benchmark:
        stage_benchmark("universal_init")
    conda:
        ENV
    params:
        **stage_params("universal_init"),
    shell:
        stage_shell("universal_init")


rule train_universal:
    input:
        *stage_inputs("train_universal"),
    output:
        **stage_outputs("train_universal"),
    log:
        stage_log("train_universal"),
    benchmark:
        stage_benchmark("train_universal")
    conda:
        ENV
    params:
        **stage_params("train_universal"),
    threads: config["threads"]
    resources:
        mem_mb=4000,
        runtime=120,
    shell:
        stage_shell("train_universal")
