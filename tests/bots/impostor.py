"""Plays its own seats honestly, but on its first request also tries to open a second
stream with another bot's token (STOLEN_TOKEN), and notes the arena's reply."""

import os

import botkit

STOLEN = os.environ["STOLEN_TOKEN"]
tried = False


async def on_request(req, stream) -> None:
    global tried
    botkit.note(event="request", game_id=req.game_id, seat=req.seat, request_id=req.request_id)
    stream.send(botkit.answer(req.request_id, botkit.sensible_index(req)))
    if not tried:
        tried = True
        reply = await botkit.first_reply(token=STOLEN, name="impostor")
        botkit.note(event="stolen_token", **reply)


def on_message(msg) -> None:
    if msg.WhichOneof("msg") == "game_start":
        gs = msg.game_start
        botkit.note(event="game_start", game_id=gs.game_id, seat=gs.seat)


if __name__ == "__main__":
    botkit.run(botkit.play(on_request, name="impostor", on_message=on_message))
