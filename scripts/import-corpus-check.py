"""Checks imported adapters against the OpenAPI documents they came from, reading both
and nothing of the importer: for every operation an adapter kept, can its params send every
parameter, header, cookie, body and body member (of every oneOf/anyOf variant) the document
requires, and the credentials it asks for? And does an update ever send what its caller
left out?

    python import-corpus-check.py WORK_DIR

WORK_DIR is `scripts/import-corpus`'s: `package/api/` holds the documents, `adapters/` the
adapter of each one imported (same relative path, `.md`), and `kept.txt` the importer's own
counts, which the result is compared with. Needs PyYAML (the test venv of `scripts/setup`
has it). Prints a summary and writes every loss found to WORK_DIR/losses.txt.
"""

import collections
import json
import os
import re
import sys
from urllib.parse import unquote

import yaml

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
SENDS_BODY = ("post", "put", "patch")
# Headers the HTTP client writes itself, or the server for every call. How a body is framed
# (`Content-Length` or `Transfer-Encoding`, RFC 9112 §6) is the client's to choose, whatever
# a document requires (Azure Data Lake's `WebHdfsExt` asks for `Transfer-Encoding`).
HTTP_HEADERS = {"content-type", "content-length", "transfer-encoding", "host", "accept",
                "user-agent", "accept-encoding", "connection"}


def resolve(document, value, seen=0):
    """`value` with its `$ref` followed, `{}` where it leads nowhere."""
    while isinstance(value, dict) and "$ref" in value and seen < 64:
        ref = value["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return {}
        target = document
        for part in ref[2:].split("/"):
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            else:
                return {}
        value, seen = target, seen + 1
    return value if isinstance(value, dict) else {}


def front_matter(text):
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 4)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text[4:end], Loader=loader) if end > 0 else None


def shape(path):
    """A path with its fragment gone and each placeholder (`{x}`, `:x`) as `{}`."""
    path = unquote(path.split("#", 1)[0])
    path, _, query = path.partition("?")
    path = re.sub(r"\{[^}]*\}", "{}", path)
    path = "/".join("{}" if re.fullmatch(r":[A-Za-z_]\w*", s) else s for s in path.split("/"))
    return path or "/", query


def object_parts(document, schema, depth=0):
    """The object schemas a body schema is made of (`allOf` merged), as one list, and its
    `oneOf`/`anyOf` alternatives, each a list of the same kind."""
    schema = resolve(document, schema)
    if depth > 16:
        return [], []
    parts, variants = [schema], []
    for sub in schema.get("allOf") or []:
        more, alternatives = object_parts(document, sub, depth + 1)
        parts += more
        variants += alternatives
    for key in ("oneOf", "anyOf"):
        alternatives = schema.get(key) or []
        if len(alternatives) == 1:
            more, nested = object_parts(document, alternatives[0], depth + 1)
            parts += more
            variants += nested
        else:
            for alternative in alternatives:
                variants.append(object_parts(document, alternative, depth + 1)[0])
    return parts, variants


def members(document, parts):
    """(properties by name, required names) of object parts: read-only ones left out, and
    a required name no part declares (a typo of the document's, such as Airbyte's
    `dockerImageag`), which nobody could send."""
    properties, required = {}, []
    for part in parts:
        for name, prop in (part.get("properties") or {}).items():
            properties.setdefault(name, resolve(document, prop))
        required += [name for name in part.get("required") or [] if isinstance(name, str)]
    sendable = {name for name, prop in properties.items() if prop.get("readOnly") is not True}
    return properties, [name for name in dict.fromkeys(required) if name in sendable]


def kind_of(parts):
    types = {part.get("type") for part in parts if isinstance(part.get("type"), str)}
    return types.pop() if len(types) == 1 else None


