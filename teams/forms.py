from django import forms
from django.core.validators import RegexValidator

from teams.models import TeamEvent


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


class TeamActivityForm(forms.Form):
    """The activity page's query string: the kind of line to show and `before`, the id of the
    oldest event of the previous page (keyset paging). Each is read on its own, and one that does
    not parse is ignored rather than refused: it comes from a link or a hand-edited address, and
    the log is still worth showing."""

    kind = forms.ChoiceField(required=False, choices=[("", "Everything"), *TeamEvent.KINDS])
    # An event id: ASCII digits only (not " 5", "+5" or "٥"), at most 18 so that it fits a 64-bit id.
    before = forms.CharField(required=False, strip=False, validators=[RegexValidator(r"\A[0-9]{1,18}\Z")])

    def clean_before(self) -> int | None:
        return int(self.cleaned_data["before"]) if self.cleaned_data["before"] else None

    def page_arguments(self) -> dict:
        """`kind` and `before` for teams.selectors.team_events: "" and None where absent or invalid."""
        self.is_valid()
        return {"kind": self.cleaned_data.get("kind", ""), "before": self.cleaned_data.get("before")}
