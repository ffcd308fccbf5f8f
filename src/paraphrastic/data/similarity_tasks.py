"""The similarity tasks the supervised families train on: their names, the scored sets each task reads, and
those sets' files under data/raw (which the fetch stage always fetches). The CLI, the workflow, the fetch
stage and the task tables take them from here; the schema names the same tasks (a test holds it to them).
"""

from __future__ import annotations

from paraphrastic.data import datasets
from paraphrastic.data.datasets import EvalSet
from paraphrastic.errors import PipelineError

SUPERVISED_TASKS = ("sts", "sick")  # Sec. 4.3: STS 2012-2015 split 40/10/50, and SICK 2014
PWIM_TASKS = ("sick", "msrvid", "sts2014")  # He & Lin (2016), Sec. 8

SICK_SPLITS = {
    "train": EvalSet("sick.train", "2014 SICK", "", "sick", ("sts/sick2014/SICK_train.txt",)),
    "validation": EvalSet("sick.trial", "2014 SICK", "", "sick", ("sts/sick2014/SICK_trial.txt",)),
    "test": EvalSet("sick.test", "2014 SICK", "", "sick", ("sts/sick2014/SICK_test_annotated.txt",)),
}


def sts_sets(ids) -> list[EvalSet]:
    """The STS 2012-2015 sets the STS task pools: ``"all"`` (the paper's 20) or a list of ids."""
    if ids == "all":
        return [s for s in datasets.EVAL_SETS if s.format == "sts"]
    chosen = datasets.resolve(ids)
    wrong = [s.id for s in chosen if s.format != "sts"]
    if wrong:
        raise PipelineError(f"supervised.sts_sets: {wrong} are not STS 2012-2015 sets")
    return chosen


# The 20 STS 2012-2015 sets: the STS task's "all", and the sets Siamese CBOW (Kenter et al. 2016) is scored on.
STS_2012_2015 = tuple(s.id for s in sts_sets("all"))


def _train_2012(name: str) -> EvalSet:
    folder = "sts/2012-train"
    return EvalSet(f"sts12train.{name}", "STS 2012 train", "", "sts",
                   (f"{folder}/STS.input.{name}.txt", f"{folder}/STS.gs.{name}.txt"))


TRAIN_2012 = tuple(_train_2012(name) for name in ("MSRpar", "MSRvid", "SMTeuroparl"))


STS2014_TEST = tuple(s for s in datasets.EVAL_SETS if s.group == "STS 2014")


STS2014_TRAIN = TRAIN_2012 + tuple(s for s in datasets.EVAL_SETS if s.group in ("STS 2012", "STS 2013"))


MSRVID = {"train": TRAIN_2012[1], "test": datasets.BY_ID["sts12.MSRvid"]}


def supervised_raw_files() -> list[str]:
    """Paths under data/raw the supervised tables may be built from; the fetch stage always fetches all of
    them, so choosing other STS sets (``supervised.sts_sets``) reruns only the supervised stages."""
    return [f for s in sts_sets("all") for f in s.files] + [f for s in SICK_SPLITS.values() for f in s.files]


def pwim_raw_files() -> list[str]:
    """Paths under data/raw the PWIM tables are built from."""
    specs = [*SICK_SPLITS.values(), *STS2014_TRAIN, *STS2014_TEST, *MSRVID.values()]
    return list(dict.fromkeys(f for s in specs for f in s.files))
