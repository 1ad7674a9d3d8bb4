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


@pytest.fixture(scope="session")
def herald():
    return {
        "base": os.environ["RT_HERALD"],
        "second": os.environ.get("RT_HERALD_2"),
        "app": os.environ["RT_APP"],
        "client_key": os.environ["RT_CLIENT_KEY"],
        "server_key": os.environ["RT_SERVER_KEY"],
    }
