"""A small client of the Chrome DevTools Protocol over --remote-debugging-pipe: the
browser reads commands on its file descriptor 3 and writes replies and events on 4,
each a JSON message ended by a NUL byte. No WebSocket, no npm package: the test needs
only Python and Debian's chromium (docs/Web.md)."""
import fcntl
import json
import os
import queue
import subprocess
import threading


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, chromium, args, log_path=None):
        cmd_r, cmd_w = os.pipe()  # we write commands, the browser reads fd 3
        ev_r, ev_w = os.pipe()    # the browser writes fd 4, we read
        # the child's ends at 5-9 (sh takes single-digit descriptors), so that mapping them
        # to 3 and 4 cannot clobber them
        for name in ("cmd_r", "ev_w"):
            fd = locals()[name]
            high = fcntl.fcntl(fd, fcntl.F_DUPFD, 5)
            os.close(fd)
            if name == "cmd_r":
                cmd_r = high
            else:
                ev_w = high
        log = open(log_path, "wb") if log_path else subprocess.DEVNULL
        # the shell maps the pipes to 3 and 4 and closes the originals
        sh = 'exec "$0" "$@" 3<&%d 4>&%d %d<&- %d>&-' % (cmd_r, ev_w, cmd_r, ev_w)
        self.proc = subprocess.Popen(["sh", "-c", sh, chromium, "--remote-debugging-pipe"] + args,
                                     pass_fds=(cmd_r, ev_w), stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=log)
        os.close(cmd_r)
        os.close(ev_w)
        self.wfile = os.fdopen(cmd_w, "wb", buffering=0)
        self.rfile = os.fdopen(ev_r, "rb", buffering=0)
        self.next_id = 0
        self.lock = threading.Lock()
        self.waiters = {}
        self.events = queue.Queue()
        self.closed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        buf = b""
        while True:
            chunk = self.rfile.read(1 << 16)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                m = json.loads(msg)
                if "id" in m:
                    with self.lock:
                        q = self.waiters.pop(m["id"], None)
                    if q:
                        q.put(m)
                else:
                    self.events.put(m)
        self.closed = True
        with self.lock:
            for q in self.waiters.values():
                q.put({"error": {"message": "the browser closed the pipe"}})

    def send(self, method, params=None, session=None, timeout=300):
        with self.lock:
            self.next_id += 1
            i = self.next_id
            q = queue.Queue()
            self.waiters[i] = q
        m = {"id": i, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        self.wfile.write(json.dumps(m).encode() + b"\0")
        try:
            r = q.get(timeout=timeout)
        except queue.Empty:
            raise CDPError("%s: no reply in %d s" % (method, timeout))
        if "error" in r:
            raise CDPError("%s: %s" % (method, r["error"].get("message")))
        return r.get("result", {})

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Page:
    """One tab, attached in flat mode."""

    def __init__(self, browser, url="about:blank"):
        self.b = browser
        t = browser.send("Target.createTarget", {"url": url})
        s = browser.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})
        self.session = s["sessionId"]
        self.send("Runtime.enable")
        self.send("Page.enable")

    def send(self, method, params=None, timeout=300):
        return self.b.send(method, params, session=self.session, timeout=timeout)

    def eval(self, expr, timeout=300):
        """The value of a JavaScript expression (awaited when it is a promise)."""
        r = self.send("Runtime.evaluate", {"expression": expr, "awaitPromise": True,
                                           "returnByValue": True}, timeout=timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            msg = d.get("exception", {}).get("description") or d.get("text")
            raise CDPError("page: %s\n  in: %s" % (msg, expr[:200]))
        return r["result"].get("value")
