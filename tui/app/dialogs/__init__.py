"""Modal dialogs: new capture, note form, confirmation."""
