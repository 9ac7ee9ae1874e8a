"""A loopback TCP proxy that can pause (accept and hold, answer nothing: a stopped server) or go
down (refuse connections and cut the open ones), so a test can break the hub's path to PostgreSQL
or Redis without touching the real servers that other tests share."""

import selectors
import socket
import threading

OPEN, PAUSED, DOWN = "open", "paused", "down"


class TcpProxy:
    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self.state = OPEN
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def pause(self):
        self.state = PAUSED

    def resume(self):
        self.state = OPEN

    def go_down(self):
        """New connections are refused at once; open ones are cut."""
        self.state = DOWN
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            for sock in pair:
                _close(sock)

    def stop(self):
        self._stopped.set()
        self.go_down()
        _close(self._listener)

    def _accept(self):
        self._listener.settimeout(0.1)
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            if self.state == DOWN:
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                _close(client)  # a reset: as if nothing listened
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            with self._lock:
                self._pairs.append((client, upstream))
            threading.Thread(target=self._relay, args=(client, upstream), daemon=True).start()

    def _relay(self, client: socket.socket, upstream: socket.socket):
        peers = {client: upstream, upstream: client}
        with selectors.DefaultSelector() as selector:
            for sock in peers:
                selector.register(sock, selectors.EVENT_READ)
            while not self._stopped.is_set() and self.state != DOWN:
                if self.state == PAUSED:  # hold everything: the bytes wait in the kernel
                    self._stopped.wait(0.05)
                    continue
                try:
                    ready = selector.select(timeout=0.1)
                    for key, _ in ready:
                        data = key.fileobj.recv(65536)
                        if not data:
                            raise ConnectionError
                        peers[key.fileobj].sendall(data)
                except (OSError, ConnectionError, ValueError):
                    break
        for sock in peers:
            _close(sock)


def _close(sock: socket.socket):
    try:
        sock.close()
    except OSError:
        pass
