"""The evaluation benchmark: which files make up each similarity set and how the paper names it.

The 22 transfer sets of Wieting & Gimpel (2017) are the 20 STS 2012-2015 sets, SICK 2014 test and
Twitter PIT 2015 test; the 5 STS 2016 sets are used for model selection ("test" selection).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EvalSet:
    id: str
    group: str  # year group as the paper's Table 4 prints it
    paper_name: str  # row label in the paper's Table 4 (empty for sets it does not list)
    format: str  # reader: "sts", "sts2016", "sick", "twitter"
    files: tuple[str, ...]  # paths under data/raw

    @property
    def transfer(self) -> bool:
        return self.group != "STS 2016"


def _sts(year: int, name: str, paper_name: str) -> EvalSet:
    folder = f"sts/{year}"
    if year == 2016:
        files = (f"{folder}/STS2016.input.{name}.txt", f"{folder}/STS2016.gs.{name}.txt")
        return EvalSet(f"sts16.{name}", "STS 2016", paper_name, "sts2016", files)
    files = (f"{folder}/STS.input.{name}.txt", f"{folder}/STS.gs.{name}.txt")
    return EvalSet(f"sts{year % 100}.{name}", f"STS {year}", paper_name, "sts", files)


EVAL_SETS: tuple[EvalSet, ...] = (
    _sts(2012, "MSRpar", "MSRpar"),
    _sts(2012, "MSRvid", "MSRvid"),
    _sts(2012, "SMTeuroparl", "SMT-eur"),
    _sts(2012, "surprise.OnWN", "OnWN"),
    _sts(2012, "surprise.SMTnews", "SMT-news"),
    _sts(2013, "headlines", "headline"),
    _sts(2013, "OnWN", "OnWN"),
    _sts(2013, "FNWN", "FNWN"),
    _sts(2013, "SMT", "SMT"),
    _sts(2014, "deft-forum", "deft forum"),
    _sts(2014, "deft-news", "deft news"),
    _sts(2014, "headlines", "headline"),
    _sts(2014, "images", "images"),
    _sts(2014, "OnWN", "OnWN"),
    _sts(2014, "tweet-news", "tweet news"),
    _sts(2015, "answers-forums", "answers-forums"),
    _sts(2015, "answers-students", "answers-students"),
    _sts(2015, "belief", "belief"),
    _sts(2015, "headlines", "headline"),
    _sts(2015, "images", "images"),
    EvalSet("sick.test", "2014 SICK", "2014 SICK", "sick", ("sts/sick2014/SICK_test_annotated.txt",)),
    EvalSet(
        "twitter.test",
        "2015 Twitter",
        "2015 Twitter",
        "twitter",
        ("sts/twitter2015/test.data", "sts/twitter2015/test.label"),
    ),
    _sts(2016, "answer-answer", "answer-answer"),
    _sts(2016, "headlines", "headlines"),
    _sts(2016, "plagiarism", "plagiarism"),
    _sts(2016, "postediting", "postediting"),
    _sts(2016, "question-question", "question-question"),
)

BY_ID = {s.id: s for s in EVAL_SETS}
TRANSFER_SET_COUNT = sum(s.transfer for s in EVAL_SETS)  # the paper's 22


def transfer_count(ids) -> int:
    """How many of the sets ``ids`` names are transfer sets (an id of no set here is not counted)."""
    return sum(BY_ID[i].transfer for i in ids if i in BY_ID)

# Scored pairs per set in the official releases (../shared/data/sts/SOURCE.md); readers are
# tested against these.
OFFICIAL_PAIR_COUNTS = {
    "sts12.MSRpar": 750, "sts12.MSRvid": 750, "sts12.SMTeuroparl": 459,
    "sts12.surprise.OnWN": 750, "sts12.surprise.SMTnews": 399,
    "sts13.headlines": 750, "sts13.OnWN": 561, "sts13.FNWN": 189, "sts13.SMT": 750,
    "sts14.deft-forum": 450, "sts14.deft-news": 300, "sts14.headlines": 750,
    "sts14.images": 750, "sts14.OnWN": 750, "sts14.tweet-news": 750,
    "sts15.answers-forums": 375, "sts15.answers-students": 750, "sts15.belief": 375,
    "sts15.headlines": 750, "sts15.images": 750,
    "sick.test": 4927, "twitter.test": 972,
    "sts16.answer-answer": 254, "sts16.headlines": 249, "sts16.plagiarism": 230,
    "sts16.postediting": 244, "sts16.question-question": 209,
}  # fmt: skip


def resolve(ids: str | list[str]) -> list[EvalSet]:
    """``"all"`` or a list of set ids -> EvalSet objects, in benchmark order."""
    if ids == "all":
        return list(EVAL_SETS)
    unknown = sorted(set(ids) - BY_ID.keys())
    if unknown:
        raise KeyError(f"unknown evaluation set(s) {unknown}; known: {sorted(BY_ID)}")
    wanted = set(ids)
    return [s for s in EVAL_SETS if s.id in wanted]
