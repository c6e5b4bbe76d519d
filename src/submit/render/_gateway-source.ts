/**
 * The Ray Serve gateway the job writes to `ray_serve_gateway.py` when a vLLM service needs more
 * GPUs per instance than one node has (spec submit.md §6.6). gym's own small program: N Ray Serve
 * replicas, each launching `vllm serve … --distributed-executor-backend ray` on a free port, behind
 * one HTTP proxy on the service port. It adds no concurrency or timeout limits of its own.
 */
export const GATEWAY_SOURCE = `import argparse, shlex, socket, subprocess, sys, time, urllib.request
import aiohttp, ray
from ray import serve
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

p = argparse.ArgumentParser()
p.add_argument("--model", required=True)
p.add_argument("--port", type=int, required=True)
p.add_argument("--tensor-parallel-size", type=int, default=1)
p.add_argument("--pipeline-parallel-size", type=int, default=1)
p.add_argument("--number-of-instances", type=int, default=1)
p.add_argument("--gpus-per-node", type=int, default=None)
p.add_argument("--trust-remote-code", action="store_true")
p.add_argument("--served-model-name", default=None)
p.add_argument("--extra-args", default="")
a = p.parse_args()

def free_port():
    s = socket.socket(); s.bind(("", 0)); port = s.getsockname()[1]; s.close(); return port

@serve.deployment(num_replicas=a.number_of_instances, max_ongoing_requests=1000000, ray_actor_options={"num_cpus": 1})
class Replica:
    def __init__(self):
        self.port = free_port()
        cmd = ["vllm", "serve", a.model, "--port", str(self.port), "--tensor-parallel-size", str(a.tensor_parallel_size),
               "--pipeline-parallel-size", str(a.pipeline_parallel_size), "--distributed-executor-backend", "ray"]
        if a.served_model_name: cmd += ["--served-model-name", a.served_model_name]
        if a.trust_remote_code: cmd.append("--trust-remote-code")
        cmd += shlex.split(a.extra_args)
        self.proc = subprocess.Popen(cmd, stdout=sys.stdout, stderr=sys.stderr)
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=5); break
            except Exception:
                if self.proc.poll() is not None: raise RuntimeError("vllm serve exited during startup")
                time.sleep(5)
        self.session = None

    async def __call__(self, request: Request):
        if self.session is None: self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        body = await request.body()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        r = await self.session.request(request.method, f"http://127.0.0.1:{self.port}{request.url.path}", data=body, headers=headers)
        if "text/event-stream" in r.headers.get("content-type", ""):
            async def gen():
                async for chunk in r.content.iter_any(): yield chunk
            return StreamingResponse(gen(), status_code=r.status, media_type="text/event-stream")
        return Response(await r.read(), status_code=r.status, media_type=r.headers.get("content-type"))

ray.init()
serve.start(http_options={"host": "0.0.0.0", "port": a.port})
serve.run(Replica.bind(), route_prefix="/")
while True: time.sleep(3600)
`;
