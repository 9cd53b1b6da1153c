"""Floor 0 of the core: exact numbers, safe text, vocabularies, interval algebra; imports nothing of tui."""
