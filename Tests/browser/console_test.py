#!/usr/bin/env python3
"""Browser tests of the Herald console (issue 25), in Debian's Chromium driven by Playwright.

Starts the built `herald` itself: once in demo mode (its mock APNs and FCM inside the process) for the
flows, and once with a two-app configuration for the isolation check. Data is made through Herald's own
API, as an app and a backend would. With HERALD_CONSOLE_SCREENSHOTS=DIR each page is also saved as a
PNG in DIR (docs/console holds the committed ones).

    python3 Tests/browser/console_test.py [path/to/herald]

Needs: pip install playwright; apt-get install chromium (HERALD_CHROMIUM names another binary).
Exits non-zero, naming the check, on the first failure.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from playwright.sync_api import expect, sync_playwright

HERALD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/herald")
CHROMIUM = os.environ.get("HERALD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = os.environ.get("HERALD_CONSOLE_SCREENSHOTS")
NAVIGATION = ["Overview", "Channels", "Devices", "Messages", "Send", "Templates", "Live Activities", "Operations"]


class Server:
    """`herald serve` in a scratch folder, until stopped."""

    def __init__(self, config=None, environment=None):
        self.folder = tempfile.mkdtemp(prefix="herald-console-")
        arguments = [HERALD, "serve", "--port", "0"]
        if config is not None:
            path = os.path.join(self.folder, "herald.json")
            with open(path, "w") as file:
                json.dump(config, file)
            arguments += ["--config", path]
        environment = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")} | (environment or {})
        self.log = open(os.path.join(self.folder, "out.log"), "w+")
        self.process = subprocess.Popen(arguments, cwd=self.folder, stdout=self.log, stderr=subprocess.STDOUT, env=environment)
        deadline = time.time() + 60
        while time.time() < deadline:
            self.log.seek(0)
            text = self.log.read()
            found = re.search(r"Herald listening on (http://[0-9.:]+)", text)
            if found:
                self.base = found.group(1)
                self.keys = dict(re.findall(r"^\s+(client|server|admin)\s+(\S+)$", text, re.M))
                # In demo mode: where the in-process mocks say what they received.
                self.mocks = dict(re.findall(r"mock (APNs|FCM) .*received: curl -s (\S+)", text))
                return
            if self.process.poll() is not None:
                raise SystemExit(f"herald exited: {text}")
            time.sleep(0.1)
        raise SystemExit("herald did not start listening")

    def api(self, method, path, body=None):
        request = urllib.request.Request(self.base + path, method=method, data=None if body is None else json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)
        shutil.rmtree(self.folder, ignore_errors=True)


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


def shot(page, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def nav(page, name):
    """Follows a link of the console's navigation."""
    page.get_by_role("navigation", name="Console").get_by_role("link", name=name, exact=True).click()


def login(page, base, app, key):
    page.goto(base + "/console/login")
    page.get_by_label("App id").fill(app)
    page.get_by_label("Admin key").fill(key)
    page.get_by_role("button", name="Log in").click()


def seed(server):
    """Devices on both platforms in two channels, with launches, through the API as apps send them."""
    client = server.keys["client"]
    devices = [
        ("alice-iphone", "IOS", "a1b2c3d4e5f60718" * 4, ["news", "sports"], "2.4.0"),
        ("bob-pixel", "ANDROID", "fcm-token-of-bob:APA91b" + "x" * 20, ["news"], "2.3.1"),
        ("carol-ipad", "IOS", "b1b2c3d4e5f60718" * 4, ["sports"], "2.4.0"),
    ]
    for device_id, os_name, token, channels, version in devices:
        status, body = server.api(
            "POST", f"/demo/{client}/messaging/registrations",
            {"deviceToken": token, "deviceId": device_id, "os": os_name, "channels": channels})
        check(status == 200, f"registered {device_id}: {status} {body}")
        status, body = server.api(
            "POST", f"/demo/{client}/devices/{device_id}/launches",
            {"appVersion": version, "deviceName": device_id.replace("-", " ").title(), "locale": "en-GB"})
        check(status == 200 and body.get("allowed") is True, f"launched {device_id}: {body}")


