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


def test_a_load_report_of_harmless_keys_only_is_not_printed_and_any_other_is():
    pytest.importorskip("transformers")
    import logging

    from transformers.utils import logging as transformers_logging

    from paraphrastic.data.transformer_folders import quiet_loading

    class Kept(logging.Handler):  # stands in for transformers' own stderr handler, whatever stream that holds
        def __init__(self):
            super().__init__()
            self.messages = []

        def emit(self, record):
            self.messages.append(record.getMessage())

    root, kept, level = transformers_logging.get_logger(), Kept(), transformers_logging.get_verbosity()
    root.addHandler(kept)
    transformers_logging.set_verbosity_warning()  # another test may have quietened transformers
    logger = transformers_logging.get_logger("transformers.modeling_utils")
    harmless = "BertModel LOAD REPORT\nKey | Status\n---+---\nembeddings.position_ids | UNEXPECTED |"
    missing = harmless + "\npooler.dense.weight | MISSING |"
    try:
        with quiet_loading():
            logger.warning(harmless)
            logger.warning(missing)
        logger.warning(harmless)  # outside a load of ours, transformers prints as it does
    finally:
        root.removeHandler(kept)
        transformers_logging.set_verbosity(level)
    assert kept.messages == [missing, harmless]
