import secrets

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from classroom.child_session import current_student
from games import engine, presenters
from games.forms import (
    BOT_NAMES,
    FamilyGameForm,
    JoinForm,
    NewGameForm,
    action_from_post,
    family_games,
)
from games.models import Match, MoveRejected, Seat


def player_key(request) -> str:
    """This browser's player key: who plays which seat (a guest's or a child's device)."""
    key = request.session.get("player_key")
    if not key:
        key = secrets.token_urlsafe(18)
        request.session["player_key"] = key
    return key


def load_match(request, public_id: str):
    """The match and the seats this browser plays; 404 when it has no business here."""
    try:
        match = Match.objects.get_with_seats(public_id)
    except Match.DoesNotExist:
        raise Http404 from None
    key = request.session.get("player_key", "")
    student = current_student(request)
    student_id = student.pk if student else None
    mine = [s for s in match.seats.all() if s.owned_by(key, request.user, student_id)]
    return match, mine


def render_board(request, match, mine, *, notice="", status=200, spectator=False):
    ctx = presenters.board_context(request, match, mine, notice=notice, spectator=spectator)
    template = "games/play.html#board" if request.htmx else "games/play.html"
    return render(request, template, ctx, status=status)


@require_http_methods(["GET", "POST"])
def new_game(request):
    form = NewGameForm(request.POST or None)
    if request.method == "POST":
        if not form.is_valid():
            template = "games/new.html#form" if request.htmx else "games/new.html"
            return render(request, template, {"form": form}, status=422)
        data = form.cleaned_data
        key = player_key(request)
        me = {"kind": Seat.Kind.GUEST, "name": data["name"], "owner_key": key}
        if request.user.is_authenticated:
            me.update(kind=Seat.Kind.USER, user=request.user)
        opponent = data["opponent"]
        if opponent in BOT_NAMES:
            other = {"kind": Seat.Kind.BOT, "name": str(BOT_NAMES[opponent]), "bot_level": opponent}
        elif opponent == "here":
            other = {"kind": Seat.Kind.GUEST, "name": data["friend_name"], "owner_key": key}
        else:
            other = {"kind": Seat.Kind.OPEN, "name": _("Your friend")}
        seats = [me, other] if data["first"] == "me" else [other, me]
        match = Match.create(
            "multiplipotion",
            seats,
            options={"tier": data["tier"]},
            created_by=request.user if request.user.is_authenticated else None,
        )
        if request.htmx:
            return HttpResponseClientRedirect(match.get_absolute_url())
        return redirect(match)
    return render(request, "games/new.html", {"form": form})


@require_GET
def family(request):
    """Family night: the games, with players, age and length, and a link to set one up."""
    return render(request, "games/family.html", {"games": family_games()})


@require_http_methods(["GET", "POST"])
def new_family(request, slug):
    """A new game of any game for people around this device and computer players. Every
    person here shares this browser's player key: the hand-off screen hides each hand."""
    if slug not in engine.GAMES:
        raise Http404
    module = engine.get(slug)
    form = FamilyGameForm(module, request.POST or None)
    ctx = {"form": form, "game": module}
    if request.method == "POST":
        if not form.is_valid():
            template = "games/family_new.html#form" if request.htmx else "games/family_new.html"
            return render(request, template, ctx, status=422)
        key = player_key(request)
        seats = []
        for spec in form.cleaned_data["seats"]:
            if spec["kind"] == "here":
                seats.append({"kind": Seat.Kind.GUEST, "name": spec["name"], "owner_key": key})
            else:
                seats.append(
                    {"kind": Seat.Kind.BOT, "name": spec["name"], "bot_level": spec["level"]}
                )
        match = Match.create(
            slug,
            seats,
            options=form.cleaned_data["options"],
            created_by=request.user if request.user.is_authenticated else None,
        )
        if request.htmx:
            return HttpResponseClientRedirect(match.get_absolute_url())
        return redirect(match)
    return render(request, "games/family_new.html", ctx)


@never_cache
@require_GET
def play(request, public_id):
    match, mine = load_match(request, public_id)
    if not mine:
        if any(s.kind == Seat.Kind.OPEN for s in match.seats.all()):
            return redirect("games:join", public_id=public_id)
        raise Http404
    return render_board(request, match, mine)


