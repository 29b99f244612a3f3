"""User-facing errors: what went wrong and where, printed without a traceback by the CLI."""


class UserError(Exception):
    """A mistake in the user's input (a file, an argument, a database path)."""
