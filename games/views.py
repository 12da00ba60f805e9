import secrets

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.http import HttpResponse
from django.shortcuts import redirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from django.views.decorators.http import require_POST
from django.views.decorators.http import require_safe
from django_htmx.http import HttpResponseClientRedirect

from config.names import isolate
from config.params import int_param
from config.throttle import give_back
from config.throttle import reserve_code_try
from games import presenters
from games import registry
from games import signals
from games.forms import BOT_NAMES
from games.forms import FamilyGameForm
from games.forms import JoinForm
from games.forms import NewGameForm
from games.forms import RoomCodeForm
from games.forms import action_from_post
from games.forms import family_games
from games.models import IllegalMove
from games.models import Match
from games.models import MoveRejected
from games.models import NotYourTurn
from games.models import Seat
from games.models import StaleVersion
from games.models import seen_lately

# A signed cookie that holds this browser's player key for as long as a family room lives:
# a flushed or expired session (a sleeping tab, a child signing in and out) still finds its seat.
PLAYER_COOKIE = "mp_player"
PLAYER_COOKIE_SALT = "games.player-key"
# What a refused move answers: a stale board 409, not this seat's turn 403, against the rules
# 422 (the board comes back with the reason either way).
REJECTED_STATUS = {StaleVersion: 409, NotYourTurn: 403, IllegalMove: 422}


def signed_in_child(request):
    """The child signed in on this device (``request.child``, which the classroom's middleware
    sets: a ``name`` and the ``seat_key`` that owns their seats), or None."""
    child = getattr(request, "child", None)
    return child if child else None


def room_lifetime() -> int:
    return int(settings.FAMILY_ROOM_TTL_HOURS * 3600)


def cookie_key(request) -> str:
    return request.get_signed_cookie(
        PLAYER_COOKIE, default="", salt=PLAYER_COOKIE_SALT, max_age=room_lifetime()
    )


def own_player_keys(request) -> tuple[str, ...]:
    """This browser's own player keys: the session's and the signed cookie's. Both are made
    here (``player_key``: random, no colon; the cookie is signed), so a browser cannot make
    one up; a key with a colon is never one of them (those are the apps' seat keys)."""
    keys = []
    for key in (request.session.get("player_key", ""), cookie_key(request)):
        if key and ":" not in key and key not in keys:
            keys.append(key)
    return tuple(keys)


def player_keys(request, *, claimed=False) -> tuple[str, ...]:
    """Every player key this request plays with: the browser's own, then the seat keys an
    app on the platform gives the request (docs/platform.md, "Signals and hooks"):
    ``request.seat_keys``, checked (the classroom: the signed-in child's, which may cost the
    query that checks the sign-in), or with ``claimed`` the cheap ``request.claimed_seat_keys``
    (what the session says, unchecked: only for the poll's look-up of a version)."""
    keys = list(own_player_keys(request))
    extra = getattr(request, "claimed_seat_keys" if claimed else "seat_keys", ())
    keys += [key for key in extra if key and key not in keys]
    return tuple(keys)


def player_key(request) -> str:
    """This browser's player key: who plays which seat (a guest's device, or the other
    people at a child's). A session that lost it takes the signed cookie's back before making
    a new one."""
    key = request.session.get("player_key")
    if not key or ":" in key:
        key = next(iter(own_player_keys(request)), "") or secrets.token_urlsafe(18)
        request.session["player_key"] = key
    return key


def remember_player(response, key: str):
    """Keep ``key`` in the signed cookie (HttpOnly, SameSite=Lax) for a room's lifetime."""
    response.set_signed_cookie(
        PLAYER_COOKIE,
        key,
        salt=PLAYER_COOKIE_SALT,
        max_age=room_lifetime(),
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )
    return response


