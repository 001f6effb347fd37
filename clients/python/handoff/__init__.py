"""Handoff's Python client: the HTTP API of handoffctl serve, the pack schemas checked
before a request is sent, and the request types of each pack (handoff.packs)."""

from .client import Handoff
from .errors import HandoffError, ValidationError
from .placeholders import PlaceholderError, resolve
from .retry import NO_RETRY, Retry
from .schema import Issue, validate

__all__ = [
    "Handoff", "HandoffError", "ValidationError", "Retry", "NO_RETRY",
    "Issue", "validate", "resolve", "PlaceholderError",
]
