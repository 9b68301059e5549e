"""``remem mcp``: serve a memory directory to MCP clients (Claude Desktop, IDE agents)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from remem.cli.serve_options import add_server_options, settings_from
from remem.errors import RememError
from remem.service.event_loop import LoopName, run_server

MCP_PORT = 8766
# Not uvloop by default, unlike `remem serve`: over stdio the SDK moves every message through
# worker threads (anyio), and uvloop measured no faster there — 0.1 ms faster and 2.0 and 3.6 ms
# slower per recall in three interleaved A/Bs (benches/bench_serve.py's docstring).
MCP_LOOP: LoopName = "asyncio"

EXAMPLES = """\
examples:
  remem mcp --dir ./memory                       # stdio: what Claude Desktop launches
  remem mcp --dir ./memory --transport http --port 8766
  REMEM_SERVER_TOKEN=... remem mcp --transport http --host 0.0.0.0

Claude Desktop (claude_desktop_config.json):
  {"mcpServers": {"remem": {"command": "remem", "args": ["mcp", "--dir", "/path/to/memory"]}}}

Over HTTP the endpoint is http://HOST:PORT/mcp; binding a non-loopback address needs a bearer
token ($REMEM_SERVER_TOKEN or [server] token in --config), sent as 'Authorization: Bearer ...'.
"""


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "mcp",
        help="serve memory to MCP clients (stdio or HTTP)",
        description="Expose remember, recall, record_turn, forget, get_context, the core memory "
        "tools, list_sessions and get_transcript as MCP tools, and the core blocks as resources.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_server_options(parser, port=MCP_PORT, loop=MCP_LOOP)
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default) or streamable HTTP",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        settings = settings_from(args, default_port=MCP_PORT)
        from remem.mcp_server.run import serve

        run_server(serve(settings, transport=args.transport), loop=args.loop)
    except RememError as exc:
        print(f"remem mcp: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
