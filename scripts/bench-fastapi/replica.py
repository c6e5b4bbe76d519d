"""
A FastAPI + uvicorn (uvloop, httptools) + aiohttp replica of upstream NeMo Gym's rollout path, for
scripts/bench-e2e.ts: four servers (environment relay, simple_agent, openai_model, the
example_single_tool_call resources server) and a driver, as upstream wires them:

  driver → env /run → agent /run: seed_session → POST self /v1/responses (model → endpoint, tool,
  model → endpoint) → verify

- uvicorn with loop="uvloop", http="httptools", one worker per server, access log off;
- one aiohttp ClientSession per process, TCPConnector(limit=100*1024, limit_per_host=1024,
  keepalive_timeout=15), no cookie jar (cookies passed explicitly, upstream's DummyCookieJar);
  connection errors retried after 0.5 s as upstream's request() does; uvicorn timeout_keep_alive=30;
- Starlette's SessionMiddleware (signed cookie session, itsdangerous) plus upstream's middleware that
  puts a session_id into every session, on the agent, model and resources servers;
- bodies are plain dicts (no pydantic request/response models): cheaper than upstream, so the
  ratio gym / replica this gives is a lower bound. JSON is the stdlib's (upstream uses orjson for
  client bodies; Debian packages no python3-orjson).

Usage (run with the system python that has the Debian packages):
  python3 replica.py serve <role> <port> [targets…]     roles: env agent model rs
  python3 replica.py drive <run_url> <in.jsonl> <out.jsonl> <in_flight>
"""

import asyncio
import json
import sys
import uuid

import aiohttp
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.middleware.sessions import SessionMiddleware

SECRET = "bench-replica-secret"

_session = None
RETRIES = 0


def client() -> aiohttp.ClientSession:
    global _session
    if _session is None:
        _session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=100 * 1024, limit_per_host=1024, keepalive_timeout=15.0),
            cookie_jar=aiohttp.DummyCookieJar(),
        )
    return _session


async def post(url: str, body, cookies=None):
    data = json.dumps(body)
    while True:
        # upstream's request(): ServerDisconnectedError / ClientOSError are retried after 0.5 s.
        try:
            resp = await client().post(url, data=data, headers={"content-type": "application/json"}, cookies=cookies)
            break
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as e:
            global RETRIES
            RETRIES += 1
            print(f"[request_retry url={url} error={type(e).__name__}]", file=sys.stderr, flush=True)
            await asyncio.sleep(0.5)
    data = await resp.read()
    if resp.status >= 300:
        raise RuntimeError(f"{url} answered {resp.status}: {data[:200]!r}")
    return resp, data


def with_sessions(app: FastAPI, name: str) -> None:
    # Upstream: session_id middleware inside SessionMiddleware (added last = outermost).
    @app.middleware("http")
    async def add_session_id(request: Request, call_next):
        if "session_id" not in request.session:
            request.session["session_id"] = str(uuid.uuid4())
        return await call_next(request)

    app.add_middleware(SessionMiddleware, secret_key=SECRET, session_cookie=name)


def build(role: str, port: int, targets: list) -> FastAPI:
    app = FastAPI()
    self_url = f"http://127.0.0.1:{port}"

    @app.get("/health")
    async def health():
        return {"status": "ok"}

    if role == "env":
        # The environment relay: /run to the agent, answer passed on.
        agent = targets[0]

        @app.post("/run")
        async def run(request: Request):
            body = await request.json()
            _, data = await post(f"{agent}/run", body)
            return Response(content=data, media_type="application/json")

    elif role == "rs":
        with_sessions(app, "SimpleWeatherResourcesServer")

        @app.post("/seed_session")
        async def seed(request: Request):
            await request.json()
            return {}

        @app.post("/get_weather")
        async def get_weather(request: Request):
            body = await request.json()
            return {"city": body["city"], "weather_description": f"The weather in {body['city']} is cold."}

        @app.post("/verify")
        async def verify(request: Request):
            body = await request.json()
            return {**body, "reward": 1.0}

    elif role == "model":
        with_sessions(app, "SimpleModelServer")
        endpoint = targets[0]

        @app.post("/v1/responses")
        async def responses(request: Request):
            body = await request.json()
            _, data = await post(f"{endpoint}/v1/responses", body)
            return JSONResponse(json.loads(data))

    elif role == "agent":
        with_sessions(app, "SimpleAgent")
        rs, model = targets[0], targets[1]

        @app.post("/v1/responses")
        async def responses(request: Request):
            body = await request.json()
            rs_cookies = dict(request.cookies)
            model_cookies = None
            outputs = []
            usage = None
            last = {}
            for _ in range(8):
                resp, data = await post(f"{model}/v1/responses", {**body, "input": body["input"] + outputs}, model_cookies)
                model_cookies = {k: v.value for k, v in resp.cookies.items()}
                last = json.loads(data)
                out = last.get("output") or []
                outputs.extend(out)
                usage = last.get("usage") if usage is None else usage
                calls = [o for o in out if o.get("type") == "function_call"]
                if not calls and any(o.get("type") == "message" for o in out):
                    break
                for c in calls:
                    tool, tdata = await post(f"{rs}/{c['name']}", json.loads(c["arguments"]), rs_cookies)
                    rs_cookies = {k: v.value for k, v in tool.cookies.items()}
                    outputs.append({"type": "function_call_output", "call_id": c["call_id"], "output": tdata.decode()})
            response = JSONResponse({**last, "output": outputs, "usage": usage})
            for k, v in {**rs_cookies, **(model_cookies or {})}.items():
                response.set_cookie(k, v)
            return response

        @app.post("/run")
        async def run(request: Request):
            row = await request.json()
            seed, _ = await post(f"{rs}/seed_session", row, dict(request.cookies))
            cookies = {k: v.value for k, v in seed.cookies.items()}
            # upstream simple_agent: the agent's own /v1/responses over HTTP
            resp, data = await post(f"{self_url}/v1/responses", row["responses_create_params"], cookies)
            cookies = {k: v.value for k, v in resp.cookies.items()}
            _, verified = await post(f"{rs}/verify", {**row, "response": json.loads(data)}, cookies)
            return JSONResponse(json.loads(verified))

    else:
        raise SystemExit(f"unknown role {role}")
    return app


async def drive(run_url: str, in_path: str, out_path: str, in_flight: int) -> None:
    # ng_collect_rollouts' shape: rows read, /run posted with a bounded number in flight, each result a JSONL line.
    with open(in_path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    sem = asyncio.Semaphore(in_flight)
    ok = 0
    with open(out_path, "w") as out:

        async def one(i: int, row: dict) -> None:
            nonlocal ok
            async with sem:
                _, data = await post(run_url, row)
                result = json.loads(data)
                result["_ng_task_index"] = i
                out.write(json.dumps(result) + "\n")
                ok += 1

        await asyncio.gather(*(one(i, r) for i, r in enumerate(rows)))
        out.flush()
    await client().close()
    rewards = ok
    print(json.dumps({"done": rewards, "retries": RETRIES}))


def main() -> None:
    if sys.argv[1] == "serve":
        role, port, targets = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
        uvicorn.run(build(role, port, targets), host="127.0.0.1", port=port, loop="uvloop", http="httptools", timeout_keep_alive=30, access_log=False, log_level="warning")
    elif sys.argv[1] == "drive":
        import uvloop

        uvloop.install()
        asyncio.run(drive(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
