"""Errors every command shares."""


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""
