"""MCP authorization: the SDK's OAuth client driven over taskscope's own HTTP transport.

Nothing here is imported until a server asks for authorization (or `taskscope oauth` runs): the
SDK's OAuth modules pull in pydantic models, httpx2 and PyJWT, which start-up does not pay for.
"""
