"""The `paraphrastic` command: the user's commands (`embed`, `similarity`, `export`, `report`), one subcommand per
pipeline stage (what Snakemake's rules and DVC's stages run), and the tools that regenerate workflow/runs.yaml and
dvc.yaml. It only parses arguments: each pipeline subcommand calls its stage's ``run`` in
:mod:`paraphrastic.pipeline.steps`, where all of the stage's logic is."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from paraphrastic import __version__, provenance
from paraphrastic.allocator import keep_freed_memory
from paraphrastic.cli import encode, example_of, stages, tools
from paraphrastic.configuration import params as params
from paraphrastic.errors import PipelineError


def load_config(args) -> dict:
    """params.yaml (``--params``) validated against ``--schema``, with ``--profile`` as its data profile."""
    if not os.path.exists(args.params):
        where = "here" if os.path.isabs(args.params) else f"in {os.getcwd()}"
        raise PipelineError(f"{args.params}: no such file {where}; run from the checkout's root, or name the config "
                            "with --params PATH (e.g. paraphrastic --params ../params.yaml grids)")
    config = params.load(args.params, args.schema)
    if getattr(args, "profile", None):
        config["data_profile"] = args.profile
        params.validate(config, args.schema, source=f"{args.params} (data_profile={args.profile})")
    provenance.read_under(config)  # the records this stage writes name the config's digest
    return config


INTRODUCTION = ("Paraphrastic sentence embeddings (Wieting & Gimpel, ACL 2017, and its family): apply a trained "
                "model to your own sentences, export it for sentence-transformers, and run the pipeline's stages "
                "one at a time (Snakemake and DVC run them for you). 'paraphrastic COMMAND --help' describes one.")
USER_COMMANDS = ("embed", "similarity", "export", "report")
TOOL_COMMANDS = ("grids", "default-params", "compare-metrics", "verify", "dvc-yaml")
WIDTH = 100


def command_list(commands: dict[str, argparse.ArgumentParser]) -> str:
    """The commands in plain text, grouped: the user's first, each with its example, then the pipeline's stages in
    the order the pipeline runs them, then the tools."""
    stage_commands = [name for name in commands if name not in USER_COMMANDS + TOOL_COMMANDS]
    indent = " " * (2 + max(map(len, commands)) + 2)

    def entry(name: str, with_example: bool) -> str:
        parser = commands[name]
        text = textwrap.fill(parser.description, WIDTH, initial_indent=f"  {name:<{len(indent) - 4}}  ",
                             subsequent_indent=indent)
        if with_example:
            text += "\n" + indent + "example: " + example_of(parser)
        return text

    groups = [("commands for users", USER_COMMANDS, True),
              ("pipeline stages (what Snakemake's rules and DVC's stages run)", stage_commands, False),
              ("tools", TOOL_COMMANDS, False)]
    return "\n\n".join(f"{title}:\n" + "\n".join(entry(name, example) for name in names)
                        for title, names, example in groups)


class _Help(argparse.RawDescriptionHelpFormatter):
    """The command list is the description's (grouped, the users' first), not argparse's one list of every command
    in the order they were added; the usage line still ends in ``command ...``."""

    def add_arguments(self, actions):
        super().add_arguments([a for a in actions if not isinstance(a, argparse._SubParsersAction)])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paraphrastic", formatter_class=_Help)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--params", default="params.yaml", help="the pipeline config (default: params.yaml; "
                                                                "'paraphrastic default-params' writes a starting one)")
    parser.add_argument("--schema", default=str(params.DEFAULT_SCHEMA),
                        help="the JSON schema params.yaml is validated against (default: %(default)s)")
    parser.add_argument("--profile", choices=["offline", "paper"], help="override params.yaml's data_profile")
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    encode.add_commands(sub)
    stages.add_commands(sub, load_config)
    tools.add_commands(sub, load_config)
    parser.description = textwrap.fill(INTRODUCTION, WIDTH) + "\n\n" + command_list(sub.choices)
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
