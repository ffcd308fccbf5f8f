"""The `paraphrastic` command: one subcommand per pipeline stage (what Snakemake's rules and DVC's stages run),
the user-facing `embed` and `similarity`, and the developer tools that regenerate workflow/runs.yaml and
dvc.yaml. It only parses arguments: each pipeline subcommand calls its stage's ``run`` in
:mod:`paraphrastic.pipeline.steps`, where all of the stage's logic is."""

from __future__ import annotations

import argparse
import os
import sys

from paraphrastic import __version__
from paraphrastic.allocator import keep_freed_memory
from paraphrastic.cli import encode, stages, tools
from paraphrastic.configuration import params as params
from paraphrastic.errors import PipelineError


def load_config(args) -> dict:
    """params.yaml (``--params``) validated against ``--schema``, with ``--profile`` as its data profile."""
    config = params.load(args.params, args.schema)
    if getattr(args, "profile", None):
        config["data_profile"] = args.profile
        params.validate(config, args.schema, source=f"{args.params} (data_profile={args.profile})")
    return config


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paraphrastic", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--params", default="params.yaml", help="the pipeline config (default: params.yaml; "
                                                                "`paraphrastic default-params` writes a starting one)")
    parser.add_argument("--schema", default=str(params.DEFAULT_SCHEMA),
                        help="the JSON schema params.yaml is validated against (default: %(default)s)")
    parser.add_argument("--profile", choices=["offline", "paper"], help="override params.yaml's data_profile")
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    stages.add_commands(sub, load_config)
    encode.add_commands(sub)
    tools.add_commands(sub, load_config)
    return parser


# Set to list, when the command ends, every paraphrastic module it ran (an audit of a stage's code deps).
LIST_MODULES = "PARAPHRASTIC_LIST_MODULES"
MODULES_LINE = "paraphrastic modules run:"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    keep_freed_memory()
    try:
        args.func(args)
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 1)
    except OSError as exc:  # an input that is missing or unreadable, an output folder that cannot be written
        where = f"{os.fsdecode(exc.filename)}: " if isinstance(exc.filename, (str, bytes, os.PathLike)) else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    finally:
        if os.environ.get(LIST_MODULES):
            ours = sorted(m for m in sys.modules if m == "paraphrastic" or m.startswith("paraphrastic."))
            print(MODULES_LINE, *ours, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
