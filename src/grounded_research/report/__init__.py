"""Report writing and reading back: `write` (the report, section by section), `body` (the
answer to each sub-question), `sections` (the one table of the report's sections, to
render and to parse), `citations` (how a report cites and how its claims are read back)
and `verify` (each claim checked against what it cites)."""
