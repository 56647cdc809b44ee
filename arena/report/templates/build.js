// A build's page on the live site (arena serve): while the upload waits in the queue or
// builds, ask the API for its status and the log lines that came since, about once a
// second, and show them; when it ends, load the page again (its outcome, its links).
(function () {
  "use strict";
  var log = document.getElementById("build-log");
  if (!log || !log.getAttribute("data-follow")) return;
  var api = log.getAttribute("data-follow");
  var next = parseInt(log.getAttribute("data-next") || "0", 10);
  var status = document.getElementById("build-status");
  var position = document.getElementById("build-position");
  var detail = document.getElementById("build-detail");
  var EVERY = 1000;

  function show(b) {
    if (status && b.status) {
      status.textContent = b.status;
      status.className = "status status-" + b.status;
    }
    if (position) {
      position.textContent = b.status === "queued" && b.position ? "number " + b.position + " in the queue" : "";
    }
    if (detail && b.detail) {
      detail.textContent = b.detail;
      detail.hidden = false;
    }
    if (b.lines && b.lines.length) {
      var atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
      log.textContent += (log.textContent ? "\n" : "") + b.lines.join("\n");
      log.hidden = false;
      if (atEnd) log.scrollTop = log.scrollHeight;
    }
    if (typeof b.next === "number") next = b.next;
  }

  function poll() {
    fetch(api + "?after=" + next, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (b) {
        if (!b) return setTimeout(poll, EVERY * 3);
        show(b);
        if (b.status === "queued" || b.status === "building") {
          setTimeout(poll, EVERY);
        } else {
          window.location.reload();
        }
      })
      .catch(function () { setTimeout(poll, EVERY * 3); /* the server is restarting */ });
  }
  setTimeout(poll, EVERY);
})();
