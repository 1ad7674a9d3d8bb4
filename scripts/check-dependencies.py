#!/usr/bin/env python3
"""Every target of Package.swift declares exactly the modules its sources import: an import of a module
the target does not list (it builds only because another dependency brings it along) and a listed
dependency no source imports are both reported, and the exit code is 1.
Usage: scripts/check-dependencies.py   (runs `swift package dump-package`; CI runs it.)"""
import glob, json, os, re, subprocess, sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
# Modules of the toolchain and the platform, which no target lists.
system = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin", "Dispatch",
          "Synchronization", "Testing", "XCTest", "_Concurrency"}
importing = re.compile(r"^(?:@\w+(?:\([^)]*\))? )*(?:(?:public|internal|package|private) )?import (?:struct |class |enum |func |protocol )?(\w+)", re.M)
# Modules a target imports that no package offers as a product, reached through a product it declares: named
# here one by one, each with its reason in Package.swift. HeraldStore's Backup/ calls SQLite's online backup API
# in VaporCSQLite, the SQLite that SQLiteNIO (declared) compiles in: a second SQLite library in the process
# would not share the server's file locks.
through_products = {"HeraldStore": {"VaporCSQLite"}}
problems = 0
for target in package["targets"]:
    name = target["name"]
    path = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
    declared = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "product", "target"):
            if kind in dependency:
                declared.add(dependency[kind][0])
    imported = set()
    for file in glob.glob(os.path.join(path, "**", "*.swift"), recursive=True):
        imported.update(importing.findall(open(file, encoding="utf-8").read()))
    undeclared = sorted(imported - declared - system - {name} - through_products.get(name, set()))
    unused = sorted(declared - imported)
    if undeclared:
        print(f"{name}: imports {', '.join(undeclared)} without declaring it in Package.swift")
    if unused:
        print(f"{name}: declares {', '.join(unused)} but no source imports it")
    problems += len(undeclared) + len(unused)
print(f"{problems} problem(s) in {len(package['targets'])} targets")
sys.exit(1 if problems else 0)
