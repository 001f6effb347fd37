#!/usr/bin/env python3
"""Check secrets.jsonl and injection.jsonl and print their counts as Markdown.

Run from anywhere: python3 reliability/testdata/validate_corpora.py
Exit status 1 and a list of problems when a line is malformed, an id repeats,
a secret substring is absent from its fields, or a count falls below the floor
the corpora promise (see CORPORA.md)."""
import base64
import binascii
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
LANGS = ("en", "pt", "zh")
DOMAINS = {"campaign", "assessment", "support", "video"}
FORMS = ("labelled", "sentence", "encoded", "split", "key", "vendor")
B64 = re.compile(r"^[A-Za-z0-9+/]{12,}={0,2}$")

problems = []


def bad(where, msg):
    problems.append("%s: %s" % (where, msg))


def read(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            where = "%s:%d" % (name, n)
            if not line.strip():
                bad(where, "blank line")
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                bad(where, "invalid JSON: %s" % e)
                continue
            if not isinstance(obj, dict):
                bad(where, "not an object")
                continue
            rows.append((where, obj))
    return rows


def common_checks(where, o, prefix, keys, labels, ids, texts, text):
    if set(o) != keys:
        bad(where, "keys %s, want %s" % (sorted(o), sorted(keys)))
        return False
    if o["lang"] not in LANGS:
        bad(where, "lang %r" % o["lang"])
    if o["label"] not in labels:
        bad(where, "label %r" % o["label"])
    if o["domain"] not in DOMAINS:
        bad(where, "domain %r" % o["domain"])
    if not re.fullmatch(r"%s-%s-\d{3}" % (prefix, o["lang"]), o["id"]):
        bad(where, "id %r does not match %s-%s-NNN" % (o["id"], prefix, o["lang"]))
    if o["id"] in ids:
        bad(where, "duplicate id %s" % o["id"])
    ids.add(o["id"])
    if not isinstance(o["note"], str) or not o["note"].strip():
        bad(where, "empty note")
    if text in texts:
        bad(where, "same text as %s" % texts[text])
    texts[text] = o["id"]
    return True


DOMAIN_COUNT = Counter()


def check_secrets():
    keys = {"id", "lang", "label", "form", "domain", "fields", "secrets", "note"}
    ids, texts = set(), {}
    count = Counter()
    for where, o in read("secrets.jsonl"):
        f = o.get("fields")
        if not isinstance(f, dict) or not 1 <= len(f) <= 3 or not all(
                isinstance(k, str) and k and isinstance(v, str) and v.strip() for k, v in f.items()):
            bad(where, "fields must be an object of 1 to 3 non-empty strings")
            continue
        if not common_checks(where, o, "sec", keys, {"secret", "ordinary"}, ids, texts,
                             json.dumps(f, sort_keys=True, ensure_ascii=False)):
            continue
        if o["form"] not in FORMS:
            bad(where, "form %r" % o["form"])
        s = o["secrets"]
        if not isinstance(s, list) or not all(isinstance(x, str) and x for x in s):
            bad(where, "secrets must be a list of non-empty strings")
            continue
        if o["label"] == "secret" and not s:
            bad(where, "secret line without secrets")
        if o["label"] == "ordinary" and s:
            bad(where, "ordinary line with secrets")
        hay = list(f.values()) + list(f.keys())
        for x in s:
            if not any(x in h for h in hay):
                bad(where, "secret %r does not occur in fields" % x)
            # An encoded secret that is base64 must decode to text holding a credential.
            if o["form"] == "encoded" and B64.match(x):
                try:
                    plain = base64.b64decode(x, validate=True).decode("utf-8")
                except (binascii.Error, UnicodeDecodeError):
                    bad(where, "encoded secret %r is not base64 of UTF-8 text" % x)
                else:
                    if not re.search(r"[:=：]", plain):
                        bad(where, "encoded secret %r decodes to %r, no credential separator" % (x, plain))
        count[(o["lang"], o["label"], o["form"])] += 1
        DOMAIN_COUNT[("secrets.jsonl", o["label"], o["domain"])] += 1
    return count


def check_injection():
    keys = {"id", "lang", "label", "domain", "field", "text", "note"}
    ids, texts = set(), {}
    count = Counter()
    for where, o in read("injection.jsonl"):
        if not isinstance(o.get("text"), str) or not o["text"].strip():
            bad(where, "empty text")
            continue
        if not isinstance(o.get("field"), str) or not re.fullmatch(r"[a-z_]+", o["field"]):
            bad(where, "field must be a snake_case name")
            continue
        if not common_checks(where, o, "inj", keys, {"injection", "ordinary"}, ids, texts, o["text"]):
            continue
        count[(o["lang"], o["label"])] += 1
        DOMAIN_COUNT[("injection.jsonl", o["label"], o["domain"])] += 1
    return count


def floors(sec, inj):
    need = [("secret lines", sum(v for k, v in sec.items() if k[1] == "secret"), 200),
            ("ordinary lines in secrets.jsonl", sum(v for k, v in sec.items() if k[1] == "ordinary"), 200),
            ("injections", sum(v for k, v in inj.items() if k[1] == "injection"), 150),
            ("ordinary lines in injection.jsonl", sum(v for k, v in inj.items() if k[1] == "ordinary"), 300)]
    for lang in LANGS:
        need.append(("secret lines (%s)" % lang, sum(v for k, v in sec.items() if k[:2] == (lang, "secret")), 55))
        need.append(("ordinary secrets.jsonl lines (%s)" % lang, sum(v for k, v in sec.items() if k[:2] == (lang, "ordinary")), 55))
        need.append(("injections (%s)" % lang, inj[(lang, "injection")], 45))
        need.append(("ordinary injection.jsonl lines (%s)" % lang, inj[(lang, "ordinary")], 90))
    for form in FORMS:
        need.append(("secret lines of form %s" % form, sum(v for k, v in sec.items() if k[1:] == ("secret", form)), 25))
    for what, got, want in need:
        if got < want:
            bad("counts", "%s: %d, want at least %d" % (what, got, want))


def table(sec, inj):
    out = ["secrets.jsonl", "", "| lang | label | " + " | ".join(FORMS) + " | total |",
           "|---|---|" + "---:|" * (len(FORMS) + 1)]
    for label in ("secret", "ordinary"):
        for lang in LANGS + ("all",):
            row = [sum(v for k, v in sec.items() if k[1] == label and k[2] == form and lang in (k[0], "all"))
                   for form in FORMS]
            out.append("| %s | %s | %s | %d |" % (lang, label, " | ".join(map(str, row)), sum(row)))
    out += ["", "injection.jsonl", "", "| lang | injection | ordinary | total |", "|---|---:|---:|---:|"]
    for lang in LANGS + ("all",):
        a = sum(v for k, v in inj.items() if k[1] == "injection" and lang in (k[0], "all"))
        b = sum(v for k, v in inj.items() if k[1] == "ordinary" and lang in (k[0], "all"))
        out.append("| %s | %d | %d | %d |" % (lang, a, b, a + b))
    doms = sorted(DOMAINS)
    out += ["", "by domain", "", "| file | label | " + " | ".join(doms) + " |", "|---|---|" + "---:|" * len(doms)]
    for f, label in (("secrets.jsonl", "secret"), ("secrets.jsonl", "ordinary"),
                     ("injection.jsonl", "injection"), ("injection.jsonl", "ordinary")):
        out.append("| %s | %s | %s |" % (f, label, " | ".join(str(DOMAIN_COUNT[(f, label, d)]) for d in doms)))
    return "\n".join(out)


def main():
    sec = check_secrets()
    inj = check_injection()
    floors(sec, inj)
    print(table(sec, inj))
    if problems:
        print("\n%d problem(s):" % len(problems), file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
