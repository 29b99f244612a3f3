"""`python -m mpcbench` and the `mpcbench` command. Ctrl-C is answered from the first moment:
the command line's libraries take seconds to import on a busy machine, so the handler that says
nothing was saved is installed before they are, by this module, which imports only
`mpcbench.interrupt` (the standard library's; it takes over once they are loaded)."""

import os
import signal

from .interrupt import EXIT_STATUS, WHILE_STARTING


def stop_while_starting(signum, frame) -> None:
    os.write(2, f"error: {WHILE_STARTING}\n".encode())
    os._exit(EXIT_STATUS)


def main() -> None:
    signal.signal(signal.SIGINT, stop_while_starting)
    from .cli import main as run_command  # noqa: PLC0415 - only after the handler: this import takes seconds

    run_command()


if __name__ == "__main__":  # worker processes (spawn) import this module without running it
    main()
