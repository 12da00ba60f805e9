"""The potion warm-up: the child's round page and home round, and the wall's skip buttons.

Child pages: anybody who is not a signed-in child is sent to the class-code page (302);
another child's round is not found (404). The wall's buttons are teacher_a's class's.
"""

from django.urls import reverse
from expected import everyone
from expected import teacher_a_post


def round_of_child_a(w):
    from classroom.models import WarmUp

    return reverse(
        "classroom:warm_up_round", args=[WarmUp.objects.start(w.child_a, w.assignment_a).pk]
    )


ENTRIES = [
    {
        "name": "classroom:warm_up_home",
        "method": "post",
        "url": lambda w: reverse("classroom:warm_up_home"),
        # A child: to the new round; anybody else: to the class-code page.
        "expect": everyone(302),
    },
    {
        "name": "classroom:warm_up_round",
        "url": round_of_child_a,
        "expect": everyone(302) | {"child_a": 200, "child_b": 404},
    },
    teacher_a_post("classroom:wall_warm_up_skip", "class_a", 302),
    teacher_a_post("classroom:wall_warm_up_on", "class_a", 302),
]
