"""Classes, groups and children: only the class's teacher reaches them (everyone else 404;
no user, e.g. a child's session: 302 to the log-in page)."""

from django.urls import reverse
from expected import ALL
from expected import NO_USER
from expected import pk_url
from expected import teacher_a_only as owner_only
from expected import teacher_a_post as post


def get(name, attr, status=200):
    return {"name": name, "url": pk_url(name, attr), "expect": owner_only(status)}


members = {role: 200 for role in ALL} | dict.fromkeys(NO_USER, 302) | {"superuser": 403}

ENTRIES = [
    # Any member of a school may make a class; the superuser has no school: 403.
    {
        "name": "classroom:class_new",
        "url": lambda w: reverse("classroom:class_new"),
        "expect": members,
    },
    {
        "name": "classroom:class_new",
        "method": "post",
        "url": lambda w: reverse("classroom:class_new"),
        "expect": members | {r: 422 for r in ("teacher_a", "teacher_b", "admin_a", "admin_b")},
    },
    get("classroom:class_detail", "class_a"),
    get("classroom:class_edit", "class_a"),
    post("classroom:class_edit", "class_a", 422),  # no name
    post("classroom:class_archive", "class_a", 302),
    post("classroom:class_restore", "class_a", 302),
    post("classroom:class_code_new", "class_a", 302),
    post("classroom:roster_add", "class_a", 422),  # nothing pasted
    post("classroom:group_new", "class_a", 422),  # no name
    get("classroom:group_edit", "group_a"),
    post("classroom:group_edit", "group_a", 422),
    post("classroom:group_delete", "group_a", 302),
    get("classroom:student_edit", "child_a"),
    post("classroom:student_edit", "child_a", 422),
    get("classroom:student_move", "child_a"),
    post("classroom:student_move", "child_a", 422),  # no class chosen
    post("classroom:student_archive", "child_a", 302),
    post("classroom:student_restore", "child_a", 302),
    get("classroom:student_delete", "child_a"),
    post("classroom:student_delete", "child_a", 302),
]
