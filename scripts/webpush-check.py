#!/usr/bin/env python3
"""Every Web Push body Herald sends, opened by an independent decrypter (Python's http-ece, PyPI).

Run by scripts/webpush-check.sh, which starts herald and the mock push service (fixtures/webpush-mock)
and passes their addresses:

    python3 scripts/webpush-check.py --herald URL --app ID --client-key KEY --server-key KEY \
        --mock path/to/webpush-mock --push-base https://127.0.0.1:PORT --control http://127.0.0.1:PORT \
        --vapid-key fixtures/webpush/vapid-test.pem

Registers DEVICES WEB devices (the subscription JSON `webpush-mock subscription ID` prints), publishes the
MESSAGES below one after the other, waits for each to be `published` to every device, then opens every
body the mock recorded with http-ece and the subscription's keys, derived from its id as the mock derives
them (fixtures/webpush-mock/README.md, "Subscriptions"). Each must equal the mock's own decryption and
the JSON its publish should give (docs/web-push.md, "Publishing to browsers"); no salt and no ephemeral
public key may appear twice. Exits 1 naming the first mismatch.

Needs: pip install http-ece cryptography.
"""

import argparse
import base64
import hashlib
import importlib.metadata as metadata
import json
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

DEVICES = 50
CHANNEL = "news"
PLAINTEXT_LIMIT = 3993  # bytes: 4096 of body less 86 of header, a padding byte and a 16-byte tag
HEADER_LENGTH = 86  # salt (16), rs (4), idlen (1), keyid (65)
DEFAULT_TTL = 2419200  # seconds: Herald's default (28 days) when no web-ttl is given


