"""``samestory serve``: run the HTTP service (what ``make run`` and the Docker image start)."""

from __future__ import annotations

import argparse
import logging
from typing import Any

log = logging.getLogger("samestory.api")


def register(subparsers: Any) -> None:
    """Add ``serve`` to the ``samestory`` command (called by ``service.cli.build_parser``)."""
    from service.cli import _add_engine_args

    p = subparsers.add_parser(
        "serve", help="run the HTTP API",
        description="Run the HTTP API (OpenAPI at /docs). Settings come from defaults, then the [service] table "
                    "of --config, then SAMESTORY_* environment variables, then these flags.")
    _add_engine_args(p)
    # Flags left unset must not override the config file or env, so their parser default is None;
    # Settings.load fills in the real defaults (db sqlite:///var/samestory.db, model use).
    for action in p._actions:
        if action.dest in ("db", "model"):
            action.default = None
            action.help = (action.help or "").split(" (env")[0] + f" (env SAMESTORY_{action.dest.upper()})"
    p.set_defaults(device=None)
    p.add_argument("--host", help="interface to bind (env SAMESTORY_HOST; default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (env SAMESTORY_PORT; default 8000)")
    p.add_argument("--api-key", help="require this key on every route but /healthz (env SAMESTORY_API_KEY; "
                                     "prefer the env var: flags show up in process listings)")
    p.add_argument("--log-format", choices=("json", "text"), help="stderr log format (env SAMESTORY_LOG_FORMAT; "
                                                                  "default json)")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                   help="(env SAMESTORY_LOG_LEVEL; default info)")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service.api import create_app
    from service.api.logs import configure_logging
    from service.api.settings import Settings

    try:
        settings = Settings.load(
            config=str(args.config) if args.config else None, db=args.db,
            model=args.model, device=args.device, guards=False if args.no_guards else None,
            api_key=args.api_key, host=args.host, port=args.port, log_format=args.log_format,
            log_level=args.log_level)
    except ValueError as exc:
        raise SystemExit(f"samestory serve: {exc}") from exc
    configure_logging(settings.log_format, settings.log_level)
    app = create_app(settings)
    # log_config=None keeps our handlers; access_log=False because AccessLog logs each request
    # with its route and latency already. No workers: the engine is in-process state, and
    # several collectors share one store through PostgreSQL, not through uvicorn workers.
    uvicorn.run(app, host=settings.host, port=settings.port, log_config=None, access_log=False,
                timeout_graceful_shutdown=10)
    return 0
