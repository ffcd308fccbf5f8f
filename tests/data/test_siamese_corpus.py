"""Siamese CBOW's ordered corpus: documents, their order and boundaries, and the neighbours of each sentence."""

from __future__ import annotations

import pytest

from paraphrastic.data import siamese_corpus
from paraphrastic.errors import MalformedLine

CONLLU = """# newdoc id = doc-a
# sent_id = a-1
# text = The cat sat.
1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_

# sent_id = a-2
# text = It was happy.
1\tIt\tit\tPRON\tPRP\t_\t2\tnsubj\t_\t_

# newdoc id = doc-b
# text = A dog ran.
1\tA\ta\tDET\tDT\t_\t2\tdet\t_\t_

"""


def test_documents_keep_order_and_boundaries(tmp_path):
    path = tmp_path / "x.conllu"
    path.write_text(CONLLU)
    docs = siamese_corpus.read_documents(path)
    assert [d for d, _ in docs] == ["doc-a", "doc-b"]
    assert [t for _, t in docs[0][1]] == ["The cat sat.", "It was happy."] and docs[0][1][0][0] == 3
    corpus = siamese_corpus.build_corpus([path])
    assert corpus["tokens"][0] == ["the", "cat", "sat", "."] and corpus["source"][2] == "x.conllu:11"
    assert siamese_corpus.neighbours(corpus).tolist() == [[-1, 1], [0, -1], [-1, -1]]


@pytest.mark.parametrize("text, line, message", [
    ("# sent_id = 1\n# text = Hi.\n1\tHi\n\n", 2, "before the first `# newdoc id`"),
    ("# newdoc id = d\n# sent_id = 1\n1\tHi\n\n# text = x\n1\tx\n", 2, "without a `# text =` comment"),
])
def test_malformed_treebank_names_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "bad.conllu"
    path.write_text(text)
    with pytest.raises(MalformedLine, match=message) as info:
        siamese_corpus.read_documents(path)
    assert f"bad.conllu:{line}" in str(info.value)
