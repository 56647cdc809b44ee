"""A plain sensible bot; its arguments (e.g. a marker to find its processes by) are ignored."""

import hostile

if __name__ == "__main__":
    hostile.play(name="player")
