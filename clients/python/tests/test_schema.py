"""The JSON Schema 2020-12 validator, keyword by keyword, and on the served documents."""

import json
import os
import unittest

import served

from handoff.schema import ANNOTATIONS, KEYWORDS, json_equal, validate

SCHEMAS = os.path.join(served.REPO, "clients", "schemas")


def paths(instance, schema, root=None):
    return [(i.path, i.keyword) for i in validate(instance, schema, root)]


class Keywords(unittest.TestCase):
    def test_type(self):
        self.assertEqual(paths(1, {"type": "integer"}), [])
        self.assertEqual(paths(1.0, {"type": "integer"}), [], "an integral float is an integer")
        self.assertEqual(paths(1.5, {"type": "integer"}), [("", "type")])
        self.assertEqual(paths(True, {"type": "integer"}), [("", "type")], "a bool is no number")
        self.assertEqual(paths(True, {"type": "number"}), [("", "type")])
        self.assertEqual(paths(None, {"type": ["array", "null"]}), [])
        self.assertEqual(paths("x", {"type": ["array", "null"]}), [("", "type")])

    def test_enum_and_const_compare_json_values(self):
        self.assertEqual(paths(1.0, {"const": 1}), [])
        self.assertEqual(paths(True, {"const": 1}), [("", "const")])
        self.assertEqual(paths({"a": [1]}, {"enum": ["x", {"a": [1]}]}), [])
        self.assertEqual(paths("y", {"enum": ["x"]}), [("", "enum")])
        self.assertFalse(json_equal(0, False))

    def test_objects(self):
        schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"],
                  "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False}
        self.assertEqual(paths({"a": "s", "b": 1, "x-n": 2}, {**schema, "properties": {**schema["properties"], "b": True}}), [])
        self.assertEqual(paths({"a": 1, "x-n": "s", "c": 0}, schema),
                         [("b", "required"), ("a", "type"), ("x-n", "type"), ("c", "additionalProperties")])
        self.assertEqual(paths({"k": "s"}, {"additionalProperties": {"type": "integer"}}), [("k", "type")])
        self.assertEqual(paths({"BAD": 1}, {"propertyNames": {"pattern": "^[a-z]+$"}}), [("BAD", "propertyNames")])

    def test_arrays(self):
        schema = {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}, "minItems": 2}
        self.assertEqual(paths(["a", 1, 2], schema), [])
        self.assertEqual(paths([1], schema), [("", "minItems"), ("[0]", "type")])
        self.assertEqual(paths(["a", "b"], schema), [("[1]", "type")])
        self.assertEqual(paths([1], {"items": False}), [("[0]", "false")])

    def test_strings_count_code_points_and_match_re2_patterns(self):
        self.assertEqual(paths("日本語", {"maxLength": 3, "minLength": 3}), [])
        self.assertEqual(paths("日本語!", {"maxLength": 3}), [("", "maxLength")])
        self.assertEqual(paths("", {"minLength": 1}), [("", "minLength")])
        self.assertEqual(paths("ab-12", {"pattern": "[0-9]{2}"}), [], "a pattern is not anchored")
        self.assertEqual(paths("٣", {"pattern": r"^\d$"}), [("", "pattern")], r"\d is ASCII, as in RE2")

    def test_numbers(self):
        schema = {"minimum": 0, "maximum": 1, "exclusiveMinimum": -1, "exclusiveMaximum": 2}
        self.assertEqual(paths(0, schema), [])
        self.assertEqual(paths(-0.5, schema), [("", "minimum")])
        self.assertEqual(paths(3, {"exclusiveMaximum": 3}), [("", "exclusiveMaximum")])
        self.assertEqual(paths(0, {"exclusiveMinimum": 0}), [("", "exclusiveMinimum")])
        self.assertEqual(paths("5", {"maximum": 1}), [], "a bound says nothing of a string")

    def test_combinators(self):
        self.assertEqual(paths("", {"type": "string", "not": {"const": ""}}), [("", "not")])
        self.assertEqual(paths(5, {"anyOf": [{"type": "string"}, {"minimum": 3}]}), [])
        self.assertEqual(paths(5, {"allOf": [{"minimum": 3}, {"maximum": 4}]}), [("", "maximum")])
        self.assertEqual(paths(5, {"oneOf": [{"minimum": 3}, {"maximum": 9}]}), [("", "oneOf")], "two match")

    def test_one_of_reports_the_alternative_the_value_was_meant_for(self):
        schema = {"oneOf": [
            {"properties": {"type": {"const": "A"}, "n": {"type": "integer"}}, "required": ["type"]},
            {"properties": {"type": {"const": "B"}, "s": {"type": "string"}}, "required": ["type"]},
        ]}
        self.assertEqual(paths({"type": "B", "s": 1}, schema), [("s", "type")])
        self.assertEqual(paths({"type": "C"}, schema), [("", "oneOf")])

    def test_refs_to_components_and_defs(self):
        root = {"components": {"schemas": {"A": {"$ref": "#/$defs/B"}}}, "$defs": {"B": {"type": "string"}}}
        self.assertEqual(paths("x", {"$ref": "#/components/schemas/A"}, root), [])
        self.assertEqual(paths(1, {"$ref": "#/components/schemas/A"}, root), [("", "type")])
        self.assertEqual(paths([{"a": 1}], {"items": {"properties": {"a": {"$ref": "#/$defs/B"}}}}, root),
                         [("[0].a", "type")])
        with self.assertRaises(ValueError):
            validate(1, {"$ref": "#/components/schemas/Nope"}, root)

    def test_annotations_assert_nothing(self):
        schema = {"description": "d", "title": "t", "$comment": "c", "format": "date-time",
                  "examples": [1], "discriminator": {"propertyName": "kind"}}
        self.assertEqual(paths("not a date", schema), [])


class ServedDocuments(unittest.TestCase):
    def test_they_use_no_keyword_the_validator_does_not_assert(self):
        for pack in sorted(os.listdir(SCHEMAS)):
            for name in ("openapi.json", "schemas.json"):
                with open(os.path.join(SCHEMAS, pack, name)) as f:
                    doc = json.load(f)
                roots = doc["components"]["schemas"].values() if name == "openapi.json" else \
                    list(doc["requests"].values()) + list(doc["artifacts"].values())
                unknown = set()
                for schema in roots:
                    _keywords(schema, unknown)
                self.assertEqual(unknown - KEYWORDS - ANNOTATIONS, set(), f"{pack}/{name}")


def _keywords(schema, found):
    """Every keyword of schema and of the schemas inside it."""
    if not isinstance(schema, dict):
        return
    found.update(schema)
    for key in ("not", "items", "additionalProperties", "propertyNames"):
        _keywords(schema.get(key), found)
    for key in ("properties", "patternProperties", "$defs"):
        for sub in schema.get(key, {}).values():
            _keywords(sub, found)
    for key in ("allOf", "anyOf", "oneOf", "prefixItems"):
        for sub in schema.get(key, []):
            _keywords(sub, found)


if __name__ == "__main__":
    unittest.main()