@never_cache
@require_POST
def move(request, public_id):
    match, mine = load_match(request, public_id)
    if not mine:
        raise Http404
    seat = presenters.acting_seat(request, match, mine)
    if seat is None:
        return render_board(request, match, mine, notice=_("It is not your turn yet."), status=403)
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        return render_board(
            request, match, mine, notice=_("I do not understand that move."), status=422
        )
    move_id = request.POST.get("move_id", "")[:64]
    try:
        match.play(seat.number, action_from_post(request.POST), version=version, move_id=move_id)
    except MoveRejected as rejected:
        return render_board(request, match, mine, notice=rejected.message, status=rejected.status)
    return render_board(request, match, mine)


@never_cache
@require_GET
def poll(request, public_id):
    """Cheap: one lookup of the board's token (version and pause); 204, nothing to swap,
    while it has not changed."""
    key = request.session.get("player_key", "")
    row = (
        Seat.objects.filter(match__public_id=public_id)
        .owned_by_key_or_user(key, request.user, request.session.get("student_id"))
        .values_list("match__version", "match__paused_at")
        .first()
    )
    spectator = False
    if row is None:
        match = Match.objects.filter(public_id=public_id).first()
        if match is None or not match.can_spectate(request.user):
            raise Http404
        row, spectator = (match.version, match.paused_at), True
    if request.GET.get("v") == Match.board_token(*row):
        return HttpResponse(status=204)
    match, mine = load_match(request, public_id)
    return render_board(request, match, mine, spectator=spectator)


@require_POST
def reveal(request, public_id):
    """Pass-and-play: the next person taps to show their own cards."""
    match, mine = load_match(request, public_id)
    if len(mine) < 2:
        raise Http404
    seat = presenters.acting_seat(request, match, mine, revealed_only=False)
    if seat is not None:
        request.session[presenters.reveal_key(match)] = seat.number
    if request.htmx:
        return render_board(request, match, mine)
    return redirect(match)


@require_http_methods(["GET", "POST"])
def join(request, public_id):
    match, mine = load_match(request, public_id)
    if mine:
        return redirect(match)
    if not any(s.kind == Seat.Kind.OPEN for s in match.seats.all()):
        raise Http404
    form = JoinForm(request.POST or None)
    if request.method == "POST":
        if not form.is_valid():
            return render(request, "games/join.html", {"form": form, "match": match}, status=422)
        with transaction.atomic():
            locked = Match.objects.select_for_update().get(pk=match.pk)
            seat = locked.seats.filter(kind=Seat.Kind.OPEN).order_by("number").first()
            if seat is None:
                messages.error(request, _("Sorry, somebody else took that seat."))
                return redirect("games:new")
            seat.kind, seat.name, seat.owner_key = (
                Seat.Kind.GUEST,
                form.cleaned_data["name"],
                player_key(request),
            )
            seat.save(update_fields=["kind", "name", "owner_key"])
            locked.seat_filled()
        return redirect(match)
    return render(request, "games/join.html", {"form": form, "match": match})


@never_cache
@require_GET
def spectate(request, public_id):
    try:
        match = Match.objects.get_with_seats(public_id)
    except Match.DoesNotExist:
        raise Http404 from None
    if not match.can_spectate(request.user):
        raise Http404
    return render_board(request, match, [], spectator=True)


@require_GET
def replay(request, public_id):
    match, mine = load_match(request, public_id)
    if not mine and not match.can_spectate(request.user):
        raise Http404
    if match.game != "multiplipotion":
        messages.info(request, _("Replays of this game are not ready yet."))
        return redirect(reverse("games:play", args=[public_id]) if mine else "home")
    if not match.is_over:
        messages.info(request, _("You can replay a game once it is finished."))
        return redirect(reverse("games:play", args=[public_id]) if mine else "home")
    ctx = presenters.replay_context(request, match, request.GET.get("ply"))
    template = "games/replay.html#step" if request.htmx else "games/replay.html"
    return render(request, template, ctx)
