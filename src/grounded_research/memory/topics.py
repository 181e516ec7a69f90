"""Which of the thread's memories a question builds on: the current one while it stays
on its topic; an earlier one when it returns to that topic; a fresh one otherwise. A
memory left behind stays on the thread (`earlier_memories`); the user's constraints go
along with every switch."""

from __future__ import annotations

from dataclasses import dataclass

from grounded_research.memory.recall import overlap
from grounded_research.state import Memory


@dataclass
class Topic:
    memory: Memory
    overlap: float | None  # with the current memory (None: the thread's first turn)
    drifted: bool = False  # the question left the current memory's topic
    resumed: bool = False  # for an earlier topic, whose memory it takes up again
    earlier: list[Memory] | None = None  # the memories left behind (None: unchanged)


def topic_of(question: str, current: Memory, earlier: list[Memory], threshold: float) -> Topic:
    if not current.turns:
        return Topic(Memory(topic=current.topic + 1, constraints=current.constraints), None)
    known = overlap(question, current)
    if known >= threshold:
        return Topic(current, known)
    best = max(earlier, key=lambda memory: overlap(question, memory), default=None)
    if best is not None and overlap(question, best) >= threshold:
        resumed = best.model_copy(update={"constraints": current.constraints})
        left = [memory for memory in earlier if memory is not best]
        return Topic(resumed, known, drifted=True, resumed=True, earlier=[*left, current])
    number = max(memory.topic for memory in [current, *earlier]) + 1
    fresh = Memory(topic=number, constraints=current.constraints)
    return Topic(fresh, known, drifted=True, earlier=[*earlier, current])
