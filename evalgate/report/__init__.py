"""Stage 4, reports: a finished `Report` -> text a person or a program reads.

Takes a `Report`; gives it as text, JSON, JSONL, markdown (the job summary's body) or SARIF
(`render` picks by `--format`), escaped for where it lands (`escape`), each verdict's reasons worded
the same in every format (`reasons`), and reads a results file back (`load`). GitHub's own
surfaces (check runs, comments, outputs) are in `evalgate.github`.
"""
