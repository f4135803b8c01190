// The text of a PDF that Chromium printed, enough to check what it holds: each font's
// ToUnicode map read, each page's text-showing operators decoded with it. Chromium's PDFs (Skia)
// keep objects uncompressed and streams Flate-compressed, and show text as hex glyph ids
// (Identity-H); that is all this reads. Not a general PDF reader.
import { inflateSync } from "node:zlib";

/// Objects by number: their dictionary text and their stream, inflated.
function objects(pdf) {
  const src = pdf.toString("latin1");
  const out = new Map();
  const re = /(\d+) 0 obj\s*([\s\S]*?)endobj/g;
  for (let m; (m = re.exec(src));) {
    const body = m[2];
    const at = body.search(/stream\r?\n/);
    let dict = body, data = null;
    if (at >= 0 && /^\s*<</.test(body)) {
      dict = body.slice(0, at);
      const start = body.indexOf("\n", at) + 1;
      const raw = Buffer.from(body.slice(start, body.lastIndexOf("endstream")), "latin1");
      try {
        data = (/FlateDecode/.test(dict) ? inflateSync(raw) : raw).toString("latin1");
      } catch {
        data = "";
      }
    }
    out.set(m[1], { dict, data });
  }
  return out;
}

/// A ToUnicode CMap: glyph code (hex) → text.
function cmap(text) {
  const map = new Map();
  const utf16 = (hex) => String.fromCharCode(...hex.match(/.{4}/g).map((h) => parseInt(h, 16)));
  for (const block of text.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, code, to] of block[1].matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) map.set(parseInt(code, 16), utf16(to));
  }
  for (const block of text.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, lo, hi, to] of block[1].matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) {
      const first = parseInt(to.slice(-4), 16);
      for (let c = parseInt(lo, 16); c <= parseInt(hi, 16); c++) {
        map.set(c, utf16(to.slice(0, -4) + (first + c - parseInt(lo, 16)).toString(16).padStart(4, "0")));
      }
    }
  }
  return map;
}

/// The text shown on every page, in drawing order, a line break at each text block's end.
export function pdfText(pdf) {
  const objs = objects(pdf);
  const fonts = new Map();
  for (const { dict } of objs.values()) {
    for (const [, name, num] of dict.matchAll(/\/([A-Za-z0-9_.+-]+) (\d+) 0 R/g)) {
      const font = objs.get(num);
      const uni = font && /\/Type\s*\/Font/.test(font.dict) && font.dict.match(/\/ToUnicode (\d+) 0 R/);
      if (uni) fonts.set(name, cmap(objs.get(uni[1])?.data || ""));
    }
  }
  let text = "";
  for (const { data } of objs.values()) {
    if (!data || !/\bTf\b/.test(data)) continue;
    let font = new Map();
    for (const [tok] of data.matchAll(/\/[^\s/<>[\]()]+\s+[\d.]+\s+Tf|<[0-9A-Fa-f]*>|\bET\b|\bT\*|\bT[dD]\b/g)) {
      if (tok.endsWith("Tf")) font = fonts.get(tok.slice(1).split(/\s/)[0]) || new Map();
      else if (tok.startsWith("<")) {
        for (const code of tok.slice(1, -1).match(/.{4}/g) || []) text += font.get(parseInt(code, 16)) ?? "";
      } else text += tok === "ET" ? "\n" : " ";
    }
  }
  return text;
}
