"""The Django admin, for superusers: find things, fix the few fields that are safe to edit.

Children's data stays minimal here too: a child is a name, a class and a group. Sign-in
secrets (the picture password, the badge token) are never shown.
"""

from django import forms
from django.contrib import admin
from django.db.models import Count
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from classroom.models import Assignment
from classroom.models import ChildSeat
from classroom.models import Classroom
from classroom.models import Group
from classroom.models import Invite
from classroom.models import Membership
from classroom.models import School
from classroom.models import Student
from classroom.models import WaitingEntry
from classroom.models import WorkerHeartbeat
from classroom.models import session_of
from games.admin import MatchAdmin
from games.admin import MoveInline
from games.admin import SeatAdmin
from games.admin import SeatInline
from games.models import Match
from games.models import Seat


class ArchivedFilter(admin.SimpleListFilter):
    title = pgettext_lazy("admin filter: classes or children in the archive or not", "archived")
    parameter_name = "archived"

    def lookups(self, request, model_admin):
        return [
            ("no", pgettext_lazy("admin filter: classes or children not in the archive", "Active")),
            ("yes", pgettext_lazy("admin filter: classes or children in the archive", "Archived")),
        ]

    def queryset(self, request, queryset):
        if self.value() == "no":
            return queryset.filter(archived_at__isnull=True)
        if self.value() == "yes":
            return queryset.filter(archived_at__isnull=False)
        return queryset


# --- schools and their grown-ups ---------------------------------------------------------


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]
    readonly_fields = ["created_at"]


@admin.register(School)
class SchoolAdmin(admin.ModelAdmin):
    list_display = [
        *("name", "timezone", "language", "day_ends_at"),
        *("member_count", "class_count", "created_at"),
    ]
    search_fields = ["name"]
    list_filter = ["timezone", "language"]
    readonly_fields = ["created_at"]
    inlines = [MembershipInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                member_count=Count("memberships", distinct=True),
                class_count=Count(
                    "classrooms", filter=Q(classrooms__archived_at__isnull=True), distinct=True
                ),
            )
        )

    @admin.display(description=_("grown-ups"), ordering="member_count")
    def member_count(self, obj):
        return obj.member_count

    @admin.display(description=_("active classes"), ordering="class_count")
    def class_count(self, obj):
        return obj.class_count


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "email", "school", "role", "created_at"]
    list_filter = ["role", "school"]
    search_fields = ["user__username", "user__email", "user__first_name", "school__name"]
    list_select_related = ["user", "school"]
    autocomplete_fields = ["user", "school"]
    readonly_fields = ["created_at"]

    @admin.display(
        description=pgettext_lazy("admin column: a grown-up's e-mail address", "e-mail"),
        ordering="user__email",
    )
    def email(self, obj):
        return obj.user.email


