#!/usr/bin/env python3
"""schema_check.py SCHEMA FILE - validates the JSON FILE against the JSON
schema SCHEMA; prints "valid (VALIDATOR)" or the first error and exits 1.

Uses the jsonschema package (Debian: python3-jsonschema) where it is
installed; else the draft-07 keywords that speedscope's schema uses
(type, enum, const, properties, required, items, anyOf, $ref), checked
here, so the test runs without it (or with LS_SCHEMA_BUILTIN=1 set)."""
import json
import os
import sys


def check(schema, root, value, path):
    if "$ref" in schema:
        ref = schema["$ref"]
        node = root
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        return check(node, root, value, path)
    if "anyOf" in schema:
        errs = [check(s, root, value, path) for s in schema["anyOf"]]
        if all(errs):
            return "%s: matches none of anyOf (%s)" % (path, errs[0])
    t = schema.get("type")
    types = {"string": str, "number": (int, float), "integer": int,
             "array": list, "object": dict, "boolean": bool, "null": type(None)}
    if t is not None:
        ok = isinstance(value, types[t]) and not (t in ("number", "integer") and isinstance(value, bool))
        if not ok:
            return "%s: not of type %s" % (path, t)
    if "enum" in schema and value not in schema["enum"]:
        return "%s: %r not in %r" % (path, value, schema["enum"])
    if "const" in schema and value != schema["const"]:
        return "%s: %r is not %r" % (path, value, schema["const"])
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return "%s: '%s' is a required property" % (path, key)
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                err = check(sub, root, value[key], path + "." + key)
                if err:
                    return err
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            err = check(schema["items"], root, item, "%s[%d]" % (path, i))
            if err:
                return err
    return None


def main():
    schema = json.load(open(sys.argv[1]))
    doc = json.load(open(sys.argv[2]))
    try:
        if os.environ.get("LS_SCHEMA_BUILTIN"):
            raise ImportError("asked for the built-in checks")
        import jsonschema
    except ImportError:
        err = check(schema, schema, doc, "$")
        if err:
            print(err)
            return 1
        print("valid (built-in draft-07 subset)")
        return 0
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as e:
        print(e.message, "at", list(e.absolute_path))
        return 1
    print("valid (jsonschema)")
    return 0


sys.exit(main())
