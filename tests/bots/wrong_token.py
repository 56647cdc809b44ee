"""An SDK bot that connects with a token the arena never issued."""

from arena.sdk import run

if __name__ == "__main__":
    run(lambda req: 0, name="wrong-token", token="not-a-token-the-arena-issued")
