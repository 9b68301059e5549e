"""What the controller's method groups share: the parts ``MemoryController.__init__`` wires.

``MemoryController`` is one class assembled from one module per concept — construction and
lifecycle (:mod:`remem.controller.controller`), the write API (:mod:`remem.controller.write_api`),
the read API (:mod:`remem.controller.read_api`). The API classes hold no state of their own;
they declare here the attributes they read, so each module type-checks alone and a new part is
added in one place (``__init__``) and declared in one place (below).
"""

from __future__ import annotations

from remem.context.priming import PrimingConfig
from remem.controller.bookkeeping import Bookkeeping
from remem.controller.config import ControllerConfig
from remem.controller.extraction_runner import BackgroundExtraction
from remem.controller.recall import RecallPipeline
from remem.controller.turns import TurnLog
from remem.controller.writes import MemoryWriter
from remem.errors import StoreClosedError
from remem.models import Clock
from remem.staging import CollectionManager
from remem.stores.bundle import Stores
from remem.writebehind import WritePort


class ControllerState:
    """The wired parts of one controller (set by ``MemoryController.__init__``) and the
    open-check every public method starts with."""

    _stores: Stores
    collection_manager: CollectionManager
    config: ControllerConfig
    clock: Clock
    priming: PrimingConfig
    writes: WritePort
    _books: Bookkeeping
    _writer: MemoryWriter
    _recall: RecallPipeline
    _turn_log: TurnLog
    _extraction: BackgroundExtraction
    _closed: bool

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError("this MemoryController is closed; open a new one")
