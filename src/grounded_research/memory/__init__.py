"""The research memory of a thread: what follow-up questions build on (`state.Memory`)."""