def fail(message):
    print(f"webpush-check: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def compact(value):
    """JSON as Herald writes a plaintext: sorted keys, no spaces, UTF-8 (used only to size the big message)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def subscription_keys(subscription_id):
    """The browser's private key and auth secret of a mock subscription, derived from its id."""
    auth = hashlib.sha256(f"herald-webpush-mock auth {subscription_id}".encode()).digest()[:16]
    counter = 0
    while True:
        text = f"herald-webpush-mock key {subscription_id}" + ("" if counter == 0 else f" {counter}")
        scalar = int.from_bytes(hashlib.sha256(text.encode()).digest(), "big")
        try:
            return ec.derive_private_key(scalar, ec.SECP256R1()), auth
        except ValueError:  # 0 or not below the group order: the mock takes the next counter too
            counter += 1


def public_bytes(key):
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def request(method, url, body=None):
    """(status, parsed JSON answer or None)."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    headers = {} if body is None else {"Content-Type": "application/json"}
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            status, text = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    try:
        return status, json.loads(text) if text else None
    except ValueError:
        return status, text.decode("utf-8", "replace")


def messages():
    """(publish body, the plaintext JSON every browser must get, the TTL/Urgency/Topic the mock must see)."""
    found = []
    # Non-ASCII text; web-title and web-url; a number stays a number in data.
    found.append((
        {"message": "Hello ü", "headers": {"web-title": "T", "web-url": "https://example.com/x", "n": 1}},
        {"body": "Hello ü", "data": {"n": 1}, "title": "T", "url": "https://example.com/x"},
        (DEFAULT_TTL, None, None),
    ))
    # Text JSON must escape; the Android title before the iOS one; every web-* member; TTL, Urgency, Topic as
    # request headers only; other platforms' headers nowhere; any other header in data, kept as it is.
    found.append((
        {"message": 'Line 1\nLine "2" \\ </script> \u2028 🎉',
         "headers": {"android-content-title": "Android title", "ios-alert-title": "iOS title",
                     "web-body": "Web body wins", "web-icon": "https://example.com/i.png",
                     "web-badge": "https://example.com/b.png", "web-image": "https://example.com/p.jpg",
                     "web-tag": "order-42", "web-ttl": 600, "web-urgency": "HIGH", "web-topic": "orders_42",
                     "web-unknown": "ignored", "ios-badge": 3, "android-ticker": "ignored", "wp-type": "ignored",
                     "apns-priority": 10, "n": 2,
                     "order": {"id": 42, "items": [1, -2.5, "three", None], "gift": True, "note": "ü€😀"}}},
        {"body": "Web body wins", "title": "Android title", "icon": "https://example.com/i.png",
         "badge": "https://example.com/b.png", "image": "https://example.com/p.jpg", "tag": "order-42",
         "data": {"n": 2, "order": {"id": 42, "items": [1, -2.5, "three", None], "gift": True, "note": "ü€😀"}}},
        (600, "high", "orders_42"),
    ))
    # A message that is not text goes to data.message; the iOS title when there is no other; integer text.
    found.append((
        {"message": {"k": ["v", 1]}, "headers": {"ios-alert-title": 7, "web-ttl": 0, "web-urgency": "very-low", "n": 3}},
        {"data": {"message": {"k": ["v", 1]}, "n": 3}, "title": "7"},
        (0, "very-low", None),
    ))
    # Exactly at the plaintext limit, with 2-, 3- and 4-byte characters (bytes count, not characters):
    # the body is then 4096 bytes, all a push service takes.
    head = "ü€😀"
    big = {"body": head, "data": {"n": 4}, "title": "Big"}
    big["body"] = head + "x" * (PLAINTEXT_LIMIT - len(compact(big)))
    assert len(compact(big)) == PLAINTEXT_LIMIT
    found.append((
        {"message": big["body"], "headers": {"web-title": "Big", "n": 4}},
        big,
        (DEFAULT_TTL, None, None),
    ))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ["herald", "app", "client-key", "server-key", "mock", "push-base", "control", "vapid-key"]:
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    herald = f"{args.herald}/{args.app}"

    # The subscriptions, as the mock prints them; the keys this script derives must be theirs.
    ids = [f"check-{index:02d}" for index in range(DEVICES)]
    keys = {sid: subscription_keys(sid) for sid in ids}

    def printed(sid):
        return subprocess.run([args.mock, "subscription", sid, "--base-url", args.push_base],
                              check=True, capture_output=True, text=True).stdout.strip()

    with ThreadPoolExecutor(8) as pool:
        tokens = dict(zip(ids, pool.map(printed, ids)))
    for sid in ids:
        subscription = json.loads(tokens[sid])
        private_key, auth = keys[sid]
        if subscription["keys"] != {"p256dh": b64url(public_bytes(private_key)), "auth": b64url(auth)}:
            fail(f"the keys derived for {sid} are not those `webpush-mock subscription` prints: {tokens[sid]}")
        if subscription["endpoint"] != f"{args.push_base}/push/{sid}":
            fail(f"subscription {sid} has the endpoint {subscription['endpoint']}")

    for sid in ids:
        status, answer = request("POST", f"{herald}/{args.client_key}/messaging/registrations",
                                 {"deviceId": sid, "os": "WEB", "deviceToken": tokens[sid], "channels": [CHANNEL]})
        if status != 200 or not isinstance(answer, dict) or "registrationId" not in answer:
            fail(f"registering {sid}: {status} {answer}")
    print(f"registered {DEVICES} WEB devices on channel {CHANNEL}")

    # Publish one at a time, each finished before the next.
    expected = {}  # data.n → (plaintext JSON, ttl, urgency, topic)
    for body, plaintext, (ttl, urgency, topic) in messages():
        number = body["headers"]["n"]
        status, answer = request("POST", f"{herald}/{args.server_key}/messaging/{CHANNEL}", body)
        if status != 200 or not isinstance(answer, dict) or not str(answer.get("messageId", "")).startswith("message:"):
            fail(f"publishing message n={number}: {status} {answer}")
        message_id = answer["messageId"]
        deadline = time.monotonic() + 60
        while True:
            status, state = request("GET", f"{herald}/{args.server_key}/messaging/{message_id}")
            if status != 200:
                fail(f"status of message n={number} ({message_id}): {status} {state}")
            if state["status"] != "scheduled":
                break
            if time.monotonic() > deadline:
                fail(f"message n={number} ({message_id}) is still scheduled after 60 s: {state}")
            time.sleep(0.1)
        deliveries = state["deliveries"]
        web = deliveries["byPlatform"].get("web")
        if (state["status"] != "published" or deliveries["sent"] != DEVICES or deliveries["failed"] != 0
                or web is None or web["sent"] != DEVICES or web["failed"] != 0):
            fail(f"message n={number} ({message_id}) should be published to {DEVICES} web devices: {state}")
        expected[number] = (plaintext, ttl, urgency, topic)
        print(f"message n={number}: published, deliveries.byPlatform.web {web}")

    # One byte over the limit: refused at publish (8000 naming payload), so never sent.
    over = {"message": "ü" + "x" * (PLAINTEXT_LIMIT - len(compact({"body": "ü", "data": {"n": 5}, "title": "Big"})) + 1),
            "headers": {"web-title": "Big", "n": 5}}
    status, answer = request("POST", f"{herald}/{args.server_key}/messaging/{CHANNEL}", over)
    if status != 400 or not isinstance(answer, dict) or answer.get("code") != 8000 or "payload" not in answer.get("message", ""):
        fail(f"a plaintext of {PLAINTEXT_LIMIT + 1} bytes should be refused with 8000 naming payload: {status} {answer}")
    print(f"a plaintext of {PLAINTEXT_LIMIT + 1} bytes: refused ({answer['code']}: {answer['message']})")

    # What the mock received, opened here.
    status, records = request("GET", f"{args.control}/control/messages")
    if status != 200 or not isinstance(records, list):
        fail(f"GET {args.control}/control/messages: {status} {records}")
    if len(records) != DEVICES * len(expected):
        fail(f"the mock accepted {len(records)} pushes, not {DEVICES} × {len(expected)}")
    with open(args.vapid_key, "rb") as file:
        vapid = serialization.load_pem_private_key(file.read(), password=None)
    vapid_public = b64url(public_bytes(vapid))

    # The check can fail: a body does not open with another subscription's keys.
    first = base64.b64decode(records[0]["bodyBase64"])
    other = next(sid for sid in ids if sid != records[0]["subscriptionID"])
    try:
        http_ece.decrypt(first, private_key=keys[other][0], auth_secret=keys[other][1], version="aes128gcm")
        fail(f"a body for {records[0]['subscriptionID']} opened with the keys of {other}")
    except http_ece.ECEException:
        pass

    seen, salts, senders, headers = set(), set(), set(), set()
    for index, record in enumerate(records):
        sid = record.get("subscriptionID")
        where = f"push {index} (to {sid})"
        if sid not in keys:
            fail(f"{where}: not one of the registered subscriptions")
        body = base64.b64decode(record["bodyBase64"])
        if len(body) < HEADER_LENGTH + 17:
            fail(f"{where}: a body of {len(body)} bytes")
        salt, (rs,), idlen, keyid = body[:16], struct.unpack("!L", body[16:20]), body[20], body[21:HEADER_LENGTH]
        if idlen != 65 or keyid[0] != 4 or rs < len(body) - HEADER_LENGTH:
            fail(f"{where}: header rs={rs}, idlen={idlen}, key id starting {keyid[:1].hex()} for a {len(body)}-byte body")
        private_key, auth = keys[sid]
        try:
            plaintext = http_ece.decrypt(body, private_key=private_key, auth_secret=auth, version="aes128gcm")
        except http_ece.ECEException as error:
            fail(f"{where}: http-ece cannot open it: {error}")
        if record.get("plaintext") is None or plaintext != record["plaintext"].encode("utf-8"):
            fail(f"{where}: http-ece reads {plaintext[:200]!r}, the mock read {str(record.get('plaintext'))[:200]!r}")
        try:
            content = json.loads(plaintext)
        except ValueError:
            fail(f"{where}: the plaintext is not JSON: {plaintext[:200]!r}")
        number = content.get("data", {}).get("n") if isinstance(content, dict) else None
        if number not in expected:
            fail(f"{where}: no message published with data.n = {number!r}: {plaintext[:200]!r}")
        want, ttl, urgency, topic = expected[number]
        if content != want:
            fail(f"{where}, message n={number}: the plaintext is\n  {json.dumps(content, ensure_ascii=False, sort_keys=True)}\n"
                 f"expected\n  {json.dumps(want, ensure_ascii=False, sort_keys=True)}")
        got = (record.get("ttl"), record.get("urgency"), record.get("topic"))
        if got != (ttl, urgency, topic):
            fail(f"{where}, message n={number}: TTL, Urgency, Topic {got}, expected {(ttl, urgency, topic)}")
        if record.get("vapidPublicKey") != vapid_public or record.get("vapidSubject") != "mailto:ci@herald.example":
            fail(f"{where}: signed with k={record.get('vapidPublicKey')}, sub={record.get('vapidSubject')}")
        if (sid, number) in seen:
            fail(f"{where}: message n={number} reached {sid} twice")
        if salt in salts or keyid in senders or body[:HEADER_LENGTH] in headers:
            fail(f"{where}: its salt or ephemeral public key was used before (header {body[:HEADER_LENGTH].hex()})")
        seen.add((sid, number))
        salts.add(salt)
        senders.add(keyid)
        headers.add(body[:HEADER_LENGTH])

    status, stats = request("GET", f"{args.control}/control/stats")
    if status != 200 or stats.get("decryptFailures") != 0 or stats.get("vapidRejections") != 0:
        fail(f"the mock's counts: {status} {stats}")
    sizes = sorted({len(base64.b64decode(r["bodyBase64"])) for r in records})
    print(f"webpush-check: {len(records)} pushes decrypted by http-ece {metadata.version('http-ece')}, all match"
          f" ({len(expected)} messages × {DEVICES} subscriptions, bodies of {sizes[0]} to {sizes[-1]} bytes,"
          f" {len(salts)} distinct salts and ephemeral keys)")


if __name__ == "__main__":
    main()
