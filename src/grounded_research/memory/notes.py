"""What a follow-up's report says about the thread, under its title: that the turn was
answered from the thread's earlier research, which earlier statements a correction
replaces, the constraints in effect, and that a question on another topic started afresh."""

from __future__ import annotations

from grounded_research.report.citations import escaped
from grounded_research.state import State


def thread_notes(state: State) -> str:
    """Note lines (no claims: the verifier reads none of them), or "" on a plain first turn."""
    turn = state.turn
    lines: list[str] = []
    if turn.resumed:
        earlier = state.memory.turns[:-1]
        turns = f"turn{'s' if len(earlier) > 1 else ''} {', '.join(map(str, earlier))}"
        lines.append(
            f"Back to an earlier topic of this thread ({turns}): its research memory is "
            "taken up again."
        )
    elif turn.drifted:
        lines.append(
            f"Another topic: {turn.overlap or 0:.0%} of this question's terms are in the "
            "thread's earlier research, so it was researched afresh (the earlier research "
            "memory is kept on the thread)."
        )
    if turn.asked != " ".join(turn.question.split()):
        lines.append(f"Researched as: {turn.asked}")
    lines += [f"Correction: {replaced}." for replaced in turn.replaced]
    constraints = [c.text for c in state.memory.constraints if c.kind != "meant"]
    if constraints:
        lines.append("Constraints in effect: " + " ".join(constraints))
    if turn.from_memory:
        lines.append(
            f"Turn {turn.number}: answered from the thread's earlier research, no new search."
        )
    return "".join(f"_{escaped(line)}_\n\n" for line in lines)


def with_thread_notes(report: str, state: State) -> str:
    """The report with the thread notes after its title line."""
    notes = thread_notes(state)
    if not notes:
        return report
    title, _, rest = report.partition("\n\n")
    return f"{title}\n\n{notes}{rest}"
