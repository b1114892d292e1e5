#!/usr/bin/env python3
"""Opens COUNT keep-alive connections to 127.0.0.1:PORT, sends one GET /healthz on each, then
holds them idle until SIGTERM or MAX_SECONDS. Prints 'held N' once they are open and
'still open N' at the end. Usage: hold_idle.py PORT COUNT MAX_SECONDS"""
import signal, socket, sys, time

port, count, max_seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
stop = False
def on_term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)

sockets = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    sockets.append(s)
answered = 0
for s in sockets:
    try:
        if s.recv(4096).startswith(b"HTTP/1.1 200"):
            answered += 1
    except OSError:
        pass
print(f"held {answered}", flush=True)
deadline = time.monotonic() + max_seconds
while not stop and time.monotonic() < deadline:
    time.sleep(0.2)
still = 0
for s in sockets:
    s.setblocking(False)
    try:
        still += 1 if s.recv(1) != b"" else 0
    except BlockingIOError:
        still += 1
    except OSError:
        pass
    s.close()
print(f"still open {still}", flush=True)
