"""The oracle's web application: a JSON API over one store, read-only, and the page.

    GET  /                              the page (subgame/web/static/index.html), the
                                        store's summary in it (subgame/web/summary.py)
    GET  /docs, /openapi.json           the API described (the page renders the JSON)
    GET  /api/computations              what the store holds, as `subgame status --json`
    GET  /api/families                  each family's query and oracle parameters
    GET  /api/query/<family>?<options>  subgame.query(family, store, **options)
    GET  /api/<family>/<answer>?...     the family's oracle answers (Family.oracle)
    POST /api/<family>/<answer>         those that take a JSON body
    GET  /static/<file>                 the page's files and each family's script

Built from the registry: this module names no family. Every answer is computed by the
family's own functions, in a worker thread; a user's error is a 4xx whose JSON body is
{"error": one message}, anything else a 500 of the same shape. Files are served from a
table made at start-up (the package's page files and each family's script), never from a
path a request gives.
"""

from __future__ import annotations

import inspect
import json
import logging
from pathlib import Path
from typing import Any, Callable, Mapping

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from subgame import __version__, families
from subgame.commands.common import json_text
from subgame.errors import InvalidInput, NotComputed, SubgameError
from subgame.storage import find_computations
from subgame.web.parameters import Parameter, parameters_of, parse_request
from subgame.web.summary import summary_page

STATIC = Path(__file__).with_name("static")
PAGE_FILES = {"app.js": "text/javascript", "style.css": "text/css",
              "docs.js": "text/javascript"}
MAX_BODY = 64 * 1024  # bytes of a posted JSON body
MAX_QUERY = 8 * 1024  # bytes of a query string
log = logging.getLogger("subgame.web")


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status)


async def answered(call: Callable[[], Any]) -> Response:
    """The call's result as JSON (as --json prints it), run in a worker thread; its errors
    as one message."""
    try:
        return Response(json_text(await run_in_threadpool(call), indent=None),
                        media_type="application/json")
    except SubgameError as exc:
        return error(404 if isinstance(exc, NotComputed) else 400, str(exc))  # 404: not stored
    except Exception as exc:  # noqa: BLE001 - a bug, or a damaged store: one message, logged
        log.exception("internal error")
        if isinstance(exc, ValueError) and "checksum" in str(exc):
            return error(500, f"a stored chunk is damaged ({exc}); `subgame verify --store S` "
                              "names it")
        return error(500, f"internal error: {type(exc).__name__} (in the server's log)")


def _openapi_parameters(parameters: list[Parameter]) -> list[dict[str, Any]]:
    def schema(p: Parameter) -> dict[str, Any]:
        if isinstance(p.kind, tuple):
            return {"type": "string", "enum": list(p.kind)}
        if p.kind is int:
            return {"type": "integer", "minimum": p.lower, "maximum": p.upper}
        return {"type": "boolean" if p.kind is bool else "string"}

    return [{"name": p.name, "in": "query", "required": p.required, "description": p.help,
             "schema": {**schema(p), **({} if p.required else {"default": p.default})}}
            for p in parameters]


