"""Gap rules: what is still missing or contradictory per sub-question, and what to
search next. `check` is the stage (the gap check and the loop's decision), `rules` the
rule-based gaps, `judgement` a model's view of them, `conflicts` sources that disagree,
`kinds` the groups of gap kinds every other stage reads gaps by."""