class InviteStateFilter(admin.SimpleListFilter):
    title = pgettext_lazy("admin: an invite link's state", "state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return Invite.State.choices

    def queryset(self, request, queryset):
        now = timezone.now()
        match self.value():
            case Invite.State.OPEN:
                return queryset.usable(now)
            case Invite.State.USED:
                return queryset.filter(used_at__isnull=False)
            case Invite.State.REVOKED:
                return queryset.filter(used_at__isnull=True, revoked_at__isnull=False)
            case Invite.State.EXPIRED:
                return queryset.filter(
                    used_at__isnull=True, revoked_at__isnull=True, expires_at__lte=now
                )
        return queryset


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ["school", "role", "note", "created_by", "created_at", "expires_at", "state"]
    list_filter = [InviteStateFilter, "role", "school"]
    search_fields = ["note", "school__name", "created_by__username", "used_by__username"]
    list_select_related = ["school", "created_by"]
    autocomplete_fields = ["school"]
    # The token is the secret of the link; who made and used it is history.
    fields = ["school", "role", "note", "expires_at", "created_by", "created_at", "used_at",
              "used_by", "revoked_at"]  # fmt: skip
    readonly_fields = ["created_by", "created_at", "used_at", "used_by"]
    actions = ["revoke_selected"]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None:
            return [*self.readonly_fields, "school"]
        return self.readonly_fields

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    @admin.display(description=pgettext_lazy("admin: an invite link's state", "state"))
    def state(self, obj):
        return obj.get_state_display()

    @admin.action(description=_("Revoke the selected invite links"))
    def revoke_selected(self, request, queryset):
        revoked = sum(invite.revoke() for invite in queryset)
        self.message_user(request, _("%(n)d invite links revoked.") % {"n": revoked})


# --- classes, groups and children -----------------------------------------------------------


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ["name", "school", "teacher", "code", "child_count", "archived_at"]
    list_filter = [ArchivedFilter, "school"]
    search_fields = ["name", "code", "teacher__username", "teacher__email", "school__name"]
    list_select_related = ["school", "teacher"]
    autocomplete_fields = ["school", "teacher"]
    # The code is changed by the teacher ("new class code"), which also keeps it unique.
    readonly_fields = ["code", "signin_generation", "created_at"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(child_count=Count("students", filter=Q(students__archived_at__isnull=True)))
        )

    @admin.display(description=_("children"), ordering="child_count")
    def child_count(self, obj):
        return obj.child_count


@admin.register(Group)
class GroupAdmin(admin.ModelAdmin):
    list_display = ["name", "classroom", "school", "child_count"]
    list_filter = ["classroom__school"]
    search_fields = ["name", "classroom__name"]
    list_select_related = ["classroom__school"]
    autocomplete_fields = ["classroom"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(child_count=Count("students"))

    def get_readonly_fields(self, request, obj=None):
        # Moving a group to another class would leave its children behind.
        return ["classroom"] if obj is not None else []

    @admin.display(description=_("school"), ordering="classroom__school__name")
    def school(self, obj):
        return obj.classroom.school

    @admin.display(description=_("children"), ordering="child_count")
    def child_count(self, obj):
        return obj.child_count


class LockedFilter(admin.SimpleListFilter):
    title = _("sign-in locked")
    parameter_name = "locked"

    def lookups(self, request, model_admin):
        return [
            ("yes", pgettext_lazy("admin filter: a child's sign-in is locked", "Locked now")),
            ("no", pgettext_lazy("admin filter: a child's sign-in is not locked", "Not locked")),
        ]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "yes":
            return queryset.filter(locked_until__gt=now)
        if self.value() == "no":
            return queryset.exclude(locked_until__gt=now)
        return queryset


class StudentAdminForm(forms.ModelForm):
    class Meta:
        model = Student
        fields = ["name", "classroom", "group", "locked_until", "archived_at"]

    def clean(self):
        cleaned = super().clean()
        group, classroom = cleaned.get("group"), cleaned.get("classroom")
        if group is not None and classroom is not None and group.classroom_id != classroom.pk:
            self.add_error("group", _("Pick a group of the child's class, or none."))
        return cleaned


@admin.register(Student)
class StudentAdmin(admin.ModelAdmin):
    form = StudentAdminForm
    # A first name or nickname, a class, a group: nothing more. No picture password, no badge.
    list_display = ["name", "classroom", "group", "locked", "archived"]
    list_filter = [ArchivedFilter, LockedFilter, "classroom__school"]
    search_fields = ["name", "classroom__name", "classroom__code"]
    list_select_related = ["classroom", "group"]
    autocomplete_fields = ["classroom", "group"]
    fields = ["name", "classroom", "group", "locked_until", "archived_at"]

    @admin.display(
        description=pgettext_lazy("admin column: a child's sign-in is locked", "locked"),
        boolean=True,
    )
    def locked(self, obj):
        return obj.locked_until is not None and obj.locked_until > timezone.now()

    @admin.display(
        description=pgettext_lazy("a child is in the archive", "archived"),
        boolean=True,
        ordering="archived_at",
    )
    def archived(self, obj):
        return obj.archived_at is not None


# --- assignments and the waiting room ------------------------------------------------------


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["title", "classroom", "status", "tier", "opponents", "target", "opens_at",
                    "closes_at", "accuracy_first"]  # fmt: skip
    list_filter = ["status", "tier", "opponents", "accuracy_first", "classroom__school"]
    search_fields = ["title", "classroom__name", "classroom__code"]
    list_select_related = ["classroom"]
    autocomplete_fields = ["classroom", "groups", "students"]
    readonly_fields = ["created_by", "created_at", "ended_at"]
    date_hierarchy = "opens_at"

    @admin.display(
        description=pgettext_lazy("a game session's target (games or minutes)", "target")
    )
    def target(self, obj):
        return f"{obj.target_value} {obj.get_target_kind_display()}"


@admin.register(WaitingEntry)
class WaitingEntryAdmin(admin.ModelAdmin):
    """Who waits in which waiting room. Entries come and go with the children: view them,
    or delete one that is stuck; never add or edit."""

    list_display = ["student", "assignment", "tier", "created_at", "match"]
    list_filter = ["tier"]
    search_fields = ["student__name", "assignment__title"]
    list_select_related = ["student", "assignment", "match"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ["hostname", "seen_at", "age", "last_sent_at"]
    search_fields = ["hostname"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("seconds since"))
    def age(self, obj):
        return int((timezone.now() - obj.seen_at).total_seconds())


# The games' match and seat lists, with what the classroom knows of a match: its session, the
# session's school, and the child of a child's seat (the platform's own admin knows nothing of
# any of them).
admin.site.unregister(Match)
admin.site.unregister(Seat)


def child_of(seat) -> str:
    try:
        return str(seat.child_link.student)
    except ChildSeat.DoesNotExist:
        return "–"


class ClassroomSeatInline(SeatInline):
    fields = [*SeatInline.fields[:3], "child", *SeatInline.fields[3:]]
    readonly_fields = fields

    @admin.display(description=_("child"))
    def child(self, obj):
        return child_of(obj)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("child_link__student")


@admin.register(Seat)
class ClassroomSeatAdmin(SeatAdmin):
    list_display = [*SeatAdmin.list_display[:4], "child", *SeatAdmin.list_display[4:]]
    search_fields = [*SeatAdmin.search_fields, "child_link__student__name"]
    list_select_related = [*SeatAdmin.list_select_related, "child_link__student"]
    fields = [*SeatAdmin.fields[:5], "child", *SeatAdmin.fields[5:]]
    readonly_fields = ["child"]

    @admin.display(description=_("child"))
    def child(self, obj):
        return child_of(obj)


@admin.register(Match)
class ClassroomMatchAdmin(MatchAdmin):
    inlines = [ClassroomSeatInline, MoveInline]
    list_display = [*MatchAdmin.list_display, "session"]
    list_filter = [*MatchAdmin.list_filter, "assignments__classroom__school"]
    search_fields = [*MatchAdmin.search_fields, "assignments__title"]
    list_select_related = ["session_link__assignment"]

    @admin.display(description=_("session"))
    def session(self, obj):
        return session_of(obj) or "–"
