"""The settings of one training job: one typed, frozen object per model family, built once from params.yaml.

A job's settings are its family's defaults in params.yaml (``train``, ``supervised.train``, ``siamese_cbow.train``,
``pwim.train``) overlaid with its run's own keys: an experiment's, or a grid point's ``fixed`` and ``search``
values. Transfer and supervised settings are checked against the family's definition in the schema
(workflow/schemas/params.schema.yaml, ``$defs``), which admits no unknown key and bounds every value, so a
misspelt grid axis or a negative margin stops with the run and the key named, before any job starts (Snakemake
builds every job's settings while it plans the run). Siamese CBOW and PWIM runs are checked by the schema as
params.yaml is loaded. The trainers read fields, never ``.get`` on a dict; ``as_dict()`` is what train.json,
model.pt and the checkpoints' fingerprint record.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import jsonschema
import yaml

from paraphrastic.configuration import grids
from paraphrastic.configuration.grids import seeds_of
from paraphrastic.configuration.jobs import supervised_job_key, supervised_jobs, vocab_dir
from paraphrastic.configuration.params import DEFAULT_SCHEMA
from paraphrastic.errors import PipelineError


class _Settings:
    """What every family's settings share: a plain dict for the records, and typed construction."""

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def build(cls, values: dict, where: str):
        """The settings of ``values`` (already checked against the schema): numbers take their field's type."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise PipelineError(f"{where}: unknown setting(s) {unknown}; known: {sorted(fields)}")
        hints = _field_types(cls)
        return cls(**{key: _coerce(value, hints[key]) for key, value in values.items()})


@cache
def _field_types(cls) -> dict:
    return typing.get_type_hints(cls)


def _coerce(value, hint):
    """A number as its field's type: YAML's ``0`` for a float field, and ``100.0`` (which the schema accepts
    as an integer) for an int field; every other value as it is."""
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    if float in options and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if int in options and float not in options and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@dataclass(frozen=True, kw_only=True)
class EncoderSettings(_Settings):
    """What every sentence-encoder job sets beside its objective: architecture options (None: the model's own
    default; each model takes those that apply to it) and input regularisation (Sec. 4.2)."""

    hidden_dim: int | None = None
    output_gate: bool | None = None
    combine: str | None = None
    layers: int | None = None
    activation: str | None = None
    tags: str = "none"
    dropout: float = 0.0
    word_dropout: float = 0.0
    # kept words scaled by 1/(1 − word_dropout), as the authors' Lasagne layer does; false: not scaled
    word_dropout_rescale: bool = True
    # GRAN's gates: `normal` (N(0, 0.1²), zero bias: the authors' layer) or `uniform` (nn.Linear's default)
    gate_init: str = "normal"
    # GRAN-5's sentence: its `last` token's gated sum (the authors' code) or the `mean` over tokens (the paper's text)
    gran5_readout: str = "last"
    # BiGRAN: a gate for each direction's states, the gated words combined (the authors' code), or one gate over
    # the combined states
    gate_per_direction: bool = True
    # λ_c, λ_w (and a supervised head's λ_s) as the authors' code applies them, ½λ‖·‖² (models.py:254-255); false:
    # λ‖·‖², as the paper's Eq. 4 writes them
    halve_penalties: bool = True
    # Adam's ε added to the root of the `uncorrected` second moment, as Lasagne's adam in the authors' code, or of
    # the bias-`corrected` one, as torch's Adam (Kingma & Ba's Algorithm 1)
    adam_epsilon: str = "uncorrected"
    scramble: float = 0.0

    def model_options(self) -> dict:
        """The options model.pt records and the encoder is built with."""
        # Imported here: Snakemake builds every job's settings while it parses the workflow (each SLURM job parses it
        # again), and the encoders module imports torch, a second of start-up this module has no other use for.
        from paraphrastic.models.encoders import MODEL_OPTIONS

        return {key: getattr(self, key) for key in sorted(MODEL_OPTIONS) if getattr(self, key) is not None}

    def penalty(self, weight: float) -> float:
        """A penalty's λ as training applies it (``halve_penalties``)."""
        return weight / 2 if self.halve_penalties else weight


