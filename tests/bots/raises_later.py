"""A bot whose own code raises on every decision from round 3 on (a bug the SDK must not
hide): it plays sensibly until then."""

from arena.sdk import run


def choose(req):
    if req.view.round >= 3:
        raise ValueError(f"no idea what to do in round {req.view.round}")
    if req.kind == "HIT_OR_STAY" and "STAY" in req.options and req.me.sum >= 20:
        return req.options.index("STAY")
    return 0


run(choose, name="raises-later")
