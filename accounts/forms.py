from django import forms


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=64,
        label="Token name",
        help_text="Where it will live, e.g. laptop or ci.",
        widget=forms.TextInput(attrs={"placeholder": "laptop", "autocomplete": "off"}),
    )


class DisplayNameForm(forms.Form):
    display = forms.CharField(
        max_length=80,
        required=False,
        label="Display name",
        help_text="The name your teams see. Leave it empty to show your username.",
    )
