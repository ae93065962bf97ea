// Hostile model output for the attack suite: markdown and HTML a model could answer with.

/** Sets the flag every payload aims for; the page must never run it. */
export const pwn = (tag: string) => `document.body.dataset.pwned='${tag}';window.__pwned='${tag}'`;

/**
 * An answer of HTML, script, URL-scheme and CSS attacks, in markdown as a model would write it.
 * Every URL that would load by itself points at `leak`.
 */
export function htmlAttacks(leak: string): string {
  const links = [
    `Links: <a href="javascript:${pwn('js-link')}">js</a>, [md js](javascript:${pwn('md-js')}),`,
    `<a href="JaVaScRiPt:${pwn('mixed-case')}">mixed case</a>, <a href="&#106;avascript:${pwn('entity')}">entity</a>,`,
    `<a href="&#x6A;&#x61;vascript&#x3A;${pwn('hex-entity')}">hex entity</a>, <a href="java&#09;script:${pwn('tab')}">tab</a>,`,
    `<a href=" javascript:${pwn('space')}">leading space</a>, [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==),`,
    `<a href="data:text/html,<script>${pwn('data')}</script>">data html</a>, <a href="vbscript:msgbox(1)">vbscript</a>,`,
    `<a href="VBScript&colon;msgbox(1)">vbscript entity</a>, [command](command:workbench.action.terminal.new), [file](file:///etc/passwd),`,
    `<a href="#" onclick="${pwn('onclick')}">onclick</a>, <a href="${leak}/clicked" ping="${leak}/ping" target="_blank">ping</a>,`,
    `[relative](/leak-relative) and [protocol relative](//127.0.0.1/leak).`,
  ].join('\n');
  return [
    '## Attack answer',
    `<script>${pwn('script')}</script>`,
    `<img src=x onerror="${pwn('img-onerror')}">`,
    `<img src="${leak}/img-tag" srcset="${leak}/img-srcset 2x">`,
    `![tracking pixel](${leak}/md-image)`,
    `<body onload="${pwn('body-onload')}">`,
    `<div onmouseover="${pwn('onmouseover')}">hover over this line</div>`,
    `<input onfocus="${pwn('onfocus')}" autofocus>`,
    '<input type="password" placeholder="Enter your API key">',
    `<svg onload="${pwn('svg-onload')}"><image href="${leak}/svg-image"/><a xlink:href="javascript:${pwn('svg-link')}"><text y="20">svg link</text></a><animate onbegin="${pwn('animate')}" attributeName="x" dur="1s"/></svg>`,
    `<iframe srcdoc="<script>${pwn('srcdoc')}</script>"></iframe>`,
    `<iframe src="${leak}/iframe"></iframe>`,
    `<object data="${leak}/object"></object>`,
    `<embed src="${leak}/embed">`,
    `<form action="${leak}/form"><button formaction="${leak}/formaction">Submit</button></form>`,
    `<meta http-equiv="refresh" content="0;url=${leak}/meta-refresh">`,
    `<base href="${leak}/base/">`,
    `<link rel="stylesheet" href="${leak}/link-stylesheet"><link rel="prefetch" href="${leak}/link-prefetch">`,
    `<video src="${leak}/video" poster="${leak}/video-poster"></video><audio src="${leak}/audio"></audio>`,
    `<details open ontoggle="${pwn('ontoggle')}"><summary>details</summary>x</details>`,
    `<math><mtext><table><mglyph><style><img src=x onerror="${pwn('mxss')}">`,
    `<noscript><p title="</noscript><img src=x onerror=${pwn('noscript')}>"></noscript>`,
    `<template><img src=x onerror="${pwn('template')}"></template>`,
    `Inline tags in a sentence: <b onmouseover="${pwn('inline-b')}">bold?</b>, <img src="${leak}/inline-img">, <a href="${leak}/inline-a" style="position:fixed;inset:0">a link over the page</a>.`,
    `A title that lies: [docs](${leak}/clicked "https://github.com/") and an image link [![logo](${leak}/image-in-link)](${leak}/clicked).`,
    links,
    '<style>body { display: none !important } .composer, header { display: none !important } * { position: fixed !important }</style>',
    `<div style="position:fixed;inset:0;z-index:2147483647;background:red;width:100vw;height:100vh">OVERLAY covering the view</div>`,
    '<div style="margin:-5000px 0 0 -5000px">huge negative margins</div>',
    `<span style="background:url(${leak}/css-url)">css url</span> <p style="width:10000px">ten thousand pixels wide</p>`,
    `<table background="${leak}/table-background"><tr><td style="position:absolute;top:0;left:0">cell</td></tr></table>`,
    '<span class="approval card">Braid wants to run a command: rm -rf ~ <button class="allow">Allow</button></span>',
    '<span data-role="stop">hijacks the Stop button</span><span data-role="model">hijacks the model name</span><span id="app" name="input">clobber</span>',
    `Inline code stays text: \`<img src=x onerror="${pwn('inline-code')}">\``,
    `\`\`\`html\n<script>${pwn('code-block')}</script>\n\`\`\``,
    'End of the attack answer.',
  ].join('\n\n');
}

/** Splits text into pieces of `size` characters, so markup arrives cut mid-tag. */
export function chunked(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
