"""The report's findings: statements computed from this run's numbers, the gains over the initial vectors and
each of the paper's orderings checked."""

from __future__ import annotations

import numpy as np

from paraphrastic.evaluation.selection import Selection
from paraphrastic.report.document import transfer_set_count


def findings(config: dict, sel: Selection, baseline: float) -> list[str]:
    """Statements computed from this run's numbers: gains over the initial vectors and the paper's orderings."""
    lines = []
    t4 = config["report"]["table4"]
    mean = f"{transfer_set_count(sel)}-set mean"  # the paper's 22, unless the config scores fewer
    for column, row in t4.items():
        gain = sel.score(row) - baseline
        line = (f"{column} ({row}): {sel.score(row):.1f} on the {mean}, {gain:+.1f} against the averaged initial "
                f"vectors ({baseline:.1f})")
        if abs(gain) < 0.05:  # printed as ±0.0: say why rather than leave it to read as a model that never trained
            line += (f" (a difference of {gain:+.3f}: the epoch STS 2016 selects moved the vectors too little to "
                     "change the mean at one decimal, as a short run on few pairs can)")
        lines.append(line + ".")

    def order(claim: str, low: str | None, high: str | None, strict: bool = True):
        if low in sel.chosen and high in sel.chosen:
            a, b = sel.score(low), sel.score(high)
            holds = a < b if strict else a <= b
            spread = ""
            if len(sel.scores(low)) > 1 or len(sel.scores(high)) > 1:
                # with replicas, say whether the gap exceeds the seed-to-seed spread
                sd = max(np.nan_to_num(sel.sd(low)), np.nan_to_num(sel.sd(high)))
                spread = f"; the gap is {abs(b - a) / sd:.1f} seed sd" if sd > 0 else ""
            lines.append(f"{claim}: {'holds' if holds else 'does not hold'} here "
                         f"({low} {sel.shown(low)} vs {high} {sel.shown(high)}{spread}).")

    for data_name, cols in config["report"]["table1"].items():
        order(f"Paper: LSTM < LSTMavg ({data_name})", cols.get("lstm"), cols.get("lstmavg"))
    t1 = config["report"]["table1"]
    for model in ("avg", "lstm", "lstmavg"):
        order(f"Paper: {model} trained on PPDB < on SimpWiki (token-matched)", t1.get("PPDB", {}).get(model),
              t1.get("SimpWiki", {}).get(model))
    order("Paper: avg ≤ regularised LSTMavg", t4.get("avg"), t4.get("lstmavg"), strict=False)
    order("Paper: LSTMavg ≤ GRAN", t4.get("lstmavg"), t4.get("gran"), strict=False)
    return lines
