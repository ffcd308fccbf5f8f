# Supervised phase (Sec. 4.3, Tables 5, 6, 8): STS 40/10/50 and SICK tables, then one job per task, run and
# seed. Universal runs start from a transfer row's STS-2016-selected model, recorded once per row (universal_init,
# here); the tables and the jobs are their stages' graph entries alone (stages.smk).


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
