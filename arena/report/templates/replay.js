/* Flip 7 Arena replay: steps through a game's table states.
 *
 * The states were computed by the report (the engine replayed the game) and are embedded
 * in the page as patches: each step lists the seats that changed and the cards added to
 * the discard pile. They are expanded once here; stepping then only redraws.
 *
 * Also from the report: the moves (at which step which seat chose, among what options,
 * what it chose, the bust chance of a hit, whether the arena played it for a forfeited
 * seat) and the forfeits. Autoplay steps forward at the chosen speed and stops at the
 * end; the address's fragment (#step-42) opens a step and follows the replay. Every text
 * is set with textContent; the one HTML parsed is a compact report's own replay section
 * (see Flip7Chunk below). */
(function () {
  "use strict";

  var source = document.getElementById("replay-data");
  if (source) {
    start(JSON.parse(source.textContent));
    return;
  }
  var slot = document.getElementById("replay-slot");
  if (!slot) {
    return;
  }
  /* A compact report: the replay section, its data and the events are in data/<chunk>.js,
   * loaded after this script, which hands them here: {game id: base64 of the zlib-deflated
   * JSON {html, data, events}}. The section's HTML was rendered (and escaped) by the report
   * itself, from the same template as an inline page's; it is the only HTML this script
   * parses. */
  window.Flip7Chunk = function (games) {
    var packed = games[slot.getAttribute("data-game")];
    var note = document.getElementById("replay-loading");
    if (!packed) {
      if (note) { note.textContent = "This game is missing from its data file: render the report again."; }
      return;
    }
    if (typeof DecompressionStream === "undefined") {
      if (note) { note.textContent = "This browser cannot unpack the replay (it lacks DecompressionStream)."; }
      return;
    }
    var raw = atob(packed);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    new Response(stream).text().then(function (text) {
      var entry = JSON.parse(text);
      // parsed into an inert document (no script runs, nothing loads), then adopted
      var parsed = new DOMParser().parseFromString(entry.html, "text/html");
      var section = document.importNode(parsed.body.firstElementChild, true);
      slot.parentNode.replaceChild(section, slot);
      var link = document.getElementById("download");
      if (link && entry.events) {
        var lines = entry.events.map(function (e) { return JSON.stringify(e) + "\n"; }).join("");
        link.href = URL.createObjectURL(new Blob([lines], { type: "application/x-ndjson" }));
        link.hidden = false;
      }
      if (entry.data) {
        start(entry.data);
      }
      if (location.hash && location.hash.indexOf("#step-") !== 0) {
        var target = document.getElementById(location.hash.slice(1));
        if (target) { target.scrollIntoView(); }
      }
    });
  };

  function start(data) {
  var cards = data.cards || {};
  var names = data.names || [];
  // moves: [step, seat, question, options, chosen, bust, auto], their texts shipped once
  // each in words (the question and the options are indices into it)
  var words = data.words || [];
  var moves = (data.moves || []).map(function (m) {
    return [m[0], m[1], words[m[2]], m[3].map(function (w) { return words[w]; }), m[4], m[5], m[6]];
  });
  var movesAt = {};
  moves.forEach(function (m) {
    (movesAt[m[0]] = movesAt[m[0]] || []).push(m);
  });
  var forfeitStep = {}; // seat -> the step from which the arena played for it
  (data.forfeits || []).forEach(function (f) {
    if (f[1] !== null && f[1] !== undefined) {
      forfeitStep[f[0]] = f[1];
    }
  });
  var STATUS = { active: "playing", stayed: "stayed", frozen: "frozen", busted: "busted" };

  function applyPatch(prev, patch) {
    var next = {
      seats: prev.seats,
      discard: prev.discard,
      pending: prev.pending,
      deck: prev.deck,
      round: prev.round
    };
    if (patch.p) {
      next.seats = prev.seats.slice();
      patch.p.forEach(function (c) {
        next.seats[c[0]] = { line: c[1], status: c[2], score: c[3], total: c[4], flip7: c[5] };
      });
    }
    if (patch.d) {
      next.discard = prev.discard.concat(patch.d);
    }
    if (patch.D) {
      next.discard = patch.D;
    }
    if (patch.q) {
      next.pending = patch.q;
    }
    if (Object.prototype.hasOwnProperty.call(patch, "n")) {
      next.deck = patch.n;
    }
    if (Object.prototype.hasOwnProperty.call(patch, "r")) {
      next.round = patch.r;
    }
    return next;
  }

  var states = [data.initial];
  data.steps.forEach(function (patch, i) {
    states.push(applyPatch(states[i], patch));
  });
  var last = states.length - 1;

  // the first step of every round, for the round buttons
  var roundStarts = [];
  for (var i = 1; i <= last; i++) {
    if (states[i].round !== states[i - 1].round) {
      roundStarts.push(i);
    }
  }

  function $(id) {
    return document.getElementById(id);
  }

  function chip(label) {
    var info = cards[label] || [label, ""];
    var el = document.createElement("span");
    el.className = "card c-" + (info[1] || "x");
    el.setAttribute("data-label", label);
    el.textContent = info[0];
    return el;
  }

  function fill(el, labels) {
    while (el.firstChild) {
      el.removeChild(el.firstChild);
    }
    labels.forEach(function (label) {
      el.appendChild(chip(label));
    });
  }

  var rows = [];
  document.querySelectorAll("#table-state tbody tr").forEach(function (tr) {
    rows[Number(tr.getAttribute("data-seat"))] = {
      tr: tr,
      status: tr.querySelector(".st-status"),
      line: tr.querySelector(".st-line"),
      score: tr.querySelector(".st-score"),
      total: tr.querySelector(".st-total")
    };
  });
  var items = document.querySelectorAll("#events li");
  var list = $("events");
  var pos = 0;

  function nameOf(seat) {
    return names[seat] !== undefined ? names[seat] : "seat " + seat;
  }

  // the move the table waits on at step p: one made at p, else the next one
  var nextMove = [];
  (function () {
    var k = moves.length - 1;
    for (var p = last; p >= 0; p--) {
      while (k >= 0 && moves[k][0] >= p) {
        k--;
      }
      nextMove[p] = k + 1 < moves.length ? moves[k + 1] : null;
    }
  })();

  function clear(el) {
    while (el.firstChild) {
      el.removeChild(el.firstChild);
    }
  }

  function showTurn(p) {
    var here = movesAt[p] || [];
    var next = nextMove[p];
    var panel = $("replay-turn");
    var options = $("replay-options");
    var bust = $("replay-bust");
    var auto = $("replay-auto");
    clear(options);
    bust.hidden = true;
    auto.hidden = true;
    panel.classList.toggle("deciding", here.length > 0);
    if (!here.length) {
      panel.removeAttribute("data-seat");
      $("replay-turn-who").textContent = next ? "Next to play: " + nameOf(next[1]) : "No more decisions in this game.";
      $("replay-question").textContent = "";
      return next ? next[1] : null;
    }
    var m = here[here.length - 1];
    panel.setAttribute("data-seat", String(m[1]));
    $("replay-turn-who").textContent = nameOf(m[1]) + " to play:";
    $("replay-question").textContent = m[2];
    m[3].forEach(function (text, i) {
      var li = document.createElement("li");
      li.textContent = text;
      if (i === m[4]) {
        li.className = "chosen";
        li.setAttribute("data-chosen", "true");
        var tag = document.createElement("span");
        tag.className = "chosen-tag";
        tag.textContent = m[6] ? "played by the arena" : "chosen";
        li.appendChild(document.createTextNode(" "));
        li.appendChild(tag);
      }
      options.appendChild(li);
    });
    if (m[5]) {
      bust.hidden = false;
      bust.setAttribute("data-busting", String(m[5][0]));
      bust.setAttribute("data-pile", String(m[5][1]));
      bust.textContent = "Chance that the card a hit draws busts " + nameOf(m[1]) + ": " + m[5][2] +
        " (" + m[5][0] + " of the " + m[5][1] + " cards it would come from)";
    }
    if (m[6]) {
      auto.hidden = false;
      auto.textContent = "Auto-played: " + nameOf(m[1]) + " had forfeited, so the arena played its default.";
    }
    return m[1];
  }

  // the chart's "now" line: after how many scored rounds the step is
  var scored = [];
  document.querySelectorAll("#score-chart g.seat[data-seat='0'] a").forEach(function (a) {
    scored.push(stepOf(a.getAttribute("href")));
  });
  var nowLine = $("score-now");

  function showChart(p) {
    if (!nowLine) {
      return;
    }
    var done = 0;
    while (done < scored.length && scored[done] <= p) {
      done++;
    }
    var x = Number(nowLine.getAttribute("data-x0")) + done * Number(nowLine.getAttribute("data-dx"));
    nowLine.setAttribute("x1", String(x));
    nowLine.setAttribute("x2", String(x));
  }

  function setFragment(p) {
    var hash = "#step-" + p;
    $("replay-link").setAttribute("href", hash);
    if (location.hash === hash) {
      return;
    }
    try {
      history.replaceState(null, "", hash);
    } catch (e) {
      location.replace(hash);
    }
  }

  function show(p, moved) {
    pos = Math.max(0, Math.min(last, p));
    var st = states[pos];
    var turn = showTurn(pos);
    st.seats.forEach(function (seat, s) {
      var row = rows[s];
      if (!row) {
        return;
      }
      var gone = forfeitStep[s] !== undefined && forfeitStep[s] <= pos;
      row.tr.className = "status-" + seat.status + (seat.flip7 ? " flip7" : "") +
        (turn === s ? " turn" : "") + (gone ? " forfeited" : "");
      row.status.textContent = (STATUS[seat.status] || seat.status) + (seat.flip7 ? " · Flip 7" : "") +
        (gone ? " · forfeited" : "");
      fill(row.line, seat.line);
      row.score.textContent = seat.line.length ? String(seat.score) : "";
      row.total.textContent = String(seat.total);
    });
    fill($("replay-pending"), st.pending);
    fill($("replay-discard"), st.discard);
    $("replay-discard-count").textContent = st.discard.length + (st.discard.length === 1 ? " card" : " cards");
    $("replay-deck").textContent = st.deck + (st.deck === 1 ? " card" : " cards");
    $("replay-round").textContent = st.round ? String(st.round) : "–";
    $("replay-step").textContent = pos + " / " + last;
    $("replay-slider").value = String(pos);
    $("replay-event").textContent = pos ? items[pos - 1].textContent : "Before the first card.";
    $("replay-first").disabled = $("replay-back").disabled = $("replay-prev-round").disabled = pos === 0;
    $("replay-last").disabled = $("replay-forward").disabled = $("replay-next-round").disabled = pos === last;
    var current = list.querySelector("li.current");
    if (current) {
      current.classList.remove("current");
    }
    if (pos) {
      var li = items[pos - 1];
      li.classList.add("current");
      // keep the current event visible inside the list without scrolling the page
      if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = li.offsetTop - list.clientHeight / 2;
      }
    }
    showChart(pos);
    $("replay-link").setAttribute("href", "#step-" + pos);
    if (moved) {
      setFragment(pos);
    }
  }

  function go(p) {
    show(p, true);
  }

  // ---------------------------------------------------------------- autoplay
  var timer = null;
  var playButton = $("replay-play");
  var speed = $("replay-speed");

  function interval() {
    var ms = Number(speed.value);
    return ms > 0 ? ms : 1000;
  }

  function schedule() {
    timer = setTimeout(function () {
      timer = null;
      go(pos + 1);
      if (pos >= last) {
        stop();
      } else {
        schedule();
      }
    }, interval());
  }

  function play() {
    if (pos >= last) {
      go(0);
    }
    playButton.setAttribute("aria-pressed", "true");
    playButton.textContent = "❚❚ pause";
    if (timer === null) {
      schedule();
    }
  }

  function stop() {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    playButton.setAttribute("aria-pressed", "false");
    playButton.textContent = "▶ play";
  }

  function playing() {
    return playButton.getAttribute("aria-pressed") === "true";
  }

  playButton.addEventListener("click", function () {
    if (playing()) {
      stop();
    } else {
      play();
    }
  });
  speed.addEventListener("change", function () {
    if (playing()) { // the new speed from the next step on
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      schedule();
    }
  });

  // ---------------------------------------------------------------- the fragment
  function stepOf(hash) {
    var m = /^#step-(\d+)$/.exec(hash || "");
    return m ? Number(m[1]) : null;
  }

  // #step-N is also the id of the event's line in the list (so the link works without
  // script); with script, the replay shows that step and the page shows the replay
  function reveal() {
    $("replay").scrollIntoView();
  }

  window.addEventListener("hashchange", function () {
    var p = stepOf(location.hash);
    if (p !== null) {
      if (p !== pos) {
        show(p, false);
      }
      reveal();
    }
  });
  $("replay-link").addEventListener("click", function (e) {
    e.preventDefault(); // the address already holds this step: keep the view where it is
    setFragment(pos);
  });
  document.querySelectorAll("#score-chart a").forEach(function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      go(stepOf(a.getAttribute("href")));
    });
  });

  function nextRound() {
    for (var k = 0; k < roundStarts.length; k++) {
      if (roundStarts[k] > pos) {
        return roundStarts[k];
      }
    }
    return last;
  }

  function prevRound() {
    for (var k = roundStarts.length - 1; k >= 0; k--) {
      if (roundStarts[k] < pos) {
        return roundStarts[k];
      }
    }
    return 0;
  }

  $("replay-first").addEventListener("click", function () { go(0); });
  $("replay-back").addEventListener("click", function () { go(pos - 1); });
  $("replay-forward").addEventListener("click", function () { go(pos + 1); });
  $("replay-last").addEventListener("click", function () { go(last); });
  $("replay-next-round").addEventListener("click", function () { go(nextRound()); });
  $("replay-prev-round").addEventListener("click", function () { go(prevRound()); });
  $("replay-slider").addEventListener("input", function (e) { go(Number(e.target.value)); });
  list.addEventListener("click", function (e) {
    var li = e.target.closest("li[data-step]");
    if (li) {
      e.preventDefault();
      go(Number(li.getAttribute("data-step")));
    }
  });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    if (e.key === "ArrowRight") { go(pos + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(pos - 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(last); e.preventDefault(); }
    else if (e.key === " " && tag !== "BUTTON" && tag !== "A") {
      if (playing()) { stop(); } else { play(); }
      e.preventDefault();
    }
  });

  document.body.classList.add("js");
  var opened = stepOf(location.hash);
  show(opened === null ? 0 : opened, false);
  if (opened !== null) { // opened from a link to a step: show the table, not the list
    if (opened !== pos) {
      setFragment(pos); // past the end: the last step
    }
    reveal();
    window.addEventListener("load", reveal); // after the browser's own jump to the list line
  }
  }
})();
