// The talk page: a typed question's answer shown (and heard) sentence by
// sentence as the box says it, and the last turns redrawn as they come.
// Without this file the form still posts and the page shows the answer.
(function () {
  "use strict";
  var byId = function (id) { return document.getElementById(id); };
  var form = byId("talk-form");
  var SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, kids, ns) {
    var e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    (kids || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }

  // The answer's sentences, played one after another in the box's voice.
  var queue = [], playing = false;
  function play() {
    if (playing || !queue.length) return;
    playing = true;
    var a = new Audio("/talk/voice?text=" + encodeURIComponent(queue.shift()));
    var next = function () { playing = false; play(); };
    a.onended = next;
    a.onerror = next;
    a.play().catch(next);
  }

  if (form && window.fetch && window.TextDecoder) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var q = byId("q").value.trim();
      if (!q) return;
      var hear = byId("hear") && byId("hear").checked;
      byId("reply").hidden = false;
      byId("reply-q").textContent = q;
      var answer = byId("reply-a"), hint = byId("reply-hint");
      answer.textContent = "…";
      hint.hidden = true;
      var body = new URLSearchParams();
      body.set("csrf", form.querySelector("[name=csrf]").value);
      body.set("q", q);
      var first = true;
      fetch("/talk", { method: "POST", body: body, headers: { Accept: "application/x-ndjson" }, credentials: "same-origin" }).then(function (resp) {
        if (!resp.ok) return resp.text().then(function (t) { throw new Error(t); });
        var reader = resp.body.getReader(), dec = new TextDecoder(), buf = "";
        function line(l) {
          if (!l) return;
          var m = JSON.parse(l);
          if (m.sentence) {
            answer.textContent = (first ? "" : answer.textContent + " ") + m.sentence;
            first = false;
            if (hear) { queue.push(m.sentence); play(); }
          }
          if (m.done) {
            if (first) answer.textContent = "";
            if (m.error || m.hint) { hint.textContent = m.hint || m.error; hint.hidden = false; }
            form.dispatchEvent(new CustomEvent("answered"));
          }
        }
        function pump() {
          return reader.read().then(function (r) {
            if (r.done) { line(buf); return; }
            buf += dec.decode(r.value, { stream: true });
            var parts = buf.split("\n");
            buf = parts.pop();
            parts.forEach(line);
            return pump();
          });
        }
        return pump();
      }).catch(function (e) {
        answer.textContent = "";
        hint.textContent = String(e.message || e);
        hint.hidden = false;
      });
    });
  }

  // The stages of a turn, as the server writes them.
  function stages(t) {
    var p = [];
    var add = function (name, ms) { if (ms > 0) p.push(name + " " + Math.round(ms) + " ms"); };
    add("listening", t.endpoint_ms); add("transcribing", t.transcribe_ms); add("first word", t.first_token_ms); add("first sound", t.first_audio_ms);
    if (t.source === "typed") add("whole answer", t.total_ms);
    var d = new Date(t.at), pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + " · " + p.join(" · ");
  }

  var classes = ["s-endpoint", "s-transcribe", "s-token", "s-audio"];
  var names = ["listening", "transcribing", "the model's first word", "the first sound"];
  // The chart as the server draws it: a bar a turn, its stages stacked.
  function chart(turns) {
    var svg = byId("chart");
    if (!svg) return;
    var width = 500, height = 120, kept = 50, w = Math.floor(width / kept);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var parts = turns.map(function (t) {
      var rest = t.source === "typed" ? Math.max(t.total_ms - t.first_token_ms, 0) : Math.max(t.first_audio_ms - t.transcribe_ms - t.first_token_ms, 0);
      return [t.endpoint_ms, t.transcribe_ms, t.first_token_ms, rest];
    });
    var longest = Math.max.apply(null, parts.map(function (p) { return p[0] + p[1] + p[2] + p[3]; }).concat([1]));
    turns.forEach(function (t, i) {
      var g = el("g", {}, [], SVG), y = height, words = [];
      var x = (kept - turns.length + i) * w + 1;
      parts[i].forEach(function (ms, j) {
        var h = Math.floor(height * ms / longest);
        if (h <= 0) return;
        y -= h;
        g.appendChild(el("rect", { "class": classes[j], x: x, y: y, width: w - 2, height: h }, [], SVG));
        words.push(names[j] + " " + Math.round(ms) + " ms");
      });
      g.insertBefore(el("title", {}, [t.heard + ": " + words.join(", ")], SVG), g.firstChild);
      svg.appendChild(g);
    });
  }

  window.harkTurns = function (turns) {
    var list = byId("turns");
    if (!list) return;
    while (list.firstChild) list.removeChild(list.firstChild);
    turns.slice().reverse().forEach(function (t) {
      var said = [el("span", { "class": "who" }, ["Said:"]), " " + t.said];
      if (t.cut) said.push(" ", el("em", {}, ["(cut short)"]));
      var kids = [el("p", {}, [el("span", { "class": "who" }, [t.source === "typed" ? "Typed:" : "Heard:"]), " " + (t.heard || "(nothing)")]), el("p", {}, said)];
      if (t.error) kids.push(el("p", { "class": "bad" }, [t.error]));
      kids.push(el("p", { "class": "stages" }, [el("small", {}, [stages(t)])]));
      list.appendChild(el("li", {}, kids));
    });
    if (!turns.length) list.appendChild(el("li", { "class": "empty" }, [list.dataset.empty || ""]));
    chart(turns);
  };
})();
