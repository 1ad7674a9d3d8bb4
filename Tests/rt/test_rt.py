"""Backendless RT's Messaging over socket.io, end to end against Herald (see conftest.py)."""

import json
import os
import queue
import threading
import time
import urllib.request
import uuid

import pytest

from rt_client import SOCKETIO_MAJOR, TIMEOUT, TRANSPORTS, RTClient, channel_name, http, publish

@pytest.mark.parametrize("transport", TRANSPORTS)
def test_subscriber_receives_each_message_once_with_the_sdk_fields(herald, clients, transport):
    client = clients(transports=TRANSPORTS[transport]).connect()
    channel = channel_name()
    client.join(channel)
    sub = client.subscribe("PUB_SUB_MESSAGES", channel)
    assert client.readies.get(timeout=TIMEOUT) == {"id": sub}
    ids = [publish(herald, channel, f"message {i}", headers={"n": i}) for i in range(3)]
    results = client.results_for(sub, 3)
    assert [r["data"]["messageId"] for r in results] == ids
    first = results[0]["data"]
    assert first["message"] == "message 0"
    assert first["headers"] == {"n": "0"}, "header values arrive as text"
    assert isinstance(first["timestamp"], int) and first["timestamp"] > 1_600_000_000_000
    for field in ["publisherId", "subtopic", "publishPolicy", "pushSinglecast", "pushBroadcast", "templateValues", "query"]:
        assert first[field] is None, field
    assert (first["publishAt"], first["repeatEvery"], first["repeatExpiresAt"]) == (0, 0, 0)
    assert client.nothing_more() == []
    if transport == "upgrade":
        assert client.transport == "websocket", "the client upgrades from polling to WebSocket"
    else:
        assert client.transport == TRANSPORTS[transport][0]


def test_selector_takes_matching_headers_only(herald, clients):
    client = clients().connect()
    channel = channel_name()
    client.join(channel)
    plain = client.subscribe("PUB_SUB_MESSAGES", channel)
    selected = client.subscribe("PUB_SUB_MESSAGES", channel, selector="foo > 10")
    assert sorted(client.readies.get(timeout=TIMEOUT)["id"] for _ in range(2)) == sorted([plain, selected])
    for value in [20, 10, 50, 5]:
        publish(herald, channel, f"foo is {value}", headers={"foo": value})
    assert [r["data"]["message"] for r in client.results_for(selected, 2)] == ["foo is 20", "foo is 50"]
    assert len(client.results_for(plain, 4)) == 4
    assert client.nothing_more() == []


def test_object_messages_arrive_as_published(herald, clients):
    client = clients().connect()
    channel = channel_name()
    sub = client.subscribe("PUB_SUB_MESSAGES", channel)
    client.readies.get(timeout=TIMEOUT)
    publish(herald, channel, {"foo": "bar", "n": [1, 2]}, policy="PUBSUB")
    assert client.results_for(sub, 1)[0]["data"]["message"] == {"foo": "bar", "n": [1, 2]}


def test_push_only_messages_are_not_delivered(herald, clients):
    client = clients().connect()
    channel = channel_name()
    sub = client.subscribe("PUB_SUB_MESSAGES", channel)
    client.readies.get(timeout=TIMEOUT)
    publish(herald, channel, "to devices only", policy="PUSH")
    publish(herald, channel, "to both", policy="BOTH")
    assert [r["data"]["message"] for r in client.results_for(sub, 1)] == ["to both"]
    assert client.nothing_more() == []


def test_a_bad_selector_or_channel_is_an_error_with_a_numeric_code(herald, clients):
    client = clients().connect()
    sub = client.subscribe("PUB_SUB_MESSAGES", channel_name(), selector="foo >")
    error = client.next_result()
    assert error["id"] == sub and isinstance(error["error"]["code"], int) and "selector" in error["error"]["message"]
    bad = client.subscribe("PUB_SUB_CONNECT", "no/slashes here")
    error = client.next_result()
    assert error["id"] == bad and isinstance(error["error"]["code"], int)


def test_unknown_subscriptions_and_methods_are_refused(herald, clients):
    client = clients().connect()
    sub = client.subscribe("OBJECTS_CHANGES", channel_name())
    error = client.next_result()
    assert error["id"] == sub and "not served by Herald" in error["error"]["message"]
    answer = client.call("RSO_GET", {"name": "x"})
    assert answer["error"]["code"].isdigit(), "a method's error code is digits in a string (the Swift SDK's check)"
    assert "not served by Herald" in answer["error"]["message"]


def test_sub_off_stops_delivery(herald, clients):
    client = clients().connect()
    channel = channel_name()
    sub = client.subscribe("PUB_SUB_MESSAGES", channel)
    client.readies.get(timeout=TIMEOUT)
    publish(herald, channel, "before")
    assert len(client.results_for(sub, 1)) == 1
    client.emit("SUB_OFF", {"id": sub})
    client.sync()
    publish(herald, channel, "after")
    assert client.nothing_more(1.2) == []


def test_commands_reach_every_command_listener(herald, clients):
    alice, bob = clients().connect(), clients().connect()
    channel = channel_name()
    alice.join(channel)
    bob.join(channel)
    alice_sub = alice.subscribe("PUB_SUB_COMMANDS", channel)
    bob_sub = bob.subscribe("PUB_SUB_COMMANDS", channel)
    bob.sync()
    answer = alice.call("PUB_SUB_COMMAND", {"channel": channel, "type": "move", "data": {"x": 1}})
    assert answer == {"id": answer["id"], "result": None}
    for client, sub in [(alice, alice_sub), (bob, bob_sub)]:
        [result] = client.results_for(sub, 1)
        assert result["data"]["type"] == "move" and result["data"]["data"] == {"x": 1}
        assert result["data"]["userId"] is None and isinstance(result["data"]["connectionId"], str)
    assert alice.nothing_more() == [] and bob.nothing_more() == []


