"""Boardcast hub: matches, rules, event log, fan-out, web app and CLI."""

__version__ = "0.1.0"
