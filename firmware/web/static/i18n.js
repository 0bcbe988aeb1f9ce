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

  window.baccaratI18n = {
    language,
    formatNumber,
    formatDateTime: (date) => dateTime.format(date),
    formatTime: (date) => time.format(date),
  };
})();
