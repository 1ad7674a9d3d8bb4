"""An RT client as the Backendless SDKs make one, on python-socketio (either major version)."""

import json
import queue
import threading
import time
import urllib.request
import uuid

import socketio

SOCKETIO_MAJOR = int(socketio.__version__.split(".")[0]) if hasattr(socketio, "__version__") else 5
try:
    import importlib.metadata as metadata

    SOCKETIO_MAJOR = int(metadata.version("python-socketio").split(".")[0])
except Exception:  # pragma: no cover
    pass

TIMEOUT = 10
TRANSPORTS = {"polling": ["polling"], "websocket": ["websocket"], "upgrade": None}


def channel_name():
    return "rt-" + uuid.uuid4().hex[:10]


def new_id():
    return uuid.uuid4().hex[:8] + str(int(time.time() * 1000))


class RTClient:
    """Connects to `/{app}/` in the namespace `/{app}` with the SDK's query, and records every SUB_RES,
    SUB_READY and MET_RES it is sent.

    With `binary`, it behaves as the Java SDK does: `binary=true` in the query, each request one `bytes`
    argument holding its JSON (python-socketio sends it as a binary attachment), and each answer's
    argument expected as `bytes` holding JSON (anything else is recorded in `wrong_types`)."""

    def __init__(self, base, app, key, client_id=None, transports=None, binary=False, binary_query=None):
        self.base, self.app, self.key = base, app, key
        self.binary = binary
        self.binary_query = binary if binary_query is None else binary_query
        self.wrong_types = []
        self.client_id = client_id or str(uuid.uuid4()).upper()
        self.namespace = f"/{app}"
        self.results = queue.Queue()
        # Results read while looking for another subscription's, in arrival order (never put back on
        # the queue, where they would land behind results that arrived after them).
        self.held = []
        self.readies = queue.Queue()
        self.methods = queue.Queue()
        self.connected = threading.Event()
        self.refused = queue.Queue()
        self.disconnected = threading.Event()
        self.sio = socketio.Client(reconnection=False)
        ns = self.namespace
        self.sio.on("SUB_RES", lambda data: self.results.put(self.read(data)), namespace=ns)
        self.sio.on("SUB_READY", lambda data: self.readies.put(data), namespace=ns)
        self.sio.on("MET_RES", lambda data: self.methods.put(self.read(data)), namespace=ns)
        self.sio.on("connect", lambda *args: self.connected.set(), namespace=ns)
        self.sio.on("connect_error", lambda data=None: self.refused.put(data), namespace=ns)
        self.sio.on("disconnect", lambda *args: self.disconnected.set(), namespace=ns)
        self.transports = transports

    def connect(self, expect_refusal=False):
        url = f"{self.base}?apiKey={self.key}&clientId={self.client_id}&userToken=null"
        if self.binary_query:
            url += "&binary=true"
        kwargs = {"namespaces": [self.namespace], "socketio_path": f"{self.app}/", "transports": self.transports}
        if SOCKETIO_MAJOR >= 5:
            kwargs["wait_timeout"] = TIMEOUT
        try:
            self.sio.connect(url, **kwargs)
        except socketio.exceptions.ConnectionError as error:
            if expect_refusal:
                return str(error)
            raise
        if expect_refusal:
            return self.refused.get(timeout=TIMEOUT)
        assert self.connected.wait(TIMEOUT), "the namespace did not connect"
        return self

    @property
    def transport(self):
        return self.sio.transport()

    def emit(self, event, payload):
        if self.binary:
            payload = json.dumps(payload).encode("utf-8")
        self.sio.emit(event, payload, namespace=self.namespace)

    def read(self, data):
        """An answer's argument: a binary client's must be bytes holding JSON."""
        if not self.binary:
            return data
        if not isinstance(data, bytes):
            self.wrong_types.append(data)
            return {"wrong type": repr(data)}
        return json.loads(data.decode("utf-8"))

    def subscribe(self, name, channel, **options):
        sub_id = new_id()
        self.emit("SUB_ON", {"id": sub_id, "name": name, "options": {**options, "channel": channel}})
        return sub_id

    def join(self, channel):
        sub_id = self.subscribe("PUB_SUB_CONNECT", channel)
        result = self.next_result()
        assert result == {"id": sub_id, "data": "connected"}, result
        return sub_id

    def call(self, name, options):
        method_id = new_id()
        self.emit("MET_REQ", {"id": method_id, "name": name, "options": options})
        answer = self.methods.get(timeout=TIMEOUT)
        assert answer["id"] == method_id, answer
        return answer

    def ready(self, sub_id):
        """Returns once a message listener is live: SUB_READY for the JS SDK's protocol; the Java SDK's
        binary one has no SUB_READY (it does not listen for it), so a method round trip stands in."""
        if self.binary:
            self.sync()
        else:
            assert self.readies.get(timeout=TIMEOUT) == {"id": sub_id}

    def sync(self):
        """Returns once the server has handled everything this client sent before: a session's packets are
        handled in order, so the answer to a method call comes after every earlier SUB_ON took effect."""
        answer = self.call("HERALD_SYNC", {})
        assert "error" in answer, answer

    def next_result(self, timeout=TIMEOUT):
        if self.held:
            return self.held.pop(0)
        return self.results.get(timeout=timeout)

    def results_for(self, sub_id, count, timeout=TIMEOUT):
        """The next `count` results of one subscription (others are kept in order for later)."""
        found = [item for item in self.held if item.get("id") == sub_id][:count]
        for item in found:
            self.held.remove(item)
        deadline = time.time() + timeout
        while len(found) < count:
            remaining = deadline - time.time()
            if remaining <= 0:
                break
            try:
                item = self.results.get(timeout=remaining)
            except queue.Empty:
                break
            (found if item.get("id") == sub_id else self.held).append(item)
        return found

    def nothing_more(self, wait=0.7):
        time.sleep(wait)
        leftovers, self.held = self.held, []
        while not self.results.empty():
            leftovers.append(self.results.get_nowait())
        return leftovers

    def close(self):
        try:
            self.sio.disconnect()
        except Exception:
            pass


def http(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            text = response.read().decode("utf-8")
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        text = error.read().decode("utf-8")
        return error.code, (json.loads(text) if text else None)


def publish(herald, channel, message, headers=None, base=None, policy="PUBSUB"):
    body = {"message": message, "publishPolicy": policy}
    if headers is not None:
        body["headers"] = headers
    status, answer = http("POST", f"{base or herald['base']}/{herald['app']}/{herald['server_key']}/messaging/{channel}", body)
    assert status == 200, (status, answer)
    return answer["messageId"]
