"""Connects, says hello, reads every request and never answers any."""

import botkit


def ignore(req, stream) -> None:
    botkit.note(event="request", request_id=req.request_id, game_id=req.game_id)


if __name__ == "__main__":
    botkit.run(botkit.play(ignore, name="never-answers"))
