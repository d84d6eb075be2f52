"""Local fakes of external platforms for tests (never the internet)."""
