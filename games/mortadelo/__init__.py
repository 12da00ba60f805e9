"""Mortadelo Multiverso: secret card duels."""
