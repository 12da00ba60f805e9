"""A text/event-stream as a browser's EventSource reads it, from a socket's buffered reader:
the load clients' boards listen on their streams with it. No Django, no locust."""

from __future__ import annotations


def sse_events(reader, chunked: bool):
    """``(event, data)`` of a text/event-stream (HTTP/1.1 chunked or not) until it ends."""
    buffer = b""
    while True:
        if chunked:
            size_line = reader.readline()
            if not size_line:
                return
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                return
            data = reader.read(size)
            reader.readline()  # the chunk's CRLF
        else:
            data = reader.read1(65536) if hasattr(reader, "read1") else reader.read(1)
            if not data:
                return
        buffer = (buffer + data).replace(b"\r\n", b"\n")
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            event, lines = "message", []
            for line in block.decode().split("\n"):
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    lines.append(line[5:].strip())
            yield event, "\n".join(lines)
