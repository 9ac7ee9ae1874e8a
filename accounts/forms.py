from django import forms

from accounts.models import DISPLAY_MAX_LENGTH, TOKEN_NAME_MAX_LENGTH

NO_EXPIRY = "never"
TOKEN_EXPIRY_CHOICES = [("30", "30 days"), ("90", "90 days"), ("365", "365 days"), (NO_EXPIRY, "No expiry")]
TOKEN_SCOPE_CHOICES = [("read write", "Read and write"), ("read", "Read only")]


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=TOKEN_NAME_MAX_LENGTH,
        label="Token name",
        help_text="Where it will live, e.g. laptop or ci.",
        widget=forms.TextInput(attrs={"placeholder": "laptop", "autocomplete": "off"}),
    )
    # Not required: a form posted without them (a script) gets what the page preselects.
    expiry = forms.ChoiceField(choices=TOKEN_EXPIRY_CHOICES, initial="90", required=False, label="Expires after")
    scope = forms.ChoiceField(choices=TOKEN_SCOPE_CHOICES, initial="read write", required=False, label="Access")

    def clean_expiry(self):
        return self.cleaned_data["expiry"] or self.fields["expiry"].initial

    def clean_scope(self):
        return self.cleaned_data["scope"] or self.fields["scope"].initial

    def expires_in_days(self) -> int | None:
        expiry = self.cleaned_data["expiry"]
        return None if expiry == NO_EXPIRY else int(expiry)


class DisplayNameForm(forms.Form):
    display = forms.CharField(
        max_length=DISPLAY_MAX_LENGTH,
        required=False,
        label="Display name",
        help_text="The name your teams see. Leave it empty to show your username.",
    )


NEW_PASSWORD = forms.PasswordInput(attrs={"autocomplete": "new-password"})


class ClaimForm(forms.Form):
    """The email and password that give an account made by `ltm join` a web sign-in."""

    email = forms.EmailField(label="Email", widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password1 = forms.CharField(label="Password", strip=False, widget=NEW_PASSWORD)
    password2 = forms.CharField(label="Password (again)", strip=False, widget=NEW_PASSWORD)

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password1") != data.get("password2"):
            self.add_error("password2", "The two passwords differ.")
        return data
