// Herald console: the little the pages need from a script. Everything works without it, except that
// times then show in UTC and destructive forms do not ask first.
"use strict";

// Times in the browser's own time zone; the UTC value stays in the title (shown on hover).
function localTimes(root) {
  for (const element of root.querySelectorAll("time[datetime]")) {
    const date = new Date(element.getAttribute("datetime"));
    if (!isNaN(date)) {
      element.textContent = date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
      element.title = element.getAttribute("datetime").replace("T", " ").replace("Z", " UTC");
    }
  }
}

// Forms marked data-confirm ask before they are sent.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute && form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});

document.addEventListener("DOMContentLoaded", () => localTimes(document));

// A progress event's fields in `scope`: each element named by data-field gets its text, and each progress
// bar (progress[data-bar]) its maximum and value.
function showFields(scope, fields) {
  for (const [name, value] of Object.entries(fields)) {
    for (const element of scope.querySelectorAll(`[data-field="${name}"]`)) element.textContent = value;
  }
  for (const bar of scope.querySelectorAll("progress[data-bar]")) {
    if (fields["bar-max"]) bar.max = Number(fields["bar-max"]);
    if (fields["bar-value"]) bar.value = Number(fields["bar-value"]);
  }
}

// A message's page follows its fan-out: each event carries its fields by name (data-field) until done.
document.addEventListener("DOMContentLoaded", () => {
  const live = document.querySelector("[data-progress]");
  if (!live || !window.EventSource) return;
  const source = new EventSource(live.getAttribute("data-progress"));
  source.onmessage = (event) => {
    const fields = JSON.parse(event.data);
    showFields(document, fields);
    if (fields.done === "true") {
      source.close();
      // The cancel button and the schedule no longer apply: show the finished page.
      window.location.reload();
    }
  };
});

// Send and Templates: the preview follows the fields as they are typed (data-preview-source names the
// preview's data-preview elements), and a time field (data-epoch) is sent as epoch milliseconds of the
// browser's own time zone beside its value (without scripts the server reads the value as UTC).
document.addEventListener("DOMContentLoaded", () => {
  for (const source of document.querySelectorAll("[data-preview-source]")) {
    const update = () => {
      for (const name of source.getAttribute("data-preview-source").split(" ")) {
        for (const target of document.querySelectorAll(`[data-preview="${name}"]`)) target.textContent = source.value;
      }
    };
    source.addEventListener("input", update);
  }
  for (const input of document.querySelectorAll("input[data-epoch]")) {
    const hint = document.getElementById(`${input.name}-hint`);
    if (hint) hint.textContent = `In your browser's time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone}).`;
  }
});
document.addEventListener("submit", (event) => {
  for (const input of event.target.querySelectorAll ? event.target.querySelectorAll("input[data-epoch]") : []) {
    const target = event.target.querySelector(`input[name="${input.getAttribute("data-epoch")}"]`);
    if (!target) continue;
    const milliseconds = input.value ? new Date(input.value).getTime() : NaN;
    target.value = isNaN(milliseconds) ? "" : String(milliseconds);
  }
});

// A region marked data-live (the Overview's running fan-outs) follows a stream of its rows' fields: each
// event carries each running message's fields by id (data-message), and the whole list again (html, rendered
// and escaped by the server as it renders the page) when a fan-out started or ended. A stream that ends is
// reopened by EventSource itself; one refused (the session ended) is not.
document.addEventListener("DOMContentLoaded", () => {
  if (!window.EventSource) return;
  for (const region of document.querySelectorAll("[data-live]")) {
    const source = new EventSource(region.getAttribute("data-live"));
    source.onmessage = (event) => {
      const data = JSON.parse(event.data);
      if (typeof data.html === "string") {
        region.innerHTML = data.html;
        localTimes(region);
      }
      for (const row of region.querySelectorAll("[data-message]")) {
        const fields = (data.messages || {})[row.getAttribute("data-message")];
        if (fields) showFields(row, fields);
      }
    };
  }
});

