"""The streamable HTTP transport's rules at the door, checked against a running adapter with
raw requests (an HTTP client library would not send a header twice).

Usage: python3 conformance/transport_checks.py http://127.0.0.1:PORT/mcp LISTED_ORIGIN

The server must have been started with --allowed-origin LISTED_ORIGIN. Prints one line per
check and exits 1 when any fails.
"""

import http.client
import json
import sys
import urllib.parse

INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "transport-checks", "version": "1"}},
})
MCP_HEADERS = [("content-type", "application/json"), ("accept", "application/json, text/event-stream")]


def send(url, method, headers, body=b""):
    """One request with exactly `headers` (a list: a name may come twice): status, headers."""
    parsed = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
    connection.putrequest(method, parsed.path, skip_host=True, skip_accept_encoding=True)
    if not any(name.lower() == "host" for name, _ in headers):
        connection.putheader("host", f"{parsed.hostname}:{parsed.port}")
    for name, value in headers:
        connection.putheader(name, value)
    if isinstance(body, str):
        body = body.encode()
    connection.putheader("content-length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, {name.lower(): value for name, value in response.getheaders()}


def main(url, listed):
    host = urllib.parse.urlsplit(url).netloc
    failures = 0

    def check(label, ok, seen):
        nonlocal failures
        print(f"transport: {label}: {'ok' if ok else 'FAILED'} ({seen})")
        failures += 0 if ok else 1

    status, _ = send(url, "POST", [("host", host), ("host", "evil.example.com"), *MCP_HEADERS], INITIALIZE)
    check("two Host headers are 400", status == 400, status)
    status, _ = send(url, "POST", [("origin", "http://localhost:3000"), ("origin", "https://evil.example"),
                                   *MCP_HEADERS], INITIALIZE)
    check("two Origin headers are 400", status == 400, status)
    for header, value in [("origin", "https://evil.example"), ("host", "evil.example.com")]:
        status, _ = send(url, "DELETE", [(header, value), ("mcp-session-id", "never-issued")])
        check(f"DELETE of an unknown session with a foreign {header} is 403", status == 403, status)

    status, headers = send(url, "POST", MCP_HEADERS, INITIALIZE)
    session = headers.get("mcp-session-id", "")
    check("a session opens", status == 200 and session != "", status)
    send(url, "POST", [*MCP_HEADERS, ("mcp-session-id", session), ("mcp-protocol-version", "2025-06-18")],
         '{"jsonrpc":"2.0","method":"notifications/initialized"}')
    for version, expected in [("2024-11-05", 400), ("2025-03-26", 400), ("2025-06-18", 200)]:
        status, _ = send(url, "POST", [*MCP_HEADERS, ("mcp-session-id", session),
                                       ("mcp-protocol-version", version)],
                         '{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
        check(f"MCP-Protocol-Version {version} on a session is {expected}", status == expected, status)

    status, headers = send(url, "OPTIONS", [("origin", listed), ("access-control-request-method", "POST"),
                                            ("access-control-request-headers", "content-type, mcp-session-id")])
    check("a listed origin's preflight is answered with CORS",
          status == 204 and headers.get("access-control-allow-origin") == listed
          and "mcp-session-id" in headers.get("access-control-allow-headers", ""), status)
    status, headers = send(url, "POST", [("origin", listed), *MCP_HEADERS], INITIALIZE)
    check("a listed origin's answer names it and exposes Mcp-Session-Id",
          status == 200 and headers.get("access-control-allow-origin") == listed
          and "mcp-session-id" in headers.get("access-control-expose-headers", ""), status)
    status, headers = send(url, "OPTIONS", [("origin", "https://evil.example"),
                                            ("access-control-request-method", "POST")])
    check("another origin's preflight gets no CORS", status == 403
          and "access-control-allow-origin" not in headers, status)
    status, headers = send(url, "POST", [("origin", "http://localhost:5173"), *MCP_HEADERS], INITIALIZE)
    check("a loopback page is served without CORS", status == 200
          and "access-control-allow-origin" not in headers, status)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
