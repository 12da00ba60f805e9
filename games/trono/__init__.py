"""Il Trono di Mortadella: dice, tokens and secret roles."""
