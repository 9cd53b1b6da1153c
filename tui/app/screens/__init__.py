"""Full screens of the explorer: loading, load error, main, help, details."""
