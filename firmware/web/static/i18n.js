// The pages' messages in the page's language: _("Text {name}", {name}) and
// ngettext("{n} strike", "{n} strikes", n). The catalog comes as /i18n/<code>.js (the prop's
// firmware/i18n builds it from the language's .po file); without one, the English message is the
// text. Numbers and dates the manual does not fix follow the page's language (formatNumber,
// formatDateTime: the 24-hour clock, as the log's times). No framework and no build step.
"use strict";

(() => {
  const catalog = window.BACCARAT_I18N || { language: "en", plural: (n) => Number(n !== 1), messages: {} };
  const language = document.documentElement.lang || catalog.language || "en";

  function fill(text, values) {
    if (!values) return text;
    return text.replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
  }

  window._ = (message, values) => fill(catalog.messages[message] || message, values);

  window.ngettext = (singular, plural, n, values) => {
    const forms = catalog.messages[singular];
    let text = n === 1 ? singular : plural;
    if (Array.isArray(forms)) text = forms[Math.min(Math.max(0, catalog.plural(n)), forms.length - 1)];
    return fill(text, { n: formatNumber(n), ...values });
  };

  function formatNumber(value, options) {
    return new Intl.NumberFormat(language, options).format(value);
  }

  const dateTime = new Intl.DateTimeFormat(language, {
    year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
    hourCycle: "h23",
  });
  const time = new Intl.DateTimeFormat(language, { hour: "2-digit", minute: "2-digit", second: "2-digit",
    hourCycle: "h23" });

  // The prop's own names in words, one table for every page: the displays' roles (as the front
  // panel's silkscreen names them), the deck colours, and the events an output switches at (the
  // config's names for them, firmware/devices/switching.py).
  const names = {
    placard: _("Placard"), table: _("Table"), bets: _("Bets"), casing: _("Casing"),
    red: _("red"), blue: _("blue"), green: _("green"), silver: _("silver"),
    solved: _("solved"), strike: _("strike"), exploded: _("exploded"), reset: _("reset"), deal: _("deal"),
  };

  window.baccaratI18n = {
    language,
    // A role's, colour's or event's name in the page's language (the name itself if it has none).
    named: (key) => (Object.hasOwn(names, key) ? names[key] : key),
    formatNumber,
    formatDateTime: (date) => dateTime.format(date),
    formatTime: (date) => time.format(date),
  };
})();
