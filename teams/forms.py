from django import forms


class TeamCreateForm(forms.Form):
    # The rules on the name live in teams.services.team_create; its message is shown on the field.
    name = forms.CharField(
        max_length=40,
        label="Team name",
        help_text="Lower-case letters, digits, - and _; the client uses it: ltm push -t <name>.",
        widget=forms.TextInput(
            attrs={
                "placeholder": "e.g. platform",
                "autocomplete": "off",
                "pattern": "[a-z0-9][a-z0-9_\\-]{0,39}",
                "autocapitalize": "none",
            }
        ),
    )