@dataclass(frozen=True, kw_only=True)
class TransferSettings(EncoderSettings):
    """A transfer job (Wieting & Gimpel 2017, Sec. 3-4.2): the margin objective over paraphrase pairs."""

    name: str
    seed: int
    model: str
    train_set: str
    epochs: int
    batch_size: int
    learning_rate: float
    margin: float
    lambda_w: float
    lambda_c: float
    sampling: str = "max"  # in-batch negatives: MAX, MIX or RAND
    # the pass MAX chooses negatives on: `deterministic` (the authors' code: no dropout, and the loss embeds the
    # negatives in a training pass of their own) or `training` (the loss's own dropout pass); same without dropout
    negative_pass: str = "deterministic"
    # the points a run is evaluated at, and selects among: `quarter` (each quarter of an epoch and its end, as the
    # authors' code) or `epoch` (each epoch's end)
    evaluate_every: str = "quarter"
    max_pairs: int | None = None  # train on the first N pairs only (tests)
    length_buckets: int | None = None  # batch by length within windows of N batches
    # the vectors it starts from and λ_w regularises to: the data profile's file (`pretrained`), those `distill`
    # makes (`distilled`), or those trained further by `distill_sentences` (`sentence_distilled`)
    word_vectors: str = "pretrained"

    @property
    def vocab_dir(self) -> str:
        return vocab_dir(self.word_vectors)


@dataclass(frozen=True, kw_only=True)
class SupervisedSettings(EncoderSettings):
    """A supervised job (Sec. 4.3): an encoder under Tai et al.'s head on one task; ``init`` names the transfer
    row a universal run starts from."""

    name: str
    task: str
    seed: int
    model: str
    epochs: int
    batch_size: int
    learning_rate: float
    head_dim: int
    lambda_w: float
    lambda_c: float
    lambda_s: float
    init: str | None = None


@dataclass(frozen=True)
class SiameseSettings(_Settings):
    """A Siamese CBOW run (Kenter et al. 2016)."""

    name: str
    seed: int
    init: str  # pretrained | random
    epochs: int
    batch_size: int
    learning_rate: float
    negatives: int
    init_std: float
    min_count: int
    dim: int | None = None


@dataclass(frozen=True)
class PwimSettings(_Settings):
    """A PWIM run on one task (He & Lin 2016)."""

    name: str
    task: str
    seed: int
    epochs: int
    batch_size: int
    learning_rate: float
    hidden_dim: int
    fc_dim: int
    context: bool
    focus: bool
    padding: int

    def model_options(self) -> dict:
        return {key: getattr(self, key) for key in ("hidden_dim", "padding", "context", "focus", "fc_dim")}


@cache
def _validator(schema: Path, definition: str) -> jsonschema.Draft202012Validator:
    with open(schema, encoding="utf-8") as handle:
        defs = yaml.safe_load(handle)["$defs"]
    return jsonschema.Draft202012Validator({**defs[definition], "$defs": defs})


def _check(values: dict, definition: str, where: str, schema=DEFAULT_SCHEMA) -> None:
    """``values`` against the schema's ``$defs/<definition>``; every error names the run and the key."""
    validator = _validator(Path(schema), definition)
    errors = sorted(validator.iter_errors(values), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"  {'/'.join(map(str, e.absolute_path)) or '<settings>'}: {e.message}" for e in errors]
        raise PipelineError(f"{where}: invalid settings\n" + "\n".join(lines))


