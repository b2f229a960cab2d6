"""Stage 6, GitHub: events in, check runs, annotations, comments and outputs out.

Takes the runner's environment and event payload (push, pull_request, merge_group, workflow_dispatch);
gives the targets a run evaluates (`events`, `changes`: git diffs of the event's range) and, once the
run is done, the report posted where GitHub shows it: a check run with annotations (`checks_run`), a
sticky PR comment (`comment`), workflow commands, step outputs and the job summary (`workflow`),
through one REST client (`api`) and `publish`. `action` is the container action's main; `merge`
combines the results of sharded jobs and publishes them once. Nothing below this stage imports it.
"""
