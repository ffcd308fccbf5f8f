"""One module per pipeline stage, named after its command: ``run(config, ...)`` reads params.yaml's settings
for the stage, calls the library and writes the stage's outputs. A stage's code dependencies are the import
closure of its module here (see :mod:`paraphrastic.pipeline.code_deps`), so all its logic lives in it."""
