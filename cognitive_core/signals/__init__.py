"""External signals that lead somewhere. The way in: `routing.process` (carry out a signal type's route, or record
it unhandled) and its readers for the brief and the console; `routes` is the routes table (models, loading).
"""
