"""A JSON Schema 2020-12 validator for the documents Handoff serves, standard library only.

It covers the keywords those documents use: $ref (local "#/..." pointers), $defs, type,
enum, const, properties, required, additionalProperties, patternProperties,
propertyNames, items, prefixItems, minItems, minLength, maxLength, pattern, minimum,
maximum, exclusiveMinimum, exclusiveMaximum, not, anyOf, allOf and oneOf. Annotations
(description, title, $comment, discriminator, format, examples ...) assert nothing. A
keyword it does not know is ignored: the server validates every request again, so a
newer document never makes a valid request fail here.

    issues = validate(request, {"$ref": "#/components/schemas/PackRequest"}, root=openapi)
    for issue in issues:
        print(issue.path, issue.message)
"""

import json
import re
import urllib.parse
from dataclasses import dataclass

# The keywords this module asserts; the tests check every served document uses no other
# assertion.
KEYWORDS = frozenset({
    "$ref", "$defs", "type", "enum", "const", "properties", "required",
    "additionalProperties", "patternProperties", "propertyNames", "items", "prefixItems",
    "minItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "not", "anyOf", "allOf", "oneOf",
})

# Keywords that carry meaning for people and tools but assert nothing.
ANNOTATIONS = frozenset({
    "description", "title", "$comment", "discriminator", "format", "examples",
    "$schema", "$id", "default", "deprecated", "readOnly", "writeOnly",
})


@dataclass(frozen=True)
class Issue:
    """One way an instance fails its schema: where, and what is wrong there."""

    location: tuple  # property names and item indexes from the root
    message: str
    keyword: str  # the keyword that failed

    @property
    def path(self):
        """The server's notation: output.content.claims[0].id; "" for the whole value."""
        out = ""
        for key in self.location:
            if isinstance(key, int):
                out += f"[{key}]"
            else:
                out = f"{out}.{key}" if out else key
        return out

    def __str__(self):
        return f"{self.path or '(the whole value)'}: {self.message}"


def validate(instance, schema, root=None):
    """The issues of instance against schema, in document order (empty when valid).

    root is the document that schema's "#/..." references point into; schema itself
    when not given.
    """
    return _Validator(schema if root is None else root).issues(instance, schema, ())


def is_valid(instance, schema, root=None):
    return not validate(instance, schema, root)


