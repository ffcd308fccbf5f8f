"""One stage graph: the Snakemake rules take every input, output, param, log and command from it."""

from pathlib import Path

from paraphrastic.data.corpus import TRAIN_SETS
from paraphrastic.pipeline.dvc import CHECK_PARAMS, CODE_DIGESTS
from paraphrastic.pipeline.graph import STAGES
from tests.workflow.test_conventions import rule_blocks

REPO = Path(__file__).resolve().parents[2]


def test_every_stage_is_a_snakemake_rule_built_from_the_table():
    rules = rule_blocks()  # written out, or made in stages.smk's loop
    assert set(rules) == set(STAGES)
    for name, block in rules.items():
        # log, params (with the digest of the stage's derived code deps) and the command come from the stage table
        for piece in (f'stage_log("{name}")', f'**stage_params("{name}")', f'stage_shell("{name}")'):
            assert piece in block, (name, piece)


def test_every_stage_command_is_a_step_module():
    steps = {p.stem for p in (REPO / "src/paraphrastic/pipeline/steps").glob("*.py") if p.stem != "__init__"}
    stages = [*STAGES.values(), CHECK_PARAMS, CODE_DIGESTS]  # and DVC's own two stages
    assert {stage.step.rpartition(".")[2] for stage in stages} == steps  # none unused, none missing


def test_every_training_set_has_one_parquet_file():
    # the train stage reads data/corpus/{train_set}.parquet (DVC: ${item.train_set}), where prepare-train and
    # match write them
    assert "data/corpus/{train_set}.parquet" in STAGES["train"].deps
    written = {out.path for name in ("prepare_train", "match") for out in STAGES[name].outs.values()}
    assert {f"data/corpus/{name}.parquet" for name in TRAIN_SETS} <= written


def test_no_two_stages_share_an_output():
    seen = {}
    for stage in STAGES.values():
        for path in [o.path for o in stage.outs.values()] + list(stage.checkpoints):
            assert path not in seen, f"{path}: {seen[path]} and {stage.name}"
            seen[path] = stage.name
