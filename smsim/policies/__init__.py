"""Policies (bots): who decides what, given the candidates the engine lists."""


class PolicyError(ValueError):
    """An unknown or malformed policy; the message names it. Defined here, not in the registry,
    so that the command line can name it without loading the jitted policies."""
