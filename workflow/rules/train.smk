# Train phase: one job per experiment. Checkpoints live outside the rule's outputs on purpose:
# Snakemake deletes the outputs of a failed or killed job, and the checkpoints must survive it
# so the rerun resumes (DVC declares them as a persistent output instead).


rule train:
    input:
        train=train_set_path,
        vocab="data/vocab/vocab.txt",
        embeddings="data/vocab/embeddings.npy",
        eval="data/corpus/eval.parquet",
        code=code_paths("train"),
    output:
        model="data/models/{experiment}/model.pt",
        history="data/models/{experiment}/history.csv",
        history_json="data/models/{experiment}/history.json",
        info="data/models/{experiment}/train.json",
    params:
        checkpoints="data/checkpoints/{experiment}",
        settings=lambda w: json.dumps(pconfig.experiment(config, w.experiment, RUN_TABLE), sort_keys=True),
        selection=settings_of("evaluation", "device"),
    threads: config["threads"]
    resources:
        mem_mb=4000,
        runtime=240,
    shell:
        "{CLI} train --experiment {wildcards.experiment} --out-dir data/models/{wildcards.experiment}"
        " --checkpoints {params.checkpoints} --threads {threads}"
