# Gate analysis phase (Sec. 5.2, Tables 9-11): Stanza models -> sentences -> parses -> gate norms. With `extended`,
# the parser comparison: the second (compared) Stanza models parse the same sentences, and gates_compared measures
# the agreement with those parses too; the report asks for it only then (report.smk).
# `gate_sentences`, `parse` and `parse_compared` are their stages' graph entries alone (stages.smk).


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
    # the tagger beside the parser, each on gates.stanza.threads
    threads: 2 * params.stanza_settings(config)["threads"]
    resources:
        **job_resources.RULES["stanza_models"],
    # The default run's longest job heads its critical path (-> parse -> gates -> report): started first, it runs
    # beside everything else, where Snakemake's own choice (by how many jobs wait on one) would start it late.
    priority: 50
    shell:
        stage_shell("stanza_models")


# The parser comparison's second models (with `extended`): gates.stanza with gates.stanza_compared over it.
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
    threads: 2 * params.stanza_settings(config, compared=True)["threads"]
    resources:
        **job_resources.RULES["stanza_models_compared"],
    shell:
        stage_shell("stanza_models_compared")


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
    threads: stage_threads("gates")
    shell:
        stage_shell("gates")


# The parser comparison (with `extended`): the analysed row's models again, the tags and labels of both parsers.
rule gates_compared:
    input:
        *stage_inputs("gates_compared"),
        jobs=job_files("train", GATE_JOBS),
    output:
        **stage_outputs("gates_compared"),
    log:
        stage_log("gates_compared"),
    benchmark:
        stage_benchmark("gates_compared")
    conda:
        ENV
    params:
        **stage_params("gates_compared"),
    threads: stage_threads("gates_compared")
    shell:
        stage_shell("gates_compared")
