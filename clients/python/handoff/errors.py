"""The two ways a call fails before a decision: the service refuses it (HandoffError), or
the client finds the request does not fit its pack's schema and never sends it
(ValidationError). A block is neither: it is a decision, returned like any other."""


class HandoffError(Exception):
    """The service's error answer {code, message, hint}, with the HTTP status.

    code is the service's (IDENTITY_MISMATCH, NOT_FOUND, NO_DECISION ...); hint says what
    to do about it. status is 0 and code "UNREACHABLE" when no answer came at all.
    """

    def __init__(self, status, code, message, hint="", decision=None):
        self.status = status
        self.code = code
        self.message = message
        self.hint = hint
        self.decision = decision  # NO_DECISION answers carry the block the host should assume
        text = f"{status} {code}: {message}" if status else f"{code}: {message}"
        super().__init__(f"{text} ({hint})" if hint else text)

    @classmethod
    def from_body(cls, status, body):
        if not isinstance(body, dict):
            return cls(status, "", str(body))
        return cls(status, body.get("code", ""), body.get("message", ""), body.get("hint", ""), body.get("decision"))


class ValidationError(ValueError):
    """A request that does not fit its pack's PackRequest schema; nothing was sent.

    issues are handoff.schema.Issue values: each has a path (output.content.claims[0].id)
    and a message.
    """

    def __init__(self, pack, issues):
        self.pack = pack
        self.issues = list(issues)
        lines = "\n".join(f"  {i}" for i in self.issues)
        super().__init__(f"the request does not fit pack {pack}'s schema:\n{lines}")

    @property
    def paths(self):
        return [i.path for i in self.issues]
