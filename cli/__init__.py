"""The CLI project folder; a package only so that its tests are `cli.tests`, apart from the hub's
`tests` (pytest imports test packages by their path from the repository root)."""
