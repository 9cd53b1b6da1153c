"""From a file's bytes to the model: read, decode, collect into columns, build, decode in parallel, cache."""