class Credential:
    """One credential the adapter sends: its auth, or one of `combined` auth's."""

    def __init__(self, auth):
        self.auth = {**auth, **(auth.get("config") or {})}

    def sends(self, where, name):
        kind = self.auth.get("type")
        name = name.lower()
        if where == "header":
            if kind in ("bearer", "basic", "oauth2", "aws_sigv4") and name == "authorization":
                return True
            if kind == "aws_sigv4" and name.startswith("x-amz-"):
                return True
            header = self.auth.get("header_name") or self.auth.get("header")
            if kind in ("bearer", "api_key") and header and header.lower() == name:
                return True
        if where == "query" and kind == "api_key":
            return (self.auth.get("query_param") or "").lower() == name
        # A `token` param is the credential a bearer token stands for (Slack takes its token
        # in the query, a header or the form, or as `Authorization: Bearer`).
        return kind in ("bearer", "oauth2") and name in ("token", "access_token")

    def meets(self, scheme, name):
        """Whether this credential is what the security scheme `scheme` asks for."""
        kind = self.auth.get("type")
        scheme_type = (scheme.get("type") or "").lower()
        if scheme.get("x-amazon-apigateway-authtype") == "awsSigv4" or name == "hmac":
            return kind == "aws_sigv4"
        if scheme_type == "http" and (scheme.get("scheme") or "").lower() == "basic":
            return kind == "basic"
        if scheme_type in ("http", "oauth2", "openidconnect"):
            return kind in ("bearer", "oauth2")
        if scheme_type == "apikey":
            return self.sends(scheme.get("in"), scheme.get("name", ""))
        return False


class Adapter:
    def __init__(self, adapter):
        self.auth = adapter.get("auth") or {"type": "none"}
        self.auth = {**self.auth, **(self.auth.get("config") or {})}
        parts = self.auth.get("credentials") if self.auth.get("type") == "combined" else [self.auth]
        self.credentials = [Credential(part) for part in parts or []]
        self.operations = []
        for category, operations in (adapter.get("operations") or {}).items():
            for operation in operations or []:
                method, _, target = operation["maps_to"].partition(" ")
                path, query = shape(target)
                operation["category"] = category
                operation["method"] = method.lower()
                operation["key"] = (method.lower(), path)
                operation["fixed_query"] = {
                    unquote(pair.split("=", 1)[0]): unquote(pair.split("=", 1)[-1])
                    for pair in query.split("&") if pair
                }
                operation["query_placeholders"] = {
                    unquote(pair.split("=", 1)[0])
                    for pair in query.split("&") if "={" in pair
                }
                self.operations.append(operation)

    def carries(self, operation, where, name):
        """Whether a param of `operation` goes to `where` under `name`."""
        placeholders = re.findall(r"\{([^}]*)\}", operation["maps_to"])
        for param_name, param in (operation.get("params") or {}).items():
            if param_name in placeholders:
                continue
            default = "body" if operation["method"] in SENDS_BODY else "query"
            location = param.get("in", default)
            wire = param.get("wire_name", param_name)
            same = wire.lower() == name.lower() if where == "header" else wire == name
            if location == where and same:
                return True
        return False

    def auth_sends(self, where, name):
        return any(credential.sends(where, name) for credential in self.credentials)

    def satisfies(self, document, requirement):
        """Whether the credentials sent meet every scheme of one security requirement."""
        schemes = resolve(document, document.get("components", {})).get("securitySchemes") or {}
        return all(
            any(c.meets(resolve(document, schemes.get(name, {})), name) for c in self.credentials)
            for name in requirement
        )


def match(adapter, document):
    """Each operation of the document with the adapter operation kept for it, or None."""
    by_key = collections.defaultdict(list)
    for operation in adapter.operations:
        by_key[operation["key"]].append(operation)
    # The values the fragments of one method and path fix (`#Action=X`): an operation
    # with one of them pinned belongs to the path that fixes it.
    pins = collections.defaultdict(set)
    sharing = collections.Counter()
    for path, item in (document.get("paths") or {}).items():
        for method in METHODS:
            if not isinstance(resolve(document, item).get(method), dict):
                continue
            key = (method, shape(path)[0])
            sharing[key] += 1
            if "#" in path:
                fragment = path.split("#", 1)[1]
                pins[key] |= {tuple(p.split("=", 1)) for p in fragment.split("&") if "=" in p}
    for path, item in (document.get("paths") or {}).items():
        item = resolve(document, item)
        for method in METHODS:
            described = item.get(method)
            if not isinstance(described, dict):
                continue
            path_shape, query = shape(path)
            candidates = by_key.get((method, path_shape), [])
            fragment = path.split("#", 1)[1] if "#" in path else ""
            pinned = dict(p.split("=", 1) for p in fragment.split("&") if "=" in p)
            # The path's own query: its keys, fixed or placeholders, are the operation's.
            keys = {unquote(p.split("=", 1)[0]) for p in query.split("&") if p}
            others = pins[(method, path_shape)] - set(pinned.items())
            found = [
                op for op in candidates
                if (keys == op["fixed_query"].keys() if keys else True)
                and all(pinned_matches(op, key, value) for key, value in pinned.items())
                and not any(pinned_matches(op, key, value) for key, value in others)
            ]
            unsettled = not pinned and sharing[(method, path_shape)] > 1
            if len(found) > 1 or unsettled:
                # Told apart by name: the adapter's is the operationId (else the method and
                # path) in snake_case (the README's rule: `_` before a capital that follows a
                # lower-case letter or a digit, and for every run of other characters), at
                # most 64 characters, made unique with a suffix.
                snake = snake_case(described.get("operationId") or f"{method}_{path}")[:64]
                named = [op for op in found if op["name"] == snake] or [
                    op for op in found if snake and op["name"].startswith(snake[:56])]
                # One candidate left by the path alone may be another operation's.
                found = named if named or len(found) == 1 else found
            yield path, method, item, described, (found[0] if len(found) == 1 else None), len(found)