def postgres_database():
    """A fresh database on the test PostgreSQL server (HERALD_TEST_POSTGRES_URL, as scripts/with-postgres.sh
    exports it), or None without one. Returns (url, drop)."""
    server = os.environ.get("HERALD_TEST_POSTGRES_URL")
    if not server:
        return None
    psql = shutil.which("psql") or next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))), None)
    if psql is None:
        raise SystemExit("FAILED: HERALD_TEST_POSTGRES_URL is set but there is no psql")
    name = f"herald_console_{os.getpid()}"
    subprocess.run([psql, server, "-q", "-c", f"CREATE DATABASE {name}"], check=True)
    base, _, query = server.partition("?")
    url = base.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else "")
    return url, lambda: subprocess.run([psql, server, "-q", "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)


def across_instances(browser):
    """Two servers on one PostgreSQL database, as behind a load balancer: a session opened through one
    works through the other, and logging out through the second ends it for the first."""
    database = postgres_database()
    if database is None:
        print("skipped: sessions across instances (no HERALD_TEST_POSTGRES_URL; scripts/with-postgres.sh sets it)")
        return
    url, drop = database
    config = {
        "database": {"url": url},
        "apps": [{"id": "shop", "keys": [{"key": "shop-admin-key-0123456789", "role": "admin"}]}],
    }
    first = Server(config)
    second = Server(config)
    try:
        context = browser.new_context()
        page = context.new_page()
        login(page, first.base, "shop", "shop-admin-key-0123456789")
        expect(page.get_by_role("heading", level=1)).to_have_text("Overview")
        # Both listen on 127.0.0.1, so the browser sends the one cookie to either (cookies ignore the port).
        page.goto(second.base + "/console/devices")
        expect(page.get_by_role("heading", level=1)).to_have_text("Devices")
        check(page.url.startswith(second.base), "on PostgreSQL, a session opened through one instance works through another")
        page.get_by_role("button", name="Log out").click()
        page.goto(first.base + "/console")
        check(page.url.endswith("/console/login"), "logged out through the second instance, the first refuses the session too")
        context.close()
    finally:
        first.stop()
        second.stop()
        drop()


def main():
    # Small fan-out pages, two open at a time: a fan-out to a few thousand devices through the mock APNs (slowed
    # down) takes some seconds, in many checkpoints, so its progress can be watched moving.
    demo = Server(environment={"HERALD_DISPATCHER_PAGE_SIZE": "20", "HERALD_DISPATCHER_MAX_OPEN_PAGES": "2"})
    two_apps = Server({
        "apps": [
            {"id": "shop", "keys": [{"key": "shop-admin-key-0123456789", "role": "admin"}, {"key": "shop-client-key-0123456789", "role": "client"}],
             # The TEST ONLY VAPID key of the fixtures, for the Web Push page.
             "webPush": {"privateKeyFile": os.path.abspath("fixtures/webpush/vapid-test.pem"), "subject": "mailto:t@example.com"}},
            {"id": "blog", "keys": [{"key": "blog-admin-key-0123456789", "role": "admin"}]},
        ],
    })
    try:
        seed(demo)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:
                run(browser, demo, two_apps)
                web_push(browser, two_apps)
                across_instances(browser)
            finally:
                browser.close()
    finally:
        demo.stop()
        two_apps.stop()
    print("all console browser checks passed")


def run(browser, demo, two_apps):
    base = demo.base
    admin = demo.keys["admin"]
    context = browser.new_context(viewport={"width": 1280, "height": 800}, timezone_id="Europe/Berlin")
    page = context.new_page()
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    # Every console message that names the Content-Security-Policy: a page or chart the policy refused a part of.
    violations = []
    def policy(message):
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            violations.append(message.text)
    context.on("console", policy)

    # A wrong key is refused with a clear message, and nothing else.
    login(page, base, "demo", "not-the-key")
    expect(page.locator("#login-error")).to_have_text("Wrong app id or admin key.")
    check(page.url.endswith("/console/login"), "a wrong key stays on the login page")
    login(page, base, "demo", demo.keys["client"])
    expect(page.locator("#login-error")).to_have_text("Wrong app id or admin key.")
    check(True, "a client key is refused like a wrong one")
    shot(page, "login")

    # Logging in with the keyboard alone.
    page.goto(base + "/console/login")
    page.get_by_label("App id").focus()
    page.keyboard.type("demo")
    page.keyboard.press("Tab")
    page.keyboard.type(admin)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("Overview")
    check(True, "logged in with the keyboard alone")
    cookies = context.cookies()
    session = [c for c in cookies if c["name"] == "herald_console"]
    flags = [(c["httpOnly"], c["sameSite"], c["path"]) for c in session]
    check(flags == [(True, "Strict", "/console")], f"session cookie HttpOnly, SameSite=Strict, Path=/console: {flags}")
    errors.clear()  # the refused logins' 401s are expected
    check(admin not in page.content(), "the admin key is not in the page")

    # Every page: one h1, the navigation named as it should be, no script errors.
    for name in NAVIGATION:
        nav(page, name)
        expect(page.get_by_role("heading", level=1)).to_have_text(name)
        check(page.locator("h1").count() == 1, f"{name}: one h1")
        expect(page.get_by_role("button", name="Log out")).to_be_visible()
    check(not errors, f"no script errors: {errors}")

    nav(page, "Overview")
    expect(page.locator(".card").first).to_be_visible()
    shot(page, "overview")

    # Channels: counts from the registrations made through the API.
    nav(page, "Channels")
    news = page.get_by_role("row").filter(has_text="news")
    expect(news.get_by_role("cell").nth(1)).to_have_text("2")
    sports = page.get_by_role("row").filter(has_text="sports")
    expect(sports.get_by_role("cell").nth(1)).to_have_text("2")
    check(True, "channels show their live registrations")
    shot(page, "channels")

    # Devices: all three, then filtered; times in the browser's zone with UTC on hover.
    nav(page, "Devices")
    for device in ["alice-iphone", "bob-pixel", "carol-ipad"]:
        expect(page.get_by_role("link", name=device)).to_be_visible()
    title = page.locator("time").first.get_attribute("title")
    check(title is not None and title.endswith("UTC"), f"UTC on hover: {title}")
    check(not page.locator("time").first.inner_text().endswith("UTC"), "shown in the browser's time zone")
    page.get_by_label("OS").select_option("ANDROID")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("link", name="bob-pixel")).to_be_visible()
    expect(page.get_by_role("link", name="alice-iphone")).to_have_count(0)
    check(True, "the OS filter narrows the list")
    page.get_by_label("OS").select_option("")
    page.get_by_label("Search").fill("Carol")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("link", name="carol-ipad")).to_be_visible()
    expect(page.get_by_role("link", name="bob-pixel")).to_have_count(0)
    check(True, "search finds a device by its name")
    page.get_by_label("Search").fill("")
    page.get_by_role("button", name="Filter").click()
    shot(page, "devices")

    # A device's page, with the Live Activity tokens its app registered through the API; then switching
    # it off: its next launch is refused.
    client = demo.keys["client"]
    start_token, activity_token = "5a" + "0" * 61 + "1", "ac" + "1" * 61 + "2"
    status, body = demo.api(
        "PUT", f"/demo/{client}/devices/alice-iphone/activity-start-tokens/MatchAttributes", {"token": start_token})
    check(status == 200, f"a push-to-start token for alice-iphone: {status} {body}")
    status, body = demo.api(
        "PUT", f"/demo/{client}/devices/alice-iphone/live-activities/match-42",
        {"attributesType": "MatchAttributes", "token": activity_token})
    check(status == 200, f"an activity of alice-iphone: {status} {body}")
    page.get_by_role("link", name="alice-iphone").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Device alice-iphone")
    expect(page.locator("dl.facts")).to_contain_text("2.4.0")
    check("a1b2c3d4e5f60718" * 4 not in page.content(), "the whole device token is not shown")
    expect(page.get_by_role("heading", level=2, name="Live Activities")).to_be_visible()
    starts = page.locator("table", has=page.locator("caption", has_text="Push-to-start tokens"))
    expect(starts.locator("tbody tr")).to_have_count(1)
    expect(starts.locator("tbody tr")).to_contain_text("MatchAttributes")
    expect(starts.locator("tbody tr code")).to_have_text(start_token[:8] + "\u2026")
    activities = page.locator("table", has=page.locator("caption", has_text="Activities, newest start first"))
    expect(activities.locator("tbody tr")).to_have_count(1)
    match = activities.locator("tbody tr")
    for text in ["match-42", "MatchAttributes", activity_token[:8] + "\u2026", "running"]:
        expect(match).to_contain_text(text)
    check(start_token not in page.content() and activity_token not in page.content(), "its Live Activities listed, tokens cut short")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_label("Reason").fill("lost phone")
    page.get_by_role("button", name="Deactivate").click()
    expect(page.get_by_role("button", name="Activate")).to_be_visible()
    status, body = demo.api("POST", f"/demo/{demo.keys['client']}/devices/alice-iphone/launches", {"appVersion": "2.4.0"})
    check(status == 200 and body.get("allowed") is False and body.get("reason") == "lost phone", f"its launch is refused: {body}")
    page.get_by_role("button", name="Activate").click()
    expect(page.get_by_role("button", name="Deactivate")).to_be_visible()
    status, body = demo.api("POST", f"/demo/{demo.keys['client']}/devices/alice-iphone/launches", {"appVersion": "2.4.0"})
    check(body.get("allowed") is True, "activated again, it launches")

    # A push to a channel, followed on its page until it is published, with the counts the mocks received.
    server_key = demo.keys["server"]
    # It is due a few seconds from now, so its page is open before it is sent and must follow it live.
    status, body = demo.api(
        "POST", f"/demo/{server_key}/messaging/news",
        {"message": "Hello from the console test", "headers": {"ios-alert-title": "News"}, "publishAt": int(time.time() * 1000) + 4000})
    check(status == 200, f"published to news: {body}")
    message_id = body["messageId"]
    nav(page, "Messages")
    page.get_by_role("row").filter(has_text="news").first.get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Message to news")
    check(page.locator('[data-field="state"]').inner_text() == "scheduled", "its page opens while it waits")
    expect(page.locator('[data-field="state"]')).to_have_text("published", timeout=20000)
    check(True, "the page followed it to published by itself")
    expect(page.locator('[data-field="sent"]')).to_have_text("2")
    expect(page.locator('[data-field="apns-sent"]')).to_have_text("1")
    expect(page.locator('[data-field="fcm-sent"]')).to_have_text("1")
    apns = json.load(urllib.request.urlopen(demo.mocks["APNs"], timeout=10))
    fcm = json.load(urllib.request.urlopen(demo.mocks["FCM"], timeout=10))
    check(sum("Hello from the console test" in item["payload"] for item in apns) == 1, "the mock APNs received it once")
    check(sum(item["message"].get("notification", {}).get("body") == "Hello from the console test" for item in fcm) == 1,
          "the mock FCM received it once")
    check(message_id in page.content(), "the page names the message")

    # The Send page: the recipients counted before sending, the preview following the fields, then a push to
    # a channel sent from the console and followed to "published" with the counts the mocks received.
    nav(page, "Send")
    page.get_by_label("Message").fill("Sent from the composer")
    page.get_by_label("Title", exact=True).fill("Composer")
    expect(page.locator('.ios [data-preview="ios-title"]')).to_have_text("Composer")
    expect(page.locator('.android [data-preview="message"]')).to_have_text("Sent from the composer")
    check(True, "the iOS and Android previews follow the fields as they are typed")
    page.get_by_label("Channels", exact=True).fill("news")
    page.get_by_role("button", name="Count recipients").click()
    expect(page.locator("#recipients")).to_contain_text("2 devices (iOS 1, Android 1), counted exactly")
    check(page.get_by_label("Message").input_value() == "Sent from the composer", "the form keeps its values after counting")
    page.get_by_label("Channels", exact=True).fill("news, sports")
    page.get_by_label("iOS", exact=True).check()
    page.get_by_role("button", name="Count recipients").click()
    expect(page.locator("#recipients")).to_contain_text("2 devices (iOS 2), counted exactly")
    check(True, "two channels count each device once, and the platform filter narrows them")
    shot(page, "send")
    page.get_by_label("iOS", exact=True).uncheck()
    page.get_by_label("Badge (iOS)").fill("-2")
    page.get_by_role("button", name="Send", exact=True).click()
    check(page.locator("#f-badge").evaluate("element => !element.validity.valid"), "the browser holds back a negative badge itself")
    page.get_by_label("Badge (iOS)").fill("")
    page.get_by_label("Channels", exact=True).fill("news/today")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.locator("#send-error")).to_contain_text("Channel name is invalid")
    check(page.get_by_label("Message").input_value() == "Sent from the composer", "a refusal comes back as the API's message on the same form")
    page.get_by_label("Channels", exact=True).fill("news")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Message to news")
    expect(page.locator('[data-field="state"]')).to_have_text("published", timeout=20000)
    expect(page.locator('[data-field="apns-sent"]')).to_have_text("1")
    expect(page.locator('[data-field="fcm-sent"]')).to_have_text("1")
    apns = json.load(urllib.request.urlopen(demo.mocks["APNs"], timeout=10))
    fcm = json.load(urllib.request.urlopen(demo.mocks["FCM"], timeout=10))
    check(sum("Sent from the composer" in item["payload"] and "Composer" in item["payload"] for item in apns) == 1,
          "the composer's push reached the mock APNs once, with its title")
    check(sum(item["message"].get("notification", {}).get("title") == "Composer" for item in fcm) == 1,
          "and the mock FCM once")

    # Live Activities: a broadcast channel made from the console at the mock APNs's channel management host
    # and bound to sports; then an update composed on Send (a broken content state refused beside its field
    # first) goes to it as one broadcast request, and the page lists it.
    control = demo.mocks["APNs"].rsplit("/control/", 1)[0]
    nav(page, "Live Activities")
    expect(page.get_by_text("No broadcast channels yet")).to_be_visible()
    page.get_by_label("Storage policy").select_option("0")
    page.get_by_label("Herald channel to bind (optional)").fill("sports")
    page.get_by_role("button", name="Create channel").click()
    expect(page.locator("#la-done")).to_have_text("Channel created at Apple.")
    channels = json.load(urllib.request.urlopen(control + "/control/channels", timeout=10))
    check(len(channels) == 1 and channels[0]["storagePolicy"] == 0, f"the mock's management host made the channel: {channels}")
    channel_id = channels[0]["channelID"]
    row = page.get_by_role("row").filter(has=page.get_by_role("link", name="sports", exact=True))
    expect(row.locator("code")).to_have_attribute("title", channel_id)
    check(channel_id not in row.locator("code").inner_text() or len(channel_id) <= 14, "the id shown cut short, whole on hover")
    nav(page, "Send")
    page.get_by_role("link", name="Live Activity", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Send")
    page.get_by_role("radio", name="Update").check()
    page.get_by_label("Attributes type").fill("MatchAttributes")
    page.get_by_label("Content state (JSON)").fill('{"home": 1, "away": 0')
    page.get_by_label("Channel", exact=True).fill("sports")
    page.get_by_role("button", name="Send Live Activity event").click()
    expect(page.locator("#contentState-error")).to_contain_text("8008")
    expect(page.locator("#contentState-error")).to_contain_text("not JSON at line 1")
    check(page.get_by_label("Attributes type").input_value() == "MatchAttributes", "a broken content state is refused beside its field, the form kept")
    shot(page, "send-live-activity")
    page.get_by_label("Content state (JSON)").fill('{"home": 1, "away": 0}')
    page.get_by_role("button", name="Send Live Activity event").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Message to sports")
    expect(page.locator('[data-field="state"]')).to_have_text("published", timeout=20000)
    expect(page.locator('[data-field="sent"]')).to_have_text("1")
    broadcasts = json.load(urllib.request.urlopen(control + "/control/broadcasts", timeout=10))
    check(len(broadcasts) == 1 and broadcasts[0]["channelID"] == channel_id and '"home":1' in broadcasts[0]["payload"],
          f"the composed update reached the mock as one broadcast to the channel: {broadcasts}")
    nav(page, "Live Activities")
    recent = page.locator("table", has=page.locator("caption", has_text="Live Activity publishes"))
    expect(recent.locator("tbody tr")).to_have_count(1)
    for text in ["update", "MatchAttributes", "channel sports", "broadcast", "published"]:
        expect(recent.locator("tbody tr")).to_contain_text(text)
    check(True, "the page lists the publish, sent as a broadcast")
    shot(page, "live-activities")

    # Templates: one made in the console, previewed, then sent with a value to its channel.
    nav(page, "Templates")
    expect(page.get_by_text("No templates yet")).to_be_visible()
    page.get_by_label("Name").fill("welcome")
    page.get_by_label("Message").fill("Welcome back, {name}")
    page.locator("#f-ios-alertTitle").fill("Hello again")
    page.locator("#f-android-contentTitle").fill("Hello from Android")
    expect(page.locator('.ios [data-preview="ios-title"]')).to_have_text("Hello again")
    expect(page.locator('.android [data-preview="android-title"]')).to_have_text("Hello from Android")
    page.get_by_label("Channels").fill("sports")
    page.get_by_role("button", name="Create template").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Template welcome")
    expect(page.get_by_role("status")).to_have_text("Saved.")
    check(page.get_by_label("Values").input_value().strip() == "name:", "the send form offers the template's placeholder")
    status, body = demo.api("GET", f"/demo/{admin}/admin/pushtemplates/welcome")
    check(status == 200 and body.get("ios", {}).get("alertTitle") == "Hello again", f"the API reads the template made in the console: {body}")
    shot(page, "template")
    page.get_by_label("Values").fill("name: Carol")
    page.get_by_role("button", name="Send to channel sports").click()
    expect(page.locator('[data-field="state"]')).to_have_text("published", timeout=20000)
    expect(page.locator('[data-field="apns-sent"]')).to_have_text("2")
    apns = json.load(urllib.request.urlopen(demo.mocks["APNs"], timeout=10))
    check(sum("Welcome back, Carol" in item["payload"] for item in apns) == 2, "the template push reached both sports devices, filled")
    nav(page, "Templates")
    expect(page.get_by_role("link", name="welcome")).to_be_visible()
    shot(page, "templates")

    # A scheduled message is cancelled from its page.
    later = int(time.time() * 1000) + 3_600_000
    status, body = demo.api("POST", f"/demo/{server_key}/messaging/sports", {"message": "Later", "publishAt": later})
    check(status == 200, f"scheduled a message: {body}")
    nav(page, "Messages")
    page.get_by_label("Status").select_option("scheduled")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("row").filter(has_text="sports")).to_have_count(1)
    expect(page.get_by_role("row").filter(has_text="news")).to_have_count(0)
    shot(page, "messages")
    page.get_by_role("row").filter(has_text="sports").get_by_role("link").click()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Cancel message").click()
    expect(page.locator('[data-field="state"]')).to_have_text("cancelled")
    status, body = demo.api("GET", f"/demo/{server_key}/messaging/{body['messageId']}")
    check(body.get("status") == "cancelled", f"cancelled through the console: {body}")

    # A test push to one device from its page reaches that device only.
    nav(page, "Devices")
    page.get_by_role("link", name="bob-pixel").click()
    expect(page.get_by_text("Live Activities are iOS only")).to_be_visible()
    check(True, "an Android device's page says Live Activities are iOS only")
    page.get_by_label("Title").fill("Just you")
    page.get_by_label("Message").fill("A test push for Bob")
    page.get_by_role("button", name="Send to this device").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Message to default")
    expect(page.locator('[data-field="state"]')).to_have_text("published", timeout=20000)
    expect(page.locator('[data-field="sent"]')).to_have_text("1")
    expect(page.locator('[data-field="fcm-sent"]')).to_have_text("1")
    fcm = json.load(urllib.request.urlopen(demo.mocks["FCM"], timeout=10))
    bob = [item for item in fcm if item["message"].get("notification", {}).get("body") == "A test push for Bob"]
    check(len(bob) == 1 and bob[0]["message"]["token"].startswith("fcm-token-of-bob"), f"the test push reached bob-pixel only ({len(bob)} received)")
    check(bob[0]["message"]["notification"].get("title") == "Just you", "with its title")
    apns = json.load(urllib.request.urlopen(demo.mocks["APNs"], timeout=10))
    check(not any("A test push for Bob" in item["payload"] for item in apns), "no Apple device got it")

    # Operations: a sweep runs and says what it did.
    nav(page, "Operations")
    page.get_by_role("button", name="Sweep now").click()
    expect(page.get_by_role("status")).to_contain_text("Swept:")
    check(True, "a sweep runs from the console")
    expect(page.get_by_text("Configuration in force")).to_be_visible()
    check(admin not in page.content() and demo.keys["server"] not in page.content(), "the configuration shows no key")
    shot(page, "operations")

    # The Overview counts the day's messages by outcome: those published and the one cancelled above.
    nav(page, "Overview")
    expect(page.locator('[data-status="published"]')).to_have_text("5")
    expect(page.locator('[data-status="cancelled"]')).to_have_text("1")
    check(True, "the overview counts the last day's messages by outcome")
    ios = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="iOS", exact=True))
    expect(ios.get_by_role("cell").first).to_have_text("2")
    check(True, "the overview counts devices by platform")
    apns_health = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="APNs", exact=True))
    expect(apns_health).to_contain_text("open")
    check(True, "the overview shows the APNs connection on this instance")

    progress_and_charts(page, demo, violations)
    shot(page, "overview")

    # A cross-site POST with the session's cookie is refused.
    forged = context.request.post(
        base + "/console/operations/sweep", form={"csrf": "x"},
        headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, max_redirects=0)
    check(forged.status == 403, f"a cross-site POST is refused: {forged.status}")

    # At 375 px wide nothing is cut off sideways.
    phone = browser.new_context(viewport={"width": 375, "height": 740})
    phone.add_cookies([c for c in context.cookies() if c["name"] == "herald_console"])
    small = phone.new_page()
    for path, name in [("/console", "overview"), ("/console?range=7d", "overview-7d"), (f"/console/messages/{demo.bulk}", "message"),
                       ("/console/devices", "devices"), ("/console/devices/alice-iphone", "device"),
                       ("/console/send", "send"), ("/console/send?kind=live-activity", "send-live-activity"),
                       ("/console/templates/welcome", "template"), ("/console/live-activities", "live-activities"),
                       ("/console/operations", "operations")]:
        small.goto(base + path)
        width = small.evaluate("document.documentElement.scrollWidth")
        check(width <= 375, f"{path} fits 375 px (scroll width {width})")
        if name in ("overview", "devices", "device", "send", "live-activities", "send-live-activity"):
            shot(small, f"{name}-375")
    phone.close()
    check(not violations, f"no Content-Security-Policy violations on any page: {violations}")

    # Log out: the session is gone, in this browser and for its old cookie.
    old = context.cookies()
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Herald console")
    page.goto(base + "/console/devices")
    check(page.url.endswith("/console/login"), "after logging out a page goes to the login page")
    replay = browser.new_context()
    replay.add_cookies([c for c in old if c["name"] == "herald_console"])
    replayed = replay.new_page()
    replayed.goto(base + "/console/devices")
    check(replayed.url.endswith("/console/login"), "the old session cookie opens nothing")
    replay.close()
    context.close()

    # One app's admin sees nothing of another's.
    status, _ = two_apps.api(
        "POST", "/shop/shop-client-key-0123456789/messaging/registrations",
        {"deviceToken": "c1b2c3d4e5f60718" * 4, "deviceId": "shop-only-phone", "channels": ["shop-news"]})
    check(status == 200, "a device of app shop")
    blog = browser.new_context()
    other = blog.new_page()
    login(other, two_apps.base, "blog", "blog-admin-key-0123456789")
    expect(other.get_by_role("heading", level=1)).to_have_text("Overview")
    nav(other, "Devices")
    expect(other.get_by_text("shop-only-phone")).to_have_count(0)
    nav(other, "Channels")
    expect(other.get_by_text("shop-news")).to_have_count(0)
    answer = other.goto(two_apps.base + "/console/devices/shop-only-phone")
    check(answer.status == 404, f"app blog's admin gets 404 for app shop's device: {answer.status}")
    blog.close()


