"""The findings: each of the paper's orderings checked against this run's numbers."""

from paraphrastic.evaluation.selection import Selection
from paraphrastic.report.findings import findings
from tests.report.conftest import BASELINE


def test_findings_check_the_papers_orderings(results):
    config, folder = results
    lines = findings(config, Selection(config, folder), BASELINE)
    assert "lstmavg (lstmavg-simpwiki): 47.1 on the 2-set mean, +17.1 against the averaged initial vectors " \
           "(30.0)." in lines
    # avg-simpwiki_matched 41.1 < lstmavg-simpwiki 47.1 > gran-simpwiki 43.1 (runs score by their names' order)
    assert "Paper: avg ≤ regularised LSTMavg: holds here (avg-simpwiki_matched 41.1 vs lstmavg-simpwiki 47.1)." \
        in lines
    assert "Paper: LSTMavg ≤ GRAN: does not hold here (lstmavg-simpwiki 47.1 vs gran-simpwiki 43.1)." in lines
    assert "Paper: avg trained on PPDB < on SimpWiki (token-matched): holds here (avg-ppdb 39.1 vs " \
           "avg-simpwiki_matched 41.1)." in lines


def test_a_gain_that_prints_as_zero_says_why(results):
    """A trained row within 0.05 of the averaged initial vectors would read "+0.0", as if it never trained."""
    config, folder = results
    sel = Selection(config, folder)
    row = config["report"]["table4"]["lstmavg"]
    lines = findings(config, sel, sel.score(row) - 0.02)
    line = next(line for line in lines if line.startswith(f"lstmavg ({row})"))
    assert "+0.0 against the averaged initial vectors" in line and "(a difference of +0.020: the epoch STS 2016 " \
        "selects moved the vectors too little to change the mean at one decimal" in line
    assert not any("a difference of" in line for line in findings(config, sel, BASELINE))
