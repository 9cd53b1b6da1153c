"""Modal dialogs: new capture, note form, confirmation, share (scrub a copy)."""
