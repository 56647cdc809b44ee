"""Expected-value bot: counts the unseen cards and hits while one more card has a positive
expected gain; targets by the same expected gain, weighted towards hurting the leader."""

from arena.sdk import PolicyBot, run

if __name__ == "__main__":
    run(PolicyBot("ev"), name="ev")
