"""Backendless RT against a running Herald, with python-socketio as the independent client.

scripts/rt-check.sh starts Herald (one instance on SQLite, or two on one PostgreSQL database) and runs
this suite once with python-socketio 5 (Engine.IO v4, Socket.IO v5: what the JS and Java SDKs speak)
and once with python-socketio 4 (Engine.IO v3, Socket.IO v4: the Swift SDK's protocol). Environment:

    RT_HERALD       Herald's address (http://127.0.0.1:PORT)
    RT_HERALD_2     a second instance on the same database, if any
    RT_APP          the app id; RT_CLIENT_KEY, RT_SERVER_KEY its keys
"""

import os

import pytest

from rt_client import RTClient


@pytest.fixture(scope="session")
def herald():
    return {
        "base": os.environ["RT_HERALD"],
        "second": os.environ.get("RT_HERALD_2"),
        "app": os.environ["RT_APP"],
        "client_key": os.environ["RT_CLIENT_KEY"],
        "server_key": os.environ["RT_SERVER_KEY"],
    }


@pytest.fixture
def clients(herald):
    """Makes RT clients of the app (closed after the test)."""
    made = []

    def make(key=None, base=None, **kwargs):
        client = RTClient(base or herald["base"], herald["app"], key or herald["client_key"], **kwargs)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()
