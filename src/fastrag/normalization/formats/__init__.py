"""One module per built-in format adapter; each imports its parser library lazily."""
