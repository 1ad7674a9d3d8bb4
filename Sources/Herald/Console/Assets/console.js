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

// A message's page follows its fan-out: each event carries its fields by name (data-field) until done.
document.addEventListener("DOMContentLoaded", () => {
  const live = document.querySelector("[data-progress]");
  if (!live || !window.EventSource) return;
  const source = new EventSource(live.getAttribute("data-progress"));
  source.onmessage = (event) => {
    const fields = JSON.parse(event.data);
    for (const [name, value] of Object.entries(fields)) {
      for (const element of document.querySelectorAll(`[data-field="${name}"]`)) element.textContent = value;
    }
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

// A region marked data-refresh (the Overview's running fan-outs) is fetched again every few seconds
// while the page is visible; the server renders it, escaped, as it renders the page.
document.addEventListener("DOMContentLoaded", () => {
  for (const region of document.querySelectorAll("[data-refresh]")) {
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