def bulk_token(index):
    return "d0" + format(index, "062x")


def register_many(server, indexes, channel):
    """iOS devices `bulk-INDEX` in `channel`, registered through the API 16 at a time."""
    from concurrent.futures import ThreadPoolExecutor
    client = server.keys["client"]

    def one(index):
        return server.api("POST", f"/demo/{client}/messaging/registrations",
                          {"deviceToken": bulk_token(index), "deviceId": f"bulk-{index}", "os": "IOS", "channels": [channel]})[0]

    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(one, indexes))
    check(statuses.count(200) == len(indexes), f"registered {len(indexes):,} devices in {channel}: {sorted(set(statuses))}")


def chart_bars(page, provider):
    """The bars of a service's chart on the Overview, as drawn: series, bucket, value and height on screen."""
    return page.evaluate(
        """(provider) => Array.from(document.querySelectorAll(`figure.chart[data-provider="${provider}"] rect.bar`)).map((bar) => ({
            series: bar.dataset.series, bucket: Number(bar.dataset.bucket), value: Number(bar.dataset.value),
            height: bar.getBoundingClientRect().height, width: bar.getBoundingClientRect().width }))""", provider)


def axis_value(label):
    """A tick's label as a number: 900, 1.5k, 2.5M."""
    factor = {"k": 1000, "M": 1000000}.get(label[-1:], 1)
    return float(label[:-1] if factor > 1 else label) * factor


