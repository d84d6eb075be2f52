"""Platform webhooks: each hands what its platform sent to perception."""