def test_presence_lists_and_announces_members(herald, clients):
    channel = channel_name()
    alice = clients().connect()
    alice.join(channel)
    watcher = clients().connect()
    users = watcher.subscribe("PUB_SUB_USERS", channel)
    [listing] = watcher.results_for(users, 1)
    assert listing["data"]["status"] == "LISTING"
    assert len(listing["data"]["data"]) == 1 and listing["data"]["data"][0]["userId"] is None
    bob = clients().connect()
    bob.join(channel)
    [joined] = watcher.results_for(users, 1)
    assert joined["data"]["status"] == "CONNECTED"
    bob.close()
    [left] = watcher.results_for(users, 1)
    assert left["data"]["status"] == "DISCONNECTED"
    assert left["data"]["data"] == joined["data"]["data"]


def test_set_user_token_is_answered(herald, clients):
    client = clients().connect()
    answer = client.call("SET_USER_TOKEN", {"userToken": "token-1"})
    assert answer["result"] is None and "error" not in answer


def test_a_wrong_key_is_refused_at_connect(herald, clients):
    refusal = clients(key="not-a-key").connect(expect_refusal=True)
    assert refusal is not None


def test_a_reconnect_resubscribes_without_losing_or_repeating(herald, clients):
    channel = channel_name()
    client_id = str(uuid.uuid4()).upper()
    first = clients(client_id=client_id).connect()
    sub = first.subscribe("PUB_SUB_MESSAGES", channel)
    first.readies.get(timeout=TIMEOUT)
    publish(herald, channel, "one")
    assert [r["data"]["message"] for r in first.results_for(sub, 1)] == ["one"]
    first.close()
    # Published while the app was away: it reconnects with the same clientId and re-sends the same id.
    publish(herald, channel, "two")
    publish(herald, channel, "three")
    second = clients(client_id=client_id).connect()
    second.emit("SUB_ON", {"id": sub, "name": "PUB_SUB_MESSAGES", "options": {"channel": channel}})
    publish(herald, channel, "four")
    assert [r["data"]["message"] for r in second.results_for(sub, 3)] == ["two", "three", "four"]
    assert second.nothing_more() == []


def test_the_same_subscription_id_resent_replaces_it(herald, clients):
    client = clients().connect()
    channel = channel_name()
    sub = client.subscribe("PUB_SUB_MESSAGES", channel)
    client.readies.get(timeout=TIMEOUT)
    client.emit("SUB_ON", {"id": sub, "name": "PUB_SUB_MESSAGES", "options": {"channel": channel}})
    client.readies.get(timeout=TIMEOUT)
    publish(herald, channel, "once")
    assert len(client.results_for(sub, 2, timeout=1.5)) == 1


def test_rt_sse_and_polling_see_the_same_messages_once(herald, clients):
    channel = channel_name()
    client = clients().connect()
    sub = client.subscribe("PUB_SUB_MESSAGES", channel)
    client.readies.get(timeout=TIMEOUT)
    base = f"{herald['base']}/{herald['app']}/{herald['client_key']}/messaging/{channel}"
    _, poller = http("POST", f"{base}/subscribe", {})
    _, streamer = http("POST", f"{base}/subscribe", {})
    events = queue.Queue()

    def read_stream():
        with urllib.request.urlopen(f"{base}/{streamer['subscriptionId']}/stream", timeout=TIMEOUT) as stream:
            for line in stream:
                if line.startswith(b"data: "):
                    events.put(json.loads(line[6:]))

    threading.Thread(target=read_stream, daemon=True).start()
    time.sleep(0.5)
    ids = [publish(herald, channel, f"m{i}") for i in range(5)]
    assert [r["data"]["messageId"] for r in client.results_for(sub, 5)] == ids
    streamed = [events.get(timeout=TIMEOUT)["messageId"] for _ in ids]
    assert streamed == ids
    _, polled = http("GET", f"{base}/{poller['subscriptionId']}")
    assert [m["messageId"] for m in polled["messages"]] == ids
    assert client.nothing_more() == [] and events.empty()


@pytest.mark.skipif(not os.environ.get("RT_HERALD_2"), reason="one instance: the PostgreSQL run has two")
def test_a_subscriber_on_one_instance_receives_what_another_publishes(herald, clients):
    channel = channel_name()
    client = clients(base=herald["base"]).connect()
    sub = client.subscribe("PUB_SUB_MESSAGES", channel)
    client.readies.get(timeout=TIMEOUT)
    ids = [publish(herald, channel, f"via the second {i}", base=herald["second"]) for i in range(3)]
    assert [r["data"]["messageId"] for r in client.results_for(sub, 3)] == ids
    assert client.nothing_more() == []


def test_many_connect_disconnect_cycles_leave_nothing_behind(herald, clients):
    def metric(name):
        with urllib.request.urlopen(f"{herald['base']}/metrics", timeout=TIMEOUT) as response:
            for line in response.read().decode().splitlines():
                if line.startswith(name + " ") or line.startswith(name + "{"):
                    return float(line.rsplit(" ", 1)[1])
        return 0.0

    before = metric("herald_rt_connections")
    for _ in range(20):
        client = RTClient(herald["base"], herald["app"], herald["client_key"]).connect()
        client.subscribe("PUB_SUB_MESSAGES", channel_name())
        client.close()
    deadline = time.time() + TIMEOUT
    while time.time() < deadline and metric("herald_rt_connections") != before:
        time.sleep(0.1)
    assert metric("herald_rt_connections") == before
