"""A loopback TCP proxy in front of a real server that loses answers: the call reaches the
server and is decided, but the client never hears back, as when a connection drops after
the server answered. It records every call it forwards."""

import json
import socket
import threading


class LossyProxy:
    def __init__(self, target_url, lose=0):
        """lose: how many of the first POSTs have their answer dropped."""
        host, port = target_url.split("//", 1)[1].split(":")
        self.target = (host, int(port))
        self.lose = lose
        self.calls = []  # (method, path, decoded JSON body or None), in arrival order
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = "http://127.0.0.1:%d" % self.listener.getsockname()[1]
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        self.listener.close()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        with conn:
            raw = _read_request(conn)
            head, _, body = raw.partition(b"\r\n\r\n")
            method, path = head.split(b" ")[:2]
            with self.lock:
                self.calls.append((method.decode(), path.decode(), json.loads(body) if body else None))
                drop = method == b"POST" and self.lose > 0
                if drop:
                    self.lose -= 1
            with socket.create_connection(self.target) as upstream:
                upstream.sendall(raw)
                answer = _read_all(upstream)  # the server has decided and answered
            if not drop:
                conn.sendall(answer)
            # A dropped answer: the connection closes with nothing sent back.


def _read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


def _read_all(sock):
    # urllib asks for Connection: close, so the server closes after its answer.
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
