"""Test support that stands in for hardware: importable by tests and demos, never used by the hub itself."""
