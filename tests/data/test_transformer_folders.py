"""Local transformer folders: the offline MiniLM copy by name, a user's folder by path, errors naming the key."""

from __future__ import annotations

import pytest

from paraphrastic.data.transformer_folders import MINILM, transformer_folder
from paraphrastic.errors import PipelineError


def test_a_folder_that_is_no_transformer_is_an_error_naming_the_key(tmp_path):
    with pytest.raises(PipelineError, match=r"word_vectors\.distilled\.teacher: .*config\.json"):
        transformer_folder(str(tmp_path), where="word_vectors.distilled.teacher")


def test_a_folder_with_a_config_is_taken_as_it_is(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    assert transformer_folder(str(tmp_path), where="gates.stanza.transformer") == tmp_path


def test_minilm_by_name_is_the_offline_package_copy():
    path = transformer_folder(MINILM, where="gates.stanza.transformer")
    assert (path / "config.json").is_file() and (path / "tokenizer.json").is_file()