def experiment(config: dict, name: str, all_runs: dict[str, dict] | None = None, seed: int | None = None,
               *, schema=DEFAULT_SCHEMA) -> TransferSettings:
    """The settings of one transfer job: ``train`` defaults overlaid with the run's own keys, and its seed.

    ``all_runs`` is ``grids.expand(config)[0]``, for callers that look up many runs; ``seed`` defaults to
    the run's first seed. The settings hold the one seed, never the list, so adding a seed to a run leaves
    its other jobs' settings (and their results) untouched.
    """
    all_runs = grids.expand(config)[0] if all_runs is None else all_runs
    if name not in all_runs:
        raise PipelineError(f"no experiment or grid run {name!r} in params ({len(all_runs)} known)")
    seeds = seeds_of(config, all_runs[name])
    if seed is None:
        seed = seeds[0]
    elif seed not in seeds:
        raise PipelineError(f"run {name!r} is trained with seeds {seeds}, not {seed}")
    values = {**config["train"], **{k: v for k, v in all_runs[name].items() if k != "seeds"}}
    where = f"transfer run {name!r}"
    _check(values, "training", where, schema)
    return TransferSettings.build({**values, "name": name, "seed": int(seed)}, where)


def supervised_experiment(config: dict, name: str, task: str, seed: int, all_runs: dict[str, dict] | None = None,
                          *, transfer_rows: dict | None = None, schema=DEFAULT_SCHEMA) -> SupervisedSettings:
    """The settings of one supervised job: ``supervised.train`` overlaid with the run's own keys.

    ``all_runs`` and ``transfer_rows`` are ``grids.expand_supervised(config)[0]`` and ``grids.expand(config)[1]``,
    for callers that look up many jobs (a universal run's ``init`` must name a transfer row)."""
    all_runs = grids.expand_supervised(config)[0] if all_runs is None else all_runs
    if name not in all_runs:
        raise PipelineError(f"no supervised run {name!r} in params ({len(all_runs)} known)")
    job = supervised_jobs(config, {name: all_runs[name]}).get(supervised_job_key(task, name, seed))
    if job is None:
        raise PipelineError(f"supervised run {name!r} has no job for task {task!r} and seed {seed}")
    own = {k: v for k, v in all_runs[name].items() if k not in ("seeds", "tasks", "init")}
    values = {**config["supervised"]["train"], **own}
    where = f"supervised run {name!r}"
    _check(values, "supervised_training", where, schema)
    init = all_runs[name].get("init")
    transfer_rows = grids.expand(config)[1] if transfer_rows is None else transfer_rows
    if init is not None and init not in transfer_rows:
        raise PipelineError(f"{where}: init row {init!r} is not a transfer grid row or experiment")
    return SupervisedSettings.build({**values, "init": init, "name": name, "task": task, "seed": int(seed)}, where)


def siamese_experiment(config: dict, name: str) -> SiameseSettings:
    """The settings of one Siamese CBOW run: ``siamese_cbow.train`` overlaid with the run's own keys."""
    runs = config["siamese_cbow"]["runs"]
    if name not in runs:
        raise PipelineError(f"no Siamese CBOW run {name!r} in params (known: {sorted(runs)})")
    return SiameseSettings.build({**config["siamese_cbow"]["train"], **(runs[name] or {}), "name": name,
                                  "seed": int(config["seed"])}, f"Siamese CBOW run {name!r}")


def pwim_experiment(config: dict, name: str, task: str) -> PwimSettings:
    """The settings of one PWIM job: ``pwim.train``, the task's padding, then the run's own keys."""
    runs = config["pwim"]["runs"]
    if name not in runs:
        raise PipelineError(f"no PWIM run {name!r} in params (known: {sorted(runs)})")
    if task not in config["pwim"]["tasks"]:
        raise PipelineError(f"PWIM task {task!r} is not in pwim.tasks {sorted(config['pwim']['tasks'])}")
    own = {k: v for k, v in (runs[name] or {}).items() if k != "tasks"}
    return PwimSettings.build({**config["pwim"]["train"], "padding": config["pwim"]["tasks"][task]["padding"], **own,
                               "name": name, "task": task, "seed": int(config["seed"])}, f"PWIM run {name!r}")
