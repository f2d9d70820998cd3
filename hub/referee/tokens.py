"""Referee and umpire tokens: made once, stored only as SHA-256 hashes, compared in constant time.

An umpire's token scores only its own tables from a browser device: every referee route asks `referee_for`/`referee_with`,
which never answer with an umpire."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from hub.venue import RefereeConfig


def new_token() -> str:
    """A fresh random token to hand to a referee once."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """The form a token is stored in."""
    return hashlib.sha256(token.encode()).hexdigest()


class Authenticator:
    """Finds the referee a bearer token belongs to."""

    def __init__(self, referees: tuple[RefereeConfig, ...] | list[RefereeConfig]) -> None:
        self.referees = list(referees)

    def add(self, referee: RefereeConfig) -> None:
        """Accept one more referee."""
        self.referees.append(referee)

    def referee_for(self, authorization: str | None) -> RefereeConfig | None:
        """The referee for an `Authorization: Bearer …` header, or None (also for an umpire's token)."""
        holder = self.holder_for(authorization)
        return None if holder is None or holder.umpire else holder

    def referee_with(self, token: str) -> RefereeConfig | None:
        """The referee a token belongs to (surrounding blanks ignored), or None (also for an umpire's)."""
        holder = self.holder_with(token)
        return None if holder is None or holder.umpire else holder

    def holder_for(self, authorization: str | None) -> RefereeConfig | None:
        """Whoever an `Authorization: Bearer …` header's token belongs to, umpires too, or None."""
        if not authorization or not authorization.startswith("Bearer "):
            return None
        return self.holder_with(authorization[7:])

    def holder_with(self, token: str) -> RefereeConfig | None:
        """Whoever a token belongs to, umpires too (surrounding blanks ignored), or None."""
        digest = hash_token(token.strip())
        found = None
        for referee in self.referees:  # compare with every entry so timing does not tell which matched
            if hmac.compare_digest(digest, referee.token_sha256):
                found = referee
        return found
