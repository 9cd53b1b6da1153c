"""Each finding's words, one module per finding, registered once (`registry`)."""
