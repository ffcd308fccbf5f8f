"""The report: our numbers beside the papers' tables, as markdown and self-contained HTML."""
