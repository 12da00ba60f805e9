"""Benchmarks of MultipliPotion Classroom: `make bench` runs them (see docs/performance.md)."""
