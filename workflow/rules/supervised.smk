# Supervised phase (Sec. 4.3, Tables 5, 6, 8): STS 40/10/50 and SICK tables, then one job per task, run and
# seed. Universal runs start from a transfer row's STS-2016-selected model, so they wait for that row's jobs.


def universal_init_inputs(wildcards):
    """The init row's transfer jobs: their histories choose the run, its model.pt is the starting point."""
    return job_files("train", TABLES.row_jobs(TABLES.supervised_runs[wildcards.sup_run]["init"]))


rule prepare_supervised:
    input:
        *stage_inputs("prepare_supervised"),
    output:
        **stage_outputs("prepare_supervised"),
    log:
        stage_log("prepare_supervised"),
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
    params:
        **stage_params("train_supervised"),
    threads: config["threads"]
    resources:
        mem_mb=4000,
        runtime=120,
    shell:
        stage_shell("train_supervised")


rule train_universal:
    input:
        *stage_inputs("train_universal"),
        init=universal_init_inputs,
    output:
        **stage_outputs("train_universal"),
    log:
        stage_log("train_universal"),
    params:
        **stage_params("train_universal"),
    threads: config["threads"]
    resources:
        mem_mb=4000,
        runtime=120,
    shell:
        stage_shell("train_universal")
