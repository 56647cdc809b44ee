"""Plays sensibly but takes PACE seconds over each answer (in its own task, so games
overlap), asks for MAX_GAMES games at once in its hello (0: no limit), and records in
$BOT_LOG every game start and end and the id of every request it is sent."""

import asyncio
import os

import botkit

PACE = float(os.environ.get("PACE", "0.005"))
MAX_GAMES = int(os.environ.get("MAX_GAMES", "0"))


async def on_request(req, stream) -> None:
    botkit.note(event="request", game_id=req.game_id, request_id=req.request_id)
    await asyncio.sleep(PACE)  # thinking, slowly on purpose
    stream.send(botkit.answer(req.request_id, botkit.sensible_index(req)))


def on_message(msg) -> None:
    which = msg.WhichOneof("msg")
    if which == "game_start":
        botkit.note(event="game_start", game_id=msg.game_start.game_id)
    elif which == "game_end":
        botkit.note(event="game_end", game_id=msg.game_end.game_id)


if __name__ == "__main__":
    botkit.run(
        botkit.play(on_request, name="paced", on_message=on_message, max_concurrent_games=MAX_GAMES)
    )
