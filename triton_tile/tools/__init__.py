"""Tools: `tensor_descriptor` (host TMA descriptors) and command-line helpers run as
`python -m triton_tile.tools.<name>` (check, classify, verify)."""
