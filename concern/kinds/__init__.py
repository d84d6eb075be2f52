"""The loop kinds beside the question: `reminders` (a person's own), `commitments` (a promise in an answer, and
`promises`: its check-in, the slip and their texts) and the `digest` (what can wait, held and sent as one).
"""
