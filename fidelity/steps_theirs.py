# Runs under the authors' Python 2.7 (fidelity/steps.py starts it): written in the subset of Python
# that both 2.7 and 3 read, and it imports nothing of this project.
"""Their model (models.py, unmodified) trained for a few steps from given weights, on given batches, with given
dropout masks, recording what steps.py compares with ours:

- the weights: their layers' parameters are set by name from ``IN.npz`` (``param.<name>``) after their
  ``models.__init__`` builds and compiles the model; their Adam (``lasagne.updates.adam``) starts from zero;
- the masks: Lasagne's ``DropoutLayer`` draws a fresh mask for each stochastic pass (the four ``get_output`` calls
  for g1, g2, p1, p2 in models.py); here each pass multiplies by a mask read from ``IN.npz``
  (``mask.<step>.<pass>``, a sentence's row, cut to the batch's padded length) and rescales as theirs does;
- the batches: ``batch.<step>.<side>`` (word ids, -1 past a sentence's end) go through their own ``get_pairs``
  (deterministic pass, hardest negatives) and ``train_function`` (steps.py has scrambled them as the run would).

Writes OUT.npz: ``loss.<step>`` (their cost before the step's update), ``grad.<step>.<name>`` for the steps in
``grad_steps``, ``negatives.<step>.<p1|p2>`` (the padded negatives their get_pairs chose) and ``param.<k>.<name>``
after ``k`` steps for each ``k`` of ``weight_steps``.

Usage (cwd: their ``main/`` folder): python2.7 steps_theirs.py IN.npz OUT.npz

With ``--start`` (same_start.py), IN.npz holds no weights: it seeds ``random`` and ``numpy.random`` with the settings'
``seed`` as their train.py's top does (shim.py gives the run's seed there), builds their model as train.py does next
(no draw of their code comes between), and writes the weights it starts from to OUT.npz (``param.<name>``).

Usage: python2.7 steps_theirs.py --start IN.npz OUT.npz
"""
from __future__ import print_function  # noqa: UP010 (it runs under Python 2.7)

import json
import os
import random
import sys

import lasagne
import numpy
import theano
from lasagne.layers import DropoutLayer

sys.path.insert(0, os.getcwd())

PASSES = ("g1", "g2", "p1", "p2")  # the order models.py builds its four stochastic outputs in
_masks = []


def _dropout_from_file(self, input, deterministic=False, **kwargs):  # noqa: A002 (Lasagne's signature)
    if deterministic or self.p == 0:
        return input
    mask = theano.shared(numpy.ones((1, 1, 1), dtype=theano.config.floatX), name="mask." + PASSES[len(_masks)])
    _masks.append(mask)
    return input / numpy.asarray(1 - self.p, dtype=theano.config.floatX) * mask


DropoutLayer.get_output_for = _dropout_from_file

from models import models  # noqa: E402  (theirs, from their main/ folder)


def key(*parts):
    return ".".join(str(part) for part in parts)


class Params:  # an old-style class under 2.7: attributes are all their code reads
    def __init__(self, settings, captured):
        self.__dict__.update(settings)

        def learner(grads, params, eta):
            captured["grads"] = grads
            return lasagne.updates.adam(grads, params, eta)

        self.learner = learner


class Sentence:  # what their get_pairs reads of an example
    def __init__(self, ids):
        self.embeddings = [int(i) for i in ids if i >= 0]
        self.representation = None


def main(source, target):
    given = numpy.load(source)
    settings = json.loads(str(given["settings"]))
    captured = {}
    params = Params(settings, captured)
    model = models(given["embeddings"], params)
    layer_params = lasagne.layers.get_all_params(model.final_layer, trainable=True)
    for p in layer_params:
        p.set_value(given["param." + p.name].astype(theano.config.floatX))
    inputs = [i.variable for i in model.train_function.maker.inputs if not i.implicit]  # the batch, not weights
    gradients = theano.function(inputs, captured["grads"])
    out = {}
    for step in range(settings["steps"]):
        pairs = zip(given[key("batch", step, "first")], given[key("batch", step, "second")])  # noqa: B905
        batch = [(Sentence(a), Sentence(b)) for a, b in pairs]
        arrays = model.get_pairs(batch, params)  # g1x, g1mask, g2x, g2mask, p1x, p1mask, p2x, p2mask
        for k, name in enumerate(PASSES):
            if k < len(_masks):
                width = arrays[2 * k].shape[1]
                _masks[k].set_value(given[key("mask", step, name)][:, :width].astype(theano.config.floatX))
        out[key("negatives", step, "p1")] = arrays[4]
        out[key("negatives", step, "p2")] = arrays[6]
        ordered = [arrays[i] for i in (0, 2, 4, 6, 1, 3, 5, 7)]  # train_function's argument order
        out[key("loss", step)] = numpy.asarray(model.cost_function(*ordered))
        if step in settings["grad_steps"]:
            for p, g in zip(layer_params, gradients(*ordered)):  # noqa: B905
                out[key("grad", step, p.name)] = numpy.asarray(g)
        model.train_function(*ordered)
        if step + 1 in settings["weight_steps"]:
            for p in layer_params:
                out[key("param", step + 1, p.name)] = p.get_value()
    numpy.savez(target, **out)
    print("steps_theirs:", settings["steps"], "steps,", len(_masks), "stochastic passes with given masks")


def start(source, target):
    given = numpy.load(source)
    settings = json.loads(str(given["settings"]))
    random.seed(settings["seed"])
    numpy.random.seed(settings["seed"])
    model = models(given["embeddings"], Params(settings, {}))
    numpy.savez(target, **{"param." + p.name: p.get_value()
                           for p in lasagne.layers.get_all_params(model.final_layer, trainable=True)})
    print("steps_theirs: the weights their code starts from with seed", settings["seed"])


if __name__ == "__main__":
    if sys.argv[1] == "--start":
        start(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2])
