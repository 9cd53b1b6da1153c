"""The Textual app. Everything Textual lives under this package."""
