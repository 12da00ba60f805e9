"""Child sign-in behaviour: picture passwords, badges, lockout (mixed into the models)."""


class ClassroomSignIn:
    pass


class StudentSignIn:
    pass
