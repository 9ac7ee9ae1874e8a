"""The stack CI starts (the Procfile, under honcho) is the one users deploy (docker-compose.yml,
the Docker image): each service runs the same command line, and in both only the proxy (nginx,
proxy.py) faces clients."""

import json
import re

import yaml
from honcho.environ import parse_procfile

from hub.testing import ROOT


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


def _default(value: str) -> str:
    """`${NAME:-default}` as compose reads it when NAME is unset."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


def test_compose_names_only_services_it_has():
    """What `docker compose config` would refuse, where no compose client is installed."""
    compose = _compose()
    services = compose["services"]
    for name, service in services.items():
        assert set(service.get("depends_on", {})) <= set(services) - {name}, name
        assert "image" in service or "build" in service, name
        for volume in service.get("volumes", []):
            assert _default(volume).split(":")[0] in compose["volumes"], volume


def test_in_compose_only_the_proxy_faces_clients_and_it_forwards_to_web():
    services = _compose()["services"]
    assert [name for name, service in services.items() if "ports" in service] == ["proxy"]
    proxy, hub = services["proxy"], services["web"]
    assert proxy["environment"]["PROXY_UPSTREAMS"] == f"web:{hub['environment']['PORT']}"
    assert proxy["depends_on"]["web"] == {"condition": "service_healthy"}
    port = proxy["environment"]["PORT"]
    assert _default(proxy["ports"][0]).endswith(f":{port}") and f":{port}/" in proxy["healthcheck"]["test"][-1]
    # https, and the hub reads the client's address and scheme from the proxy's headers
    assert proxy["environment"]["PROXY_TLS_CERT"] and proxy["environment"]["PROXY_TLS_KEY"]
    assert hub["environment"]["LTM_TRUST_PROXY_HEADERS"] == "1"
    assert _default(hub["environment"]["LTM_EXTERNAL_URL"]) == f"https://localhost:{port}"


def test_make_stack_points_the_proxy_at_the_port_honcho_gives_web():
    """honcho hands each process type it starts the next hundred ports, in the order named."""
    makefile = (ROOT / "Makefile").read_text()
    started = re.search(r"honcho start (proxy [a-z ]+)$", makefile, re.MULTILINE).group(1).split()
    assert set(started) == set(_procfile()) - {"release"}
    offset = 100 * (started.index("web") - started.index("proxy"))
    assert f'PROXY_UPSTREAMS="127.0.0.1:$$(($(PORT) + {offset}))"' in makefile
    assert "WEB_HOST=127.0.0.1" in makefile and "LTM_TRUST_PROXY_HEADERS=1" in makefile
