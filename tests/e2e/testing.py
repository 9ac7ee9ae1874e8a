"""What the browser tests share: the password their people sign in with, signing in, the
dashboard's confirmation dialog, and the Content-Security-Policy violations a page reports."""

PASSWORD = "a-long-and-unguessable-passphrase"


def sign_in(page, base_url, username):
    """Sign `username` in on allauth's page, with PASSWORD."""
    page.goto(base_url + "/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_load_state()


def signed_in_page(new_page, base_url, username):
    """A page of a fresh browser context (new_page, the conftest's fixture) with `username` signed in."""
    page = new_page()
    sign_in(page, base_url, username)
    return page


def confirm_in_dialog(page, screenshot=None):
    """Confirm the dashboard's dialog (dialog.confirm-dialog) and wait for the page it leads to."""
    dialog = page.locator("dialog.confirm-dialog")
    dialog.wait_for(state="visible")
    if screenshot:
        page.screenshot(path=str(screenshot))
    with page.expect_navigation():
        dialog.locator("button.confirm-ok").click()


def watch_csp(page) -> list[str]:
    """What the strict Content-Security-Policy blocked on the page, and any script error."""
    seen = []
    page.on("pageerror", lambda error: seen.append(str(error)))
    page.on("console", lambda message: seen.append(message.text) if "Content Security Policy" in message.text else None)
    return seen
