"""Storage: the only package that opens database sessions.

* ``db`` — engines (SQLite or any SQLAlchemy URL), migrations, ``session(db)``;
* ``models`` — the schema (its status columns hold ``arena.status`` values);
* ``bots`` — the registry's bots and versions;
* ``tournaments`` — events and their entries;
* ``rounds`` — round plans, their matches, a match's games stored with its completion;
* ``games`` — stored games as standings, ratings and the report read them;
* ``snapshot`` — everything but the games' event logs, in one transaction (the report);
* ``locks``, ``retry`` — one process per event, and riding through database outages.

Every function takes ``db``: an Engine, a URL, or None for the default database.
"""
