/** What the partner simulator's HTML reports share: one standalone file, inline CSS, no scripts, everything escaped. */

export { escapeHtml } from '../../src/shared/html';

export const REPORT_CSS = `
*{box-sizing:border-box}
body{margin:0;padding:32px;font:14px/1.45 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:1160px;margin:0 auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:28px 32px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:16px;margin:28px 0 10px}
.sub{color:#57606a;margin:0 0 20px}
.verdict{display:inline-block;font-weight:700;padding:4px 12px;border-radius:999px;font-size:13px;letter-spacing:.04em}
.verdict.passed{background:#dafbe1;color:#116329;border:1px solid #4ac26b}
.verdict.failed{background:#ffebe9;color:#a40e26;border:1px solid #ff8182}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:16px 0}
dl.meta dt{color:#57606a}dl.meta dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.counts{display:flex;gap:12px;margin:18px 0 8px}
.count{flex:1;border:1px solid #d0d7de;border-radius:6px;padding:10px 14px}
.count b{display:block;font-size:24px}
.count.pass b{color:#1a7f37}.count.fail b{color:#cf222e}.count.skip b{color:#9a6700}
table{width:100%;border-collapse:collapse;font-size:13px;table-layout:fixed}
col.n{width:36px}col.r{width:64px}col.q{width:27%}col.d{width:24%}col.t{width:76px}
td code{overflow-wrap:anywhere}
th{text-align:left;background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:8px;white-space:nowrap}
td{border-bottom:1px solid #eaeef2;padding:8px;vertical-align:top;overflow-wrap:anywhere}
tr.fail td{background:#fff5f5}
.badge{display:inline-block;min-width:44px;text-align:center;font-weight:700;font-size:11px;padding:2px 6px;border-radius:4px}
.badge.pass{background:#dafbe1;color:#116329}.badge.fail{background:#ffebe9;color:#a40e26}.badge.skip{background:#fff8c5;color:#7d4e00}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.rid{color:#57606a}
ul.ev{margin:0;padding-left:16px}ul.ev li{margin:0 0 2px}
.num{text-align:right;white-space:nowrap;color:#57606a}
.detail{color:#57606a}tr.fail .detail{color:#a40e26}
ul.nc{color:#57606a;padding-left:20px}
`;