def _json_body(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise InvalidInput(f"the body is not JSON: {exc}") from None


def build_app(store: str, allow: Mapping[str, tuple[str, ...]] | None = None) -> FastAPI:
    """The application serving ``store`` (a resolved URL). ``allow`` adds values that
    requests may give to options the families fix (`subgame web --allow`)."""
    app = FastAPI(title="subgame oracle", version=__version__, docs_url=None, redoc_url=None,
                  description=f"Exact stored answers of {store}, read-only. Errors are "
                              "{\"error\": message} with a 4xx status (404: not stored).")
    allow = dict(allow or {})
    scripts: dict[str, Path] = {}
    described: list[dict[str, Any]] = []

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        message = {404: f"nothing at {request.url.path[:200]!r}",
                   405: f"{request.method} is not allowed at {request.url.path[:200]!r}"}
        return error(exc.status_code, message.get(exc.status_code, str(exc.detail)))

    @app.middleware("http")
    async def bounded(request: Request, call_next):
        if len(request.url.query) > MAX_QUERY:
            return error(414, f"the query string is longer than {MAX_QUERY} bytes")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return error(413, f"a body holds at most {MAX_BODY} bytes")
        return await call_next(request)

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(await run_in_threadpool(summary_page, store))

    @app.get("/docs", include_in_schema=False)
    def docs() -> FileResponse:
        return FileResponse(STATIC / "docs.html", media_type="text/html")

    @app.get("/static/{name:path}", include_in_schema=False)
    def static(name: str) -> FileResponse:
        if name in PAGE_FILES:
            return FileResponse(STATIC / name, media_type=PAGE_FILES[name])
        family = name.removeprefix("family/").removesuffix(".js")
        if name == f"family/{family}.js" and family in scripts:
            return FileResponse(scripts[family], media_type="text/javascript")
        raise HTTPException(404)

    @app.get("/api/computations", summary="What the store holds, as `subgame status --json`")
    async def computations() -> Response:
        return await answered(lambda: {"store": store, "computations": [
            c.status() for c in find_computations(store)]})

    @app.get("/api/families", summary="Each family's query and oracle parameters")
    def families_served() -> list[dict[str, Any]]:
        return described

    for name, family in families.all_families().items():
        fixed = {**family.oracle.fixed,
                 **{key: (*family.oracle.fixed.get(key, ()), *values)
                    for key, values in allow.items()}}
        entry: dict[str, Any] = {"name": name, "summary": family.summary, "answers": {}}
        if family.answer is not None:
            entry["query"] = [p.describe() for p in parameters_of(family.answer, fixed)]
            _query_route(app, store, name, family.answer, fixed)
        for answer_name, function in family.oracle.answers.items():
            entry["answers"][answer_name] = _oracle_route(app, store, name, answer_name,
                                                          function, fixed)
        if family.oracle.script is not None:
            scripts[name] = Path(family.oracle.script)
            entry["script"] = f"/static/family/{name}.js"
        described.append(entry)
    return app


def _query_route(app: FastAPI, store: str, family: str, function: Callable[..., Any],
                 fixed: Mapping[str, tuple[str, ...]]) -> None:
    parameters = parameters_of(function, fixed)

    async def route(request: Request) -> Response:
        try:
            options = parse_request(parameters, request.query_params.multi_items())
        except InvalidInput as exc:
            return error(400, str(exc))
        return await answered(lambda: function(store=store, **options))

    app.add_api_route(f"/api/query/{family}", route, methods=["GET"],
                      summary=f"subgame query {family}",
                      description=(function.__doc__ or "").strip(),
                      openapi_extra={"parameters": _openapi_parameters(parameters)})


def _oracle_route(app: FastAPI, store: str, family: str, name: str,
                  function: Callable[..., Any], fixed: Mapping[str, tuple[str, ...]]
                  ) -> dict[str, Any]:
    parameters = parameters_of(function, fixed)
    posted = "body" in inspect.signature(function).parameters

    async def route(request: Request) -> Response:
        try:
            options = parse_request(parameters, request.query_params.multi_items())
            if posted:
                raw = b""
                async for chunk in request.stream():  # a body sent without its length too
                    raw += chunk
                    if len(raw) > MAX_BODY:
                        return error(413, f"a body holds at most {MAX_BODY} bytes")
                options["body"] = _json_body(raw)
        except InvalidInput as exc:
            return error(400, str(exc))
        return await answered(lambda: function(store=store, **options))

    extra: dict[str, Any] = {"parameters": _openapi_parameters(parameters)}
    if posted:
        extra["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": {"type": "object"}}}}
    app.add_api_route(f"/api/{family}/{name}", route, methods=["POST" if posted else "GET"],
                      summary=f"{family}: {name}", description=(function.__doc__ or "").strip(),
                      openapi_extra=extra)
    return {"method": "POST" if posted else "GET", "path": f"/api/{family}/{name}",
            "parameters": [p.describe() for p in parameters]}
