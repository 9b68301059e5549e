"""``remem serve``: the memory as a REST API (FastAPI + uvicorn) for agents in any language."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from remem.cli.serve_options import add_server_options, settings_from
from remem.errors import RememError
from remem.service.event_loop import run_server

REST_PORT = 8765

EXAMPLES = """\
examples:
  remem serve --dir ./memory                     # http://127.0.0.1:8765, docs at /docs
  curl -s localhost:8765/v1/memories -H 'content-type: application/json' \\
       -d '{"text": "Ana lives in Lisbon", "namespace": "ana"}'
  curl -s localhost:8765/v1/recall -H 'content-type: application/json' \\
       -d '{"query": "where does Ana live?", "namespace": "ana"}'
  REMEM_SERVER_TOKEN=... remem serve --host 0.0.0.0 --namespaces ana,bob

Binding a non-loopback address needs a bearer token ($REMEM_SERVER_TOKEN or [server] token in
--config), then sent as 'Authorization: Bearer ...' on every request but /health and /ready.
"""


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "serve",
        help="serve memory as a REST API (FastAPI)",
        description="Serve a memory directory over HTTP: remember, recall, record turns, "
        "forget, assembled context, core memory blocks, sessions and transcripts.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_server_options(parser, port=REST_PORT)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        settings = settings_from(args, default_port=REST_PORT)
        from remem.rest.run import serve

        run_server(serve(settings), loop=args.loop)
    except RememError as exc:
        print(f"remem serve: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