def snake_case(raw):
    out, previous_lower = "", False
    for character in raw:
        if character.isascii() and character.isalnum():
            if character.isupper() and previous_lower:
                out += "_"
            previous_lower = character.islower() or character.isdigit()
            out += character.lower()
        else:
            previous_lower = False
            if not out.endswith("_"):
                out += "_"
    return out.strip("_")


def pinned_matches(operation, key, value):
    if operation["fixed_query"].get(key) == value:
        return True
    for param_name, param in (operation.get("params") or {}).items():
        if param.get("wire_name", param_name).lower() == key.lower():
            return param.get("default") == value or param.get("enum") == [value]
    headers = {k.lower(): v for k, v in (operation.get("headers") or {}).items()}
    return headers.get(key.lower()) == value


def check(adapter, document, path, method, item, described, operation, lose):
    parameters = {}
    for parameter in (item.get("parameters") or []) + (described.get("parameters") or []):
        parameter = resolve(document, parameter)
        parameters[(parameter.get("name"), parameter.get("in"))] = parameter
    for (name, where), parameter in parameters.items():
        if not isinstance(name, str) or where == "path":
            continue
        if not parameter.get("required"):
            continue
        fixed = {k.lower() for k in operation.get("headers") or {}}
        sent = (
            adapter.carries(operation, where, name)
            or adapter.auth_sends(where, name)
            or (where == "query" and (name in operation["fixed_query"] or name in operation["query_placeholders"]))
            or (where == "header" and (name.lower() in fixed or name.lower() in HTTP_HEADERS
                                       or (name.lower() == "if-match" and operation["category"] in ("update", "delete"))))
        )
        if not sent:
            lose(True, f"{where} param `{name}`")
    placeholders_doc = len(re.findall(r"\{[^}]*\}", path.split("#")[0].split("?")[0]))
    placeholders_adapter = len(re.findall(r"\{[^}]*\}", operation["maps_to"].split("?")[0]))
    if placeholders_adapter < placeholders_doc:
        lose(True, "a path placeholder")

    body = resolve(document, described.get("requestBody") or {}) if "requestBody" in described else None
    params = operation.get("params") or {}
    whole = any(p.get("in") == "whole_body" for p in params.values())
    placeholders = re.findall(r"\{([^}]*)\}", operation["maps_to"])
    body_params = [
        (n, p) for n, p in params.items()
        if n not in placeholders and p.get("in", "body" if operation["method"] in SENDS_BODY else "query") in ("body", "whole_body")
    ]
    if body is not None:
        content = body.get("content") or {}
        if body.get("required"):
            always = operation.get("requires_body") is True or any(p.get("required") is True for _, p in body_params)
            if not always:
                lose(True, "the request body (no call sends it unless a member is given)")
        content_type = operation.get("content_type", "application/json")
        # The form the adapter sends: the media type its fixed `Content-Type` names, else
        # the one of its `content_type`.
        declared = {k.lower(): v for k, v in (operation.get("headers") or {}).items()}.get("content-type")
        media = declared if declared in content else pick(content, content_type)
        if media is None and not whole:
            if content:
                lose(bool(body.get("required")), "the request body's media type")
        elif not whole:
            schema = resolve(document, (content.get(media) or {}).get("schema") or {})
            parts, variants = object_parts(document, schema)
            properties, required = members(document, parts)
            kind = kind_of(parts)
            if kind not in (None, "object") and not properties:
                lose(bool(body.get("required")), f"the request body (a JSON {kind})")
            for name in required:
                if not carries_member(adapter, operation, body_params, name):
                    lose(bool(body.get("required")), f"body member `{name}`")
            for variant in variants:
                v_props, v_required = members(document, variant)
                v_kind = kind_of(variant)
                if v_kind not in (None, "object") and not v_props:
                    lose(False, f"a {v_kind} variant of the body")
                    continue
                for name in v_required:
                    if not carries_member(adapter, operation, body_params, name):
                        lose(bool(body.get("required")), f"body member `{name}` of a variant")
    requirements = described.get("security", document.get("security")) or []
    if requirements and not any(adapter.satisfies(document, r) for r in requirements if isinstance(r, dict)):
        lose(True, "credentials")


