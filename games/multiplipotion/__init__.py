"""MultipliPotion: multiply two potions to capture monsters (the classroom's game)."""
