// The report page's behaviour: a citation opens its reference in the viewer, a snapshot
// link shows the cited source with the span highlighted, the sources table filters.
// Page text is only ever set as text (textContent, text nodes), never parsed as HTML.
(function () {
  "use strict";
  const viewer = document.getElementById("viewer");
  const viewerTitle = document.getElementById("viewer-title");
  const viewerBody = document.getElementById("viewer-body");
  const snapshots = JSON.parse(document.getElementById("snapshots").textContent);

  function open(title, nodes) {
    viewerTitle.textContent = title;
    viewerBody.replaceChildren(...nodes);
    if (!viewer.open) viewer.showModal();
  }

  function showReference(number) {
    const item = document.getElementById("ref-" + number);
    if (!item) return;
    const copy = document.createElement("div"); // the item's content, not a stray <li>
    copy.className = "ref-view";
    copy.append(...Array.from(item.childNodes, function (node) { return node.cloneNode(true); }));
    open("Citation [" + number + "]", [copy]);
  }

  // Offsets count code points, as Python does: slice the text as an array of them.
  function showSnapshot(sourceId, start, end) {
    const snapshot = snapshots[sourceId];
    if (!snapshot) return;
    const pre = document.createElement("pre");
    pre.className = "snapshot";
    pre.tabIndex = 0;
    let mark = null;
    snapshot.windows.forEach(function (window, index) {
      const chars = Array.from(window[1]);
      const from = window[0];
      const to = from + chars.length;
      if (index > 0 || from > 0) pre.append(gapMarker(from));
      if (start >= from && end <= to) {
        pre.append(document.createTextNode(chars.slice(0, start - from).join("")));
        mark = document.createElement("mark");
        mark.id = "highlight";
        mark.textContent = chars.slice(start - from, end - from).join("");
        pre.append(mark);
        pre.append(document.createTextNode(chars.slice(end - from).join("")));
      } else {
        pre.append(document.createTextNode(window[1]));
      }
    });
    const last = snapshot.windows[snapshot.windows.length - 1];
    if (last[0] + Array.from(last[1]).length < snapshot.length) pre.append(gapMarker(-1));
    const about = document.createElement("p");
    about.textContent = snapshot.location + ": characters " + start + "–" + end + " of " +
      snapshot.length + " highlighted";
    open("Snapshot", [about, pre]);
    if (mark) mark.scrollIntoView({ block: "center" });
  }

  function gapMarker(at) {
    const span = document.createElement("span");
    span.className = "gap-marker";
    span.textContent = at < 0 ? "\n[… rest not embedded …]\n" : "\n[… up to char " + at + " not embedded …]\n";
    return span;
  }

  function route() {
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.has("snapshot")) {
      showSnapshot(params.get("snapshot"), Number(params.get("start")), Number(params.get("end")));
    }
  }

  document.addEventListener("click", function (event) {
    const cite = event.target.closest("a.cite");
    if (cite) {
      event.preventDefault();
      showReference(cite.dataset.ref);
    }
    const link = event.target.closest("a.snapshot-link");
    if (link && link.getAttribute("href") === location.hash) route(); // no hashchange
  });
  document.getElementById("viewer-close").addEventListener("click", function () {
    viewer.close();
  });
  viewer.addEventListener("close", function () {
    if (location.hash.startsWith("#snapshot=")) {
      history.replaceState(null, "", location.pathname + location.search);
    }
  });
  window.addEventListener("hashchange", route);
  route();

  const filter = document.getElementById("source-filter");
  const status = document.getElementById("status-filter");
  const origin = document.getElementById("origin-filter");
  const count = document.getElementById("source-count");
  function applyFilter() {
    const words = filter.value.trim().toLowerCase();
    const rows = document.querySelectorAll("#sources-table tbody tr");
    let shown = 0;
    rows.forEach(function (row) {
      const visible = (!words || row.textContent.toLowerCase().includes(words)) &&
        (!status.value || row.dataset.status === status.value) &&
        (!origin.value || row.dataset.origin === origin.value);
      row.hidden = !visible;
      if (visible) shown += 1;
    });
    count.textContent = shown + " of " + rows.length + " shown";
  }
  if (filter) {
    [filter, status, origin].forEach(function (control) {
      control.addEventListener("input", applyFilter);
      control.addEventListener("change", applyFilter); // a select may send only this
    });
    filter.form.addEventListener("submit", function (event) { event.preventDefault(); });
  }
})();
