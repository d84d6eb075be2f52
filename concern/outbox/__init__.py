"""The action outbox. `queue`: entries and their purposes, written in the decision's transaction. `drain`: claim,
execute and close (the way in for the processor and the API: `drain.drain`, `drain.run_owned`). `results`: what a
result means for its loop, declared once per purpose.
"""
