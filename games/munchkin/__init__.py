"""Munchkin: doors, monsters and treasure to level 10."""
