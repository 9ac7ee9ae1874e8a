"""Signals webhooks sends, for the apps above it (ops counts deliveries) to follow without
webhooks importing them.

delivery_attempted: one attempt at a delivery is over, sent after its outcome committed.
Arguments: result, one of "delivered", "retried" (it will be tried again), "failed" (given up, or
the webhook is off) and "gone" (the receiver answered 410 and the webhook was turned off).
"""

from django.dispatch import Signal

delivery_attempted = Signal()
