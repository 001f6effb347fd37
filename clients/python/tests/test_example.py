"""example.py, the README's example, plays its workflow against a real server with the
demo principals (service/demo/principals.json), and the server then stops cleanly."""

import os
import subprocess
import sys
import unittest

import served
from served import Served


class Example(unittest.TestCase):
    def test_example_runs_against_the_demo_principals(self):
        server = Served(principals_file=os.path.join(served.REPO, "service", "demo", "principals.json"))
        try:
            # -P keeps example.py's folder, and the checkout's package in it, off the path.
            safe_path = ["-P"] if served.INSTALLED else []
            out = subprocess.run([sys.executable, *safe_path, os.path.join(served.PYTHON_DIR, "example.py"), server.url],
                                 capture_output=True, text=True, timeout=120)
        finally:
            server.stop()  # raises unless serve drained, closed the store and exited 0
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("chains verified", out.stdout)
        self.assertTrue(any('"shutting_down"' in e for e in server.events), server.events)


if __name__ == "__main__":
    unittest.main()