def json_equal(a, b):
    """Equality of JSON values: 1 equals 1.0, but true is not 1 and "1" is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_type(v, name):
    if name == "null":
        return v is None
    if name == "boolean":
        return isinstance(v, bool)
    if name == "string":
        return isinstance(v, str)
    if name == "object":
        return isinstance(v, dict)
    if name == "array":
        return isinstance(v, list)
    if name == "number":
        return _is_number(v)
    if name == "integer":
        # 2020-12: a number with a zero fractional part is an integer (1.0 is).
        return _is_number(v) and (isinstance(v, int) or v.is_integer())
    return False


def _type_name(v):
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(v, name):
            return name
    return type(v).__name__


def _show(v):
    return json.dumps(v, ensure_ascii=False)


_patterns = {}


def _regex(pattern):
    # The served patterns are RE2's, where \d, \w and \s are ASCII; so they are here.
    r = _patterns.get(pattern)
    if r is None:
        r = _patterns[pattern] = re.compile(pattern.replace(r"\z", r"\Z"), re.ASCII)
    return r


class _Validator:
    def __init__(self, root):
        self.root = root

    def resolve(self, ref):
        if not ref.startswith("#"):
            raise ValueError(f"$ref {ref!r}: only local references (#/...) are supported")
        node = self.root
        fragment = urllib.parse.unquote(ref[1:])
        for token in fragment.split("/")[1:] if fragment else []:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, list):
                node = node[int(token)]
            elif isinstance(node, dict) and token in node:
                node = node[token]
            else:
                raise ValueError(f"$ref {ref!r} points at nothing")
        return node

    def issues(self, v, schema, path):
        if schema is True:
            return []
        if schema is False:
            return [Issue(path, "no value is allowed here", "false")]
        out = []
        add = out.extend

        if "$ref" in schema:
            add(self.issues(v, self.resolve(schema["$ref"]), path))

        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_is_type(v, n) for n in names):
                want = " or ".join(names)
                out.append(Issue(path, f"want {want}, got {_type_name(v)}", "type"))
                return out  # the other keywords' messages would only repeat this one
        if "const" in schema and not json_equal(v, schema["const"]):
            out.append(Issue(path, f"want {_show(schema['const'])}, got {_show(v)}", "const"))
        if "enum" in schema and not any(json_equal(v, e) for e in schema["enum"]):
            allowed = ", ".join(_show(e) for e in schema["enum"])
            out.append(Issue(path, f"{_show(v)} is not one of {allowed}", "enum"))

        if isinstance(v, str):
            add(self._string(v, schema, path))
        elif _is_number(v):
            add(self._number(v, schema, path))
        elif isinstance(v, list):
            add(self._array(v, schema, path))
        elif isinstance(v, dict):
            add(self._object(v, schema, path))

        if "not" in schema and not self.issues(v, schema["not"], path):
            out.append(Issue(path, "matches a schema it must not match", "not"))
        for sub in schema.get("allOf", ()):
            add(self.issues(v, sub, path))
        if "anyOf" in schema:
            results = [self.issues(v, sub, path) for sub in schema["anyOf"]]
            if all(results):
                add(self._closest(results, path, "anyOf"))
        if "oneOf" in schema:
            results = [self.issues(v, sub, path) for sub in schema["oneOf"]]
            matched = sum(1 for r in results if not r)
            if matched == 0:
                add(self._closest(results, path, "oneOf"))
            elif matched > 1:
                out.append(Issue(path, f"matches {matched} of the oneOf alternatives, want exactly one", "oneOf"))
        return out

    def _closest(self, results, path, keyword):
        """The issues of the alternative the value was most likely meant for.

        An alternative whose const or enum a direct member misses (another kind, another
        artifact type) is a worse guess than one that only finds faults deeper in.
        """
        def score(issues):
            shallow = sum(1 for i in issues if i.keyword in ("const", "enum") and len(i.location) <= len(path) + 1)
            return (shallow, len(issues))

        best = min(results, key=score)
        if score(best)[0]:
            return [Issue(path, f"matches none of the {len(results)} {keyword} alternatives", keyword)]
        return best

    def _string(self, v, schema, path):
        out = []
        n = len(v)  # code points, as JSON Schema counts
        if "minLength" in schema and n < schema["minLength"]:
            out.append(Issue(path, f"want at least {schema['minLength']} characters, got {n}", "minLength"))
        if "maxLength" in schema and n > schema["maxLength"]:
            out.append(Issue(path, f"want at most {schema['maxLength']} characters, got {n}", "maxLength"))
        if "pattern" in schema and not _regex(schema["pattern"]).search(v):
            out.append(Issue(path, f"{_show(v)} does not match {schema['pattern']}", "pattern"))
        return out

    def _number(self, v, schema, path):
        out = []
        if "minimum" in schema and v < schema["minimum"]:
            out.append(Issue(path, f"want at least {schema['minimum']}, got {v}", "minimum"))
        if "maximum" in schema and v > schema["maximum"]:
            out.append(Issue(path, f"want at most {schema['maximum']}, got {v}", "maximum"))
        if "exclusiveMinimum" in schema and v <= schema["exclusiveMinimum"]:
            out.append(Issue(path, f"want more than {schema['exclusiveMinimum']}, got {v}", "exclusiveMinimum"))
        if "exclusiveMaximum" in schema and v >= schema["exclusiveMaximum"]:
            out.append(Issue(path, f"want less than {schema['exclusiveMaximum']}, got {v}", "exclusiveMaximum"))
        return out

    def _array(self, v, schema, path):
        out = []
        if "minItems" in schema and len(v) < schema["minItems"]:
            out.append(Issue(path, f"want at least {schema['minItems']} items, got {len(v)}", "minItems"))
        prefix = schema.get("prefixItems", [])
        for i, (item, sub) in enumerate(zip(v, prefix)):
            out.extend(self.issues(item, sub, path + (i,)))
        if "items" in schema:
            for i in range(len(prefix), len(v)):
                out.extend(self.issues(v[i], schema["items"], path + (i,)))
        return out

    def _object(self, v, schema, path):
        out = []
        for name in schema.get("required", ()):
            if name not in v:
                out.append(Issue(path + (name,), "is required", "required"))
        props = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for name, value in v.items():
            where = path + (name,)
            if "propertyNames" in schema:
                for i in self.issues(name, schema["propertyNames"], path):
                    out.append(Issue(where, f"name {i.message}", "propertyNames"))
            known = False
            if name in props:
                known = True
                out.extend(self.issues(value, props[name], where))
            for pattern, sub in patterns.items():
                if _regex(pattern).search(name):
                    known = True
                    out.extend(self.issues(value, sub, where))
            if not known and "additionalProperties" in schema:
                extra = schema["additionalProperties"]
                if extra is False:
                    out.append(Issue(where, "is not a property this object may have", "additionalProperties"))
                else:
                    out.extend(self.issues(value, extra, where))
        return out
