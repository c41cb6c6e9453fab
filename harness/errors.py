"""Errors every command shares."""


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""

    def __str__(self) -> str:
        # A value may hold a line break (a file name, a kernel name): shown escaped,
        # the message stays the one line the command prints.
        return super().__str__().replace("\r", "\\r").replace("\n", "\\n")


class OutputError(OSError):
    """The standard output could not be written (a full disk): told apart from the
    other OSErrors, of the files a command writes."""
