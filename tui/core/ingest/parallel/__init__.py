"""A big trace decoded by worker processes, one byte range of its events each."""
