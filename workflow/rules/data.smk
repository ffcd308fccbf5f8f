# Data phase: fetch (mirror or URL, sha256-verified) -> tokenised parquet -> token-matched sample -> vocabulary, and
# the word vectors distilled from a sentence transformer for the same words. The rules after fetch are their
# stages' graph entries alone (stages.smk).


rule fetch:
    input:
        *stage_inputs("fetch"),
        mirror=mirror_inputs,
    output:
        # The files themselves rather than directory("data/raw") (what DVC declares): Snakemake can
        # checksum files, so a rewritten but unchanged data/raw reruns nothing downstream.
        manifest=STAND_INS["data/raw"],
        files=RAW_FILES,
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