def load_match(request, public_id: str):
    """The match and the seats this browser plays; 404 when it has no business here."""
    try:
        match = Match.objects.get_with_seats(public_id)
    except Match.DoesNotExist:
        raise Http404 from None
    keys = player_keys(request)
    mine = [s for s in match.seat_list() if s.owned_by(keys, request.user)]
    if mine and not request.session.get("player_key"):
        # The session was lost; the signed cookie found the seat: take the key back.
        own = own_player_keys(request)
        owned = next((s.owner_key for s in mine if s.owner_key in own), "")
        if owned:
            request.session["player_key"] = owned
    return match, mine


def mark_seen(mine) -> None:
    """Throttled: one UPDATE at most every SEEN_EVERY seconds for this device's seats."""
    now = timezone.now()
    if mine and not all(seen_lately(s.last_seen_at, now) for s in mine):
        Seat.objects.filter(pk__in=[s.pk for s in mine]).mark_seen(now)
        for seat in mine:
            seat.last_seen_at = now


def taken_over_seat(match, request):
    """The seat a computer player took over from this browser (None when there is none;
    only a browser's own key's seat is ever taken over)."""
    keys = own_player_keys(request)
    if not keys:
        return None
    return match.seats.filter(former_owner_key__in=keys).first()


def render_taken_over(request, match, seat, *, status=200):
    template = "games/seat_taken.html#board" if request.htmx else "games/seat_taken.html"
    return render(request, template, {"match": match, "seat": seat}, status=status)


