"""The differential harness against the authors' own code (jwieting/acl2017, Theano + Lasagne, Python 2).

The project never vendors their code: the harness takes a local checkout of it. ``convert`` writes the project's
data in the formats their ``train.py`` and ``evaluate.py`` read (tests/benchmarks/test_authors_code.py).
"""
