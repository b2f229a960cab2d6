"""Optional price table: per-model US dollars per million tokens (input, output) -> cost of a reply."""

from __future__ import annotations

from collections.abc import Mapping

# model name -> ($ per 1M input tokens, $ per 1M output tokens)
PriceTable = Mapping[str, tuple[float, float]]


def cost_usd(
    prices: PriceTable | None, model: str, tokens_in: int | None, tokens_out: int | None
) -> float | None:
    """The cost of one call, or None when the model has no price or the token counts are unknown."""
    if not prices or tokens_in is None or tokens_out is None:
        return None
    price = prices.get(model)
    if price is None:
        return None
    per_in, per_out = price
    return round((tokens_in * per_in + tokens_out * per_out) / 1_000_000, 8)
