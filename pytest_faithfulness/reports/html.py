"""The HTML report: one self-contained file people read.

Every answer with its claims coloured by verdict, each quote highlighted in its passage,
filters (all / failing / contradicted / unsupported) shown ``PAGE_SIZE`` answers a page,
the headline figures, the gate, the
comparison with a saved run, and a distribution chart of per-answer faithfulness as inline
SVG. No network asset of any kind: CSS and JavaScript are inline, and a Content-Security-Policy
allows only those two exact blocks (by hash), so nothing can be fetched and no injected
script can run. Every answer, passage, claim, quote and test id is HTML-escaped: they are
untrusted data. Nothing here imports pytest.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..records import AnswerResult, SessionSummary
from ..run.outcome import RunOutcome, shows_as_failing
from . import unverified
from .files import write_atomic
from .spans import citation_text, turn_text
from .terminal import usage_text
from .text import printable
from .verdict import thresholds_text

_CSS = """
:root{--ok:#1a7f37;--ok-bg:#dafbe1;--bad:#cf222e;--bad-bg:#ffebe9;--warn:#9a6700;
--warn-bg:#fff8c5;--mute:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;
background:#fff;overflow-wrap:anywhere;word-break:break-word}
header,main,section,nav{max-width:1100px;margin:0 auto;padding:0 20px}
header{padding-top:18px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:22px 0 8px}
h3{font-size:15px;margin:0;word-break:break-all}
.meta{color:var(--mute);margin:0 0 4px}
.figures{display:flex;flex-wrap:wrap;gap:10px;margin-top:12px}
.figure{border:1px solid var(--line);border-radius:8px;padding:8px 12px;min-width:130px;
background:var(--bg)}
.figure .v{font-size:20px;font-weight:600}
.figure .k{color:var(--mute);font-size:12px}
.gate{border-radius:8px;padding:8px 12px;margin-top:12px;font-weight:600}
.gate.passed{background:var(--ok-bg);color:var(--ok)}
.gate.failed{background:var(--bad-bg);color:var(--bad)}
.gate.incomplete{background:var(--warn-bg);color:var(--warn)}
.gate ul{margin:4px 0 0;font-weight:400}
.warning{background:var(--warn-bg);color:var(--warn);border-radius:6px;padding:6px 10px;
margin:6px 0;font-weight:600}
table{border-collapse:collapse;margin:6px 0}
td,th{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.worse td{color:var(--bad)}
svg text{font:11px system-ui,sans-serif;fill:#57606a}
nav#filters{position:sticky;top:0;background:#fff;padding-top:8px;padding-bottom:8px;
border-bottom:1px solid var(--line);z-index:1}
nav button{font:inherit;border:1px solid var(--line);background:var(--bg);border-radius:16px;
padding:3px 12px;margin-right:6px;cursor:pointer}
nav button[aria-pressed=true]{background:#0969da;color:#fff;border-color:#0969da}
#shown{color:var(--mute);margin-left:6px}
article.answer{border:1px solid var(--line);border-radius:8px;margin:12px 0;padding:10px 14px}
article.answer.failing{border-left:5px solid var(--bad)}
article.answer[hidden]{display:none}
.head{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.score{font-weight:700;font-size:16px}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600}
.b-supported{background:var(--ok-bg);color:var(--ok)}
.b-contradicted{background:var(--bad-bg);color:var(--bad)}
.b-unsupported{background:var(--warn-bg);color:var(--warn)}
.b-none,.b-unscored,.b-unverified{background:#eaeef2;color:var(--mute)}
.b-error{background:var(--bad);color:#fff}
.reasons{color:var(--bad);margin:4px 0}
.answer-text{background:var(--bg);border-radius:6px;padding:6px 10px;white-space:pre-wrap;
margin:6px 0}
ol.claims{padding-left:22px;margin:6px 0}
ol.claims li{margin:3px 0;padding:2px 6px;border-radius:4px}
li.v-supported{background:#f0fbf3}
li.v-contradicted{background:var(--bad-bg)}
li.v-unsupported{background:#fffbe0}
li.v-none{background:#eaeef2}
.ev{color:var(--mute);font-size:13px}
.note{color:var(--mute);font-style:italic;font-size:13px}
.rationale{color:#1f2328;font-size:13px}
.passage{border-top:1px dashed var(--line);padding:4px 0}
.passage .pid{font-weight:600;font-family:ui-monospace,monospace;font-size:12px}
.passage p{margin:2px 0;white-space:pre-wrap}
mark{border-radius:3px;padding:0 1px}
mark.m-supported{background:#aceebb}
mark.m-contradicted{background:#ffcecb}
mark.m-unsupported{background:#ffe58f}
.answer-text mark{cursor:help;border-bottom:2px solid transparent}
.answer-text mark.m-contradicted{border-bottom-color:var(--bad)}
.answer-text mark.m-unsupported{border-bottom-color:var(--warn)}
.answer-text mark sup{font-size:10px;font-weight:700;margin-left:1px}
.legend{color:var(--mute);font-size:12px;margin:2px 0}
section.conversation{border:1px dashed var(--line);border-radius:8px;margin:12px 0;
padding:4px 10px}
section.conversation h3{margin:6px 0}
.dropped{color:var(--mute);font-size:13px}
details summary{cursor:pointer;color:var(--mute)}
footer{max-width:1100px;margin:20px auto;padding:0 20px;color:var(--mute);font-size:12px}
"""

#: Answers shown per page: a report of thousands of answers lays out one page at a time.
PAGE_SIZE = 100

#: Answers named in the outcome box at most; the rest are counted (the filters list them).
GATE_NAMES = 50

#: The ``type`` of the inert ``<script>`` blocks that hold the answers after the first page
#: (``_answers_html``); the page's script turns one into its ``<article>`` when it is shown.
LAZY_TYPE = "text/x-faithfulness-answer"

_JS = f"""
(function(){{
  var PAGE={PAGE_SIZE:d};
  var items=[].slice.call(document.querySelectorAll(
    'article.answer,script[type="{LAZY_TYPE}"]'));
""" + """  var buttons=[].slice.call(document.querySelectorAll('nav#filters button[data-filter]'));
  var pager=[].slice.call(document.querySelectorAll('nav#filters button[data-page]'));
  var shown=document.getElementById('shown');
  var maker=document.createElement('template');
  var matched=[], visible=[], page=0, current='all';
  function show(i){
    var el=items[i];
    if(el.tagName==='SCRIPT'){
      maker.innerHTML=el.textContent;
      var made=maker.content.firstElementChild;
      el.parentNode.replaceChild(made,el); items[i]=el=made;
    }
    el.hidden=false; return el;
  }
  function render(){
    var pages=Math.max(1,Math.ceil(matched.length/PAGE));
    if(page>=pages){page=pages-1;} if(page<0){page=0;}
    var start=page*PAGE, end=Math.min(start+PAGE,matched.length);
    visible.forEach(function(a){a.hidden=true;});
    visible=[];
    for(var k=start;k<end;k++){visible.push(show(matched[k]));}
    shown.textContent=matched.length<=PAGE?'showing '+matched.length+' of '+items.length:
      'showing '+(start+1)+'–'+end+' of '+matched.length+' (page '+(page+1)+' of '+
      pages+'; '+items.length+' answers in all)';
    pager.forEach(function(b){
      b.hidden=matched.length<=PAGE;
      b.disabled=b.getAttribute('data-page')==='prev'?page===0:end>=matched.length;});
    try{history.replaceState(null,'','#filter='+current+(page?'&page='+(page+1):''));}
    catch(e){}
  }
  function apply(f,p){
    if(['all','failing','contradicted','unsupported'].indexOf(f)<0){f='all';}
    current=f; matched=[];
    for(var i=0;i<items.length;i++){
      if(f==='all'||items[i].getAttribute('data-'+f)==='1'){matched.push(i);}}
    buttons.forEach(function(b){b.setAttribute('aria-pressed',
      b.getAttribute('data-filter')===f?'true':'false');});
    document.body.setAttribute('data-filter',f);
    page=p||0; render();
  }
  buttons.forEach(function(b){b.addEventListener('click',function(){
    apply(b.getAttribute('data-filter'),0);});});
  pager.forEach(function(b){b.addEventListener('click',function(){
    page+=b.getAttribute('data-page')==='prev'?-1:1; render(); window.scrollTo(0,
      document.getElementById('filters').offsetTop);});});
  items.forEach(function(el){if(el.tagName!=='SCRIPT'){el.hidden=true;}});
  var m=/filter=([a-z]+)/.exec(location.hash||''), p=/page=([0-9]+)/.exec(location.hash||'');
  apply(m?m[1]:'all',p?parseInt(p[1],10)-1:0);
  document.documentElement.setAttribute('data-rendered-ms',String(Math.round(performance.now())));
})();
"""


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _e(value: Any) -> str:
    """Any value as inert HTML text: sanitised (``text.printable``: controls, bidirectional
    and invisible characters shown as escapes, lone surrogates replaced), then HTML-escaped
    (quotes too, so it is safe in attributes)."""
    return html.escape(printable(value), quote=True)


def _fmt(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:.1%}" if pct else f"{value:.2f}"


def find_quote(quote: str | None, text: str) -> tuple[int, int] | None:
    """Where ``quote`` occurs in ``text`` as ``(start, end)`` character offsets: exactly,
    else ignoring case, runs of whitespace and typographic quotes; ``None`` if it does not."""
    if not quote or not quote.strip():
        return None
    at = text.find(quote)
    if at >= 0:
        return at, at + len(quote)
    words = quote.split()
    if not words:
        return None
    quotes = {"'": "['\u2018\u2019]", '"': "[\"\u201c\u201d]", "\u2018": "['\u2018\u2019]",
              "\u2019": "['\u2018\u2019]", "\u201c": "[\"\u201c\u201d]",
              "\u201d": "[\"\u201c\u201d]"}
    pattern = r"\s+".join("".join(quotes.get(ch, re.escape(ch)) for ch in w) for w in words)
    match = re.search(pattern, text, flags=re.IGNORECASE)
    return (match.start(), match.end()) if match else None


def _joined(answer: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A claim's spans inside the answer, in order, with neighbours joined when only markup
    or spaces lie between them (``<b>Gift cards</b> never expire`` is one mark)."""
    out: list[list[int]] = []
    for start, end in sorted(s for s in spans if 0 <= s[0] < s[1] <= len(answer)):
        if out and not re.search(r"\w", re.sub(r"<[^<>]*>", "", answer[out[-1][1]:start])):
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(a, b) for a, b in out]


def _highlight(text: str, spans: list[tuple[int, int, str, str]], numbered: str = "") -> str:
    """``text`` escaped, with each span wrapped in ``<mark>`` (overlaps merged; contradicted
    wins the colour over supported). ``numbered`` (an anchor prefix such as ``a1-c``): each
    mark is focusable and ends with the claim number(s) its title names (``claim 4: ...``)
    as superscript links to ``#<prefix><number>``."""
    merged: list[list[Any]] = []
    for start, end, label, title in sorted(spans):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            if label == "contradicted":
                last[2] = label
            last[3] = f"{last[3]}; {title}"
        else:
            merged.append([start, end, label, title])
    out, pos = [], 0
    for start, end, label, title in merged:
        out.append(_e(text[pos:start]))
        if numbered:
            numbers = dict.fromkeys(re.findall(r"(?:^|; )claim (\d+):", title))
            links = ",".join(f'<a href="#{_e(numbered)}{n}">{n}</a>' for n in numbers)
            out.append(f'<mark class="m-{_e(label)}" tabindex="0" title="{_e(title)}">'
                       f'{_e(text[start:end])}<sup>{links}</sup></mark>')
        else:
            out.append(f'<mark class="m-{_e(label)}" title="{_e(title)}">'
                       f'{_e(text[start:end])}</mark>')
        pos = end
    out.append(_e(text[pos:]))
    return "".join(out)


def distribution_svg(scores: list[float], *, bins: int = 10, width: int = 460,
                     height: int = 170) -> str:
    """An inline SVG histogram of per-answer faithfulness scores in [0, 1] (``bins`` equal
    bins; 1.0 falls in the last), with the mean marked. Returns the ``<svg>`` element."""
    counts = [0] * bins
    for s in scores:
        counts[min(bins - 1, max(0, int(s * bins)))] += 1
    top = max(counts, default=0) or 1  # 1 when every bin is empty
    left, right, pad_top, pad_bottom = 34, 10, 12, 28
    plot_w, plot_h = width - left - right, height - pad_top - pad_bottom
    bar_w = plot_w / bins
    parts = [f'<svg id="distribution-chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="distribution of per-answer faithfulness">']
    parts.append(f'<line x1="{left}" y1="{pad_top + plot_h}" x2="{left + plot_w}" '
                 f'y2="{pad_top + plot_h}" stroke="#d0d7de"/>')
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = left + i * bar_w
        y = pad_top + plot_h - h
        lo, hi = i / bins, (i + 1) / bins
        # red (low) to green (high)
        red, green = int(207 - 181 * (i / (bins - 1))), int(34 + 93 * (i / (bins - 1)))
        colour = f"#{red:02x}{green:02x}{55:02x}"
        rng = f"{lo:.1f}-{hi:.1f}" + ("" if i < bins - 1 else " (incl. 1.0)")
        parts.append(f'<rect class="bar" x="{x + 2:.1f}" y="{y:.1f}" width="{bar_w - 4:.1f}" '
                     f'height="{h:.1f}" fill="{colour}" data-count="{count}">'
                     f'<title>{count} answer(s) with faithfulness {rng}</title></rect>')
        if count:
            parts.append(f'<text x="{x + bar_w / 2:.1f}" y="{y - 3:.1f}" '
                         f'text-anchor="middle">{count}</text>')
    for tick in (0.0, 0.5, 1.0):
        x = left + plot_w * tick
        parts.append(f'<text x="{x:.1f}" y="{height - 10}" text-anchor="middle">{tick:.1f}</text>')
    parts.append(f'<text x="4" y="{pad_top + 8}">{top}</text>')
    if scores:
        mean = sum(scores) / len(scores)
        x = left + plot_w * mean
        parts.append(f'<line id="mean-line" x1="{x:.1f}" y1="{pad_top - 4}" x2="{x:.1f}" '
                     f'y2="{pad_top + plot_h}" stroke="#0969da" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{min(x + 4, width - 70):.1f}" y="{pad_top + 2}" '
                     f'fill="#0969da">mean {mean:.2f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _claim_label(claim: Any) -> str:
    return claim.label or "none"


def _answer_marks(r: AnswerResult, index: int = 1) -> str:
    """The answer text, escaped, with the source text of each claim that is not supported
    marked: amber for unsupported, red for contradicted (a claim with no verdict amber too);
    the mark's ``title`` (shown on hover, or on focus with the keyboard) holds the claim's
    number, verdict, quote, rationale and note, and the claim number after it links to the
    claim in the list below (a click shows the same). Supported claims are not marked."""
    spans: list[tuple[int, int, str, str]] = []
    for n, claim in enumerate(r.claims, start=1):
        if claim.supported:
            continue
        label = "contradicted" if claim.label == "contradicted" else "unsupported"
        parts = [f"claim {n}: {claim.label or 'no verdict'}: {claim.text}"]
        verdict = claim.verdict
        if verdict is not None:
            parts += [f"quote ({item.passage_id}): {item.quote}" for item in verdict.evidence
                      if item.quote]
        for source in (verdict, claim.judge_verdict):
            if source is not None and source.rationale:
                parts.append(f"rationale: {source.rationale}")
        if claim.citation not in (None, "uncited"):
            cited = ", ".join(claim.cited_ids + claim.unknown_citations)
            parts.append(f"citation: {claim.citation} ({cited})")
        if claim.note:
            parts.append(f"note: {claim.note}")
        for start, end in _joined(r.answer, claim.spans):
            spans.append((start, end, label, "\n".join(parts)))
    return _highlight(r.answer, spans, numbered=f"a{index}-c")


def _filter_attrs(r: AnswerResult) -> str:
    """The answer's ``data-`` flags the filters read (on its article, or on its lazy block)."""
    return (f'data-failing="{int(shows_as_failing(r))}" '
            f'data-contradicted="{int(r.contradicted > 0)}" '
            f'data-unsupported="{int(r.unsupported > 0)}" data-passed="{int(r.passed)}"')


def _lazy(article: str, r: AnswerResult) -> str:
    """An answer's article held inert in a ``<script type=LAZY_TYPE>`` block: the browser
    neither parses it into elements nor lays it out until the page's script shows it, so a
    report of 10,000 answers opens as fast as one of a hundred. Every text inside is already
    escaped, so ``</script`` and ``<!--`` cannot occur; they are neutralised all the same."""
    inert = re.sub(r"(?i)</(script)", r"&lt;/\1", article).replace("<!--", "&lt;!--")
    return f'<script type="{LAZY_TYPE}" {_filter_attrs(r)}>{inert}</script>'


def _answer_html(index: int, r: AnswerResult) -> str:
    failing = shows_as_failing(r)
    status_badge = (f'<span class="badge b-{_e(r.status)}">{_e(r.status)}</span>'
                    if r.status != "scored" else "")
    attrs = _filter_attrs(r)
    out = [f'<article class="answer{" failing" if failing else ""}" id="answer-{index}" {attrs}>']
    out.append(f'<div class="head"><span class="score">{_fmt(r.score)}</span>'
               f'<h3>{_e((r.test_id or f"answer {index}") + turn_text(r))}</h3>{status_badge}'
               f'<span class="ev">{r.supported}/{len(r.claims)} supported, '
               f'{r.contradicted} contradicted, {r.unsupported} unsupported'
               + (f'; citation precision {_fmt(r.citation_precision)}, {r.misattributed} '
                  'misattributed' if r.cited else "")
               + f'{_answer_usage(r)}</span></div>')
    reasons = r.threshold_failures
    if reasons:
        out.append('<ul class="reasons">' + "".join(f"<li>FAILED: {_e(x)}</li>" for x in reasons)
                   + "</ul>")
    if r.status == "unverified" and not reasons:
        out.append(f'<div class="note">unverified: {_e(unverified.reason_of(r))}</div>')
    for warning in r.warnings:
        out.append(f'<div class="note">warning: {_e(warning)}</div>')
    out.append(f'<div class="answer-text">{_answer_marks(r, index)}</div>')
    if r.not_supported:
        out.append('<div class="legend">marked in the answer: <mark class="m-unsupported">'
                   'unsupported</mark> <mark class="m-contradicted">contradicted</mark> '
                   '(hover or focus a mark for the verdict, quote and rationale; click its number '
                   'for the claim)</div>')
    anchors = {p.id: f"a{index}-p{j}" for j, p in enumerate(r.passages, start=1)}
    spans: dict[str, list[tuple[int, int, str, str]]] = {p.id: [] for p in r.passages}
    texts = {p.id: p.text for p in r.passages}
    if r.claims:
        out.append('<ol class="claims">')
        for n, claim in enumerate(r.claims, start=1):
            label = _claim_label(claim)
            verdict = claim.verdict
            item = [f'<li class="claim v-{_e(label)}" id="a{index}-c{n}" '
                    f'data-verdict="{_e(label)}">'
                    f'<span class="badge b-{_e(label)}">'
                    f'{_e(label if label != "none" else "no verdict")}</span> {_e(claim.text)}']
            for ev in verdict.evidence if verdict is not None else ():
                pid = ev.passage_id
                link = f'<a href="#{anchors[pid]}">{_e(pid)}</a>' if pid in anchors else _e(pid)
                quote = f' &ldquo;{_e(ev.quote)}&rdquo;' if ev.quote else ""
                item.append(f'<div class="ev">passage {link}:{quote}</div>')
                where = find_quote(ev.quote, texts.get(pid, ""))
                if where is not None and label in ("supported", "contradicted"):
                    spans[pid].append((where[0], where[1], label, f"claim {n}: {label}"))
            cites = citation_text(claim)
            if cites:
                item.append(f'<div class="ev cite c-{_e(claim.citation)}">{_e(cites)}</div>')
            if claim.note:
                item.append(f'<div class="note">note: {_e(claim.note)}</div>')
            if verdict is not None and verdict.confidence is not None:
                item.append(f'<div class="note">judge&rsquo;s confidence: '
                            f'{verdict.confidence:.2f}</div>')
            from .uncertainty import claim_votes_text

            votes = claim_votes_text(claim)
            if votes:
                unstable = " unstable" if claim.unstable else ""
                item.append(f'<div class="note votes{unstable}">{_e(votes)}</div>')
            judged = claim.judge_verdict
            if judged is not None:
                item.append(f'<div class="note">judge said {_e(judged.label)}</div>')
            if not claim.supported:
                for source, who in ((verdict, "judge&rsquo;s rationale"),
                                    (judged, f"judge&rsquo;s rationale for "
                                     f"{_e(judged.label if judged else '')}")):
                    if source is not None and source.rationale:
                        item.append(f'<div class="rationale">{who}: {_e(source.rationale)}'
                                    "</div>")
            item.append("</li>")
            out.append("".join(item))
        out.append("</ol>")
    if r.error:
        out.append(f'<div class="reasons">error: {_e(r.error)}</div>')
    if r.dropped:
        out.append('<ul class="dropped">' + "".join(
            f'<li>set aside, not scored ({_e(d.reason)}): &ldquo;{_e(d.text)}&rdquo;</li>'
            for d in r.dropped) + "</ul>")
    if r.passages:
        is_open = " open" if failing or len(r.passages) <= 3 else ""
        out.append(f"<details class=\"passages\"{is_open}><summary>{len(r.passages)} "
                   "passage(s)</summary>")
        for p in r.passages:
            out.append(f'<div class="passage" id="{anchors[p.id]}"><span class="pid">'
                       f'{_e(p.id)}</span><p>{_highlight(p.text, spans[p.id])}</p></div>')
        out.append("</details>")
    out.append("</article>")
    return "\n".join(out)


def _answers_html(results: list[AnswerResult]) -> list[str]:
    """Every answer's article, the turns of one conversation grouped in a section. The first
    ``PAGE_SIZE`` are plain HTML (read without the script too); the rest are lazy blocks
    (``_lazy``) in the same places, made into articles when a page or filter shows them."""
    out: list[str] = []
    current: str | None = None
    for i, r in enumerate(results, start=1):
        if r.conversation != current:
            if current is not None:
                out.append("</section>")
            current = r.conversation
            if current is not None:
                turns = sum(1 for x in results if x.conversation == current)
                out.append(f'<section class="conversation" data-conversation="{_e(current)}">'
                           f"<h3>conversation {_e(current)} ({turns} turns)</h3>")
        article = _answer_html(i, r)
        out.append(article if i <= PAGE_SIZE else _lazy(article, r))
    if current is not None:
        out.append("</section>")
    return out


def _answer_usage(r: AnswerResult) -> str:
    u = r.usage
    if not (u.input_tokens or u.output_tokens or u.cost_usd):
        return ""
    return f"; {u.input_tokens + u.output_tokens} tokens, ${u.cost_usd:.4f}"


def _gate_html(run: RunOutcome, outcome: Any) -> str:
    """The outcome box: the verdict (``outcome``, a ``RunVerdict``), why the run is
    incomplete, the gate's reasons, the thresholds applied, the answers that failed their own
    thresholds and the unscored ones (the first ``GATE_NAMES`` of each named, the rest
    counted)."""
    incomplete, failing, unscored = run.incomplete, run.failing, run.unscored
    out = [f'<div class="gate {outcome.status}" id="gate" data-status="{outcome.status}">'
           f'<span id="verdict">{_e(outcome.text)}</span><ul>',
           f'<li id="outcome-kind" data-kind="{_e(run.kind)}">{_e(run.headline())}</li>']
    if incomplete is not None:
        out.append(f"<li>incomplete: {_e(incomplete)}: the gate did not see every answer, so "
                   "this run does not pass</li>")
    out += [f"<li>gate failed ({_e(run.kind_of(f))}): {_e(f)}</li>" for f in run.failures]
    out += [f"<li>inconclusive: {_e(f)}</li>" for f in run.inconclusive
            if f not in run.failures]
    out += [f"<li>tolerated: {_e(t)}</li>" for t in run.tolerated[:GATE_NAMES]]
    out += [f'<li class="golden">{_e(g)}</li>' for g in  # golden answers (run.golden)
            (run.golden.lines() if run.golden is not None else [])[:GATE_NAMES]]
    stated = thresholds_text(run.thresholds)
    if stated:
        out.append(f'<li id="thresholds">{_e(stated)}</li>')
    for key, what, answers in (("failing", "failed their own thresholds", failing),
                               ("unscored", "unscored (no claims to score, not in the mean)",
                                unscored), ("unverified", unverified.HEADING,
                                            unverified.unverified_answers(run.results))):
        if answers:
            names = ", ".join(_e(run.name_of(r))
                              for r in answers[:GATE_NAMES])
            more = len(answers) - GATE_NAMES
            if more > 0:
                names += (f" and {more} more (the filters below show every answer)"
                          if key == "failing" else f" and {more} more")
            out.append(f'<li id="{key}-answers">{what}: {names}</li>')
    out.append("</ul></div>")
    return "".join(out)


def _comparison_html(comparison: Any) -> str:
    from .figures import format_change, format_figure

    out = ['<section id="comparison"><h2>Compared with the baseline</h2>',
           f'<p class="meta">{_e(comparison.baseline_label)}</p>']
    for w in comparison.warnings:
        out.append(f'<div class="warning">WARNING: {_e(w)}</div>')
    from ..runs.baseline_identity import report_lines

    out += [f'<p class="meta identity">{_e(line)}</p>' for line in report_lines(comparison)]
    out.append("<table><tr><th>figure</th><th>baseline</th><th>this run</th><th>change</th></tr>")
    for row in comparison.figures:
        cls = ' class="worse"' if row.regressed else ""
        out.append(f"<tr{cls}><td>{_e(row.label)}</td>"
                   f"<td class=n>{format_figure(row.before, row.key)}</td>"
                   f"<td class=n>{format_figure(row.after, row.key)}</td>"
                   f"<td class=n>{format_change(row.delta, row.key)}</td></tr>")
    out.append("</table>")
    from .uncertainty import effect_lines, instability_lines, paired_lines

    out += [f'<p class="meta paired">{_e(line)}</p>' for line in paired_lines(comparison)]
    out += [f'<p class="effect"><b>{_e(b[0])}</b></p><ul>' + "".join(
        f"<li>{_e(line)}</li>" for line in b[1:]) + "</ul>" for b in effect_lines(comparison)]
    out.append(f"<p>Claims that became unsupported or contradicted: <b>{comparison.worsened}</b>; "
               f"recovered: <b>{comparison.recovered}</b>.</p>")
    unstable = instability_lines(comparison)
    if unstable:
        out.append('<div class="warning" id="instability">' + _e(unstable[0]) + "<ul>"
                   + "".join(f"<li>{_e(line.strip())}</li>" for line in unstable[1:])
                   + "</ul></div>")
    if comparison.answers:
        out.append("<table><tr><th>test</th><th>faithfulness</th><th>became unsupported or "
                   "contradicted</th><th>recovered</th></tr>")
        for ch in comparison.answers:
            worse = "<br>".join(f"{_e(c.after)} (was {_e(c.before)}): {_e(c.text)}"
                                for c in ch.worsened + ch.relabelled)
            better = "<br>".join(f"{_e(c.after)} (was {_e(c.before)}): {_e(c.text)}"
                                 for c in ch.recovered)
            before = format_figure(ch.before_score, "mean_faithfulness")
            after = format_figure(ch.after_score, "mean_faithfulness")
            out.append(f"<tr><td>{_e(ch.test_id)}</td><td class=n>{before} &rarr; {after}</td>"
                       f"<td>{worse}</td><td>{better}</td></tr>")
        out.append("</table>")
    if comparison.added:
        out.append("<p>Added: " + ", ".join(_e(t) for t in comparison.added) + "</p>")
    if comparison.removed:
        out.append("<p>Removed: " + ", ".join(_e(t) for t in comparison.removed) + "</p>")
    for f in comparison.failures:
        out.append(f'<div class="warning">REGRESSION: {_e(f)}</div>')
    out.append("</section>")
    return "\n".join(out)


def render_html(results: list[AnswerResult], summary: SessionSummary, judges: list[str],
                failures: list[str], comparison: Any = None, *,
                title: str = "Faithfulness report", incomplete: str | None = None,
                thresholds: Any = None, unscored: Any = None, failing: Any = None,
                silent: Any = (), expected: Any = (),
                exit_failed: bool | None = None) -> str:
    """The whole report as one HTML document (a ``str``; write it with ``write_html``).

    Args:
        results: every answer of the run, in order.
        summary: the session figures.
        judges: the judges' descriptions.
        failures: the gate's failure reasons (empty: passed).
        comparison: a ``runs.compare.Comparison`` with a saved run, or ``None``.
        title: the page title.
        incomplete: why the run is incomplete (``None``: complete); an incomplete run is
            never said to pass.
        thresholds: the session thresholds applied, ``[(name, value), ...]`` (empty: none;
            ``None``: not stated).
        unscored / failing: the unscored answers and those that failed their own
            thresholds (default: found in ``results``).
        silent / expected: of ``failing``, those whose tests did not fail and those of
            ``xfail`` tests (``reports.verdict.run_verdict`` words the verdict by them).
        exit_failed: whether pytest's exit status says the run failed, when known (a red
            run is never worded as a pass: ``reports.verdict.run_verdict``).

    Every text of the run is sanitised and escaped (``_e``); long words wrap (CSS
    ``overflow-wrap:anywhere``), so no text can widen the page.
    """
    return html_of(RunOutcome.of(results, summary, judges, failures, comparison,
                                 incomplete=incomplete, thresholds=thresholds,
                                 unscored=unscored, failing=failing, silent=silent,
                                 expected=expected, exit_failed=exit_failed), title=title)


def html_of(outcome: RunOutcome, *, title: str = "Faithfulness report") -> str:
    """The run's outcome (a ``run.outcome.RunOutcome``) as one self-contained HTML document:
    see ``render_html``."""
    results, summary, judges = outcome.results, outcome.summary, outcome.judges
    comparison = outcome.comparison
    verdict = outcome.verdict()
    scores = [r.score for r in results if r.score is not None]
    n_fail = sum(1 for r in results if shows_as_failing(r))
    n_con = sum(1 for r in results if r.contradicted > 0)
    n_uns = sum(1 for r in results if r.unsupported > 0)
    csp = (f"default-src 'none'; style-src {_csp_hash(_CSS)}; script-src {_csp_hash(_JS)}; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    created = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    figures = [
        ("mean faithfulness", _fmt(summary.mean_faithfulness), "mean"),
        ("answers", f"{summary.answers}", "answers"),
        ("scored / unscored / errored",
         f"{summary.scored} / {summary.unscored} / {summary.errored}"
         + (f" ({summary.unverified} unverified)" if summary.unverified else ""), "statuses"),
        ("answers with a claim not supported", _fmt(summary.unsupported_answer_rate, pct=True),
         "unsupported-rate"),
        ("claims supported", f"{summary.supported} / {summary.claims}", "supported"),
        ("contradicted claims", f"{summary.contradicted}", "contradicted"),
        ("unsupported claims", f"{summary.unsupported}", "unsupported"),
        ("judge calls (cache hits)", f"{summary.judge_calls} ({summary.cache_hits})", "calls"),
    ]
    if summary.cited:
        figures += [("citation precision (correctly cited / cited)",
                     f"{_fmt(summary.citation_precision)} ({summary.correctly_cited} / "
                     f"{summary.cited})", "citation-precision"),
                    ("misattributed claims", f"{summary.misattributed}", "misattributed")]
    if summary.conversations:
        figures.append(("conversations with a claim not supported",
                        f"{_fmt(summary.conversation_unsupported_rate, pct=True)} of "
                        f"{summary.conversations}", "conversations"))
    usage = summary.usage
    if usage.input_tokens or usage.output_tokens or usage.cost_usd:
        figures += [("tokens in / out", f"{usage.input_tokens} / {usage.output_tokens}",
                     "tokens"),
                    ("cost (USD)", f"${usage.cost_usd:.4f}", "cost")]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f'<meta http-equiv="Content-Security-Policy" content="{_e(csp)}">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
           f"<header><h1>{_e(title)}</h1>",
           f'<p class="meta">generated {created} by pytest-faithfulness</p>']
    out += [f'<p class="meta judge">judge: {_e(j)}</p>' for j in judges]
    out.append('<div class="figures" id="headline">')
    out += [f'<div class="figure" id="fig-{key}"><div class="v">{_e(v)}</div>'
            f'<div class="k">{_e(k)}</div></div>' for k, v, key in figures]
    out.append("</div>")
    used = usage_text(summary)
    if used:
        out.append(f'<p class="meta" id="usage">{_e(used)}</p>')
    from .uncertainty import uncertainty_lines

    out += [f'<p class="meta uncertainty">{_e(line)}</p>' for line in uncertainty_lines(summary)]
    out.append(_gate_html(outcome, verdict))
    out.append("</header>")
    out.append('<section id="distribution"><h2>Per-answer faithfulness</h2>'
               + distribution_svg(scores)
               + f'<p class="meta">{len(scores)} scored answer(s); {summary.unscored} unscored '
               f'and {summary.errored} errored are not shown.</p></section>')
    if comparison is not None:
        out.append(_comparison_html(comparison))
    from .canaries import canary_html

    out.append(canary_html(outcome.canaries))
    out.append('<section><h2>Answers</h2></section>')
    out.append('<nav id="filters" aria-label="filters">'
               f'<button type="button" data-filter="all">All ({len(results)})</button>'
               f'<button type="button" data-filter="failing" title="failed its thresholds, '
               f'errored, or has a claim that is not supported or whose votes disagree">'
               f'Failing ({n_fail})</button>'
               f'<button type="button" data-filter="contradicted">Contradicted ({n_con})</button>'
               f'<button type="button" data-filter="unsupported">Unsupported ({n_uns})</button>'
               '<span id="shown"></span>'
               '<button type="button" data-page="prev" hidden>← previous</button>'
               '<button type="button" data-page="next" hidden>next →</button></nav>')
    out.append('<main id="answers">')
    if len(results) > PAGE_SIZE:
        out.append(f'<noscript><p class="meta">The first {PAGE_SIZE} answers are shown; the '
                   f'other {len(results) - PAGE_SIZE}, the filters and the pages need '
                   'JavaScript.</p></noscript>')
    out += _answers_html(results)
    out.append("</main>")
    out.append(f'<footer><p class="gate {verdict.status}" id="final-verdict">{_e(verdict.text)}'
               "</p>Faithfulness = supported claims / claims decomposed. Colours: green "
               "supported, red contradicted, amber unsupported.</footer>")
    out.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(out)


def write_html(path: str | Path, document: str) -> Path:
    """Write the HTML document to ``path`` atomically (parents created; written aside then
    renamed; the temporary file never stays). A character UTF-8 cannot hold is written as a
    ``\\udXXX`` escape, so any document can be written.

    Raises:
        OSError: the file cannot be written.
    """
    return write_atomic(path, document.encode("utf-8", errors="backslashreplace"))
