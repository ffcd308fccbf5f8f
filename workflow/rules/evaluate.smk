# Evaluate phase: cosine similarity on the 22 transfer sets and STS 2016, for every trained model
# and for the untrained baseline (averaged initial word vectors).


rule evaluate:
    input:
        model="data/models/{experiment}/model.pt",
        eval="data/corpus/eval.parquet",
        code=code_paths("evaluate"),
    output:
        "data/results/{experiment}.json",
    params:
        settings=settings_of("evaluation"),
    threads: config["threads"]
    shell:
        "{CLI} evaluate --model {input.model} --eval {input.eval} --out {output} --threads {threads}"


rule baseline:
    input:
        vocab="data/vocab/vocab.txt",
        embeddings="data/vocab/embeddings.npy",
        eval="data/corpus/eval.parquet",
        code=code_paths("baseline"),
    output:
        "data/results/baseline.json",
    params:
        settings=settings_of("evaluation"),
    threads: config["threads"]
    shell:
        "{CLI} evaluate --baseline --vocab-dir data/vocab --eval {input.eval} --out {output} --threads {threads}"
