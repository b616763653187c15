"""An embedder that runs in a child process of its own, so its work runs on another core.

The bundled USE encoder is numpy on small matrices plus a pure-Python tokenizer: it holds the
GIL for most of its time, so a thread beside the engine's decisions does not overlap with them
(a thread encoding while another runs Python took as long as the two one after the other). A
child process does: the engine sends a batch of texts down a pipe and the vectors come back
(2 KB a text), while its own thread goes on deciding (``service.ahead``). The child builds its
embedder from the same spec as ``models.registry.load_embedder``, so its vectors are the ones
the engine would have computed itself, bit for bit, for the same batches.

>>> emb = ProcessEmbedder("use")
>>> emb.name, emb.encode(["Kospi closes above 4,000"]).shape
('use-multilingual-v3', (1, 512))
>>> emb.close()
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import pairwise
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from models.base import Kind, check_texts

# The first batch of a stream is small, so the first item that needs a vector waits for a few
# texts; the rest are a size at which USE is as fast per text as on 256 at once (8, 32 and 256
# texts a call measured the same on this 2-core VM).
FIRST_BATCH = 8
BATCH = 16


class EncoderProcessError(RuntimeError):
    """The child process failed to start, failed a batch, or exited."""


class ProcessEmbedder:
    """The embedder named by ``spec`` (``load_embedder``'s specs) in a child process.

    Calls are serialised (one batch in the pipe at a time; a second thread waits its turn).
    ``close`` stops the child; an engine that owns one closes it with itself. Start-up costs the
    child's imports and model load (about 2 s for USE), paid here, not at the first batch.
    """

    def __init__(self, spec: str = "use", *, device: str = "cpu") -> None:
        if not isinstance(spec, str) or not spec.strip():
            raise ValueError(f"spec must be a model spec such as 'use', got {spec!r}")
        # A fresh interpreter (not multiprocessing's fork or spawn): a fork would inherit the
        # parent's threads' locks mid-use, and spawn re-runs the caller's main module, which a
        # script without a ``__main__`` guard does not survive. Two pipes, framed by
        # multiprocessing's Connection; the child's stdout and stderr stay the parent's.
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p or "." for p in sys.path)}
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from models.process import serve_fds; "
             "serve_fds(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])",
             str(to_child_r), str(from_child_w), spec, device],
            pass_fds=(to_child_r, from_child_w), env=env, stdin=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._send_conn = Connection(to_child_w, readable=False)
        self._recv_conn = Connection(from_child_r, writable=False)
        with contextlib.suppress(OSError, AttributeError):
            # Room in the pipe for a whole batch of the engine's vectors (256 x 2 KB), so the child
            # is not held up writing them while the parent decides (Linux; elsewhere 64 KB).
            fcntl.fcntl(from_child_r, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
        self._lock = threading.RLock()
        self._pending: Streamed | None = None  # the stream whose batches are still in the pipe
        self.spec = spec
        self.name, self.dim = self._reply("start")

    def _reply(self, what: str, stream: Streamed | None = None) -> Any:
        """The next answer for ``what``: a batch of ``stream`` when one is given, else the answer
        to a single request; batches of the pending stream read on the way are handed to it."""
        while True:
            try:
                tag, payload = self._recv_conn.recv()
            except (EOFError, OSError):
                raise EncoderProcessError(f"the encoder process ({self.spec}) exited during {what} "
                                          f"(exit code {self._proc.wait(timeout=5.0)})") from None
            if tag in ("batch", "batch_error") and (stream is None or stream is not self._pending):
                self._stream_batch(tag, payload)  # the pending stream's, read past on the way
                continue
            if tag in ("error", "batch_error"):
                raise EncoderProcessError(f"the encoder process ({self.spec}) failed during {what}: {payload}")
            return payload

    def _stream_batch(self, tag: str, payload: Any) -> None:
        """Hand a batch (or the stream's failure) to the pending stream (caller holds the lock)."""
        stream = self._pending
        if stream is None:
            raise EncoderProcessError(f"the encoder process ({self.spec}) sent a batch no stream awaits")
        if tag == "batch_error":
            stream.failed(EncoderProcessError(f"the encoder process ({self.spec}) failed during a stream "
                                              f"of {len(stream)} texts: {payload}"))
            self._pending = None
        elif stream.received(np.asarray(payload, dtype=np.float32)):
            self._pending = None

    def encode(self, texts: Sequence[str], *, kind: Kind = "passage", batch_size: int = 64) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        with self._lock:
            # Sent at once even while a stream is under way: the child answers it before its
            # stream's next batch, so an item the stream does not hold waits for its own text only.
            self._send(("encode", texts, kind, batch_size))
            return np.asarray(self._reply(f"a batch of {len(texts)} texts"), dtype=np.float32)

    def submit(self, texts: Sequence[str], *, kind: Kind = "passage", first: int = FIRST_BATCH,
               size: int = BATCH) -> Streamed:
        """Start embedding ``texts`` (distinct) and return at once: the child embeds ``first`` of
        them, then ``size`` at a time, and sends each batch back as it is done; the returned
        mapping reads them as they are asked for (``service.ahead``). Another call on this
        embedder first reads what is left of the stream, so the two never mix in the pipe."""
        texts = check_texts(texts)
        if first < 1 or size < 1:
            raise ValueError(f"batch sizes must be at least 1, got first={first}, size={size}")
        with self._lock:
            stream = Streamed(self, texts, first, size)
            if texts:
                while self._pending is not None:  # one stream in the pipe at a time
                    self._read_batch(self._pending)
                self._send(("stream", texts, kind, first, size))
                self._pending = stream
            return stream

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            self._send_conn.send(message)
        except OSError:
            raise EncoderProcessError(f"the encoder process ({self.spec}) is not running "
                                      f"(exit code {self._proc.poll()})") from None

    def _read_batch(self, stream: Streamed) -> None:
        """Read the next batch of ``stream`` from the pipe, if it is the one in the pipe."""
        with self._lock:
            if self._pending is not stream:  # its batches are all in, or it failed, or the child was closed
                if not stream.complete:
                    stream.failed(EncoderProcessError(f"the encoder process ({self.spec}) stream was cut off"))
                return
            try:
                tag, payload = self._recv_conn.recv()
            except (EOFError, OSError):
                stream.failed(EncoderProcessError(f"the encoder process ({self.spec}) exited during a stream "
                                                  f"(exit code {self._proc.wait(timeout=5.0)})"))
                self._pending = None
                return
            self._stream_batch(tag, payload)

    def close(self) -> None:
        """Stop the child (waits up to 5 s, then kills it). Safe to call twice."""
        with self._lock:
            if self._proc.poll() is None:
                with contextlib.suppress(OSError):
                    self._send_conn.send(("stop",))
                try:
                    self._proc.wait(timeout=5.0)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
            self._pending = None
            for conn in (self._send_conn, self._recv_conn):
                if not conn.closed:
                    conn.close()

    def __repr__(self) -> str:
        return f"ProcessEmbedder({self.spec!r}, pid={self._proc.pid})"


class Streamed(Mapping[str, np.ndarray]):
    """The vectors of one :meth:`ProcessEmbedder.submit`, in batches as the child sends them.

    ``text in streamed`` needs no wait; ``streamed[text]`` reads batches from the pipe until the
    one holding ``text`` is in (or raises the child's error). ``on_batch(texts, vectors)``, when
    set, is called with each batch as it arrives and its result kept instead (the engine's cache
    remembers them and normalises them as its ``encode`` does)."""

    def __init__(self, owner: ProcessEmbedder, texts: list[str], first: int, size: int) -> None:
        self._owner = owner
        bounds = [0, min(first, len(texts))] if texts else [0]
        while bounds[-1] < len(texts):
            bounds.append(min(bounds[-1] + size, len(texts)))
        self._batches = [texts[a:b] for a, b in pairwise(bounds)]
        self._where = {t: (b, r) for b, batch in enumerate(self._batches) for r, t in enumerate(batch)}
        if len(self._where) != len(texts):
            raise ValueError("texts must be distinct")
        self._vectors: list[np.ndarray] = []
        self._error: EncoderProcessError | None = None
        self.on_batch: Callable[[list[str], np.ndarray], np.ndarray] | None = None

    def received(self, vectors: np.ndarray) -> bool:
        """Take the next batch's vectors; True when it was the last."""
        batch = self._batches[len(self._vectors)]
        if vectors.shape[0] != len(batch):
            raise EncoderProcessError(f"the encoder process sent {vectors.shape[0]} vectors for {len(batch)} texts")
        self._vectors.append(vectors if self.on_batch is None else self.on_batch(batch, vectors))
        return len(self._vectors) == len(self._batches)

    def failed(self, exc: EncoderProcessError) -> None:
        if self._error is None:
            self._error = exc

    @property
    def complete(self) -> bool:
        return len(self._vectors) == len(self._batches)

    def __contains__(self, text: object) -> bool:
        return text in self._where

    def __len__(self) -> int:
        return len(self._where)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __getitem__(self, text: str) -> np.ndarray:
        b, row = self._where[text]
        while len(self._vectors) <= b:
            if self._error is not None:
                raise self._error
            self._owner._read_batch(self)
        return self._vectors[b][row]


def serve_fds(read_fd: int, write_fd: int, spec: str, device: str) -> None:
    """The child's entry point: :func:`serve` over the two pipe ends it was given."""
    serve(Connection(read_fd, writable=False), Connection(write_fd, readable=False), spec, device)


def serve(inbox: Connection, outbox: Connection, spec: str, device: str) -> None:
    """The child's loop: build the embedder, then answer ``("encode", texts, kind, batch_size)``
    with ``("ok", vectors)`` or ``("error", message)`` until ``("stop",)`` or the pipe closes."""
    try:
        from models.registry import load_embedder

        emb = load_embedder(spec, device=device, cache_size=0)
        emb.encode(["samestory warm-up"])  # the weights are read on first use: not at the first batch
    except Exception as exc:
        outbox.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    outbox.send(("ok", (emb.name, emb.dim)))

    def answer(message: tuple[Any, ...]) -> None:
        _, texts, kind, batch_size = message
        try:
            outbox.send(("ok", emb.encode(texts, kind=kind, batch_size=batch_size)))
        except Exception as exc:
            outbox.send(("error", f"{type(exc).__name__}: {exc}"))

    while True:
        try:
            message = inbox.recv()
        except (EOFError, OSError):
            return
        if message[0] == "stop":
            return
        if message[0] == "encode":
            answer(message)
            continue
        _, texts, kind, first, size = message  # a stream
        start, step = 0, first
        while start < len(texts):
            while inbox.poll():  # single requests first: their caller is waiting for them now
                waiting = inbox.recv()
                if waiting[0] == "stop":
                    return
                answer(waiting)
            try:
                outbox.send(("batch", emb.encode(texts[start:start + step], kind=kind)))
            except Exception as exc:
                outbox.send(("batch_error", f"{type(exc).__name__}: {exc}"))
                break
            start, step = start + step, size
