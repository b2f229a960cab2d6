"""Stage 3, judging: a document and a rubric -> each judge's scores, parsed, verified and combined.

Takes documents (or structured input items) and the rubric's judged dimensions; gives per-judge
`JudgeCall`s with per-dimension scores and quoted evidence checked against the document. `prompt`
renders the Jinja2 template (criteria in an order drawn per call; the template set's hash is the
prompt version), `backends/` asks a judge (Copilot CLI, OpenAI-compatible,
command, replay), `parse` reads its score table or JSON, `evidence` verifies its quotes, `cache`
keeps replies keyed by everything that shapes them, `judge` and `setup` run the calls, `ensemble`
combines several judges on a dimension and `agreement` measures how far they agree; `budget` admits
calls while the run's judging budget lasts, and `calibration` reads a stored calibration record and
says whether it covers a run's judges. The verdict is not decided here (`evalgate.gate` does that
from the rubric's policy).
"""
