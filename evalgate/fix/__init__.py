"""Stage 2b, fixes: `evalgate fix PATH...` rewrites what a deterministic check found and knows the
answer to (acronym expansions; with a rubric that prohibits em-dashes, such as research-review, the
em-dashes whose sentence decides the replacement), in place and atomically, or prints the diff
(`--diff`).

Takes the files `check` would read and the same rubric and configuration, so a fix makes exactly the
change the check's finding asks for; gives fixed files, a per-file account of what was fixed and what
is left for the author. Built on the checks (evalgate/checks), used only by the command line.
"""