def check_scale(page, provider):
    """The Sent panel's bars stand as high against its own y axis as their counts say."""
    drawn = page.evaluate(
        """(provider) => {
            const svg = document.querySelector(`figure.chart[data-provider="${provider}"] svg`);
            const ticks = Array.from(svg.querySelectorAll("text.tick")).map((t) => ({ label: t.textContent, y: Number(t.getAttribute("y")) - 4 }));
            const bars = Array.from(svg.querySelectorAll('rect.bar[data-series="sent"]')).map((b) => ({
                value: Number(b.dataset.value), height: Number(b.getAttribute("height")), bottom: Number(b.getAttribute("y")) + Number(b.getAttribute("height")) }));
            return { ticks, bars };
        }""", provider)
    ticks = drawn["ticks"]
    panel = ticks[:next((i for i, t in enumerate(ticks) if i > 0 and t["label"] == "0"), len(ticks))]
    zero, top = panel[0], panel[-1]
    check(all(abs(bar["bottom"] - zero["y"]) < 0.02 for bar in drawn["bars"]), f"{provider}: the sent bars stand on the axis's 0")
    for bar in drawn["bars"]:
        expected = bar["value"] / axis_value(top["label"]) * (zero["y"] - top["y"])
        check(abs(bar["height"] - max(1, expected)) < 0.02,
              f"{provider}: {bar['value']} is {bar['height']} high on an axis up to {top['label']} (expected {expected:.2f})")


