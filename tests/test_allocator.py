"""Every command keeps the memory it frees for its next step (glibc), unless the user says not to."""

import platform
import sys

import pytest


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="glibc's allocator settings")
def test_freed_memory_is_kept_for_the_next_step_where_glibc_allows_and_the_user_has_not_said_no(monkeypatch):
    """A block freed at one training step is reused at the next rather than unmapped and mapped again (zero-filled
    by the kernel each time): on glibc the settings are made; PARAPHRASTIC_KEEP_FREED_MEMORY=0 leaves them alone."""
    from paraphrastic.allocator import KEEP_FREED_MEMORY, keep_freed_memory

    monkeypatch.setenv(KEEP_FREED_MEMORY, "0")
    assert keep_freed_memory() is False
    monkeypatch.delenv(KEEP_FREED_MEMORY)
    assert keep_freed_memory() is True


def test_every_command_keeps_freed_memory_and_so_do_stanzas_trainers(monkeypatch, tmp_path):
    from paraphrastic.cli import main as cli
    from paraphrastic.training import stanza_trainers

    calls = []
    for module in (cli, stanza_trainers):
        monkeypatch.setattr(module, "keep_freed_memory", lambda name=module.__name__: calls.append(name))
    with pytest.raises(SystemExit):
        cli.main(["--version"])  # argparse exits before any command runs: nothing set yet
    assert calls == []
    assert cli.main(["default-params", "--write", str(tmp_path / "params.yaml")]) == 0
    plan = tmp_path / "plan.json"
    plan.write_text("[]")
    stanza_trainers.main([str(plan)])
    assert calls == ["paraphrastic.cli.main", "paraphrastic.training.stanza_trainers"]
