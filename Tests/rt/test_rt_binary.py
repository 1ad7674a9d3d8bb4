"""Backendless RT for the Java / Android SDK's client, imitated with python-socketio: binary requests (one
`bytes` argument holding the JSON) and binary answers (SUB_RES / MET_RES whose argument is `bytes`)."""

import os

import pytest

from rt_client import TIMEOUT, TRANSPORTS, channel_name, publish


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_binary_client_joins_listens_and_calls(herald, clients, transport):
    client = clients(binary=True, transports=TRANSPORTS[transport]).connect()
    channel = channel_name()
    client.join(channel)
    plain = client.subscribe("PUB_SUB_MESSAGES", channel)
    selected = client.subscribe("PUB_SUB_MESSAGES", channel, selector="room = 'a'")
    client.sync()
    other = publish(herald, channel, "for everyone", headers={"room": "b"})
    mine = publish(herald, channel, {"x": 1}, headers={"room": "a"})
    [delivery] = client.results_for(selected, 1)
    assert delivery["data"]["messageId"] == mine and delivery["data"]["message"] == {"x": 1}
    assert delivery["data"]["headers"] == {"room": "a"}
    assert [r["data"]["messageId"] for r in client.results_for(plain, 2)] == [other, mine]
    assert client.nothing_more() == []

    answer = client.call("PUB_SUB_COMMAND", {"channel": channel, "type": "move", "data": {"x": 1}})
    assert answer == {"id": answer["id"], "result": None}
    assert client.readies.empty(), "no SUB_READY: the Java SDK does not listen for it"
    assert client.wrong_types == []
    if transport == "upgrade":
        assert client.transport == "websocket"
    else:
        assert client.transport == TRANSPORTS[transport][0]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_binary_client_gets_errors_in_binary(herald, clients, transport):
    client = clients(binary=True, transports=TRANSPORTS[transport]).connect()
    answer = client.call("RSO_GET", {"name": "x"})
    assert answer["error"]["code"] == "404" and "not served by Herald" in answer["error"]["message"]
    sub = client.subscribe("PUB_SUB_MESSAGES", channel_name(), selector="foo >")
    error = client.next_result()
    assert error["id"] == sub and isinstance(error["error"]["code"], int) and "selector" in error["error"]["message"]
    assert client.wrong_types == []


def test_a_binary_request_makes_the_connection_binary(herald, clients):
    # No `binary=true` in the query: the first binary request decides.
    client = clients(binary=True, binary_query=False).connect()
    client.join(channel_name())
    assert client.wrong_types == []


def test_json_and_binary_clients_share_a_channel(herald, clients):
    channel = channel_name()
    json_client, binary_client = clients().connect(), clients(binary=True).connect()
    json_sub = json_client.subscribe("PUB_SUB_MESSAGES", channel)
    json_client.ready(json_sub)
    binary_sub = binary_client.subscribe("PUB_SUB_MESSAGES", channel)
    binary_client.ready(binary_sub)
    message = publish(herald, channel, "to both")
    for client, sub in [(json_client, json_sub), (binary_client, binary_sub)]:
        [result] = client.results_for(sub, 1)
        assert result["data"]["messageId"] == message
        assert client.nothing_more() == []
    assert binary_client.wrong_types == []


@pytest.mark.skipif(not os.environ.get("RT_HERALD_2"), reason="one instance: the PostgreSQL run has two")
def test_a_binary_subscriber_receives_what_another_instance_publishes(herald, clients):
    channel = channel_name()
    client = clients(binary=True).connect()
    sub = client.subscribe("PUB_SUB_MESSAGES", channel)
    client.ready(sub)
    ids = [publish(herald, channel, f"via the second {i}", base=herald["second"]) for i in range(2)]
    assert [r["data"]["messageId"] for r in client.results_for(sub, 2, timeout=TIMEOUT)] == ids
    assert client.wrong_types == []
