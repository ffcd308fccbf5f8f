"""The command line: every pipeline stage has its subcommand, and every option says what it is for."""

import argparse
from pathlib import Path

import pytest

from paraphrastic.cli import stages
from paraphrastic.cli.main import build_parser, main
from paraphrastic.pipeline.dvc import CHECK_PARAMS, CODE_DIGESTS
from paraphrastic.pipeline.graph import STAGES, literal_options

REPO = Path(__file__).resolve().parents[2]


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
        words = stage.command.format(run="run", task="sick", seed=1, pwim_task="sick", init_row="row",
                                     vocab_dir="data/vocab", threads=1).split()
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


def test_a_commands_paths_default_to_those_its_stage_passes():
    """Declared once: given only what it requires (a run, a seed, ...), a stage's command reads and writes the paths
    the pipeline gives it (its stage of the same name; the installed manifest stands in for fetch's)."""
    for stage in (CHECK_PARAMS, CODE_DIGESTS, *STAGES.values()):
        words = stage.command.format(run="run", task="sick", seed=1, pwim_task="sick", init_row="row",
                                     vocab_dir="data/vocab", threads=1).split()
        full = vars(build_parser().parse_args(words))
        if full["step"] != stage.name:
            continue  # baseline_distilled, stanza_models_compared, parse_compared: a command's second stage
        # what the command requires (baseline's --out) or leaves out by default (gates' --compared-parses)
        chosen = {action.dest for action in subcommands()[words[0]]._actions
                  if action.required or action.default is None}
        literal = set(literal_options(stage)) - chosen
        bare = [word for i, word in enumerate(words) if not {word.lstrip("-").replace("-", "_"),
                                                              words[i - 1].lstrip("-").replace("-", "_")} & literal]
        defaults = vars(build_parser().parse_args(bare))
        if stage.name == "fetch":
            assert Path(defaults.pop("manifest")).read_bytes() == (REPO / full.pop("manifest")).read_bytes()
        del defaults["func"], full["func"]  # each parser's own closure
        assert defaults == full and literal, stage.name


@pytest.mark.parametrize("compared", [False, True])
def test_the_parser_comparisons_models_default_to_their_own_folders_not_the_analysis_models(monkeypatch, compared):
    """`paraphrastic stanza-models --compared` typed without paths writes where its stage does
    (data/stanza_compared), never over the gate analysis's own models in data/stanza."""
    ran = []
    monkeypatch.setattr(stages, "run_stage", lambda args, load_config: ran.append(vars(args)))
    args = build_parser().parse_args(["stanza-models", *(["--compared"] if compared else [])])
    args.func(args)
    stage = STAGES["stanza_models_compared" if compared else "stanza_models"]
    assert {k: ran[0][k] for k in ("out_dir", "checkpoints")} == {
        k: v for k, v in literal_options(stage).items() if k in ("out_dir", "checkpoints")}
    args = build_parser().parse_args(["stanza-models", "--compared", "--out-dir", "mine"])
    args.func(args)
    assert ran[1]["out_dir"] == "mine" and ran[1]["checkpoints"] == "data/checkpoints/stanza_compared"


def test_help_and_a_bad_command(capsys):
    with pytest.raises(SystemExit) as done:
        main(["train", "--help"])
    assert done.value.code == 0 and "--checkpoints" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["no-such-stage"])
    assert done.value.code == 2


@pytest.mark.fault("filesystem")
@pytest.mark.parametrize("stage", [CHECK_PARAMS, CODE_DIGESTS, *STAGES.values()], ids=lambda stage: stage.name)
def test_a_stage_without_its_inputs_fails_in_one_line_naming_what_is_missing(stage, tmp_path, monkeypatch, capsys):
    """Run in an empty folder (no data/, no workflow/), a stage stops with one `error:` line naming the path or
    run it lacks, never a traceback, and writes nothing."""
    monkeypatch.chdir(tmp_path)
    run = {"train_supervised": "s-gran__x", "train_universal": "s-gran__x", "train_siamese": "scbow-pretrained",
           "train_pwim": "pwim"}.get(stage.name, "lstm-simpwiki")
    words = stage.command.format(run=run, task="sick", seed=1, pwim_task="sick", init_row="gran-simpwiki",
                                 vocab_dir="data/vocab", threads=1).split()
    schema = REPO / "workflow/schemas/params.schema.yaml"
    code = main(["--params", str(REPO / "params.test.yaml"), "--schema", str(schema), *words])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and err[0].startswith("error: "), err
    named = err[0].removeprefix("error: ")
    for setting in ("gates.gran_row: ", "universal init row 'gran-simpwiki': "):  # the setting that led to the path
        named = named.removeprefix(setting)
    assert named.startswith(("data/", "workflow/", "src/", "no supervised run")), err
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_a_run_is_named_by_run_and_still_by_experiment():
    """One word for a run in every family's command (`--run`); `--experiment`, its name before, still parses."""
    parsers = {name: sub for action in build_parser()._subparsers._group_actions
               for name, sub in action.choices.items()}
    for command in ("train", "train-supervised", "train-universal", "train-siamese", "train-pwim"):
        assert parsers[command]._option_string_actions["--run"].dest == "run_name", command
    for command in ("train", "train-supervised", "train-universal"):
        assert parsers[command]._option_string_actions["--experiment"].dest == "run_name", command
    assert build_parser().parse_args(["train", "--experiment", "r", "--seed", "1", "--out-dir", "o",
                                      "--checkpoints", "c"]).run_name == "r"


def test_the_help_is_plain_text_with_the_users_commands_first_each_with_an_example(capsys):
    """`paraphrastic --help`: no reStructuredText or module names; embed, similarity, export and report first, each
    with a description line and an example (also in its own --help); the stage commands under their own heading."""
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert not any(mark in text for mark in ("``", ":mod:", "paraphrastic.pipeline", "`"))
    listed = [line.split()[0] for line in text.splitlines() if line.startswith("  ") and not line.startswith("   ")
              and not line.lstrip().startswith("-")]
    assert listed[:4] == ["embed", "similarity", "export", "report"]
    users, stages = text.index("commands for users:"), text.index("pipeline stages")
    assert users < stages < text.index("  train ") and text.index("  report ") < stages
    assert text[users:stages].count("example: ") == 4 and "example: " not in text[stages:]
    assert set(listed) == set(subcommands())
    for command in ("embed", "similarity", "export", "report"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "example:\n  " in capsys.readouterr().out, command


@pytest.mark.fault("params.yaml")
def test_a_command_run_where_there_is_no_params_yaml_says_to_name_it(tmp_path, monkeypatch, capsys):
    """`paraphrastic grids` from a subfolder of the checkout: one line naming the folder and --params."""
    monkeypatch.chdir(tmp_path)
    assert main(["grids"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"error: params.yaml: no such file in {tmp_path}; run from the checkout's root, or name the config "
                   "with --params PATH (e.g. paraphrastic --params ../params.yaml grids)")
