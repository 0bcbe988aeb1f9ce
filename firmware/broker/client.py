"""The broker's side of a link: paho's client, and why a connection failed, in words.

- :func:`new_client`: paho's client (imported on the thread that connects, not when the
  prop starts), which keeps why the last connection attempt failed, runs a link's
  ``tick`` at each pass of its network loop, and tells the link when its network thread
  ends with an exception (``crashed``) instead of ending in silence.
- :class:`Trouble`: a link's connection failures, each said once per outage with its
  reason: refused (not authorised), certificate verify failed, TLS handshake failed,
  connection refused; a broker that hangs up on the CONNECT unanswered is asked whether
  its port speaks TLS (:func:`speaks_tls`), and the log says which it was.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baccarat_core import strict
from firmware.broker.settings import MqttConfig

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt
    from paho.mqtt.reasoncodes import ReasonCode

log = logging.getLogger("baccarat.mqtt")


def failure_reason(error: BaseException | None, *, tls: bool = False) -> str:
    """Why a connection attempt failed, in words: the TLS verdict, "connection refused", ..."""
    import ssl  # loaded already by paho, which tried the connection

    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS certificate verify failed: {error.verify_message or error.reason}"
    if isinstance(error, ssl.SSLError):
        return f"TLS handshake failed: {error.reason or error} (is the port a TLS listener?)"
    if tls and isinstance(error, ConnectionResetError | BrokenPipeError):  # after the TCP connect: the handshake
        return f"TLS handshake failed: {error.strerror or 'connection reset'} (is the port a TLS listener?)"
    if isinstance(error, socket.gaierror):
        return f"unknown host ({error.strerror})"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    if error is not None:
        return strict.one_line(str(error) or type(error).__name__, 120)
    return "no reason given"


def speaks_tls(host: str, port: int, timeout: float = 2.0) -> bool:
    """Whether ``host:port`` answers a TLS handshake: a TLS listener does at once, an MQTT one hangs up.

    Only asked after a broker closed a plain connection without a CONNACK, to say why."""
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # only whether it speaks TLS, not whom it is
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            with context.wrap_socket(raw, server_hostname=host):
                return True
    except ssl.SSLError as error:
        return "ALERT" in str(error.reason or "").upper()  # a TLS alert is TLS too (e.g. a certificate wanted)
    except OSError:  # hung up, reset, silent or gone: not a TLS listener
        return False


_client_class: type | None = None
_client_class_lock = threading.Lock()


def new_client(client_id: str) -> Any:
    """paho's client, keeping why the last connection attempt failed (paho's loop drops the reason),
    running :attr:`tick` at each pass of its loop and :attr:`crashed` if its network thread fails.

    paho is imported here, on the thread that connects, not when the prop starts."""
    global _client_class
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

    with _client_class_lock:
        if _client_class is None:

            class Client(paho.Client):
                last_error: BaseException | None = None
                #: Called at each pass of paho's network loop (see :attr:`Link.tick_hooks`).
                tick: Callable[[], None] | None = None
                #: Called, on the dying thread, when an exception ends paho's network thread: a link
                #: guards every callback it gives paho, so this is a bug, in paho or ours. Without it
                #: the thread would end and the prop would never hear from the broker again.
                crashed: Callable[[BaseException], None] | None = None

                def _thread_main(self) -> None:
                    """As paho's (``loop_start``'s thread), handing an exception that ends it to :attr:`crashed`."""
                    try:
                        super()._thread_main()
                    except Exception as error:
                        if self.crashed is None:
                            raise
                        self.crashed(error)

                def loop_misc(self) -> MQTTErrorCode:
                    """As paho's (the keepalive, at each pass of its loop), then :attr:`tick`."""
                    result = super().loop_misc()
                    if self.tick is not None and result == MQTTErrorCode.MQTT_ERR_SUCCESS:
                        self.tick()
                    return result

                def reconnect(self) -> MQTTErrorCode:
                    """As paho's, remembering the error of a failed attempt in :attr:`last_error`."""
                    try:
                        result = super().reconnect()
                    except OSError as error:
                        self.last_error = error
                        raise
                    self.last_error = None
                    return result

            _client_class = Client
    client = _client_class(CallbackAPIVersion.VERSION2, client_id=client_id)
    client.on_socket_open = no_delay
    return client


def no_delay(client: Any, userdata: Any, sock: Any) -> None:
    """paho's ``on_socket_open``: small packets (an event, a reply) leave at once. With Nagle's
    algorithm on, as paho leaves it, each waits for the broker's delayed acknowledgement of the
    one before, about 40 ms on Linux: every command's reply and every event came that late."""
    import socket

    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):  # a Unix socket, or a websocket wrapper: no Nagle to turn off
        pass


class Trouble:
    """A link's connection failures, in words, each said once per outage (a mixin of :class:`~.link.Link`)."""

    name: str
    cfg: MqttConfig
    connected: threading.Event
    listening: threading.Event
    _said: set[str]
    _unanswered: int

    def _say_once(self, key: str, message: str, *args: Any) -> None:
        """A warning said once per outage for each reason (a broker that stays away is one line)."""
        if key in self._said:
            return
        self._said.add(key)
        log.warning(message, *args)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        reason = failure_reason(getattr(client, "last_error", None), tls=self.cfg.tls)
        self._say_once(
            f"failed {reason}",
            "%s: cannot connect to broker %s:%d: %s; the game goes on offline and retries",
            self.name,
            self.cfg.host,
            self.cfg.port,
            reason,
        )

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: ReasonCode, properties: Any
    ) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        self.listening.clear()
        if not reason_code.is_failure:
            return
        if was:
            self._said.add("lost")
            log.warning(
                "%s: connection to the broker lost (%s); events are queued until it is back", self.name, reason_code
            )
        elif not any(key.startswith("refused") for key in self._said) and "closed" not in self._said:
            # A refusal explains the close. Without one, the broker dropped the CONNECT unanswered: a
            # plain connection to a TLS port, or a CONNECT it will not read (Mosquitto sends no CONNACK
            # for a client id, user name or will topic it refuses): ask the port which. Said when it
            # happens twice in a row: a broker that is starting up may drop one.
            self._unanswered += 1
            if self._unanswered < 2:
                return
            if not self.cfg.tls and speaks_tls(self.cfg.host, self.cfg.port):
                why = "the port speaks TLS: set tls = true (and ca_file)"
            else:
                why = (
                    "it refused what the prop sent (a client id, user name or will topic it does not accept; "
                    "baccarat check-config checks them), or it is full or stopping; the broker's log says which"
                )
            self._say_once(
                "closed",
                "%s: broker %s:%d closed the connection without answering the prop's CONNECT (%s): %s",
                self.name,
                self.cfg.host,
                self.cfg.port,
                reason_code,
                why,
            )
