"""A pytest fixture that runs the service emulator for the tests of this folder.

The emulator is the self-contained executable ``service-emulator`` (no Node.js needed; see
docs/emulator.md, "The emulator without Node.js"): the one named by the environment variable
``SERVICE_EMULATOR`` (a path), else the one found on ``PATH``. It starts once per test session
on a free port with a data file in a temporary folder, and stops (SIGTERM) at the end.
"""

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest

API_KEY = "key-pytest-example"
ADMIN_KEY = "admin-pytest-example"


class Emulator:
    """A running emulator: its base URL and the keys it was started with."""

    def __init__(self, url, api_key, admin_key):
        self.url = url
        self.api_key = api_key
        self.admin_key = admin_key

    def request(self, method, path, body=None, key=None, version=True):
        """Sends one request; returns ``(status, parsed JSON body or None)``.

        ``key`` defaults to the API key; ``version=False`` leaves out ``Service-Version``
        (the operator endpoints take none).
        """
        headers = {"Authorization": f"Bearer {key or self.api_key}"}
        if version:
            headers["Service-Version"] = "2"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                text = res.read()
                return res.status, json.loads(text) if text else None
        except urllib.error.HTTPError as err:
            text = err.read()
            return err.code, json.loads(text) if text else None


def find_emulator():
    """The executable: ``$SERVICE_EMULATOR``, else ``service-emulator`` on PATH."""
    given = os.environ.get("SERVICE_EMULATOR")
    if given:
        if not os.access(given, os.X_OK):
            raise RuntimeError(f"SERVICE_EMULATOR={given} is not an executable file")
        return given
    found = shutil.which("service-emulator")
    if not found:
        raise RuntimeError(
            "no service-emulator on PATH and SERVICE_EMULATOR unset: download it from the "
            "GitHub release (docs/emulator.md, 'The emulator without Node.js')"
        )
    return found


@pytest.fixture(scope="session")
def emulator(tmp_path_factory):
    """Starts the emulator; waits until it listens (its one JSON line on stdout); stops it after."""
    data = tmp_path_factory.mktemp("emulator") / "data.db"
    proc = subprocess.Popen(
        [
            find_emulator(),
            "--port", "0",
            "--data", str(data),
            "--api-key", API_KEY,
            "--admin-key", ADMIN_KEY,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        # The emulator prints exactly one line of JSON once it listens, then nothing more.
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the emulator exited with {proc.wait(timeout=10)} before listening")
        started = json.loads(line)
        yield Emulator(started["url"], API_KEY, started["adminKey"])
    finally:
        proc.terminate()
        proc.wait(timeout=10)
