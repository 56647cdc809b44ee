// The live site (arena serve): hears of new games, events and bots over server-sent
// events and refreshes what the page shows, without a reload.
(function () {
  "use strict";
  // an upload is sent and checked before its build page comes: say so while it is
  var upload = document.getElementById("upload-form");
  if (upload) {
    upload.addEventListener("submit", function () {
      var button = upload.querySelector("button");
      if (button) {
        button.disabled = true;
        button.textContent = "Uploading…";
      }
    });
  }
  var source = document.body.getAttribute("data-stream");
  var main = document.querySelector("main");
  if (!source || !window.EventSource || !main) return;
  var busy = false, again = false;

  function refresh() {
    if (!main.hasAttribute("data-refresh")) return;
    if (busy) { again = true; return; }
    busy = true;
    fetch(window.location.href, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
        if (fresh) main.innerHTML = fresh.innerHTML;
      })
      .catch(function () { /* the server is restarting: the next change refreshes */ })
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  function show(progress) {
    var box = document.getElementById("progress");
    if (!box || !progress) return;
    var put = function (cls, value) {
      var el = box.querySelector("." + cls);
      if (el) el.textContent = String(value);
    };
    put("games-done", progress.games_done);
    put("round", progress.round);
    put("rounds", progress.rounds);
    put("status", progress.status);
  }

  var stream = new EventSource(source);
  stream.addEventListener("change", function (ev) {
    var data = JSON.parse(ev.data);
    document.body.setAttribute("data-version", data.version);
    show(data.tournament);
    refresh();
  });
})();
