"""How a change reaches every screen: topics and subscribers (`fanout`) and the `/ws` connection they write
finished frames to (`protocol`)."""
