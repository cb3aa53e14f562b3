"""Policies (bots): who decides what, given the candidates the engine lists."""
