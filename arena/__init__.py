"""Flip 7 Arena: tournaments of external bots refereed by the :mod:`engine`."""

__version__ = "0.1.0"
