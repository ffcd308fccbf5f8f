"""A job's settings: one typed object per family, its run's keys over the defaults, checked against the schema."""

import dataclasses
from pathlib import Path

import pytest

from paraphrastic.configuration import grids
from paraphrastic.configuration import params as config
from paraphrastic.configuration.settings import (
    PwimSettings,
    SiameseSettings,
    SupervisedSettings,
    TransferSettings,
    experiment,
    pwim_experiment,
    siamese_experiment,
    supervised_experiment,
)
from paraphrastic.errors import PipelineError
from tests.configuration.configs import supervised_config

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow/schemas/params.schema.yaml"


def tiny() -> dict:
    return config.load(REPO / "params.test.yaml", SCHEMA)


def test_transfer_settings_overlay_the_runs_keys_on_the_defaults():
    s = experiment(tiny(), "lstm-simpwiki")
    assert isinstance(s, TransferSettings)
    assert (s.model, s.epochs, s.batch_size, s.learning_rate, s.seed) == ("lstm", 1, 100, 0.001, 1)
    assert (s.dropout, s.tags, s.sampling, s.hidden_dim) == (0.0, "none", "max", None)  # the defaults
    c = config.load(REPO / "params.yaml", SCHEMA)
    name = next(n for n in grids.expand(c)[0] if n.startswith("t2-lstmavg-dropout-scrambling__"))
    s = experiment(c, name)
    assert (s.model, s.train_set, s.epochs, s.margin, s.scramble) == ("lstmavg", "simpwiki", 3, 0.4, 0.5)
    assert s.dropout == 0.2 or s.word_dropout == 0.2  # the dict-valued axis set one of them
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.margin = 0.8
    with pytest.raises(PipelineError, match="no experiment"):
        experiment(c, "nope")


def test_a_jobs_settings_hold_its_one_seed():
    c = tiny()
    c["experiments"]["lstm-simpwiki"]["seeds"] = 3
    s = experiment(c, "lstm-simpwiki", seed=2)
    assert s.seed == 2 and "seeds" not in s.as_dict()
    with pytest.raises(PipelineError, match="seeds \\[1, 2, 3\\], not 4"):
        experiment(c, "lstm-simpwiki", seed=4)


@pytest.mark.fault("params.yaml")
@pytest.mark.parametrize("where, key, value, message", [
    ("fixed", "marginn", 0.6, "Additional properties are not allowed \\('marginn' was unexpected\\)"),
    ("search", "marginn", [0.6], "'marginn' was unexpected"),  # a typo'd grid axis is not silently ignored
    ("fixed", "lambda_c", -1.0, "lambda_c: -1.0 is less than the minimum of 0"),
    ("fixed", "batch_size", 0, "batch_size: 0 is less than the minimum of 2"),
    ("search", "tags", ["start"], "tags: 'start' is not one of"),
])
def test_a_bad_setting_in_a_grid_names_the_run_and_the_key(where, key, value, message):
    c = tiny()
    c["grids"][0].setdefault(where, {})[key] = value
    name = grids.expand(c)[1]["t-lstmavg-reg"][0]
    with pytest.raises(PipelineError, match=message) as caught:
        experiment(c, name)
    assert f"transfer run {name!r}: invalid settings" in str(caught.value)


@pytest.mark.fault("params.yaml")
def test_a_bad_experiment_setting_is_caught_too():
    c = tiny()
    c["experiments"]["avg-ppdb"]["margin"] = -0.4  # would train to loss 0 and be reported as a normal run
    with pytest.raises(PipelineError, match="transfer run 'avg-ppdb': invalid settings\n  margin: -0.4 is less"):
        experiment(c, "avg-ppdb")


def test_numbers_take_their_fields_type():
    c = tiny()
    c["experiments"]["avg-ppdb"]["lambda_w"] = 0  # YAML's integer zero
    c["experiments"]["avg-ppdb"]["batch_size"] = 100.0  # the schema counts 100.0 as an integer
    s = experiment(c, "avg-ppdb")
    assert s.lambda_w == 0.0 and isinstance(s.lambda_w, float)
    assert s.batch_size == 100 and isinstance(s.batch_size, int)
    with pytest.raises(PipelineError, match="unknown setting"):
        TransferSettings.build({**s.as_dict(), "marginn": 1.0}, "here")


def test_model_options_are_the_architecture_and_input_settings():
    s = experiment(tiny(), "gran-simpwiki")
    assert s.model_options() == {"dropout": 0.0, "gate_init": "normal", "gate_per_direction": True,
                                 "gran5_readout": "last", "tags": "none", "word_dropout": 0.0,
                                 "word_dropout_rescale": True}  # hidden_dim null: not set
    assert dataclasses.replace(s, hidden_dim=8).model_options()["hidden_dim"] == 8


def test_supervised_settings_and_their_init_row():
    c = supervised_config(train={"epochs": 10, "batch_size": 25, "learning_rate": 0.001, "head_dim": 50,
                                 "lambda_w": 0.0, "lambda_c": 0.0, "lambda_s": 0.0, "hidden_dim": None})
    runs, rows = grids.expand_supervised(c)
    name = rows["s-uni"][0]
    s = supervised_experiment(c, name, "sick", 2, runs)
    assert isinstance(s, SupervisedSettings)
    assert (s.epochs, s.task, s.seed, s.name, s.init, s.model) == (10, "sick", 2, name, "g", "gran")
    assert "tasks" not in s.as_dict() and "seeds" not in s.as_dict()
    assert supervised_experiment(c, rows["s-avg"][0], "sts", 1, runs).init is None
    with pytest.raises(PipelineError, match="no job for task 'sts'"):
        supervised_experiment(c, name, "sts", 1, runs)
    c["supervised"]["grids"][1]["init"] = "no-such-row"
    runs, rows = grids.expand_supervised(c)
    with pytest.raises(PipelineError, match="init row 'no-such-row' is not a transfer grid row or experiment"):
        supervised_experiment(c, rows["s-uni"][0], "sick", 1, runs)
    c["supervised"]["grids"][0]["fixed"] = {"head_dimm": 10}
    runs, rows = grids.expand_supervised(c)
    with pytest.raises(PipelineError, match="'head_dimm' was unexpected"):
        supervised_experiment(c, rows["s-avg"][0], "sts", 1, runs)


def test_seed_system_settings():
    c = tiny()
    s = siamese_experiment(c, "scbow-random")
    assert isinstance(s, SiameseSettings) and (s.init, s.epochs, s.learning_rate, s.seed) == ("random", 2, 100.0, 1)
    p = pwim_experiment(c, "pwim-no-context", "sick")
    assert isinstance(p, PwimSettings) and (p.context, p.focus, p.padding, p.task) == (False, True, 32, "sick")
    assert p.model_options() == {"hidden_dim": 16, "padding": 32, "context": False, "focus": True, "fc_dim": 16}
    assert pwim_experiment(c, "pwim", "sts2014").padding == 48
    with pytest.raises(PipelineError, match="no Siamese CBOW run"):
        siamese_experiment(c, "nope")
    with pytest.raises(PipelineError, match="PWIM task 'nope'"):
        pwim_experiment(c, "pwim", "nope")
