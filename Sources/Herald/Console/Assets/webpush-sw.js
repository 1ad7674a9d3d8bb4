// Herald console: the service worker of the Web Push page (/console/webpush). It shows what Herald sends
// (docs/web-push.md, "Publishing to browsers") as a notification, and a click opens its url.
"use strict";

self.addEventListener("push", (event) => {
  let n = {};
  try {
    n = event.data ? event.data.json() : {};
  } catch (error) {
    n = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(self.registration.showNotification(n.title || "Herald", {
    body: n.body, icon: n.icon, badge: n.badge, image: n.image, tag: n.tag, data: { url: n.url, ...n.data },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data && event.notification.data.url;
  if (url) event.waitUntil(self.clients.openWindow(url));
});
