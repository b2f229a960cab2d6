"""Stage 4, reports: a finished `Report` -> text a person or a program reads.

Takes a `Report`; gives it as text, JSON, JSONL, markdown (the job summary's body) or SARIF
(`render` picks by `--format`), escaped for where it lands (`escape`), each verdict's reasons worded
the same in every format (`reasons`), what judging used and how long it took in the same words
(`usage`: an unknown cost stays unknown), and reads a results file back (`load`). GitHub's own
surfaces (check runs, comments, outputs) are in `evalgate.github`.
"""

# A run's own report shows rubric health (evalgate.report.health) from this many evaluated files on:
# here, so a report of fewer files knows it without importing that module.
HEALTH_MIN_FILES = 20