// A region marked data-refresh is fetched again every few seconds while the page is visible (the
// Overview's running fan-outs, where a browser has no EventSource); the server renders it, escaped, as
// it renders the page.
document.addEventListener("DOMContentLoaded", () => {
  for (const region of document.querySelectorAll("[data-refresh]")) {
    if (region.hasAttribute("data-live") && window.EventSource) continue;
    const url = region.getAttribute("data-refresh");
    const timer = setInterval(async () => {
      if (document.hidden) return;
      try {
        // Marked as a refresh, so it does not count as use: an unattended page still times out.
        const response = await fetch(url, { credentials: "same-origin", redirect: "manual", headers: { "Herald-Refresh": "1" } });
        // A session that ended answers with a redirect to the login page: stop rather than show it here.
        if (response.type === "opaqueredirect" || !response.ok) {
          clearInterval(timer);
          return;
        }
        region.innerHTML = await response.text();
        localTimes(region);
      } catch (error) {
        // Offline for a moment: try again at the next tick.
      }
    }, 3000);
  }
});

// The Web Push page (form#webpush): installs the service worker, subscribes this browser with the app's
// VAPID public key (data-webpush-key) and registers the subscription with Herald as a WEB device.
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("webpush");
  if (!form) return;
  const status = document.getElementById("webpush-status");
  const button = form.querySelector("button[type=submit]");
  const deviceField = form.querySelector("#f-deviceId");
  const say = (text, kind) => {
    status.textContent = text;
    status.className = kind || "";
  };
  // This browser's device id: made once, then kept (a later Subscribe registers the same device again).
  let stored = window.localStorage && localStorage.getItem("herald.webpush.deviceId");
  if (!stored) {
    const random = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
    stored = `console-${random}`;
    if (window.localStorage) localStorage.setItem("herald.webpush.deviceId", stored);
  }
  if (!deviceField.value) deviceField.value = stored;
  if (!window.isSecureContext) return say("Service workers need HTTPS or localhost: open this page through https:// or on localhost.", "error");
  if (!("serviceWorker" in navigator)) return say("This browser cannot subscribe: it has no service workers.", "error");
  if (!("PushManager" in window)) return say("This browser cannot subscribe: it has no Push API.", "error");
  const worker = navigator.serviceWorker.register("/console/webpush-sw.js", { scope: "/console/" });
  worker.catch((error) => say(`This browser cannot subscribe: the service worker did not install (${error.message || error}).`, "error"));
  button.disabled = false;

  // The key as pushManager.subscribe takes it: the bytes of its URL-safe base64.
  const keyBytes = (text) => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  };
  const same = (buffer, bytes) => {
    if (!buffer) return false;
    const other = new Uint8Array(buffer);
    return other.length === bytes.length && other.every((value, index) => value === bytes[index]);
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    document.getElementById("webpush-next").hidden = true;
    try {
      say("Subscribing…");
      await worker;
      const registration = await navigator.serviceWorker.ready;
      if (window.Notification && Notification.permission !== "granted") {
        if ((await Notification.requestPermission()) !== "granted") {
          return say("Notifications are blocked for this site: allow them in the browser's site settings, then try again.", "error");
        }
      }
      const key = keyBytes(form.getAttribute("data-webpush-key"));
      // A subscription made with another key (the app's key changed) must go before a new one.
      const existing = await registration.pushManager.getSubscription();
      if (existing && !same(existing.options.applicationServerKey, key)) await existing.unsubscribe();
      let subscription;
      try {
        subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
      } catch (error) {
        if (error.name === "NotAllowedError") return say("Notifications are blocked for this site: allow them in the browser's site settings, then try again.", "error");
        return say(`This browser cannot subscribe: ${error.message || error.name || error}`, "error");
      }
      const channel = form.elements.channel.value.trim();
      const deviceId = deviceField.value.trim();
      const body = new URLSearchParams({ csrf: form.elements.csrf.value, channel, deviceId, subscription: JSON.stringify(subscription) });
      const response = await fetch(form.action, { method: "POST", credentials: "same-origin", body });
      const answer = (response.headers.get("Content-Type") || "").includes("json") ? await response.json() : null;
      if (!response.ok) {
        const reason = answer && answer.message ? answer.message : `answer ${response.status} (reload the page: the session may have ended)`;
        return say(`Herald refused the subscription: ${reason}`, "error");
      }
      if (window.localStorage) localStorage.setItem("herald.webpush.deviceId", deviceId);
      say(`Subscribed: this browser is device ${answer.deviceId} in channel ${answer.channel}.`, "notice");
      document.getElementById("webpush-send-channel").href = `/console/send?channel=${encodeURIComponent(answer.channel)}`;
      document.getElementById("webpush-send-device").href = `/console/send?device=${encodeURIComponent(answer.deviceId)}`;
      document.getElementById("webpush-next").hidden = false;
    } catch (error) {
      say(`This browser cannot subscribe: ${error.message || error}`, "error");
    } finally {
      button.disabled = false;
    }
  });
});
