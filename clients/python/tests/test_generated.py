"""handoff/packs/PACK.py is what generate.py writes from clients/schemas/PACK/openapi.json:
a document that changed without the types regenerated fails here, not in a host's
type checker."""

import importlib
import importlib.util
import os
import unittest

import served


def load_generate():
    """generate.py from the checkout, by its path: its folder stays off the path, which
    would otherwise offer the checkout's handoff package."""
    spec = importlib.util.spec_from_file_location("generate", os.path.join(served.PYTHON_DIR, "generate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = load_generate()


class GeneratedTypes(unittest.TestCase):
    def test_every_pack_has_its_types(self):
        self.assertEqual(generate.packs(), ["assessment", "campaign", "support", "video"])

    def test_generated_files_are_current(self):
        for pack in generate.packs():
            with self.subTest(pack=pack):
                with open(os.path.join(generate.PACKS, f"{pack}.py")) as f:
                    committed = f.read()
                self.assertTrue(committed == generate.render(pack),
                                f"handoff/packs/{pack}.py is stale: run python3 clients/python/generate.py")

    def test_generation_is_deterministic(self):
        self.assertEqual(generate.render("campaign"), generate.render("campaign"))

    def test_types_import_and_name_each_request_kind(self):
        for pack in generate.packs():
            with self.subTest(pack=pack):
                module = importlib.import_module(f"handoff.packs.{pack}")
                kinds = {a.__forward_arg__ for a in module.PackRequest.__args__}
                self.assertEqual(len(kinds), 8, kinds)
                start = getattr(module, f"{pack.capitalize()}StartRequest")
                self.assertLessEqual({"kind", "request_id", "tenant_id", "actor"}, start.__required_keys__)
                self.assertIn("brief", start.__optional_keys__ | start.__required_keys__)


if __name__ == "__main__":
    unittest.main()
