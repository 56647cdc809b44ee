"""Answers every request with an option index one past the last option."""

import botkit


def illegal(req, stream) -> None:
    stream.send(botkit.answer(req.request_id, len(req.options)))


if __name__ == "__main__":
    botkit.run(botkit.play(illegal, name="illegal-option"))
