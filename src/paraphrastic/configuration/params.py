"""params.yaml: loading, schema validation and the derived facts every phase needs.

Snakemake validates the same file against the same schema (workflow/schemas/params.schema.yaml)
with its own ``validate``; the library validates again so a CLI call or a DVC stage gets the same
error message.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import jsonschema
import yaml

from paraphrastic import resources
from paraphrastic.atomic import write_text
from paraphrastic.data import datasets
from paraphrastic.errors import PipelineError

MIRROR_ENV = "PARAPHRASTIC_MIRROR"
# The config file a Snakemake invocation's jobs read (see write_resolved), passed to them in the environment.
RESOLVED_ENV = "PARAPHRASTIC_RESOLVED_PARAMS"
# The schema beside this package's code (the checkout's, or a wheel's copy), wherever the caller runs: the run
# settings are checked against it too.
DEFAULT_SCHEMA = resources.find(resources.SCHEMA)


class _UniqueKeys(yaml.SafeLoader):
    """YAML's safe loader, except that a mapping's key given twice is an error (PyYAML keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *anchor`: its keys may be overridden here
                continue
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str | int | float | bool) and key in seen:
                raise PipelineError(f"{self.name}:{key_node.start_mark.line + 1}: key {key!r} given twice (first at "
                                    f"line {seen[key]}): remove one")
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def read_yaml(path):
    """A YAML file (a config): a syntax error or a key given twice is an error naming the file and line."""
    with open(path, encoding="utf-8") as handle:
        try:
            return yaml.load(handle, Loader=_UniqueKeys)  # noqa: S506 (a SafeLoader)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
            raise PipelineError(f"{where}: not valid YAML: {exc.problem or exc.context}") from None


def load(path="params.yaml", schema=DEFAULT_SCHEMA) -> dict:
    config = read_yaml(path)
    validate(config, schema, source=str(path))
    return config


def write_resolved(config: dict, directory) -> Path:
    """The config as one invocation resolved it (config files plus overrides), in a file of its own.

    The file is named by the sha256 of its text, so two invocations with different configs (a dry run with
    another ``--configfile`` beside a running workflow) never write the same file, and an invocation never
    rewrites a file another one's jobs are reading: each job reads exactly what its invocation resolved.
    """
    text = yaml.safe_dump(config, sort_keys=False)
    path = Path(directory) / f"params-{hashlib.sha256(text.encode()).hexdigest()[:16]}.yaml"
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_text(path, text)
    return path


def validate(config: dict, schema=DEFAULT_SCHEMA, *, source: str = "config") -> None:
    with open(schema, encoding="utf-8") as handle:
        schema_doc = yaml.safe_load(handle)
    validator = jsonschema.Draft202012Validator(schema_doc)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"  {'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors]
        raise PipelineError(f"{source} does not match {schema}:\n" + "\n".join(lines))
    for key, ids in (("evaluation.sets", config["evaluation"]["sets"]),
                     ("evaluation.selection", config["evaluation"]["selection"]),
                     ("supervised.sts_sets", (config.get("supervised") or {}).get("sts_sets", "all"))):
        try:
            datasets.resolve(ids)
        except KeyError as exc:
            raise PipelineError(f"{source}: {key}: {exc.args[0]}") from None


def mirror_dir(config: dict) -> Path | None:
    """The offline mirror: $PARAPHRASTIC_MIRROR, else params ``mirror``; empty/null means download."""
    value = os.environ.get(MIRROR_ENV, config.get("mirror"))
    return Path(value) if value else None


def profile(config: dict) -> dict:
    return config["profiles"][config["data_profile"]]


def _simpwiki_pairs(config: dict, *, extra: bool) -> list[list[str]]:
    """The profile's SimpWiki file pairs, and with ``extra`` its ``extra_pairs`` too."""
    simpwiki = profile(config)["simpwiki"]
    return [list(p) for p in [*simpwiki["pairs"], *((simpwiki.get("extra_pairs") or []) if extra else [])]]


def simpwiki_files(config: dict) -> list[list[str]]:
    """The SimpWiki file pairs the training corpus reads (``data.simpwiki_extra`` adds the extra pairs)."""
    return _simpwiki_pairs(config, extra=bool(config["data"].get("simpwiki_extra")))


def gate_sentence_files(config: dict) -> list[list[str]]:
    """The SimpWiki file pairs whose Wikipedia (normal, first) side the gate analysis draws from: the training pairs'
    and, with ``gates.extra_sentences``, the profile's ``extra_pairs`` (offline: the v1 tuning and test pairs)."""
    return _simpwiki_pairs(config, extra=bool(config["gates"].get("extra_sentences")))


def eval_sets(config: dict) -> list[datasets.EvalSet]:
    """Every set that is scored: the configured evaluation sets plus the model-selection sets."""
    wanted = datasets.resolve(config["evaluation"]["sets"]) + datasets.resolve(config["evaluation"]["selection"])
    ids = {s.id for s in wanted}
    return [s for s in datasets.EVAL_SETS if s.id in ids]


def stanza_settings(config: dict, compared: bool = False) -> dict:
    """``gates.stanza``, or for the parser comparison's models ``gates.stanza_compared``'s settings over it."""
    settings = dict(config["gates"]["stanza"])
    return {**settings, **config["gates"]["stanza_compared"]} if compared else settings


def selection_ids(config: dict) -> list[str]:
    """The model-selection sets ("test" selection: the five STS 2016 sets)."""
    return [s.id for s in datasets.resolve(config["evaluation"]["selection"])]


# ---- the other seed systems: Siamese CBOW and PWIM ----------------------------------------------------


def param_value(config: dict, key: str):
    value = config
    for part in key.split("."):
        value = value[part]
    return value
