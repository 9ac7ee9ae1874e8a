"""Federation's work on the Celery worker: one attempt at a message, and beat's sweep of the
messages whose retry fell due (the schedule lives in the database, each message's
next_attempt_at, so a worker killed mid-wait loses nothing). No task waits in the worker with a
countdown: kombu's Redis transport, restoring such a task when Redis goes away, stops the worker."""

from celery import shared_task

from federation.delivery import message_attempt, messages_due


@shared_task(name="federation.tasks.message_send", ignore_result=True)
def message_send(message_id: str) -> str | None:
    """One attempt at the message; a retry waits for beat's sweep."""
    attempted = message_attempt(message_id=message_id)
    return None if attempted is None else attempted.state


@shared_task(name="federation.tasks.messages_sweep", ignore_result=True)
def messages_sweep() -> int:
    """Queue every message that is due (beat); how many."""
    due = messages_due()
    for message_id in due:
        message_send.apply_async((message_id,))
    return len(due)
