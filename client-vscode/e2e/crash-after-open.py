"""A chunkseam server that crashes as soon as a document is opened.

Runs the real ``python -m chunkseam server`` as a child and relays the
protocol both ways; when the client's ``textDocument/didOpen`` passes
through, it exits with status 3 (and the child with it). The client has
initialized by then, so this is a crash of a running server, every time.
"""

import subprocess
import sys
import threading


def main() -> int:
    child = subprocess.Popen([sys.executable, "-m", "chunkseam", *sys.argv[1:]],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def relay_out() -> None:
        while True:
            data = child.stdout.read1(65536)
            if not data:
                break
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    threading.Thread(target=relay_out, daemon=True).start()
    seen = b""
    while True:
        data = sys.stdin.buffer.read1(65536)
        if not data:
            break
        seen = (seen + data)[-4096:]
        if b'"textDocument/didOpen"' in seen:
            child.kill()
            return 3
        child.stdin.write(data)
        child.stdin.flush()
    child.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
