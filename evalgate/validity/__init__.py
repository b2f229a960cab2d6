"""Stage 5, validity: measuring the judge itself, over runs of the pipeline.

Takes labelled gold items, frozen canary fixtures, pairs of documents, pilot configurations and
history files; gives calibration against the gold labels (`calibrate`: kappa, exact and adjacent
agreement), drift against frozen scores (`canary`), pairwise preference asked in both orders
(`compare`), the trio pilot (`pilot`) and pass rates and trend alerts over time (`history`). Each
command runs the pipeline (`evalgate.run`) or the judges; none is needed to gate a file.
"""
