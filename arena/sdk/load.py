"""Load a bot's file into this process: the same bot the SDK runs over gRPC, without a network.

``load_bot("mybot.py")`` runs the file as the main script (``__name__ == "__main__"``,
``sys.argv`` set to the file and the given arguments, its folder first on ``sys.path``), as
``python mybot.py`` would. When the script calls :func:`arena.sdk.run`, ``run`` notices the
load: it connects to nothing, hands the bot over and ends the script there. So an unchanged
bot file — ``run(choose)`` at the bottom, or ``run(MyBot())`` under an
``if __name__ == "__main__":`` guard — loads as it is.

``load_bot("mybot.py", "NAME")`` takes the object the file defines under NAME instead: a
function ``choose(req) -> int``, a :class:`~arena.sdk.client.Bot` subclass (created with no
arguments) or a Bot object. The file then runs as a module (``__name__`` is not
``"__main__"``); a ``run(...)`` it calls anyway is stopped the same way.

Only SDK bots load like this; a bot that opens its own connection must be played over the
network (``arena match``). What the loaded bot sees and how its answers are judged:
:mod:`arena.match.local`.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from arena.sdk.client import Bot, Request, _describe, _FunctionBot

_loading = 0  # files being loaded right now (nested loads are allowed)


def loading() -> bool:
    """True while a bot file is being loaded: :func:`arena.sdk.run` then hands its bot over."""
    return _loading > 0


class Handoff(BaseException):
    """Raised by :func:`arena.sdk.run` during a load: carries the bot out of the script.

    A BaseException, as SystemExit is, so that a bot's ``except Exception`` does not stop
    it on its way."""

    def __init__(self, bot: Bot, *, want_forced: bool) -> None:
        super().__init__(bot.name)
        self.bot = bot
        self.want_forced = want_forced


class BotLoadError(Exception):
    """A bot file that cannot be loaded; the message is one line for the user."""


@dataclass
class LoadedBot:
    """A bot ready to play in-process: the object whose ``choose`` and hooks are called,
    and what its ``run(...)`` call asked for (``want_forced``)."""

    bot: Bot
    path: Path
    want_forced: bool = False


@contextmanager
def _as_script(path: Path, argv: Sequence[str], module: types.ModuleType) -> Iterator[None]:
    """Run code as ``python path argv...`` would see it, and put everything back after
    (except the folder on ``sys.path``: the bot may import its own modules later)."""
    global _loading
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    saved_argv = sys.argv
    main = module.__name__ == "__main__"
    saved_main = sys.modules.get("__main__")
    sys.argv = [str(path), *argv]
    if main:  # as runpy does: the script is __main__ while it runs
        sys.modules["__main__"] = module
    _loading += 1
    try:
        yield
    finally:
        _loading -= 1
        sys.argv = saved_argv
        if main and saved_main is not None:
            sys.modules["__main__"] = saved_main


def load_bot(path: str | Path, name: str | None = None, argv: Sequence[str] = ()) -> LoadedBot:
    """The bot in the Python file ``path`` (see the module's docstring); ``name`` picks an
    object the file defines. Raises :class:`BotLoadError` with a one-line reason."""
    p = Path(path)
    if not p.is_file():
        raise BotLoadError(f"no bot file {str(path)!r}")
    try:
        code = compile(p.read_bytes(), str(p), "exec")
    except SyntaxError as e:
        raise BotLoadError(f"{p}: {e.msg} (line {e.lineno})") from None
    except (OSError, ValueError) as e:
        raise BotLoadError(f"{p}: {e}") from None
    module = types.ModuleType("__main__" if name is None else f"_flip7_bot_{p.stem}")
    module.__file__ = str(p)
    handoff: Handoff | None = None
    try:
        with _as_script(p, argv, module):
            exec(code, module.__dict__)
    except Handoff as h:
        handoff = h
    except SystemExit as e:
        raise BotLoadError(f"{p} exited while loading (exit status {e.code!r})") from None
    except Exception as e:
        raise BotLoadError(f"{p} failed while loading: {_describe(e)}") from None
    if name is None:
        if handoff is None:
            raise BotLoadError(
                f"{p} never calls arena.sdk.run(...): name the bot to load as {p}:NAME"
            )
        return LoadedBot(handoff.bot, p, handoff.want_forced)
    obj = module.__dict__.get(name)
    bot: Bot
    if isinstance(obj, type) and issubclass(obj, Bot):
        try:
            bot = obj()
        except Exception as e:
            raise BotLoadError(f"{p}: {name}() failed: {_describe(e)}") from None
    elif isinstance(obj, Bot):
        bot = obj
    elif callable(obj):
        bot = _FunctionBot(cast(Callable[[Request], int], obj), name)
    elif obj is None:
        raise BotLoadError(f"{p} defines no {name!r}")
    else:
        raise BotLoadError(f"{p}: {name} is a {type(obj).__name__}, not a choose function or a Bot")
    ran = handoff is not None and (handoff.bot is bot or getattr(handoff.bot, "fn", None) is obj)
    return LoadedBot(bot, p, ran and handoff is not None and handoff.want_forced)


def parse_bot_arg(text: str) -> tuple[Path, str | None, list[str]]:
    """``FILE[:NAME] [ARGS...]`` (as ``arena simulate --bot`` takes it) → (the file, the
    name of the object to load or None, the script's arguments). Raises BotLoadError."""
    import shlex

    try:
        words = shlex.split(text)
    except ValueError as e:
        raise BotLoadError(f"cannot parse {text!r}: {e}") from None
    if not words:
        raise BotLoadError("an empty bot: give FILE[:NAME] [ARGS...]")
    first, args = words[0], words[1:]
    name: str | None = None
    if not Path(first).is_file() and ":" in first:
        first, _, name = first.rpartition(":")
        if not name.isidentifier():
            raise BotLoadError(f"{text!r}: {name!r} is not a Python name (FILE:NAME)")
    return Path(first), name, args
