"""Federation's work on the Celery worker: one attempt at a message, and beat's sweep of the
messages whose retry fell due (the schedule lives in the database, each message's
next_attempt_at, so a worker killed mid-wait loses nothing)."""

from celery import shared_task

from federation.delivery import message_attempt, messages_due

# A retry due sooner than this is queued with its countdown by the task that failed; later ones
# wait for beat's sweep.
COUNTDOWN_MAX = 60


@shared_task(name="federation.tasks.message_send", bind=True, ignore_result=True, max_retries=None)
def message_send(self, message_id: str) -> str | None:
    attempted = message_attempt(message_id=message_id)
    if attempted is None:
        return None
    if attempted.retry_in is not None and attempted.retry_in <= COUNTDOWN_MAX and not self.request.is_eager:
        raise self.retry(args=(message_id,), countdown=attempted.retry_in)
    return attempted.state


@shared_task(name="federation.tasks.messages_sweep", ignore_result=True)
def messages_sweep() -> int:
    """Queue every message that is due (beat); how many."""
    due = messages_due()
    for message_id in due:
        message_send.apply_async((message_id,))
    return len(due)
