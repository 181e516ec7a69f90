"""Errors a user can cause: each carries a one-line message and an exit code."""


class GroundedResearchError(Exception):
    exit_code = 1


class InputError(GroundedResearchError):
    """The question or an option is unusable."""

    exit_code = 64


class ConfigurationError(InputError):
    pass


class CorpusError(InputError):
    """The corpus path is missing or not a folder / .jsonl file."""


class RunRefused(ConfigurationError, ValueError):
    """A served run asked for what the operator's policy does not allow (`policy.py`).
    A `ValueError` too: a LangGraph server shows the caller the message of a ValueError,
    and hides that of an exception it does not know."""
