"""How many timed repetitions a row takes, and what its samples say.

By default a row repeats until its timings are quiet enough to trust or its
time budget is spent, with nvbench's default criterion as the model: at least
`StopRule.min_samples` samples and `StopRule.min_time` seconds of measured
time, then stop as soon as the relative standard deviation of the samples
(the noise) falls under the target, or stops changing (its recent history
varies by less than `StopRule.settled` of its value), or the wall-clock budget
runs out. A fixed ``--reps`` count bypasses the rule.

A repetition much shorter than `StopRule.sample_time` is not timed alone: the
clocks' resolution and the launch's jitter would be most of its sample. The
repetitions are timed back to back in batches instead, each sample the
batch's mean (pyperf's loops, nvbench's batch measurement); `batch_size`
says how many.

Every row records the median with its quartiles and a 95% confidence interval,
the sample count, the noise, and why sampling stopped.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Fewest timed repetitions of a row, whatever its budget.
MIN_REPS = 3

#: The most repetitions one sample batches, whatever their length.
MAX_BATCH = 1000

#: The most repetitions ``--reps`` and ``--warmup`` ask of a row: a million of a
#: microsecond kernel take a second, of a millisecond one a quarter of an hour.
#: A count of 10^18 ran for ever (under ``--in-process``, where no timeout acts),
#: its samples filling the host's memory.
MAX_REPS = 1_000_000

#: Why sampling stopped: the noise target was met; the noise stopped changing
#: above the target; the time budget ran out; the most samples a row keeps were
#: taken; a fixed count was asked for.
STOPS = ("noise", "settled", "budget", "samples", "reps")

#: A row is flagged unstable when its repetitions spread more than this
#: (coefficient of variation), or when the slowest takes twice the fastest.
UNSTABLE_CV = 0.10
UNSTABLE_RATIO = 2.0


@dataclass(frozen=True)
class StopRule:
    """When a row has sampled enough (nvbench's stdrel criterion, with a budget)."""

    #: Target for the samples' relative standard deviation.
    max_noise: float = 0.005
    #: Fewest samples before the noise is judged.
    min_samples: int = 10
    #: Fewest seconds of measured time before the noise is judged.
    min_time: float = 0.5
    #: Wall-clock seconds after which a row stops whatever its noise.
    max_time: float = 2.0
    #: The most samples a row takes (and keeps): a kernel of a microsecond
    #: reaches this long before `min_time`.
    max_samples: int = 10_000
    #: How many of the latest noise values show whether it has stopped changing.
    window: int = 64
    #: The noise has settled when its latest values vary by less than this
    #: fraction of the current one.
    settled: float = 0.05
    #: Seconds of samples asked of the device at a time, between checks.
    batch_time: float = 0.05
    #: Least device time one sample covers: shorter repetitions are timed in
    #: back-to-back batches (`batch_size`); 0 times each repetition alone.
    sample_time: float = 0.001


class Sampler:
    """Collects per-repetition times and says when the rule is satisfied."""

    def __init__(self, rule: StopRule, batch: int = 1) -> None:
        self.rule = rule
        #: Repetitions behind each sample (its time is their mean).
        self.batch = batch
        self.times: list[float] = []
        self._mean = 0.0
        self._m2 = 0.0
        self._noises: deque[float] = deque(maxlen=rule.window)

    @property
    def noise(self) -> float | None:
        """The samples' relative standard deviation so far (None before two)."""
        n = len(self.times)
        if n < 2 or self._mean <= 0:
            return None
        return math.sqrt(self._m2 / (n - 1)) / self._mean

    def add(self, times: Sequence[float]) -> None:
        """Take more samples (Welford's update, one sample at a time, so that the
        noise history has a value per sample as nvbench's has)."""
        for t in times:
            self.times.append(t)
            delta = t - self._mean
            self._mean += delta / len(self.times)
            self._m2 += delta * (t - self._mean)
            noise = self.noise
            if noise is not None and math.isfinite(noise):
                self._noises.append(noise)

    def stop(self, elapsed: float) -> str | None:
        """Why to stop now, after ``elapsed`` wall-clock seconds; None to go on."""
        rule = self.rule
        n = len(self.times)
        measured = sum(self.times) * self.batch
        judged = n >= rule.min_samples and measured >= min(rule.min_time, rule.max_time / 2)
        noise = self.noise
        if judged and noise is not None and noise < rule.max_noise:
            return "noise"
        if judged and self._settled():
            return "settled"
        if elapsed >= rule.max_time and n >= MIN_REPS:
            return "budget"
        if n >= rule.max_samples:
            return "samples"
        return None

    def _settled(self) -> bool:
        if len(self._noises) < self.rule.window:
            return False
        current = self._noises[-1]
        spread = math.sqrt(statistics.fmean((v - current) ** 2 for v in self._noises))
        return current > 0 and spread / current < self.rule.settled

    def next_count(self, per_sample: float, remaining: float) -> int:
        """How many samples to ask for next, each taking about ``per_sample`` wall
        seconds: enough to fill `StopRule.batch_time`, at least what `MIN_REPS`
        still needs, otherwise no more than the ``remaining`` budget holds."""
        short = MIN_REPS - len(self.times)
        if per_sample <= 0:
            return max(short, self.rule.min_samples)
        wanted = max(1, short, round(self.rule.batch_time / per_sample))
        most = max(1, short, math.floor(remaining / per_sample))
        return max(1, min(wanted, most, self.rule.max_samples - len(self.times)))


def batch_size(per_rep: float, rule: StopRule) -> int:
    """Repetitions per sample for a repetition of ``per_rep`` device seconds:
    enough to cover `StopRule.sample_time`, at most `MAX_BATCH`, and few enough
    that the `MIN_REPS` samples a row takes fit in its `StopRule.max_time`
    (--sample-time 10 --max-time 0.5 timed a row of 7 ms repetitions for 24 s)."""
    if per_rep <= 0 or rule.sample_time <= per_rep:
        return 1
    fits = math.floor(rule.max_time / MIN_REPS / per_rep)
    return max(1, min(MAX_BATCH, math.ceil(rule.sample_time / per_rep), fits))


def median_interval(times: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """A distribution-free confidence interval for the median: the order statistics
    whose ranks bracket it, from the normal approximation to the binomial."""
    ordered = sorted(times)
    n = len(ordered)
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    half = z * math.sqrt(n) / 2
    low = max(0, math.floor(n / 2 - half) - 1)
    high = min(n - 1, math.ceil(n / 2 + half) - 1)
    return ordered[low], ordered[high]


def summarise(times: Sequence[float], rule: StopRule, stop: str) -> dict[str, Any]:
    """A row's timing columns: min, quartiles, median with its interval, mean, max,
    standard deviation, noise, sample count, whether the noise target was met, why
    sampling stopped, and whether the spread is too wide to trust (pyperf's warning)."""
    mean = statistics.fmean(times)
    std = statistics.stdev(times) if len(times) > 1 else None
    low, high = min(times), max(times)
    q1, median, q3 = (float(q) for q in np.percentile(times, [25, 50, 75]))
    ci_low, ci_high = median_interval(times)
    noise = std / mean if std is not None and mean > 0 else None
    unstable = bool(
        (noise is not None and noise > UNSTABLE_CV) or (low > 0 and high / low > UNSTABLE_RATIO)
    )
    return {
        "time_min_s": low,
        "time_median_s": median,
        "time_mean_s": mean,
        "time_max_s": high,
        "time_std_s": std,
        "time_q1_s": q1,
        "time_q3_s": q3,
        "time_ci_low_s": ci_low,
        "time_ci_high_s": ci_high,
        "samples": len(times),
        "noise": noise,
        "noise_target": rule.max_noise,
        "noise_met": bool(
            noise is not None and noise < rule.max_noise and len(times) >= rule.min_samples
        ),
        "stop": stop,
        "unstable": unstable,
    }
