#!/usr/bin/env bash
# Offline checks of deploy/ for CI; no container engine, cluster or network needed after the pip install.
#  - deploy/kubernetes: every manifest validated with kubernetes-validate --strict (its schemas ship
#    in the package) against pinned Kubernetes versions; kustomization.yaml lists exactly those files;
#    the Deployment keeps what deploy/README.md promises (probes, drain budget, non-root, migrate).
#  - deploy/compose*.yaml: parsed with PyYAML; services, profiles, healthchecks (herald probe),
#    volumes, mounted files present.
#  - every Herald configuration in deploy/ (JSON files, the ConfigMap's herald.json) valid against the
#    configuration's JSON Schema (docs/herald.schema.json), and every HERALD_* variable one it allows.
#  - deploy/grafana/herald-dashboard.json: valid JSON, every metric it queries exists, with its labels.
#  - deploy/Dockerfile: two stages, both binaries, numeric non-root user, HEALTHCHECK with herald probe.
# Exits non-zero on any problem. Usage: scripts/validate-deploy.sh
# DEPLOY_VALIDATE_VENV=DIR keeps the virtualenv in DIR between runs (default: a temporary one).
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned: the tool (which carries the Kubernetes schemas) and everything it pulls in.
KUBERNETES_VALIDATE_VERSION=1.37.0
# The oldest Kubernetes minor these manifests are meant for, and the newest schema the tool ships.
KUBERNETES_VERSIONS=(1.30.0 1.37.0)
REQUIREMENTS="kubernetes-validate==$KUBERNETES_VALIDATE_VERSION PyYAML==6.0.4 jsonschema==4.26.0
jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1 attrs==26.1.0
importlib_resources==7.1.0 packaging==26.3 typing_extensions==4.16.0"

if [ -n "${DEPLOY_VALIDATE_VENV:-}" ]; then
    venv="$DEPLOY_VALIDATE_VENV"
else
    venv="$(mktemp -d)/venv"
    trap 'rm -rf "$(dirname "$venv")"' EXIT
fi
if ! "$venv/bin/kubernetes-validate" --version 2>/dev/null | grep -qx "$KUBERNETES_VALIDATE_VERSION"; then
    python3 -m venv "$venv"
    # shellcheck disable=SC2086
    "$venv/bin/pip" install --quiet --disable-pip-version-check $REQUIREMENTS
fi

started=$SECONDS
failed=0

