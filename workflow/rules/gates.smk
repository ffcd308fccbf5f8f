# Gate analysis phase (Sec. 5.2, Tables 9-11): Stanza models -> sentences -> parses -> gate norms; the second
# (compared) Stanza models parse the same sentences, and the analysis measures its agreement with both.


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


# The parser comparison's second models: gates.stanza with gates.stanza_compared over it.
rule stanza_models_compared:
    input:
        *stage_inputs("stanza_models_compared"),
    output:
        resources=directory(STAGES["stanza_models_compared"].outs["resources"].path),
        scores=STAGES["stanza_models_compared"].outs["scores"].path,
    log:
        stage_log("stanza_models_compared"),
    benchmark:
        stage_benchmark("stanza_models_compared")
    conda:
        ENV
    params:
        **stage_params("stanza_models_compared"),
    threads: params.param_value(config, STAGES["stanza_models_compared"].threads)
    resources:
        mem_mb=8000,
        runtime=240,
    shell:
        stage_shell("stanza_models_compared")


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


rule parse_compared:
    input:
        *stage_inputs("parse_compared"),
    output:
        **stage_outputs("parse_compared"),
    log:
        stage_log("parse_compared"),
    benchmark:
        stage_benchmark("parse_compared")
    conda:
        ENV
    params:
        **stage_params("parse_compared"),
    threads: config["threads"]
    shell:
        stage_shell("parse_compared")


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
