"""User-facing errors: what went wrong and where, printed as one line without a traceback by the
CLI (`mpcbench --debug ...` shows the traceback too). `code` is the exit status: 1 for a failure,
2 for a bad option or an endpoint that cannot be used, 130 for an interrupted run."""


class UserError(Exception):
    """A mistake in the user's input (a file, an argument, a database path)."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


class HarnessError(Exception):
    """A failure of MPCBench's own code during an episode (a tool's query the warehouse refuses, an
    offline agent that cannot read a tool's text, a bug): never the model's fault, never an
    infrastructure error. The episode ends with error `harness_error: ...`, and the run fails."""


class InfrastructureError(Exception):
    """The endpoint could not produce a usable answer (not the model's fault): raised by
    `llm.ChatClient` after its retries, or by another path's model (Inspect's). `kind` names the
    failure (`rate_limit`, `timeout`, ...: `llm.KINDS`)."""

    def __init__(self, kind: str, message: str, attempts: int = 0):
        super().__init__(f"{kind}: {message} (attempts={attempts})")
        self.kind, self.message, self.attempts = kind, message, attempts

    def __reduce__(self):
        return (type(self), (self.kind, self.message, self.attempts))


class ModelLimitError(Exception):
    """The endpoint refused a request for a limit of the model (`model_limits`): the conversation
    is longer than its context (`context_exceeded`), or the server could not parse the model's
    own output after the retries (`model_output_rejected`). The model's failure: the episode
    ends scored, with this cause."""

    def __init__(self, cause: str, message: str, attempts: int = 0):
        super().__init__(f"{cause}: {message} (attempts={attempts})")
        self.cause, self.message, self.attempts = cause, message, attempts

    def __reduce__(self):
        return (type(self), (self.cause, self.message, self.attempts))
