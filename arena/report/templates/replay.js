/* Flip 7 Arena replay: steps through a game's table states.
 *
 * The states were computed by the report (the engine replayed the game) and are embedded
 * in the page as patches: each step lists the seats that changed and the cards added to
 * the discard pile. They are expanded once here; stepping then only redraws. All text is
 * set with textContent, never parsed as HTML. */
(function () {
  "use strict";

  var source = document.getElementById("replay-data");
  if (!source) {
    return;
  }
  var data = JSON.parse(source.textContent);
  var cards = data.cards || {};
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

  function show(p) {
    pos = Math.max(0, Math.min(last, p));
    var st = states[pos];
    st.seats.forEach(function (seat, s) {
      var row = rows[s];
      if (!row) {
        return;
      }
      row.tr.className = "status-" + seat.status + (seat.flip7 ? " flip7" : "");
      row.status.textContent = (STATUS[seat.status] || seat.status) + (seat.flip7 ? " · Flip 7" : "");
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
  }

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

  $("replay-first").addEventListener("click", function () { show(0); });
  $("replay-back").addEventListener("click", function () { show(pos - 1); });
  $("replay-forward").addEventListener("click", function () { show(pos + 1); });
  $("replay-last").addEventListener("click", function () { show(last); });
  $("replay-next-round").addEventListener("click", function () { show(nextRound()); });
  $("replay-prev-round").addEventListener("click", function () { show(prevRound()); });
  $("replay-slider").addEventListener("input", function (e) { show(Number(e.target.value)); });
  list.addEventListener("click", function (e) {
    var li = e.target.closest("li[data-step]");
    if (li) {
      show(Number(li.getAttribute("data-step")));
    }
  });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    if (e.key === "ArrowRight") { show(pos + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { show(pos - 1); e.preventDefault(); }
    else if (e.key === "Home") { show(0); e.preventDefault(); }
    else if (e.key === "End") { show(last); e.preventDefault(); }
  });

  document.body.classList.add("js");
  show(0);
})();
