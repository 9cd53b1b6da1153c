"""The explorer served to a browser (`steptrace serve`), behind a secret token.

Only `tui.commands.serve` imports this package, inside its `run`: textual-serve
and aiohttp are loaded by no other command.
"""
