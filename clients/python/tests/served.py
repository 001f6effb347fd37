"""A real `handoffctl serve` for the tests: a fresh Badger store in a temporary folder,
a free loopback port, and a principals file of new random tokens. Nothing here stands
in for the service.

The binary is $HANDOFFCTL, or built once from this checkout with go build.

The handoff package under test is this checkout's, put first on the path; with
HANDOFF_PYTHON_INSTALLED=1 it is the one installed in the running interpreter's
environment instead, and $HANDOFF_REPO names the checkout (the tests then run from a
copy, where the checkout's package cannot be imported).
"""

import atexit
import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading

INSTALLED = os.environ.get("HANDOFF_PYTHON_INSTALLED") == "1"
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("HANDOFF_REPO") or os.path.dirname(os.path.dirname(os.path.dirname(TESTS_DIR)))
PYTHON_DIR = os.path.join(REPO, "clients", "python")
if INSTALLED:
    if not os.environ.get("HANDOFF_REPO"):
        raise RuntimeError("HANDOFF_PYTHON_INSTALLED=1 needs HANDOFF_REPO, the checkout the tests read")
elif PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)  # the handoff package, from this checkout

_built = None


def handoffctl():
    """The handoffctl binary to serve with."""
    global _built
    given = os.environ.get("HANDOFFCTL")
    if given:
        return given
    if _built is None:
        folder = tempfile.mkdtemp(prefix="handoffctl-")
        atexit.register(shutil.rmtree, folder, True)
        path = os.path.join(folder, "handoffctl")
        subprocess.run(["go", "build", "-o", path, "./cmd/handoffctl"], cwd=REPO, check=True)
        _built = path
    return _built


class Served:
    """A started server: url, and each principal's token by name. stop() ends it."""

    def __init__(self, principals=(), principals_file=None):
        """principals: dicts of name, tenant_id, type, id and optionally roles, admin,
        each given a new token; or principals_file, a principals file as it is."""
        self.dir = tempfile.mkdtemp(prefix="handoff-serve-")
        self.tokens = {}
        if principals_file is None:
            entries = []
            for p in principals:
                token = secrets.token_hex(24)
                self.tokens[p["name"]] = token
                entries.append({**p, "token_sha256": hashlib.sha256(token.encode()).hexdigest()})
            principals_file = os.path.join(self.dir, "principals.json")
            with open(principals_file, "w") as f:
                json.dump({"principals": entries}, f)
        self.stderr = open(os.path.join(self.dir, "serve.err"), "w+")
        # Port 0: the server takes a free port and says which in its "serving" event.
        self.proc = subprocess.Popen(
            [handoffctl(), "-o", "json", "--db", os.path.join(self.dir, "db"), "serve",
             "--addr", "127.0.0.1:0", "--principals", principals_file],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.url = self._serving_url()
        # The events after "serving" are kept as they come, so the pipe never fills.
        self.events = []
        self._reader = threading.Thread(target=lambda: self.events.extend(self.proc.stdout), daemon=True)
        self._reader.start()

    def _serving_url(self):
        timer = threading.Timer(60, self.proc.kill)  # a server that never says it serves
        timer.start()
        try:
            for line in self.proc.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "serving" and event.get("url"):
                    return event["url"]
        finally:
            timer.cancel()
        errors = self._errors()
        try:
            self.stop()
        except RuntimeError:
            pass  # its exit code says less than its standard error
        raise RuntimeError(f"handoffctl serve did not start: {errors}")

    def _errors(self):
        self.stderr.seek(0)
        return self.stderr.read()[-4000:]

    def client(self, name, **options):
        from handoff import Handoff
        return Handoff(self.url, self.tokens[name], **options)

    def stop(self):
        """SIGTERM: the server drains, closes the store and exits 0."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        code = self.proc.returncode
        if hasattr(self, "_reader"):
            self._reader.join(10)
        self.proc.stdout.close()
        self.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        if code != 0:
            raise RuntimeError(f"handoffctl serve exited {code}")
