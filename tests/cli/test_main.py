"""The command line: every pipeline stage has its subcommand, and every option says what it is for."""

import argparse

import pytest

from paraphrastic.cli.main import build_parser, main
from paraphrastic.pipeline.graph import STAGES


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_has_help_text():
    parsers = {"paraphrastic": build_parser(), **subcommands()}
    missing = [f"{name} {'/'.join(a.option_strings)}" for name, parser in parsers.items() for a in parser._actions
               if a.option_strings and not isinstance(a, argparse._HelpAction) and not a.help]
    assert not missing, missing


def test_every_stage_command_is_a_subcommand_that_parses():
    commands = subcommands()
    for stage in STAGES.values():
        words = stage.command.format(experiment="run", sup_run="run", task="sick", seed=1, scbow_run="run",
                                     pwim_run="run", pwim_task="sick", threads=1).split()
        assert words[0] in commands, stage.name
        args = build_parser().parse_args(words)
        assert args.step == stage.step.rpartition(".")[2]


def test_every_stage_command_names_every_path_it_reads_or_writes():
    """A default path lives in the CLI, outside every stage's code deps: the stage commands never rely on one."""
    commands = subcommands()
    for stage in STAGES.values():
        words = stage.command.split()
        given = {word for word in words if word.startswith("--")}
        for action in commands[words[0]]._actions:
            if action.option_strings and isinstance(action.default, str) and action.default != argparse.SUPPRESS:
                assert action.option_strings[0] in given, (stage.name, action.option_strings[0])


def test_help_and_a_bad_command(capsys):
    with pytest.raises(SystemExit) as done:
        main(["train", "--help"])
    assert done.value.code == 0 and "--checkpoints" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["no-such-stage"])
    assert done.value.code == 2
