"""Policies (bots): who decides what, given the candidates the engine lists."""

from smsim.errors import PolicyError  # noqa: F401  (where the registry and its users have always found it)


