/**
 * The `app.py` of a scaffolded resources server. gym runs a server that is not built in as an
 * external process (D13): `<dir>/.venv/bin/python app.py`, else `python_executable`. The template
 * uses the Python standard library only, so it runs with any python3 and no install step; it
 * speaks the resources-server wire protocol (`/seed_session`, tool routes, `/verify`,
 * `/aggregate_metrics`) and reads its host/port from NEMO_GYM_CONFIG_DICT (D3).
 */

/** Text of `app.py` for the server `name`. */
export function appPy(name: string): string {
  return `"""${name}: a resources server for gym (Python standard library only).

gym starts this file as an external server (\`python app.py\`, from this directory) and hands it the
merged config in NEMO_GYM_CONFIG_DICT and its instance name in NEMO_GYM_CONFIG_PATH. Edit TOOLS and
verify() below; keep the routes: the agent calls /seed_session, one route per tool, then /verify.
"""

import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


# ---- the environment: tools the model may call, and the reward -------------------------------


def get_word_length(args):
    """Tool: the number of characters of \`word\`."""
    word = str(args.get("word", ""))
    return {"word": word, "length": len(word)}


TOOLS = {"get_word_length": get_word_length}


def final_text(response):
    """All assistant output text of a Responses API response, joined."""
    texts = []
    for item in (response or {}).get("output", []) or []:
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "assistant":
            for part in item.get("content", []) or []:
                if isinstance(part, dict) and part.get("type") == "output_text":
                    texts.append(str(part.get("text", "")))
    return "\\n".join(texts)


def verify(body):
    """Reward 1.0 when the final answer contains the row's expected_answer as a word, else 0.0."""
    if not isinstance(body.get("response"), dict):
        raise ValueError("response: Field required (the model's Responses API answer)")
    expected = str(body.get("expected_answer", "")).strip()
    text = final_text(body.get("response"))
    found = bool(expected) and re.search(r"(?<!\\w)" + re.escape(expected) + r"(?!\\w)", text) is not None
    return {**body, "reward": 1.0 if found else 0.0}


def aggregate_metrics(body):
    """Mean reward over the verify responses of a run."""
    rewards = [float(r.get("reward", 0.0)) for r in body.get("verify_responses", []) if isinstance(r, dict)]
    mean = sum(rewards) / len(rewards) if rewards else 0.0
    return {"group_level_metrics": [], "agent_metrics": {"mean/reward": mean}, "key_metrics": {"mean/reward": mean}}


# ---- wiring: config, HTTP routes ---------------------------------------------------------------


def server_config():
    """This instance's leaf config (host, port, your own fields)."""
    name = os.environ.get("NEMO_GYM_CONFIG_PATH", "${name}")
    text = os.environ.get("NEMO_GYM_CONFIG_DICT", "")
    try:
        import yaml  # present when the server has a venv with PyYAML; not required

        leafs = (yaml.safe_load(text) or {})[name]["resources_servers"]
        return dict(next(iter(leafs.values())))
    except Exception:
        pass
    # Without PyYAML: gym writes block-style YAML, so the leaf's scalar fields sit at indent 6
    # under the top-level "<name>:" line.
    leaf, inside = {}, False
    for line in text.splitlines():
        if line and not line[0].isspace():
            inside = line.strip().strip("'\\"").rstrip(":").strip("'\\"") == name
            continue
        match = re.match(r"^ {6}([A-Za-z_][\\w-]*):\\s+(\\S.*?)\\s*$", line) if inside else None
        if match:
            leaf[match.group(1)] = match.group(2).strip("'\\"")
    return leaf


ROLLOUT_PREFIX = re.compile(r"^/ng-rollout/[A-Za-z0-9][A-Za-z0-9._-]*(/.*)$")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _send(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self):
        path = self.path.split("?", 1)[0]
        match = ROLLOUT_PREFIX.match(path)
        return (match.group(1) if match else path).strip("/")

    def do_GET(self):
        if self._route() == "":
            self._send(200, {"name": "${name}"})
        else:
            self._send(404, {"detail": "Not Found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._send(422, {"detail": "the request body is not JSON"})
            return
        route = self._route()
        try:
            if route == "seed_session":
                self._send(200, {})
            elif route == "verify":
                self._send(200, verify(body))
            elif route == "aggregate_metrics":
                self._send(200, aggregate_metrics(body))
            elif route == "close_session":
                self._send(200, {"resources_session_id": body.get("resources_session_id")})
            elif route in TOOLS:
                self._send(200, TOOLS[route](body if isinstance(body, dict) else {}))
            else:
                self._send(404, {"detail": "Not Found"})
        except Exception as error:  # a bug in a tool or verify() is a 500 the agent can report
            self._send(500, {"detail": f"{type(error).__name__}: {error}"})

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\\n" % (self.address_string(), fmt % args))


def main():
    cfg = server_config()
    host = cfg.get("host") or "127.0.0.1"
    if "\${" in str(host):
        host = "127.0.0.1"
    port = int(cfg.get("port") or 0)
    server = ThreadingHTTPServer((host, port), Handler)
    print(f"${name} listening on http://{host}:{server.server_address[1]}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # gym stops servers with SIGINT
        pass


if __name__ == "__main__":
    main()
`;
}

/** Text of `tests/test_app.py`: unit tests of the tools and the reward, runnable with pytest or unittest. */
export function testAppPy(): string {
  return `import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import app  # noqa: E402


def answer(text):
    return {"output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}]}


class TestApp(unittest.TestCase):
    def test_tool(self):
        self.assertEqual(app.get_word_length({"word": "apple"}), {"word": "apple", "length": 5})

    def test_verify_rewards_the_expected_answer(self):
        self.assertEqual(app.verify({"expected_answer": "5", "response": answer("It has 5 letters.")})["reward"], 1.0)

    def test_verify_rejects_other_answers(self):
        self.assertEqual(app.verify({"expected_answer": "5", "response": answer("It has 15 letters.")})["reward"], 0.0)


if __name__ == "__main__":
    unittest.main()
`;
}
