"""Flip 7 for the standard game-AI toolkits (the ``lab`` extra: ``pip install
'flip7-arena[lab]'``).

* :mod:`arena.envs.encoding`: a seat's public observation as a fixed-size vector, and the
  size of the action space (one action per legal option);
* :mod:`arena.envs.pettingzoo`: a PettingZoo AEC environment (action masks, per-agent
  observations);
* :mod:`arena.envs.openspiel`: an OpenSpiel game registered with ``pyspiel`` (explicit
  chance nodes for the draws, information-state strings per player).

Each is built on the engine and on :func:`engine.observe` alone, so an agent sees exactly
what a bot sees over the network and never the order of the draw pile.
"""
