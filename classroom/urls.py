"""Classroom URLs, by area; reversed as ``classroom:<name>``. Every id in a path has a
converter of its exact shape (config/converters.py): any other path answers 404 before a view
runs."""

from django.urls import path
from django.urls import register_converter

from classroom import streams
from classroom.models.roster import CODE_ALPHABET
from classroom.models.roster import CODE_LENGTHS
from classroom.views import accounts
from classroom.views import child
from classroom.views import core
from classroom.views import exports
from classroom.views import language
from classroom.views import reports
from classroom.views import rosters
from classroom.views import school
from classroom.views import sessions
from classroom.views import warmup
from config import converters

register_converter(converters.PrimaryKey, "id")
register_converter(converters.typed_code(CODE_ALPHABET, CODE_LENGTHS), "class_code")
register_converter(converters.BadgeToken, "badge_token")
register_converter(converters.InviteToken, "invite_token")

app_name = "classroom"
urlpatterns = [
    # Home and health checks
    path("", core.home, name="home"),
    path("healthz", core.healthz, name="healthz"),
    path("healthz/web", core.healthz_web, name="healthz_web"),
    # Grown-ups' accounts: sign up, invites, My classes
    path("signup/", accounts.signup, name="signup"),
    path("invite/<invite_token:token>/", accounts.invite_accept, name="invite_accept"),
    path("teacher/", accounts.teacher_home, name="teacher_home"),
    # Classes, groups and children
    path("teacher/classes/new/", rosters.class_new, name="class_new"),
    path("teacher/classes/<id:pk>/", rosters.class_detail, name="class_detail"),
    path("teacher/classes/<id:pk>/rename/", rosters.class_edit, name="class_edit"),
    path("teacher/classes/<id:pk>/archive/", rosters.class_archive, name="class_archive"),
    path("teacher/classes/<id:pk>/restore/", rosters.class_restore, name="class_restore"),
    path("teacher/classes/<id:pk>/code/", rosters.class_code_new, name="class_code_new"),
    path("teacher/classes/<id:pk>/children/add/", rosters.roster_add, name="roster_add"),
    path("teacher/classes/<id:pk>/groups/new/", rosters.group_new, name="group_new"),
    path("teacher/groups/<id:pk>/", rosters.group_edit, name="group_edit"),
    path("teacher/groups/<id:pk>/delete/", rosters.group_delete, name="group_delete"),
    path("teacher/children/<id:pk>/", rosters.student_edit, name="student_edit"),
    path("teacher/children/<id:pk>/move/", rosters.student_move, name="student_move"),
    path("teacher/children/<id:pk>/archive/", rosters.student_archive, name="student_archive"),
    path("teacher/children/<id:pk>/restore/", rosters.student_restore, name="student_restore"),
    path("teacher/children/<id:pk>/delete/", rosters.student_delete, name="student_delete"),
    # Child sign-in: the class code, badges, pictures; the teacher's login cards
    path("join/", child.join, name="join"),
    path("join/badge/<badge_token:token>/", child.join_badge, name="join_badge"),
    path("join/<class_code:code>/", child.join_class, name="join_class"),
    path("join/<class_code:code>/<id:pk>/", child.join_pictures, name="join_pictures"),
    path("me/switch/", child.child_switch, name="child_switch"),
    path("teacher/classes/<id:pk>/cards/", child.login_cards, name="login_cards"),
    path(
        "teacher/classes/<id:pk>/end-sign-ins/", child.class_signins_end, name="class_signins_end"
    ),
    path(
        "teacher/classes/<id:pk>/unlock-all/",
        child.class_signins_unlock,
        name="class_signins_unlock",
    ),
    path(
        "teacher/students/<id:pk>/badge/", child.student_badge_revoke, name="student_badge_revoke"
    ),
    path(
        "teacher/students/<id:pk>/pictures/",
        child.student_pictures_new,
        name="student_pictures_new",
    ),
    path("teacher/students/<id:pk>/unlock/", child.student_unlock, name="student_unlock"),
    # Game sessions: the child's page, Play, the waiting room; the teacher's sessions and live wall
    path("me/", sessions.child_home, name="child_home"),
    path("me/play/<id:pk>/", sessions.child_play, name="child_play"),
    path("me/waiting/<id:pk>/", sessions.waiting_room, name="waiting_room"),
    path("me/waiting/<id:pk>/stream/", streams.waiting_stream, name="waiting_stream"),
    path("teacher/classes/<id:pk>/sessions/", sessions.assignment_list, name="assignment_list"),
    path("teacher/classes/<id:pk>/sessions/new/", sessions.assignment_new, name="assignment_new"),
    path("teacher/sessions/<id:pk>/edit/", sessions.assignment_edit, name="assignment_edit"),
    path("teacher/sessions/<id:pk>/end/", sessions.assignment_end, name="assignment_end"),
    path("teacher/classes/<id:pk>/wall/", sessions.session_wall, name="session_wall"),
    path("teacher/classes/<id:pk>/wall/board/", sessions.wall_board, name="wall_board"),
    path("teacher/classes/<id:pk>/wall/stream/", streams.wall_stream, name="wall_stream"),
    path("teacher/classes/<id:pk>/wall/pause/", sessions.wall_pause, name="wall_pause"),
    path("teacher/classes/<id:pk>/wall/resume/", sessions.wall_resume, name="wall_resume"),
    path("teacher/classes/<id:pk>/wall/end/", sessions.wall_end, name="wall_end"),
    # The warm-up: a child's rounds, the wall's warm-up buttons
    path("me/warm-up/", warmup.warm_up_home, name="warm_up_home"),
    path("me/warm-up/<id:pk>/", warmup.warm_up_round, name="warm_up_round"),
    path(
        "teacher/classes/<id:pk>/wall/warm-up/skip/",
        warmup.wall_warm_up,
        {"skipped": True},
        name="wall_warm_up_skip",
    ),
    path(
        "teacher/classes/<id:pk>/wall/warm-up/on/",
        warmup.wall_warm_up,
        {"skipped": False},
        name="wall_warm_up_on",
    ),
    # The language switcher of every page (Django's set_language, and a grown-up's account)
    path("language/", language.set_language, name="set_language"),
    # The school admin: dashboard, settings, invites, year end
    path("school/", school.school_dashboard, name="school_dashboard"),
    path("school/settings/", school.school_settings, name="school_settings"),
    path("school/invites/", school.invite_list, name="invite_list"),
    path("school/invites/new/", school.invite_new, name="invite_new"),
    path("school/invites/<id:pk>/revoke/", school.invite_revoke, name="invite_revoke"),
    path("school/year-end/", school.school_year_end, name="school_year_end"),
    # Reports and exports
    path("teacher/children/<id:pk>/report/", reports.child_report, name="child_report"),
    path("teacher/children/<id:pk>/report/<int:a>x<int:b>/", reports.child_fact, name="child_fact"),
    path(
        "teacher/children/<id:pk>/report/print/",
        reports.child_report_print,
        name="child_report_print",
    ),
    path(
        "teacher/children/<id:pk>/export.json", exports.child_export_json, name="child_export_json"
    ),
    path("teacher/children/<id:pk>/export.csv", exports.child_export_csv, name="child_export_csv"),
    path("teacher/classes/<id:pk>/report/", reports.class_report, name="class_report"),
    path("teacher/classes/<id:pk>/report/<int:a>x<int:b>/", reports.class_fact, name="class_fact"),
    path(
        "teacher/classes/<id:pk>/report/facts.csv",
        exports.class_export_csv,
        name="class_export_csv",
    ),
    path("teacher/classes/<id:pk>/recompute/", reports.recompute_start, name="recompute_start"),
    path("teacher/recompute/<id:pk>/", reports.recompute_progress, name="recompute_progress"),
    path("school/report/", reports.school_report, name="school_report"),
    path("teacher/classes/<id:pk>/report/hardest/", reports.class_hardest, name="class_hardest"),
    path("school/report/hardest/", reports.school_hardest, name="school_hardest"),
]
