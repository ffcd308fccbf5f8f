# The other seed systems (issue 8), in the same graph and on the same data layer and scorer:
# Siamese CBOW (Kenter et al. 2016) with its word2vec baseline, and PWIM (He & Lin 2016).
# Checkpoints are not rule outputs, for the reason given in train.smk.


rule siamese_corpus:
    input:
        *stage_inputs("siamese_corpus"),
    output:
        **stage_outputs("siamese_corpus"),
    log:
        stage_log("siamese_corpus"),
    benchmark:
        stage_benchmark("siamese_corpus")
    conda:
        ENV
    params:
        **stage_params("siamese_corpus"),
    shell:
        stage_shell("siamese_corpus")


rule train_siamese:
    input:
        *stage_inputs("train_siamese"),
    output:
        **stage_outputs("train_siamese"),
    log:
        stage_log("train_siamese"),
    benchmark:
        stage_benchmark("train_siamese")
    conda:
        ENV
    params:
        **stage_params("train_siamese"),
    threads: config["threads"]
    resources:
        mem_mb=4000,
        runtime=60,
    shell:
        stage_shell("train_siamese")


rule word2vec:
    input:
        *stage_inputs("word2vec"),
    output:
        **stage_outputs("word2vec"),
    log:
        stage_log("word2vec"),
    benchmark:
        stage_benchmark("word2vec")
    conda:
        ENV
    params:
        **stage_params("word2vec"),
    threads: config["threads"]
    shell:
        stage_shell("word2vec")


rule prepare_pwim:
    input:
        *stage_inputs("prepare_pwim"),
    output:
        **stage_outputs("prepare_pwim"),
    log:
        stage_log("prepare_pwim"),
    benchmark:
        stage_benchmark("prepare_pwim")
    conda:
        ENV
    params:
        **stage_params("prepare_pwim"),
    shell:
        stage_shell("prepare_pwim")


rule train_pwim:
    input:
        *stage_inputs("train_pwim"),
    output:
        **stage_outputs("train_pwim"),
    log:
        stage_log("train_pwim"),
    benchmark:
        stage_benchmark("train_pwim")
    conda:
        ENV
    params:
        **stage_params("train_pwim"),
    threads: config["threads"]
    resources:
        mem_mb=6000,
        runtime=240,
    shell:
        stage_shell("train_pwim")
