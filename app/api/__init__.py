"""HTTP plumbing shared by every router: auth, dependencies, error envelope, limits."""