echo "== kubernetes-validate $KUBERNETES_VALIDATE_VERSION --strict, Kubernetes ${KUBERNETES_VERSIONS[*]}"
manifests=()
for file in deploy/kubernetes/*.yaml; do
    [ "$(basename "$file")" = kustomization.yaml ] || manifests+=("$file")
done
for version in "${KUBERNETES_VERSIONS[@]}"; do
    # A kind or apiVersion it has no schema for (policy/v1beta1, a CRD) is only a WARN with exit 0:
    # count it as a failure, so a removed API cannot pass unchecked.
    if ! output="$("$venv/bin/kubernetes-validate" --strict --quiet -k "$version" "${manifests[@]}" 2>&1)" \
        || grep -qE '^(WARN|ERROR)' <<<"$output"; then
        printf '%s\n' "$output"
        echo "FAIL: kubernetes-validate against $version"
        failed=1
    fi
done

echo "== structure checks (compose, configuration, Kubernetes, Grafana, Dockerfile)"
"$venv/bin/python" - <<'PYTHON' || failed=1
import glob, json, os, re, sys
import yaml

problems = []
def fail(msg): problems.append(msg)

# --- Herald's settings: the configuration's JSON Schema (docs/herald.schema.json, written by
# `herald schema` from the declarations the loader reads through; a test keeps the file current) -----
import jsonschema
schema = json.load(open("docs/herald.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

def snake(name): return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).upper()
def env_shapes(node, prefix):
    """Every HERALD_* name the schema allows, N for a list index."""
    if node.get("type") == "object":
        for key, child in node.get("properties", {}).items():
            if not key.startswith("$"):
                yield from env_shapes(child, f"{prefix}_{snake(key)}")
    elif node.get("type") == "array" and node["items"].get("type") == "object":
        yield from env_shapes(node["items"], f"{prefix}_N")
    elif node.get("type") == "array":
        yield f"{prefix}_N"
    else:
        yield prefix
env_names = set(env_shapes(schema, "HERALD"))
if not {"HERALD_HTTP_PORT", "HERALD_APPS_N_APNS_TOPIC", "HERALD_APPS_N_KEYS_N_ROLE"} <= env_names:
    fail("docs/herald.schema.json does not have the settings expected: regenerate it with `herald schema`")
def check_env(where, name):
    shape = "_".join("N" if part.isdigit() else part for part in name.split("_"))
    if name.startswith("HERALD_") and shape not in env_names:
        fail(f"{where}: {name} is not a Herald setting (Herald refuses to start with it)")

def check_config(where, text):
    try:
        config = json.loads(text)
    except ValueError as e:
        return fail(f"{where}: not JSON: {e}")
    for error in validator.iter_errors(config):
        fail(f"{where}: {'.'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}")
    if not config.get("apps"):
        return fail(f"{where}: no apps (Herald refuses a configuration file that defines none)")
    return config

for path in sorted(glob.glob("deploy/*.json") + glob.glob("deploy/compose/*.json")):
    check_config(path, open(path).read())

# --- Compose ----------------------------------------------------------------------------------------
def load_yaml(path):
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except Exception as e:
        fail(f"{path}: not YAML: {e}")
        return {}

def check_compose(path, expect):
    doc = load_yaml(path) or {}
    services = doc.get("services") or {}
    base = os.path.dirname(path)
    if set(services) != set(expect):
        fail(f"{path}: services {sorted(services)}, expected {sorted(expect)}")
    host_ports = []
    for name, svc in services.items():
        want_profiles = expect.get(name)
        if (svc.get("profiles") or None) != want_profiles:
            fail(f"{path}: {name}: profiles {svc.get('profiles')}, expected {want_profiles}")
        hc = (svc.get("healthcheck") or {}).get("test")
        if not hc:
            fail(f"{path}: {name}: no healthcheck")
        if svc.get("image") == "herald:local":
            build = svc.get("build") or {}
            if build.get("dockerfile") != "deploy/Dockerfile" or build.get("context") != "..":
                fail(f"{path}: {name}: uses herald:local without building it from deploy/Dockerfile (compose would try to pull it)")
            if not (isinstance(hc, list) and hc[:3] == ["CMD", "herald", "probe"] and hc[3].startswith("http://127.0.0.1:")):
                fail(f"{path}: {name}: healthcheck must be [CMD, herald, probe, http://127.0.0.1:…] (the image has no curl)")
        for var in (svc.get("environment") or {}):
            check_env(f"{path}: {name}", var)
        for port in svc.get("ports") or []:
            host_ports.append(str(port).rsplit(":", 1)[0])
        for volume in svc.get("volumes") or []:
            if not isinstance(volume, str):
                fail(f"{path}: {name}: write volumes as SOURCE:TARGET[:ro] (this script reads that form)")
                continue
            source = volume.split(":")[0]
            if source.startswith("."):
                full = os.path.normpath(os.path.join(base, source))
                if not os.path.exists(full):
                    fail(f"{path}: {name}: mounts {source}, which does not exist")
                elif volume.endswith(":/etc/herald/herald.json:ro"):
                    check_config(f"{path}: {name}: {source}", open(full).read())
            elif source and source not in (doc.get("volumes") or {}):
                fail(f"{path}: {name}: named volume {source} is not declared under volumes:")
        for dep in svc.get("depends_on") or {}:
            if dep not in services:
                fail(f"{path}: {name}: depends on unknown service {dep}")
            elif services[dep].get("profiles") and not svc.get("profiles"):
                fail(f"{path}: {name}: depends on {dep}, which only runs in a profile")
    if len(host_ports) != len(set(host_ports)):
        fail(f"{path}: a host port is published twice: {host_ports}")
    return services

single = check_compose("deploy/compose.yaml", {"herald": None, "apns-mock": ["mock"]})
if single:
    herald = single.get("herald", {})
    if "herald-data:/var/lib/herald" not in (herald.get("volumes") or []):
        fail("deploy/compose.yaml: herald: the SQLite volume herald-data:/var/lib/herald is missing")
    if not any(v.endswith(":/etc/herald/herald.json:ro") for v in herald.get("volumes") or []):
        fail("deploy/compose.yaml: herald: the configuration is not mounted read-only at /etc/herald/herald.json")
pg = check_compose("deploy/compose.postgres.yaml",
                   {"postgres": None, "apns-mock": None, "herald-1": None, "herald-2": None})
for name in ("herald-1", "herald-2"):
    env = (pg.get(name) or {}).get("environment") or {}
    if not str(env.get("HERALD_DATABASE_URL", "")).startswith("postgres://"):
        fail(f"deploy/compose.postgres.yaml: {name}: HERALD_DATABASE_URL is not a postgres:// URL")

# --- Kubernetes -----------------------------------------------------------------------------------
kdir = "deploy/kubernetes"
kust = load_yaml(f"{kdir}/kustomization.yaml") or {}
files = {os.path.basename(p) for p in glob.glob(f"{kdir}/*.yaml")} - {"kustomization.yaml"}
listed = kust.get("resources") or []
if sorted(listed) != sorted(files):
    fail(f"{kdir}/kustomization.yaml: resources {sorted(listed)} differ from the manifests {sorted(files)}")
docs = {}
for name in sorted(files):
    with open(f"{kdir}/{name}") as f:
        for doc in yaml.safe_load_all(f):
            if doc:
                if "namespace" in (doc.get("metadata") or {}):
                    fail(f"{kdir}/{name}: sets a namespace (the manifests are namespace-agnostic)")
                docs[doc.get("kind")] = doc
for kind in ("ConfigMap", "Secret", "Deployment", "Service", "PodDisruptionBudget"):
    if kind not in docs:
        fail(f"{kdir}: no {kind}")
cm = docs.get("ConfigMap", {}).get("data") or {}
config = check_config(f"{kdir}/configmap.yaml herald.json", cm.get("herald.json", "")) or {}
for key, value in (docs.get("Secret", {}).get("stringData") or {}).items():
    if "replace" not in str(value).lower():
        fail(f"{kdir}/secret.yaml: {key} is not a REPLACE placeholder (never commit a real secret)")
dep = docs.get("Deployment", {})
pod = dep.get("spec", {}).get("template", {}).get("spec", {})
containers = {c["name"]: c for c in pod.get("containers", [])}
herald = containers.get("herald", {})
def probe_path(c, probe): return ((c.get(probe) or {}).get("httpGet") or {}).get("path")
if dep.get("spec", {}).get("replicas", 0) < 2:
    fail("deployment.yaml: fewer than 2 replicas")
if pod.get("enableServiceLinks") is not False:
    fail("deployment.yaml: enableServiceLinks must be false (the Service 'herald' would inject HERALD_SERVICE_HOST…, which Herald refuses)")
for probe, path in (("livenessProbe", "/health"), ("readinessProbe", "/ready"), ("startupProbe", "/health")):
    if probe_path(herald, probe) != path:
        fail(f"deployment.yaml: {probe} must GET {path}, not {probe_path(herald, probe)}")
sc = pod.get("securityContext") or {}
if not sc.get("runAsNonRoot") or not sc.get("runAsUser"):
    fail("deployment.yaml: pod securityContext must set runAsNonRoot and a numeric runAsUser")
for c in pod.get("containers", []) + pod.get("initContainers", []):
    csc = c.get("securityContext") or {}
    if not csc.get("readOnlyRootFilesystem") or csc.get("allowPrivilegeEscalation") is not False:
        fail(f"deployment.yaml: {c['name']}: needs readOnlyRootFilesystem and allowPrivilegeEscalation: false")
    if not any(m.get("mountPath") == "/tmp" for m in c.get("volumeMounts", [])):
        fail(f"deployment.yaml: {c['name']}: no writable /tmp")
    if not (c.get("resources") or {}).get("requests"):
        fail(f"deployment.yaml: {c['name']}: no resource requests")
    for env in c.get("env", []):
        check_env(f"deployment.yaml: {c['name']}", env["name"])
if [c.get("args", [None])[0] for c in pod.get("initContainers", [])] != ["migrate"]:
    fail("deployment.yaml: expected one initContainer running `herald migrate`")
pre = (((herald.get("lifecycle") or {}).get("preStop") or {}).get("exec") or {}).get("command") or []
pre_seconds = float(pre[-1]) if pre[:1] == ["sleep"] else 0
drain = float((config.get("http") or {}).get("drainSeconds", 0))
grace = pod.get("terminationGracePeriodSeconds", 30)
if not pre_seconds:
    fail("deployment.yaml: no preStop sleep")
if grace < pre_seconds + drain + 30:
    fail(f"deployment.yaml: terminationGracePeriodSeconds {grace} < preStop {pre_seconds} + drainSeconds {drain} + 30 s in flight")
ports = {p["name"]: p["containerPort"] for p in herald.get("ports", [])}
annotations = dep.get("spec", {}).get("template", {}).get("metadata", {}).get("annotations") or {}
metrics_port = (config.get("metrics") or {}).get("port", (config.get("http") or {}).get("port", 8080))
if annotations.get("prometheus.io/scrape") != "true" or annotations.get("prometheus.io/port") != str(metrics_port):
    fail(f"deployment.yaml: prometheus.io annotations must scrape port {metrics_port}")
if ports.get("http") != (config.get("http") or {}).get("port", 8080) or ports.get("metrics") != metrics_port:
    fail(f"deployment.yaml: container ports {ports} do not match herald.json's http.port / metrics.port")
svc_ports = [p.get("targetPort") for p in docs.get("Service", {}).get("spec", {}).get("ports", [])]
if "metrics" in svc_ports or metrics_port in svc_ports:
    fail("service.yaml: exposes the metrics port")
if docs.get("PodDisruptionBudget", {}).get("spec", {}).get("minAvailable") != 1:
    fail("poddisruptionbudget.yaml: minAvailable must be 1")

# --- Grafana ----------------------------------------------------------------------------------------
# Herald's metrics and their labels. Must follow Sources/HeraldMetrics/HeraldMetrics.swift (Name and
# the label sets there; the Prometheus exporter is Sources/Herald/Metrics); checked against it below.
METRICS = {
    "herald_http_requests_total": ("counter", {"method", "route", "status"}),
    "herald_http_request_duration_seconds": ("histogram", {"method", "route"}),
    "herald_registrations_total": ("counter", set()),
    "herald_launches_total": ("counter", set()),
    "herald_sweeps_total": ("counter", {"trigger"}),
    "herald_sweep_removed_total": ("counter", {"kind"}),
    "herald_sweep_duration_seconds": ("histogram", set()),
    "herald_messages_finished_total": ("counter", {"status"}),
    "herald_notifications_total": ("counter", {"provider", "outcome", "reason"}),
    "herald_deliveries_total": ("counter", {"provider", "result"}),
    "herald_provider_request_duration_seconds": ("histogram", {"provider"}),
    "herald_notifications_in_flight": ("gauge", {"provider"}),
    "herald_retries_total": ("counter", {"provider"}),
    "herald_tokens_removed_total": ("counter", {"provider"}),
    "herald_tokens_deactivated_total": ("counter", {"provider"}),
    "herald_devices_deactivated_total": ("counter", set()),
    "herald_db_write_duration_seconds": ("histogram", {"write"}),
    "herald_group_commit_batch_size": ("histogram", {"write"}),
    "herald_fanouts_running": ("gauge", set()),
    "herald_provider_connections_replaced_total": ("counter", {"provider"}),
    "herald_pubsub_subscriptions_created_total": ("counter", set()),
    "herald_pubsub_streams": ("gauge", set()),
    "herald_pubsub_messages_delivered_total": ("counter", {"via"}),
    "herald_rt_connections": ("gauge", set()),
    "herald_rt_subscriptions": ("gauge", {"type"}),
    "herald_rt_disconnects_total": ("counter", {"reason"}),
    "herald_rt_refused_total": ("counter", {"what"}),
    "herald_devicecheck_calls_total": ("counter", {"operation", "outcome"}),
    "herald_devicecheck_call_duration_seconds": ("histogram", {"operation"}),
    "herald_http_protocol_errors_total": ("counter", {"kind"}),
    "herald_write_queue_waiting": ("gauge", {"write"}),
    "herald_write_queue_refused_total": ("counter", {"write"}),
    "herald_database_primary": ("gauge", {"host"}),
    "herald_database_failovers_total": ("counter", set()),
    "herald_database_without_primary_seconds_total": ("counter", set()),
}
metrics_src = "Sources/HeraldMetrics/HeraldMetrics.swift"
if os.path.exists(metrics_src):
    in_source = set(re.findall(r'"(herald_[a-z0-9_]+)"', open(metrics_src).read()))
    if in_source != set(METRICS):
        fail(f"{metrics_src} and this script's METRICS differ: only in the source {sorted(in_source - set(METRICS))}, "
             f"only here {sorted(set(METRICS) - in_source)}")
SCRAPE_LABELS = {"instance", "job"}

path = "deploy/grafana/herald-dashboard.json"
try:
    dash = json.load(open(path))
except ValueError as e:
    dash = {}
    fail(f"{path}: not JSON: {e}")
if dash:
    if not 36 <= dash.get("schemaVersion", 0) <= 41:
        fail(f"{path}: schemaVersion {dash.get('schemaVersion')}")
    if not any(i.get("name") == "DS_PROMETHEUS" and i.get("pluginId") == "prometheus" for i in dash.get("__inputs", [])):
        fail(f"{path}: no DS_PROMETHEUS datasource input")
    ids, cells, used = set(), {}, set()
    exprs = [("templating", v.get("definition", "")) for v in dash.get("templating", {}).get("list", [])]
    for panel in dash.get("panels", []):
        pid = panel.get("id")
        if pid in ids:
            fail(f"{path}: panel id {pid} used twice")
        ids.add(pid)
        g = panel.get("gridPos", {})
        for x in range(g.get("x", 0), g.get("x", 0) + g.get("w", 0)):
            for y in range(g.get("y", 0), g.get("y", 0) + g.get("h", 0)):
                if (x, y) in cells:
                    fail(f"{path}: panels {cells[(x, y)]} and {pid} overlap")
                cells[(x, y)] = pid
        if g.get("x", 0) + g.get("w", 0) > 24:
            fail(f"{path}: panel {pid} is wider than the grid")
        if panel.get("type") == "row":
            continue
        if (panel.get("datasource") or {}).get("uid") != "${DS_PROMETHEUS}":
            fail(f"{path}: panel {panel.get('title')!r}: datasource is not ${{DS_PROMETHEUS}}")
        if not panel.get("targets"):
            fail(f"{path}: panel {panel.get('title')!r} has no query")
        for t in panel.get("targets", []):
            if (t.get("datasource") or {}).get("uid") != "${DS_PROMETHEUS}":
                fail(f"{path}: panel {panel.get('title')!r}: a query's datasource is not ${{DS_PROMETHEUS}}")
            exprs.append((panel.get("title"), t.get("expr", "")))
    for title, expr in exprs:
        if expr.count("(") != expr.count(")") or expr.count("{") != expr.count("}"):
            fail(f"{path}: {title!r}: unbalanced brackets in {expr}")
        found = set()
        for word in set(re.findall(r"\bherald_[a-z0-9_]+", expr)):
            base, suffix = re.fullmatch(r"(.*?)(_bucket|_sum|_count)?", word).groups()
            if word in METRICS:
                if METRICS[word][0] == "histogram":
                    fail(f"{path}: {title!r}: histogram {word} needs _bucket, _sum or _count")
                found.add(word)
            elif suffix and base in METRICS and METRICS[base][0] == "histogram":
                found.add(base)
            else:
                fail(f"{path}: {title!r}: {word} is not one of Herald's metrics")
        if not found:
            fail(f"{path}: {title!r}: queries none of Herald's metrics: {expr}")
        used |= found
        labels = set.union(SCRAPE_LABELS, *(METRICS[m][1] for m in found)) if found else set()
        if any(METRICS[m][0] == "histogram" for m in found):
            labels.add("le")
        written = set()
        for group in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", expr):
            written |= {l.strip() for l in group.split(",") if l.strip()}
        for matchers in re.findall(r"\{([^}]*)\}", expr):
            written |= set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", matchers))
        written |= set(re.findall(r"label_values\([^,]*,\s*(\w+)\)", expr))
        for label in sorted(written - labels):
            fail(f"{path}: {title!r}: label {label!r} is not on {sorted(found)}")
    for metric in sorted(set(METRICS) - used):
        print(f"note: {path} does not show {metric}")

# --- Dockerfile -------------------------------------------------------------------------------------
docker = open("deploy/Dockerfile").read()
if len(re.findall(r"^FROM ", docker, re.M)) != 2:
    fail("deploy/Dockerfile: expected two stages")
for product in ("herald", "apns-mock"):
    if f"--product {product}" not in docker:
        fail(f"deploy/Dockerfile: does not build {product}")
if not re.search(r'^HEALTHCHECK .*\\\n\s*CMD \["herald", "probe", "http://127\.0\.0\.1:8080/health"\]', docker, re.M):
    fail('deploy/Dockerfile: HEALTHCHECK must run ["herald", "probe", "http://127.0.0.1:8080/health"]')
user = re.findall(r"^USER (\S+)", docker, re.M)
if not user or not re.fullmatch(r"[1-9]\d*(:\d+)?", user[-1]):
    fail("deploy/Dockerfile: the last USER must be numeric and not root (runAsNonRoot checks it)")
if not re.search(r"^VOLUME /var/lib/herald$", docker, re.M) or not re.search(r"^WORKDIR /var/lib/herald$", docker, re.M):
    fail("deploy/Dockerfile: SQLite's directory /var/lib/herald must be the WORKDIR and a VOLUME")
for line in re.findall(r"^ENV (.*)$", docker, re.M):
    for name in re.findall(r"(HERALD_\w+)=", line):
        check_env("deploy/Dockerfile", name)

for p in problems:
    print("FAIL:", p)
print(f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
PYTHON

echo "== done in $((SECONDS - started)) s after the install"
if [ "$failed" -ne 0 ]; then
    echo "deploy/ validation FAILED"
    exit 1
fi
echo "deploy/ validation passed"
