"""The command line: the user's commands (embed, similarity, export, report), one subcommand per pipeline stage,
and the tools that regenerate generated files."""

from __future__ import annotations

import argparse

EXAMPLE = "example:\n  "


def add_example(parser: argparse.ArgumentParser, example: str) -> argparse.ArgumentParser:
    """A user command's example, shown by its own --help and beside it in paraphrastic --help."""
    parser.epilog = EXAMPLE + example
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def example_of(parser: argparse.ArgumentParser) -> str | None:
    return parser.epilog.removeprefix(EXAMPLE) if parser.epilog and parser.epilog.startswith(EXAMPLE) else None
