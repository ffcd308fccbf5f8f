# Data phase: fetch (mirror or URL, sha256-verified) -> tokenised parquet -> token-matched sample -> vocabulary.


rule fetch:
    input:
        manifest="workflow/sources.yaml",
        mirror=mirror_inputs,
        code=code_paths("fetch"),
    output:
        directory("data/raw"),
    params:
        files=json.dumps(pconfig.required_raw_files(config)),
    shell:
        "{CLI} fetch --manifest {input.manifest} --out {output}"


rule prepare_eval:
    input:
        raw="data/raw",
        code=code_paths("prepare_eval"),
    output:
        table="data/corpus/eval.parquet",
        stats="data/corpus/eval_stats.json",
    params:
        settings=settings_of("evaluation"),
    shell:
        "{CLI} prepare-eval --raw {input.raw} --out {output.table} --stats {output.stats}"


rule prepare_train:
    input:
        raw="data/raw",
        code=code_paths("prepare_train"),
    output:
        "data/corpus/simpwiki.parquet",
        "data/corpus/ppdb.parquet",
        "data/corpus/train_stats.json",
    params:
        settings=settings_of("profile", "data", "seed"),
    shell:
        "{CLI} prepare-train --raw {input.raw} --out-dir data/corpus"


rule match:
    input:
        "data/corpus/simpwiki.parquet",
        "data/corpus/ppdb.parquet",
        code=code_paths("match"),
    output:
        "data/corpus/simpwiki_matched.parquet",
        "data/corpus/ppdb_matched.parquet",
        "data/corpus/match_summary.json",
    params:
        settings=settings_of("data"),
    shell:
        "{CLI} match --corpus data/corpus"


rule vocab:
    input:
        raw="data/raw",
        corpora=["data/corpus/simpwiki.parquet", "data/corpus/ppdb.parquet", "data/corpus/eval.parquet"],
        code=code_paths("vocab"),
    output:
        "data/vocab/vocab.txt",
        "data/vocab/embeddings.npy",
        "data/vocab/coverage.json",
    params:
        settings=settings_of("profile"),
    shell:
        "{CLI} vocab --raw {input.raw} --corpus data/corpus --out-dir data/vocab"
