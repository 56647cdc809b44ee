"""Floods the gateway: for every request it sends FLOOD answers with request ids the arena
never issued, as fast as it can, then the proper answer."""

import os

import botkit

FLOOD = int(os.environ.get("FLOOD", "2000"))
BASE = 10**12
sent = 0


def flood(req, stream) -> None:
    global sent
    for i in range(FLOOD):
        stream.send(botkit.answer(BASE + sent + i, i % 7))
    sent += FLOOD
    stream.send(botkit.answer(req.request_id, botkit.safe_index(req)))
    botkit.note(event="flooded", request_id=req.request_id, total=sent)


async def main() -> None:
    how = await botkit.play(flood, name="flood")
    botkit.note(event="ended", how=how)


if __name__ == "__main__":
    botkit.run(main())
