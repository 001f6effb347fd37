"""When and how long to wait before a call is sent again.

Every call of the API may be sent again: reads change nothing, a dry run records
nothing, and a submission carries its request_id, so the service answers a resent one
with the decision it recorded the first time instead of deciding it twice.
"""

import random
from dataclasses import dataclass

# 501 says the store cannot do it at all: the same call would get the same answer.
_FINAL = frozenset({501})


@dataclass(frozen=True)
class Retry:
    """attempts is the most a call is sent in all; the wait doubles from base up to cap."""

    attempts: int = 5
    base: float = 0.2
    cap: float = 5.0

    def retryable(self, status):
        """Whether an answer of this HTTP status is worth sending again."""
        return status == 429 or (status >= 500 and status not in _FINAL)

    def delay(self, attempt, retry_after=None):
        """Seconds to wait after attempt (1 for the first) failed.

        The server's Retry-After, when it sends one, wins over the doubling; jitter keeps
        many clients from resending in step.
        """
        if retry_after is not None:
            return min(retry_after, self.cap)
        wait = min(self.cap, self.base * 2 ** (attempt - 1))
        return wait * (0.5 + random.random() / 2)


NO_RETRY = Retry(attempts=1)
