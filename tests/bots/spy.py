"""Plays sensibly and records everything it is sent: every game start (its seat), every
request and every game end, the last two as raw serialized messages (base64), in $BOT_LOG."""

import base64

import botkit


def b64(msg) -> str:
    return base64.b64encode(msg.SerializeToString()).decode()


def on_request(req, stream) -> None:
    botkit.note(
        event="request", game_id=req.game_id, seat=req.seat, request_id=req.request_id, raw=b64(req)
    )
    stream.send(botkit.answer(req.request_id, botkit.sensible_index(req)))


def on_message(msg) -> None:
    which = msg.WhichOneof("msg")
    if which == "game_start":
        gs = msg.game_start
        botkit.note(event="game_start", game_id=gs.game_id, seat=gs.seat, raw=b64(gs))
    elif which == "game_end":
        botkit.note(event="game_end", game_id=msg.game_end.game_id, raw=b64(msg.game_end))


if __name__ == "__main__":
    botkit.run(botkit.play(on_request, name="spy", on_message=on_message))
