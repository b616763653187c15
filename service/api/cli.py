"""``samestory serve``: run the HTTP service (what ``make run`` and the Docker image start)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import socket
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
    # The help still names those defaults, as every other command's does (the seventh tour: serve's
    # --db and --model were the only ones that did not).
    for action in p._actions:
        if action.dest in ("db", "model"):
            shown = action.default
            action.default = None
            action.help = (action.help or "").split(" (env")[0] + f" (env SAMESTORY_{action.dest.upper()}; default {shown})"
        elif action.dest == "config":
            action.help = "TOML file with a [service] table (these settings) and an [engine] table (thresholds, windows)"
    p.set_defaults(device=None)
    p.add_argument("--host", help="interface to bind (env SAMESTORY_HOST; default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (env SAMESTORY_PORT; default 8000)")
    p.add_argument("--api-key", help="require this key on every route but /healthz (env SAMESTORY_API_KEY; "
                                     "prefer the env var: flags show up in process listings)")
    p.add_argument("--log-format", choices=("json", "text"), help="stderr log format (env SAMESTORY_LOG_FORMAT; "
                                                                  "default json)")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                   help="least severe log line written (env SAMESTORY_LOG_LEVEL; default info)")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Load and log the configuration, open the engine, then serve.

    The engine is opened here rather than in the app's lifespan so that an operator error (a
    store URL that is not one, a database or schema that does not exist, a model without a
    calibrated threshold) is the one line ``samestory: ...`` (``service.cli.main``) instead of
    uvicorn's "Application startup failed" traceback.
    """
    import os

    import uvicorn

    from service.api import create_app, open_engine
    from service.api.logs import configure_logging
    from service.api.settings import Settings
    from service.cli import check_model

    settings = Settings.load(
        config=str(args.config) if args.config else None, db=args.db,
        model=args.model, device=args.device, guards=False if args.no_guards else None,
        api_key=args.api_key, host=args.host, port=args.port, log_format=args.log_format,
        log_level=args.log_level)
    check_model(settings.model, settings.device)  # an unknown model is not merely an uncalibrated one
    engine_config = settings.engine_config().for_model(settings.model)
    configure_logging(settings.log_format, settings.log_level)
    # The effective configuration, once, before anything can fail: every setting and engine
    # threshold as resolved from defaults, file, environment and flags (secrets masked).
    log.info("configuration", extra={"samestory": {
        "settings": settings.public(), "engine": engine_config.public(),
        "sources": {"file": settings.config,
                    "env": sorted(k for k in os.environ if k.startswith("SAMESTORY_")),
                    "flags": sorted(k for k in ("db", "model", "device", "api_key", "host", "port",
                                                "log_format", "log_level") if getattr(args, k, None) is not None)}}})
    # Bound before the engine opens, and held: a busy port fails fast, and a second server started
    # during this one's warm-up (about 20 s with USE) is refused then, not this one after it.
    sock = _bind(settings.host, settings.port)
    with sock:
        engine = open_engine(settings)
        try:
            # The app's lifespan closes the engine (writing the restart state) at shutdown: after a
            # SIGTERM or SIGINT uvicorn re-raises the signal, so the finally below never runs then.
            app = create_app(settings, engine=engine, close_engine=True)
            # log_config=None keeps our handlers; access_log=False because AccessLog logs each request
            # with its route and latency already. No workers: the engine is in-process state, and
            # several collectors share one store through PostgreSQL, not through uvicorn workers.
            server = uvicorn.Server(uvicorn.Config(app, host=settings.host, port=settings.port, log_config=None,
                                                   access_log=False, timeout_graceful_shutdown=10))
            with contextlib.suppress(KeyboardInterrupt):  # as uvicorn.run: Ctrl-C is a normal stop
                server.run(sockets=[sock])
            if not server.started:
                raise SystemExit(3)  # uvicorn.run's status when the app did not start (it logged why)
        finally:
            if not engine.closed:  # uvicorn failed before or without its lifespan's shutdown
                engine.close()
                log.info("engine closed")
    return 0


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, for uvicorn to serve on; ``ConfigError`` (one line,
    exit status 1) when it cannot be bound.

    uvicorn would log its own error and exit with status 3 only after the engine was loaded.
    SO_REUSEADDR as uvicorn sets it, so a port in TIME_WAIT after a restart is not refused.
    Connections made during the warm-up wait in the backlog until the engine is ready.
    """
    import errno

    from service.config import ConfigError

    sock: socket.socket | None = None
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)  # uvicorn's default backlog
        return sock
    except OSError as exc:
        if sock is not None:
            sock.close()
        reason = (exc.strerror or str(exc)).lower()
        if exc.errno == errno.EADDRINUSE:
            reason += " (another process listens there: stop it or choose another --port)"
        raise ConfigError(f"cannot listen on {host}:{port}: {reason}") from None
