"""Words: the text and Markdown of every result, the findings' words, the notes
report, and the one way to shorten text to a width in terminal cells.

The core computes typed results; this floor says them. Modules here are
imported by the commands, the view and the app; the core never imports them.
"""