def progress_and_charts(page, demo, violations):
    """A fan-out big enough to last some seconds: its page's progress bar moves and ends full, the Overview's
    running list follows it too; then the Overview's charts hold the sends the mocks received."""
    control = demo.mocks["APNs"].rsplit("/control/", 1)[0]
    # The last 25 registered (so the last reached) fail: 10 tokens gone (removed), 5 refused (deactivated), 5
    # payloads refused, 5 failing on every attempt; the chart must show them by reason.
    register_many(demo, range(1975), "bulk")
    register_many(demo, range(1975, 2000), "bulk")
    failures = {"invalid-token": 15, "other": 5, "service": 5, "tokens-removed": 10}
    now = int(time.time() * 1000)
    for index in range(1975, 2000):
        script = ({"status": 410, "reason": "Unregistered", "timestamp": now} if index < 1985 else
                  {"status": 400, "reason": "BadDeviceToken"} if index < 1990 else
                  {"status": 413, "reason": "PayloadTooLarge"} if index < 1995 else {"status": 500, "reason": "InternalServerError"})
        request = urllib.request.Request(control + "/control/script", data=json.dumps({"token": bulk_token(index), **script}).encode(), method="POST")
        urllib.request.urlopen(request, timeout=10)
    accepted_before = json.load(urllib.request.urlopen(control + "/control/stats", timeout=10))["accepted"]
    faults = urllib.request.Request(control + "/control/faults", data=json.dumps({"latencyMilliseconds": 100}).encode(), method="POST")
    urllib.request.urlopen(faults, timeout=10)
    status, body = demo.api(
        "POST", f"/demo/{demo.keys['server']}/messaging/bulk", {"message": "To many", "publishAt": int(time.time() * 1000) + 3000})
    check(status == 200, f"published to 2,000 devices: {body}")
    demo.bulk = body["messageId"]
    watcher = page.context.new_page()
    watcher.goto(demo.base + f"/console/messages/{demo.bulk}")
    expect(watcher.get_by_role("heading", level=1)).to_have_text("Message to bulk")
    bar = watcher.locator("progress[data-bar]")
    nav(page, "Overview")
    seen, texts, rows, shot_taken = [], set(), [], False
    deadline = time.time() + 60
    while time.time() < deadline:
        state = watcher.locator('[data-field="state"]').text_content()
        if state == "published":
            break
        value, maximum = float(bar.get_attribute("value") or 0), float(bar.get_attribute("max") or 1)
        seen.append((value, maximum))
        texts.add(watcher.locator('[data-field="progress-text"]').text_content())
        row = page.locator("#running tr[data-message] progress[data-bar]")
        if row.count() == 1:
            rows.append(float(row.get_attribute("value") or 0))
        if not shot_taken and 0.3 < value / maximum < 0.8:
            shot(watcher, "message-progress")
            shot_taken = True
        time.sleep(0.2)
    moving = sorted({value for value, _ in seen if 0 < value < 2000})
    check(len(moving) >= 3, f"the message's progress bar moved through several values: {moving[:10]}…")
    check(all(maximum == 2000 for value, maximum in seen if value > 0), f"out of the 2,000 targeted: {set(m for _, m in seen)}")
    check(all(value <= maximum for value, maximum in seen), "never past 100 %")
    check(any(re.search(r"of 2,000 · [0-9,.]+/s · [0-9]+ (s|min) left", text or "") for text in texts),
          f"with the rate and the time left: {sorted(t for t in texts if t)[:4]}")
    check(len(set(rows)) >= 2, f"the Overview's running list followed it too: {sorted(set(rows))[:8]}")
    # Finished, the page shows itself again: the bar full, the final counts and the sends per second.
    expect(watcher.locator('[data-field="progress-text"]')).to_have_text("2,000 of 2,000 · done", timeout=20000)
    check(watcher.locator("progress[data-bar]").get_attribute("value") == watcher.locator("progress[data-bar]").get_attribute("max") == "2000",
          "it ends at 100 %")
    expect(watcher.locator("#sends-per-second svg.sparkline")).to_be_visible()
    check(re.search(r"2,000 sends in [0-9]+ s: peak [0-9,]+/s", watcher.locator("#sends-per-second figcaption").inner_text()) is not None,
          "its sparkline of sends per second, summed up in words")
    shot(watcher, "message")
    watcher.close()
    urllib.request.urlopen(urllib.request.Request(control + "/control/faults", data=b"{}", method="POST"), timeout=10)
    apns_accepted_bulk = json.load(urllib.request.urlopen(control + "/control/stats", timeout=10))["accepted"] - accepted_before
    expect(page.locator("#running")).to_contain_text("Nothing is being sent right now.", timeout=10000)

    # The Overview's charts against what the mocks received in this run (all of it within the last hour).
    page.reload()
    # What Herald's messages say they sent (message_counts, apart from the statistics), by platform.
    listing = demo.api("GET", f"/demo/{demo.keys['server']}/messaging/messages")[1]["messages"]
    apns_sent = sum(message["deliveries"]["byPlatform"]["ios"]["sent"] for message in listing)
    fcm_sent = sum(message["deliveries"]["byPlatform"]["android"]["sent"] for message in listing)
    check(apns_accepted_bulk == 1975, f"the mock APNs accepted 1,975 of the big fan-out ({apns_accepted_bulk})")
    for provider, expected in [("apns", apns_sent), ("fcm", fcm_sent)]:
        bars = chart_bars(page, provider)
        sent = [bar for bar in bars if bar["series"] == "sent"]
        drawn = sum(bar["value"] for bar in sent)
        check(drawn == expected, f"{provider}: the sent bars add up to the {expected} the messages sent ({drawn}: {sent})")
        check(all(bar["height"] > 0 and bar["width"] > 0 for bar in bars), f"{provider}: every bar is drawn")
        drawn_failures = {}
        for bar in bars:
            if bar["series"] != "sent":
                drawn_failures[bar["series"]] = drawn_failures.get(bar["series"], 0) + bar["value"]
        check(drawn_failures == (failures if provider == "apns" else {}), f"{provider}: the failures by reason ({drawn_failures})")
        tallest = max(sent, key=lambda bar: bar["height"])
        check(tallest["value"] == max(bar["value"] for bar in sent), f"{provider}: the tallest bar is the busiest minute")
        check_scale(page, provider)
        total = page.locator(f'table.stats[data-provider="{provider}"] tfoot td[data-column="sent"]').text_content()
        check(total == f"{expected:,}", f"{provider}: the table's total is the same ({total})")
        for column, series in [("invalid_token", "invalid-token"), ("other", "other"), ("service", "service"), ("tokens-removed", "tokens-removed")]:
            cell = page.locator(f'table.stats[data-provider="{provider}"] tfoot td[data-column="{column}"]').text_content()
            check(cell == f"{drawn_failures.get(series, 0):,}", f"{provider}: and its {column} ({cell})")
    expect(page.locator('figure.chart[data-provider="apns"] svg[role="img"]')).to_be_visible()
    check("Nothing was sent" not in page.content(), "the charts replace the empty state")
    page.get_by_role("link", name="Last 7 days").click()
    expect(page.locator('.kinds a[aria-current="page"]')).to_have_text("Last 7 days")
    week = chart_bars(page, "apns")
    check(sum(bar["value"] for bar in week if bar["series"] == "sent") == apns_sent, "the 7-day chart holds the same sends, by hour")
    page.get_by_role("link", name="Last hour").click()

    # A device's page draws its deliveries and launches on a timeline above the tables.
    nav(page, "Devices")
    page.get_by_role("link", name="alice-iphone").click()
    timeline = page.locator('figure.timeline svg[role="img"]')
    expect(timeline).to_be_visible()
    sent = page.locator('figure.timeline [data-lane="sent"]').count()
    launches = page.locator('figure.timeline [data-lane="launch"]').count()
    rows = page.locator("table", has=page.locator("caption", has_text="The 20 newest deliveries")).locator("tbody tr")
    check(sent >= 2 and sent == rows.filter(has_text="sent").count(), f"the timeline's sent marks match the table ({sent})")
    check(launches == page.locator("table", has=page.locator("caption", has_text="The 20 newest launches")).locator("tbody tr").count(),
          f"and its launches ({launches})")
    shot(page, "device")
    nav(page, "Overview")
    check(not violations, f"no Content-Security-Policy violations: {violations}")


