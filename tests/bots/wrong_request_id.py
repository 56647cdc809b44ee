"""Answers every request with a legal option index but a request id the arena never
issued."""

import botkit

OFFSET = 10**12


def wrong_id(req, stream) -> None:
    stream.send(botkit.answer(req.request_id + OFFSET, botkit.safe_index(req)))


if __name__ == "__main__":
    botkit.run(botkit.play(wrong_id, name="wrong-request-id"))
