from arena.cli import entry

entry()
