"""HeraldAMF against an independent AMF implementation, Py3AMF (PyPI `Py3AMF`, imported as `pyamf`).

    pyamf_check.py write DIR    Py3AMF encodes every case below as a remoting packet, in AMF0 and in AMF3:
                                DIR/NAME.amf, and DIR/NAME.json, the packet HeraldAMF must decode it to
                                (values tagged with their AMF type, doubles and dates by their bits).
    pyamf_check.py verify DIR   Py3AMF decodes every DIR/NAME.swift.amf that HeraldAMF wrote for a
                                DIR/NAME.json (its own cases' and the Backendless samples'), and the result
                                must be that JSON packet.

scripts/amf-check.sh runs write, then the Swift side (HeraldAMFTests' PyAMF cross-check, which decodes
each NAME.amf, compares it with NAME.json and writes NAME.swift.amf), then verify.

The expectations are written here from the AMF specifications' mapping of Python values (an int within
29 bits is an AMF3 integer, any other number a double; a dict is an anonymous dynamic object; AMF0 has
numbers only), not read back from Py3AMF's own decoder.
"""
import datetime
import json
import os
import struct
import sys
import xml.etree.ElementTree as ElementTree

import pyamf
import pyamf.remoting as remoting
from pyamf import amf3

EPOCH = datetime.datetime(1970, 1, 1)


class Registration:
    """Sealed traits (Java's way): every field, in the class's (sorted) order, no dynamic members."""

    class __amf__:
        static = ("channels", "deviceId", "deviceToken", "expiration", "id", "os", "osVersion")
        dynamic = False


class Status:
    """Dynamic traits with sealed members first, and one dynamic member after them."""

    class __amf__:
        static = ("errorMessage", "messageId", "status")


class Open:
    """A typed object with dynamic members only."""


pyamf.register_class(Registration, "com.backendless.management.DeviceRegistrationDto")
pyamf.register_class(Status, "com.backendless.messaging.MessageStatus")
pyamf.register_class(Open, "com.example.Open")


def make(kind, **fields):
    value = kind()
    for name, field in fields.items():
        setattr(value, name, field)
    return value


def cases():
    """name -> (headers {name: (required, value)}, bodies [(target, response, value)]). A body with a
    response URI is a Request, whose value is its argument list; one without is a Response (a result) to
    request `target`, which Py3AMF writes with target `target/onResult` and response "null"."""
    edge_ints = [0, 1, -1, 127, 128, 16383, 16384, 2**21 - 1, 2**21, 2**28 - 1, -(2**28), 2**28, -(2**28) - 1,
                 2**31 - 1, -(2**31), 2**53]
    doubles = [0.5, -0.0, 1e308, 5e-324, -2.5e-10, float("inf"), float("-inf"), 3.0]
    shared = {"k": [1, 2]}
    registration = dict(channels=["news", "sports"], deviceId="3f2a9c1e5b7d4e60", deviceToken="tok:APA91b",
                        expiration=datetime.datetime(2030, 1, 1), id="", os="ANDROID", osVersion="30")
    return {
        "scalars": ({}, [("/1", None, [None, pyamf.Undefined, True, False] + edge_ints + doubles)]),
        "strings": ({}, [("/1", None, ["", "a", "é€𝄞", "x" * 300, "y" * 20000, "abc", "abc", "",
                                                  "déjà", "déjà", "abc"])]),
        "dates": ({}, [("/1", None, [datetime.datetime(2030, 1, 1), EPOCH,
                                                datetime.datetime(2000, 2, 29, 12, 0, 0, 123000),
                                                datetime.datetime(1969, 7, 20, 20, 17, 40)])]),
        "bytes": ({}, [("/1", None, [amf3.ByteArray(b""), amf3.ByteArray(bytes(range(256)))])]),
        "objects": ({}, [("/1", None, [{"b": 1, "a": "x"}, {}, {"nested": {"deeper": {"deepest": [1]}}},
                                                  shared, shared, shared, pyamf.ASObject(z=None, y=2.5)])]),
        "typed": ({}, [("/1", None, [
            make(Registration, **registration),
            make(Registration, **dict(registration, deviceId="second", expiration=None, channels=[])),
            make(Status, messageId="message:p1", status="SCHEDULED", errorMessage=None, extra=7),
            make(Open, b="first", a=[make(Open, inner=True)]),
        ])]),
        "arrays": ({}, [("/1", None, [[], [1, [2, [3, [4, []]]]], list(range(1000)),
                                                 pyamf.MixedArray(a=1, b="x"), ["mixed", 1, 2.5, None, True]])]),
        "xml": ({}, [("/1", None, ElementTree.fromstring('<a b="1">t<c/></a>'))]),
        "request": ({"Credentials": (True, {"userid": "u", "password": "p"}), "Locale": (False, "fr")},
                    [("com.example.Service.call", "/1", ["arg", 1, {"k": "v"}]),
                     ("com.example.Service.other", "/2", [])]),
    }


