"""Running the hub as a server: `app` (the composition root), `startup` (what is checked before a start),
`limits` and `connections` (what one client may do and hold), `heap` and `allocator` (memory policy)."""

__all__: list[str] = []
