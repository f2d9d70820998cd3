"""The web edge of a hub: REST reads, the referee endpoints, the `/ws` feed and the static pages.

Thin on purpose: every request reads the hall's committed state or turns into a hall event; nothing here
decides a rule. Routes are grouped by audience:

- `public`: pages, match and team reads, exports, PGN and the `/ws` feed (`feed`); a spectator edge mounts
  only these;
- `referee`: the console's API, actions, confirmation, inputs and device commands, behind one token check;
- `devices`: the device board and the hub's health.

`bodies` bounds what a request may carry, `errors` maps typed errors to HTTP statuses, `context` holds what
routes read, and `app` assembles them.
"""

from hub.web.app import assemble, create_app, hub_only_routes
from hub.web.bodies import MAX_BODY, MAX_DEPTH, MAX_OFFSET, QueryInvalid, query_int, read_object
from hub.web.context import STUCK_AFTER_S, PublicContext, WebContext
from hub.web.errors import ORJSONResponse
from hub.web.feed import handle_request
from hub.web.public import WEB_DISPLAY, public_routes

__all__ = [
    "MAX_BODY",
    "MAX_DEPTH",
    "MAX_OFFSET",
    "STUCK_AFTER_S",
    "WEB_DISPLAY",
    "ORJSONResponse",
    "PublicContext",
    "QueryInvalid",
    "WebContext",
    "assemble",
    "create_app",
    "handle_request",
    "hub_only_routes",
    "public_routes",
    "query_int",
    "read_object",
]
