# Data phase: fetch (mirror or URL, sha256-verified) -> tokenised parquet -> token-matched sample -> vocabulary, and
# the word vectors distilled from a sentence transformer for the same words.


rule fetch:
    input:
        *stage_inputs("fetch"),
        mirror=mirror_inputs,
    output:
        # The files themselves rather than directory("data/raw") (what DVC declares): Snakemake can
        # checksum files, so a rewritten but unchanged data/raw reruns nothing downstream.
        manifest=STAND_INS["data/raw"],
        files=[f"data/raw/{name}" for name in required_raw_files(config)],
    log:
        stage_log("fetch"),
    benchmark:
        stage_benchmark("fetch")
    conda:
        ENV
    params:
        **stage_params("fetch"),
    shell:
        stage_shell("fetch")


rule prepare_eval:
    input:
        *stage_inputs("prepare_eval"),
    output:
        **stage_outputs("prepare_eval"),
    log:
        stage_log("prepare_eval"),
    benchmark:
        stage_benchmark("prepare_eval")
    conda:
        ENV
    params:
        **stage_params("prepare_eval"),
    shell:
        stage_shell("prepare_eval")


rule prepare_train:
    input:
        *stage_inputs("prepare_train"),
    output:
        **stage_outputs("prepare_train"),
    log:
        stage_log("prepare_train"),
    benchmark:
        stage_benchmark("prepare_train")
    conda:
        ENV
    params:
        **stage_params("prepare_train"),
    shell:
        stage_shell("prepare_train")


rule match:
    input:
        *stage_inputs("match"),
    output:
        **stage_outputs("match"),
    log:
        stage_log("match"),
    benchmark:
        stage_benchmark("match")
    conda:
        ENV
    params:
        **stage_params("match"),
    shell:
        stage_shell("match")


rule vocab:
    input:
        *stage_inputs("vocab"),
    output:
        **stage_outputs("vocab"),
    log:
        stage_log("vocab"),
    benchmark:
        stage_benchmark("vocab")
    conda:
        ENV
    params:
        **stage_params("vocab"),
    shell:
        stage_shell("vocab")


rule distill:
    input:
        *stage_inputs("distill"),
    output:
        **stage_outputs("distill"),
    log:
        stage_log("distill"),
    benchmark:
        stage_benchmark("distill")
    conda:
        ENV
    params:
        **stage_params("distill"),
    threads: config["threads"]
    shell:
        stage_shell("distill")