def render_board(request, match, mine, *, notice="", status=200, spectator=False, kept=()):
    """``kept``: the cards a refused move had picked (MultipliPotion's potions), ticked again
    so a child who forgot one potion only adds it, rather than starting the pick again."""
    ctx = presenters.board_context(
        request, match, mine, notice=notice, spectator=spectator, keys=player_keys(request)
    )
    ctx["kept_potions"] = {str(k) for k in kept}
    template = "games/play.html#board" if request.htmx else "games/play.html"
    return render(request, template, ctx, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
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


@require_safe
def family(request):
    """Family night: the games, with players, age and length, and a link to set one up."""
    return render(
        request,
        "games/family.html",
        {"games": family_games(), "code_form": RoomCodeForm(), "child": signed_in_child(request)},
    )


@require_http_methods(["GET", "HEAD", "POST"])
def join_room(request):
    """Join a family game from another device by its room code."""
    form = RoomCodeForm(request.POST or None)
    if request.method == "POST":
        tried = reserve_code_try(request, "room")
        if tried is None:
            ctx = {
                "form": RoomCodeForm(initial={"code": request.POST.get("code", "")[:20]}),
                "too_many": _("Too many wrong room codes were typed here. Wait ten minutes."),
            }
            template = "games/join_room.html#form" if request.htmx else "games/join_room.html"
            return render(request, template, ctx, status=429)
        if form.is_valid() or "code" not in form.errors:
            give_back(tried)  # only a wrong code counts
        new_game = None
        if form.is_valid():
            match = form.match
            _match, mine = load_match(request, match.public_id)
            if mine or (match.open_seats() and not match.is_over):
                target = reverse("games:play" if mine else "games:join", args=[match.public_id])
                if request.htmx:
                    return HttpResponseClientRedirect(target)
                return redirect(target)
            if match.is_over:  # the code of a game that ended: a new game instead
                form.add_error("code", _("That game is over. Why not start a new one?"))
                new_game = reverse("games:new_family", args=[match.game])
            else:
                form.add_error("code", _("This game has already started: every seat is taken."))
        template = "games/join_room.html#form" if request.htmx else "games/join_room.html"
        return render(request, template, {"form": form, "new_game": new_game}, status=422)
    return render(request, "games/join_room.html", {"form": form})


@require_http_methods(["GET", "HEAD", "POST"])
def new_family(request, slug):
    """A new game of any game for people around this device and computer players. Every
    person here shares this browser's player key: the hand-off screen hides each hand."""
    if slug not in registry.games():
        raise Http404
    game = registry.get(slug)
    module = game.rules
    # Home play: a signed-in child's MultipliPotion counts in their evidence (marked home).
    child = signed_in_child(request) if game.home_play else None
    form = FamilyGameForm(game, request.POST or None, child=child)
    ctx = {"form": form, "game": module, "child": child, "how_to_play": game.how_to_play}
    ctx["who_starts"] = game.who_starts or _("Player 1 goes first.")
    if request.method == "POST":
        if not form.is_valid():
            template = "games/family_new.html#form" if request.htmx else "games/family_new.html"
            return render(request, template, ctx, status=422)
        key = player_key(request)
        now = timezone.now()
        seats = []
        for number, spec in enumerate(form.cleaned_data["seats"], start=1):
            if spec["kind"] == "here" and child is not None and number == 1:
                seats.append(
                    {
                        "kind": Seat.Kind.STUDENT,
                        "name": child.name,
                        # Not this device's key: the child's, wherever they sign in (the
                        # classroom links the seat to the child: signals.seats_taken).
                        "owner_key": child.seat_key,
                        "last_seen_at": now,
                    }
                )
            elif spec["kind"] == "here":
                seats.append(
                    {
                        "kind": Seat.Kind.GUEST,
                        "name": spec["name"],
                        "owner_key": key,
                        "last_seen_at": now,
                    }
                )
            elif spec["kind"] == "remote":
                seats.append({"kind": Seat.Kind.OPEN, "name": _("Player %(n)s") % {"n": number}})
            else:
                seats.append(
                    {"kind": Seat.Kind.BOT, "name": spec["name"], "bot_level": spec["level"]}
                )
        match = Match.create(
            slug,
            seats,
            options=form.cleaned_data["options"],
            created_by=request.user if request.user.is_authenticated else None,
            family=True,
            host_key=key,
        )
        if request.htmx:
            response = HttpResponseClientRedirect(match.get_absolute_url())
        else:
            response = redirect(match)
        return remember_player(response, key)
    return render(request, "games/family_new.html", ctx)


@never_cache
@require_safe
def play(request, public_id):
    match, mine = load_match(request, public_id)
    if not mine:
        if any(s.kind == Seat.Kind.OPEN for s in match.seat_list()):
            return redirect("games:join", public_id=public_id)
        seat = taken_over_seat(match, request)
        if seat is not None:
            return render_taken_over(request, match, seat)
        raise Http404
    mark_seen(mine)
    response = render_board(request, match, mine)
    if match.family and not match.is_over:
        # Keep the signed cookie as long as the room lives (with this browser's own key,
        # never a child's seat key).
        own = own_player_keys(request)
        key = next((s.owner_key for s in mine if s.owner_key in own), "")
        if key:
            remember_player(response, key)
    return response


def stale_form(request, match) -> bool:
    version = int_param(request.POST.get("version", ""))
    return version is not None and version != match.version


@never_cache
@require_POST
def move(request, public_id):
    match, mine = load_match(request, public_id)
    if not mine:
        seat = taken_over_seat(match, request)
        if seat is not None:
            return render_taken_over(request, match, seat, status=403)
        raise Http404
    mark_seen(mine)
    seat = presenters.acting_seat(request, match, mine)
    if seat is None and stale_form(request, match):
        # A form of an older board (a double tap, a lost race): Match.play answers a repeated
        # move id with the stored move, any other with 409 and the latest board. (A form of a
        # board that changed only by another seat's secret choice is not stale: Match.play
        # applies it, see Match.moved_on_for.)
        seat = mine[0]
    if seat is None:
        return render_board(request, match, mine, notice=_("It is not your turn yet."), status=403)
    version = int_param(request.POST.get("version", ""))
    if version is None:
        return render_board(
            request, match, mine, notice=_("I do not understand that move."), status=422
        )
    move_id = request.POST.get("move_id", "").replace("\x00", "")[:64]  # PostgreSQL: no NUL
    try:
        match.play(seat.number, action_from_post(request.POST), version=version, move_id=move_id)
    except MoveRejected as rejected:
        status = REJECTED_STATUS.get(type(rejected), 422)
        kept = request.POST.getlist("potions") if isinstance(rejected, IllegalMove) else ()
        return render_board(request, match, mine, notice=rejected.message, status=status, kept=kept)
    return render_board(request, match, mine)


@never_cache
@require_safe
def poll(request, public_id):
    """Cheap: one lookup of the board's token (version, seating and pause); 204, nothing to
    swap, while it has not changed. The seats' last_seen_at is written at most every
    SEEN_EVERY seconds (one UPDATE; the lookup reads it)."""
    keys = player_keys(request, claimed=True)
    row = Seat.objects.poll_row(public_id, keys, request.user)
    spectator = False
    if row is None:
        match = Match.objects.filter(public_id=public_id).first()
        if match is None:
            raise Http404
        if not match.can_spectate(request.user):
            seat = taken_over_seat(match, request)
            if seat is not None:
                return render_taken_over(request, match, seat)
            raise Http404
        row, spectator = (match.version, match.paused_at, match.seating, match.status), True
    elif not seen_lately(row[4]):
        Seat.objects.filter(match__public_id=public_id).owned_by_key_or_user(
            keys, request.user
        ).mark_seen()
    if request.GET.get("v") == Match.board_token(*row[:4]):
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


@require_http_methods(["GET", "HEAD", "POST"])
def join(request, public_id):
    match, mine = load_match(request, public_id)
    if mine:
        return redirect(match)
    if not any(s.kind == Seat.Kind.OPEN for s in match.seat_list()):
        raise Http404
    taken = [s.name for s in match.seat_list() if s.kind in {Seat.Kind.GUEST, Seat.Kind.USER}]
    taken += [s.name for s in match.seat_list() if s.kind == Seat.Kind.STUDENT]
    form = JoinForm(request.POST or None, taken_names=taken if match.family else ())
    ctx = {"form": form, "match": match, "host": presenters.host_name(match)}
    if request.method == "POST":
        if not form.is_valid():
            return render(request, "games/join.html", ctx, status=422)
        key = player_key(request)
        with transaction.atomic():
            locked = Match.objects.select_for_update().get(pk=match.pk)
            seat = locked.seats.filter(kind=Seat.Kind.OPEN).order_by("number").first()
            if seat is None:
                messages.error(request, _("Sorry, somebody else took that seat."))
                return redirect("games:family" if match.family else "games:new")
            seat.kind, seat.name, seat.owner_key = (
                Seat.Kind.GUEST,
                form.cleaned_data["name"],
                key,
            )
            seat.last_seen_at = timezone.now()
            seat.save(update_fields=["kind", "name", "owner_key", "last_seen_at"])
            signals.seats_taken.send(sender=Match, match=locked, seats=[seat])
            locked.seat_filled()
        return remember_player(redirect(match), key)
    return render(request, "games/join.html", ctx)


@never_cache
@require_safe
def room(request, public_id):
    """The room card of a family game (code, QR code, who has joined; for the host the
    start button and the quiet seats), polled by the host every few seconds. It swaps in
    out of band (``hx-swap-oob``)."""
    match, mine = load_match(request, public_id)
    if not mine:
        raise Http404
    ctx = {"match": match, **presenters.room_context(request, match, mine, player_keys(request))}
    return render(request, "games/play.html#room", ctx)


def host_only(request, public_id):
    """(match, mine, is the host) for a family game's host actions: 404 for a browser with
    no seat; the other seats get a 403 from the caller."""
    match, mine = load_match(request, public_id)
    if not mine:
        raise Http404
    return match, mine, match.is_host(player_keys(request))


def not_host(request, match, mine, notice):
    """A seat that is not the host's asked for a host's action: 403, and the board says why."""
    return render_board(request, match, mine, notice=notice, status=403)


def chosen_level(request, match) -> str | None:
    levels = [lv for lv, _label in match.spec.bot_levels()]
    level = request.POST.get("level") or (
        match.engine.BEST_LEVEL if match.engine.BEST_LEVEL in levels else levels[0]
    )
    return level if level in levels else None


def board_or_redirect(request, match, mine, *, notice="", status=200):
    if request.htmx or status != 200:
        return render_board(request, match, mine, notice=notice, status=status)
    if notice:
        messages.success(request, notice)
    return redirect(match)


@require_POST
def start_room(request, public_id):
    """The host starts now: computer players take the seats nobody has joined."""
    match, mine, host = host_only(request, public_id)
    if not host:
        return not_host(
            request, match, mine, _("Only the person who set up the game can start it.")
        )
    level = chosen_level(request, match)
    if level is None:
        return render_board(
            request, match, mine, notice=_("Choose a level for the computer."), status=422
        )
    if match.status != Match.Status.WAITING:
        return render_board(
            request, match, mine, notice=_("The game has already started."), status=409
        )
    match.start_with_computers(level)
    match = Match.objects.get_with_seats(public_id)
    mine = [s for s in match.seat_list() if s.pk in {m.pk for m in mine}]
    return board_or_redirect(request, match, mine)


@require_POST
def take_over(request, public_id):
    """The host hands a quiet person's seat to a computer player."""
    match, mine, host = host_only(request, public_id)
    if not host:
        return not_host(request, match, mine, _("Only the person who set up the game can do that."))
    if match.status != Match.Status.ACTIVE:
        return render_board(
            request, match, mine, notice=_("The game is not being played now."), status=409
        )
    number = int_param(request.POST.get("seat", ""))
    seat = next((s for s in match.seat_list() if s.number == number), None)
    level = chosen_level(request, match)
    if seat is None or level is None or seat.kind not in Seat.TAKEOVER_KINDS or seat in mine:
        return render_board(
            request, match, mine, notice=_("A computer player cannot take that seat."), status=422
        )
    taken = match.hand_to_computer(number, level)
    match = Match.objects.get_with_seats(public_id)
    mine = [s for s in match.seat_list() if s.pk in {m.pk for m in mine}]
    if taken is None:
        return render_board(
            request,
            match,
            mine,
            notice=_("The game is not waiting for %(name)s: the seat stays theirs.")
            % {"name": isolate(seat.name)},
            status=409,
        )
    return board_or_redirect(
        request,
        match,
        mine,
        notice=_("A computer player now plays for %(name)s.") % {"name": isolate(seat.name)},
    )


@require_POST
def take_back(request, public_id):
    """The person whose seat a computer player took over is back: the seat is theirs again
    (this browser's own key; 404 for anyone else), and the host is told."""
    try:
        match = Match.objects.get_with_seats(public_id)
    except Match.DoesNotExist:
        raise Http404 from None
    seat = taken_over_seat(match, request)
    if seat is None:
        raise Http404
    if match.hand_back(own_player_keys(request)) is None:
        match = Match.objects.get_with_seats(public_id)
        return render_taken_over(request, match, seat, status=409)
    messages.success(request, _("Welcome back! Your seat is yours again."))
    return redirect(match)


@never_cache
@require_safe
def spectate(request, public_id):
    try:
        match = Match.objects.get_with_seats(public_id)
    except Match.DoesNotExist:
        raise Http404 from None
    if not match.can_spectate(request.user):
        raise Http404
    return render_board(request, match, [], spectator=True)


@require_safe
def replay(request, public_id):
    match, mine = load_match(request, public_id)
    if not mine and not match.can_spectate(request.user):
        raise Http404
    if not match.is_over:
        messages.info(request, _("You can replay a game once it is finished."))
        return redirect(reverse("games:play", args=[public_id]) if mine else "classroom:home")
    ctx = presenters.replay_context(request, match, int_param(request.GET.get("ply", "")))
    template = "games/replay.html#step" if request.htmx else "games/replay.html"
    return render(request, template, ctx)
