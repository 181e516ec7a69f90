"""One module per step of the graph."""
