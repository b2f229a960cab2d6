"""Stage 6, GitHub: events in, check runs, annotations, comments and outputs out.

Takes the runner's environment and event payload (push, pull_request, merge_group, workflow_dispatch);
gives the targets a run evaluates (`events`, `changes`: git diffs of the event's range, `globs`: the
`paths` filter, `selection`: what the changes select and why the rest is not evaluated) and, once the
run is done, the report posted where GitHub shows it: a check run with annotations (`checks_run`), a
sticky PR comment (`comment`), workflow commands, step outputs and the job summary (`workflow`),
through one REST client (`api`) and `publish`. `action` is the container action's main: on a pull
request it takes the policy from the trusted base commit (`policy`, and `policy_changes` reports what
the pull request would change), keeps the score history on a branch (`history_store`) and hands what
it wrote in the workspace to the workspace's owner (`ownership`); its tokens stay out of every
process's environment block (`credentials`) and its judges reach only what `isolation` lets them
(an unprivileged user, the base commit's tree). `merge` combines the results of
sharded jobs and publishes them once. Nothing below this stage imports it.
"""
