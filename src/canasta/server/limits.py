"""Rate limits: token buckets, one per connection or per key (a session, a client address)."""

from __future__ import annotations

import time
from collections import OrderedDict


class TokenBucket:
    """``rate`` events per second on average, at most ``burst`` at once."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self, now: float | None = None) -> bool:
        """Spend one token; False when the bucket is empty (the event is over the limit)."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class KeyedLimiter:
    """Token buckets by key, ``per_minute`` events each; the least recently used keys are
    forgotten past ``max_keys`` so a flood of keys cannot grow memory without bound."""

    def __init__(self, per_minute: int, *, burst: int | None = None, max_keys: int = 100_000) -> None:
        self.per_minute = per_minute
        #: events at once (a full bucket); a minute's worth unless said
        self.burst = per_minute if burst is None else burst
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def allow(self, key: str) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.per_minute / 60.0, self.burst)
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.take()


class Counter:
    """Live counts by key (sockets per client address)."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def get(self, key: str) -> int:
        return self._counts.get(key, 0)

    def add(self, key: str) -> None:
        self._counts[key] = self._counts.get(key, 0) + 1

    def remove(self, key: str) -> None:
        n = self._counts.get(key, 0) - 1
        if n > 0:
            self._counts[key] = n
        else:
            self._counts.pop(key, None)
