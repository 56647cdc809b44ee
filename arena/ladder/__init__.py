"""A continuous ladder: games go on among the current bots, tables chosen adaptively.

* ``matchmaker`` — the next table from the current ratings (pure; the rule);
* ``field`` — what the matchmaker needs, kept up to date game by game (pure);
* ``runner`` — plays tables continuously through an executor and stores them;
* ``suspension`` — bots that crash too often.
"""
