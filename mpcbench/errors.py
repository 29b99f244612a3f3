"""User-facing errors: what went wrong and where, printed as one line without a traceback by the
CLI (`mpcbench --debug ...` shows the traceback too). `code` is the exit status: 1 for a failure,
2 for a bad option or an endpoint that cannot be used, 130 for an interrupted run."""


class UserError(Exception):
    """A mistake in the user's input (a file, an argument, a database path)."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code
