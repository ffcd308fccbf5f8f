"""The names of the similarity tasks each supervised family trains on (the CLI, the workflow and the
schema all take them from here)."""

SUPERVISED_TASKS = ("sts", "sick")  # Sec. 4.3: STS 2012-2015 split 40/10/50, and SICK 2014
PWIM_TASKS = ("sick", "msrvid", "sts2014")  # He & Lin (2016), Sec. 8
