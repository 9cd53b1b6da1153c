"""The model of a capture: event columns, tracks, flows, steps, nesting and the columns derived from them."""
