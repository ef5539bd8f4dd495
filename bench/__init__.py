"""Benchmarks: ``python -m bench [vehicles|battle|particles] [--json]``.

Each benchmark measures one part of the game in this process and prints a
table, or with ``--json`` one JSON document (the machine, the parameters and
the results) so runs on different machines or commits can be compared.
Benchmark sizes are command-line flags with documented defaults, never config.
"""
