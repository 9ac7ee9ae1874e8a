"""The stack CI starts (the Procfile, under honcho) is the one users deploy (docker-compose.yml,
the Docker image): each service runs the same command line."""

import json
import re
from pathlib import Path

import yaml
from honcho.environ import parse_procfile

ROOT = Path(__file__).resolve().parents[1]


def _procfile() -> dict[str, str]:
    return parse_procfile((ROOT / "Procfile").read_text()).processes


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_the_procfile_starts_what_compose_starts():
    services = _compose()["services"]
    commands = {name: service["command"] for name, service in services.items() if "command" in service}
    assert commands == _procfile()


def test_the_image_runs_the_web_line():
    cmd = re.search(r"^CMD (.+)$", (ROOT / "Dockerfile").read_text(), re.MULTILINE).group(1)
    assert " ".join(json.loads(cmd)) == _procfile()["web"]


def test_compose_starts_the_hub_after_its_release():
    services = _compose()["services"]
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["release"] == {"condition": "service_completed_successfully"}
    assert services["release"]["restart"] == "no"


def test_compose_names_only_services_it_has():
    """What `docker compose config` would refuse, where no compose client is installed."""
    compose = _compose()
    services = compose["services"]
    for name, service in services.items():
        assert set(service.get("depends_on", {})) <= set(services) - {name}, name
        assert "image" in service or "build" in service, name
        for volume in service.get("volumes", []):
            assert volume.split(":")[0] in compose["volumes"], volume
