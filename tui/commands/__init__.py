"""CLI subcommands, one module each, registered in tui.cli."""
