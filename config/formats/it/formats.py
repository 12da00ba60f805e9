"""Italian dates without a leading zero ("3 marzo 2026", where Django's own Italian writes
"03 marzo 2026"); every other format is Django's (docs/languages.md)."""

DATE_FORMAT = "j F Y"
