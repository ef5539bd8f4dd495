"""A dedicated server announcing itself to a list server (``--serve --announce URL``).

A thread posts the server's announcement (:class:`~game.sim.net.listing.Announcement`) to
``URL/announce`` every ``renew_s``. A list server it cannot reach, or one that refuses it,
costs one log line when that starts and one when it is over; the game serves on either way.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
from typing import Callable

log = logging.getLogger(__name__)

POST_TIMEOUT_S = 5.0


class Announcer:
    """Posts ``announcement()`` (a dict) to ``url``/announce every ``renew_s`` until
    :meth:`stop`."""

    def __init__(self, url: str, announcement: Callable[[], dict], renew_s: float):
        self.url = url.rstrip("/") + "/announce"
        self.announcement = announcement
        self.renew_s = renew_s
        self.failing: str | None = None
        """Why the last announcement was not taken (None: it was)."""
        self.listed = threading.Event()
        """Set once an announcement has been taken."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="announcer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(POST_TIMEOUT_S + self.renew_s)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._note(self.announce_once())
            self._stop.wait(self.renew_s)

    def announce_once(self) -> str | None:
        """Post the announcement once; why it was not taken (None: it was)."""
        body = json.dumps(self.announcement()).encode()
        request = urllib.request.Request(self.url, body, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=POST_TIMEOUT_S):
                self.listed.set()
                return None
        except urllib.error.HTTPError as error:
            try:
                reason = json.loads(error.read()).get("error", error.reason)
            except (ValueError, AttributeError, OSError):
                reason = error.reason
            return f"{error.code} {reason}"
        except (urllib.error.URLError, OSError, ValueError) as error:
            return str(getattr(error, "reason", error))

    def _note(self, failing: str | None) -> None:
        if failing is not None and self.failing is None:
            log.warning("the list server at %s does not list this server (%s); serving on",
                        self.url, failing)
        elif failing is None and self.failing is not None:
            log.info("the list server at %s lists this server again", self.url)
        self.failing = failing