def ms(moment):
    delta = moment - EPOCH
    return float((delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000)


def bits(number):
    return struct.pack(">d", number).hex()


def tagged(value, amf3_numbers):
    """The value as HeraldAMF reads what Py3AMF writes: AMF3 keeps integers within 29 bits, AMF0 has only
    doubles; AMF0 reads an anonymous object as dynamic and a typed one as sealed."""
    if value is None:
        return {"t": "null"}
    if value is pyamf.Undefined:
        return {"t": "undefined"}
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int) and amf3_numbers and -(2**28) <= value < 2**28:
        return {"t": "int", "v": value}
    if isinstance(value, (int, float)):
        return {"t": "double", "bits": bits(float(value))}
    if isinstance(value, str):
        return {"t": "string", "v": value}
    if isinstance(value, datetime.datetime):
        return {"t": "date", "bits": bits(ms(value))}
    if isinstance(value, amf3.ByteArray):
        return {"t": "bytes", "hex": value.getvalue().hex()}
    if isinstance(value, ElementTree.Element):
        return {"t": "xml", "v": ElementTree.tostring(value, encoding="unicode")}
    if isinstance(value, pyamf.MixedArray):
        pairs = [[str(key), tagged(item, amf3_numbers)] for key, item in value.items()]
        return {"t": "array", "items": [], "assoc": pairs}
    if isinstance(value, (list, tuple)):
        return {"t": "array", "items": [tagged(item, amf3_numbers) for item in value], "assoc": []}
    if isinstance(value, pyamf.TypedObject):
        pairs = [[str(key), tagged(item, amf3_numbers)] for key, item in value.items()]
        return {"t": "object", "class": value.alias, "dynamic": True, "members": pairs}
    if isinstance(value, dict):
        pairs = [[str(key), tagged(item, amf3_numbers)] for key, item in value.items()]
        return {"t": "object", "class": "", "dynamic": True, "members": pairs}
    alias = pyamf.get_class_alias(type(value))
    alias.compile()
    attributes = alias.getEncodableAttributes(value)
    names = list(alias.static_attrs or []) + [key for key in attributes if key not in (alias.static_attrs or [])]
    dynamic = bool(alias.dynamic) if amf3_numbers else False
    return {"t": "object", "class": alias.alias, "dynamic": dynamic,
            "members": [[name, tagged(attributes[name], amf3_numbers)] for name in names]}


def expected_packet(headers, bodies, version):
    # A Request's arguments travel as an AMF0 strict array (each element switched to AMF3 in an AMF3
    # packet), a Response's value whole: HeraldAMF reads both as the same array.
    amf3_numbers = version == pyamf.AMF3
    return {
        "version": version,
        "headers": [{"name": name, "mustUnderstand": required, "value": tagged(value, amf3_numbers)}
                    for name, (required, value) in headers.items()],
        "messages": [{"target": target if response else target + "/onResult", "response": response or "null",
                      "value": tagged(value, amf3_numbers)} for target, response, value in bodies],
    }


def envelope(headers, bodies, version):
    packet = remoting.Envelope(amfVersion=version)
    for name, (required, value) in headers.items():
        packet.headers[name] = value
        if required:
            packet.headers.set_required(name)
    for target, response, value in bodies:
        if response is None:
            packet[target] = remoting.Response(value)
        else:
            packet[response] = remoting.Request(target, value)
    return packet


def write(directory):
    count = 0
    for name, (headers, bodies) in cases().items():
        for version, suffix in ((pyamf.AMF0, "amf0"), (pyamf.AMF3, "amf3")):
            stem = os.path.join(directory, f"{name}-{suffix}")
            with open(stem + ".amf", "wb") as out:
                out.write(remoting.encode(envelope(headers, bodies, version)).getvalue())
            with open(stem + ".json", "w") as out:
                json.dump(expected_packet(headers, bodies, version), out, indent=1)
            count += 1
    print(f"pyamf_check: wrote {count} packets into {directory}")


def normalized(value):
    """What Py3AMF's Python values can tell apart: not an object's traits kind (sealed or dynamic) nor the
    order of a class's members (a class instance keeps its attributes, not their order)."""
    if isinstance(value, dict):
        result = {key: normalized(item) for key, item in value.items() if key != "dynamic"}
        if value.get("t") == "object":
            result["members"] = sorted(result["members"], key=lambda pair: pair[0])
        return result
    if isinstance(value, list):
        return [normalized(item) for item in value]
    return value


def message_json(key, message):
    """A body as Py3AMF read it: a Request keeps its target and has `key` as response URI; a Response to
    request `key` had target `key` + its status ("/onResult", "/onStatus") and response "null"."""
    if isinstance(message, remoting.Request):
        return {"target": message.target, "response": key, "value": tagged(message.body, True)}
    return {"target": key + remoting.STATUS_CODES[message.status], "response": "null",
            "value": tagged(message.body, True)}


def verify(directory):
    passed, failed = 0, 0
    for entry in sorted(os.listdir(directory)):
        if not entry.endswith(".json"):
            continue
        stem = os.path.join(directory, entry[: -len(".json")])
        with open(stem + ".json") as source:
            expected = json.load(source)
        try:
            with open(stem + ".swift.amf", "rb") as source:
                packet = remoting.decode(source.read(), strict=True)
            actual = {
                "version": packet.amfVersion,
                "headers": [{"name": name, "mustUnderstand": packet.headers.is_required(name),
                             "value": tagged(value, True)} for name, value in packet.headers.items()],
                "messages": [message_json(key, message) for key, message in packet.items()],
            }
            # HeraldAMF writes AMF3 values, which only a version 3 packet may carry (Py3AMF refuses them in
            # a version 0 one), so the Swift side writes every packet as version 3.
            expected["version"] = pyamf.AMF3
            problem = None if normalized(actual) == normalized(expected) else (
                "Py3AMF read\n" + json.dumps(actual)[:2000] + "\nexpected\n" + json.dumps(expected)[:2000])
        except Exception as error:  # a decoding failure is a mismatch to report, not a crash
            problem = f"Py3AMF could not read it: {error!r}"
        if problem:
            failed += 1
            print(f"FAIL {entry[:-5]}.swift.amf: {problem}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "verify"):
        sys.exit(__doc__)
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        sys.exit(verify(sys.argv[2]))
