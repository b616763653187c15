// samestory pages: optional enhancements only; every page reads the same with JavaScript off.
(function () {
  "use strict";

  // ISO 8601 in the reader's own time zone, e.g. 2026-11-20T09:15:00+09:00.
  function localIso(date) {
    const pad = (n) => String(Math.abs(n)).padStart(2, "0");
    const off = -date.getTimezoneOffset();
    const sign = off >= 0 ? "+" : "-";
    return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) +
      "T" + pad(date.getHours()) + ":" + pad(date.getMinutes()) + ":" + pad(date.getSeconds()) +
      sign + pad(Math.trunc(off / 60)) + ":" + pad(off % 60);
  }

  function localiseTimes(root) {
    root.querySelectorAll("time[datetime]").forEach(function (el) {
      const d = new Date(el.getAttribute("datetime"));
      if (!isNaN(d.getTime())) { el.textContent = localIso(d); el.title = el.getAttribute("datetime") + " (UTC)"; }
    });
  }

  // Corrections change stories for everyone: ask first. "{name}" in the question is the value
  // the form's field of that name has when it is sent (the documents chosen in "Not the same").
  function confirmForms(root) {
    root.querySelectorAll("form[data-confirm]").forEach(function (form) {
      form.addEventListener("submit", function (ev) {
        const question = form.getAttribute("data-confirm").replace(/\{(\w+)\}/g, function (all, name) {
          const field = form.elements.namedItem(name);
          return field && "value" in field ? field.value : all;
        });
        if (!window.confirm(question)) { ev.preventDefault(); }
      });
    });
  }

  // The compare box answers in place (the same POST, asking for the result fragment only).
  function compareInPlace() {
    const form = document.getElementById("compare");
    const result = document.getElementById("result");
    if (!form || !result || !window.fetch) { return; }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      const body = new URLSearchParams(new FormData(form));
      result.setAttribute("aria-busy", "true");
      fetch("/ui/compare?part=result", { method: "POST", body: body, credentials: "same-origin" })
        .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.text(); })
        .then(function (html) { result.outerHTML = html; })
        .catch(function () { form.submit(); })  // fall back to the plain form post
        .finally(function () { const r = document.getElementById("result"); if (r) { r.removeAttribute("aria-busy"); } });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localiseTimes(document);
    confirmForms(document);
    compareInPlace();
  });
})();
