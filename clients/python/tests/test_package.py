"""The handoff package the suite tests is the one it was told to: this checkout's, or
(HANDOFF_PYTHON_INSTALLED=1) the one installed from the wheel into the virtual
environment running the suite, with its version, no dependencies, the pack types and
the marker that lets a host's type checker read them."""

import importlib.metadata
import os
import sys
import sysconfig
import tomllib
import unittest

import served

import handoff


def folder(path):
    return os.path.realpath(os.path.dirname(path))


class Package(unittest.TestCase):
    def test_handoff_comes_from_where_the_suite_was_told(self):
        package = folder(handoff.__file__)
        if not served.INSTALLED:
            self.assertEqual(package, os.path.realpath(os.path.join(served.PYTHON_DIR, "handoff")))
            return
        self.assertNotEqual(sys.prefix, sys.base_prefix, "the suite runs in a virtual environment")
        self.assertEqual(os.path.dirname(package), os.path.realpath(sysconfig.get_paths()["purelib"]))
        self.assertFalse(package.startswith(os.path.realpath(served.REPO) + os.sep), handoff.__file__)
        with open(os.path.join(served.PYTHON_DIR, "pyproject.toml"), "rb") as f:
            project = tomllib.load(f)["project"]
        self.assertEqual(importlib.metadata.version(project["name"]), project["version"])
        self.assertIsNone(importlib.metadata.requires(project["name"]), "standard library only")

    def test_pack_types_ship_with_the_typed_marker(self):
        here = folder(handoff.__file__)
        self.assertTrue(os.path.isfile(os.path.join(here, "py.typed")))
        for pack in ("assessment", "campaign", "support", "video"):
            self.assertTrue(os.path.isfile(os.path.join(here, "packs", f"{pack}.py")), pack)


if __name__ == "__main__":
    unittest.main()
