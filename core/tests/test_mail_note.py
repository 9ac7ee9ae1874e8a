"""The sign-up page says where the confirmation mail goes when the hub does not send mail: printed
in the hub's terminal under `make run` (the console backend), or written to files."""

from django.test import Client

SIGNUP = "/accounts/signup/"


def test_under_make_run_the_sign_up_page_says_the_mail_is_in_the_hubs_terminal(db, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"  # what make run uses
    page = Client().get(SIGNUP).content.decode()
    assert 'id="mail-note"' in page
    assert "your confirmation mail will be in the terminal where the hub runs" in page


def test_a_hub_that_writes_mail_to_files_says_so(db, settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    page = Client().get(SIGNUP).content.decode()
    assert "your confirmation mail will be in its mail folder" in page


def test_a_hub_that_sends_mail_adds_no_note(db, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    assert 'id="mail-note"' not in Client().get(SIGNUP).content.decode()
