# Gate analysis phase (Sec. 5.2, Tables 9-11): Stanza models -> sentences -> parses -> gate norms.


rule stanza_models:
    input:
        *stage_inputs("stanza_models"),
    output:
        resources=directory(STAGES["stanza_models"].outs["resources"].path),
        scores=STAGES["stanza_models"].outs["scores"].path,
    log:
        stage_log("stanza_models"),
    params:
        **stage_params("stanza_models"),
    threads: params.param_value(config, STAGES["stanza_models"].threads)
    resources:
        mem_mb=8000,
        runtime=240,
    shell:
        stage_shell("stanza_models")


rule gate_sentences:
    input:
        *stage_inputs("gate_sentences"),
    output:
        **stage_outputs("gate_sentences"),
    log:
        stage_log("gate_sentences"),
    params:
        **stage_params("gate_sentences"),
    shell:
        stage_shell("gate_sentences")


rule parse:
    input:
        *stage_inputs("parse"),
    output:
        **stage_outputs("parse"),
    log:
        stage_log("parse"),
    params:
        **stage_params("parse"),
    threads: config["threads"]
    shell:
        stage_shell("parse")


rule gates:
    input:
        *stage_inputs("gates"),
        # the analysed row's jobs: their histories choose the run, its model.pt gives the gates
        jobs=job_files("train", GATE_JOBS),
    output:
        **stage_outputs("gates"),
    log:
        stage_log("gates"),
    params:
        **stage_params("gates"),
    threads: config["threads"]
    shell:
        stage_shell("gates")
