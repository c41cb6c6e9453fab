"""Argument types the commands share: each refuses a bad value with a message
naming it and what is accepted."""

from __future__ import annotations

import argparse

from harness.execution.runner import MAX_SECONDS


def positive_int(text: str) -> int:
    """A whole number above 0 (sizes, repetitions, sample counts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive whole number")
    return value


def count(text: str) -> int:
    """A whole number of 0 or more (warm-up repetitions)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def seconds(text: str) -> float:
    """Seconds above 0, at most a week (longer waits overflow the workers' poll())."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give more than 0 and at most {MAX_SECONDS} seconds "
            "(one week)"
        )
    return value


def percent(text: str) -> float:
    """A percentage above 0 and below 100."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of percent") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give more than 0 and under 100"
        )
    return value
