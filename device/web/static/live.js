// Live updates over server-sent events: the status page's state, the log
// page's new lines, an update's progress, what rings (on every page, with
// its Stop) and the timers' countdowns. Every page works without this
// file: it only keeps what the server rendered up to date.
(function () {
  "use strict";
  var byId = function (id) { return document.getElementById(id); };
  var state = byId("state"), log = byId("log"), progress = byId("update-progress");
  var ringing = byId("ringing"), alerts = byId("alerts");
  // A slider says its value as it moves.
  var ranges = document.querySelectorAll('input[type="range"]');
  for (var i = 0; i < ranges.length; i++) ranges[i].addEventListener("input", function (e) {
    var out = document.querySelector('output[for="' + e.target.id + '"]');
    if (out) out.textContent = e.target.value + (e.target.dataset.unit || "");
  });
  // The welcome's time zone: the browser's own, when the box has none.
  var zone = document.querySelector("[data-browser-zone]");
  if (zone && !zone.value && window.Intl) zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  var csrf = document.documentElement.dataset.csrf;

  // A countdown: "4:59", "1:02:03", "2 days 3 h", "now".
  function left(due) {
    var s = Math.round((new Date(due) - Date.now()) / 1000);
    if (s <= 0) return "now";
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    if (s >= 48 * 3600) return Math.floor(s / 86400) + " days " + Math.floor(s % 86400 / 3600) + " h";
    if (s >= 3600) return Math.floor(s / 3600) + ":" + pad(Math.floor(s % 3600 / 60)) + ":" + pad(s % 60);
    return Math.floor(s / 60) + ":" + pad(s % 60);
  }
  function tick() {
    var ts = document.querySelectorAll("time.countdown");
    for (var i = 0; i < ts.length; i++) ts[i].textContent = left(ts[i].getAttribute("datetime"));
  }
  if (document.querySelector("time.countdown") || alerts) setInterval(tick, 1000);

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    (kids || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  // One row of the timers page, as the server renders it.
  function row(a) {
    var what = [el("strong", {}, [a.kind])];
    if (a.name) what.push(" “" + a.name + "”");
    what.push(": ");
    if (a.ringing) {
      what.push(el("strong", { "class": "bad" }, ["ringing"]));
    } else {
      what.push(el("time", { "class": "countdown", datetime: a.due }, [left(a.due)]), " left ",
        el("small", {}, ["(" + a.when + (a.repeats ? ", repeating" : "") + ")"]));
    }
    var button = a.ringing ?
      el("button", { type: "submit", "class": "stop", "aria-label": "Stop the " + a.kind + " " + (a.name || "") }, ["Stop"]) :
      el("button", { type: "submit", "aria-label": "Cancel the " + a.kind + " " + (a.name || "") + " at " + a.when }, ["Cancel"]);
    var form = el("form", { method: "post", action: "/timers/" + encodeURIComponent(a.id) + "/cancel" },
      [el("input", { type: "hidden", name: "csrf", value: csrf }), button]);
    return el("li", a.ringing ? { "data-id": a.id, "class": "is-ringing" } : { "data-id": a.id }, [el("span", {}, what), form]);
  }

  var turns = byId("turns");
  var wanted = state || log || progress || ringing || alerts || turns;
  if (!wanted || !window.EventSource) return;
  var url = "/events" + (log ? "?logs=" + encodeURIComponent(log.dataset.level || "INFO") : progress ? "?update" : turns ? "?turns" : "");
  var es = new EventSource(url);
  es.addEventListener("state", function (e) {
    if (!state) return;
    var s = JSON.parse(e.data);
    state.textContent = s.state;
    document.documentElement.dataset.live = "state"; // for the tests: the stream has spoken
    var answer = byId("answer");
    if (answer && s.answer) {
      answer.textContent = s.answer.sentence;
      answer.className = "answer " + (s.answer.can === "yes" ? "ok" : "bad");
      var todo = byId("answer-todo");
      if (todo) {
        todo.textContent = s.answer.todo || "";
        if (s.answer.fix) todo.appendChild(el("a", { href: s.answer.fix }, ["Put it right"]));
      }
    }
    var health = byId("health");
    if (health) {
      var bad = (s.checks || []).filter(function (c) { return !c.ok; });
      health.textContent = !s.ready ? "the pipeline is not armed yet" :
        bad.length ? bad[0].name + ": " + bad[0].detail : "All checks pass";
    }
  });
  es.addEventListener("alerts", function (e) {
    var d = JSON.parse(e.data);
    if (ringing) {
      ringing.hidden = !d.ringing;
      byId("ringing-what").textContent = d.ringing;
    }
    if (alerts) {
      while (alerts.firstChild) alerts.removeChild(alerts.firstChild);
      d.alerts.forEach(function (a) { alerts.appendChild(row(a)); });
      alerts.hidden = d.alerts.length === 0;
      var none = byId("no-alerts");
      if (none) none.hidden = d.alerts.length !== 0;
    }
  });
  es.addEventListener("update", function (e) {
    if (!progress) return;
    var j = JSON.parse(e.data);
    progress.value = j.percent;
    progress.textContent = j.percent + " %";
    byId("update-percent").textContent = j.percent;
    byId("update-phase").textContent = j.phase ?
      j.phase + (j.version ? " " + j.version : "") + (j.error ? ": " + j.error : "") : "Nothing is being installed.";
  });
  es.addEventListener("log", function (e) {
    if (!log) return;
    var atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.appendChild(document.createTextNode(JSON.parse(e.data) + "\n"));
    if (atEnd) log.scrollTop = log.scrollHeight;
  });
  es.addEventListener("turns", function (e) {
    if (turns && window.harkTurns) window.harkTurns(JSON.parse(e.data));
  });
})();
