"""The ``fastrag`` command line (layer 4): one module per command, thin over the library.

``fastrag.cli.main.main(argv)`` is the entry point; importing this package imports no
command and no optional library.
"""

__all__: list[str] = []
