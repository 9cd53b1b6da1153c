"""Textual-free view models of the explorer: what the timeline shows, from the columns.

Built off the UI thread (the load worker), tested without Pilot, and read by
the app's widgets, which only turn them into lines on the screen.
"""
