"""Simulated classes for bench/evidence_week.py; ``literature`` is the default."""
