"""Button presses. The way in: `door.toast` (the answer while the platform waits) and `door.process` (the press as
a signal: decided by `rules` — pure: may it act, and the command its verb asks for — then carried out).
"""
