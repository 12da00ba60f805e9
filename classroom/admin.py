from django.contrib import admin

from classroom.models import Classroom, Membership, School, Student, WorkerHeartbeat


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(School)
class SchoolAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "school", "role", "created_at"]
    list_filter = ["role", "school"]
    search_fields = ["user__username", "user__email", "school__name"]


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ["name", "school", "teacher", "code", "archived_at"]
    list_filter = ["school", "archived_at"]
    search_fields = ["name", "code", "teacher__username"]


@admin.register(Student)
class StudentAdmin(admin.ModelAdmin):
    list_display = ["name", "classroom", "archived_at"]
    list_filter = ["classroom__school"]
    search_fields = ["name", "classroom__name"]


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ["hostname", "seen_at"]
