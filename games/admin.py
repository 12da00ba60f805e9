"""The Django admin for games: look, never rewrite history.

A match's state only changes through ``Match.play`` (locked, versioned), and the move log is
append-only, so matches, seats and moves are read-only here. A match can be deleted as a
whole (its seats and moves go with it).
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.models import Match
from games.models import Move
from games.models import Seat

ACTION_SUMMARY_LENGTH = 60


def action_summary(action) -> str:
    """{"type": "place", "card": 12} → "place card=12" (shortened)."""
    if not isinstance(action, dict):
        text = str(action)
    else:
        rest = ", ".join(f"{k}={v}" for k, v in action.items() if k != "type")
        text = " ".join(part for part in (str(action.get("type", "")), rest) if part)
    if len(text) > ACTION_SUMMARY_LENGTH:
        text = text[: ACTION_SUMMARY_LENGTH - 1] + "…"
    return text


class ReadOnlyAdmin(admin.ModelAdmin):
    """View-only for everyone, superusers included."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ReadOnlyInline(admin.TabularInline):
    """A match's rows, to look at: no adding, changing or deleting."""

    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ["number", "kind", "name", "bot_level", "last_seen_at"]
    readonly_fields = fields


class MoveInline(ReadOnlyInline):
    model = Move
    fields = ["ply", "seat", "summary", "think_ms", "created_at"]
    readonly_fields = fields

    @admin.display(description=pgettext_lazy("admin column: what a move did", "action"))
    def summary(self, obj):
        return action_summary(obj.action)


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["public_id", "seat_names", "game", "status", "version", "created_at",
                    "finished_at"]  # fmt: skip
    list_filter = ["status", "game", "family"]
    search_fields = ["public_id", "seats__name"]
    date_hierarchy = "created_at"
    inlines = [SeatInline, MoveInline]
    # The state holds every hand (and the deck): never shown here; replay the match instead.
    exclude = ["state", "recent_events"]
    show_full_result_count = False

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("seats")

    def get_search_results(self, request, queryset, search_term):
        queryset, _may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False

    def get_exclude(self, request, obj=None):
        names = {f.name for f in Match._meta.get_fields()}
        return [name for name in self.exclude if name in names]

    @admin.display(description=_("seats"))
    def seat_names(self, obj):
        return " · ".join(seat.name for seat in obj.seat_list())

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ["match", "number", "kind", "name", "bot_level", "last_seen_at"]
    list_filter = ["kind", "bot_level"]
    search_fields = ["name", "match__public_id"]
    list_select_related = ["match"]
    # The owner key is the secret that ties a seat to a browser: never shown.
    fields = ["match", "number", "kind", "name", "user", "bot_level", "last_seen_at"]

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Move)
class MoveAdmin(ReadOnlyAdmin):
    list_display = ["match", "ply", "seat", "summary", "think_ms", "created_at"]
    search_fields = ["match__public_id"]
    list_select_related = ["match"]
    date_hierarchy = "created_at"
    fields = ["match", "ply", "seat", "action", "events", "client_move_id", "think_ms",
              "created_at"]  # fmt: skip
    show_full_result_count = False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=pgettext_lazy("admin column: what a move did", "action"))
    def summary(self, obj):
        return action_summary(obj.action)
