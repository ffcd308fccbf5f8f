# Gate analysis phase (Sec. 5.2, Tables 9-11): Stanza models -> sentences -> parses -> gate norms.


rule stanza_models:
    input:
        *stage_inputs("stanza_models"),
    output:
        resources=directory(STAGES["stanza_models"].outs["resources"].path),
        scores=STAGES["stanza_models"].outs["scores"].path,
    log:
        stage_log("stanza_models"),
    benchmark:
        stage_benchmark("stanza_models")
    conda:
        ENV
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
    benchmark:
        stage_benchmark("gate_sentences")
    conda:
        ENV
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
    benchmark:
        stage_benchmark("parse")
    conda:
        ENV
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
        **stage_outputs("gates", {"by_pos": {"caption": "gates_by_pos.rst", "category": "4. Analyses"}}),
    log:
        stage_log("gates"),
    benchmark:
        stage_benchmark("gates")
    conda:
        ENV
    params:
        **stage_params("gates"),
    threads: config["threads"]
    shell:
        stage_shell("gates")
