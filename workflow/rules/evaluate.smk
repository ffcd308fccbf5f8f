# Evaluate phase: cosine similarity on the 22 transfer sets and STS 2016, for every seed of every
# explicit experiment and for the untrained baseline (averaged initial word vectors).


rule evaluate:
    input:
        *stage_inputs("evaluate"),
        code=code_paths("evaluate"),
    output:
        **stage_outputs("evaluate"),
    params:
        **stage_params("evaluate"),
    threads: config["threads"]
    shell:
        stage_shell("evaluate")


rule baseline:
    input:
        *stage_inputs("baseline"),
        code=code_paths("baseline"),
    output:
        **stage_outputs("baseline"),
    params:
        **stage_params("baseline"),
    threads: config["threads"]
    shell:
        stage_shell("baseline")
