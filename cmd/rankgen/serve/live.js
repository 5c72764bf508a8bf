// Live refresh: every data-refresh seconds, fetch the page's live part again (the same URL
// with part=live) and put it in place. The server escapes everything it renders, and the
// page's Content-Security-Policy runs no inline script, so the fragment is only markup.
"use strict";
(function () {
  const seconds = Number(document.body.dataset.refresh || 0);
  const box = document.getElementById("live");
  const toggle = document.getElementById("live-toggle");
  if (!seconds || !box) {
    return;
  }
  async function refresh() {
    if (toggle && !toggle.checked) {
      return;
    }
    const url = new URL(window.location.href);
    url.searchParams.set("part", "live");
    try {
      const res = await fetch(url, { headers: { Accept: "text/html" } });
      if (res.ok) {
        box.innerHTML = await res.text();
        document.body.dataset.refreshed = String(Date.now());
      }
    } catch (e) {
      // The server is gone or restarting: the next tick tries again.
    }
  }
  window.setInterval(refresh, seconds * 1000);
})();
