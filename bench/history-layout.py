#!/usr/bin/env python3
"""What SQLite itself spends to record a fan-out's delivery history, in Herald's layout and two others.

Herald's SQLite checkpoint inserts a page's history rows (500 devices) into `deliveries`. Since migration
0023 its index is `deliveries_by_device_key (app_id, device_key, id)` ("by-key"): a page is consecutive
device keys, so its rows land side by side. Before, it was `deliveries_by_device (app_id, device_id, id)`
("by-id"): with apps' device ids (UUIDs, scattered against the fan-out's key order) each row landed on its
own leaf page, so a checkpoint of 500 rows rewrote about 500 index pages (into the WAL, then into the file
at the WAL checkpoint).

The staged layout is a design the team has not built (BENCHMARKS.md section 29): the checkpoint writes the
page as one row of a staging table (its device ids as a JSON array, as Herald already binds them), and a
merge moves the staged rows into `deliveries` in device id order, many pages at a time, so each index page
is rewritten once per merge instead of once per row.

The table and indexes are Herald's (migrations 0008 and 0023), WAL with synchronous=NORMAL as Herald opens a file.
Python's sqlite3 links the system's SQLite, not the one Herald builds in, so the figures are SQLite's work
and not Herald's, and they are CPU time of this process (user + system) per history row.

    python3 bench/history-layout.py                       # 100,000 devices, depth 0 and 30, every layout
    python3 bench/history-layout.py --depths 0 --ids sequential
"""

import argparse
import json
import os
import sqlite3
import tempfile
import time

SCHEMA = [
    """CREATE TABLE deliveries (id INTEGER PRIMARY KEY, app_id TEXT NOT NULL, device_id TEXT NOT NULL,
       message_id TEXT NOT NULL, delivered_at BIGINT NOT NULL, outcome TEXT NOT NULL, reason TEXT, device_key BIGINT)""",
    "CREATE INDEX deliveries_by_time ON deliveries (delivered_at)",
    "CREATE TABLE staged (id INTEGER PRIMARY KEY, app_id TEXT, message_id TEXT, delivered_at BIGINT, sent TEXT)",
]
DEVICE_INDEX = {
    "by-key": "CREATE INDEX deliveries_by_device_key ON deliveries (app_id, device_key, id)",
    "by-id": "CREATE INDEX deliveries_by_device ON deliveries (app_id, device_id, id)",
    "staged": "CREATE INDEX deliveries_by_device ON deliveries (app_id, device_id, id)",
}
# Herald's since 0023: the page as an object from key to device id, in key order.
INSERT_PAGE_BY_KEY = """INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome, reason)
                        SELECT ?, CAST(key AS INTEGER), value, ?, ?, 'sent', NULL FROM json_each(?)"""
INSERT_PAGE = """INSERT INTO deliveries (app_id, device_id, message_id, delivered_at, outcome, reason)
                 SELECT ?, value, ?, ?, 'sent', NULL FROM json_each(?)"""
STAGE_PAGE = "INSERT INTO staged (app_id, message_id, delivered_at, sent) VALUES (?, ?, ?, ?)"
MERGE = """INSERT INTO deliveries (app_id, device_id, message_id, delivered_at, outcome, reason)
           SELECT s.app_id, j.value, s.message_id, s.delivered_at, 'sent', NULL
           FROM staged s, json_each(s.sent) j ORDER BY s.app_id, j.value, s.id"""


def device_ids(count, order):
    if order == "sequential":
        return ["dev-%09d" % n for n in range(count)]
    # UUID-like and scattered against the key order, as herald-bench populate --device-ids scattered.
    return ["%08x-%04x-4abc-9def-%012x" % ((n * 654435761) % 1000000000, n % 65536, n * 7919) for n in range(count)]


def measure(layout, ids, depth, fanouts, page, merge_rows, directory):
    path = os.path.join(directory, "history-%s-%d.sqlite" % (layout, depth))
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    for statement in SCHEMA + [DEVICE_INDEX[layout]]:
        db.execute(statement)
    if depth:
        # Earlier fan-outs' history, written fan-out by fan-out as the index would have grown.
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome, reason) "
            "VALUES ('bench', ?, ?, ?, ?, 'sent', NULL)",
            ((key, device, "old-%d" % k, k) for k in range(depth) for key, device in enumerate(ids)))
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def merge():
        db.execute("BEGIN IMMEDIATE")
        db.execute(MERGE)
        db.execute("DELETE FROM staged")
        db.execute("COMMIT")

    figures = []
    for fanout in range(fanouts):
        message = "message-%d" % fanout
        staged = 0
        cpu, wall = time.process_time(), time.perf_counter()
        for start in range(0, len(ids), page):
            db.execute("BEGIN IMMEDIATE")
            if layout == "by-key":
                records = json.dumps({str(key): ids[key] for key in range(start, min(start + page, len(ids)))})
                db.execute(INSERT_PAGE_BY_KEY, ("bench", message, depth + fanout, records))
            elif layout == "by-id":
                records = json.dumps(sorted(ids[start:start + page]))
                db.execute(INSERT_PAGE, ("bench", message, depth + fanout, records))
            else:
                records = json.dumps(sorted(ids[start:start + page]))
                db.execute(STAGE_PAGE, ("bench", message, depth + fanout, records))
                staged += page
            db.execute("COMMIT")
            if layout == "staged" and staged >= merge_rows:
                merge()
                staged = 0
        if staged:
            merge()
        figures.append(((time.process_time() - cpu) / len(ids) * 1e6, (time.perf_counter() - wall) / len(ids) * 1e6))
    db.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=100000)
    parser.add_argument("--depths", default="0,30", help="history rows per device before the timed fan-outs")
    parser.add_argument("--ids", choices=["scattered", "sequential"], default="scattered")
    parser.add_argument("--fanouts", type=int, default=3, help="timed fan-outs per layout and depth")
    parser.add_argument("--page", type=int, default=500, help="rows per checkpoint (Herald's page)")
    parser.add_argument("--merge-rows", type=int, default=100000, help="staged rows that start a merge")
    parser.add_argument("--layouts", default="by-key,by-id,staged", help="by-key (Herald's), by-id (before 0023), staged")
    args = parser.parse_args()
    ids = device_ids(args.devices, args.ids)
    print("SQLite %s; %d devices, %s ids, checkpoints of %d, merges of %d staged rows"
          % (sqlite3.sqlite_version, args.devices, args.ids, args.page, args.merge_rows))
    with tempfile.TemporaryDirectory(prefix="herald-history-") as directory:
        for depth in (int(d) for d in args.depths.split(",")):
            for layout in args.layouts.split(","):
                figures = measure(layout, ids, depth, args.fanouts, args.page, args.merge_rows, directory)
                print("depth %3d, %-6s: CPU %s µs a row (wall %s)" % (
                    depth, layout, ", ".join("%.1f" % cpu for cpu, _ in figures),
                    ", ".join("%.1f" % wall for _, wall in figures)), flush=True)


if __name__ == "__main__":
    main()