def web_push(browser, server):
    """The Web Push page: the app's VAPID public key, the service worker installed over http://127.0.0.1 (a
    secure context), and Subscribe ending in a clear line (this headless Chromium has no push service, so
    it says why it cannot subscribe); an app without a webPush block gets the page that says how to add one."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, permissions=["notifications"])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login(page, server.base, "shop", "shop-admin-key-0123456789")
    nav(page, "Devices")
    page.get_by_role("link", name="Web Push", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Web Push")
    expect(page.locator("#webpush-key")).to_have_text(
        "BO0XScBpV5VYGCxt0Z1alo3aX4XTiYm4fbrT3trItMipDc3gqIdsJvgroz5lIhuIFxiefqg5qFbR1qPylPXnrfI")
    check(True, "the Web Push page shows the app's VAPID public key")
    check(page.evaluate("navigator.serviceWorker.ready.then(() => true)") is True, "its service worker is installed")
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    check(scope == server.base + "/console/", f"for the console's scope: {scope}")
    device = page.get_by_label("Device id").input_value()
    check(re.fullmatch(r"console-[0-9a-f]{8}", device) is not None, f"a device id made in the browser: {device}")
    check(page.get_by_label("Channel").input_value() == "console-test", "the channel defaults to console-test")
    page.get_by_role("button", name="Subscribe this browser").click()
    status = page.get_by_role("status")
    expect(status).to_have_text(re.compile(r"cannot subscribe|Subscribed|blocked"), timeout=20000)
    text = status.inner_text()
    check(text != "" and "Subscribing" not in text, f"Subscribe ends in a clear line: {text}")
    if text.startswith("Subscribed"):
        expect(page.get_by_role("link", name="to the channel")).to_be_visible()
    shot(page, "webpush")
    page.reload()
    check(page.get_by_label("Device id").input_value() == device, "the device id is kept in this browser")
    page.set_viewport_size({"width": 375, "height": 740})
    width = page.evaluate("document.documentElement.scrollWidth")
    check(width <= 375, f"/console/webpush fits 375 px (scroll width {width})")
    check(not errors, f"no script errors: {errors}")
    context.close()

    blog = browser.new_context()
    other = blog.new_page()
    login(other, server.base, "blog", "blog-admin-key-0123456789")
    other.goto(server.base + "/console/webpush")
    expect(other.get_by_role("heading", level=1)).to_have_text("Web Push")
    expect(other.get_by_text("herald keys --vapid")).to_be_visible()
    expect(other.get_by_role("button", name="Subscribe this browser")).to_have_count(0)
    check(True, "an app without a webPush block is told how to add one")
    blog.close()


if __name__ == "__main__":
    main()
