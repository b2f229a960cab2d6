"""Stage 5, validity: measuring the judge itself, over runs of the pipeline.

Takes labelled gold items, frozen canary fixtures, pairs of documents, pilot configurations and
history files; gives calibration against the labels the annotators agree on (`gold` reads the gold
set and measures the annotators against each other, `calibrate` the judges against the floors of
exact and adjacent agreement and kappa, `calibrate_command` the command and its `--record`), drift
against frozen scores (`canary`, against a baseline that says who recorded it: `canary_baseline`),
pairwise preference asked in both orders (`compare`), the position effect of the criteria order on
both (`position`), the trio pilot in the protocol's record and summary shapes (`pilot`, with
`pilot_config`, `pilot_records`, `pilot_summary`, `pilot_schema`) and pass rates, trend alerts and
rubric health over time, in series of one rubric and prompt version (`history`, drawn by
`history_chart`, shown by `history_view`). Each command runs the pipeline (`evalgate.run`) or the
judges; none is needed to gate a file.
"""
