from django import forms

PERSONAL = "personal"
TEAM_PREFIX = "team:"


def team_choice(team) -> tuple[str, str]:
    """A team as a scope choice: ("team:<name>", "Team <name>")."""
    return TEAM_PREFIX + team.name, f"Team {team.name}"


def scope_team_name(scope: str) -> str | None:
    """The team name in a "team:<name>" scope; None for any other scope."""
    return scope.removeprefix(TEAM_PREFIX) if scope.startswith(TEAM_PREFIX) else None


class PacketFilterForm(forms.Form):
    """The packet list's filters, read from the query string. `scope` is "" (everything),
    "personal", or "team:<name>" (team names can be any valid name, "personal" included)."""

    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": 'Words, "a phrase", -word, or a packet id'}),
    )
    # How a search finds packets (packets.search.selectors.MODES); blank is the default, hybrid.
    mode = forms.ChoiceField(
        required=False,
        label="Match",
        choices=[("", "Words and meaning"), ("keyword", "Words only"), ("semantic", "Meaning only")],
    )
    scope = forms.ChoiceField(required=False, label="Scope")
    tag = forms.CharField(required=False, max_length=100, label="Tag")
    project = forms.CharField(required=False, max_length=128, label="Project")

    def __init__(self, *args, teams=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scope"].choices = [("", "All packets"), (PERSONAL, "Personal")] + [
            team_choice(team) for team in teams
        ]

    def search_arguments(self) -> dict:
        """Keyword arguments for packets.selectors.packet_search (nothing for an invalid form)."""
        if not self.is_valid():
            return {}
        scope = self.cleaned_data["scope"]
        return {
            "personal": scope == PERSONAL,
            "team_name": scope_team_name(scope) or "",
            "tag": self.cleaned_data["tag"],
            "project": self.cleaned_data["project"],
            "text": self.cleaned_data["q"],
            "mode": self.cleaned_data["mode"] or "hybrid",
        }

    def is_filtered(self) -> bool:
        # The mode alone filters nothing: it only says how a search matches.
        return bool(self.is_valid() and any(value for name, value in self.cleaned_data.items() if name != "mode"))
