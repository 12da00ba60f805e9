"""English dates as the app has always written them (British: "3 Mar 2026", "3 Mar"), in
place of Django's American defaults. Spanish and Italian use Django's own formats
("3 de marzo de 2026"); settings.FORMAT_MODULE_PATH points here (docs/languages.md)."""

DATE_FORMAT = "j M Y"
MONTH_DAY_FORMAT = "j M"