def carries_member(adapter, operation, body_params, name):
    if any(p.get("wire_name", n) == name for n, p in body_params):
        return True
    # A form's token field, which the bearer token the auth sends stands for (Slack).
    return bool(operation.get("content_type")) and adapter.auth_sends("form", name)


def pick(content, content_type):
    essence = {k.split(";")[0].strip().lower(): k for k in content}
    if content_type == "application/json":
        for key, media in essence.items():
            if key == "application/json":
                return media
        for key, media in essence.items():
            if key.endswith("+json") or key in ("*/*", "application/*"):
                return media
        return None
    return essence.get(content_type)


def updates_send_unasked(operation):
    """Body members of a partial update with a `default`: the generated server never sends
    them for the caller (schema reference, section 11), so each is one the old rule sent."""
    if operation["category"] != "update" and operation["method"] != "patch":
        return 0
    placeholders = re.findall(r"\{([^}]*)\}", operation["maps_to"])
    return sum(
        1 for n, p in (operation.get("params") or {}).items()
        if n not in placeholders and "default" in p
        and p.get("in", "body" if operation["method"] in SENDS_BODY else "query") == "body"
    )


def main():
    work = sys.argv[1]
    api = os.path.join(work, "package", "api")
    totals = collections.Counter()
    reasons = collections.Counter()
    importer = {}
    with open(os.path.join(work, "kept.txt")) as kept:
        for line in kept:
            name, operations, complete, losing = line.rstrip("\n").split("\t")
            importer[name] = (int(operations), int(complete), int(losing))
    with open(os.path.join(work, "losses.txt"), "w") as out:
        for name in sorted(importer):
            with open(os.path.join(api, name)) as f:
                document = json.load(f)
            with open(os.path.join(work, "adapters", name[:-len(".json")] + ".md")) as f:
                adapter = Adapter(front_matter(f.read()))
            totals["documents"] += 1
            totals["adapter operations"] += len(adapter.operations)
            totals["importer: kept"] += importer[name][0]
            totals["importer: losing required"] += importer[name][2]
            totals["partial-update members with a default (not sent)"] += sum(
                updates_send_unasked(op) for op in adapter.operations)
            matched = set()
            for path, method, item, described, operation, found in match(adapter, document):
                if operation is None:
                    totals["ambiguous" if found > 1 else "not kept"] += 1
                    continue
                matched.add(id(operation))
                losses = []
                check(adapter, document, path, method, item, described, operation,
                      lambda required, what: losses.append((required, what)))
                totals["checked"] += 1
                if any(required for required, _ in losses):
                    totals["losing required"] += 1
                for required, what in losses:
                    if required:
                        reasons[re.sub(r"`[^`]*`", "…", what)] += 1
                        print(f"{name}\t{method.upper()} {path}\t{what}", file=out)
            totals["adapter operations matched to none"] += sum(
                1 for op in adapter.operations if id(op) not in matched)
    for key, value in totals.items():
        print(f"{key}: {value}")
    print("required things lost, by kind:")
    for reason, count in reasons.most_common():
        print(f"  {count}\t{reason}")


if __name__ == "__main__":
    main()
