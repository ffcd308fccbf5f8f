# Data phase: fetch (mirror or URL, sha256-verified) -> tokenised parquet -> token-matched sample -> vocabulary.


rule fetch:
    input:
        manifest="workflow/sources.yaml",
        mirror=mirror_inputs,
    output:
        directory("data/raw"),
    shell:
        "{CLI} fetch --manifest {input.manifest} --out {output}"


rule prepare_eval:
    input:
        "data/raw",
    output:
        table="data/corpus/eval.parquet",
        stats="data/corpus/eval_stats.json",
    shell:
        "{CLI} prepare-eval --raw {input} --out {output.table} --stats {output.stats}"


rule prepare_train:
    input:
        "data/raw",
    output:
        "data/corpus/simpwiki.parquet",
        "data/corpus/ppdb.parquet",
        "data/corpus/train_stats.json",
    shell:
        "{CLI} prepare-train --raw {input} --out-dir data/corpus"


rule match:
    input:
        "data/corpus/simpwiki.parquet",
        "data/corpus/ppdb.parquet",
    output:
        "data/corpus/matched/simpwiki.parquet",
        "data/corpus/matched/ppdb.parquet",
        "data/corpus/matched/summary.json",
    shell:
        "{CLI} match --corpus data/corpus --out-dir data/corpus/matched"


rule vocab:
    input:
        raw="data/raw",
        corpora=["data/corpus/simpwiki.parquet", "data/corpus/ppdb.parquet", "data/corpus/eval.parquet"],
    output:
        "data/vocab/vocab.txt",
        "data/vocab/embeddings.npy",
        "data/vocab/coverage.json",
    shell:
        "{CLI} vocab --raw {input.raw} --corpus data/corpus --out-dir data/vocab"
