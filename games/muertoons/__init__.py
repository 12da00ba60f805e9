"""Muertoons: shed your cards on the way to the party."""
