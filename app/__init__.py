"""taskscope: a keyboard-driven terminal inspector (and headless CLI) for MCP Tasks."""

__version__ = "0.1.0"
"""The one place the version is written: the package metadata (`[tool.hatch.version]`) and the
`clientInfo` sent to servers read it, so no connection loads `importlib.metadata`."""
