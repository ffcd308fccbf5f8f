# Runs under the authors' Python 2.7 (fidelity/run.py starts it): written in the subset of Python
# that both 2.7 and 3 read, and it imports nothing of this project.
"""Their train.py, unmodified, with what the harness needs changed at run time:

- the seed: train.py seeds ``random`` and ``numpy.random`` with 1 at its top; both calls get the
  ``AUTHORS_SEED`` in the environment instead (Lasagne's initialisers draw from ``numpy.random``);
- the evaluation: ``evaluate.evaluate_all`` (which scores two annotated-PPDB files, at the start, at each quarter
  of an epoch and at its end) scores instead the evaluation sets named in ``AUTHORS_EVAL_SETS`` (files under
  ``../data/``, written by convert.py), with their own ``get_correlation``, and prints one line per evaluation
  point: ``AUTHORS_POINT {"point": n, "pearson": {set: r}, "loss": c}``;
- the cost: each call of the model's ``train_function`` (its cost before the step: the margin loss's batch mean
  plus the lambda_c and lambda_w penalties) is kept, and ``loss`` is the mean over the epoch's steps so far (null
  at the start), as our history's ``loss`` is, so the two training curves can be set side by side.

Usage (cwd: their ``main/`` folder): python2.7 shim.py TRAIN_ARGS...
"""
from __future__ import print_function  # noqa: UP010 (it runs under Python 2.7)

import json
import os
import random
import runpy
import sys

import numpy

SEED = int(os.environ["AUTHORS_SEED"])
SETS = os.environ["AUTHORS_EVAL_SETS"].split()
MARK = "AUTHORS_POINT "
POINTS_PER_EPOCH = 4  # their check_quarter's three points and the epoch's end (run.py's POINTS_PER_EPOCH)

_seed_random, _seed_numpy = random.seed, numpy.random.seed
random.seed = lambda *_args, **_kwargs: _seed_random(SEED)
numpy.random.seed = lambda *_args, **_kwargs: _seed_numpy(SEED)

sys.path.insert(0, os.getcwd())
import evaluate  # noqa: E402  (theirs, from their main/ folder)

_points = [0]
_costs = []


def evaluate_all(model, words):
    scores = {}
    for name in SETS:
        pearson, _ = evaluate.get_correlation(model, words, os.path.join("..", "data", name))
        scores[name] = float(pearson)
    loss = sum(_costs) / len(_costs) if _costs else None
    print(MARK + json.dumps({"point": _points[0], "pearson": scores, "loss": loss}, sort_keys=True))
    sys.stdout.flush()
    if _points[0] % POINTS_PER_EPOCH == 0:  # the start, or an epoch's end: the next point's mean is the next epoch's
        del _costs[:]
    _points[0] += 1


evaluate.evaluate_all = evaluate_all  # before train.py imports models, which binds the name
import models  # noqa: E402  (theirs, from their main/ folder)

_build = models.models.__init__


def _counting_build(self, *args, **kwargs):
    _build(self, *args, **kwargs)
    train_function = self.train_function

    def counted(*inputs):
        cost = train_function(*inputs)
        _costs.append(float(cost))
        return cost

    self.train_function = counted


models.models.__init__ = _counting_build
sys.argv = ["train.py"] + sys.argv[1:]
runpy.run_path("train.py", run_name="__main__")
