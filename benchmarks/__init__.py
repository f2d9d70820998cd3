"""Boardcast benchmarks: `python -m benchmarks [NAME ...] [--smoke] [--json FILE]`.

Each benchmark runs in its own process (the "server": the real hub parts, measured), against its baseline
in the same run, on loopback, bounded in time; client load comes from separate processes. See
`benchmarks/__main__.py` for the runner and the table it prints.
"""
