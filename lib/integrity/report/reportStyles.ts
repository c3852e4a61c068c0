/** The page's only stylesheet, inline: the report loads nothing from elsewhere. */
export const REPORT_CSS = `
:root{--sealed:#2e7d32;--window:#90caf9;--pending:#ffb300;--gap:#616161;--failed:#c62828;--broken:#6a1b9a}
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:960px;color:#1b1b1b;padding:0 1rem}
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.15rem;margin:1.75rem 0 .5rem;border-bottom:1px solid #ddd}
.meta{color:#555}.ok{color:var(--sealed);font-weight:600}.bad{color:var(--failed);font-weight:600}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f4f4}code{font-size:.9em;word-break:break-all}
.summary{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;margin:.75rem 0}.summary div{min-width:8rem}.summary b{display:block;font-size:1.3rem}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem 1rem;margin:.5rem 0}
.legend .cell{display:inline-block;vertical-align:middle}
.year summary{cursor:pointer;margin:.4rem 0}
.grid{display:grid;grid-template-rows:repeat(7,15px);grid-auto-flow:column;grid-auto-columns:15px;gap:2px;padding:.25rem 0 .75rem}
.cell{width:15px;height:15px;border-radius:2px;position:relative;font-size:9px;line-height:15px;text-align:center;color:#fff;box-sizing:border-box}
.cell:focus{outline:2px solid #000;outline-offset:1px}
.s-sealed{background:var(--sealed)}.s-window{background:var(--window);color:#000}.s-pending{background:var(--pending);color:#000}
.s-gap{background:var(--gap)}.s-failed{background:var(--failed)}.s-broken{background:var(--broken)}
.tip{display:none;position:absolute;z-index:2;left:18px;top:-4px;width:max-content;max-width:22rem;background:#222;color:#fff;padding:.3rem .5rem;border-radius:3px;font-size:12px;line-height:1.35;text-align:left}
.cell:hover .tip,.cell:focus .tip{display:block}
figure{margin:.5rem 0}
`;
