from django import forms

from accounts.models import DISPLAY_MAX_LENGTH, TOKEN_NAME_MAX_LENGTH


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=TOKEN_NAME_MAX_LENGTH,
        label="Token name",
        help_text="Where it will live, e.g. laptop or ci.",
        widget=forms.TextInput(attrs={"placeholder": "laptop", "autocomplete": "off"}),
    )


class DisplayNameForm(forms.Form):
    display = forms.CharField(
        max_length=DISPLAY_MAX_LENGTH,
        required=False,
        label="Display name",
        help_text="The name your teams see. Leave it empty to show your username.",
    )
